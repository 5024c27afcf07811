/* SPDX-License-Identifier: Apache-2.0 */
/* CUDA entries of the multi-pass zstd decoder (zstd/zd_zstd_mp.h): five launches per batch of
   large frames, in this order on one stream. scan, link and finish: one block per chunk;
   entropy: any number of blocks striding over n x max_slots block slots (max_slots: the largest
   slots(D,S) of a chunk); exec (or exec_win): any number of blocks (persistent, they take
   tickets), a multiple of 32 threads, at most ZD_MPX_MAX_ITEMS. */
#include "zd_portable.h"
#include "zstd/zd_zstd_mp.h"

extern "C" __global__ void zd_zstd_mp_scan(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           const zd_u64 *dst_sizes, zd_u8 *scratch, const zd_u64 *scratch_offsets,
                                           zd_u32 n) {
    __shared__ zd_mp_scan_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n) return;
    zd_zstd_mp_scan_group(src + src_offsets[c], src_sizes[c], dst_sizes[c], scratch + scratch_offsets[c], c == 0u,
                          &lds);
}

extern "C" __global__ void zd_zstd_mp_entropy(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                              const zd_u64 *dst_sizes, zd_u8 *scratch, const zd_u64 *scratch_offsets,
                                              const zd_u64 *slot_base, zd_u32 n, zd_u64 max_slots, zd_u32 seq_min) {
    __shared__ zd_mp_entropy_lds lds;
    zd_mp_hdr *ctl = (zd_mp_hdr *)(scratch + scratch_offsets[0]);
    /* Slot g is block g / n of chunk g % n: the real blocks (the first few slots of each chunk)
       come first and spread over all groups, whatever the grid and the chunks' slot counts. */
    zd_u64 total = (zd_u64)n * max_slots;
    for (zd_u64 g = blockIdx.x; g < total; g += gridDim.x) {
        zd_u32 c = (zd_u32)(g % n);
        zd_u64 b = g / n;
        if (b >= slot_base[c + 1u] - slot_base[c]) continue;
        zd_zstd_mp_entropy_group(src + src_offsets[c], src_sizes[c], dst_sizes[c], scratch + scratch_offsets[c],
                                 (zd_u32)b, &lds, seq_min, ctl);
        __syncthreads(); /* lds is reused by the next slot */
    }
}

/* Pass 2 with two blocks a group: threads 0-15 decode one block and 16-31 the next slot's, each
   half with its own tables (2 x 6 KiB: 17 groups, 34 decoders a multiprocessor). A block's serial
   sequence decoding is one thread's either way; here thread 0 and thread 16 run theirs in the same
   warp instructions, so a warp instruction advances two blocks, where zd_zstd_mp_entropy's
   advances one, while each block's Huffman streams still decode four at once. Slot pairs: the
   same block index of neighbouring chunks, alike in size (MultiPassLaunch.frameOrder sorts a
   batch's chunks by encoded size). The grid is several times what is resident
   (MultiPassLaunch.ENTROPY_WAVES_PROPERTY), so a group's share of pairs is small and finished
   groups give way to waiting ones. */
static_assert(sizeof(zd_mp_entropy_lds) == 6072u, "MultiPassLaunch.ENTROPY_LDS_BYTES");
#ifndef ZD_MP_ENTROPY_WAYS
/* blocks a 32-thread group; MultiPassLaunch sizes the grid for 2, and the kernel strides over
   whatever remains, so other values (4: 8 threads a block) are for tools/gpu/kernel-variants.sh */
#define ZD_MP_ENTROPY_WAYS 2u
#endif
extern "C" __global__ void zd_zstd_mp_entropy_pairs(const zd_u8 *src, const zd_u64 *src_offsets,
                                                    const zd_u64 *src_sizes, const zd_u64 *dst_sizes, zd_u8 *scratch,
                                                    const zd_u64 *scratch_offsets, const zd_u64 *slot_base, zd_u32 n,
                                                    zd_u64 max_slots, zd_u32 seq_min) {
    __shared__ zd_mp_entropy_lds lds[ZD_MP_ENTROPY_WAYS];
    zd_mp_hdr *ctl = (zd_mp_hdr *)(scratch + scratch_offsets[0]);
    const zd_u32 width = 32u / ZD_MP_ENTROPY_WAYS;
    zd_u32 half = threadIdx.x / width, hid = threadIdx.x % width;
    zd_u64 total = (zd_u64)n * max_slots;
    for (zd_u64 pair = blockIdx.x; ZD_MP_ENTROPY_WAYS * pair < total; pair += gridDim.x) {
        zd_u64 g = ZD_MP_ENTROPY_WAYS * pair + half;
        zd_u32 c = (zd_u32)(g % n);
        zd_u64 b = g / n;
        zd_u32 active = g < total && b < slot_base[c + 1u] - slot_base[c];
        zd_zstd_mp_entropy_items(src + src_offsets[c], src_sizes[c], dst_sizes[c], scratch + scratch_offsets[c],
                                 active ? (zd_u32)b : 0u, &lds[half], hid, width, active, seq_min, ctl);
        __syncthreads(); /* lds is reused by the next pair */
    }
}

