/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_host.c - host-mode (plain C + pthreads) build of the kernels, for tests and CI without a
 * GPU. Compile: gcc -O2 -shared -fPIC -pthread -I src/main/c src/main/c/host/zd_host.c
 * Each exported zd_host_* function mirrors a device kernel: a loop over groups, each group
 * emulated by zd_host_group_run() with `local_size` threads (1 = run inline).
 */
#include "zd_portable.h"
#include "zstd/zd_zstd_frame.h"
#include "zstd/zd_zstd_mp.h"
#include "bytes/zd_bytes.h"
#include "gather/zd_gather.h"
#include "inflate/zd_inflate.h"
#include "inflate/zd_gzip.h"
#include "inflate/zd_zlib.h"
#include "inflate/zd_inflate_split.h"
#include "blosc/zd_blosc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ZD_KERNEL zd_u64 zd_host_zstd_lds_bytes(void) { return ZD_ZSTD_LDS_BYTES; }
ZD_KERNEL zd_u64 zd_host_zstd_scratch_per_frame(void) { return ZD_ZSTD_SCRATCH_PER_FRAME; }

/* Host-only bits of zd_host_zstd_mp_decode_batch's exec_flags (beside the ZD_MPX_F_* ones). */
#define ZD_HOST_MPX_WINDOW 0x100u
#define ZD_HOST_MP_PAIRS 0x200u
/* bits 16-31: pass 2's seq_min (0: no pass 2b) */
#define ZD_HOST_MP_SEQ_MIN(flags) ((flags) >> 16)

typedef struct {
    const zd_u8 *src;
    const zd_u64 *src_offsets, *src_sizes;
    zd_u8 *dst;
    const zd_u64 *dst_offsets, *dst_sizes;
    zd_u8 *scratch;
    zd_u64 scratch_per_frame;
    zd_u32 *status;
    zd_u32 n_frames;
    zd_zstd_lds *lds;
} zd_host_zstd_args;

/* Same body as the zd_zstd_decode_batch kernel entries. */
static void zd_host_zstd_body(void *p) {
    zd_host_zstd_args *a = (zd_host_zstd_args *)p;
    zd_u32 f = zd_group_id();
    if (f >= a->n_frames) return;
    zd_u32 s = zd_zstd_decode_frame_group(a->src + a->src_offsets[f], a->src_sizes[f], a->dst + a->dst_offsets[f],
                                          a->dst_sizes[f], a->scratch + (zd_u64)f * a->scratch_per_frame,
                                          a->scratch_per_frame, a->lds);
    if (zd_local_id() == 0u) a->status[f] = s;
}

ZD_KERNEL int zd_host_zstd_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                        zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                        zd_u8 *scratch, zd_u64 scratch_per_frame, zd_u32 *status, zd_u32 n_frames,
                                        zd_u32 local_size) {
    zd_zstd_lds *lds = (zd_zstd_lds *)malloc(sizeof(zd_zstd_lds));
    if (lds == NULL) return -1;
    zd_host_zstd_args a = {src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes,
                           scratch, scratch_per_frame, status, n_frames, lds};
    for (zd_u32 g = 0; g < n_frames; g++) {
        memset(lds, 0xA5, sizeof(zd_zstd_lds)); /* local memory starts undefined */
        if (zd_host_group_run(g, n_frames, local_size, zd_host_zstd_body, &a) != 0) {
            free(lds);
            return -1;
        }
    }
    free(lds);
    return 0;
}

/* One frame, convenience for tests. */
ZD_KERNEL zd_u32 zd_host_zstd_decode(const zd_u8 *src, zd_u64 src_len, zd_u8 *dst, zd_u64 dst_len, zd_u8 *scratch,
                                     zd_u64 scratch_len, zd_u32 local_size) {
    zd_u64 so = 0, doff = 0;
    zd_u32 status = 0xFFFFFFFFu;
    if (zd_host_zstd_decode_batch(src, &so, &src_len, dst, &doff, &dst_len, scratch, scratch_len, &status, 1u,
                                  local_size) != 0)
        return 0xFFFFFFFFu;
    return status;
}

/* ------------------------------------------------------------------ multi-pass zstd (zd_zstd_mp.h) */
ZD_KERNEL zd_u64 zd_host_zstd_mp_scratch_bytes(zd_u64 dst_len, zd_u64 src_len) {
    return zd_zstd_mp_scratch_bytes(dst_len, src_len);
}
ZD_KERNEL zd_u64 zd_host_zstd_mp_slots(zd_u64 dst_len, zd_u64 src_len) { return zd_zstd_mp_slots(dst_len, src_len); }

typedef struct {
    const zd_u8 *src;
    const zd_u64 *src_offsets, *src_sizes;
    zd_u8 *dst;
    const zd_u64 *dst_offsets, *dst_sizes;
    zd_u8 *scratch;
    const zd_u64 *scratch_offsets, *slot_base;
    zd_u32 *status;
    zd_u32 n, pass;
    zd_zstd_lds *lds;
    zd_mp_scan_lds *scl;
    zd_mp_exec_lds *xlds;
    zd_u8 *win;
    zd_i32 *jump;
    zd_mp_entropy_lds *elds;
    zd_u32 exec_flags, local_size, exec_groups, group;
    zd_u32 *taint, *refs;    /* ZD_MPX_F_DEFER: the group's taint bits, the batch's refs */
    const zd_u64 *ref_offsets;
    zd_u32 ticket;           /* pass 3b: the group's ticket (local memory of zd_zstd_mp_resolve) */
} zd_host_mp_args;

static zd_u32 zd_host_seq_min(const zd_host_mp_args *a) { return ZD_HOST_MP_SEQ_MIN(a->exec_flags); }

