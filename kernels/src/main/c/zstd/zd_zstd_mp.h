/*
 * zd_zstd_mp.h - multi-pass, block-parallel decoding of large zstd frames (RFC 8878).
 *
 * The single-pass decoder (zd_zstd_frame.h) gives one work-group to a whole frame, so a batch
 * of a few large frames leaves the device idle. Here the entropy work of a frame is spread
 * over one work-group per BLOCK:
 *
 *   Pass 1  zd_zstd_mp_scan_group       one group per chunk, item 0: walks the frame header and
 *           every block header; for compressed blocks it parses the literals section header and
 *           the Huffman / FSE table descriptions (to find where each section ends) and records,
 *           per block, where its Huffman table and each of its three FSE tables are DESCRIBED
 *           (the block that defined them: treeless literals and repeat modes inherit), where
 *           its literals and its sequence bitstream start, and where its decoded literals and
 *           sequences go in scratch (running sums over the frame).
 *   Pass 2  zd_zstd_mp_entropy_group    one group per block slot: rebuilds the block's tables
 *           from those descriptions, decodes its Huffman streams (one item per stream) into
 *           the chunk's literal region, and decodes its sequences (item 0) into
 *           (litLen, matchLen, offsetValue) triples in the sequence region.
 *   Pass 3  zd_zstd_mp_exec_group       one group per chunk: item 0 walks the blocks in frame
 *           order, resolves repeat offsets, checks every length, offset and size, and hands
 *           the group batches of sequences, copies and fills to execute (the single-pass
 *           executor, zd_zstd_execute_group); then the XXH64 checksum.
 *
 * Fallback: any chunk that is not exactly one zstd frame, that needs more block slots or
 * sequence scratch than its layout provides, or in which any pass finds an error, is decoded
 * again from scratch by zd_zstd_decode_frame_group inside pass 3. Invalid input therefore gets
 * exactly the single-pass status, and the multi-pass code only has to be right on valid frames
 * and safe (in bounds) on every input.
 *
 * Scratch per chunk (caller-owned, ZD_GLOBAL, 8-byte aligned offsets), for dst_len D:
 *   slots(D,S) = min(D / ZD_MP_BYTES_PER_SLOT, S / 3) + 16  (S: src_len)  block table entries
 *   max_seq(D) = D / ZD_MP_BYTES_PER_SEQ + 1024                        sequences
 *   lit(D)     = round8(max(D, ZD_ZSTD_SCRATCH_PER_FRAME))             decoded literals
 *   bytes(D,S) = 64 + slots(D,S) * sizeof(zd_mp_block) + lit(D) + 12 * max_seq(D)
 * (zd_zstd_mp_scratch_bytes). The literal region doubles as the single-pass scratch when the
 * chunk falls back. Pass 2's grid is the sum of slots(D) over the chunks; slot_base[c] is the
 * first global slot of chunk c (slot_base[n] = total).
 */
#ifndef ZD_ZSTD_MP_H
#define ZD_ZSTD_MP_H

#include "zd_portable.h"
#include "zstd/zd_zstd_frame.h"

#define ZD_MP_BYTES_PER_SLOT 2048u /* block table entries: one per 2 KiB of output or 3 input bytes (+16) */
#define ZD_MP_BYTES_PER_SEQ 3u     /* sequence scratch: one per 3 output bytes (+1024), enough for any valid frame */
#define ZD_MP_HDR_BYTES 64u

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
    zd_u32 pad;
} zd_mp_block;

