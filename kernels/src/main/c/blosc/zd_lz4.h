/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_lz4.h - LZ4 block format decoder (what blosc's lz4 and lz4hc both write), one stream per
 * work-item, written from the LZ4 block format description.
 *
 * A block is a list of sequences: a token (high nibble: literal count, low nibble: match length
 * - 4; 15 means "255-terminated extension bytes follow"), the literals, then a 2-byte
 * little-endian offset and the match length extension. The last sequence stops after its
 * literals, which is how the end is found: the stream must end exactly there.
 *
 * Checks (every one a status, never a read or write out of range): the input never runs past
 * src_len; the output never past dst_len; offset 0 or an offset reaching before dst is
 * ZD_STATUS_CORRUPT_OFFSET_BEFORE_START; the stream must produce exactly dst_len bytes
 * (fewer: ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW). A stream that ends right after a match has no
 * last literals: it reads past its end and reports ZD_STATUS_CORRUPT_TRUNCATED.
 * Sizes are 32-bit: blosc streams are below 2 GiB.
 */
#ifndef ZD_LZ4_H
#define ZD_LZ4_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "blosc/zd_lz_group.h"

/* Forward byte copy inside dst: overlapping matches (offset < length) repeat their pattern, so
   the copy must go byte by byte in order unless the ranges are apart. */
ZD_INLINE void zd_lz_match_copy_thread(ZD_GLOBAL zd_u8 *dst, zd_u32 op, zd_u32 offset, zd_u32 len) {
    ZD_GLOBAL zd_u8 *o = dst + op;
    const ZD_GLOBAL zd_u8 *m = o - offset;
    if (offset >= 4u) {
        zd_u32 i = 0;
        /* 4 bytes at a time never read a byte this copy has yet to write when offset >= 4 */
        for (; i + 4u <= len; i += 4u) {
            zd_u8 a = m[i], b = m[i + 1u], c = m[i + 2u], d = m[i + 3u];
            o[i] = a;
            o[i + 1u] = b;
            o[i + 2u] = c;
            o[i + 3u] = d;
        }
        for (; i < len; i++) o[i] = m[i];
    } else {
        for (zd_u32 i = 0; i < len; i++) o[i] = m[i];
    }
}

ZD_INLINE void zd_lz_literal_copy_thread(ZD_GLOBAL zd_u8 *dst, const ZD_GLOBAL zd_u8 *src, zd_u32 len) {
    for (zd_u32 i = 0; i < len; i++) dst[i] = src[i];
}

/* Reads a 255-terminated length extension, adding to *len. Stops adding past `cap` (the
   caller's output room) so the sum cannot wrap; the caller then reports the overflow. */
ZD_INLINE zd_u32 zd_lz4_ext_thread(const ZD_GLOBAL zd_u8 *src, zd_u32 src_len, zd_u32 *ip, zd_u32 *len, zd_u32 cap) {
    zd_u32 b;
    do {
        if (*ip >= src_len) return ZD_STATUS_CORRUPT_TRUNCATED;
        b = src[(*ip)++];
        *len += b;
        if (*len > cap) return ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
    } while (b == 255u);
    return ZD_STATUS_OK;
}

/* Decodes the LZ4 block src[0, src_len) into exactly dst[0, dst_len). Per item. */
ZD_FUNC zd_u32 zd_lz4_decode_thread(const ZD_GLOBAL zd_u8 *src, zd_u32 src_len, ZD_GLOBAL zd_u8 *dst, zd_u32 dst_len) {
    zd_u32 ip = 0u, op = 0u;
    for (;;) {
        if (ip >= src_len) return ZD_STATUS_CORRUPT_TRUNCATED;
        zd_u32 token = src[ip++];
        zd_u32 lit = token >> 4;
        if (lit == 15u) {
            zd_u32 s = zd_lz4_ext_thread(src, src_len, &ip, &lit, dst_len);
            if (s != ZD_STATUS_OK) return s;
        }
        if (lit > src_len - ip) return ZD_STATUS_CORRUPT_TRUNCATED;
        if (lit > dst_len - op) return ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
        zd_lz_literal_copy_thread(dst + op, src + ip, lit);
        ip += lit;
        op += lit;
        if (ip == src_len) return op == dst_len ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
        if (src_len - ip < 2u) return ZD_STATUS_CORRUPT_TRUNCATED;
        zd_u32 offset = (zd_u32)src[ip] | ((zd_u32)src[ip + 1u] << 8);
        ip += 2u;
        if (offset == 0u || offset > op) return ZD_STATUS_CORRUPT_OFFSET_BEFORE_START;
        zd_u32 ml = token & 15u;
        if (ml == 15u) {
            zd_u32 s = zd_lz4_ext_thread(src, src_len, &ip, &ml, dst_len);
            if (s != ZD_STATUS_OK) return s;
        }
        ml += 4u;
        if (ml > dst_len - op) return ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
        zd_lz_match_copy_thread(dst, op, offset, ml);
        op += ml;
    }
}

/* The same checks in the same order as zd_lz4_decode_thread, without the copies: one item parses
   sequences into b for zd_lz_execute_group until the batch is full, the stream ends (b->done) or
   a check fails (b->status). */
ZD_FUNC void zd_lz4_parse_thread(zd_lz_cursor *c, const ZD_GLOBAL zd_u8 *src, zd_u32 src_len, zd_u32 dst_len,
                                 ZD_LOCAL zd_lz_batch *b) {
    zd_lz_batch_begin_thread(b, c);
    zd_u32 ip = c->ip, op = c->op, s = ZD_STATUS_OK;
    while (c->n < ZD_LZ_BATCH) {
        /* The common sequence, with no length extension, far from both ends: of the checks below
           only the offset's can fail (17 input bytes hold its token, literals and offset and leave
           more after them; 32 output bytes hold 14 literals and an 18-byte match), so it takes one
           branch where the general path takes nine; same statuses, same cursor. (Reading the next
           token along with the offset measured 4% slower: the token is an L1 hit; again 1-3%
           slower with the cursor in registers, docs/performance.md.) */
        if (src_len - ip >= 17u && dst_len - op >= 32u) {
            zd_u32 token = src[ip];
            if ((token & 0xF0u) != 0xF0u && (token & 15u) != 15u) {
                zd_u32 lit = token >> 4, out = op;
                zd_u32 at = ip + 1u + lit;
                zd_u32 offset = (zd_u32)src[at] | ((zd_u32)src[at + 1u] << 8);
                op += lit;
                ip = at + 2u;
                if (offset == 0u || offset > op) {
                    s = ZD_STATUS_CORRUPT_OFFSET_BEFORE_START;
                    break;
                }
                zd_u32 ml = (token & 15u) + 4u;
                zd_lz_batch_push_thread(b, c, at - lit, lit, out, offset, ml);
                op += ml;
                continue;
            }
        }
        if (ip >= src_len) {
            s = ZD_STATUS_CORRUPT_TRUNCATED;
            break;
        }
        zd_u32 token = src[ip++];
        zd_u32 lit = token >> 4;
        if (lit == 15u && (s = zd_lz4_ext_thread(src, src_len, &ip, &lit, dst_len)) != ZD_STATUS_OK) break;
        if (lit > src_len - ip) {
            s = ZD_STATUS_CORRUPT_TRUNCATED;
            break;
        }
        if (lit > dst_len - op) {
            s = ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
            break;
        }
        zd_u32 lit_src = ip, out = op;
        ip += lit;
        op += lit;
        if (ip == src_len) {
            zd_lz_batch_push_thread(b, c, lit_src, lit, out, 0u, 0u);
            b->done = 1u;
            if (op != dst_len) s = ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
            break;
        }
        if (src_len - ip < 2u) {
            s = ZD_STATUS_CORRUPT_TRUNCATED;
            break;
        }
        zd_u32 offset = (zd_u32)src[ip] | ((zd_u32)src[ip + 1u] << 8);
        ip += 2u;
        if (offset == 0u || offset > op) {
            s = ZD_STATUS_CORRUPT_OFFSET_BEFORE_START;
            break;
        }
        zd_u32 ml = token & 15u;
        if (ml == 15u && (s = zd_lz4_ext_thread(src, src_len, &ip, &ml, dst_len)) != ZD_STATUS_OK) break;
        ml += 4u;
        if (ml > dst_len - op) {
            s = ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
            break;
        }
        zd_lz_batch_push_thread(b, c, lit_src, lit, out, offset, ml);
        op += ml;
    }
    zd_lz_batch_end_thread(b, c);
    c->ip = ip;
    c->op = op;
    b->status = s;
}

#endif