/* Pass 2b as zd_zstd_mp_sequences runs it, its tickets taken in order by one thread: every block
   up to seq_blocks of every chunk, block index major, each with freshly poisoned local memory. */
static void zd_host_mp_sequences(const zd_host_mp_args *a, zd_mp_seq_lds *slds) {
    const zd_mp_hdr *ctl = (const zd_mp_hdr *)(a->scratch + a->scratch_offsets[0]);
    zd_mp_seq_codes codes;
    memset(&codes, 0xA5, sizeof(codes));
    zd_mp_seq_codes_items(&codes, 0u, 1u);
    zd_u64 total = (zd_u64)a->n * ctl->seq_blocks;
    for (zd_u64 t = 0; t < total; t++) {
        zd_u32 c = (zd_u32)(t % a->n);
        memset(slds, 0xA5, sizeof(zd_mp_seq_lds));
        zd_zstd_mp_sequences_thread(a->src + a->src_offsets[c], a->src_sizes[c], a->dst_sizes[c],
                                    a->scratch + a->scratch_offsets[c], (zd_u32)(t / a->n),
                                    ZD_HOST_MP_SEQ_MIN(a->exec_flags), slds, &codes);
    }
}

/* Same bodies as the zd_zstd_mp_{scan,entropy,link,exec,finish} kernel entries. */
static void zd_host_mp_body(void *p) {
    zd_host_mp_args *a = (zd_host_mp_args *)p;
    zd_u32 g = zd_group_id();
    if (a->pass == 2u && (a->exec_flags & ZD_HOST_MP_PAIRS)) {
        /* as zd_zstd_mp_entropy_pairs: items 0-15 and 16-31 decode two slots side by side */
        zd_u32 half = zd_local_id() >> 4, hid = zd_local_id() & 15u;
        zd_u64 slot = 2u * (zd_u64)g + half;
        zd_u32 active = slot < a->slot_base[a->n];
        zd_u32 c = active ? zd_zstd_mp_chunk_of_slot(a->slot_base, a->n, slot) : 0u;
        zd_zstd_mp_entropy_items(a->src + a->src_offsets[c], a->src_sizes[c], a->dst_sizes[c],
                                 a->scratch + a->scratch_offsets[c], active ? (zd_u32)(slot - a->slot_base[c]) : 0u,
                                 a->elds + half, hid, 16u, active, zd_host_seq_min(a),
                                 (zd_mp_hdr *)(a->scratch + a->scratch_offsets[0]));
        return;
    }
    if (a->pass == 2u) {
        if (g >= a->slot_base[a->n]) return;
        zd_u32 c = zd_zstd_mp_chunk_of_slot(a->slot_base, a->n, g);
        zd_zstd_mp_entropy_group(a->src + a->src_offsets[c], a->src_sizes[c], a->dst_sizes[c],
                                 a->scratch + a->scratch_offsets[c], (zd_u32)(g - a->slot_base[c]), a->elds,
                                 zd_host_seq_min(a), (zd_mp_hdr *)(a->scratch + a->scratch_offsets[0]));
        return;
    }
    if (a->pass == 4u) {
        zd_zstd_mp_exec_group(a->src, a->src_offsets, a->src_sizes, a->dst, a->dst_offsets, a->dst_sizes, a->scratch,
                              a->scratch_offsets, a->n, a->xlds, a->win, a->jump, (zd_u32 *)a->jump,
                              a->win != NULL ? a->exec_flags | ZD_MPX_F_WIN : a->exec_flags & ~ZD_MPX_F_WIN, a->taint,
                              a->refs, a->ref_offsets);
        return;
    }
    if (a->pass == 6u) { /* as zd_zstd_mp_resolve: pass 3b, between exec and finish, 3 slices a block */
        zd_zstd_mp_resolve_group(a->dst, a->dst_offsets, a->scratch, a->scratch_offsets, a->refs, a->ref_offsets, a->n,
                                 3u, &a->ticket);
        return;
    }
    if (g >= a->n) return;
    if (a->pass == 1u) {
        zd_zstd_mp_scan_group(a->src + a->src_offsets[g], a->src_sizes[g], a->dst_sizes[g],
                              a->scratch + a->scratch_offsets[g], g == 0u, a->scl);
        return;
    }
    if (a->pass == 3u) {
        zd_zstd_mp_link_group(a->dst_sizes[g], a->scratch + a->scratch_offsets[g],
                              (zd_mp_hdr *)(a->scratch + a->scratch_offsets[0]));
        return;
    }
    zd_u32 s = zd_zstd_mp_finish_group(a->src + a->src_offsets[g], a->src_sizes[g], a->dst + a->dst_offsets[g],
                                       a->dst_sizes[g], a->scratch + a->scratch_offsets[g], a->lds);
    if (zd_local_id() == 0u) a->status[g] = s;
}

/* One exec group on its own thread (its items on theirs), with its own local memory. */
static void *zd_host_mp_exec_main(void *p) {
    zd_host_mp_args *a = (zd_host_mp_args *)p;
    memset(a->xlds, 0xA5, sizeof(zd_mp_exec_lds)); /* local memory starts undefined */
    if (a->win != NULL) memset(a->win, 0xA5, ZD_ZSTD_BLOCK_MAX);
    memset(a->jump, 0xA5, sizeof(zd_i32) * ZD_MPX_JUMP_SPAN);
    if (a->taint != NULL) memset(a->taint, 0xA5, ZD_ZSTD_BLOCK_MAX / 8u);
    a->pass = zd_host_group_run(a->group, a->exec_groups, a->local_size, zd_host_mp_body, a) == 0 ? 4u : 0u;
    return NULL;
}

