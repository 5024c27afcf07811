/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_fse.h - FSE (tANS) tables for zstd (RFC 8878 section 4.1), per-item helpers.
 *
 * zd_fse_read_ncount_thread: parses an FSE table description (forward bitstream) into
 *   normalized probabilities (-1 = "less than 1").
 * zd_fse_build_thread: builds the decoding table (symbol, Num_Bits, Baseline per state).
 * Also: predefined distributions for literal lengths, match lengths and offsets, and the
 * baseline / extra-bits tables of the sequence codes.
 */
#ifndef ZD_FSE_H
#define ZD_FSE_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "zstd/zd_bits.h"

typedef struct {
    zd_u16 base; /* Baseline of the next state */
    zd_u8 sym;   /* decoded symbol */
    zd_u8 nb;    /* Num_Bits to read for the next state */
} zd_fse_cell;

#define ZD_FSE_MAX_SYMBOLS 64u /* largest alphabet handled (match lengths: 53) */

#define ZD_LL_MAX_LOG 9u
#define ZD_ML_MAX_LOG 9u
#define ZD_OF_MAX_LOG 8u
#define ZD_HUFW_MAX_LOG 6u
#define ZD_LL_MAX_SYM 35u
#define ZD_ML_MAX_SYM 52u
#define ZD_OF_MAX_SYM 31u

/* Predefined distributions (RFC 8878 3.1.1.3.2.2). */
ZD_CONST_TABLE zd_i16 zd_ll_default_norm[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
                                                2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1,
                                                -1, -1, -1, -1};
ZD_CONST_TABLE zd_i16 zd_ml_default_norm[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
                                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
                                                -1, -1, -1, -1, -1};
ZD_CONST_TABLE zd_i16 zd_of_default_norm[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
                                                1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

/* Literal length codes: baseline and number of extra bits. */
ZD_CONST_TABLE zd_u32 zd_ll_base[36] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512,
                                        1024, 2048, 4096, 8192, 16384, 32768, 65536};
ZD_CONST_TABLE zd_u8 zd_ll_bits[36] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12,
                                       13, 14, 15, 16};
/* Match length codes. */
ZD_CONST_TABLE zd_u32 zd_ml_base[53] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
                                        19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
                                        35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515,
                                        1027, 2051, 4099, 8195, 16387, 32771, 65539};
ZD_CONST_TABLE zd_u8 zd_ml_bits[53] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                       1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
                                       12, 13, 14, 15, 16};

/*
 * Parses an FSE table description at p[0..avail). On success writes norm[0..*nsym), the
 * accuracy log and the number of bytes the description used. max_sym is the largest symbol
 * allowed, max_log the largest accuracy log.
 */
