/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_mp.h - multi-pass, block-parallel decoding of large zstd frames (RFC 8878).
 *
 * The single-pass decoder (zd_zstd_frame.h) gives one work-group to a whole frame, so a batch
 * of a few large frames leaves the device idle. Here both the entropy work and the execution of
 * a frame are spread over one work-group per BLOCK:
 *
 *   Pass 1  zd_zstd_mp_scan_group       one group per chunk: item 0 walks the frame header and
 *           the chain of block headers; then the items share the blocks and, for compressed
 *           ones, parse the literals section header and the Huffman / FSE table descriptions
 *           (to find where each section ends); then item 0 records, block after block, where
 *           its Huffman table and each of its three FSE tables are DESCRIBED (the block that
 *           defined them: treeless literals and repeat modes inherit), and where its decoded
 *           literals and sequences go in scratch (running sums over the frame).
 *   Pass 2  zd_zstd_mp_entropy_group    one group per block slot: rebuilds the block's tables
 *           from those descriptions, decodes its Huffman streams (one item per stream) into
 *           the chunk's literal region, and decodes its sequences (item 0) into
 *           (litLen, matchLen, offset) triples. Repeat offsets depend on earlier blocks, so an
 *           offset is written either resolved or SYMBOLIC ("repeat offset j at the block's
 *           start, minus d"), and the block records its repeat offsets at its end in the same
 *           form, plus its output size.
 *   Link    zd_zstd_mp_link_group       one group per chunk, item 0: walks the block table once,
 *           giving each block its output position and its repeat offsets at entry.
 *   Pass 3  zd_zstd_mp_exec_group       persistent groups taking blocks in ticket order (block
 *           index major, so all chunks advance together): each block's sequences are executed
 *           by the whole group, a batch of one sequence per item: positions by prefix sums,
 *           literals byte-parallel, matches in rounds (a match runs once nothing pending in its
 *           batch writes its source). A match reading from before the block waits until the
 *           blocks it reads are done (their flags); they hold smaller tickets, so they belong
 *           to groups already running and every wait ends.
 *   Pass 4  zd_zstd_mp_finish_group     one group per chunk: the XXH64 checksum, or the
 *           single-pass decoder for chunks that fell back.
 *
 * Fallback: any chunk that is not exactly one zstd frame, that needs more block slots or
 * sequence scratch than its layout provides, or in which any pass finds an error, is decoded
 * again from scratch by zd_zstd_decode_frame_group in pass 4. Invalid input therefore gets
 * exactly the single-pass status, and the multi-pass code only has to be right on valid frames
 * and safe (in bounds, and never waiting forever) on every input.
 *
 * Scratch per chunk (caller-owned, ZD_GLOBAL, 8-byte aligned offsets), for dst_len D:
 *   slots(D,S) = min(D / ZD_MP_BYTES_PER_SLOT, S / 3) + 16  (S: src_len)  block table entries
 *   max_seq(D) = D / ZD_MP_BYTES_PER_SEQ + 1024                        sequences
 *   lit(D)     = round8(max(D, ZD_ZSTD_SCRATCH_PER_FRAME))             decoded literals
 *   bytes(D,S) = 64 + slots(D,S) * sizeof(zd_mp_block) + lit(D) + 12 * max_seq(D)
 * (zd_zstd_mp_scratch_bytes). The literal region doubles as the single-pass scratch when the
 * chunk falls back. Pass 2's grid strides over the sum of slots(D) over the chunks; slot_base[c]
 * is the first global slot of chunk c (slot_base[n] = total). The header of chunk 0 also holds
 * the batch's ticket counter and its largest block count (reset by pass 1).
 */
#ifndef ZD_ZSTD_MP_H
#define ZD_ZSTD_MP_H

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

/* Parses the literals section header at src[p .. end): lit type, regen, header length and the
   section's compressed size (Huffman: tree + streams). */
ZD_INLINE zd_u32 zd_mp_lit_header_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 p, zd_u64 end,
                                         zd_u64 block_max, zd_u32 *type, zd_u32 *hl_out, zd_u64 *regen,
                                         zd_u64 *csize, zd_u32 *nstreams) {
    zd_u64 avail = end - p;
    if (avail < 1u) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    zd_u32 b0 = src[p];
    zd_u32 t = b0 & 3u;
    zd_u32 sf = (b0 >> 2) & 3u;
    *type = t;
    if (t <= 1u) {
        zd_u32 hl = (sf == 1u) ? 2u : (sf == 3u ? 3u : 1u);
        if (avail < hl) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
        zd_u32 v = (zd_u32)zd_load_le_thread(src, src_len, p, hl);
        zd_u64 size = (hl == 1u) ? (v >> 3) : (v >> 4);
        if (size > block_max) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
        zd_u64 cs = t == 0u ? size : 1u;
        if (avail - hl < cs) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
        *hl_out = hl;
        *regen = size;
        *csize = cs;
        *nstreams = 0u;
        return ZD_STATUS_OK;
    }
    zd_u32 hl = sf <= 1u ? 3u : sf + 2u;
    zd_u32 nbits = sf <= 1u ? 10u : (sf == 2u ? 14u : 18u);
    if (avail < hl) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    zd_u64 v = zd_load_le_thread(src, src_len, p, hl);
    zd_u64 rg = (v >> 4) & zd_mask64(nbits);
    zd_u64 cs = (v >> (4u + nbits)) & zd_mask64(nbits);
    if (avail - hl < cs) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    if (rg > block_max) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    *hl_out = hl;
    *regen = rg;
    *csize = cs;
    *nstreams = sf == 0u ? 1u : 4u;
    return ZD_STATUS_OK;
}

/* Pass 1's local memory: each item's scratch for the FSE descriptions it measures (an item parses
   whole blocks, so at most ZD_MP_SCAN_ITEMS items take part), and what item 0's walk found. */
#define ZD_MP_SCAN_ITEMS 32u
typedef struct {
    zd_i16 norm[ZD_MP_SCAN_ITEMS][ZD_FSE_MAX_SYMBOLS];
    zd_u64 block_max;
    zd_u32 n_blocks, mode, fail;
} zd_mp_scan_lds;

/* A block's tab_mode between pass 1's block step and its link step: its own modes (3: repeat the
   last table) in bits 0-5, and whether its literals describe a Huffman tree or reuse the last. */
#define ZD_MP_SCAN_HUF_DEF 0x100u
#define ZD_MP_SCAN_HUF_REUSE 0x200u

/*
 * Pass 1a, item 0: the frame header and the chain of block headers. Each block's size says where
 * the next one starts, so this walk is serial, but it is one load a block: the parsing of each
 * block's sections (pass 1b) is spread over the group's items. Fills blk[i].in, size and type and
 * the chunk header; returns ZD_MP_MODE_RUN or ZD_MP_MODE_FALLBACK.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_frame_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                            ZD_GLOBAL zd_u8 *scratch, zd_u32 *nb_out, zd_u64 *block_max_out) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u64 slots = zd_zstd_mp_slots(dst_len, src_len);
    if (src_len < 6u || dst_len > 0x7FFFFFFFu) return ZD_MP_MODE_FALLBACK; /* offsets must fit 31 bits */
    if ((zd_u32)zd_load_le_thread(src, src_len, 0u, 4u) != ZD_ZSTD_MAGIC) return ZD_MP_MODE_FALLBACK;
    zd_u32 fhd = src[4];
    zd_u32 fcs_flag = fhd >> 6;
    zd_u32 single = (fhd >> 5) & 1u;
    zd_u32 did_flag = fhd & 3u;
    if ((fhd >> 3) & 1u) return ZD_MP_MODE_FALLBACK;
    zd_u32 did_size = did_flag == 3u ? 4u : did_flag;
    zd_u32 fcs_size = fcs_flag == 0u ? single : (1u << fcs_flag);
    zd_u64 p = 5u + (single ? 0u : 1u) + did_size + fcs_size;
    if (src_len < p) return ZD_MP_MODE_FALLBACK;
    zd_u64 window = 0;
    zd_u64 q = 5u;
    if (!single) {
        zd_u32 wd = src[q++];
        zd_u32 wlog = 10u + (wd >> 3);
        if (wlog > ZD_MAX_WINDOW_LOG || wlog > 30u) return ZD_MP_MODE_FALLBACK; /* offsets must fit 31 bits */
        window = ((zd_u64)1 << wlog) + (((zd_u64)1 << wlog) >> 3) * (wd & 7u);
    }
    if (zd_load_le_thread(src, src_len, q, did_size) != 0u) return ZD_MP_MODE_FALLBACK;
    q += did_size;
    zd_u64 fcs = zd_load_le_thread(src, src_len, q, fcs_size);
    if (fcs_size == 2u) fcs += 256u;
    if (single) window = fcs;
    if (fcs_size != 0u && fcs != dst_len) return ZD_MP_MODE_FALLBACK;
    zd_u64 block_max = zd_min_u64(window, ZD_ZSTD_BLOCK_MAX);
    zd_u32 has_ck = (fhd >> 2) & 1u;
    zd_u32 nb = 0;
    zd_u32 last = 0u;
    while (!last) {
        if (src_len - p < 3u) return ZD_MP_MODE_FALLBACK;
        if ((zd_u64)nb >= slots) return ZD_MP_MODE_FALLBACK;
        zd_u32 bh = (zd_u32)zd_load_le_thread(src, src_len, p, 3u);
        p += 3u;
        last = bh & 1u;
        zd_u32 type = (bh >> 1) & 3u;
        zd_u64 size = bh >> 3;
        if (type == 3u || size > block_max) return ZD_MP_MODE_FALLBACK;
        zd_u64 span = type == 1u ? 1u : size; /* an RLE block stores its one byte */
        if (src_len - p < span) return ZD_MP_MODE_FALLBACK;
        blk[nb].in = p;
        blk[nb].size = (zd_u32)size;
        blk[nb].type = type;
        p += span;
        nb++;
    }
    if (has_ck) {
        if (src_len - p < 4u) return ZD_MP_MODE_FALLBACK;
        hdr->cksum_at = p;
        p += 4u;
    }
    if (p != src_len) return ZD_MP_MODE_FALLBACK; /* more frames, or garbage: single-pass */
    hdr->n_blocks = nb;
    hdr->has_checksum = has_ck;
    hdr->has_fcs = fcs_size != 0u;
    hdr->fcs = fcs;
    hdr->block_max = block_max;
    *nb_out = nb;
    *block_max_out = block_max;
    return ZD_MP_MODE_RUN;
}

