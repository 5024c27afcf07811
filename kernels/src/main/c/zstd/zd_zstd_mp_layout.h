/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp_layout.h - what the passes of the multi-pass zstd decoder (zd_zstd_mp.h has the design) share:
 *   the execute flags, the chunk header and block records in scratch, the scratch layout, the
 *   symbolic repeat offsets, and the chunk of a block slot.
 */
#ifndef ZD_ZSTD_MP_LAYOUT_H
#define ZD_ZSTD_MP_LAYOUT_H

#include "zd_portable.h"
#include "zstd/zd_zstd_frame.h"

#define ZD_MP_BYTES_PER_SLOT 2048u /* block table entries: one per 2 KiB of output or 3 input bytes (+16) */
#define ZD_MP_BYTES_PER_SEQ 3u     /* sequence scratch: one per 3 output bytes (+1024), enough for any valid frame */
#define ZD_MP_HDR_BYTES 64u
/* Sequence executor batch: one sequence per item, at most this many items per group. */
#define ZD_MPX_MAX_ITEMS ZD_SCAN_MAX_ITEMS
/* Matches up to this long are copied by their own item; longer ones by the whole group. */
#define ZD_MPX_SHORT 32u
/* Execute-pass flags. SAME_ROUND: a short match marks its bytes written as soon as it is copied,
   so matches that depend on it may run in the same round. CG: bytes of earlier blocks (written by
   other groups) are read past the multiprocessor's L1, which is not coherent across groups. JUMP:
   batches of short output are executed by pointer jumping (zd_mp_jump_group) where the caller
   gave the space for it. */
#define ZD_MPX_F_SAME_ROUND 1u
#define ZD_MPX_F_CG 2u
#define ZD_MPX_F_JUMP 4u
/* WIN: the caller gives a window (`win` not NULL). A flag beside the pointer so that a kernel can
   make it a constant (flags | ZD_MPX_F_WIN): the compiler cannot assume that a shared-memory
   pointer is not NULL, and keeps both ways of building a block otherwise. */
#define ZD_MPX_F_WIN 8u
/* DEFER (with WIN): blocks do not wait for the earlier blocks their matches read. A match byte
   whose chain of sources leaves the block is left unwritten and gets a ref instead: the position
   in the chunk of the byte it copies, found through the chain inside the block (a bit per byte of
   the window, `taint`, marks those bytes; `refs` holds a u32 per byte of the chunk). Pass 3b
   (zd_zstd_mp_resolve_group) then copies those bytes block after block, a gather each: a frame's
   blocks execute at once instead of one after the other (one 66 MB ERA5 frame: 512 blocks,
   70% of whose bytes come from an earlier block through some chain). */
#define ZD_MPX_F_DEFER 16u
/* refs[] of a byte that needs nothing from pass 3b */
#define ZD_MP_REF_NONE 0xFFFFFFFFu
/* Batches whose output spans at most this many bytes are executed by pointer jumping when the
   caller gives the space (4 bytes a byte of local memory), else in rounds. */
#define ZD_MPX_JUMP_SPAN 16384u
/* The same with ZD_MPX_F_DEFER, whose taint bits take 16 KiB of the local memory beside them. */
#define ZD_MPX_DEFER_SPAN 14336u
/* ... and whose offsets are all at most this (a pointer is a batch position minus an offset, an i32) */
#define ZD_MPX_JUMP_MAX_OFF 0x3FFFFFFFu
/* Words of the rounds' bitmap (a bit per byte of a batch's output). A batch uses either it or
   the pointers of pointer jumping, so a caller may give both the same local memory. */
#define ZD_MPX_WRITTEN_WORDS (ZD_ZSTD_BLOCK_MAX / 32u)

/* Repeat offsets in pass 2: a resolved offset (bit 31 clear, 0 = invalid) or "repeat offset j
   at the block's start minus d" (bit 31 set, j in bits 29-30, d in bits 0-28). */
#define ZD_MP_SYM 0x80000000u
#define ZD_MP_SYM_OF(j) (ZD_MP_SYM | ((zd_u32)(j) << 29))

/* Per-block record, written by pass 1 (and status by pass 2). */
typedef struct {
    zd_u64 in;          /* block content offset in src */
    zd_u64 lit_in;      /* raw literals / RLE byte / first Huffman stream (jump table) in src */
    zd_u64 lit_at;      /* decoded literals: offset in the literal region (or src when raw) */
    zd_u64 seq_at;      /* first sequence index in the sequence region */
    zd_u64 huf_desc;    /* Huffman tree description in src */
    zd_u64 tab_desc[3]; /* LL / OF / ML description in src (mode 1: the RLE byte; 2: the ncount) */
    zd_u64 bits_at;     /* sequence bitstream start in src (ends at in + size) */
    zd_u32 size, type;  /* block size and type (0 raw, 1 RLE, 2 compressed) */
    zd_u32 regen, nseq; /* regenerated literals, number of sequences */
    zd_u32 lit_type;    /* 0 raw, 1 RLE, 2 Huffman */
    zd_u32 lit_len;     /* Huffman streams: bytes from lit_in (jump table included) */
    zd_u32 nstreams;    /* 1 or 4 */
    zd_u32 tab_mode;    /* 2 bits per kind (LL, OF, ML): 0 predefined, 1 RLE, 2 FSE */
    zd_u32 status;      /* pass 2: ZD_STATUS_OK or why the block failed */
    zd_u32 done;        /* pass 3: set once the block's output is final */
    zd_u64 out_at;      /* link: output offset of the block in the chunk */
    zd_u32 out_len;     /* pass 1 (raw, RLE) or pass 2: bytes the block produces */
    zd_u32 lit_used;    /* pass 2: literals consumed by sequences (the rest trail them) */
    zd_u32 rep_out[3];  /* pass 2: repeat offsets at the block's end (ZD_MP_SYM form) */
    zd_u32 rep_in[3];   /* link: resolved repeat offsets at the block's start */
} zd_mp_block;
ZD_STATIC_ASSERT(sizeof(zd_mp_block) == 152u, zd_mp_block_is_152_bytes); /* CudaZstdCodec.MP_BLOCK_BYTES */