typedef struct {
    const zd_u8 *src;
    zd_u64 src_len, dst_len;
    zd_u8 *scratch;
    zd_mp_scan_lds *lds;
} zd_host_mp_scan_args;

static void zd_host_mp_scan_body(void *p) {
    zd_host_mp_scan_args *a = (zd_host_mp_scan_args *)p;
    zd_zstd_mp_scan_group(a->src, a->src_len, a->dst_len, a->scratch, 1u, a->lds);
}

/* Pass 1 alone on one frame, `local_size` items, into the caller's scratch
   (zd_zstd_mp_scratch_bytes): its mode (ZD_MP_MODE_*), or 0 if the group could not run. Lets a
   test compare the block tables that different numbers of items build. */
ZD_KERNEL zd_u32 zd_host_zstd_mp_scan(const zd_u8 *src, zd_u64 src_len, zd_u64 dst_len, zd_u8 *scratch,
                                      zd_u32 local_size) {
    zd_mp_scan_lds *lds = (zd_mp_scan_lds *)malloc(sizeof(zd_mp_scan_lds));
    if (lds == NULL) return 0u;
    memset(lds, 0xA5, sizeof(zd_mp_scan_lds)); /* local memory starts undefined */
    zd_host_mp_scan_args a = {src, src_len, dst_len, scratch, lds};
    int rc = zd_host_group_run(0u, 1u, local_size, zd_host_mp_scan_body, &a);
    free(lds);
    return rc == 0 ? ((const zd_mp_hdr *)scratch)->mode : 0u;
}

/* The five passes over a batch (scan, entropy, link, exec, finish); modes[c] (if not NULL) gets
   ZD_MP_MODE_RUN when chunk c was decoded by the multi-pass path, ZD_MP_MODE_FALLBACK when by
   the single-pass decoder. Groups of the other passes run one after the other; the exec pass's
   `exec_groups` groups run at once, as on a GPU, taking tickets and waiting for each other's
   blocks. exec_flags: ZD_MPX_F_* bits, ZD_HOST_MPX_WINDOW to build each block in a local window
   (the CUDA zd_zstd_mp_exec_win kernel) instead of in place, ZD_HOST_MP_PAIRS (with 32 items)
   to run pass 2 as zd_zstd_mp_entropy_pairs does, two blocks a group, and in bits 16-31 pass 2's
   seq_min: blocks of at least that many sequences leave them to pass 2b (zd_zstd_mp_sequences),
   run after pass 2. With ZD_MPX_F_DEFER (and ZD_HOST_MPX_WINDOW) blocks execute without waiting
   for each other, as zd_zstd_mp_exec_defer, and pass 3b (zd_zstd_mp_resolve) runs after them;
   its refs start poisoned. */
