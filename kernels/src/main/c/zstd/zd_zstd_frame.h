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
 *   local:  sizeof(zd_zstd_lds) = ZD_ZSTD_LDS_BYTES (about 20.6 KiB with ZD_SEQ_BATCH 512;
 *           ~30.8 KiB with 1024), checked below to be <= 48 KiB.
 *   global: ZD_ZSTD_SCRATCH_PER_FRAME bytes (128 KiB) per frame: the literals of one block.
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
#define ZD_SEQ_BATCH 512u
#endif
/* Global scratch each frame needs (caller-owned, scratch_per_frame in the batch kernel). */
#define ZD_ZSTD_SCRATCH_PER_FRAME ((zd_u64)ZD_ZSTD_BLOCK_MAX)

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
#define ZD_OP_HUF 3u  /* decode hs_count Huffman streams into scratch */
#define ZD_OP_SEQS 4u /* execute seq[0..seq_count) */
#define ZD_OP_XXH 5u  /* xxh_acc[lane] over dst[op_a .. op_a + op_n) */

/* Work-group local scratch. */
typedef struct {
    zd_fse_cell ll[1u << ZD_LL_MAX_LOG];
    zd_fse_cell ml[1u << ZD_ML_MAX_LOG];
    zd_fse_cell of[1u << ZD_OF_MAX_LOG];
    zd_fse_cell hufw[1u << ZD_HUFW_MAX_LOG];
    zd_huf_cell huf[ZD_HUF_TABLE_SIZE];
    zd_seq seq[ZD_SEQ_BATCH];
    zd_i16 norm[ZD_FSE_MAX_SYMBOLS];
    zd_u16 next[ZD_FSE_MAX_SYMBOLS];
    zd_u8 weights[256];
    zd_u64 op_a, op_b, op_n;
    zd_u64 hs_in[4], hs_len[4], hs_out[4], hs_n[4];
    zd_u64 seq_base, lit_base;
    zd_u64 xxh_acc[4];
    zd_u32 op, op_flag, op_byte, status;
    zd_u32 hs_status[4];
    zd_u32 hs_count, huf_bits, seq_count, lit_from_scratch;
} zd_zstd_lds;

#define ZD_ZSTD_LDS_BYTES ((zd_u64)sizeof(zd_zstd_lds))
ZD_STATIC_ASSERT(sizeof(zd_zstd_lds) <= 48u * 1024u, zd_zstd_lds_fits_48k);

/* Parser state, private to item 0. */
typedef struct {
    zd_u32 state, frames;
    zd_u64 in, out;
    zd_u64 frame_out0, frame_limit, block_max, block_end, block_out0;
    zd_u32 has_fcs, has_checksum, last_block;
    zd_u32 huf_valid, huf_bits;
    zd_u32 ll_log, ml_log, of_log, tables_valid;
    zd_u64 rep1, rep2, rep3;
    zd_u64 lit_size, lit_pos, lit_base;
    zd_u32 lit_from_scratch;
    zd_u32 nseq, seq_done;
    zd_u32 s_ll, s_ml, s_of;
    zd_bwd_bits br;
} zd_zstd_state;