/*
 * Pass 1b, any item, block bp (whose in, size and type pass 1a wrote): parses what the block
 * itself says - its literals section header and Huffman description's length, its sequence count
 * and the lengths of its FSE descriptions - and writes its record. What depends on the blocks
 * before it (tables it repeats, where its literals and sequences go) is left to pass 1c; the
 * record's tab_mode holds the block's own modes and ZD_MP_SCAN_HUF_* bits until then, its
 * huf_desc and tab_desc the descriptions it has itself.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_block_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 block_max,
                                            ZD_GLOBAL zd_mp_block *bp, ZD_LOCAL zd_i16 *norm) {
    zd_mp_block b;
    b.in = bp->in;
    b.size = bp->size;
    b.type = bp->type;
    b.lit_in = 0u;
    b.lit_at = 0u;
    b.seq_at = 0u;
    b.huf_desc = 0u;
    b.bits_at = 0u;
    b.regen = 0u;
    b.nseq = 0u;
    b.lit_type = 0u;
    b.lit_len = 0u;
    b.nstreams = 0u;
    b.tab_mode = 0u;
    b.status = ZD_STATUS_OK;
    b.done = 0u;
    b.out_at = 0u;
    b.out_len = b.type == 2u ? 0u : b.size;
    b.lit_used = 0u;
    for (zd_u32 k = 0; k < 3u; k++) {
        b.tab_desc[k] = 0u;
        b.rep_out[k] = ZD_MP_SYM_OF(k);
        b.rep_in[k] = 0u;
    }
    if (b.type == 2u) {
        zd_u64 p = b.in, end = b.in + b.size;
        zd_u32 lt = 0, hl = 0, ns = 0;
        zd_u64 regen = 0, cs = 0;
        if (zd_mp_lit_header_thread(src, src_len, p, end, block_max, &lt, &hl, &regen, &cs, &ns) != ZD_STATUS_OK)
            return ZD_MP_MODE_FALLBACK;
        zd_u64 lp = p + hl;
        zd_u32 own = 0u;
        b.regen = (zd_u32)regen;
        b.lit_in = lp;
        if (lt == 0u) {
            b.lit_at = lp;
        } else {
            b.lit_type = lt == 1u ? 1u : 2u;
        }
        if (lt >= 2u) {
            zd_u64 rem = cs;
            if (lt == 2u) {
                /* Only the description's length here (pass 2 builds and checks the table):
                   FSE-compressed weights take headerByte bytes, direct ones 4 bits each. */
                if (rem < 1u) return ZD_MP_MODE_FALLBACK;
                zd_u32 hb = src[lp];
                zd_u64 used = 1u + (hb < 128u ? hb : (hb - 127u + 1u) / 2u);
                if (used > rem) return ZD_MP_MODE_FALLBACK;
                b.huf_desc = lp;
                own |= ZD_MP_SCAN_HUF_DEF;
                lp += used;
                rem -= used;
            } else {
                own |= ZD_MP_SCAN_HUF_REUSE;
            }
            b.lit_in = lp;
            b.lit_len = (zd_u32)rem;
            b.nstreams = ns;
            zd_u64 s1 = 0, s2 = 0, s3 = 0;
            if (ns == 4u && zd_zstd_jump_table_thread(src, src_len, lp, rem, regen, &s1, &s2, &s3) != ZD_STATUS_OK)
                return ZD_MP_MODE_FALLBACK;
        }
        zd_u64 s = p + hl + cs; /* sequences section */
        if (s >= end) return ZD_MP_MODE_FALLBACK;
        zd_u32 b0 = src[s];
        zd_u32 nseq;
        if (b0 < 128u) {
            nseq = b0;
            s += 1u;
        } else if (b0 < 255u) {
            if (end - s < 2u) return ZD_MP_MODE_FALLBACK;
            nseq = ((b0 - 128u) << 8) + src[s + 1u];
            s += 2u;
        } else {
            if (end - s < 3u) return ZD_MP_MODE_FALLBACK;
            nseq = src[s + 1u] + ((zd_u32)src[s + 2u] << 8) + 0x7F00u;
            s += 3u;
        }
        b.nseq = nseq;
        if (nseq == 0u) {
            if (s != end) return ZD_MP_MODE_FALLBACK;
        } else {
            if (nseq > ZD_ZSTD_MAX_SEQUENCES || s >= end) return ZD_MP_MODE_FALLBACK;
            zd_u32 modes = src[s];
            s += 1u;
            if (modes & 3u) return ZD_MP_MODE_FALLBACK;
            for (zd_u32 k = 0; k < 3u; k++) {
                zd_u32 m = (modes >> (6u - 2u * k)) & 3u; /* LL, OF, ML */
                own |= m << (2u * k);
                if (m == 3u) continue;
                zd_u64 used = 0;
                if (m == 1u) {
                    if (s >= end) return ZD_MP_MODE_FALLBACK;
                    used = 1u;
                } else if (m == 2u) {
                    zd_u32 log = 0, nsym = 0;
                    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
                    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
                    if (zd_fse_read_ncount_thread(src + s, end - s, max_sym, max_log, norm, &log, &nsym, &used) !=
                        ZD_STATUS_OK)
                        return ZD_MP_MODE_FALLBACK;
                }
                b.tab_desc[k] = s;
                s += used;
            }
            if (s >= end) return ZD_MP_MODE_FALLBACK;
            b.bits_at = s;
        }
        b.tab_mode = own;
    }
    *bp = b;
    return ZD_MP_MODE_RUN;
}

/*
 * Pass 1c, item 0: what a block inherits from the blocks before it. Treeless literals take the
 * last Huffman description, a repeat mode the last table of its kind; decoded literals and
 * sequences go one block after another in the chunk's scratch (running sums). Loads a few fields
 * a block from the records pass 1b just wrote.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_link_thread(ZD_GLOBAL zd_mp_block *blk, zd_u32 nb, zd_u64 lit_cap, zd_u64 seq_cap) {
    zd_u64 lit_cur = 0, seq_cur = 0, huf_desc = 0;
    zd_u32 huf_ok = 0u, tab_ok = 0u, tab_mode = 0u;
    zd_u64 tab_desc[3] = {0u, 0u, 0u};
    for (zd_u32 i = 0; i < nb; i++) {
        ZD_GLOBAL zd_mp_block *b = blk + i;
        zd_u32 own = b->tab_mode;
        zd_u32 nseq = b->nseq;
        if (own & ZD_MP_SCAN_HUF_DEF) {
            huf_desc = b->huf_desc;
            huf_ok = 1u;
        } else if ((own & ZD_MP_SCAN_HUF_REUSE) && !huf_ok) {
            return ZD_MP_MODE_FALLBACK;
        }
        b->huf_desc = huf_desc;
        if (b->lit_type != 0u) {
            b->lit_at = lit_cur;
            lit_cur += b->regen;
        }
        b->seq_at = seq_cur;
        if (nseq == 0u) {
            b->tab_mode = 0u;
            continue;
        }
        for (zd_u32 k = 0; k < 3u; k++) {
            zd_u32 m = (own >> (2u * k)) & 3u;
            if (m == 3u) {
                if ((tab_ok & (1u << k)) == 0u) return ZD_MP_MODE_FALLBACK;
            } else {
                tab_desc[k] = b->tab_desc[k];
                tab_mode = (tab_mode & ~(3u << (2u * k))) | (m << (2u * k));
                tab_ok |= 1u << k;
            }
            b->tab_desc[k] = tab_desc[k];
        }
        b->tab_mode = tab_mode;
        seq_cur += nseq;
    }
    /* the sums only grow: checking the totals checks every block */
    if (lit_cur > lit_cap || seq_cur > seq_cap) return ZD_MP_MODE_FALLBACK;
    return ZD_MP_MODE_RUN;
}

/* Pass 1, cooperative: every item calls. `first`: this is chunk 0, whose header holds the batch's
   pass 3 counters. Fills the chunk header and block table; the mode is ZD_MP_MODE_RUN or
   ZD_MP_MODE_FALLBACK. */
ZD_FUNC void zd_zstd_mp_scan_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                   ZD_GLOBAL zd_u8 *scratch, zd_u32 first, ZD_LOCAL zd_mp_scan_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u32 lid = zd_local_id();
    if (lid == 0u) {
        zd_u32 nb = 0u;
        zd_u64 block_max = 0u;
        lds->mode = zd_zstd_mp_scan_frame_thread(src, src_len, dst_len, scratch, &nb, &block_max);
        lds->n_blocks = nb;
        lds->block_max = block_max;
        lds->fail = 0u;
    }
    ZD_BARRIER();
    zd_u32 items = zd_local_size() < ZD_MP_SCAN_ITEMS ? zd_local_size() : ZD_MP_SCAN_ITEMS;
    if (lds->mode == ZD_MP_MODE_RUN && lid < items) {
        zd_u32 nb = lds->n_blocks;
        zd_u64 block_max = lds->block_max;
        for (zd_u32 i = lid; i < nb; i += items)
            if (zd_zstd_mp_scan_block_thread(src, src_len, block_max, blk + i, lds->norm[lid]) != ZD_MP_MODE_RUN) {
                lds->fail = 1u;
                break;
            }
    }
    ZD_BARRIER();
    if (lid == 0u) {
        zd_u32 m = lds->mode;
        if (m == ZD_MP_MODE_RUN && lds->fail) m = ZD_MP_MODE_FALLBACK;
        if (m == ZD_MP_MODE_RUN)
            m = zd_zstd_mp_scan_link_thread(blk, lds->n_blocks, zd_zstd_mp_lit_bytes(dst_len),
                                            zd_zstd_mp_max_seq(dst_len));
        hdr->mode = m;
        hdr->failed = 0u;
        hdr->resolved = 0u;
        if (m != ZD_MP_MODE_RUN) hdr->n_blocks = 0u;
        if (first) {
            hdr->ticket = 0u;
            hdr->max_blocks = 0u;
            hdr->seq_ticket = 0u;
            hdr->seq_blocks = 0u;
        }
    }
}

/* An FSE table's normalized counts and spread state while it is built. */
typedef struct {
    zd_i16 norm[ZD_FSE_MAX_SYMBOLS];
    zd_u16 next[ZD_FSE_MAX_SYMBOLS];
} zd_mp_fse_tmp;

/* Pass 2 local memory: one block's tables, small enough for many groups per multiprocessor
   (the entropy work is one item's serial chain: occupancy is what hides its latency). The
   literals are decoded before the sequence tables are built, so the Huffman table (with its
   symbols' first cells, for the items' fill) and the three FSE tables share their space (6 KiB
   instead of 10: 32 groups per H200 multiprocessor, its limit, instead of 22). */
typedef struct {
    union {
        struct {
            zd_huf_cell cells[ZD_HUF_TABLE_SIZE];
            zd_u16 start[256];
        } huf;
        struct {
            zd_fse_cell ll[1u << ZD_LL_MAX_LOG];
            zd_fse_cell ml[1u << ZD_ML_MAX_LOG];
            zd_fse_cell of[1u << ZD_OF_MAX_LOG];
        } fse;
    } t;
    /* the Huffman weights' scratch, then that of two of the FSE tables, built beside the first */
    union {
        struct {
            zd_fse_cell hufw[1u << ZD_HUFW_MAX_LOG];
            zd_u8 weights[256];
        } h;
        zd_mp_fse_tmp fse[2];
    } w;
    zd_mp_fse_tmp fse0;
    zd_u64 hs_in[4], hs_len[4], hs_out[4], hs_n[4];
    zd_u32 hs_status[4];
    zd_u32 fse_status[3], fse_log[3];
    zd_u32 status, hs_count, op_byte, nsyms;
} zd_mp_entropy_lds;