#define ZD_HOST_MPX_MAX_GROUPS 16u
ZD_KERNEL int zd_host_zstd_mp_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                           zd_u8 *scratch, const zd_u64 *scratch_offsets, const zd_u64 *slot_base,
                                           zd_u32 *status, zd_u32 n, zd_u32 local_size, zd_u32 *modes,
                                           zd_u32 exec_flags, zd_u32 exec_groups) {
    if (local_size > ZD_MPX_MAX_ITEMS || exec_groups == 0u || exec_groups > ZD_HOST_MPX_MAX_GROUPS) return -1;
    if ((exec_flags & ZD_HOST_MP_PAIRS) && local_size != 32u) return -1;
    zd_u32 defer = (exec_flags & ZD_MPX_F_DEFER) != 0u;
    if (defer && !(exec_flags & ZD_HOST_MPX_WINDOW)) return -1;
    zd_u64 *ref_offsets = (zd_u64 *)malloc(sizeof(zd_u64) * (n + 1u));
    if (ref_offsets == NULL) return -1;
    ref_offsets[0] = 0u; /* as CudaZstdCodec: the chunks' refs one after another */
    for (zd_u32 c = 0; c < n; c++) ref_offsets[c + 1u] = ref_offsets[c] + dst_sizes[c];
    zd_u32 *refs = defer ? (zd_u32 *)malloc(4u * (size_t)ref_offsets[n] + 4u) : NULL;
    zd_u32 *taint = defer ? (zd_u32 *)malloc((size_t)ZD_ZSTD_BLOCK_MAX / 8u * exec_groups) : NULL;
    if (defer && (refs == NULL || taint == NULL)) {
        free(ref_offsets), free(refs), free(taint);
        return -1;
    }
    if (defer) memset(refs, 0xA5, 4u * (size_t)ref_offsets[n]);
    zd_zstd_lds *lds = (zd_zstd_lds *)malloc(sizeof(zd_zstd_lds));
    zd_mp_scan_lds *scl = (zd_mp_scan_lds *)malloc(sizeof(zd_mp_scan_lds));
    zd_mp_entropy_lds *elds = (zd_mp_entropy_lds *)malloc(2u * sizeof(zd_mp_entropy_lds));
    zd_mp_seq_lds *slds = (zd_mp_seq_lds *)malloc(sizeof(zd_mp_seq_lds));
    zd_mp_exec_lds *xlds = (zd_mp_exec_lds *)malloc(sizeof(zd_mp_exec_lds) * exec_groups);
    zd_u8 *win = (zd_u8 *)malloc((size_t)ZD_ZSTD_BLOCK_MAX * exec_groups);
    zd_i32 *jump = (zd_i32 *)malloc(sizeof(zd_i32) * ZD_MPX_JUMP_SPAN * exec_groups);
    int rc = -1;
    if (lds == NULL || scl == NULL || xlds == NULL || win == NULL || jump == NULL || elds == NULL || slds == NULL) goto out;
    zd_host_mp_args a = {src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, scratch, scratch_offsets,
                         slot_base, status, n, 1u, lds, scl, xlds, NULL, NULL, elds, exec_flags, local_size, exec_groups, 0u,
                         NULL, refs, ref_offsets, 0u};
    for (zd_u32 pass = 1u; pass <= 5u; pass++) {
        a.pass = pass;
        if (pass == 4u) {
            zd_host_mp_args ga[ZD_HOST_MPX_MAX_GROUPS];
            pthread_t th[ZD_HOST_MPX_MAX_GROUPS];
            for (zd_u32 g = 0; g < exec_groups; g++) {
                ga[g] = a;
                ga[g].xlds = xlds + g;
                ga[g].group = g;
                ga[g].win = (exec_flags & ZD_HOST_MPX_WINDOW) ? win + (size_t)ZD_ZSTD_BLOCK_MAX * g : NULL;
                /* the pointers when exec_flags has ZD_MPX_F_JUMP; the rounds' bitmap shares them, as in
                   the CUDA window kernel */
                ga[g].jump = jump + (size_t)ZD_MPX_JUMP_SPAN * g;
                ga[g].taint = defer ? taint + (size_t)ZD_ZSTD_BLOCK_MAX / 32u * g : NULL;
            }
            int ok = 1;
            zd_u32 started = 0u;
            /* a group that cannot start leaves its tickets to the others; the batch still fails */
            while (started < exec_groups && pthread_create(&th[started], NULL, zd_host_mp_exec_main, &ga[started]) == 0)
                started++;
            if (started < exec_groups) ok = 0;
            for (zd_u32 g = 0; g < started; g++) {
                pthread_join(th[g], NULL);
                if (ga[g].pass != 4u) ok = 0;
            }
            if (!ok) goto out;
            if (defer) {
                a.pass = 6u; /* persistent: the first group takes every ticket, in order; the second finds none */
                for (zd_u32 g = 0; g < 2u; g++)
                    if (zd_host_group_run(g, 2u, local_size, zd_host_mp_body, &a) != 0) goto out;
            }
            continue;
        }
        zd_u32 groups = pass != 2u ? n
                        : (exec_flags & ZD_HOST_MP_PAIRS) ? (zd_u32)((slot_base[n] + 1u) / 2u) : (zd_u32)slot_base[n];
        for (zd_u32 g = 0; g < groups; g++) {
            memset(lds, 0xA5, sizeof(zd_zstd_lds)); /* local memory starts undefined */
            memset(scl, 0xA5, sizeof(zd_mp_scan_lds));
            memset(elds, 0xA5, 2u * sizeof(zd_mp_entropy_lds));
            if (zd_host_group_run(g, groups, local_size, zd_host_mp_body, &a) != 0) goto out;
        }
        if (pass == 2u && ZD_HOST_MP_SEQ_MIN(exec_flags) != 0u) zd_host_mp_sequences(&a, slds);
    }
    if (modes != NULL)
        for (zd_u32 c = 0; c < n; c++) modes[c] = ((const zd_mp_hdr *)(scratch + scratch_offsets[c]))->mode;
    rc = 0;
out:
    free(lds);
    free(scl);
    free(xlds);
    free(win);
    free(jump);
    free(elds);
    free(slds);
    free(ref_offsets);
    free(refs);
    free(taint);
    return rc;
}

/* ------------------------------------------------------------------ byte kernels */
typedef struct {
    const zd_u8 *src;
    const zd_u64 *offsets, *sizes;
    zd_u32 *computed, *status;
    zd_u32 mode, n_chunks;
    zd_u32 *lanes;
} zd_host_crc_args;

static void zd_host_crc_body(void *p) {
    zd_host_crc_args *a = (zd_host_crc_args *)p;
    zd_u32 c = zd_group_id();
    zd_u64 n = a->sizes[c];
    zd_u64 body = a->mode == ZD_CRC32C_VERIFY ? (n >= 4u ? n - 4u : 0u) : n;
    zd_u32 crc = zd_crc32c_group(a->src + a->offsets[c], body, a->lanes);
    if (zd_local_id() == 0u) {
        a->computed[c] = crc;
        if (a->mode != ZD_CRC32C_VERIFY) a->status[c] = ZD_STATUS_OK;
        else if (n < 4u) a->status[c] = ZD_STATUS_CORRUPT_TRUNCATED;
        else
            a->status[c] = crc == (zd_u32)zd_load_le_thread(a->src + a->offsets[c], n, n - 4u, 4u)
                               ? ZD_STATUS_OK
                               : ZD_STATUS_CORRUPT_CHECKSUM;
    }
}

ZD_KERNEL int zd_host_crc32c_batch(const zd_u8 *src, const zd_u64 *offsets, const zd_u64 *sizes, zd_u32 *computed,
                                   zd_u32 *status, zd_u32 mode, zd_u32 n_chunks, zd_u32 local_size) {
    zd_u32 lanes[1024];
    if (local_size == 0u || local_size > 1024u) return -1;
    zd_host_crc_args a = {src, offsets, sizes, computed, status, mode, n_chunks, lanes};
    for (zd_u32 g = 0; g < n_chunks; g++)
        if (zd_host_group_run(g, n_chunks, local_size, zd_host_crc_body, &a) != 0) return -1;
    return 0;
}

/* Element-wise kernels: emulate a grid of n_groups x local_size items, grid-stride loops. */
typedef struct {
    zd_u32 kind;
    zd_u8 *data;
    const zd_u8 *src;
    const zd_u64 *params;
    zd_u64 n_elems;
    zd_u32 width, rank;
} zd_host_elem_args;