ZD_FUNC zd_u32 zd_fse_read_ncount_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 avail, zd_u32 max_sym,
                                         zd_u32 max_log, ZD_LOCAL zd_i16 *norm, zd_u32 *log_out,
                                         zd_u32 *nsym_out, zd_u64 *bytes_out) {
    zd_fwd_bits r;
    r.p = p;
    r.len = avail;
    r.bitpos = 0;
    if (avail == 0u) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u32 log = zd_fwd_read_thread(&r, 4u) + 5u;
    if (log > max_log) return ZD_STATUS_CORRUPT_FSE_TABLE;
    zd_i32 remaining = (1 << log) + 1;
    zd_i32 threshold = 1 << log;
    zd_u32 nbits = log + 1u;
    zd_u32 sym = 0;
    while (remaining > 1) {
        if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
        if (zd_fwd_overrun_thread(&r)) return ZD_STATUS_CORRUPT_TRUNCATED;
        zd_i32 maxv = (2 * threshold - 1) - remaining; /* values below maxv use nbits-1 bits */
        zd_i32 v = (zd_i32)zd_fwd_peek_thread(&r, nbits);
        zd_i32 low = v & (threshold - 1);
        if (low < maxv) {
            v = low;
            zd_fwd_skip_thread(&r, nbits - 1u);
        } else {
            if (v >= threshold) v -= maxv;
            zd_fwd_skip_thread(&r, nbits);
        }
        zd_i32 prob = v - 1;
        norm[sym++] = (zd_i16)prob;
        remaining -= prob < 0 ? -prob : prob;
        if (prob == 0) {
            /* 2-bit repeat flags: each adds that many zero probabilities; 3 means "more follow" */
            for (;;) {
                if (zd_fwd_overrun_thread(&r)) return ZD_STATUS_CORRUPT_TRUNCATED;
                zd_u32 rep = zd_fwd_read_thread(&r, 2u);
                for (zd_u32 k = 0; k < rep; k++) {
                    if (sym > max_sym) return ZD_STATUS_CORRUPT_FSE_TABLE;
                    norm[sym++] = 0;
                }
                if (rep != 3u) break;
            }
        }
        while (remaining < threshold && threshold > 1) {
            nbits--;
            threshold >>= 1;
        }
    }
    if (remaining != 1) return ZD_STATUS_CORRUPT_FSE_TABLE;
    if (zd_fwd_overrun_thread(&r)) return ZD_STATUS_CORRUPT_TRUNCATED;
    *log_out = log;
    *nsym_out = sym;
    *bytes_out = zd_fwd_bytes_thread(&r);
    return ZD_STATUS_OK;
}

/*
 * Builds the decoding table of 1 << log cells from norm[0..nsym) (sum of |norm| must be
 * 1 << log, which zd_fse_read_ncount_thread guarantees). next is scratch of nsym entries.
 */
ZD_FUNC zd_u32 zd_fse_build_thread(ZD_LOCAL zd_fse_cell *t, const ZD_LOCAL zd_i16 *norm, zd_u32 nsym,
                                   zd_u32 log, ZD_LOCAL zd_u16 *next) {
    zd_u32 size = 1u << log;
    zd_u32 total = 0;
    for (zd_u32 s = 0; s < nsym; s++) total += (zd_u32)(norm[s] < 0 ? 1 : norm[s]);
    if (total != size) return ZD_STATUS_CORRUPT_FSE_TABLE;
    zd_u32 high = size - 1u;
    for (zd_u32 s = 0; s < nsym; s++) {
        if (norm[s] == -1) {
            t[high].sym = (zd_u8)s; /* "less than 1" symbols fill the table from the end */
            high--;                 /* wraps only when every cell is taken: spread loop is then empty */
            next[s] = 1;
        } else {
            next[s] = (zd_u16)norm[s];
        }
    }
    zd_u32 step = (size >> 1) + (size >> 3) + 3u;
    zd_u32 mask = size - 1u;
    zd_u32 pos = 0;
    for (zd_u32 s = 0; s < nsym; s++) {
        zd_i32 n = norm[s];
        for (zd_i32 i = 0; i < n; i++) {
            t[pos].sym = (zd_u8)s;
            do {
                pos = (pos + step) & mask;
            } while (pos > high);
        }
    }
    if (pos != 0u) return ZD_STATUS_CORRUPT_FSE_TABLE;
    for (zd_u32 u = 0; u < size; u++) {
        zd_u32 s = t[u].sym;
        zd_u32 ns = next[s];
        next[s] = (zd_u16)(ns + 1u);
        zd_u32 nb = log - zd_highbit32(ns);
        t[u].nb = (zd_u8)nb;
        t[u].base = (zd_u16)((ns << nb) - size);
    }
    return ZD_STATUS_OK;
}

/* Table of one cell that always yields `sym` and reads no bits (RLE mode). */
ZD_INLINE void zd_fse_build_rle_thread(ZD_LOCAL zd_fse_cell *t, zd_u32 sym) {
    t[0].sym = (zd_u8)sym;
    t[0].nb = 0;
    t[0].base = 0;
}

#endif