/* Builds the FSE table of kind k (0 LL, 1 OF, 2 ML) from its recorded description (scratch: tmp). */
ZD_FUNC zd_u32 zd_mp_build_fse_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 k, zd_u32 mode, zd_u64 at,
                                      zd_u64 end, ZD_LOCAL zd_fse_cell *t, ZD_LOCAL zd_mp_fse_tmp *tmp,
                                      zd_u32 *log_out) {
    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
    zd_u32 log = 0;
    if (mode == 0u) {
        zd_u32 n = k == 0u ? 36u : (k == 1u ? 29u : 53u);
        log = k == 1u ? 5u : 6u;
        for (zd_u32 i = 0; i < n; i++)
            tmp->norm[i] = k == 0u ? zd_ll_default_norm[i] : (k == 1u ? zd_of_default_norm[i] : zd_ml_default_norm[i]);
        if (zd_fse_build_thread(t, tmp->norm, n, log, tmp->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    } else if (mode == 1u) {
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_u32 sym = src[at];
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_fse_build_rle_thread(t, sym);
    } else {
        zd_u32 nsym = 0;
        zd_u64 used = 0;
        if (at >= end) return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_read_ncount_thread(src + at, end - at, max_sym, max_log, tmp->norm, &log, &nsym, &used) !=
            ZD_STATUS_OK)
            return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_build_thread(t, tmp->norm, nsym, log, tmp->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    }
    *log_out = log;
    return ZD_STATUS_OK;
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

/* Repeat-offset bookkeeping of one sequence (RFC 8878 3.1.1.5) on ZD_MP_SYM values; returns
   the sequence's offset in the same form and sets *bad for an offset that does not fit. */
ZD_INLINE zd_u32 zd_mp_seq_offset(zd_u32 ofv, zd_u32 ll, zd_u32 *r1, zd_u32 *r2, zd_u32 *r3, zd_u32 *bad) {
    zd_u32 off;
    if (ofv > 3u) {
        off = ofv - 3u;
        if (off & ZD_MP_SYM) *bad = 1u;
        *r3 = *r2;
        *r2 = *r1;
        *r1 = off;
        return off;
    }
    zd_u32 idx = ofv - 1u + (ll == 0u ? 1u : 0u);
    if (idx == 0u) return *r1;
    off = idx == 1u ? *r2 : (idx == 2u ? *r3 : zd_mp_rep_dec(*r1));
    if (idx != 1u) *r3 = *r2;
    *r2 = *r1;
    *r1 = off;
    return off;
}

/* The n (< 32) bits of container c just below bit *a, which moves down past them: the fields of a
   sequence whose bits are all in the container, read without a refill (pass 2's and pass 2b's
   fast paths). */
ZD_INLINE zd_u32 zd_mp_take_bits(zd_u64 c, zd_u32 *a, zd_u32 n) {
    *a -= n;
    return (zd_u32)(c >> *a) & ((1u << n) - 1u);
}

/* Stores one decoded sequence (literal length, match length, offset after the repeat-offset
   bookkeeping) for pass 3 and adds it to the block's sums; returns the next store position.
   Shared by pass 2's and pass 2b's loops. */
ZD_INLINE ZD_GLOBAL zd_u32 *zd_mp_seq_record(ZD_GLOBAL zd_u32 *out, zd_u32 ll, zd_u32 ml, zd_u32 ofv, zd_u32 *r1,
                                             zd_u32 *r2, zd_u32 *r3, zd_u32 *bad, zd_u64 *lsum, zd_u64 *tsum) {
    out[0] = ll;
    out[1] = ml;
    out[2] = zd_mp_seq_offset(ofv, ll, r1, r2, r3, bad);
    *lsum += ll;
    *tsum += (zd_u64)ll + ml;
    return out + 3;
}

/* The end of a block's pass 2 (or 2b): lengths checked as sums (any violation falls back, where
   the single-pass decoder finds the exact status; offsets are checked when pass 3 resolves
   them), then the block's results for the link pass. */
ZD_INLINE void zd_mp_block_close(ZD_GLOBAL zd_mp_block *blk, const ZD_GLOBAL zd_mp_hdr *hdr, zd_u32 regen,
                                 zd_u32 status, zd_u32 bad, zd_u64 lsum, zd_u64 tsum, zd_u32 r1, zd_u32 r2, zd_u32 r3) {
    zd_u64 out_len = tsum + (zd_u64)regen - lsum;
    if (status == ZD_STATUS_OK && (bad || lsum > regen || out_len > hdr->block_max))
        status = ZD_STATUS_CORRUPT_SEQUENCES;
    blk->lit_used = (zd_u32)lsum;
    blk->out_len = status == ZD_STATUS_OK ? (zd_u32)out_len : 0u;
    blk->rep_out[0] = r1;
    blk->rep_out[1] = r2;
    blk->rep_out[2] = r3;
    blk->status = status;
}

/*
 * Pass 2: decodes block `b` of a chunk (literals and sequences) into scratch, as item `lid` of
 * `ls` items that all call with the same arguments (ls = 1: one item alone, no barrier). With
 * `active` 0, or when the slot is not a compressed block of a chunk in ZD_MP_MODE_RUN, the items
 * do nothing but still pass the same barriers: the CUDA pairs kernel runs two of these side by
 * side in one group, and both halves must meet every __syncthreads. Writes blk->status.
 * With `seq_min` > 0, a block of at least seq_min sequences gets only its literals here (and its
 * status so far); pass 2b decodes its sequences, for blocks up to ctl->seq_blocks (ctl: chunk
 * 0's header).
 */
ZD_FUNC void zd_zstd_mp_entropy_items(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                      ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_mp_entropy_lds *lds, zd_u32 lid,
                                      zd_u32 ls, zd_u32 active, zd_u32 seq_min, ZD_GLOBAL zd_mp_hdr *ctl) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES) + b;
    if (active) active = hdr->mode == ZD_MP_MODE_RUN && b < hdr->n_blocks && blk->type == 2u;
    ZD_GLOBAL zd_u8 *lit = scratch + zd_zstd_mp_lit_off(dst_len, src_len);
    ZD_GLOBAL zd_u32 *seqs = (ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len));
    zd_u64 end = active ? blk->in + blk->size : 0u;
    zd_u32 regen = active ? blk->regen : 0u;
    if (lid == 0u && active) {
        lds->status = ZD_STATUS_OK;
        lds->hs_count = 0u;
        if (blk->lit_type == 2u) {
            zd_u32 mb = 0;
            zd_u64 used = 0;
            zd_u64 hd = blk->huf_desc;
            zd_u32 ns = 0;
            zd_u32 s = hd < src_len ? zd_huf_read_weights_thread(src + hd, src_len - hd, lds->w.h.weights,
                                                                 lds->w.h.hufw, lds->fse0.norm, lds->fse0.next, &mb,
                                                                 &ns, &used)
                                    : ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
            if (s == ZD_STATUS_OK) zd_huf_starts_thread(lds->w.h.weights, ns, lds->t.huf.start);
            lds->nsyms = ns;
            if (s != ZD_STATUS_OK) {
                lds->status = ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
            } else {
                zd_u64 p = blk->lit_in, rem = blk->lit_len;
                zd_u64 obase = blk->lit_at;
                if (blk->nstreams == 1u) {
                    lds->hs_in[0] = p;
                    lds->hs_len[0] = rem;
                    lds->hs_out[0] = obase;
                    lds->hs_n[0] = regen;
                    lds->hs_count = 1u;
                } else {
                    zd_u64 s1 = zd_load_le_thread(src, src_len, p, 2u);
                    zd_u64 s2 = zd_load_le_thread(src, src_len, p + 2u, 2u);
                    zd_u64 s3 = zd_load_le_thread(src, src_len, p + 4u, 2u);
                    zd_u64 seg = ((zd_u64)regen + 3u) / 4u;
                    lds->hs_in[0] = p + 6u;
                    lds->hs_len[0] = s1;
                    lds->hs_in[1] = p + 6u + s1;
                    lds->hs_len[1] = s2;
                    lds->hs_in[2] = p + 6u + s1 + s2;
                    lds->hs_len[2] = s3;
                    lds->hs_in[3] = p + 6u + s1 + s2 + s3;
                    lds->hs_len[3] = rem - 6u - s1 - s2 - s3;
                    for (zd_u32 k = 0; k < 4u; k++) {
                        lds->hs_out[k] = obase + k * seg;
                        lds->hs_n[k] = k < 3u ? seg : regen - 3u * seg;
                    }
                    lds->hs_count = 4u;
                }
                lds->op_byte = mb;
            }
        } else if (blk->lit_type == 1u) {
            lds->op_byte = src[blk->lit_in];
        }
    }
    if (ls > 1u) ZD_BARRIER();
    /* the table's cells by all items (one alone took about as long as a 16 KiB block's streams) */
    if (active && blk->lit_type == 2u && lds->hs_count > 0u)
        zd_huf_fill_items(lds->t.huf.cells, lds->w.h.weights, lds->nsyms, lds->t.huf.start, lds->op_byte, lid, ls);
    if (ls > 1u) ZD_BARRIER();
    if (!active) {
    } else if (blk->lit_type == 2u) {
        for (zd_u32 k = lid; k < lds->hs_count; k += ls) {
            lds->hs_status[k] = zd_huf_decode_stream_thread(lds->t.huf.cells, lds->op_byte, src + lds->hs_in[k],
                                                            lds->hs_len[k], lit + lds->hs_out[k], lds->hs_n[k]);
        }
    } else if (blk->lit_type == 1u) {
        zd_u8 v = (zd_u8)lds->op_byte;
        ZD_GLOBAL zd_u8 *to = lit + blk->lit_at;
        for (zd_u32 i = lid; i < regen; i += ls) to[i] = v;
    }
    if (ls > 1u) ZD_BARRIER();
    zd_u32 status = ZD_STATUS_OK;
    if (active) {
        status = lds->status;
        if (status == ZD_STATUS_OK && blk->lit_type == 2u) {
            for (zd_u32 k = 0; k < lds->hs_count; k++)
                if (lds->hs_status[k] != ZD_STATUS_OK) status = lds->hs_status[k];
        }
    }
    zd_u32 nseq = active ? blk->nseq : 0u;
    zd_u32 elsewhere = seq_min != 0u && nseq >= seq_min;
    /* the three tables by three items at once (item 0 alone spent about a tenth of the pass on
       them at level 3, where blocks have ~90 sequences) */
    if (status == ZD_STATUS_OK && nseq > 0u && !elsewhere) {
        for (zd_u32 k = lid; k < 3u; k += ls) {
            zd_u32 log = 0u;
            lds->fse_status[k] = zd_mp_build_fse_thread(src, src_len, k, (blk->tab_mode >> (2u * k)) & 3u,
                                                        blk->tab_desc[k], src_len,
                                                        k == 0u ? lds->t.fse.ll : (k == 1u ? lds->t.fse.of : lds->t.fse.ml),
                                                        k == 0u ? &lds->fse0 : &lds->w.fse[k - 1u], &log);
            lds->fse_log[k] = log;
        }
    }
    if (ls > 1u) ZD_BARRIER();
    if (lid != 0u || !active) return;
    if (elsewhere) {
        blk->status = status;
        if (status == ZD_STATUS_OK) zd_atomic_max_u32(&ctl->seq_blocks, b + 1u);
        return;
    }
    zd_u32 r1 = ZD_MP_SYM_OF(0), r2 = ZD_MP_SYM_OF(1), r3 = ZD_MP_SYM_OF(2), bad = 0u;
    zd_u64 lsum = 0u, tsum = 0u; /* literals and bytes the sequences produce */
    if (status == ZD_STATUS_OK && nseq > 0u) {
        zd_u32 logs[3];
        for (zd_u32 k = 0; k < 3u; k++) {
            if (status == ZD_STATUS_OK) status = lds->fse_status[k];
            logs[k] = lds->fse_log[k];
        }
        zd_bwdf_bits br;
        if (status == ZD_STATUS_OK && zd_bwdf_init_thread(&br, src + blk->bits_at, end - blk->bits_at) != 0)
            status = ZD_STATUS_CORRUPT_SEQUENCES;
        if (status == ZD_STATUS_OK) {
            zd_u32 s_ll = zd_bwdf_read_thread(&br, logs[0]);
            zd_u32 s_of = zd_bwdf_read_thread(&br, logs[1]);
            zd_u32 s_ml = zd_bwdf_read_thread(&br, logs[2]);
            /* one pointer bump a sequence (indexing by 3 * i took ~10 instructions for the stores) */
            ZD_GLOBAL zd_u32 *out = seqs + 3u * blk->seq_at;
            r1 = ZD_MP_SYM_OF(0);
            r2 = ZD_MP_SYM_OF(1);
            r3 = ZD_MP_SYM_OF(2);
            for (zd_u32 i = 0; i < nseq; i++) {
                zd_fse_cell cl = lds->t.fse.ll[s_ll];
                zd_fse_cell cm = lds->t.fse.ml[s_ml];
                zd_fse_cell co = lds->t.fse.of[s_of];
                zd_u32 ofc = co.sym;
                zd_u32 mlb = zd_ml_bits[cm.sym];
                zd_u32 llb = zd_ll_bits[cl.sym];
                zd_u32 nbl = cl.nb, nbm = cm.nb, nbo = co.nb;
                zd_u32 need = ofc + mlb + llb + nbl + nbm + nbo;
                zd_u32 ofv, ml, ll;
                if (need <= 56u) zd_bwdf_refill_thread(&br, (zd_i32)need);
                zd_i32 avail = br.pos - br.cbits;
                if (need <= 56u && avail >= (zd_i32)need) {
                    /* Fast path: all bits of this sequence are in the container (no overrun). */
                    zd_u64 c = br.c;
                    zd_u32 a = (zd_u32)avail;
                    ofv = (1u << ofc) + zd_mp_take_bits(c, &a, ofc);
                    ml = zd_ml_base[cm.sym] + zd_mp_take_bits(c, &a, mlb);
                    ll = zd_ll_base[cl.sym] + zd_mp_take_bits(c, &a, llb);
                    out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
                    br.pos -= (zd_i32)(ofc + mlb + llb);
                    if (i + 1u < nseq) {
                        s_ll = cl.base + zd_mp_take_bits(c, &a, nbl);
                        s_ml = cm.base + zd_mp_take_bits(c, &a, nbm);
                        s_of = co.base + zd_mp_take_bits(c, &a, nbo);
                        br.pos -= (zd_i32)(nbl + nbm + nbo);
                    }
                    continue;
                }
                zd_bwdf_refill_thread(&br, (zd_i32)(ofc + mlb));
                ofv = (1u << ofc) + zd_bwdf_read_thread(&br, ofc);
                ml = zd_ml_base[cm.sym] + zd_bwdf_read_thread(&br, mlb);
                zd_bwdf_refill_thread(&br, (zd_i32)(llb + nbl + nbm + nbo));
                ll = zd_ll_base[cl.sym] + zd_bwdf_read_thread(&br, llb);
                if (br.pos < 0) {
                    status = ZD_STATUS_CORRUPT_SEQUENCES;
                    break;
                }
                out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
                if (i + 1u < nseq) {
                    s_ll = cl.base + zd_bwdf_read_thread(&br, nbl);
                    s_ml = cm.base + zd_bwdf_read_thread(&br, nbm);
                    s_of = co.base + zd_bwdf_read_thread(&br, nbo);
                }
            }
            if (status == ZD_STATUS_OK && br.pos != 0) status = ZD_STATUS_CORRUPT_SEQUENCES;
        }
    }
    zd_mp_block_close(blk, hdr, regen, status, bad, lsum, tsum, r1, r2, r3);
}