static void zd_host_elem_body(void *p) {
    zd_host_elem_args *a = (zd_host_elem_args *)p;
    zd_u64 gsize = (zd_u64)zd_num_groups() * zd_local_size();
    for (zd_u64 i = (zd_u64)zd_group_id() * zd_local_size() + zd_local_id(); i < a->n_elems; i += gsize) {
        if (a->kind == 0u) zd_byteswap_thread(a->data, i, a->width);
        else zd_transpose_thread(a->src, a->data, a->params, a->rank, a->width, i);
    }
}

ZD_KERNEL int zd_host_byteswap(zd_u8 *data, zd_u64 n_elems, zd_u32 width, zd_u32 n_groups, zd_u32 local_size) {
    zd_host_elem_args a = {0u, data, NULL, NULL, n_elems, width, 0u};
    for (zd_u32 g = 0; g < n_groups; g++)
        if (zd_host_group_run(g, n_groups, local_size, zd_host_elem_body, &a) != 0) return -1;
    return 0;
}

ZD_KERNEL int zd_host_transpose(const zd_u8 *src, zd_u8 *dst, const zd_u64 *params, zd_u32 rank, zd_u32 elem,
                                zd_u64 n_elems, zd_u32 n_groups, zd_u32 local_size) {
    if (rank == 0u || rank > ZD_MAX_RANK) return -1;
    zd_host_elem_args a = {1u, dst, src, params, n_elems, elem, rank};
    for (zd_u32 g = 0; g < n_groups; g++)
        if (zd_host_group_run(g, n_groups, local_size, zd_host_elem_body, &a) != 0) return -1;
    return 0;
}

typedef struct {
    const zd_u8 *chunks;
    zd_u64 chunks_len;
    const zd_u64 *chunk_offsets, *boxes;
    zd_u8 *dst;
    zd_u64 dst_len;
    const zd_u64 *dst_strides;
    const zd_u8 *fill;
    zd_u32 *status;
    zd_u32 rank, elem;
    zd_u32 *st;
} zd_host_scatter_args;

static void zd_host_scatter_body(void *p) {
    zd_host_scatter_args *a = (zd_host_scatter_args *)p;
    zd_u32 c = zd_group_id();
    zd_u32 s = zd_scatter_chunk_group(a->chunks, a->chunks_len, a->chunk_offsets[c], a->boxes + (zd_u64)c * 4u * a->rank,
                                      a->dst, a->dst_len, a->dst_strides, a->fill, a->rank, a->elem, a->st);
    if (zd_local_id() == 0u) a->status[c] = s;
}

ZD_KERNEL int zd_host_scatter(const zd_u8 *chunks, zd_u64 chunks_len, const zd_u64 *chunk_offsets, const zd_u64 *boxes,
                              zd_u8 *dst, zd_u64 dst_len, const zd_u64 *dst_strides, const zd_u8 *fill, zd_u32 *status,
                              zd_u32 rank, zd_u32 elem, zd_u32 n_chunks, zd_u32 local_size) {
    zd_u32 st = 0;
    zd_host_scatter_args a = {chunks, chunks_len, chunk_offsets, boxes, dst, dst_len, dst_strides, fill, status, rank, elem, &st};
    for (zd_u32 g = 0; g < n_chunks; g++)
        if (zd_host_group_run(g, n_chunks, local_size, zd_host_scatter_body, &a) != 0) return -1;
    return 0;
}

/* ------------------------------------------------------------------ plane gather (gather/zd_gather.h) */
/* The launch of zd_gather with `items` items per plane: item t takes accesses t, t + items, ... */
ZD_KERNEL int zd_host_gather(const zd_u8 *src, zd_u64 src_planes, zd_u8 *dst, zd_u64 dst_planes, const zd_u64 *table,
                             zd_u32 n_planes, zd_u64 plane_elems, zd_u32 flags, zd_u32 nan_bits, zd_u32 items) {
    if (items == 0u) return -1;
    for (zd_u32 p = 0; p < n_planes; p++)
        for (zd_u32 t = 0; t < items; t++)
            zd_gather_plane_thread(src, src_planes, dst, dst_planes, table, n_planes, plane_elems, flags, nan_bits, p,
                                   t, items);
    return 0;
}

/* ------------------------------------------------------------------ blosc (blosc/zd_blosc.h) */
ZD_KERNEL zd_u64 zd_host_blosc_scratch_per_group(zd_u64 max_block, zd_u32 mode) {
    /* zlib needs no global scratch: the stream's window is its output */
    return (mode & ZD_BLOSC_MODE_ZSTD) ? ZD_BLOSC_SCRATCH_PER_GROUP(max_block) : ZD_BLOSC_LZ_SCRATCH_PER_GROUP(max_block);
}
ZD_KERNEL zd_u64 zd_host_blosc_plan_bytes(zd_u32 n_chunks) { return ZD_BLOSC_PLAN_BYTES(n_chunks); }

typedef struct {
    const zd_u8 *src;
    const zd_u64 *src_offsets, *src_sizes;
    zd_u8 *dst;
    const zd_u64 *dst_offsets, *dst_sizes;
    zd_u64 *plan;
    zd_u8 *scratch;
    zd_u64 scratch_per_group;
    zd_u32 *status;
    zd_u32 n_chunks, mode;
    zd_u64 *scan_tmp;
    zd_blosc_lds *lds;
    zd_blosc_lz_lds *lzl;
    zd_zstd_lds *zlds;
    zd_zlib_lds *flds;
} zd_host_blosc_args;

