/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zstd_frame.h - zstd frame decoding by one work-group (RFC 8878).
 *
 * Design (first version, correctness first):
 *   - Item 0 runs a resumable parser, zd_zstd_step_thread(), which does all entropy work
 *     serially (headers, FSE/Huffman tables, sequence decoding) and then publishes one work
 *     order in local memory: copy, fill, Huffman-stream decode, execute a batch of up to
 *     ZD_SEQ_BATCH sequences, or XXH64 lanes.
 *   - Every item then executes the order cooperatively (zd_zstd_execute_group). Two barriers
 *     per order keep control flow uniform.
 *   - Sequence batches are executed in "waves": item 0 marks where a match reads bytes
 *     written earlier in the same batch, and only there do items meet at a barrier.
 *   - Huffman: the (1 or 4) streams are decoded by different items in parallel.
 *
 * Safety: every input read is checked against src_len (and against the current block),
 * every output write against dst_len (and the frame's declared content size), every scratch
 * write against scratch_len. A bad frame stops with a ZD_STATUS_CORRUPT_* status.
 *
 * Memory:
 *   local:  sizeof(zd_zstd_lds) = ZD_ZSTD_LDS_BYTES (about 25 KiB with ZD_SEQ_BATCH 256 and
 *           ZD_LIT_AHEAD 2: three Huffman tables), checked below to be <= 48 KiB.
 *   global: ZD_ZSTD_SCRATCH_PER_FRAME bytes (256 KiB) per frame: the literals of ZD_LIT_AHEAD
 *           blocks.
 */
#ifndef ZD_ZSTD_FRAME_H
#define ZD_ZSTD_FRAME_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "zstd/zd_bits.h"
#include "zstd/zd_fse.h"
#include "zstd/zd_huf.h"
#include "zstd/zd_xxh64.h"

#define ZD_ZSTD_MAGIC 0xFD2FB528u
#define ZD_ZSTD_SKIPPABLE_MASK 0xFFFFFFF0u
#define ZD_ZSTD_SKIPPABLE_MAGIC 0x184D2A50u
#define ZD_ZSTD_BLOCK_MAX (128u * 1024u)
/* Largest valid number of sequences in one block: each produces at least 3 bytes. */
#define ZD_ZSTD_MAX_SEQUENCES (ZD_ZSTD_BLOCK_MAX / 3u)
#ifndef ZD_MAX_WINDOW_LOG
#define ZD_MAX_WINDOW_LOG 31u
#endif
#ifndef ZD_SEQ_BATCH
#define ZD_SEQ_BATCH 256u
#endif
/* Compressed literals of up to ZD_LIT_AHEAD consecutive blocks are decoded by one work order
   (4 streams each, one item per stream). */
#ifndef ZD_LIT_AHEAD
#define ZD_LIT_AHEAD 2u
#endif
#define ZD_HUF_SLOTS (ZD_LIT_AHEAD + 1u) /* Huffman tables in local memory: a ring */
#define ZD_HS_MAX (4u * ZD_LIT_AHEAD)
/* Global scratch each frame needs (caller-owned, scratch_per_frame in the batch kernel):
   ZD_LIT_AHEAD literal buffers of one block each. */
#define ZD_ZSTD_SCRATCH_PER_FRAME ((zd_u64)ZD_LIT_AHEAD * ZD_ZSTD_BLOCK_MAX)

/* A frame header (RFC 8878 3.1.1.1): what the single-pass decoder below and the multi-pass scan
   (zd_zstd_mp_scan.h) read of it, through the one parser that follows. */
typedef struct {
    zd_u64 window; /* window size; a single-segment frame's is its content size */
    zd_u64 fcs;    /* frame content size (0 when the header has none) */
    zd_u64 end;    /* offset just past the header */
    zd_u32 has_fcs, has_checksum;
    zd_u32 wlog; /* the window descriptor's exponent; 0 for a single-segment frame */
} zd_zstd_fhdr;

/* Parses the header of the frame whose magic number (checked by the caller) is at src[at]:
   ZD_STATUS_OK, or the first check that fails, in this order: TRUNCATED (no descriptor),
   RESERVED_BIT, TRUNCATED (fields), WINDOW_TOO_LARGE, DICTIONARY_NOT_SUPPORTED. Per item. */
ZD_INLINE zd_u32 zd_zstd_frame_header_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 at,
                                             zd_zstd_fhdr *f) {
    if (src_len - at < 5u) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u32 fhd = src[at + 4u];
    zd_u32 fcs_flag = fhd >> 6;
    zd_u32 single = (fhd >> 5) & 1u;
    zd_u32 did_flag = fhd & 3u;
    if ((fhd >> 3) & 1u) return ZD_STATUS_CORRUPT_RESERVED_BIT;
    zd_u32 did_size = did_flag == 3u ? 4u : did_flag;
    zd_u32 fcs_size = fcs_flag == 0u ? single : (1u << fcs_flag);
    zd_u64 hdr = 5u + (single ? 0u : 1u) + did_size + fcs_size;
    if (src_len - at < hdr) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u64 p = at + 5u;
    f->window = 0u;
    f->wlog = 0u;
    if (!single) {
        zd_u32 wd = src[p++];
        zd_u32 wlog = 10u + (wd >> 3);
        if (wlog > ZD_MAX_WINDOW_LOG) return ZD_STATUS_CORRUPT_WINDOW_TOO_LARGE;
        f->wlog = wlog;
        f->window = ((zd_u64)1 << wlog) + (((zd_u64)1 << wlog) >> 3) * (wd & 7u);
    }
    zd_u64 did = zd_load_le_thread(src, src_len, p, did_size);
    p += did_size;
    if (did != 0u) return ZD_STATUS_CORRUPT_DICTIONARY_NOT_SUPPORTED;
    zd_u64 fcs = zd_load_le_thread(src, src_len, p, fcs_size);
    if (fcs_size == 2u) fcs += 256u;
    p += fcs_size;
    if (single) f->window = fcs;
    f->fcs = fcs;
    f->has_fcs = fcs_size != 0u;
    f->has_checksum = (fhd >> 2) & 1u;
    f->end = p;
    return ZD_STATUS_OK;
}