/* Pass 2, cooperative: zd_zstd_mp_entropy_items over the whole group. */
ZD_FUNC void zd_zstd_mp_entropy_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                      ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_mp_entropy_lds *lds,
                                      zd_u32 seq_min, ZD_GLOBAL zd_mp_hdr *ctl) {
    zd_zstd_mp_entropy_items(src, src_len, dst_len, scratch, b, lds, zd_local_id(), zd_local_size(), 1u, seq_min,
                             ctl);
}
/* ---------------------------------------------------------------- pass 2b
 * The sequences of large blocks, a block an item. Pass 2's loop is one item's serial chain, and
 * a chain's step costs about a hundred dependent instructions whatever the group's width, so
 * the pass's rate is (chains a multiprocessor) / (a step's latency). Here each item keeps its
 * own three tables in shared memory in compact cells (half of zd_fse_cell: twice the chains a
 * multiprocessor), and the launch chooses how many items of a warp decode (`lanes`): items of
 * one warp run every path any of them takes, so fewer lanes a warp shorten a step, more warps
 * a multiprocessor keep the schedulers busy.
 *
 * A compact cell holds the symbol (bits 0-5) and the state counter ns of RFC 8878's table build
 * (bits 6-15; ns < 2 * size <= 1024): the loop derives Num_Bits = log - highbit(ns) and the
 * next state's baseline (ns << Num_Bits) - size. A symbol's code (value baseline and extra bits)
 * comes from a table the group shares (zd_mp_seq_codes).
 */
#define ZD_MPS_SYM(c) ((c) & 63u)
#define ZD_MPS_NS(c) ((c) >> 6)

/* Local memory of one pass 2b item: its tables, and the build's counts. An odd number of 32-bit
   words, so that items in the same state (an RLE table has one) read different banks. */
typedef struct {
    zd_u16 ll[1u << ZD_LL_MAX_LOG];
    zd_u16 ml[1u << ZD_ML_MAX_LOG];
    zd_u16 of[1u << ZD_OF_MAX_LOG];
    zd_i16 norm[ZD_FSE_MAX_SYMBOLS];
    zd_u16 next[ZD_FSE_MAX_SYMBOLS];
    zd_u16 pad[2];
} zd_mp_seq_lds;
ZD_STATIC_ASSERT(sizeof(zd_mp_seq_lds) == 2820u, zd_mp_seq_lds_is_2820_bytes); /* MultiPassLaunch.SEQ_LDS_BYTES */

/* The literal and match length codes as (value baseline << 5) | extra bits, shared by a group's
   items (one shared load where __constant__ loads serialise when the items' codes differ). */
typedef struct {
    zd_u32 ll[ZD_LL_MAX_SYM + 1u];
    zd_u32 ml[ZD_ML_MAX_SYM + 1u];
} zd_mp_seq_codes;
#define ZD_MP_SEQ_CODES_BYTES 368u /* sizeof(zd_mp_seq_codes) rounded up to 16: the items' tables follow */
ZD_STATIC_ASSERT(sizeof(zd_mp_seq_codes) <= ZD_MP_SEQ_CODES_BYTES, zd_mp_seq_codes_fit);

/* Fills the code table, as item lid of ls (the items meet at a barrier before they use it). */
ZD_INLINE void zd_mp_seq_codes_items(ZD_LOCAL zd_mp_seq_codes *c, zd_u32 lid, zd_u32 ls) {
    for (zd_u32 i = lid; i <= ZD_LL_MAX_SYM + ZD_ML_MAX_SYM + 1u; i += ls) {
        if (i <= ZD_LL_MAX_SYM)
            c->ll[i] = (zd_ll_base[i] << 5) | zd_ll_bits[i];
        else
            c->ml[i - ZD_LL_MAX_SYM - 1u] =
                (zd_ml_base[i - ZD_LL_MAX_SYM - 1u] << 5) | zd_ml_bits[i - ZD_LL_MAX_SYM - 1u];
    }
}

/* Builds table k (0 LL, 1 OF, 2 ML) of compact cells from its recorded description (the same
   modes and checks as zd_mp_build_fse_thread, the same spread as zd_fse_build_thread). */
ZD_FUNC zd_u32 zd_mp_build_seq_table_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 k, zd_u32 mode,
                                            zd_u64 at, ZD_LOCAL zd_u16 *t, ZD_LOCAL zd_mp_seq_lds *lds,
                                            zd_u32 *log_out) {
    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
    ZD_LOCAL zd_i16 *norm = lds->norm;
    ZD_LOCAL zd_u16 *next = lds->next;
    zd_u32 log = 0u, nsym = 0u;
    if (mode == 0u) {
        nsym = k == 0u ? 36u : (k == 1u ? 29u : 53u);
        log = k == 1u ? 5u : 6u;
        for (zd_u32 i = 0; i < nsym; i++)
            norm[i] = k == 0u ? zd_ll_default_norm[i] : (k == 1u ? zd_of_default_norm[i] : zd_ml_default_norm[i]);
    } else if (mode == 1u) {
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_u32 sym = src[at];
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        t[0] = (zd_u16)(sym | (1u << 6)); /* log 0: no bits, baseline 0 */
        *log_out = 0u;
        return ZD_STATUS_OK;
    } else {
        zd_u64 used = 0;
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_read_ncount_thread(src + at, src_len - at, max_sym, max_log, norm, &log, &nsym, &used) !=
            ZD_STATUS_OK)
            return ZD_STATUS_CORRUPT_FSE_TABLE;
    }
    zd_u32 size = 1u << log, total = 0u, high = size - 1u;
    for (zd_u32 s = 0; s < nsym; s++) total += (zd_u32)(norm[s] < 0 ? 1 : norm[s]);
    if (total != size) return ZD_STATUS_CORRUPT_FSE_TABLE;
    for (zd_u32 s = 0; s < nsym; s++) {
        if (norm[s] == -1) {
            t[high] = (zd_u16)s; /* "less than 1" symbols fill the table from the end */
            high--;
            next[s] = 1u;
        } else {
            next[s] = (zd_u16)norm[s];
        }
    }
    zd_u32 step = (size >> 1) + (size >> 3) + 3u, mask = size - 1u, pos = 0u;
    for (zd_u32 s = 0; s < nsym; s++) {
        zd_i32 cnt = norm[s];
        for (zd_i32 i = 0; i < cnt; i++) {
            t[pos] = (zd_u16)s;
            do {
                pos = (pos + step) & mask;
            } while (pos > high);
        }
    }
    if (pos != 0u) return ZD_STATUS_CORRUPT_FSE_TABLE;
    for (zd_u32 u = 0; u < size; u++) {
        zd_u32 s = t[u];
        zd_u32 ns = next[s];
        next[s] = (zd_u16)(ns + 1u);
        t[u] = (zd_u16)(s | (ns << 6));
    }
    *log_out = log;
    return ZD_STATUS_OK;
}

/* The aligned 8-byte words around a pass 2b item's container: lo and hi hold the container's
   bytes, pre the word below them, loaded one reload ahead (the stream is read downwards), so a
   reload shifts registers instead of waiting on memory. wa: lo's address (NULL: none yet). */
typedef struct {
    const ZD_GLOBAL zd_u64 *wa;
    zd_u64 lo, hi, pre;
} zd_mp_bw_words;

/* zd_bwdf_reload_thread from the words, while they lie inside the frame: the 16 bytes from the
   container's first byte are in the stream, and the 7 before a stream's start belong to its
   frame (block and frame headers precede every sequence bitstream); elsewhere (a stream's last
   16 bytes, read first) the byte loads. Little-endian devices only (CUDA; the host tests). */
ZD_INLINE void zd_mp_bw_reload(zd_bwdf_bits *r, zd_mp_bw_words *w) {
    if (r->pos >= 64) {
        zd_u32 cb = ((zd_u32)r->pos - 56u) >> 3;
        if (cb + 16u <= r->len) {
            const ZD_GLOBAL zd_u8 *q = r->p + cb;
            zd_u32 sh = (zd_u32)((size_t)q & 7u);
            const ZD_GLOBAL zd_u64 *na = (const ZD_GLOBAL zd_u64 *)(q - sh);
            if (na != w->wa) {
                if (w->wa != NULL && na == w->wa - 1) {
                    /* one word down: pre was loaded (na is at or above the stream's start - 7) */
                    w->hi = w->lo;
                    w->lo = w->pre;
                } else {
                    w->lo = na[0];
                    w->hi = na[1];
                }
                w->wa = na;
                w->pre = (const ZD_GLOBAL zd_u8 *)(na - 1) + 7 >= r->p ? na[-1] : 0u;
            }
            sh *= 8u;
            r->c = sh != 0u ? (w->lo >> sh) | (w->hi << (64u - sh)) : w->lo;
            r->cbits = (zd_i32)(cb << 3);
            return;
        }
    }
    zd_bwdf_reload_thread(r);
}
ZD_INLINE void zd_mp_bw_refill(zd_bwdf_bits *r, zd_mp_bw_words *w, zd_i32 need) {
    if (r->pos - r->cbits < need && r->cbits != 0) zd_mp_bw_reload(r, w);
}

/*
 * Pass 2b, one item: decodes the sequences of block `b` of a chunk whose literals pass 2 decoded
 * with the same seq_min (nothing to do for a block of fewer sequences, a failed one, or one that
 * is not a compressed block of a chunk in ZD_MP_MODE_RUN). Same sequences, repeat offsets and
 * checks as pass 2's loop (zd_zstd_mp_entropy_items); a change to one must be made to the other.
 */