/* Same body as the zd_blosc_plan kernel entries. */
static void zd_host_blosc_plan_body(void *p) {
    zd_host_blosc_args *a = (zd_host_blosc_args *)p;
    zd_blosc_plan_group(a->src, a->src_offsets, a->src_sizes, a->dst_sizes, a->plan, a->status, a->n_chunks,
                        a->scan_tmp);
}

/* Same body as the zd_blosc_decode / zd_blosc_decode_lz / zd_blosc_decode_lz_thread kernel entries. */
static void zd_host_blosc_decode_body(void *p) {
    zd_host_blosc_args *a = (zd_host_blosc_args *)p;
    zd_blosc_decode_group(a->src, a->src_offsets, a->src_sizes, a->dst, a->dst_offsets, a->dst_sizes, a->plan,
                          a->scratch, a->scratch_per_group, a->status, a->n_chunks, a->lds, a->lzl, a->zlds,
                          a->flds, a->mode);
}

/* A batch as the device runs it: the plan kernel (one group of local_size items), then the decode
   kernel on n_groups groups; mode (ZD_BLOSC_MODE_* bits) picks the entry: ZD_BLOSC_MODE_ZSTD |
   ZD_BLOSC_MODE_ZLIB zd_blosc_decode, ZD_BLOSC_MODE_ZSTD zd_blosc_decode_zstd, 0 zd_blosc_decode_lz, ZD_BLOSC_MODE_LZ_THREAD zd_blosc_decode_lz_thread,
   ZD_BLOSC_MODE_LZ_RESOLVE zd_blosc_decode_lz_resolve, ZD_BLOSC_MODE_LZ_OVERLAP zd_blosc_decode_lz_overlap (bits
   may be combined; the decoders' region holds the overlap's two parts of batches).
   scratch: n_groups * scratch_per_group bytes. plan: ZD_BLOSC_PLAN_BYTES(n_chunks) bytes, or NULL
   to use a temporary one. Returns 0, or -1 when a group could not run. */
ZD_KERNEL int zd_host_blosc_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                         zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes, zd_u64 *plan,
                                         zd_u8 *scratch, zd_u64 scratch_per_group, zd_u32 *status, zd_u32 n_chunks,
                                         zd_u32 n_groups, zd_u32 local_size, zd_u32 mode) {
    if (n_groups == 0u || local_size == 0u || local_size > ZD_SCAN_MAX_ITEMS) return -1;
    zd_u64 *own = NULL;
    if (plan == NULL) plan = own = (zd_u64 *)malloc(ZD_BLOSC_PLAN_BYTES(n_chunks));
    zd_u64 *scan_tmp = (zd_u64 *)malloc(sizeof(zd_u64) * ZD_SCAN_TMP_WORDS);
    zd_blosc_lds *lds = (zd_blosc_lds *)malloc(sizeof(zd_blosc_lds));
    zd_u32 with_zstd = (mode & ZD_BLOSC_MODE_ZSTD) != 0u;
    zd_u32 with_zlib = (mode & ZD_BLOSC_MODE_ZLIB) != 0u;
    /* the decoders' states in one region, as zd_blosc_decode declares them (the other entries
       give each its own or leave some out: sharing here is the stricter test) */
    size_t codec_bytes = sizeof(zd_blosc_codec_lds);
    zd_blosc_codec_lds *clds = (zd_blosc_codec_lds *)malloc(codec_bytes);
    zd_zstd_lds *zlds = with_zstd && clds != NULL ? &clds->zstd : NULL;
    zd_zlib_lds *flds = with_zlib && clds != NULL ? &clds->zlib : NULL;
    int rc = -1;
    if (plan == NULL || scan_tmp == NULL || lds == NULL || clds == NULL) goto out;
    zd_host_blosc_args a = {src,     src_offsets,       src_sizes, dst,  dst_offsets, dst_sizes, plan,
                            scratch, scratch_per_group, status,    n_chunks, mode,    scan_tmp,  lds,
                            &clds->lz, zlds,            flds};
    memset(plan, 0xA5, ZD_BLOSC_PLAN_BYTES(n_chunks)); /* the plan kernel must write all of it */
    memset(scan_tmp, 0xA5, sizeof(zd_u64) * ZD_SCAN_TMP_WORDS);
    if (zd_host_group_run(0u, 1u, local_size, zd_host_blosc_plan_body, &a) != 0) goto out;
    for (zd_u32 g = 0; g < n_groups; g++) {
        memset(lds, 0xA5, sizeof(zd_blosc_lds)); /* local memory starts undefined */
        memset(clds, 0xA5, codec_bytes);
        if (zd_host_group_run(g, n_groups, local_size, zd_host_blosc_decode_body, &a) != 0) goto out;
    }
    rc = 0;
out:
    free(own);
    free(scan_tmp);
    free(lds);
    free(clds);
    return rc;
}

/* ------------------------------------------------------------------ deflate, gzip, zlib (inflate/) */
ZD_KERNEL zd_u64 zd_host_inflate_lds_bytes(zd_u32 format) {
    return format == 2u ? ZD_GZIP_LDS_BYTES : format == 1u ? ZD_ZLIB_LDS_BYTES : ZD_INFLATE_LDS_BYTES;
}

typedef struct {
    const zd_u8 *src;
    const zd_u64 *src_offsets, *src_sizes;
    zd_u8 *dst;
    const zd_u64 *dst_offsets, *dst_sizes;
    zd_u32 *status;
    zd_u32 n_chunks, format; /* 0 raw deflate, 1 zlib, 2 gzip */
    void *lds;
} zd_host_inflate_args;