typedef struct {
    zd_u32 lit_off; /* first literal in the block's literal buffer */
    zd_u32 ll;      /* literal length | ZD_SEQ_WAVE | ZD_SEQ_MID */
    zd_u32 ml;      /* match length */
    zd_u32 off;     /* resolved offset (>= 1) */
    zd_u32 out_rel; /* output position relative to zd_zstd_lds.seq_base */
} zd_seq;
#define ZD_SEQ_WAVE 0x80000000u /* barrier before this sequence */
#define ZD_SEQ_MID 0x40000000u  /* barrier between its literal copy and its match copy */
#define ZD_SEQ_LL_MASK 0x3FFFFFFFu

#define ZD_OP_DONE 0u
#define ZD_OP_COPY 1u /* op_n bytes from (op_flag ? scratch : src)[op_a] to dst[op_b] */
#define ZD_OP_FILL 2u /* op_n bytes op_byte at (op_flag ? scratch : dst)[op_b] */
#define ZD_OP_HUF 3u  /* decode hs_count Huffman streams into scratch (or dst) */
#define ZD_OP_SEQS 4u /* execute seq[0..seq_count) */
#define ZD_OP_XXH 5u  /* xxh_acc[lane] over dst[op_a .. op_a + op_n) */

/* Work-group local scratch. */
typedef struct {
    zd_fse_cell ll[1u << ZD_LL_MAX_LOG];
    zd_fse_cell ml[1u << ZD_ML_MAX_LOG];
    zd_fse_cell of[1u << ZD_OF_MAX_LOG];
    zd_fse_cell hufw[1u << ZD_HUFW_MAX_LOG];
    zd_huf_cell huf[ZD_HUF_SLOTS][ZD_HUF_TABLE_SIZE];
    zd_seq seq[ZD_SEQ_BATCH];
    zd_u32 seg_pos[ZD_SEQ_BATCH + 1u];   /* segment k starts at output seq_base + seg_pos[k] */
    zd_u16 seg_first[ZD_SEQ_BATCH + 1u]; /* ... inside sequence seg_first[k] */
    zd_i16 norm[ZD_FSE_MAX_SYMBOLS];
    zd_u16 next[ZD_FSE_MAX_SYMBOLS];
    zd_u8 weights[256];
    zd_u64 op_a, op_b, op_n;
    zd_u64 hs_in[ZD_HS_MAX], hs_len[ZD_HS_MAX], hs_out[ZD_HS_MAX], hs_n[ZD_HS_MAX];
    zd_u64 seq_base, lit_base;
    zd_u64 xxh_acc[4];
    zd_u32 op, op_flag, op_byte, status;
    zd_u32 hs_status[ZD_HS_MAX];
    zd_u8 hs_tab[ZD_HS_MAX], hs_bits[ZD_HS_MAX], hs_dst[ZD_HS_MAX];
    zd_u32 hs_count, seq_count, lit_from_scratch;
    zd_u32 seg_count, seq_bytes;
} zd_zstd_lds;

#define ZD_ZSTD_LDS_BYTES ((zd_u64)sizeof(zd_zstd_lds))
ZD_STATIC_ASSERT(sizeof(zd_zstd_lds) <= 48u * 1024u, zd_zstd_lds_fits_48k);

/* Parser state, private to item 0. */
typedef struct {
    zd_u32 state, frames;
    zd_u64 in, out;
    zd_u64 frame_out0, frame_limit, block_max, block_end, block_out0;
    zd_u32 has_fcs, has_checksum, last_block;
    zd_u32 huf_valid, huf_bits, huf_slot;
    /* Blocks whose literals the last ZD_OP_HUF decoded: ahead_i .. ahead_n - 1 are still to come. */
    zd_u32 ahead_n, ahead_i;
    zd_u64 ahead_seq_in[ZD_LIT_AHEAD], ahead_regen[ZD_LIT_AHEAD];
    zd_u32 ahead_direct[ZD_LIT_AHEAD], ahead_hs0[ZD_LIT_AHEAD], ahead_hsn[ZD_LIT_AHEAD];
    zd_u32 ll_log, ml_log, of_log, tables_valid;
    zd_u64 rep1, rep2, rep3;
    zd_u64 lit_size, lit_pos, lit_base;
    zd_u32 lit_from_scratch;
    zd_u32 nseq, seq_done;
    zd_u32 s_ll, s_ml, s_of;
    zd_bwdf_bits br;
} zd_zstd_state;

#define ZD_S_FRAME 0u
#define ZD_S_BLOCK 1u
#define ZD_S_LITERALS 2u
/* 3 was ZD_S_HUF_DONE: stream statuses are now checked as each queued block is taken */
#define ZD_S_SEQ_HDR 4u
#define ZD_S_SEQ 5u
#define ZD_S_BLOCK_END 6u
#define ZD_S_CHECKSUM 7u
#define ZD_S_FRAME_END 8u

#define ZD_KIND_LL 0u
#define ZD_KIND_OF 1u
#define ZD_KIND_ML 2u

/* Room for n more output bytes: within dst, and within the declared content size. */
ZD_INLINE zd_u32 zd_zstd_out_check_thread(const zd_zstd_state *st, zd_u64 dst_len, zd_u64 n) {
    if (n > dst_len - st->out) return ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
    if (n > st->frame_limit - st->out) return ZD_STATUS_CORRUPT_CONTENT_SIZE;
    return ZD_STATUS_OK;
}