/* Pass 2b: `items` threads of the group, `lanes` of each warp (a power of two; the rest only
   fill the code table), decode whole blocks' sequences, each with its own tables in shared
   memory (dynamic: ZD_MP_SEQ_CODES_BYTES + items * sizeof(zd_mp_seq_lds)), taking blocks by
   ticket (block index major, as pass 2's slots) until the blocks up to ctl->seq_blocks, which
   pass 2 set, are all taken. */
static_assert(sizeof(zd_mp_seq_lds) == 2820u, "MultiPassLaunch.SEQ_LDS_BYTES");
extern "C" __global__ void zd_zstd_mp_sequences(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                                const zd_u64 *dst_sizes, zd_u8 *scratch,
                                                const zd_u64 *scratch_offsets, zd_u32 n, zd_u32 seq_min,
                                                zd_u32 lanes, zd_u32 items) {
    extern __shared__ __align__(16) zd_u8 zd_mps_shared[];
    zd_mp_seq_codes *codes = (zd_mp_seq_codes *)zd_mps_shared;
    zd_mp_seq_codes_items(codes, threadIdx.x, blockDim.x);
    __syncthreads();
    zd_u32 lane = threadIdx.x % 32u, stride = 32u / lanes;
    zd_u32 item = (threadIdx.x / 32u) * lanes + lane / stride;
    if (lane % stride != 0u || item >= items) return;
    zd_mp_seq_lds *lds = (zd_mp_seq_lds *)(zd_mps_shared + ZD_MP_SEQ_CODES_BYTES) + item;
    zd_mp_hdr *ctl = (zd_mp_hdr *)(scratch + scratch_offsets[0]);
    zd_u64 total = (zd_u64)n * ctl->seq_blocks;
    for (;;) {
        zd_u64 t = atomicAdd(&ctl->seq_ticket, 1u);
        if (t >= total) break;
        zd_u32 c = (zd_u32)(t % n);
        zd_zstd_mp_sequences_thread(src + src_offsets[c], src_sizes[c], dst_sizes[c], scratch + scratch_offsets[c],
                                    (zd_u32)(t / n), seq_min, lds, codes);
    }
}

extern "C" __global__ void zd_zstd_mp_link(const zd_u64 *dst_sizes, zd_u8 *scratch, const zd_u64 *scratch_offsets,
                                           zd_u32 n) {
    zd_u32 c = blockIdx.x;
    if (c >= n) return;
    zd_zstd_mp_link_group(dst_sizes[c], scratch + scratch_offsets[c], (zd_mp_hdr *)(scratch + scratch_offsets[0]));
}

/* Builds blocks in place in dst: for devices without ZD_MPX_WIN_SHARED_BYTES of shared memory. */
extern "C" __global__ void zd_zstd_mp_exec(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                           zd_u8 *scratch, const zd_u64 *scratch_offsets, zd_u32 n,
                                           zd_u32 flags) {
    __shared__ zd_mp_exec_lds lds;
    __shared__ zd_u32 written[ZD_MPX_WRITTEN_WORDS];
    zd_zstd_mp_exec_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, scratch, scratch_offsets, n, &lds,
                          NULL, NULL, written, flags & ~(ZD_MPX_F_WIN | ZD_MPX_F_DEFER), NULL, NULL, NULL);
}

/* Builds each block in a shared-memory window: launch with ZD_MPX_WIN_SHARED_BYTES of dynamic
   shared memory (MultiPassLaunch.WIN_SHARED_BYTES; above 48 KiB, so the function's
   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES must be raised first): the group's variables,
   the window, then the pointers of pointer jumping, which the rounds' bitmap shares. Up to 1024
   threads (64 registers: a few bytes spill; 1024 sequences a batch halve the batches' fixed
   costs against 512). */