/* Per-chunk header at the start of its scratch. */
typedef struct {
    zd_u32 mode;     /* ZD_MP_MODE_* */
    zd_u32 n_blocks;
    zd_u32 has_checksum, has_fcs;
    zd_u64 fcs;      /* declared content size when has_fcs */
    zd_u64 block_max;
    zd_u64 cksum_at; /* checksum offset in src */
    zd_u64 pad[3];
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

/*
 * Pass 1, item 0 of the chunk's group: fills the chunk header and block table. Returns
 * ZD_MP_MODE_RUN or ZD_MP_MODE_FALLBACK.
 */
ZD_FUNC zd_u32 zd_zstd_mp_scan_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                      ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    zd_u64 slots = zd_zstd_mp_slots(dst_len, src_len);
    zd_u64 lit_cap = zd_zstd_mp_lit_bytes(dst_len);
    zd_u64 seq_cap = zd_zstd_mp_max_seq(dst_len);
    if (src_len < 6u) return ZD_MP_MODE_FALLBACK;
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
        if (wlog > ZD_MAX_WINDOW_LOG) return ZD_MP_MODE_FALLBACK;
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
    zd_u64 lit_cur = 0, seq_cur = 0;
    zd_u32 nb = 0;
    zd_u32 huf_ok = 0u;
    zd_u64 huf_desc = 0;
    zd_u32 tab_ok = 0u, tab_mode = 0u;
    zd_u64 tab_desc[3] = {0u, 0u, 0u};
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
        zd_mp_block b;
        b.in = p;
        b.size = (zd_u32)size;
        b.type = type;
        b.lit_in = 0u;
        b.lit_at = 0u;
        b.seq_at = seq_cur;
        b.huf_desc = huf_desc;
        b.bits_at = 0u;
        b.regen = 0u;
        b.nseq = 0u;
        b.lit_type = 0u;
        b.lit_len = 0u;
        b.nstreams = 0u;
        b.tab_mode = 0u;
        b.status = ZD_STATUS_OK;
        b.pad = 0u;
        for (zd_u32 k = 0; k < 3u; k++) b.tab_desc[k] = 0u;
        if (type == 1u) {
            if (src_len - p < 1u) return ZD_MP_MODE_FALLBACK;
            p += 1u;
        } else {
            if (src_len - p < size) return ZD_MP_MODE_FALLBACK;
            if (type == 2u) {
                zd_u64 end = p + size;
                zd_u32 lt = 0, hl = 0, ns = 0;
                zd_u64 regen = 0, cs = 0;
                if (zd_mp_lit_header_thread(src, src_len, p, end, block_max, &lt, &hl, &regen, &cs, &ns) !=
                    ZD_STATUS_OK)
                    return ZD_MP_MODE_FALLBACK;
                zd_u64 lp = p + hl;
                b.regen = (zd_u32)regen;
                b.lit_in = lp;
                if (lt == 0u) {
                    b.lit_type = 0u;
                    b.lit_at = lp;
                } else {
                    b.lit_type = lt == 1u ? 1u : 2u;
                    b.lit_at = lit_cur;
                    lit_cur += regen;
                    if (lit_cur > lit_cap) return ZD_MP_MODE_FALLBACK;
                }
                if (lt >= 2u) {
                    zd_u64 rem = cs;
                    if (lt == 2u) {
                        zd_u32 mb = 0;
                        zd_u64 used = 0;
                        if (zd_huf_read_table_thread(src + lp, rem, lds->huf[0], lds->weights, lds->hufw, lds->norm,
                                                     lds->next, &mb, &used) != ZD_STATUS_OK)
                            return ZD_MP_MODE_FALLBACK;
                        huf_desc = lp;
                        huf_ok = 1u;
                        lp += used;
                        rem -= used;
                    } else if (!huf_ok) {
                        return ZD_MP_MODE_FALLBACK;
                    }
                    b.huf_desc = huf_desc;
                    b.lit_in = lp;
                    b.lit_len = (zd_u32)rem;
                    b.nstreams = ns;
                    if (ns == 4u) {
                        if (rem < 10u) return ZD_MP_MODE_FALLBACK;
                        zd_u64 s1 = zd_load_le_thread(src, src_len, lp, 2u);
                        zd_u64 s2 = zd_load_le_thread(src, src_len, lp + 2u, 2u);
                        zd_u64 s3 = zd_load_le_thread(src, src_len, lp + 4u, 2u);
                        if (6u + s1 + s2 + s3 >= rem) return ZD_MP_MODE_FALLBACK;
                        zd_u64 seg = (regen + 3u) / 4u;
                        if (3u * seg > regen) return ZD_MP_MODE_FALLBACK;
                    }
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
                        if (m == 3u) {
                            if ((tab_ok & (1u << k)) == 0u) return ZD_MP_MODE_FALLBACK;
                            continue;
                        }
                        zd_u64 used = 0;
                        if (m == 1u) {
                            if (s >= end) return ZD_MP_MODE_FALLBACK;
                            used = 1u;
                        } else if (m == 2u) {
                            zd_u32 log = 0, nsym = 0;
                            zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
                            zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
                            if (zd_fse_read_ncount_thread(src + s, end - s, max_sym, max_log, lds->norm, &log, &nsym,
                                                          &used) != ZD_STATUS_OK)
                                return ZD_MP_MODE_FALLBACK;
                        }
                        tab_desc[k] = s;
                        tab_mode = (tab_mode & ~(3u << (2u * k))) | (m << (2u * k));
                        tab_ok |= 1u << k;
                        s += used;
                    }
                    if (s >= end) return ZD_MP_MODE_FALLBACK;
                    b.tab_mode = tab_mode;
                    for (zd_u32 k = 0; k < 3u; k++) b.tab_desc[k] = tab_desc[k];
                    b.bits_at = s;
                    b.seq_at = seq_cur;
                    seq_cur += nseq;
                    if (seq_cur > seq_cap) return ZD_MP_MODE_FALLBACK;
                }
            }
            p += size;
        }
        blk[nb] = b;
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
    return ZD_MP_MODE_RUN;
}