#define ZD_S_FRAME 0u
#define ZD_S_BLOCK 1u
#define ZD_S_LITERALS 2u
#define ZD_S_HUF_DONE 3u
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
            if (src_len - st->in < 5u) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
            zd_u32 fhd = src[st->in + 4u];
            zd_u32 fcs_flag = fhd >> 6;
            zd_u32 single = (fhd >> 5) & 1u;
            zd_u32 did_flag = fhd & 3u;
            if ((fhd >> 3) & 1u) ZD_FAIL(ZD_STATUS_CORRUPT_RESERVED_BIT);
            zd_u32 did_size = did_flag == 3u ? 4u : did_flag;
            zd_u32 fcs_size = fcs_flag == 0u ? single : (1u << fcs_flag);
            zd_u64 hdr = 5u + (single ? 0u : 1u) + did_size + fcs_size;
            if (src_len - st->in < hdr) ZD_FAIL(ZD_STATUS_CORRUPT_TRUNCATED);
            zd_u64 p = st->in + 5u;
            zd_u64 window = 0;
            if (!single) {
                zd_u32 wd = src[p++];
                zd_u32 wlog = 10u + (wd >> 3);
                if (wlog > ZD_MAX_WINDOW_LOG) ZD_FAIL(ZD_STATUS_CORRUPT_WINDOW_TOO_LARGE);
                window = ((zd_u64)1 << wlog) + (((zd_u64)1 << wlog) >> 3) * (wd & 7u);
            }
            zd_u64 did = zd_load_le_thread(src, src_len, p, did_size);
            p += did_size;
            if (did != 0u) ZD_FAIL(ZD_STATUS_CORRUPT_DICTIONARY_NOT_SUPPORTED);
            st->has_fcs = fcs_size != 0u;
            zd_u64 fcs = zd_load_le_thread(src, src_len, p, fcs_size);
            if (fcs_size == 2u) fcs += 256u;
            p += fcs_size;
            if (single) window = fcs;
            if (st->has_fcs) {
                if (fcs > dst_len - st->out) ZD_FAIL(ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW);
                st->frame_limit = st->out + fcs;
            } else {
                st->frame_limit = dst_len;
            }
            st->block_max = zd_min_u64(window, ZD_ZSTD_BLOCK_MAX);
            st->has_checksum = (fhd >> 2) & 1u;
            st->in = p;
            st->frame_out0 = st->out;
            st->frames++;
            st->rep1 = 1u;
            st->rep2 = 4u;
            st->rep3 = 8u;
            st->huf_valid = 0u;
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
            zd_u32 hl = sf <= 1u ? 3u : sf + 2u;
            zd_u32 nbits = sf <= 1u ? 10u : (sf == 2u ? 14u : 18u);
            zd_u32 nstreams = sf == 0u ? 1u : 4u;
            if (avail < hl) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
            zd_u64 v = zd_load_le_thread(src, src_len, st->in, hl);
            zd_u64 regen = (v >> 4) & zd_mask64(nbits);
            zd_u64 csize = (v >> (4u + nbits)) & zd_mask64(nbits);
            if (avail - hl < csize) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
            if (regen > st->block_max) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
            if (regen > scratch_len) ZD_FAIL(ZD_STATUS_SCRATCH_TOO_SMALL);
            zd_u64 p = st->in + hl;
            zd_u64 rem = csize;
            if (type == 2u) {
                zd_u64 used = 0;
                zd_u32 mb = 0;
                zd_u32 s = zd_huf_read_table_thread(src + p, rem, lds->huf, lds->weights, lds->hufw, lds->norm,
                                                    lds->next, &mb, &used);
                if (s != ZD_STATUS_OK) ZD_FAIL(s == ZD_STATUS_CORRUPT_TRUNCATED ? ZD_STATUS_CORRUPT_HUFFMAN_TABLE : s);
                st->huf_valid = 1u;
                st->huf_bits = mb;
                p += used;
                rem -= used;
            } else if (!st->huf_valid) {
                ZD_FAIL(ZD_STATUS_CORRUPT_HUFFMAN_TABLE);
            }
            if (nstreams == 1u) {
                lds->hs_in[0] = p;
                lds->hs_len[0] = rem;
                lds->hs_out[0] = 0u;
                lds->hs_n[0] = regen;
            } else {
                if (rem < 10u) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                zd_u64 s1 = zd_load_le_thread(src, src_len, p, 2u);
                zd_u64 s2 = zd_load_le_thread(src, src_len, p + 2u, 2u);
                zd_u64 s3 = zd_load_le_thread(src, src_len, p + 4u, 2u);
                if (6u + s1 + s2 + s3 >= rem) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                zd_u64 seg = (regen + 3u) / 4u;
                if (3u * seg > regen) ZD_FAIL(ZD_STATUS_CORRUPT_LITERALS_HEADER);
                zd_u64 q = p + 6u;
                lds->hs_in[0] = q;
                lds->hs_len[0] = s1;
                lds->hs_in[1] = q + s1;
                lds->hs_len[1] = s2;
                lds->hs_in[2] = q + s1 + s2;
                lds->hs_len[2] = s3;
                lds->hs_in[3] = q + s1 + s2 + s3;
                lds->hs_len[3] = rem - 6u - s1 - s2 - s3;
                for (zd_u32 k = 0; k < 4u; k++) {
                    lds->hs_out[k] = k * seg;
                    lds->hs_n[k] = k < 3u ? seg : regen - 3u * seg;
                }
            }
            lds->hs_count = nstreams;
            lds->huf_bits = st->huf_bits;
            st->lit_size = regen;
            st->lit_pos = 0u;
            st->lit_from_scratch = 1u;
            st->lit_base = 0u;
            st->in += hl + csize;
            lds->op = ZD_OP_HUF;
            st->state = ZD_S_HUF_DONE;
            return;
        }
        if (st->state == ZD_S_HUF_DONE) {
            for (zd_u32 k = 0; k < lds->hs_count; k++) {
                if (lds->hs_status[k] != ZD_STATUS_OK) ZD_FAIL(lds->hs_status[k]);
            }
            st->state = ZD_S_SEQ_HDR;
            continue;
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
            if (zd_bwd_init_thread(&st->br, src + in, end - in) != 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            st->in = end;
            st->s_ll = zd_bwd_read_thread(&st->br, st->ll_log);
            st->s_of = zd_bwd_read_thread(&st->br, st->of_log);
            st->s_ml = zd_bwd_read_thread(&st->br, st->ml_log);
            if (st->br.pos < 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
            st->state = ZD_S_SEQ;
            continue;
        }
        if (st->state == ZD_S_SEQ) {
            if (st->seq_done < st->nseq) {
                zd_u32 cnt = 0;
                zd_u64 base = st->out;
                zd_u64 wave = st->out; /* bytes below this are visible to every item */
                zd_u64 block_limit = st->block_out0 + st->block_max;
                while (st->seq_done < st->nseq && cnt < ZD_SEQ_BATCH) {
                    zd_fse_cell cl = lds->ll[st->s_ll];
                    zd_fse_cell cm = lds->ml[st->s_ml];
                    zd_fse_cell co = lds->of[st->s_of];
                    zd_u32 ofc = co.sym;
                    zd_u64 ofv = ((zd_u64)1 << ofc) + zd_bwd_read_thread(&st->br, ofc);
                    zd_u64 ml = zd_ml_base[cm.sym] + zd_bwd_read_thread(&st->br, zd_ml_bits[cm.sym]);
                    zd_u64 ll = zd_ll_base[cl.sym] + zd_bwd_read_thread(&st->br, zd_ll_bits[cl.sym]);
                    if (st->br.pos < 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                    zd_u64 off;
                    if (ofv > 3u) {
                        off = ofv - 3u;
                        st->rep3 = st->rep2;
                        st->rep2 = st->rep1;
                        st->rep1 = off;
                    } else {
                        zd_u64 idx = ofv - 1u + (ll == 0u ? 1u : 0u);
                        if (idx == 0u) {
                            off = st->rep1;
                        } else if (idx == 1u) {
                            off = st->rep2;
                            st->rep2 = st->rep1;
                            st->rep1 = off;
                        } else if (idx == 2u) {
                            off = st->rep3;
                            st->rep3 = st->rep2;
                            st->rep2 = st->rep1;
                            st->rep1 = off;
                        } else {
                            off = st->rep1 - 1u;
                            st->rep3 = st->rep2;
                            st->rep2 = st->rep1;
                            st->rep1 = off;
                        }
                    }
                    if (ll > st->lit_size - st->lit_pos) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                    zd_u64 total = ll + ml;
                    zd_u32 s = zd_zstd_out_check_thread(st, dst_len, total);
                    if (s != ZD_STATUS_OK) ZD_FAIL(s);
                    if (total > block_limit - st->out) ZD_FAIL(ZD_STATUS_CORRUPT_BLOCK_SIZE);
                    zd_u64 m = st->out + ll;
                    if (off == 0u || off > m - st->frame_out0) ZD_FAIL(ZD_STATUS_CORRUPT_OFFSET_BEFORE_START);
                    zd_u32 flags = 0u;
                    zd_u64 src_end = m - off + (ml < off ? ml : off);
                    if (src_end > wave) {
                        if (src_end <= st->out) {
                            flags = ZD_SEQ_WAVE;
                            wave = st->out;
                        } else {
                            flags = ZD_SEQ_MID;
                            wave = m;
                        }
                    }
                    lds->seq[cnt].lit_off = (zd_u32)st->lit_pos;
                    lds->seq[cnt].ll = (zd_u32)ll | flags;
                    lds->seq[cnt].ml = (zd_u32)ml;
                    lds->seq[cnt].off = (zd_u32)off;
                    lds->seq[cnt].out_rel = (zd_u32)(st->out - base);
                    cnt++;
                    st->out += total;
                    st->lit_pos += ll;
                    st->seq_done++;
                    if (st->seq_done < st->nseq) {
                        st->s_ll = cl.base + zd_bwd_read_thread(&st->br, cl.nb);
                        st->s_ml = cm.base + zd_bwd_read_thread(&st->br, cm.nb);
                        st->s_of = co.base + zd_bwd_read_thread(&st->br, co.nb);
                    }
                }
                if (st->seq_done == st->nseq && st->br.pos != 0) ZD_FAIL(ZD_STATUS_CORRUPT_SEQUENCES);
                lds->op = ZD_OP_SEQS;
                lds->seq_count = cnt;
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

/*
 * Cooperative: executes seq[0..seq_count) of lds. Every item calls; barriers only where a
 * match reads bytes written earlier in the batch (flags set by item 0).
 */
ZD_FUNC void zd_zstd_exec_seqs_group(const ZD_GLOBAL zd_u8 *lit, ZD_GLOBAL zd_u8 *dst, ZD_LOCAL zd_zstd_lds *lds) {
    zd_u32 lid = zd_local_id();
    zd_u32 ls = zd_local_size();
    zd_u32 n = lds->seq_count;
    zd_u64 base = lds->seq_base;
    for (zd_u32 j = 0; j < n; j++) {
        zd_seq s = lds->seq[j];
        if (s.ll & ZD_SEQ_WAVE) ZD_BARRIER();
        zd_u32 ll = s.ll & ZD_SEQ_LL_MASK;
        ZD_GLOBAL zd_u8 *o = dst + base + s.out_rel;
        const ZD_GLOBAL zd_u8 *l = lit + s.lit_off;
        for (zd_u32 i = lid; i < ll; i += ls) o[i] = l[i];
        if (s.ll & ZD_SEQ_MID) ZD_BARRIER();
        ZD_GLOBAL zd_u8 *m = o + ll;
        const ZD_GLOBAL zd_u8 *from = m - s.off;
        if (s.off >= s.ml) {
            for (zd_u32 i = lid; i < s.ml; i += ls) m[i] = from[i];
        } else {
            /* Overlapping match: byte i repeats byte i % off of the source period. */
            for (zd_u32 i = lid; i < s.ml; i += ls) m[i] = from[i % s.off];
        }
    }
}

/* Cooperative: executes the work order published by item 0. Every item calls. */
ZD_FUNC void zd_zstd_execute_group(zd_u32 op, const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst,
                                   ZD_GLOBAL zd_u8 *scratch, ZD_LOCAL zd_zstd_lds *lds) {
    zd_u32 lid = zd_local_id();
    zd_u32 ls = zd_local_size();
    if (op == ZD_OP_COPY) {
        const ZD_GLOBAL zd_u8 *from = (lds->op_flag ? (const ZD_GLOBAL zd_u8 *)scratch : src) + lds->op_a;
        ZD_GLOBAL zd_u8 *to = dst + lds->op_b;
        zd_u64 n = lds->op_n;
        for (zd_u64 i = lid; i < n; i += ls) to[i] = from[i];
    } else if (op == ZD_OP_FILL) {
        ZD_GLOBAL zd_u8 *to = (lds->op_flag ? scratch : dst) + lds->op_b;
        zd_u8 b = (zd_u8)lds->op_byte;
        zd_u64 n = lds->op_n;
        for (zd_u64 i = lid; i < n; i += ls) to[i] = b;
    } else if (op == ZD_OP_HUF) {
        for (zd_u32 k = lid; k < lds->hs_count; k += ls) {
            lds->hs_status[k] = zd_huf_decode_stream_thread(lds->huf, lds->huf_bits, src + lds->hs_in[k],
                                                            lds->hs_len[k], scratch + lds->hs_out[k], lds->hs_n[k]);
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