ZD_FUNC void zd_zstd_mp_sequences_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                         ZD_GLOBAL zd_u8 *scratch, zd_u32 b, zd_u32 seq_min,
                                         ZD_LOCAL zd_mp_seq_lds *lds, const ZD_LOCAL zd_mp_seq_codes *codes) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    if (hdr->mode != ZD_MP_MODE_RUN || b >= hdr->n_blocks) return;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES) + b;
    if (blk->type != 2u || blk->nseq < seq_min || blk->nseq == 0u || blk->status != ZD_STATUS_OK) return;
    ZD_GLOBAL zd_u32 *out = (ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len)) + 3u * blk->seq_at;
    zd_u32 nseq = blk->nseq, regen = blk->regen;
    zd_u64 end = blk->in + blk->size;
    zd_u32 status = ZD_STATUS_OK, logs[3] = {0u, 0u, 0u};
    for (zd_u32 k = 0; k < 3u && status == ZD_STATUS_OK; k++)
        status = zd_mp_build_seq_table_thread(src, src_len, k, (blk->tab_mode >> (2u * k)) & 3u, blk->tab_desc[k],
                                              k == 0u ? lds->ll : (k == 1u ? lds->of : lds->ml), lds, &logs[k]);
    zd_u32 r1 = ZD_MP_SYM_OF(0), r2 = ZD_MP_SYM_OF(1), r3 = ZD_MP_SYM_OF(2), bad = 0u;
    zd_u64 lsum = 0u, tsum = 0u;
    zd_bwdf_bits br;
    zd_mp_bw_words bw = {NULL, 0u, 0u, 0u};
    if (status == ZD_STATUS_OK && zd_bwdf_init_thread(&br, src + blk->bits_at, end - blk->bits_at) != 0)
        status = ZD_STATUS_CORRUPT_SEQUENCES;
    if (status == ZD_STATUS_OK) {
        /* Num_Bits = log - highbit(ns) = (log + clz(ns)) - 31: the 31 goes into the logs */
        zd_u32 lgl = logs[0] - 31u, lgo = logs[1] - 31u, lgm = logs[2] - 31u;
        zd_u32 szl = 1u << logs[0], szo = 1u << logs[1], szm = 1u << logs[2];
        zd_u32 s_ll = zd_bwdf_read_thread(&br, logs[0]);
        zd_u32 s_of = zd_bwdf_read_thread(&br, logs[1]);
        zd_u32 s_ml = zd_bwdf_read_thread(&br, logs[2]);
        for (zd_u32 i = 0; i < nseq; i++) {
            zd_u32 cl = lds->ll[s_ll], cm = lds->ml[s_ml], co = lds->of[s_of];
            zd_u32 wl = codes->ll[ZD_MPS_SYM(cl)], wm = codes->ml[ZD_MPS_SYM(cm)];
            zd_u32 ofc = ZD_MPS_SYM(co), mlb = wm & 31u, llb = wl & 31u;
            zd_u32 nsl = ZD_MPS_NS(cl), nsm = ZD_MPS_NS(cm), nso = ZD_MPS_NS(co);
            zd_u32 nbl = lgl + (31u - zd_highbit32(nsl)), nbm = lgm + (31u - zd_highbit32(nsm));
            zd_u32 nbo = lgo + (31u - zd_highbit32(nso));
            zd_u32 need = ofc + mlb + llb + nbl + nbm + nbo;
            zd_u32 ofv, ml, ll;
            if (need <= 56u) zd_mp_bw_refill(&br, &bw, (zd_i32)need);
            zd_i32 avail = br.pos - br.cbits;
            if (need <= 56u && avail >= (zd_i32)need) {
                /* every bit of this sequence is in the container (no overrun) */
                zd_u64 c = br.c;
                zd_u32 a = (zd_u32)avail;
                ofv = (1u << ofc) + zd_mp_take_bits(c, &a, ofc);
                ml = (wm >> 5) + zd_mp_take_bits(c, &a, mlb);
                ll = (wl >> 5) + zd_mp_take_bits(c, &a, llb);
                out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
                br.pos -= (zd_i32)(ofc + mlb + llb);
                if (i + 1u < nseq) {
                    s_ll = (nsl << nbl) - szl + zd_mp_take_bits(c, &a, nbl);
                    s_ml = (nsm << nbm) - szm + zd_mp_take_bits(c, &a, nbm);
                    s_of = (nso << nbo) - szo + zd_mp_take_bits(c, &a, nbo);
                    br.pos -= (zd_i32)(nbl + nbm + nbo);
                }
                continue;
            }
            zd_mp_bw_refill(&br, &bw, (zd_i32)(ofc + mlb));
            ofv = (1u << ofc) + zd_bwdf_read_thread(&br, ofc);
            ml = (wm >> 5) + zd_bwdf_read_thread(&br, mlb);
            zd_mp_bw_refill(&br, &bw, (zd_i32)(llb + nbl + nbm + nbo));
            ll = (wl >> 5) + zd_bwdf_read_thread(&br, llb);
            if (br.pos < 0) {
                status = ZD_STATUS_CORRUPT_SEQUENCES;
                break;
            }
            out = zd_mp_seq_record(out, ll, ml, ofv, &r1, &r2, &r3, &bad, &lsum, &tsum);
            if (i + 1u < nseq) {
                s_ll = (nsl << nbl) - szl + zd_bwdf_read_thread(&br, nbl);
                s_ml = (nsm << nbm) - szm + zd_bwdf_read_thread(&br, nbm);
                s_of = (nso << nbo) - szo + zd_bwdf_read_thread(&br, nbo);
            }
        }
        if (status == ZD_STATUS_OK && br.pos != 0) status = ZD_STATUS_CORRUPT_SEQUENCES;
    }
    zd_mp_block_close(blk, hdr, regen, status, bad, lsum, tsum, r1, r2, r3);
}


/*
 * Link, item 0 of the chunk's group: output position and entering repeat offsets of every block;
 * falls the chunk back when a block failed in pass 2 or the sizes do not add up to dst_len.
 * ctl: chunk 0's header (the batch's largest block count).
 */
ZD_FUNC void zd_zstd_mp_link_group(zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch, ZD_GLOBAL zd_mp_hdr *ctl) {
    if (zd_local_id() != 0u) return;
    ctl->seq_ticket = 0u; /* pass 2b is over: pass 3b's tickets (every chunk's group stores the same) */
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    if (hdr->mode != ZD_MP_MODE_RUN) return;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u32 nb = hdr->n_blocks;
    zd_u32 r0 = 1u, r1 = 4u, r2 = 8u;
    zd_u64 pos = 0u;
    zd_u32 ok = 1u;
    for (zd_u32 b = 0; b < nb && ok; b++) {
        ZD_GLOBAL zd_mp_block *bk = blk + b;
        if (bk->type == 2u && bk->status != ZD_STATUS_OK) ok = 0u;
        else if (bk->out_len > dst_len - pos) ok = 0u;
        if (!ok) break;
        bk->out_at = pos;
        bk->rep_in[0] = r0;
        bk->rep_in[1] = r1;
        bk->rep_in[2] = r2;
        pos += bk->out_len;
        if (bk->type == 2u) {
            zd_u32 n0 = zd_mp_rep_resolve(bk->rep_out[0], r0, r1, r2);
            zd_u32 n1 = zd_mp_rep_resolve(bk->rep_out[1], r0, r1, r2);
            zd_u32 n2 = zd_mp_rep_resolve(bk->rep_out[2], r0, r1, r2);
            r0 = n0;
            r1 = n1;
            r2 = n2;
        }
    }
    if (ok && pos != dst_len) ok = 0u;
    if (!ok) {
        hdr->mode = ZD_MP_MODE_FALLBACK;
        return;
    }
    zd_atomic_max_u32(&ctl->max_blocks, nb);
}

/* Pass 3 local memory: one batch of sequences, one per item. A block's output window (the
   block built in local memory, zd_zstd_mp_exec_group's `win`) lives beside it, not in it: it is
   128 KiB, more than static local memory allows on CUDA, and optional. */
typedef struct {
    zd_u64 scan[ZD_SCAN_TMP_WORDS];
    zd_u64 min_src;                /* smallest source position (in the chunk) of the batch's matches */
    zd_u32 rel[ZD_MPX_MAX_ITEMS];  /* output offset of the sequence in its block */
    zd_u32 ll[ZD_MPX_MAX_ITEMS];
    zd_u32 ml[ZD_MPX_MAX_ITEMS];
    zd_u32 off[ZD_MPX_MAX_ITEMS];  /* resolved offset */
    zd_u32 lit[ZD_MPX_MAX_ITEMS];  /* first literal, relative to the batch's first literal */
    zd_u32 lng[ZD_MPX_MAX_ITEMS];  /* this round's long matches (item indexes) */
    zd_u32 any[3], n_long[2];      /* per round: a match was pending (or a source moved), long matches */
    zd_u32 ticket, fail, far, long_lit;
} zd_mp_exec_lds;

/* Byte loops of pass 3 give each item a run of ZD_MPX_RUN consecutive bytes (one search finds
   the sequence of its first byte). Odd, so that the items of a warp, a run apart, start in
   different banks of local memory: with 16-byte runs the 4-byte pointers of zd_mp_jump_group
   were written 16 ways conflicted, the window bytes 4 ways. 9 rather than 17 since the set-up walk
   keeps its sequence in registers (sharded ERA5 frames' exec 21.7 -> 20.6 ms, 1 MiB level 3
   51.5 -> 52.9 GB/s; 33: 25.2 ms). */
#ifndef ZD_MPX_RUN
#define ZD_MPX_RUN 9u
#endif

/* The last of the batch's cnt sequences whose a[] (a sequence's first literal, lds->lit, or its
   output offset, lds->rel: both ascending) is at or before x. */
ZD_INLINE zd_u32 zd_mp_last_at_or_before(const ZD_LOCAL zd_u32 *a, zd_u32 cnt, zd_u32 x) {
    zd_u32 lo = 0u, hi = cnt - 1u;
    while (lo < hi) {
        zd_u32 mid = (lo + hi + 1u) >> 1;
        if (a[mid] <= x) lo = mid;
        else hi = mid - 1u;
    }
    return lo;
}

/* Byte s of the block's output: o[s] in the block, or g[s] (s < 0) in an earlier block, written
   by another group (past L1 with ZD_MPX_F_CG). */
ZD_INLINE zd_u8 zd_mp_src_byte(const zd_u8 *o, const ZD_GLOBAL zd_u8 *g, zd_i64 s, zd_u32 flags) {
    return s >= 0 ? o[s] : (flags & ZD_MPX_F_CG) ? zd_ld_cg_u8(g + s) : g[s];
}

/* ZD_MPX_F_DEFER's taint bits: whether block byte x (in the window) is marked, and marking it
   (an atomic or: the items of a warp mark neighbouring bytes of one word, while others read it). */
ZD_INLINE zd_u32 zd_mp_tainted(const ZD_LOCAL zd_u32 *taint, zd_u32 x) {
    return (((volatile const ZD_LOCAL zd_u32 *)taint)[x >> 5] >> (x & 31u)) & 1u;
}
ZD_INLINE void zd_mp_taint(ZD_LOCAL zd_u32 *taint, zd_u32 x) { zd_atomic_or_u32_local(&taint[x >> 5], 1u << (x & 31u)); }

/* ZD_MPX_F_DEFER: block byte x copies block byte s (s < 0: before the block, at out_at + s in the
   chunk). A source inside the block that is final is copied; otherwise x takes the source's ref
   (or the source itself, before the block) and is marked. Sources are final (or marked) before
   x is written, as for a plain copy. */
ZD_INLINE void zd_mp_defer_byte(zd_u8 *o, ZD_LOCAL zd_u32 *taint, ZD_GLOBAL zd_u32 *refs, zd_u64 out_at, zd_u32 x,
                                zd_i64 s) {
    if (s >= 0 && !zd_mp_tainted(taint, (zd_u32)s)) {
        o[x] = o[s];
        return;
    }
    refs[out_at + x] = s < 0 ? (zd_u32)((zd_i64)out_at + s) : refs[out_at + (zd_u64)s];
    zd_mp_taint(taint, x);
}

/* Per item: output bytes [x0, x1) of the batch's literals (x relative to its first literal). */
ZD_INLINE void zd_mp_lit_run_thread(const ZD_GLOBAL zd_u8 *lit, zd_u8 *o, const ZD_LOCAL zd_mp_exec_lds *lds,
                                    zd_u32 cnt, zd_u32 x0, zd_u32 x1) {
    zd_u32 j = zd_mp_last_at_or_before(lds->lit, cnt, x0);
    zd_u8 v[ZD_MPX_RUN];
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_RUN; k++) v[k] = x0 + k < x1 ? lit[x0 + k] : (zd_u8)0u;
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_RUN; k++) {
        zd_u32 x = x0 + k;
        if (x < x1) {
            while (x - lds->lit[j] >= lds->ll[j]) j++;
            o[lds->rel[j] + (x - lds->lit[j])] = v[k];
        }
    }
}

/* Batches of long literal runs move their literals in aligned 32-bit words: a warp's loads are
   consecutive words (whole sectors), where runs of ZD_MPX_RUN bytes an item make every byte load
   touch 17 sectors (ncu, 1 MiB level-3 frames: 80% of the execute pass's sectors were excess).
   ZD_MPX_LIT_WORDS words per item are in flight at once. With short runs (ERA5 frames: about a
   literal a sequence) an item's words are 128 bytes and as many sequences apart, and finding
   each byte's sequence cost more than the sectors saved (execute 37 -> 62 ms on the sharded
   frames), so those batches keep the byte runs. */
#ifndef ZD_MPX_LIT_WORDS_MIN_RUN
#define ZD_MPX_LIT_WORDS_MIN_RUN 16u
#endif
#define ZD_MPX_LIT_WORDS 4u

/* Per item: the batch's literals in words w0 + k * stride (k < ZD_MPX_LIT_WORDS) of the literal
   stream read from the aligned address la (literal x is byte x + a of it), each byte stored at its
   place in the output (x relative to the batch's first literal; nlit literals). The words at the
   ends may hold bytes outside the batch's literals (never outside the buffer: it is 4-aligned):
   they are skipped. */
ZD_INLINE void zd_mp_lit_words_thread(const ZD_GLOBAL zd_u8 *la, zd_u32 a, zd_u8 *o, const ZD_LOCAL zd_mp_exec_lds *lds,
                                      zd_u32 cnt, zd_u32 w0, zd_u32 stride, zd_u32 nlit) {
    zd_u32 nwords = (nlit + a + 3u) >> 2;
    zd_u32 v[ZD_MPX_LIT_WORDS];
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_LIT_WORDS; k++) {
        zd_u32 w = w0 + k * stride;
        v[k] = w < nwords ? zd_ld_u32a(la + 4u * w) : 0u;
    }
    zd_u32 xf = 4u * w0 > a ? 4u * w0 - a : 0u; /* this item's first literal */
    zd_u32 j = zd_mp_last_at_or_before(lds->lit, cnt, xf);
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_MPX_LIT_WORDS; k++) {
        zd_u32 w = w0 + k * stride;
        ZD_UNROLL
        for (zd_u32 q = 0; q < 4u; q++) {
            zd_u32 y = 4u * w + q; /* byte of the aligned stream */
            if (w < nwords && y >= a && y - a < nlit) {
                zd_u32 x = y - a;
                while (x - lds->lit[j] >= lds->ll[j]) j++;
                o[lds->rel[j] + (x - lds->lit[j])] = (zd_u8)(v[k] >> (8u * q));
            }
        }
    }
}