/* Builds the LL/OF/ML table of one sequence section (mode 0..3); advances *in. */
ZD_FUNC zd_u32 zd_zstd_seq_table_thread(zd_zstd_state *st, ZD_LOCAL zd_zstd_lds *lds, zd_u32 kind, zd_u32 mode,
                                        const ZD_GLOBAL zd_u8 *src, zd_u64 *in, zd_u64 end) {
    ZD_LOCAL zd_fse_cell *t = kind == ZD_KIND_LL ? lds->ll : (kind == ZD_KIND_OF ? lds->of : lds->ml);
    zd_u32 max_sym = kind == ZD_KIND_LL ? ZD_LL_MAX_SYM : (kind == ZD_KIND_OF ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM);
    zd_u32 max_log = kind == ZD_KIND_LL ? ZD_LL_MAX_LOG : (kind == ZD_KIND_OF ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG);
    zd_u32 log = 0;
    if (mode == 0u) {
        zd_u32 n;
        if (kind == ZD_KIND_LL) {
            n = 36u;
            log = 6u;
            for (zd_u32 i = 0; i < n; i++) lds->norm[i] = zd_ll_default_norm[i];
        } else if (kind == ZD_KIND_OF) {
            n = 29u;
            log = 5u;
            for (zd_u32 i = 0; i < n; i++) lds->norm[i] = zd_of_default_norm[i];
        } else {
            n = 53u;
            log = 6u;
            for (zd_u32 i = 0; i < n; i++) lds->norm[i] = zd_ml_default_norm[i];
        }
        if (zd_fse_build_thread(t, lds->norm, n, log, lds->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
    } else if (mode == 1u) {
        if (*in >= end) return ZD_STATUS_CORRUPT_SEQUENCES;
        zd_u32 sym = src[*in];
        *in += 1u;
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        zd_fse_build_rle_thread(t, sym);
        log = 0u;
    } else if (mode == 2u) {
        zd_u32 nsym = 0;
        zd_u64 used = 0;
        zd_u32 s = zd_fse_read_ncount_thread(src + *in, end - *in, max_sym, max_log, lds->norm, &log, &nsym, &used);
        if (s != ZD_STATUS_OK) return s == ZD_STATUS_CORRUPT_TRUNCATED ? ZD_STATUS_CORRUPT_SEQUENCES : s;
        if (zd_fse_build_thread(t, lds->norm, nsym, log, lds->next) != ZD_STATUS_OK) return ZD_STATUS_CORRUPT_FSE_TABLE;
        *in += used;
    } else {
        if ((st->tables_valid & (1u << kind)) == 0u) return ZD_STATUS_CORRUPT_FSE_TABLE;
        return ZD_STATUS_OK;
    }
    st->tables_valid |= 1u << kind;
    if (kind == ZD_KIND_LL) st->ll_log = log;
    else if (kind == ZD_KIND_OF) st->of_log = log;
    else st->ml_log = log;
    return ZD_STATUS_OK;
}

/* The jump table of four Huffman streams at src[p .. p + rem) (rem: the streams' bytes, table
   included): the first three streams' sizes; the fourth takes the rest, and none of the
   regenerated size's four segments may be empty but the last. */
ZD_INLINE zd_u32 zd_zstd_jump_table_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 p, zd_u64 rem,
                                           zd_u64 regen, zd_u64 *s1, zd_u64 *s2, zd_u64 *s3) {
    if (rem < 10u) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    *s1 = zd_load_le_thread(src, src_len, p, 2u);
    *s2 = zd_load_le_thread(src, src_len, p + 2u, 2u);
    *s3 = zd_load_le_thread(src, src_len, p + 4u, 2u);
    if (6u + *s1 + *s2 + *s3 >= rem) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    if (3u * ((regen + 3u) / 4u) > regen) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    return ZD_STATUS_OK;
}

/*
 * Queues the compressed literals section (type 2 or 3) at src[p0 .. end) of one block for the
 * next ZD_OP_HUF: reads its Huffman table (type 2: into the next table slot of the ring in
 * scratch) and appends its streams to lds->hs_*, to be decoded into literal buffer `slot`, or
 * into dst + out_at when the block has no sequences and regen <= out_room. Nothing in st
 * changes unless it returns ZD_STATUS_OK.
 */
ZD_FUNC zd_u32 zd_zstd_prep_huf_thread(zd_zstd_state *st, const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 p0,
                                       zd_u64 end, zd_u32 slot, zd_u64 out_at,
                                       zd_u64 out_room, ZD_LOCAL zd_zstd_lds *lds, zd_u64 *seq_in,
                                       zd_u64 *regen_out, zd_u32 *direct_out) {
    zd_u64 avail = end - p0;
    zd_u32 b0 = src[p0];
    zd_u32 type = b0 & 3u;
    zd_u32 sf = (b0 >> 2) & 3u;
    zd_u32 hl = sf <= 1u ? 3u : sf + 2u;
    zd_u32 nbits = sf <= 1u ? 10u : (sf == 2u ? 14u : 18u);
    zd_u32 nstreams = sf == 0u ? 1u : 4u;
    if (avail < hl) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    zd_u64 v = zd_load_le_thread(src, src_len, p0, hl);
    zd_u64 regen = (v >> 4) & zd_mask64(nbits);
    zd_u64 csize = (v >> (4u + nbits)) & zd_mask64(nbits);
    if (avail - hl < csize) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    if (regen > st->block_max) return ZD_STATUS_CORRUPT_LITERALS_HEADER;
    zd_u64 p = p0 + hl;
    zd_u64 rem = csize;
    zd_u32 tab = st->huf_slot;
    zd_u32 mb = st->huf_bits;
    if (type == 2u) {
        zd_u64 used = 0;
        tab = st->huf_valid ? (st->huf_slot + 1u) % ZD_HUF_SLOTS : 0u;
        ZD_LOCAL zd_huf_cell *t = lds->huf[tab];
        zd_u32 s = zd_huf_read_table_thread(src + p, rem, t, lds->weights, lds->hufw, lds->norm, lds->next, &mb, &used);
        if (s != ZD_STATUS_OK) return s == ZD_STATUS_CORRUPT_TRUNCATED ? ZD_STATUS_CORRUPT_HUFFMAN_TABLE : s;
        p += used;
        rem -= used;
    } else if (!st->huf_valid) {
        return ZD_STATUS_CORRUPT_HUFFMAN_TABLE;
    }
    zd_u64 in[4], len[4], n[4], out[4];
    if (nstreams == 1u) {
        in[0] = p;
        len[0] = rem;
        out[0] = 0u;
        n[0] = regen;
    } else {
        zd_u64 s1 = 0, s2 = 0, s3 = 0;
        zd_u32 js = zd_zstd_jump_table_thread(src, src_len, p, rem, regen, &s1, &s2, &s3);
        if (js != ZD_STATUS_OK) return js;
        zd_u64 seg = (regen + 3u) / 4u;
        in[0] = p + 6u;
        len[0] = s1;
        in[1] = in[0] + s1;
        len[1] = s2;
        in[2] = in[1] + s2;
        len[2] = s3;
        in[3] = in[2] + s3;
        len[3] = rem - 6u - s1 - s2 - s3;
        for (zd_u32 k = 0; k < 4u; k++) {
            out[k] = k * seg;
            n[k] = k < 3u ? seg : regen - 3u * seg;
        }
    }
    zd_u64 after = p0 + hl + csize;
    /* A block without sequences (its section is the single byte 0) decodes its literals
       straight into dst when they fit there; otherwise the usual checks run later. */
    zd_u32 direct = (after + 1u == end && src[after] == 0u && regen <= out_room) ? 1u : 0u;
    zd_u64 obase = direct ? out_at : (zd_u64)slot * ZD_ZSTD_BLOCK_MAX;
    zd_u32 h = lds->hs_count;
    for (zd_u32 k = 0; k < nstreams; k++) {
        lds->hs_in[h + k] = in[k];
        lds->hs_len[h + k] = len[k];
        lds->hs_out[h + k] = obase + out[k];
        lds->hs_n[h + k] = n[k];
        lds->hs_tab[h + k] = (zd_u8)tab;
        lds->hs_bits[h + k] = (zd_u8)mb;
        lds->hs_dst[h + k] = (zd_u8)direct;
    }
    lds->hs_count = h + nstreams;
    if (type == 2u) {
        st->huf_valid = 1u;
        st->huf_slot = tab;
        st->huf_bits = mb;
    }
    st->ahead_seq_in[slot] = after;
    st->ahead_regen[slot] = regen;
    st->ahead_direct[slot] = direct;
    st->ahead_hs0[slot] = h;
    st->ahead_hsn[slot] = nstreams;
    *seq_in = after;
    *regen_out = regen;
    *direct_out = direct;
    return ZD_STATUS_OK;
}

#define ZD_FAIL(code)                                                                                              \
    do {                                                                                                           \
        lds->op = ZD_OP_DONE;                                                                                      \
        lds->status = (code);                                                                                      \
        return;                                                                                                    \
    } while (0)

/*
 * Item 0 only: advances the parser until it has one work order for the group, and publishes
 * it in lds (op, op_*, hs_*, seq*, status).
 */
ZD_FUNC void zd_zstd_step_thread(zd_zstd_state *st, const ZD_GLOBAL zd_u8 *src, zd_u64 src_len,
                                 ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len, zd_u64 scratch_len,
                                 ZD_LOCAL zd_zstd_lds *lds) {
    for (;;) {
        if (st->state == ZD_S_FRAME) {
            if (st->in == src_len) {
                if (st->frames == 0u) ZD_FAIL(ZD_STATUS_CORRUPT_NO_FRAME);
                if (st->out != dst_len) ZD_FAIL(ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW);
                lds->op = ZD_OP_DONE;
                lds->status = ZD_STATUS_OK;
                return;
            }
            if (src_len - st->in < 4u) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
            zd_u32 magic = (zd_u32)zd_load_le_thread(src, src_len, st->in, 4u);
            if ((magic & ZD_ZSTD_SKIPPABLE_MASK) == ZD_ZSTD_SKIPPABLE_MAGIC) {
                if (src_len - st->in < 8u) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
                zd_u64 user = zd_load_le_thread(src, src_len, st->in + 4u, 4u);
                if (src_len - st->in - 8u < user) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
                st->in += 8u + user;
                continue;
            }
            if (magic != ZD_ZSTD_MAGIC) ZD_FAIL(ZD_STATUS_CORRUPT_BAD_MAGIC);
            zd_zstd_fhdr fh;
            zd_u32 hs = zd_zstd_frame_header_thread(src, src_len, st->in, &fh);
            if (hs != ZD_STATUS_OK) ZD_FAIL(hs);
            st->has_fcs = fh.has_fcs;
            if (st->has_fcs) {
                if (fh.fcs > dst_len - st->out) ZD_FAIL(ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
                st->frame_limit = st->out + fh.fcs;
            } else {
                st->frame_limit = dst_len;
            }
            st->block_max = zd_min_u64(fh.window, ZD_ZSTD_BLOCK_MAX);
            st->has_checksum = fh.has_checksum;
            st->in = fh.end;
            st->frame_out0 = st->out;
            st->frames++;
            st->rep1 = 1u;
            st->rep2 = 4u;
            st->rep3 = 8u;
            st->huf_valid = 0u;
            st->ahead_n = 0u;
            st->ahead_i = 0u;
            st->tables_valid = 0u;
            st->state = ZD_S_BLOCK;
            continue;
        }
        if (st->state == ZD_S_BLOCK) {
            if (src_len - st->in < 3u) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
            zd_u32 bh = (zd_u32)zd_load_le_thread(src, src_len, st->in, 3u);
            st->in += 3u;
            st->last_block = bh & 1u;
            zd_u32 type = (bh >> 1) & 3u;
            zd_u64 size = bh >> 3;
            if (type == 3u) ZD_FAIL(ZD_STATUS_CORRUPT_RESERVED_BIT);
            if (size > st->block_max) ZD_FAIL(ZD_STATUS_CORRUPT_BLOCK_SIZE);
            if (type == 1u) {
                if (src_len - st->in < 1u) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
                zd_u32 s = zd_zstd_out_check_thread(st, dst_len, size);
                if (s != ZD_STATUS_OK) ZD_FAIL(s);
                lds->op = ZD_OP_FILL;
                lds->op_flag = 0u;
                lds->op_byte = src[st->in];
                lds->op_b = st->out;
                lds->op_n = size;
                st->in += 1u;
                st->out += size;
                st->state = ZD_S_BLOCK_END;
                return;
            }
            if (src_len - st->in < size) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
            if (type == 0u) {
                zd_u32 s = zd_zstd_out_check_thread(st, dst_len, size);
                if (s != ZD_STATUS_OK) ZD_FAIL(s);
                lds->op = ZD_OP_COPY;
                lds->op_flag = 0u;
                lds->op_a = st->in;
                lds->op_b = st->out;
                lds->op_n = size;
                st->in += size;
                st->out += size;
                st->state = ZD_S_BLOCK_END;
                return;
            }
            st->block_end = st->in + size;
            st->block_out0 = st->out;
            st->state = ZD_S_LITERALS;
            continue;
        }
        if (st->state == ZD_S_LITERALS) {
            if (st->ahead_i < st->ahead_n) {
                /* Literals decoded by the last ZD_OP_HUF (this is the next block it covered). */
                zd_u32 j = st->ahead_i++;
                for (zd_u32 k = st->ahead_hs0[j]; k < st->ahead_hs0[j] + st->ahead_hsn[j]; k++) {
                    if (lds->hs_status[k] != ZD_STATUS_OK) ZD_FAIL(lds->hs_status[k]);
                }
                st->lit_size = st->ahead_regen[j];
                st->lit_pos = 0u;
                st->lit_from_scratch = 1u;
                st->lit_base = (zd_u64)j * ZD_ZSTD_BLOCK_MAX;
                if (st->ahead_direct[j]) {
                    st->out += st->ahead_regen[j];
                    st->lit_pos = st->ahead_regen[j];
                }
                st->in = st->ahead_seq_in[j];
                st->state = ZD_S_SEQ_HDR;
                continue;
            }
            zd_u64 avail = st->block_end - st->in;
            if (avail < 1u) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
            zd_u32 b0 = src[st->in];
            zd_u32 type = b0 & 3u;
            zd_u32 sf = (b0 >> 2) & 3u;
            if (type <= 1u) {
                zd_u32 hl = (sf == 1u) ? 2u : (sf == 3u ? 3u : 1u);
                if (avail < hl) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                zd_u32 v = (zd_u32)zd_load_le_thread(src, src_len, st->in, hl);
                zd_u64 size = (hl == 1u) ? (v >> 3) : (v >> 4);
                if (size > st->block_max) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                st->lit_size = size;
                st->lit_pos = 0u;
                if (type == 0u) {
                    if (avail - hl < size) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                    st->lit_from_scratch = 0u;
                    st->lit_base = st->in + hl;
                    st->in += hl + size;
                    st->state = ZD_S_SEQ_HDR;
                    continue;
                }
                if (avail - hl < 1u) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                if (size > scratch_len) ZD_FAIL(ZD_STATUS_SCRATCH_TOO_SMALL);
                st->lit_from_scratch = 1u;
                st->lit_base = 0u;
                lds->op = ZD_OP_FILL;
                lds->op_flag = 1u;
                lds->op_byte = src[st->in + hl];
                lds->op_b = 0u;
                lds->op_n = size;
                st->in += hl + 1u;
                st->state = ZD_S_SEQ_HDR;
                return;
            }
            /* Compressed literals: this block and up to ZD_LIT_AHEAD - 1 following compressed
               blocks of the frame go into one work order; the look-ahead stops quietly at
               anything unusual (those blocks are then parsed, and rejected, in turn). */
            zd_u64 kfit = scratch_len / ZD_ZSTD_BLOCK_MAX;
            zd_u32 kmax = kfit < ZD_LIT_AHEAD ? (zd_u32)kfit : ZD_LIT_AHEAD;
            zd_u64 room = dst_len - st->out;
            if (st->frame_limit - st->out < room) room = st->frame_limit - st->out;
            if (st->block_max < room) room = st->block_max;
            zd_u64 seq_in = 0, regen = 0;
            zd_u32 direct = 0;
            lds->hs_count = 0u;
            zd_u32 s = zd_zstd_prep_huf_thread(st, src, src_len, st->in, st->block_end, 0u, st->out, room, lds,
                                               &seq_in, &regen, &direct);
            if (s != ZD_STATUS_OK) ZD_FAIL(s);
            if (kmax == 0u) ZD_FAIL(ZD_STATUS_SCRATCH_TOO_SMALL);
            zd_u32 na = 1u;
            zd_u64 q = st->block_end;
            zd_u32 last = st->last_block;
            zd_u64 pred_out = direct ? st->out + regen : 0u; /* where the next block starts, if known */
            zd_u32 pred_ok = direct;
            while (!last && na < kmax) {
                if (src_len - q < 4u) break;
                zd_u32 bh = (zd_u32)zd_load_le_thread(src, src_len, q, 3u);
                zd_u64 size = bh >> 3;
                last = bh & 1u;
                if (((bh >> 1) & 3u) != 2u || size == 0u || size > st->block_max || src_len - q - 3u < size) break;
                if ((src[q + 3u] & 3u) < 2u) break;
                zd_u64 r = 0u;
                if (pred_ok) {
                    r = dst_len - pred_out;
                    if (st->frame_limit - pred_out < r) r = st->frame_limit - pred_out;
                    if (st->block_max < r) r = st->block_max;
                }
                if (zd_zstd_prep_huf_thread(st, src, src_len, q + 3u, q + 3u + size, na, pred_out, r, lds,
                                            &seq_in, &regen, &direct) != ZD_STATUS_OK)
                    break;
                na++;
                pred_ok = pred_ok && direct;
                pred_out += regen;
                q += 3u + size;
            }
            st->ahead_n = na;
            st->ahead_i = 0u;
            lds->op = ZD_OP_HUF;
            return; /* back in ZD_S_LITERALS: the first queued block is taken in turn */
        }
        if (st->state == ZD_S_SEQ_HDR) {
            zd_u64 end = st->block_end;
            if (st->in >= end) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            zd_u32 b0 = src[st->in];
            zd_u32 nseq;
            if (b0 < 128u) {
                nseq = b0;
                st->in += 1u;
            } else if (b0 < 255u) {
                if (end - st->in < 2u) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                nseq = ((b0 - 128u) << 8) + src[st->in + 1u];
                st->in += 2u;
            } else {
                if (end - st->in < 3u) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                nseq = src[st->in + 1u] + ((zd_u32)src[st->in + 2u] << 8) + 0x7F00u;
                st->in += 3u;
            }
            st->nseq = nseq;
            st->seq_done = 0u;
            if (nseq == 0u) {
                /* The section ends here; tables are not touched. */
                if (st->in != end) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                st->state = ZD_S_SEQ;
                continue;
            }
            if (nseq > ZD_ZSTD_MAX_SEQUENCES) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            if (st->in >= end) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            zd_u32 modes = src[st->in];
            st->in += 1u;
            if (modes & 3u) ZD_FAIL(ZD_STATUS_CORRUPT_RESERVED_BIT);
            zd_u64 in = st->in;
            zd_u32 s = zd_zstd_seq_table_thread(st, lds, ZD_KIND_LL, modes >> 6, src, &in, end);
            if (s == ZD_STATUS_OK) s = zd_zstd_seq_table_thread(st, lds, ZD_KIND_OF, (modes >> 4) & 3u, src, &in, end);
            if (s == ZD_STATUS_OK) s = zd_zstd_seq_table_thread(st, lds, ZD_KIND_ML, (modes >> 2) & 3u, src, &in, end);
            if (s != ZD_STATUS_OK) ZD_FAIL(s);
            if (zd_bwdf_init_thread(&st->br, src + in, end - in) != 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            st->in = end;
            st->s_ll = zd_bwdf_read_thread(&st->br, st->ll_log); /* 26 bits at most: in the container */
            st->s_of = zd_bwdf_read_thread(&st->br, st->of_log);
            st->s_ml = zd_bwdf_read_thread(&st->br, st->ml_log);
            if (st->br.pos < 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            st->state = ZD_S_SEQ;
            continue;
        }
        if (st->state == ZD_S_SEQ) {
            if (st->seq_done < st->nseq) {
                /* Hot loop: 32-bit batch-relative positions in registers; the state is written
                   back after the batch (a failure ends the frame, so early returns need none). */
                zd_u32 cnt = 0;
                zd_u32 nseg = 1u;
                zd_u64 base = st->out;
                lds->seg_pos[0] = 0u;
                lds->seg_first[0] = 0u;
                zd_u64 lim = st->block_out0 + st->block_max;
                if (st->frame_limit < lim) lim = st->frame_limit;
                if (dst_len < lim) lim = dst_len;
                zd_u32 room = (zd_u32)(lim - base); /* <= block_max */
                zd_u64 hist = base - st->frame_out0;
                zd_u32 rel = 0u;  /* output produced in this batch */
                zd_u32 wave = 0u; /* bytes below base + wave are visible to every item */
                zd_u32 lit_pos = (zd_u32)st->lit_pos;
                zd_u32 lit_size = (zd_u32)st->lit_size;
                zd_u32 rep1 = (zd_u32)st->rep1, rep2 = (zd_u32)st->rep2, rep3 = (zd_u32)st->rep3;
                zd_u32 s_ll = st->s_ll, s_ml = st->s_ml, s_of = st->s_of;
                zd_bwdf_bits br = st->br;
                zd_u32 left = st->nseq - st->seq_done;
                zd_u32 todo = left < ZD_SEQ_BATCH ? left : ZD_SEQ_BATCH;
                while (cnt < todo) {
                    zd_fse_cell cl = lds->ll[s_ll];
                    zd_fse_cell cm = lds->ml[s_ml];
                    zd_fse_cell co = lds->of[s_of];
                    zd_u32 ofc = co.sym;
                    zd_u32 mlb = zd_ml_bits[cm.sym];
                    zd_u32 llb = zd_ll_bits[cl.sym];
                    zd_u32 mlbase = zd_ml_base[cm.sym];
                    zd_u32 llbase = zd_ll_base[cl.sym];
                    zd_u32 nbl = cl.nb, nbm = cm.nb, nbo = co.nb;
                    zd_u32 need = ofc + mlb + llb + nbl + nbm + nbo;
                    zd_u32 ofv, ml, ll;
                    zd_u32 ns_ll = 0u, ns_ml = 0u, ns_of = 0u;
                    if (need <= 56u) zd_bwdf_refill_thread(&br, (zd_i32)need);
                    zd_i32 avail = br.pos - br.cbits;
                    if (need <= 56u && avail >= (zd_i32)need) {
                        /* Fast path: every bit of this sequence (extra bits and next states) is
                           in the container, one shift each; no overrun is possible. */
                        zd_u64 c = br.c;
                        zd_u32 a = (zd_u32)avail;
                        a -= ofc;
                        ofv = (1u << ofc) + ((zd_u32)(c >> a) & ((1u << ofc) - 1u));
                        a -= mlb;
                        ml = mlbase + ((zd_u32)(c >> a) & ((1u << mlb) - 1u));
                        a -= llb;
                        ll = llbase + ((zd_u32)(c >> a) & ((1u << llb) - 1u));
                        a -= nbl;
                        ns_ll = cl.base + ((zd_u32)(c >> a) & ((1u << nbl) - 1u));
                        a -= nbm;
                        ns_ml = cm.base + ((zd_u32)(c >> a) & ((1u << nbm) - 1u));
                        a -= nbo;
                        ns_of = co.base + ((zd_u32)(c >> a) & ((1u << nbo) - 1u));
                        /* The next states are consumed only when another sequence follows. */
                        br.pos -= (zd_i32)(ofc + mlb + llb);
                        if (cnt + 1u < left) br.pos -= (zd_i32)(nbl + nbm + nbo);
                    } else {
                        zd_bwdf_refill_thread(&br, (zd_i32)(ofc + mlb)); /* 47 bits at most */
                        ofv = (1u << ofc) + zd_bwdf_read_thread(&br, ofc);
                        ml = mlbase + zd_bwdf_read_thread(&br, mlb);
                        zd_bwdf_refill_thread(&br, (zd_i32)(llb + nbl + nbm + nbo)); /* 42 at most */
                        ll = llbase + zd_bwdf_read_thread(&br, llb);
                        if (br.pos < 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                        if (cnt + 1u < left) {
                            ns_ll = cl.base + zd_bwdf_read_thread(&br, nbl);
                            ns_ml = cm.base + zd_bwdf_read_thread(&br, nbm);
                            ns_of = co.base + zd_bwdf_read_thread(&br, nbo);
                        }
                    }
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
                    if (ll > lit_size - lit_pos) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                    zd_u32 total = ll + ml;
                    if (total > room - rel) {
                        st->out = base + rel;
                        zd_u32 s = zd_zstd_out_check_thread(st, dst_len, total);
                        ZD_FAIL(s != ZD_STATUS_OK ? s : ZD_STATUS_CORRUPT_BLOCK_SIZE);
                    }
                    zd_u32 m = rel + ll;
                    if (off == 0u || (zd_u64)off > hist + m) ZD_FAIL(ZD_STATUS_CORRUPT_OFFSET_BEFORE_START);
                    zd_u32 flags = 0u;
                    /* The match reads [m - off, m - off + min(ml, off)); does that reach past wave? */
                    zd_u64 src_end = (zd_u64)m + (ml < off ? ml : off); /* + off */
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
                    s_ll = ns_ll;
                    s_ml = ns_ml;
                    s_of = ns_of;
                }
                st->seq_done += cnt;
                st->out = base + rel;
                st->lit_pos = lit_pos;
                st->rep1 = rep1;
                st->rep2 = rep2;
                st->rep3 = rep3;
                st->s_ll = s_ll;
                st->s_ml = s_ml;
                st->s_of = s_of;
                st->br = br;
                if (st->seq_done == st->nseq && br.pos != 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                lds->op = ZD_OP_SEQS;
                lds->seq_count = cnt;
                lds->seg_count = nseg;
                lds->seq_bytes = rel;
                lds->seq_base = base;
                lds->lit_base = st->lit_base;
                lds->lit_from_scratch = st->lit_from_scratch;
                return;
            }
            /* Literals left after the last sequence. */
            zd_u64 n = st->lit_size - st->lit_pos;
            st->state = ZD_S_BLOCK_END;
            if (n == 0u) continue;
            zd_u32 s = zd_zstd_out_check_thread(st, dst_len, n);
            if (s != ZD_STATUS_OK) ZD_FAIL(s);
            if (n > st->block_out0 + st->block_max - st->out) ZD_FAIL(ZD_STATUS_CORRUPT_BLOCK_SIZE);
            lds->op = ZD_OP_COPY;
            lds->op_flag = st->lit_from_scratch;
            lds->op_a = st->lit_base + st->lit_pos;
            lds->op_b = st->out;
            lds->op_n = n;
            st->out += n;
            st->lit_pos += n;
            return;
        }
        if (st->state == ZD_S_BLOCK_END) {
            if (!st->last_block) {
                st->state = ZD_S_BLOCK;
                continue;
            }
            if (st->has_checksum) {
                if (src_len - st->in < 4u) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
                lds->op = ZD_OP_XXH;
                lds->op_a = st->frame_out0;
                lds->op_n = st->out - st->frame_out0;
                st->state = ZD_S_CHECKSUM;
                return;
            }
            st->state = ZD_S_FRAME_END;
            continue;
        }
        if (st->state == ZD_S_CHECKSUM) {
            zd_u64 len = st->out - st->frame_out0;
            zd_u64 h = zd_xxh64_finish_thread(dst + st->frame_out0, len, lds->xxh_acc[0], lds->xxh_acc[1],
                                              lds->xxh_acc[2], lds->xxh_acc[3]);
            zd_u32 stored = (zd_u32)zd_load_le_thread(src, src_len, st->in, 4u);
            st->in += 4u;
            if ((zd_u32)h != stored) ZD_FAIL(ZD_STATUS_CORRUPT_CHECKSUM);
            st->state = ZD_S_FRAME_END;
            continue;
        }
        /* ZD_S_FRAME_END */
        if (st->has_fcs && st->out != st->frame_limit) ZD_FAIL(ZD_STATUS_CORRUPT_CONTENT_SIZE);
        st->state = ZD_S_FRAME;
    }
}
#undef ZD_FAIL

#define ZD_EXEC_CHUNK 16u /* output bytes per item and round when executing sequences */

/*
 * Per item: writes output bytes [x0, x1) (relative to seq_base, x1 - x0 <= ZD_EXEC_CHUNK) of one
 * segment whose sequences are seq[jf..jl]. Every byte is a literal or a match byte whose source
 * lies before the segment, so the loads can all be in flight before the first store.
 */
ZD_INLINE void zd_zstd_exec_chunk_thread(const ZD_GLOBAL zd_u8 *lit, ZD_GLOBAL zd_u8 *dst, zd_u64 base,
                                         const ZD_LOCAL zd_zstd_lds *lds, zd_u32 x0, zd_u32 x1, zd_u32 jf,
                                         zd_u32 jl) {
    zd_u32 lo = jf, hi = jl;
    while (lo < hi) {
        zd_u32 mid = (lo + hi + 1u) >> 1;
        if (lds->seq[mid].out_rel <= x0) lo = mid;
        else hi = mid - 1u;
    }
    zd_u32 j = lo;
    zd_u32 rel0 = lds->seq[j].out_rel;
    zd_u32 ll = lds->seq[j].ll & ZD_SEQ_LL_MASK;
    zd_u32 ml = lds->seq[j].ml;
    zd_u32 off = lds->seq[j].off;
    zd_u32 lo_lit = lds->seq[j].lit_off;
    zd_u8 v[ZD_EXEC_CHUNK];
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_EXEC_CHUNK; k++) {
        zd_u32 x = x0 + k;
        v[k] = 0u;
        if (x < x1) {
            while (x - rel0 >= ll + ml && j < jl) {
                j++;
                rel0 = lds->seq[j].out_rel;
                ll = lds->seq[j].ll & ZD_SEQ_LL_MASK;
                ml = lds->seq[j].ml;
                off = lds->seq[j].off;
                lo_lit = lds->seq[j].lit_off;
            }
            zd_u32 r = x - rel0;
            if (r < ll) {
                v[k] = lit[lo_lit + r];
            } else {
                zd_u32 q = r - ll;
                if (q >= off) q = q % off; /* overlapping match: the source period repeats */
                v[k] = dst[base + rel0 + ll + q - off];
            }
        }
    }
    ZD_UNROLL
    for (zd_u32 k = 0; k < ZD_EXEC_CHUNK; k++) {
        if (x0 + k < x1) dst[base + x0 + k] = v[k];
    }
}

/*
 * Cooperative: executes seq[0..seq_count) of lds. Item 0 split the batch's output into
 * segments (seg_pos/seg_first): no match reads bytes of its own segment, so each segment is
 * written by all items at once, byte-parallel, and a barrier separates segments.
 */
ZD_FUNC void zd_zstd_exec_seqs_group(const ZD_GLOBAL zd_u8 *lit, ZD_GLOBAL zd_u8 *dst, ZD_LOCAL zd_zstd_lds *lds) {
    zd_u32 lid = zd_local_id();
    zd_u32 ls = zd_local_size();
    zd_u32 n = lds->seq_count;
    zd_u32 nseg = lds->seg_count;
    zd_u64 base = lds->seq_base;
    for (zd_u32 k = 0; k < nseg; k++) {
        if (k > 0u) ZD_BARRIER();
        zd_u32 s0 = lds->seg_pos[k];
        zd_u32 s1 = k + 1u < nseg ? lds->seg_pos[k + 1u] : lds->seq_bytes;
        zd_u32 jf = lds->seg_first[k];
        zd_u32 jl = k + 1u < nseg ? lds->seg_first[k + 1u] : n - 1u;
        for (zd_u32 x0 = s0 + lid * ZD_EXEC_CHUNK; x0 < s1; x0 += ls * ZD_EXEC_CHUNK) {
            zd_u32 x1 = s1 - x0 < ZD_EXEC_CHUNK ? s1 : x0 + ZD_EXEC_CHUNK;
            zd_zstd_exec_chunk_thread(lit, dst, base, lds, x0, x1, jf, jl);
        }
    }
}

/* Per item: the 4 bytes at f as a word, from the aligned words at fa (= f - sh) and fa + 4;
   byte loads where the second word would reach past `end` (a load must not leave the buffer). */
ZD_INLINE zd_u32 zd_ld_u32_shifted(const ZD_GLOBAL zd_u8 *fa, zd_u32 sh, const ZD_GLOBAL zd_u8 *end) {
    if (sh == 0u) return zd_ld_u32a(fa);
    if (fa + 8u <= end) return (zd_ld_u32a(fa) >> (8u * sh)) | (zd_ld_u32a(fa + 4u) << (32u - 8u * sh));
    const ZD_GLOBAL zd_u8 *f = fa + sh;
    return (zd_u32)f[0] | ((zd_u32)f[1] << 8) | ((zd_u32)f[2] << 16) | ((zd_u32)f[3] << 24);
}

/* Cooperative: to[0..n) = from[0..n) (no overlap). Aligned 32-bit stores, each word built from
   the aligned source words it straddles, whatever the two pointers' alignments: a warp moves 128
   bytes per load and store instruction instead of 32; four words in flight per item. */
ZD_INLINE void zd_copy_group(ZD_GLOBAL zd_u8 *to, const ZD_GLOBAL zd_u8 *from, zd_u64 n) {
    zd_u64 lid = zd_local_id();
    zd_u64 ls = zd_local_size();
    zd_u64 head = (4u - zd_addr_mod4(to)) & 3u;
    if (head > n) head = n;
    for (zd_u64 i = lid; i < head; i += ls) to[i] = from[i];
    zd_u64 words = (n - head) >> 2;
    ZD_GLOBAL zd_u8 *tw = to + head;
    const ZD_GLOBAL zd_u8 *f = from + head;
    zd_u32 sh = zd_addr_mod4(f);
    const ZD_GLOBAL zd_u8 *fa = f - sh;
    const ZD_GLOBAL zd_u8 *end = from + n;
    for (zd_u64 w0 = 0; w0 < words; w0 += 4u * ls) {
        zd_u32 v[4];
        ZD_UNROLL
        for (zd_u32 k = 0; k < 4u; k++) {
            zd_u64 w = w0 + k * ls + lid;
            v[k] = w < words ? zd_ld_u32_shifted(fa + 4u * w, sh, end) : 0u;
        }
        ZD_UNROLL
        for (zd_u32 k = 0; k < 4u; k++) {
            zd_u64 w = w0 + k * ls + lid;
            if (w < words) zd_st_u32a(tw + 4u * w, v[k]);
        }
    }
    for (zd_u64 i = head + 4u * words + lid; i < n; i += ls) to[i] = from[i];
}

/* Cooperative: executes the work order published by item 0. Every item calls. */
ZD_FUNC void zd_zstd_execute_group(zd_u32 op, const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst,
                                   ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    zd_u32 lid = zd_local_id();
    zd_u32 ls = zd_local_size();
    if (op == ZD_OP_COPY) {
        const ZD_GLOBAL zd_u8 *from = (lds->op_flag ? (const ZD_GLOBAL zd_u8 *)scratch : src) + lds->op_a;
        zd_copy_group(dst + lds->op_b, from, lds->op_n);
    } else if (op == ZD_OP_FILL) {
        ZD_GLOBAL zd_u8 *to = (lds->op_flag ? scratch : dst) + lds->op_b;
        zd_u8 b = (zd_u8)lds->op_byte;
        zd_u64 n = lds->op_n;
        for (zd_u64 i = lid; i < n; i += ls) to[i] = b;
    } else if (op == ZD_OP_HUF) {
        for (zd_u32 k = lid; k < lds->hs_count; k += ls) {
            ZD_GLOBAL zd_u8 *to = lds->hs_dst[k] ? dst : scratch;
            const ZD_LOCAL zd_huf_cell *t = lds->huf[lds->hs_tab[k]];
            lds->hs_status[k] = zd_huf_decode_stream_thread(t, lds->hs_bits[k], src + lds->hs_in[k], lds->hs_len[k],
                                                            to + lds->hs_out[k], lds->hs_n[k]);
        }
    } else if (op == ZD_OP_SEQS) {
        const ZD_GLOBAL zd_u8 *lit = (lds->lit_from_scratch ? (const ZD_GLOBAL zd_u8 *)scratch : src) + lds->lit_base;
        zd_zstd_exec_seqs_group(lit, dst, lds);
    } else if (op == ZD_OP_XXH) {
        for (zd_u32 lane = lid; lane < 4u; lane += ls) {
            lds->xxh_acc[lane] = zd_xxh64_lane_thread(dst + lds->op_a, lds->op_n, lane);
        }
    }
}

/*
 * Cooperative: decodes every frame of src[0..src_len) (zstd frames, skippable frames, in any
 * number) into dst[0..dst_len); the frames must produce exactly dst_len bytes.
 * Every item of the group calls it with the same arguments; the returned status is valid on
 * every item (item 0 should publish it). scratch: ZD_ZSTD_SCRATCH_PER_FRAME bytes.
 */
ZD_FUNC zd_u32 zd_zstd_decode_frame_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst,
                                          zd_u64 dst_len, ZD_GLOBAL zd_u8 *scratch, zd_u64 scratch_len,
                                          ZD_LOCAL zd_zstd_lds *lds) {
    zd_u32 lid = zd_local_id();
    zd_zstd_state st;
    st.state = ZD_S_FRAME;
    st.frames = 0u;
    st.in = 0u;
    st.out = 0u;
    st.frame_limit = dst_len;
    st.huf_valid = 0u;
    st.huf_slot = 0u;
    st.huf_bits = 0u;
    st.ahead_n = 0u;
    st.ahead_i = 0u;
    st.tables_valid = 0u;
    for (;;) {
        if (lid == 0u) zd_zstd_step_thread(&st, src, src_len, dst, dst_len, scratch_len, lds);
        ZD_BARRIER();
        zd_u32 op = lds->op;
        if (op == ZD_OP_DONE) break;
        zd_zstd_execute_group(op, src, dst, scratch, lds);
        ZD_BARRIER();
    }
    zd_u32 status = lds->status;
    ZD_BARRIER();
    return status;
}

#endif