/* Same body as the zd_{deflate,zlib,gzip}_decode_batch kernel entries. */
static void zd_host_inflate_body(void *p) {
    zd_host_inflate_args *a = (zd_host_inflate_args *)p;
    zd_u32 c = zd_group_id();
    if (c >= a->n_chunks) return;
    const zd_u8 *src = a->src + a->src_offsets[c];
    zd_u8 *dst = a->dst + a->dst_offsets[c];
    zd_u32 s;
    if (a->format == 2u) s = zd_gzip_decode_group(src, a->src_sizes[c], dst, a->dst_sizes[c], (zd_gzip_lds *)a->lds);
    else if (a->format == 1u) s = zd_zlib_decode_group(src, a->src_sizes[c], dst, a->dst_sizes[c], (zd_zlib_lds *)a->lds);
    else s = zd_deflate_decode_group(src, a->src_sizes[c], dst, a->dst_sizes[c], (zd_inflate_lds *)a->lds);
    if (zd_local_id() == 0u) a->status[c] = s;
}

/* scratch / scratch_per_chunk: unused (ZD_INFLATE_SCRATCH_PER_CHUNK is 0), kept so the entries
   have the zstd batch entry's shape. */
static int zd_host_inflate_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes, zd_u8 *dst,
                                 const zd_u64 *dst_offsets, const zd_u64 *dst_sizes, zd_u32 *status, zd_u32 n_chunks,
                                 zd_u32 local_size, zd_u32 format) {
    size_t bytes = (size_t)zd_host_inflate_lds_bytes(format);
    void *lds = malloc(bytes);
    if (lds == NULL) return -1;
    zd_host_inflate_args a = {src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, status, n_chunks, format, lds};
    for (zd_u32 g = 0; g < n_chunks; g++) {
        memset(lds, 0xA5, bytes); /* local memory starts undefined */
        if (zd_host_group_run(g, n_chunks, local_size, zd_host_inflate_body, &a) != 0) {
            free(lds);
            return -1;
        }
    }
    free(lds);
    return 0;
}

ZD_KERNEL int zd_host_deflate_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                           zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                           zd_u8 *scratch, zd_u64 scratch_per_chunk, zd_u32 *status, zd_u32 n_chunks,
                                           zd_u32 local_size) {
    (void)scratch, (void)scratch_per_chunk;
    return zd_host_inflate_batch(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, status, n_chunks,
                                 local_size, 0u);
}

ZD_KERNEL int zd_host_zlib_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                        zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                        zd_u8 *scratch, zd_u64 scratch_per_chunk, zd_u32 *status, zd_u32 n_chunks,
                                        zd_u32 local_size) {
    (void)scratch, (void)scratch_per_chunk;
    return zd_host_inflate_batch(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, status, n_chunks,
                                 local_size, 1u);
}

ZD_KERNEL int zd_host_gzip_decode_batch(const zd_u8 *src, const zd_u64 *src_offsets, const zd_u64 *src_sizes,
                                        zd_u8 *dst, const zd_u64 *dst_offsets, const zd_u64 *dst_sizes,
                                        zd_u8 *scratch, zd_u64 scratch_per_chunk, zd_u32 *status, zd_u32 n_chunks,
                                        zd_u32 local_size) {
    (void)scratch, (void)scratch_per_chunk;
    return zd_host_inflate_batch(src, src_offsets, src_sizes, dst, dst_offsets, dst_sizes, status, n_chunks,
                                 local_size, 2u);
}

/* Tests: 0 makes ZD_TAIL_BARRIER_OK false from now on (the kernels then run the loops of a front end
   without a barrier for part of a group, OpenCL's), 1 makes it true again; returns the setting before. */
ZD_KERNEL zd_u32 zd_host_set_tail_barrier(zd_u32 on) {
    return __atomic_exchange_n(&zd_host_tail_off, on ? 0u : 1u, __ATOMIC_SEQ_CST) ? 0u : 1u;
}

/* Tests: the largest value ZD_TEST_MAX saw at slot (0-7) since the last reset; reset sets it to 0. */
ZD_KERNEL zd_u32 zd_host_test_max(zd_u32 slot, zd_u32 reset) {
    zd_u32 *m = &zd_host_test_maxima[slot & 7u];
    return reset ? __atomic_exchange_n(m, 0u, __ATOMIC_SEQ_CST) : __atomic_load_n(m, __ATOMIC_SEQ_CST);
}

/* One chunk, convenience for tests and the fuzz driver: format 0 raw deflate, 1 zlib, 2 gzip. */
ZD_KERNEL zd_u32 zd_host_inflate_decode(const zd_u8 *src, zd_u64 src_len, zd_u8 *dst, zd_u64 dst_len, zd_u32 format,
                                        zd_u32 local_size) {
    zd_u64 so = 0, doff = 0;
    zd_u32 status = 0xFFFFFFFFu;
    if (zd_host_inflate_batch(src, &so, &src_len, dst, &doff, &dst_len, &status, 1u, local_size, format) != 0)
        return 0xFFFFFFFFu;
    return status;
}

/* ------------------------------------------------------------------ split deflate (inflate/zd_inflate_split.h) */
typedef struct {
    const zd_u8 *src;
    zd_u64 src_len;
    zd_u8 *dst;
    zd_u64 dst_len;
    zd_u16 *cells;
    zd_infs_seg *segs;
    zd_u32 n, format, retry, status;
    zd_u64 seg_bytes;
    void *lds;
} zd_host_infs_args;

static void zd_host_infs_find_body(void *p) {
    zd_host_infs_args *a = (zd_host_infs_args *)p;
    zd_infs_find_group(a->src, a->src_len, a->format, a->seg_bytes, &a->segs[zd_group_id()], (zd_infs_find_lds *)a->lds);
}