/* Batches of short literal runs whose longest is at most ZD_MPX_SEQ_LITS bytes: each item moves
   its own sequence's literals, no search. Byte runs (zd_mp_lit_run_thread) find each byte's
   sequence by walking the batch's sequences from a binary search, and on ERA5 frames (about a
   literal a sequence, many sequences with none) the slowest item's walk held the whole group at
   the next barrier (ncu, sharded ERA5 frames: 39% of the execute pass's stall samples). */
#define ZD_MPX_SEQ_LITS 64u

/* Per item: the ll literals at l (its sequence's first literal) to o, read as aligned words, 4 in
   flight at a time (words may hold bytes outside the run, never outside the buffer: it is
   4-aligned). */
ZD_INLINE void zd_mp_seq_lits_thread(const ZD_GLOBAL zd_u8 *l, zd_u32 ll, zd_u8 *o) {
    if (ll == 0u) return;
    zd_u32 a = zd_addr_mod4(l);
    const ZD_GLOBAL zd_u8 *la = l - a;
    zd_u32 nw = (a + ll + 3u) >> 2;
    for (zd_u32 w0 = 0; w0 < nw; w0 += 4u) {
        zd_u32 v[4];
        ZD_UNROLL
        for (zd_u32 q = 0; q < 4u; q++) v[q] = w0 + q < nw ? zd_ld_u32a(la + 4u * (w0 + q)) : 0u;
        ZD_UNROLL
        for (zd_u32 q = 0; q < 4u; q++) {
            ZD_UNROLL
            for (zd_u32 b = 0; b < 4u; b++) {
                zd_u32 y = 4u * (w0 + q) + b;
                if (y >= a && y - a < ll) o[y - a] = (zd_u8)(v[q] >> (8u * b));
            }
        }
    }
}

/* Per item: a match of at most ZD_MPX_SHORT bytes at block offset m whose source is final. `o`
   is the block's output (window or destination), `g` the block in the destination: source
   bytes before the block are read there. A forward byte copy is right for overlapping matches
   too; four loads go out at once when they cannot overlap the four stores. No unrolled
   fixed-length body: items of a warp run their copies in different rounds, and the warp pays
   each round for its longest copy only. */
ZD_INLINE void zd_mp_short_match_thread(zd_u8 *o, const ZD_GLOBAL zd_u8 *g, zd_u32 m, zd_u32 ml, zd_u32 off,
                                        zd_u32 flags) {
    zd_u32 k = 0u;
    if (off > m) {
        zd_u32 nb = off - m < ml ? off - m : ml;
        const ZD_GLOBAL zd_u8 *s = g - (off - m);
        /* 8 loads in flight before their stores: `o` may alias `s` as far as the compiler
           knows, so a load-store loop waited a global round trip a byte */
        for (; k < nb; k += 8u) {
            zd_u8 v[8];
            ZD_UNROLL
            for (zd_u32 q = 0; q < 8u; q++)
                v[q] = k + q < nb ? ((flags & ZD_MPX_F_CG) ? zd_ld_cg_u8(s + k + q) : s[k + q]) : (zd_u8)0u;
            ZD_UNROLL
            for (zd_u32 q = 0; q < 8u; q++)
                if (k + q < nb) o[m + k + q] = v[q];
        }
        k = nb;
    }
    if (off >= 4u) {
        for (; k + 4u <= ml; k += 4u) {
            zd_u32 q = m + k - off;
            zd_u8 a = o[q], b = o[q + 1u], c = o[q + 2u], d = o[q + 3u];
            o[m + k] = a;
            o[m + k + 1u] = b;
            o[m + k + 2u] = c;
            o[m + k + 3u] = d;
        }
    }
    for (; k < ml; k++) o[m + k] = o[m + k - off];
}

/* Waits until every block of the chunk before block b that produced bytes at or after `from` is
   done. Item i checks blocks b-1-i, b-1-i-ls, ... (its flag and the next block's start loaded
   together), so the group waits one round trip where one item walking back took one per block
   while the others sat at the next barrier: zstd 1.5.7 splits level-3 frames into ~60 blocks a
   MiB, and ~85% of their matches read earlier blocks (ncu, 1 MiB level-3 frames: a third of the
   execute pass's stall samples were that barrier, after ~22 blocks walked a batch). Block
   outputs ascend: an item stops at the first block that ends at or before `from`. */
ZD_INLINE void zd_mp_wait_items(ZD_GLOBAL zd_mp_block *blk, zd_u32 b, zd_u64 from, zd_u32 lid, zd_u32 ls) {
    zd_u32 waited = 0u;
    for (zd_u32 k = b - 1u - lid; lid < b && k < b; k -= ls) {
        zd_u32 done = zd_load_flag(&blk[k].done);
        if (blk[k + 1u].out_at <= from) break;
        while (done == 0u) {
            zd_spin_pause();
            done = zd_load_flag(&blk[k].done);
        }
        waited = 1u;
    }
    if (waited) zd_fence(); /* the flags' blocks' bytes are read after the next barrier */
}

/* Marks bytes [a, e) of the batch's output written (other items may mark neighbouring bits).
   `written`: ZD_MPX_WRITTEN_WORDS words of local memory, a bit per byte of a batch's output. */
ZD_INLINE void zd_mp_mark_thread(ZD_LOCAL zd_u32 *written, zd_u32 a, zd_u32 e) {
    while (a < e) {
        zd_u32 w = a >> 5, lo = a & 31u;
        zd_u32 n = e - a < 32u - lo ? e - a : 32u - lo;
        zd_u32 mask = (n == 32u ? 0xFFFFFFFFu : ((1u << n) - 1u)) << lo;
        zd_atomic_or_u32_local(&written[w], mask);
        a += n;
    }
}

/* Whether bytes [a, e) of the batch's output are all marked written. */
ZD_INLINE zd_u32 zd_mp_marked_thread(const ZD_LOCAL zd_u32 *written, zd_u32 a, zd_u32 e) {
    while (a < e) {
        zd_u32 w = a >> 5, lo = a & 31u;
        zd_u32 n = e - a < 32u - lo ? e - a : 32u - lo;
        zd_u32 mask = (n == 32u ? 0xFFFFFFFFu : ((1u << n) - 1u)) << lo;
        if ((((volatile const ZD_LOCAL zd_u32 *)written)[w] & mask) != mask) return 0u;
        a += n;
    }
    return 1u;
}

/* zd_mp_jump_group with ZD_MPX_F_DEFER: "no source", for a literal byte */
#define ZD_MPX_NO_SRC ((zd_i64)0x7FFFFFFFFFFFFFFFLL)

/* Pointers handled a step by each item of zd_mp_jump_group's loops: their loads go out together
   (volatile accesses keep program order, so a loop of load, dependent load, store waited two
   local-memory round trips an element; a global one for sources in earlier blocks). */
#ifndef ZD_MPX_JUMP_ILP
#define ZD_MPX_JUMP_ILP 4u
#endif

/*
 * Pass 3, cooperative, a batch whose output spans at most ZD_MPX_JUMP_SPAN bytes (its literals
 * written, bytes before it final): p[x] is the source of batch byte x, x itself for a literal,
 * else x - offset (negative: before the batch). Following sources by pointer jumping reaches a
 * literal or a byte before the batch for every byte in log2(longest chain) steps, one barrier
 * each, where matches run in rounds need a round per link of a chain (ERA5-like floats: chains
 * of offset-4 matches through the whole batch). Then each match byte is copied once.
 */
ZD_INLINE void zd_mp_jump_group(ZD_LOCAL zd_mp_exec_lds *lds, ZD_LOCAL zd_i32 *p, zd_u8 *o, const ZD_GLOBAL zd_u8 *g,
                                zd_u32 cnt, zd_u32 carry_out, zd_u32 span, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                ZD_GLOBAL zd_u32 *refs, zd_u64 out_at) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    for (zd_u32 x0 = lid * ZD_MPX_RUN; x0 < span; x0 += ls * ZD_MPX_RUN) {
        zd_u32 j = zd_mp_last_at_or_before(lds->rel, cnt, carry_out + x0);
        zd_u32 x1 = span - x0 < ZD_MPX_RUN ? span : x0 + ZD_MPX_RUN;
        /* sequence j's fields in registers, reloaded when the run crosses into the next: the
           stores to p might alias lds for the compiler, which reloaded them every byte */
        zd_u32 rj = lds->rel[j], lj = lds->ll[j], oj = lds->off[j];
        zd_u32 rn = j + 1u < cnt ? lds->rel[j + 1u] : ~0u;
        for (zd_u32 x = x0; x < x1; x++) {
            zd_u32 bx = carry_out + x;
            while (bx >= rn) {
                j++;
                rj = rn;
                lj = lds->ll[j];
                oj = lds->off[j];
                rn = j + 1u < cnt ? lds->rel[j + 1u] : ~0u;
            }
            p[x] = bx - rj < lj ? (zd_i32)x : (zd_i32)x - (zd_i32)oj;
        }
    }
    ZD_BARRIER();
    /* Jumps in place: an item may read a pointer another is replacing in the same step, and
       gets either value, both sources of the same byte further along its chain; a step in which
       no pointer moved had nothing left to resolve. (compute-sanitizer racecheck reports these
       reads and writes as hazards: by design.) Volatile keeps the compiler from assuming it
       owns the values. Three flags in turn: the one cleared here was last read two barriers
       ago. Each item owns its elements x (no other item writes them), so reading its own
       ZD_MPX_JUMP_ILP pointers before writing any changes nothing. */
    volatile ZD_LOCAL zd_i32 *vp = p;
    for (zd_u32 r = 0;; r++) {
        zd_u32 cur = r % 3u;
        if (lid == 0u) lds->any[(r + 1u) % 3u] = 0u;
        zd_u32 moved = 0u;
        for (zd_u32 x = lid; x < span; x += ZD_MPX_JUMP_ILP * ls) {
            zd_i32 v[ZD_MPX_JUMP_ILP], w[ZD_MPX_JUMP_ILP];
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) v[k] = x + k * ls < span ? vp[x + k * ls] : -1;
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                /* a match byte whose source is in the batch: the source's own pointer */
                w[k] = v[k] >= 0 && v[k] != (zd_i32)(x + k * ls) ? vp[v[k]] : v[k];
            }
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                if (w[k] != v[k]) { /* ... a match byte too: jump over it */
                    vp[x + k * ls] = w[k];
                    moved = 1u;
                }
            }
        }
        if (moved) lds->any[cur] = 1u;
        ZD_BARRIER();
        if (lds->any[cur] == 0u) break;
    }
    if (flags & ZD_MPX_F_DEFER) {
        /* a byte's source is now a literal of the batch (final) or a byte before the batch; as
           zd_mp_defer_byte, with each step's loads for ZD_MPX_JUMP_ILP bytes going out together */
        for (zd_u32 x = lid; x < span; x += ZD_MPX_JUMP_ILP * ls) {
            zd_i64 sk[ZD_MPX_JUMP_ILP];
            zd_u32 t[ZD_MPX_JUMP_ILP], r[ZD_MPX_JUMP_ILP];
            zd_u8 c[ZD_MPX_JUMP_ILP];
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                zd_i32 v = x + k * ls < span ? p[x + k * ls] : (zd_i32)(x + k * ls);
                sk[k] = v != (zd_i32)(x + k * ls) ? (zd_i64)carry_out + v : ZD_MPX_NO_SRC;
            }
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++)
                t[k] = sk[k] < 0 ? 1u : sk[k] == ZD_MPX_NO_SRC ? 0u : zd_mp_tainted(taint, (zd_u32)sk[k]);
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                r[k] = sk[k] < 0 ? (zd_u32)((zd_i64)out_at + sk[k])
                       : t[k] ? refs[out_at + (zd_u64)sk[k]] : 0u;
                c[k] = sk[k] != ZD_MPX_NO_SRC && !t[k] ? o[sk[k]] : (zd_u8)0u;
            }
            ZD_UNROLL
            for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) {
                zd_u32 bx = carry_out + x + k * ls;
                if (sk[k] == ZD_MPX_NO_SRC) continue;
                if (t[k]) {
                    refs[out_at + bx] = r[k];
                    zd_mp_taint(taint, bx);
                } else {
                    o[bx] = c[k];
                }
            }
        }
        return;
    }
    for (zd_u32 x = lid; x < span; x += ZD_MPX_JUMP_ILP * ls) {
        zd_i32 v[ZD_MPX_JUMP_ILP];
        zd_u8 c[ZD_MPX_JUMP_ILP];
        ZD_UNROLL
        for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++) v[k] = x + k * ls < span ? p[x + k * ls] : (zd_i32)(x + k * ls);
        ZD_UNROLL
        for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++)
            c[k] = v[k] != (zd_i32)(x + k * ls) ? zd_mp_src_byte(o, g, (zd_i64)carry_out + v[k], flags) : (zd_u8)0u;
        ZD_UNROLL
        for (zd_u32 k = 0; k < ZD_MPX_JUMP_ILP; k++)
            if (v[k] != (zd_i32)(x + k * ls)) o[carry_out + x + k * ls] = c[k];
    }
}