/* Per-chunk header at the start of its scratch. */
typedef struct {
    zd_u32 mode;     /* ZD_MP_MODE_* */
    zd_u32 n_blocks;
    zd_u32 has_checksum, has_fcs;
    zd_u64 fcs;      /* declared content size when has_fcs */
    zd_u64 block_max;
    zd_u64 cksum_at; /* checksum offset in src */
    zd_u32 ticket;     /* chunk 0 only: pass 3's next ticket */
    zd_u32 max_blocks; /* chunk 0 only: largest n_blocks of a chunk in ZD_MP_MODE_RUN */
    zd_u32 failed;     /* pass 3: a block of this chunk failed (pass 4 falls back) */
    zd_u32 seq_ticket; /* chunk 0 only: pass 2b's next ticket; zeroed by link, then pass 3b's */
    zd_u32 seq_blocks; /* chunk 0 only: 1 + the largest index of a block whose sequences pass 2b decodes */
    zd_u32 resolved;   /* pass 3b: slices of compressed blocks resolved (parts a block, blocks in order) */
} zd_mp_hdr;
ZD_STATIC_ASSERT(sizeof(zd_mp_hdr) <= ZD_MP_HDR_BYTES, zd_mp_hdr_fits);

#define ZD_MP_MODE_RUN 1u      /* pass 1 succeeded: passes 2 and 3 decode it */
#define ZD_MP_MODE_FALLBACK 2u /* pass 3 decodes it with the single-pass decoder */

ZD_INLINE zd_u64 zd_zstd_mp_slots(zd_u64 dst_len, zd_u64 src_len) {
    zd_u64 a = dst_len / ZD_MP_BYTES_PER_SLOT, b = src_len / 3u;
    return (a < b ? a : b) + 16u;
}
ZD_INLINE zd_u64 zd_zstd_mp_max_seq(zd_u64 dst_len) { return dst_len / ZD_MP_BYTES_PER_SEQ + 1024u; }
ZD_INLINE zd_u64 zd_zstd_mp_lit_bytes(zd_u64 dst_len) {
    zd_u64 d = dst_len < ZD_ZSTD_SCRATCH_PER_FRAME ? ZD_ZSTD_SCRATCH_PER_FRAME : dst_len;
    return (d + 7u) & ~(zd_u64)7u;
}
ZD_INLINE zd_u64 zd_zstd_mp_lit_off(zd_u64 dst_len, zd_u64 src_len) {
    return ZD_MP_HDR_BYTES + zd_zstd_mp_slots(dst_len, src_len) * (zd_u64)sizeof(zd_mp_block);
}
ZD_INLINE zd_u64 zd_zstd_mp_seq_off(zd_u64 dst_len, zd_u64 src_len) {
    return zd_zstd_mp_lit_off(dst_len, src_len) + zd_zstd_mp_lit_bytes(dst_len);
}
ZD_INLINE zd_u64 zd_zstd_mp_scratch_bytes(zd_u64 dst_len, zd_u64 src_len) {
    return zd_zstd_mp_seq_off(dst_len, src_len) + 12u * zd_zstd_mp_max_seq(dst_len);
}

/* "rep1 - 1" on a ZD_MP_SYM value: one more to subtract from a symbolic one; a resolved one
   stays 0 (invalid) once it reaches 0, as any use of it is corrupt in the single-pass decoder. */
ZD_INLINE zd_u32 zd_mp_rep_dec(zd_u32 v) {
    if (v & ZD_MP_SYM) return v + 1u; /* d < 2^29: a block has fewer than 2^16 sequences */
    return v > 1u ? v - 1u : 0u;
}

/* Resolves a ZD_MP_SYM value against the repeat offsets at the block's start; 0 = invalid. */
ZD_INLINE zd_u32 zd_mp_rep_resolve(zd_u32 v, zd_u32 r0, zd_u32 r1, zd_u32 r2) {
    if ((v & ZD_MP_SYM) == 0u) return v;
    zd_u32 j = (v >> 29) & 3u, d = v & 0x1FFFFFFFu;
    zd_u32 r = j == 0u ? r0 : (j == 1u ? r1 : r2);
    return r > d ? r - d : 0u;
}

/* Pass 2 helper: chunk of global block slot g (slot_base has n + 1 entries, ascending). */
ZD_INLINE zd_u32 zd_zstd_mp_chunk_of_slot(const ZD_GLOBAL zd_u64 *slot_base, zd_u32 n, zd_u64 g) {
    zd_u32 lo = 0u, hi = n - 1u;
    while (lo < hi) {
        zd_u32 mid = (lo + hi + 1u) >> 1;
        if (slot_base[mid] <= g) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

#endif