#define ZD_MPX_WIN_HEAD_BYTES (25u * 1024u)
#define ZD_MPX_WIN_JUMP_AT (ZD_MPX_WIN_HEAD_BYTES + ZD_ZSTD_BLOCK_MAX)
#define ZD_MPX_WIN_SHARED_BYTES (ZD_MPX_WIN_JUMP_AT + 4u * ZD_MPX_JUMP_SPAN)
static_assert(sizeof(zd_mp_exec_lds) <= ZD_MPX_WIN_HEAD_BYTES, "zd_mp_exec_lds fits the window kernel's head");
static_assert(4u * ZD_MPX_WRITTEN_WORDS <= 4u * ZD_MPX_JUMP_SPAN, "the rounds' bitmap fits the pointers' space");
static_assert(ZD_MPX_WIN_SHARED_BYTES == 222208u, "MultiPassLaunch.WIN_SHARED_BYTES");
extern "C" __global__ void __launch_bounds__(1024, 1)
zd_zstd_mp_exec_win(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes, zd_u8 *dst,
                    const zd_u64 *dst_offsets, const zd_u64 *dst_sizes, zd_u8 *scratch, const zd_u64 *scratch_offsets,
                    zd_u32 n, zd_u32 flags) {
    extern __shared__ __align__(16) zd_u8 zd_mpx_shared[];
    zd_zstd_mp_exec_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, scratch, scratch_offsets, n,
                          (zd_mp_exec_lds *)zd_mpx_shared, zd_mpx_shared + ZD_MPX_WIN_HEAD_BYTES,
                          (zd_i32 *)(zd_mpx_shared + ZD_MPX_WIN_JUMP_AT), (zd_u32 *)(zd_mpx_shared + ZD_MPX_WIN_JUMP_AT),
                          (flags | ZD_MPX_F_WIN) & ~ZD_MPX_F_DEFER, NULL, NULL, NULL);
}

/* The same with ZD_MPX_F_DEFER: blocks execute without waiting for earlier ones, leaving refs
   (`refs`: a u32 per decoded byte, chunk c's at ref_offsets[c]) for zd_zstd_mp_resolve. The
   pointers span ZD_MPX_DEFER_SPAN bytes, and the taint bits of the window follow them. */
#define ZD_MPX_DEFER_TAINT_AT (ZD_MPX_WIN_JUMP_AT + 4u * ZD_MPX_DEFER_SPAN)
#define ZD_MPX_DEFER_SHARED_BYTES (ZD_MPX_DEFER_TAINT_AT + ZD_ZSTD_BLOCK_MAX / 8u)
static_assert(4u * ZD_MPX_WRITTEN_WORDS <= 4u * ZD_MPX_DEFER_SPAN, "the rounds' bitmap fits the pointers' space");
static_assert(ZD_MPX_DEFER_SHARED_BYTES == 230400u, "MultiPassLaunch.DEFER_SHARED_BYTES");
extern "C" __global__ void __launch_bounds__(1024, 1)
zd_zstd_mp_exec_defer(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes, zd_u8 *dst,
                      const zd_u64 *dst_offsets, const zd_u64 *dst_sizes, zd_u8 *scratch,
                      const zd_u64 *scratch_offsets, zd_u32 n, zd_u32 flags, zd_u32 *refs,
                      const zd_u64 *ref_offsets) {
    extern __shared__ __align__(16) zd_u8 zd_mpx_shared[];
    zd_zstd_mp_exec_group(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, scratch, scratch_offsets, n,
                          (zd_mp_exec_lds *)zd_mpx_shared, zd_mpx_shared + ZD_MPX_WIN_HEAD_BYTES,
                          (zd_i32 *)(zd_mpx_shared + ZD_MPX_WIN_JUMP_AT), (zd_u32 *)(zd_mpx_shared + ZD_MPX_WIN_JUMP_AT),
                          flags | ZD_MPX_F_WIN | ZD_MPX_F_DEFER, (zd_u32 *)(zd_mpx_shared + ZD_MPX_DEFER_TAINT_AT),
                          refs, ref_offsets);
}

/* Pass 3b after zd_zstd_mp_exec_defer: persistent groups taking slices of blocks by ticket,
   `parts` slices a block. */
extern "C" __global__ void zd_zstd_mp_resolve(zd_u8 *dst, const zd_u64 *dst_offsets, zd_u8 *scratch,
                                              const zd_u64 *scratch_offsets, const zd_u32 *refs,
                                              const zd_u64 *ref_offsets, zd_u32 n, zd_u32 parts) {
    __shared__ zd_u32 ticket;
    zd_zstd_mp_resolve_group(dst, dst_offsets, scratch, scratch_offsets, refs, ref_offsets, n, parts, &ticket);
}

extern "C" __global__ void zd_zstd_mp_finish(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                             zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                             zd_u8 *scratch, const zd_u64 *scratch_offsets, zd_u32 *status, zd_u32 n) {
    __shared__ zd_zstd_lds lds;
    zd_u32 c = blockIdx.x;
    if (c >= n) return;
    zd_u32 s = zd_zstd_mp_finish_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c],
                                       scratch + scratch_offsets[c], &lds);
    if (threadIdx.x == 0) status[c] = s;
}