/*
 * Pass 3, cooperative: executes compressed block `b` of a chunk (its literals decoded, its
 * sequences in scratch, its position and entering repeat offsets linked). With a window (`win`
 * not NULL: ZD_ZSTD_BLOCK_MAX bytes of local memory) the block is built there, so the rounds
 * of dependent matches read and write local memory instead of waiting on global memory each
 * time, and is copied out once at the end; without one it is built in place. With `jump`
 * (ZD_MPX_JUMP_SPAN pointers of local memory), batches of short output run by pointer jumping
 * (zd_mp_jump_group), the others in rounds; `written` may share jump's memory. Returns 0, or 1
 * when a sequence is invalid (the chunk then falls back). CUDA and host only: `o` is a generic
 * pointer to either memory.
 */
ZD_INLINE zd_u32 zd_mp_exec_seqs_in(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, ZD_GLOBAL zd_u8 *scratch,
                                    zd_u64 dst_len, zd_u64 src_len, ZD_GLOBAL zd_mp_block *blk, zd_u32 b,
                                    ZD_LOCAL zd_mp_exec_lds *lds, zd_u8 *o, ZD_LOCAL zd_i32 *jump,
                                    ZD_LOCAL zd_u32 *written, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                    ZD_GLOBAL zd_u32 *refs) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    ZD_GLOBAL zd_mp_block *bk = blk + b;
    zd_u64 out_at = bk->out_at;
    zd_u32 nseq = bk->nseq, regen = bk->regen, lit_used = bk->lit_used, out_len = bk->out_len;
    zd_u32 rin0 = bk->rep_in[0], rin1 = bk->rep_in[1], rin2 = bk->rep_in[2];
    const ZD_GLOBAL zd_u8 *lit = bk->lit_type == 0u ? src + bk->lit_in
                                                    : scratch + zd_zstd_mp_lit_off(dst_len, src_len) + bk->lit_at;
    const ZD_GLOBAL zd_u32 *seqs =
        (const ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len)) + 3u * bk->seq_at;
    ZD_GLOBAL zd_u8 *g = dst + out_at;
    /* The literals after the last sequence go straight to the destination, window or not: no
       match of this block reads them (later blocks wait for its done flag). */
    zd_u32 trail = regen - lit_used;
    zd_copy_group(g + (out_len - trail), lit + lit_used, trail);
    zd_u64 confirmed = out_at; /* earlier output known final from here on (the same in every item) */
    zd_u32 defer = (flags & ZD_MPX_F_DEFER) != 0u;
    if (defer) /* the first batch's barriers come before any mark */
        for (zd_u32 w = lid; w < ZD_ZSTD_BLOCK_MAX / 32u; w += ls) taint[w] = 0u;
    zd_u32 span_max = defer ? ZD_MPX_DEFER_SPAN : ZD_MPX_JUMP_SPAN;
    zd_u32 carry_out = 0u, carry_lit = 0u;
    zd_u32 fail = 0u;
    for (zd_u32 s0 = 0; s0 < nseq; s0 += ls) {
        zd_u32 cnt = nseq - s0 < ls ? nseq - s0 : ls;
        zd_u32 i = s0 + lid;
        zd_u32 valid = lid < cnt;
        zd_u32 ll = 0u, ml = 0u, off = 1u;
        if (valid) {
            ll = seqs[3u * i];
            ml = seqs[3u * i + 1u];
            off = zd_mp_rep_resolve(seqs[3u * i + 2u], rin0, rin1, rin2);
        }
        if (lid == 0u) {
            lds->min_src = ~(zd_u64)0u;
            lds->any[0] = 0u;
            lds->n_long[0] = 0u;
            lds->fail = 0u;
            lds->far = 0u;
            lds->long_lit = 0u;
        }
        zd_u64 tot = 0u;
        zd_u64 ex = zd_scan_excl_u64_group((zd_u64)ll | ((zd_u64)(ll + ml) << 32), lds->scan, &tot);
        zd_u32 lrel = (zd_u32)ex;
        zd_u32 brel = (zd_u32)(ex >> 32); /* in the batch's output */
        zd_u32 rel = carry_out + brel;
        zd_u32 m = rel + ll;
        zd_u64 abs_m = out_at + m;
        zd_u32 span = (zd_u32)(tot >> 32);
        /* cleared whether the batch runs in rounds or not: decided after the barrier below */
        for (zd_u32 w = lid; w < (span + 31u) / 32u; w += ls) written[w] = 0u;
        if (valid) {
            /* pass 2 kept the sequences inside out_len <= ZD_ZSTD_BLOCK_MAX; checked again here
               because a window overrun would corrupt local memory */
            if (off == 0u || (zd_u64)off > abs_m || (zd_u64)m + ml > out_len) {
                lds->fail = 1u;
            } else {
                lds->rel[lid] = rel;
                lds->ll[lid] = ll;
                lds->ml[lid] = ml;
                lds->off[lid] = off;
                lds->lit[lid] = lrel;
                if (ml > 0u && (zd_u64)off > m) zd_atomic_min_u64_local(&lds->min_src, abs_m - off);
                if (off > ZD_MPX_JUMP_MAX_OFF) lds->far = 1u; /* its pointers would not fit an i32 */
                if (ll > ZD_MPX_SEQ_LITS) lds->long_lit = 1u;
            }
        }
        ZD_BARRIER();
        if (lds->fail) {
            fail = 1u;
            break;
        }
        zd_u32 jumping = jump != NULL && span <= span_max && !lds->far;
        zd_u32 nlit = (zd_u32)tot;
        if (nlit >= ZD_MPX_LIT_WORDS_MIN_RUN * cnt) {
            /* warps of W items (fewer in small host groups), each taking ZD_MPX_LIT_WORDS * W
               consecutive words at a time, an item every W-th */
            zd_u32 wsz = ls < 32u ? ls : 32u, warps = ls / wsz, wv = lid / wsz, lane = lid % wsz;
            zd_u32 a = zd_addr_mod4(lit + carry_lit);
            const ZD_GLOBAL zd_u8 *la = lit + carry_lit - a;
            zd_u32 nwords = (nlit + a + 3u) >> 2;
            zd_u32 step = ZD_MPX_LIT_WORDS * wsz;
            if (wv < warps)
                for (zd_u32 c = wv * step; c < nwords; c += warps * step)
                    zd_mp_lit_words_thread(la, a, o, lds, cnt, c + lane, wsz, nlit);
        } else if (!lds->long_lit) {
            if (valid) zd_mp_seq_lits_thread(lit + carry_lit + lrel, ll, o + rel);
        } else {
            for (zd_u32 x0 = lid * ZD_MPX_RUN; x0 < nlit; x0 += ls * ZD_MPX_RUN) {
                zd_u32 x1 = nlit - x0 < ZD_MPX_RUN ? nlit : x0 + ZD_MPX_RUN;
                zd_mp_lit_run_thread(lit + carry_lit, o, lds, cnt, x0, x1);
            }
        }
        if (valid && !jumping) zd_mp_mark_thread(written, brel, brel + ll);
        zd_u64 need = lds->min_src;
        if (need < confirmed && !defer) {
            zd_mp_wait_items(blk, b, need, lid, ls);
            confirmed = need;
        }
        ZD_BARRIER();
        if (jumping) {
            zd_mp_jump_group(lds, jump, o, g, cnt, carry_out, span, flags, taint, refs, out_at);
            carry_out += span;
            carry_lit += nlit;
            ZD_BARRIER();
            continue;
        }
        /* Matches in rounds: a match runs once every byte of its source in this batch is marked
           written (bytes before the batch are final). Marks of a round's matches are set at the
           start of the next round, racing with its checks: a mark seen there was written before
           the last barrier, a mark missed is seen a round later. With ZD_MPX_F_SAME_ROUND a short
           match is marked as soon as it is copied instead (fences on both sides: an item that sees
           the mark sees the bytes), so a chain of matches may finish in one round when its items
           happen to run in order. The first pending match always finds its source written by
           then, so every round or two at least one runs. */
        zd_u32 pend = valid && ml > 0u;
        zd_u32 just = 0u;
        zd_u32 sa = 0u, se = 0u; /* source bytes inside the batch: [sa, se) of its output */
        {
            zd_i64 a = (zd_i64)m - (zd_i64)off, e = a + (zd_i64)(ml < off ? ml : off);
            zd_i64 lo = (zd_i64)carry_out;
            if (e > lo) {
                sa = (zd_u32)((a > lo ? a : lo) - lo);
                se = (zd_u32)(e - lo);
            }
        }
        for (zd_u32 r = 0;; r++) {
            zd_u32 cur = r & 1u;
            if (just) {
                zd_mp_mark_thread(written, brel + ll, brel + ll + ml);
                just = 0u;
            }
            if (lid == 0u) {
                lds->any[cur ^ 1u] = 0u;
                lds->n_long[cur ^ 1u] = 0u;
            }
            if (pend) {
                lds->any[cur] = 1u;
                if (zd_mp_marked_thread(written, sa, se)) {
                    if (defer && ml <= ZD_MPX_SHORT) {
                        /* forward, byte by byte: right for a match overlapping its own output */
                        for (zd_u32 k = 0; k < ml; k++)
                            zd_mp_defer_byte(o, taint, refs, out_at, m + k, (zd_i64)m + k - (zd_i64)off);
                        if (flags & ZD_MPX_F_SAME_ROUND) {
                            zd_fence_local();
                            zd_mp_mark_thread(written, brel + ll, brel + ll + ml);
                        } else {
                            just = 1u;
                        }
                    } else if (ml <= ZD_MPX_SHORT && (flags & ZD_MPX_F_SAME_ROUND)) {
                        zd_fence_local();
                        zd_mp_short_match_thread(o, g, m, ml, off, flags);
                        zd_fence_local();
                        zd_mp_mark_thread(written, brel + ll, brel + ll + ml);
                    } else if (ml <= ZD_MPX_SHORT) {
                        zd_mp_short_match_thread(o, g, m, ml, off, flags);
                        just = 1u;
                    } else {
                        lds->lng[zd_atomic_add_u32_local(&lds->n_long[cur], 1u)] = lid;
                        just = 1u;
                    }
                    pend = 0u;
                }
            }
            ZD_BARRIER();
            if (lds->any[cur] == 0u) break;
            zd_u32 nl = lds->n_long[cur];
            for (zd_u32 k = 0; k < nl; k++) {
                zd_u32 j = lds->lng[k];
                zd_u32 jm = lds->rel[j] + lds->ll[j], jml = lds->ml[j], joff = lds->off[j];
                for (zd_u32 q = lid; q < jml; q += ls) {
                    /* never a byte of this match: its first joff bytes' sources, final */
                    zd_i64 s = (zd_i64)jm - (zd_i64)joff + (zd_i64)(q < joff ? q : q % joff);
                    if (defer) zd_mp_defer_byte(o, taint, refs, out_at, jm + q, s);
                    else o[jm + q] = zd_mp_src_byte(o, g, s, flags);
                }
            }
            ZD_BARRIER();
        }
        carry_out += (zd_u32)(tot >> 32);
        carry_lit += nlit;
        ZD_BARRIER();
    }
    if ((flags & ZD_MPX_F_WIN) && !fail) {
        /* every item copies out bytes other items wrote: after the last batch's barrier, and
           this one for a block that ran no batch (its window was left as it was). The window
           goes through zd_copy_group as a generic pointer (CUDA and host: one address space;
           the H200 measured no difference against a copy with shared-memory loads). */
        ZD_BARRIER();
        zd_copy_group(g, (const ZD_GLOBAL zd_u8 *)o, out_len - trail);
        if (defer) /* the marked bytes' refs were written as they were marked */
            for (zd_u32 x = lid; x < out_len - trail; x += ls)
                if (!zd_mp_tainted(taint, x)) refs[out_at + x] = ZD_MP_REF_NONE;
    }
    return fail;
}