static void zd_host_infs_sync_body(void *p) {
    zd_host_infs_args *a = (zd_host_infs_args *)p;
    if (zd_local_id() == 0u)
        zd_infs_sync_thread(a->src, a->src_len, a->format, a->seg_bytes, a->segs, zd_group_id(),
                            (ZD_LOCAL zd_inflate_lds *)a->lds);
}

static void zd_host_infs_decode_body(void *p) {
    zd_host_infs_args *a = (zd_host_infs_args *)p;
    zd_infs_decode_group(a->src, a->src_len, a->cells, a->segs, zd_group_id(), a->n, a->retry,
                         (zd_infs_decode_lds *)a->lds);
}

static void zd_host_infs_chain_body(void *p) {
    zd_host_infs_args *a = (zd_host_infs_args *)p;
    zd_u32 s = zd_infs_chain_group(a->src_len, a->format, a->dst, a->dst_len, a->cells, a->segs, a->n,
                                   (zd_infs_chain_lds *)a->lds);
    if (zd_local_id() == 0u) a->status = s;
}

static void zd_host_infs_layout_body(void *p) {
    zd_host_infs_args *a = (zd_host_infs_args *)p;
    zd_infs_layout_group(a->format, a->dst, a->cells, &a->segs[zd_group_id()], &a->status,
                         (zd_infs_layout_lds *)a->lds);
}

static void zd_host_infs_check_body(void *p) {
    zd_host_infs_args *a = (zd_host_infs_args *)p;
    a->status = zd_infs_check_thread(a->src, a->format, a->dst_len, a->segs, a->n, a->status);
}

static int zd_host_infs_launch(zd_host_body body, zd_host_infs_args *a, zd_u32 groups, zd_u32 local_size,
                               size_t lds_bytes) {
    void *lds = malloc(lds_bytes);
    if (lds == NULL) return -1;
    a->lds = lds;
    for (zd_u32 g = 0; g < groups; g++) {
        memset(lds, 0xA5, lds_bytes); /* local memory starts undefined */
        if (zd_host_group_run(g, groups, local_size, body, a) != 0) {
            free(lds);
            return -1;
        }
    }
    free(lds);
    return 0;
}

/* zd_infs_quick_thread alone (the find's first test of a bit position), for a test against a reference. */
ZD_KERNEL zd_u32 zd_host_infs_quick(zd_u64 v, zd_u64 hi) { return zd_infs_quick_thread(v, hi); }

/*
 * The split launches over the n records of one stream, as a device backend makes them: the test's
 * driver (kernels' HostInflateSplit) writes the records and decides the rounds with
 * InflateSplitPlan, as the backends do, so the rule that mends segments lives there alone. Each
 * returns 0, or -1 if memory ran out.
 *   find: one item a group (its rounds meet at a barrier every 8 positions an item, which emulated
 *         threads pay dearly for; the GPU tests run it on whole groups);
 *   sync: one item a group (item 0 alone works there);
 *   decode: local_size items a group; retry: only the records marked ZD_INFS_F_RETRY;
 *   finish: chain (one group), layout (a group a record), check; *status gets the stream's status
 *         (ZD_STATUS_INFLATE_SPLIT_SERIAL: the caller decodes it serially).
 */
ZD_KERNEL int zd_host_infs_find(const zd_u8 *src, zd_u64 src_len, zd_u32 format, zd_u64 seg_bytes, zd_infs_seg *segs,
                                zd_u32 n) {
    zd_host_infs_args a = {src, src_len, NULL, 0u, NULL, segs, n, format, 0u, 0u, seg_bytes, NULL};
    return zd_host_infs_launch(zd_host_infs_find_body, &a, n, 1u, ZD_INFS_FIND_LDS_BYTES);
}

ZD_KERNEL int zd_host_infs_sync(const zd_u8 *src, zd_u64 src_len, zd_u32 format, zd_u64 seg_bytes, zd_infs_seg *segs,
                                zd_u32 n) {
    zd_host_infs_args a = {src, src_len, NULL, 0u, NULL, segs, n, format, 0u, 0u, seg_bytes, NULL};
    return zd_host_infs_launch(zd_host_infs_sync_body, &a, n, 1u, ZD_INFLATE_LDS_BYTES);
}

ZD_KERNEL int zd_host_infs_decode(const zd_u8 *src, zd_u64 src_len, zd_u16 *cells, zd_infs_seg *segs, zd_u32 n,
                                  zd_u32 retry, zd_u32 local_size) {
    zd_host_infs_args a = {src, src_len, NULL, 0u, cells, segs, n, 0u, retry, 0u, 0u, NULL};
    return zd_host_infs_launch(zd_host_infs_decode_body, &a, n, local_size, ZD_INFS_DECODE_LDS_BYTES);
}

ZD_KERNEL int zd_host_infs_finish(const zd_u8 *src, zd_u64 src_len, zd_u8 *dst, zd_u64 dst_len, zd_u16 *cells,
                                  zd_infs_seg *segs, zd_u32 n, zd_u32 format, zd_u32 local_size, zd_u32 *status) {
    zd_host_infs_args a = {src, src_len, dst, dst_len, cells, segs, n, format, 0u, 0xFFFFFFFFu, 0u, NULL};
    if (zd_host_infs_launch(zd_host_infs_chain_body, &a, 1u, local_size, ZD_INFS_CHAIN_LDS_BYTES) != 0 ||
        zd_host_infs_launch(zd_host_infs_layout_body, &a, n, local_size, ZD_INFS_LAYOUT_LDS_BYTES) != 0 ||
        zd_host_infs_launch(zd_host_infs_check_body, &a, 1u, 1u, 8u) != 0)
        return -1;
    *status = a.status;
    return 0;
}