/* Pass 1, cooperative wrapper: every item calls. */
ZD_FUNC void zd_zstd_mp_scan_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                   ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    if (zd_local_id() == 0u) {
        zd_u32 m = zd_zstd_mp_scan_thread(src, src_len, dst_len, scratch, lds);
        ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
        hdr->mode = m;
        if (m != ZD_MP_MODE_RUN) hdr->n_blocks = 0u;
    }
}

/* Builds the FSE table of kind k (0 LL, 1 OF, 2 ML) from its recorded description. */
ZD_FUNC zd_u32 zd_mp_build_fse_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u32 k, zd_u32 mode, zd_u64 at,
                                      zd_u64 end, ZD_LOCAL zd_zstd_lds *lds, zd_u32 *log_out) {
    ZD_LOCAL zd_fse_cell *t = k == 0u ? lds->ll : (k == 1u ? lds->of : lds->ml);
    zd_u32 max_sym = k == 0u ? ZD_LL_MAX_SYM : (k == 1u ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
    zd_u32 max_log = k == 0u ? ZD_LL_MAX_LOG : (k == 1u ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
    zd_u32 log = 0;
    if (mode == 0u) {
        zd_u32 n = k == 0u ? 36u : (k == 1u ? 29u : 53u);
        log = k == 1u ? 5u : 6u;
        for (zd_u32 i = 0; i < n; i++)
            lds->norm[i] = k == 0u ? zd_ll_default_norm[i] : (k == 1u ? zd_of_default_norm[i] : zd_ml_default_norm[i]);
        if (zd_fse_build_thread(t, lds->norm, n, log, lds->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    } else if (mode == 1u) {
        if (at >= src_len) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_u32 sym = src[at];
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_fse_build_rle_thread(t, sym);
    } else {
        zd_u32 nsym = 0;
        zd_u64 used = 0;
        if (at >= end) return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_read_ncount_thread(src + at, end - at, max_sym, max_log, lds->norm, &log, &nsym, &used) !=
            ZD_STATUS_OK)
            return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fse_build_thread(t, lds->norm, nsym, log, lds->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    }
    *log_out = log;
    return ZD_STATUS_OK;
}

/*
 * Pass 2, cooperative: decodes block `b` of a chunk (literals and sequences) into scratch.
 * Every item calls with the same arguments. Writes blk->status.
 */
ZD_FUNC void zd_zstd_mp_entropy_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 dst_len,
                                      ZD_GLOBAL zd_u8 *scratch, zd_u32 b, ZD_LOCAL zd_zstd_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    if (hdr->mode != ZD_MP_MODE_RUN || b >= hdr->n_blocks) return;
    ZD_GLOBAL zd_mp_block *blk = (ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES) + b;
    if (blk->type != 2u) return;
    ZD_GLOBAL zd_u8 *lit = scratch + zd_zstd_mp_lit_off(dst_len, src_len);
    ZD_GLOBAL zd_u32 *seqs = (ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len));
    zd_u32 lid = zd_local_id();
    zd_u32 ls = zd_local_size();
    zd_u64 end = blk->in + blk->size;
    zd_u32 regen = blk->regen;
    if (lid == 0u) {
        lds->status = ZD_STATUS_OK;
        lds->hs_count = 0u;
        if (blk->lit_type == 2u) {
            zd_u32 mb = 0;
            zd_u64 used = 0;
            zd_u64 hd = blk->huf_desc;
            zd_u32 s = hd < src_len ? zd_huf_read_table_thread(src + hd, src_len - hd, lds->huf[0], lds->weights,
                                                               lds->hufw, lds->norm, lds->next, &mb, &used)
                                    : ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
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
    ZD_BARRIER();
    if (blk->lit_type == 2u) {
        for (zd_u32 k = lid; k < lds->hs_count; k += ls) {
            lds->hs_status[k] = zd_huf_decode_stream_thread(lds->huf[0], lds->op_byte, src + lds->hs_in[k],
                                                            lds->hs_len[k], lit + lds->hs_out[k], lds->hs_n[k]);
        }
    } else if (blk->lit_type == 1u) {
        zd_u8 v = (zd_u8)lds->op_byte;
        ZD_GLOBAL zd_u8 *to = lit + blk->lit_at;
        for (zd_u32 i = lid; i < regen; i += ls) to[i] = v;
    }
    ZD_BARRIER();
    if (lid != 0u) return;
    zd_u32 status = lds->status;
    if (status == ZD_STATUS_OK && blk->lit_type == 2u) {
        for (zd_u32 k = 0; k < lds->hs_count; k++)
            if (lds->hs_status[k] != ZD_STATUS_OK) status = lds->hs_status[k];
    }
    zd_u32 nseq = blk->nseq;
    if (status == ZD_STATUS_OK && nseq > 0u) {
        zd_u32 logs[3] = {0u, 0u, 0u};
        for (zd_u32 k = 0; k < 3u && status == ZD_STATUS_OK; k++)
            status = zd_mp_build_fse_thread(src, src_len, k, (blk->tab_mode >> (2u * k)) & 3u, blk->tab_desc[k],
                                            src_len, lds, &logs[k]);
        zd_bwdf_bits br;
        if (status == ZD_STATUS_OK && zd_bwdf_init_thread(&br, src + blk->bits_at, end - blk->bits_at) != 0)
            status = ZD_STATUS_CORRUPT_SEQUENCES;
        if (status == ZD_STATUS_OK) {
            zd_u32 s_ll = zd_bwdf_read_thread(&br, logs[0]);
            zd_u32 s_of = zd_bwdf_read_thread(&br, logs[1]);
            zd_u32 s_ml = zd_bwdf_read_thread(&br, logs[2]);
            ZD_GLOBAL zd_u32 *out = seqs + 3u * blk->seq_at;
            for (zd_u32 i = 0; i < nseq; i++) {
                zd_fse_cell cl = lds->ll[s_ll];
                zd_fse_cell cm = lds->ml[s_ml];
                zd_fse_cell co = lds->of[s_of];
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
                    a -= ofc;
                    ofv = (1u << ofc) + ((zd_u32)(c >> a) & ((1u << ofc) - 1u));
                    a -= mlb;
                    ml = zd_ml_base[cm.sym] + ((zd_u32)(c >> a) & ((1u << mlb) - 1u));
                    a -= llb;
                    ll = zd_ll_base[cl.sym] + ((zd_u32)(c >> a) & ((1u << llb) - 1u));
                    out[3u * i] = ll;
                    out[3u * i + 1u] = ml;
                    out[3u * i + 2u] = ofv;
                    br.pos -= (zd_i32)(ofc + mlb + llb);
                    if (i + 1u < nseq) {
                        a -= nbl;
                        s_ll = cl.base + ((zd_u32)(c >> a) & ((1u << nbl) - 1u));
                        a -= nbm;
                        s_ml = cm.base + ((zd_u32)(c >> a) & ((1u << nbm) - 1u));
                        a -= nbo;
                        s_of = co.base + ((zd_u32)(c >> a) & ((1u << nbo) - 1u));
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
                out[3u * i] = ll;
                out[3u * i + 1u] = ml;
                out[3u * i + 2u] = ofv;
                if (i + 1u < nseq) {
                    s_ll = cl.base + zd_bwdf_read_thread(&br, nbl);
                    s_ml = cm.base + zd_bwdf_read_thread(&br, nbm);
                    s_of = co.base + zd_bwdf_read_thread(&br, nbo);
                }
            }
            if (status == ZD_STATUS_OK && br.pos != 0) status = ZD_STATUS_CORRUPT_SEQUENCES;
        }
    }
    blk->status = status;
}

/* Pass 3 executor state, private to item 0. */
typedef struct {
    zd_u32 state, b, nseq, seq_done, n_blocks, last_type;
    zd_u64 out, block_out0, block_max, frame_limit;
    zd_u64 lit_pos, lit_size, seq_at;
    zd_u32 rep1, rep2, rep3, lit_raw;
    zd_u64 lit_base;
} zd_mp_exec_state;

#define ZD_MP_S_BLOCK 0u
#define ZD_MP_S_SEQ 1u
#define ZD_MP_S_XXH 2u
#define ZD_MP_S_END 3u

#define ZD_MP_FAIL()                                                                                               \
    do {                                                                                                           \
        lds->op = ZD_OP_DONE;                                                                                      \
        lds->status = ZD_STATUS_CORRUPT_SEQUENCES;                                                                 \
        return;                                                                                                    \
    } while (0)

/* Item 0: publishes the next work order of pass 3 (ZD_OP_DONE with status OK at the end; any
   failure is ZD_OP_DONE with a non-zero status, and the chunk then falls back). */
ZD_FUNC void zd_zstd_mp_exec_step_thread(zd_mp_exec_state *st, const ZD_GLOBAL zd_u8 *src, zd_u64 src_len,
                                         ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch,
                                         ZD_LOCAL zd_zstd_lds *lds) {
    const ZD_GLOBAL zd_mp_hdr *hdr = (const ZD_GLOBAL zd_mp_hdr *)scratch;
    const ZD_GLOBAL zd_mp_block *blks = (const ZD_GLOBAL zd_mp_block *)(scratch + ZD_MP_HDR_BYTES);
    const ZD_GLOBAL zd_u32 *seqs = (const ZD_GLOBAL zd_u32 *)(scratch + zd_zstd_mp_seq_off(dst_len, src_len));
    for (;;) {
        if (st->state == ZD_MP_S_BLOCK) {
            if (st->b == st->n_blocks) {
                st->state = hdr->has_checksum ? ZD_MP_S_XXH : ZD_MP_S_END;
                if (hdr->has_checksum) {
                    lds->op = ZD_OP_XXH;
                    lds->op_a = 0u;
                    lds->op_n = st->out;
                    return;
                }
                continue;
            }
            const ZD_GLOBAL zd_mp_block *bk = blks + st->b;
            st->b++;
            zd_u64 size = bk->size;
            if (bk->type == 0u || bk->type == 1u) {
                if (size > st->frame_limit - st->out) ZD_MP_FAIL();
                lds->op = bk->type == 0u ? ZD_OP_COPY : ZD_OP_FILL;
                lds->op_flag = 0u;
                lds->op_a = bk->in;
                lds->op_b = st->out;
                lds->op_n = size;
                if (bk->type == 1u) lds->op_byte = src[bk->in];
                st->out += size;
                return;
            }
            if (bk->status != ZD_STATUS_OK) ZD_MP_FAIL();
            st->block_out0 = st->out;
            st->lit_pos = 0u;
            st->lit_size = bk->regen;
            st->lit_raw = bk->lit_type == 0u ? 1u : 0u;
            st->lit_base = bk->lit_at;
            st->nseq = bk->nseq;
            st->seq_done = 0u;
            st->seq_at = bk->seq_at;
            st->state = ZD_MP_S_SEQ;
            continue;
        }
        if (st->state == ZD_MP_S_SEQ) {
            if (st->seq_done < st->nseq) {
                zd_u32 cnt = 0;
                zd_u32 nseg = 1u;
                zd_u64 base = st->out;
                lds->seg_pos[0] = 0u;
                lds->seg_first[0] = 0u;
                zd_u64 lim = st->block_out0 + st->block_max;
                if (st->frame_limit < lim) lim = st->frame_limit;
                zd_u32 room = (zd_u32)(lim - base);
                zd_u64 hist = base;
                zd_u32 rel = 0u, wave = 0u;
                zd_u32 lit_pos = (zd_u32)st->lit_pos, lit_size = (zd_u32)st->lit_size;
                zd_u32 rep1 = st->rep1, rep2 = st->rep2, rep3 = st->rep3;
                zd_u32 left = st->nseq - st->seq_done;
                zd_u32 todo = left < ZD_SEQ_BATCH ? left : ZD_SEQ_BATCH;
                const ZD_GLOBAL zd_u32 *sq = seqs + 3u * (st->seq_at + st->seq_done);
                /* Stage the batch's (ll, ml, ofv) triples in local memory first: independent
                   loads, many in flight, instead of one global round trip per sequence. */
                for (zd_u32 i0 = 0; i0 < todo; i0 += 8u) {
                    zd_u32 v[24];
                    ZD_UNROLL
                    for (zd_u32 k = 0; k < 8u; k++) {
                        zd_u32 i = i0 + k;
                        v[3u * k] = i < todo ? sq[3u * i] : 0u;
                        v[3u * k + 1u] = i < todo ? sq[3u * i + 1u] : 0u;
                        v[3u * k + 2u] = i < todo ? sq[3u * i + 2u] : 0u;
                    }
                    ZD_UNROLL
                    for (zd_u32 k = 0; k < 8u; k++) {
                        zd_u32 i = i0 + k;
                        if (i < todo) {
                            lds->seq[i].ll = v[3u * k];
                            lds->seq[i].ml = v[3u * k + 1u];
                            lds->seq[i].off = v[3u * k + 2u];
                        }
                    }
                }
                while (cnt < todo) {
                    zd_u32 ll = lds->seq[cnt].ll, ml = lds->seq[cnt].ml, ofv = lds->seq[cnt].off;
                    zd_u32 off;
                    if (ofv > 3u) {
                        off = ofv - 3u;
                        rep3 = rep2;
                        rep2 = rep1;
                        rep1 = off;
                    } else {
                        zd_u32 idx = ofv - 1u + (ll == 0u ? 1u : 0u);
                        if (idx == 0u) {
                            off = rep1;
                        } else {
                            off = idx == 1u ? rep2 : (idx == 2u ? rep3 : rep1 - 1u);
                            if (idx != 1u) rep3 = rep2;
                            rep2 = rep1;
                            rep1 = off;
                        }
                    }
                    if (ll > lit_size - lit_pos) ZD_MP_FAIL();
                    zd_u32 total = ll + ml;
                    if (ml > ZD_ZSTD_BLOCK_MAX || total > room - rel) ZD_MP_FAIL();
                    zd_u32 m = rel + ll;
                    if (off == 0u || (zd_u64)off > hist + m) ZD_MP_FAIL();
                    zd_u32 flags = 0u;
                    zd_u64 src_end = (zd_u64)m + (ml < off ? ml : off);
                    if (src_end > (zd_u64)wave + off) {
                        if (src_end <= (zd_u64)rel + off) {
                            flags = ZD_SEQ_WAVE;
                            wave = rel;
                        } else {
                            flags = ZD_SEQ_MID;
                            wave = m;
                        }
                        lds->seg_pos[nseg] = wave;
                        lds->seg_first[nseg] = (zd_u16)cnt;
                        nseg++;
                    }
                    lds->seq[cnt].lit_off = lit_pos;
                    lds->seq[cnt].ll = ll | flags;
                    lds->seq[cnt].ml = ml;
                    lds->seq[cnt].off = off;
                    lds->seq[cnt].out_rel = rel;
                    cnt++;
                    rel += total;
                    lit_pos += ll;
                }
                st->seq_done += cnt;
                st->out = base + rel;
                st->lit_pos = lit_pos;
                st->rep1 = rep1;
                st->rep2 = rep2;
                st->rep3 = rep3;
                lds->op = ZD_OP_SEQS;
                lds->seq_count = cnt;
                lds->seg_count = nseg;
                lds->seq_bytes = rel;
                lds->seq_base = base;
                lds->lit_base = st->lit_base;
                lds->lit_from_scratch = st->lit_raw ? 0u : 1u;
                return;
            }
            zd_u64 n = st->lit_size - st->lit_pos;
            st->state = ZD_MP_S_BLOCK;
            if (n == 0u) continue;
            if (n > st->frame_limit - st->out || n > st->block_out0 + st->block_max - st->out) ZD_MP_FAIL();
            lds->op = ZD_OP_COPY;
            lds->op_flag = st->lit_raw ? 0u : 1u;
            lds->op_a = st->lit_base + st->lit_pos;
            lds->op_b = st->out;
            lds->op_n = n;
            st->out += n;
            st->lit_pos += n;
            return;
        }
        if (st->state == ZD_MP_S_XXH) {
            zd_u64 h = zd_xxh64_finish_thread(dst, st->out, lds->xxh_acc[0], lds->xxh_acc[1], lds->xxh_acc[2],
                                              lds->xxh_acc[3]);
            zd_u32 stored = (zd_u32)zd_load_le_thread(src, src_len, hdr->cksum_at, 4u);
            if ((zd_u32)h != stored) ZD_MP_FAIL();
            st->state = ZD_MP_S_END;
            continue;
        }
        /* ZD_MP_S_END */
        lds->op = ZD_OP_DONE;
        lds->status = st->out == dst_len ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
        return;
    }
}
#undef ZD_MP_FAIL

/*
 * Pass 3, cooperative: executes a chunk scanned by pass 1 and decoded by pass 2, or decodes it
 * with the single-pass decoder when it fell back (or fails here). Returns the chunk's status on
 * every item.
 */
ZD_FUNC zd_u32 zd_zstd_mp_exec_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst,
                                     zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    ZD_GLOBAL zd_mp_hdr *hdr = (ZD_GLOBAL zd_mp_hdr *)scratch;
    ZD_GLOBAL zd_u8 *lit = scratch + zd_zstd_mp_lit_off(dst_len, src_len);
    zd_u32 lid = zd_local_id();
    zd_u32 mode = hdr->mode;
    zd_u32 status = ZD_STATUS_CORRUPT_SEQUENCES;
    if (mode == ZD_MP_MODE_RUN) {
        zd_mp_exec_state st;
        st.state = ZD_MP_S_BLOCK;
        st.b = 0u;
        st.n_blocks = hdr->n_blocks;
        st.out = 0u;
        st.block_max = hdr->block_max;
        st.frame_limit = dst_len;
        st.rep1 = 1u;
        st.rep2 = 4u;
        st.rep3 = 8u;
        st.nseq = 0u;
        st.seq_done = 0u;
        st.lit_pos = 0u;
        st.lit_size = 0u;
        st.lit_raw = 0u;
        st.lit_base = 0u;
        st.seq_at = 0u;
        for (;;) {
            if (lid == 0u) zd_zstd_mp_exec_step_thread(&st, src, src_len, dst, dst_len, scratch, lds);
            ZD_BARRIER();
            zd_u32 op = lds->op;
            if (op == ZD_OP_DONE) break;
            zd_zstd_execute_group(op, src, dst, lit, lds);
            ZD_BARRIER();
        }
        status = lds->status;
        ZD_BARRIER();
    }
    if (status == ZD_STATUS_OK) return status;
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