/* The same, building the block in `win` with ZD_MPX_F_WIN (else in place in dst). Two calls
   rather than one through a pointer chosen at run time: the CUDA compiler then sees that the
   window is shared memory and uses shared loads and stores for it (with the choice, every
   access to it went through generic addressing, 64-bit addresses and all). */
ZD_FUNC zd_u32 zd_mp_exec_seqs_group(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, ZD_GLOBAL zd_u8 *scratch,
                                     zd_u64 dst_len, zd_u64 src_len, ZD_GLOBAL zd_mp_block *blk, zd_u32 b,
                                     ZD_LOCAL zd_mp_exec_lds *lds, ZD_LOCAL zd_u8 *win, ZD_LOCAL zd_i32 *jump,
                                     ZD_LOCAL zd_u32 *written, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                     ZD_GLOBAL zd_u32 *refs) {
    if (flags & ZD_MPX_F_WIN)
        return zd_mp_exec_seqs_in(src, dst, scratch, dst_len, src_len, blk, b, lds, (zd_u8 *)win, jump, written, flags,
                                  taint, refs);
    return zd_mp_exec_seqs_in(src, dst, scratch, dst_len, src_len, blk, b, lds, (zd_u8 *)(dst + blk[b].out_at), jump,
                              written, flags & ~ZD_MPX_F_DEFER, taint, refs);
}

/* Pass 3, cooperative: block `b` of a chunk in ZD_MP_MODE_RUN, then its done flag. */
ZD_FUNC void zd_mp_exec_block_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len,
                                    ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_mp_exec_lds *lds,
                                    ZD_LOCAL zd_u8 *win, ZD_LOCAL zd_i32 *jump, ZD_LOCAL zd_u32 *written,
                                    zd_u32 flags, ZD_LOCAL zd_u32 *taint, ZD_GLOBAL zd_u32 *refs) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    ZD_GLOBAL zd_mp_block *bk = blk + b;
    zd_u32 type = bk->type;
    zd_u32 fail = 0u;
    if (type == 0u) {
        zd_copy_group(dst + bk->out_at, src + bk->in, bk->out_len);
    } else if (type == 1u) {
        ZD_GLOBAL zd_u8 *to = dst + bk->out_at;
        zd_u8 v = src[bk->in];
        for (zd_u32 i = zd_local_id(); i < bk->out_len; i += zd_local_size()) to[i] = v;
    } else {
        fail = zd_mp_exec_seqs_group(src, dst, scratch, dst_len, src_len, blk, b, lds, win, jump, written, flags, taint,
                                     refs);
    }
    zd_fence();
    ZD_BARRIER();
    if (zd_local_id() == 0u) {
        if (fail) hdr->failed = 1u;
        zd_store_flag(&bk->done, 1u);
    }
}

/*
 * Pass 3, cooperative, persistent: takes tickets until the batch's blocks are all executed.
 * Ticket t is block t / n of chunk t % n. chunk(c) gives (src, src_len, dst, dst_len, scratch) of
 * chunk c through the arrays. `win`: ZD_ZSTD_BLOCK_MAX bytes of local memory to build each block
 * in, or NULL (see zd_mp_exec_seqs_group).
 */
ZD_FUNC void zd_zstd_mp_exec_group(const ZD_GLOBAL zd_u8 *src, const ZD_GLOBAL zd_u64 *src_offsets,
                                   const ZD_GLOBAL zd_u64 *src_sizes, ZD_GLOBAL zd_u8 *dst,
                                   const ZD_GLOBAL zd_u64 *dst_offsets, const ZD_GLOBAL zd_u64 *dst_sizes,
                                   ZD_GLOBAL zd_u8 *scratch, const ZD_GLOBAL zd_u64 *scratch_offsets, zd_u32 n,
                                   ZD_LOCAL zd_mp_exec_lds *lds, ZD_LOCAL zd_u8 *win, ZD_LOCAL zd_i32 *jump,
                                   ZD_LOCAL zd_u32 *written, zd_u32 flags, ZD_LOCAL zd_u32 *taint,
                                   ZD_GLOBAL zd_u32 *refs, const ZD_GLOBAL zd_u64 *ref_offsets) {
    ZD_GLOBAL zd_mp_hdr *ctl = (ZD_GLOBAL zd_mp_hdr *)(scratch + scratch_offsets[0]);
    if (!(flags & ZD_MPX_F_WIN)) flags &= ~ZD_MPX_F_DEFER;
    zd_u64 total = (zd_u64)n * ctl->max_blocks;
    if (!(flags & ZD_MPX_F_JUMP)) jump = NULL;
    for (;;) {
        if (zd_local_id() == 0u) lds->ticket = zd_atomic_add_u32(&ctl->ticket, 1u);
        ZD_BARRIER();
        zd_u64 t = lds->ticket;
        ZD_BARRIER();
        if (t >= total) return;
        zd_u32 c = (zd_u32)(t % n), b = (zd_u32)(t / n);
        ZD_GLOBAL zd_u8 *sc = scratch + scratch_offsets[c];
        ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)sc;
        if (hdr->mode != ZD_MP_MODE_RUN || b >= hdr->n_blocks) continue;
        zd_mp_exec_block_group(src + src_offsets[c], src_sizes[c], dst + dst_offsets[c], dst_sizes[c], sc, b, lds,
                               win, jump, written, flags, taint,
                               (flags & ZD_MPX_F_DEFER) ? refs + ref_offsets[c] : (ZD_GLOBAL zd_u32 *)0);
    }
}

/* Gathers a pass-3b step takes in flight per item. */
#define ZD_MPR_ILP 16u

/*
 * Pass 3b, cooperative, persistent, after a ZD_MPX_F_DEFER pass 3: the bytes that pass 3 left with
 * a ref in `refs` (chunk c's at ref_offsets[c], a u32 per byte) copy the byte their ref names,
 * block after block: a ref names a byte of an earlier block, final by then (written by pass 3, or
 * here for an earlier block). Work comes in tickets (ctl->seq_ticket, which link zeroed): ticket t
 * is slice t % parts of block t / parts / n of chunk t / parts % n, block index major; a slice
 * waits until every slice of its chunk's earlier blocks is done (hdr->resolved counts them). Those
 * have earlier tickets, taken by groups that are running, so the wait ends whatever the grid and
 * whatever else shares the device. Slices of one block, several groups: one multiprocessor
 * gathered a 66 MB ERA5 frame's 512 blocks in 13 ms, ~26 us a block. Bytes of earlier blocks are
 * read past L1 (other groups wrote them). A chunk with a failed block is left to pass 4's
 * fallback, and so is one whose refs do not point back (they come from pass 3, so that is a bug,
 * never the data: the fallback keeps the output right and memory safe).
 */
ZD_FUNC void zd_zstd_mp_resolve_group(ZD_GLOBAL zd_u8 *dst, const ZD_GLOBAL zd_u64 *dst_offsets,
                                      ZD_GLOBAL zd_u8 *scratch, const ZD_GLOBAL zd_u64 *scratch_offsets,
                                      const ZD_GLOBAL zd_u32 *refs, const ZD_GLOBAL zd_u64 *ref_offsets, zd_u32 n,
                                      zd_u32 parts, ZD_LOCAL zd_u32 *ticket) {
    ZD_GLOBAL zd_mp_hdr *ctl = (ZD_GLOBAL zd_mp_hdr *)(scratch + scratch_offsets[0]);
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 total = (zd_u64)n * ctl->max_blocks * parts;
    for (;;) {
        if (lid == 0u) *ticket = zd_atomic_add_u32(&ctl->seq_ticket, 1u);
        ZD_BARRIER();
        zd_u64 t = *ticket;
        ZD_BARRIER();
        if (t >= total) return;
        zd_u32 part = (zd_u32)(t % parts), c = (zd_u32)(t / parts % n), q = (zd_u32)(t / parts / n);
        ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)(scratch + scratch_offsets[c]);
        if (q > 0u) {
            if (lid == 0u) {
                while (zd_load_flag(&hdr->resolved) < q * parts) zd_spin_pause();
                zd_fence();
            }
            ZD_BARRIER();
        }
        const ZD_GLOBAL zd_mp_block *bk = (const ZD_GLOBAL zd_mp_block *)(scratch + scratch_offsets[c] + ZD_MP_HDR_BYTES) + q;
        zd_u32 bad = 0u;
        if (hdr->mode == ZD_MP_MODE_RUN && !zd_load_flag(&hdr->failed) && q < hdr->n_blocks && bk->type == 2u) {
            ZD_GLOBAL zd_u8 *d = dst + dst_offsets[c];
            const ZD_GLOBAL zd_u32 *rf = refs + ref_offsets[c];
            zd_u64 at = bk->out_at;
            zd_u32 len = bk->out_len - (bk->regen - bk->lit_used); /* the trailing literals have no refs */
            zd_u32 vid = part * ls + lid, vs = parts * ls;         /* the item in the block's virtual group */
            for (zd_u32 x0 = vid; x0 < len; x0 += ZD_MPR_ILP * vs) {
                zd_u32 r[ZD_MPR_ILP];
                zd_u8 v[ZD_MPR_ILP];
                ZD_UNROLL
                for (zd_u32 k = 0; k < ZD_MPR_ILP; k++) r[k] = x0 + k * vs < len ? rf[at + x0 + k * vs] : ZD_MP_REF_NONE;
                ZD_UNROLL
                for (zd_u32 k = 0; k < ZD_MPR_ILP; k++) {
                    if (r[k] != ZD_MP_REF_NONE && r[k] >= at) {
                        bad = 1u;
                        r[k] = ZD_MP_REF_NONE;
                    }
                    v[k] = r[k] != ZD_MP_REF_NONE ? zd_ld_cg_u8(d + r[k]) : (zd_u8)0u;
                }
                ZD_UNROLL
                for (zd_u32 k = 0; k < ZD_MPR_ILP; k++)
                    if (r[k] != ZD_MP_REF_NONE) d[at + x0 + k * vs] = v[k];
            }
        }
        if (bad) hdr->failed = 1u;
        ZD_BARRIER();
        if (lid == 0u) {
            zd_fence(); /* the slice's bytes before its count */
            zd_atomic_add_u32(&hdr->resolved, 1u);
        }
    }
}

/*
 * Pass 4, cooperative: the chunk's status. A chunk executed by pass 3 only needs its checksum
 * checked; any other is decoded again by the single-pass decoder.
 */
ZD_FUNC zd_u32 zd_zstd_mp_finish_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst,
                                       zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_u8 *lit = scratch + zd_zstd_mp_lit_off(dst_len, src_len);
    zd_u32 lid = zd_local_id();
    if (hdr->mode == ZD_MP_MODE_RUN && !hdr->failed) {
        if (!hdr->has_checksum) return ZD_STATUS_OK;
        for (zd_u32 lane = lid; lane < 4u; lane += zd_local_size())
            lds->xxh_acc[lane] = zd_xxh64_lane_thread(dst, dst_len, lane);
        ZD_BARRIER();
        if (lid == 0u) {
            zd_u64 h = zd_xxh64_finish_thread(dst, dst_len, lds->xxh_acc[0], lds->xxh_acc[1], lds->xxh_acc[2],
                                              lds->xxh_acc[3]);
            lds->status = (zd_u32)h == (zd_u32)zd_load_le_thread(src, src_len, hdr->cksum_at, 4u)
                              ? ZD_STATUS_OK
                              : ZD_STATUS_CORRUPT_CHECKSUM;
        }
        ZD_BARRIER();
        zd_u32 status = lds->status;
        ZD_BARRIER();
        if (status == ZD_STATUS_OK) return status;
    }
    ZD_BARRIER();
    if (lid == 0u) hdr->mode = ZD_MP_MODE_FALLBACK; /* visible to the caller (tests count fallbacks) */
    return zd_zstd_decode_frame_group(src, src_len, dst, dst_len, lit, zd_zstd_mp_lit_bytes(dst_len), lds);
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
