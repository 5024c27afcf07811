/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_blosclz.h - BloscLZ decoder (blosc's own LZ77 format, as c-blosc 1.21 writes it), one
 * stream per work-item. Accepts and rejects exactly what the CPU reference
 * dev.zarrdirect.cpu.codec.bytestobytes.blosc.BloscLz.decompress does (same checks, same order).
 *
 * Instructions, each led by a control byte c (only the low 5 bits of the first one count):
 *   c < 32   literal run of c + 1 bytes;
 *   c >= 32  match: length code (c >> 5) - 1, extended by bytes added until one is not 255 when
 *            the code is 6; then a byte lo; distance ((c & 31) << 8) + lo + 1, or, when c & 31 is
 *            31 and lo is 255, 8192 + a big-endian 16-bit value that follows; length code + 3.
 * The stream ends when its input ends after a literal run. A match that is the last instruction
 * is rejected (ZD_STATUS_CORRUPT_BLOSCLZ): c-blosc would not execute it.
 * The caller compares the produced size with the expected one.
 */
#ifndef ZD_BLOSCLZ_H
#define ZD_BLOSCLZ_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "blosc/zd_lz4.h"

/* The reference stops growing an extended match length here (Integer.MAX_VALUE - 512); kept for
   byte-for-byte agreement, and it keeps the 32-bit sum from wrapping. */
#define ZD_BLOSCLZ_LEN_CAP 0x7FFFFDFFu

/* Decodes src[0, src_len) into dst[0, dst_len); *produced gets the bytes written on success. */
ZD_FUNC zd_u32 zd_blosclz_decode_thread(const ZD_GLOBAL zd_u8 *src, zd_u32 src_len, ZD_GLOBAL zd_u8 *dst,
                                        zd_u32 dst_len, zd_u32 *produced) {
    if (src_len == 0u) return ZD_STATUS_CORRUPT_BLOSCLZ;
    zd_u32 ip = 1u, op = 0u;
    zd_u32 ctrl = src[0] & 31u;
    for (;;) {
        if (ctrl < 32u) {
            zd_u32 run = ctrl + 1u;
            if (src_len - ip < run) return ZD_STATUS_CORRUPT_TRUNCATED;
            if (dst_len - op < run) return ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
            zd_lz_literal_copy_thread(dst + op, src + ip, run);
            ip += run;
            op += run;
            if (ip >= src_len) {
                *produced = op;
                return ZD_STATUS_OK;
            }
        } else {
            zd_u32 len = (ctrl >> 5) - 1u;
            zd_u32 hi = ctrl & 31u;
            if (len == 6u) {
                zd_u32 b;
                do {
                    if (ip >= src_len) return ZD_STATUS_CORRUPT_TRUNCATED;
                    b = src[ip++];
                    len += b;
                } while (b == 255u && len < ZD_BLOSCLZ_LEN_CAP);
            }
            if (ip >= src_len) return ZD_STATUS_CORRUPT_TRUNCATED;
            zd_u32 lo = src[ip++];
            zd_u32 distance;
            if (hi == 31u && lo == 255u) {
                if (src_len - ip < 2u) return ZD_STATUS_CORRUPT_TRUNCATED;
                distance = (((zd_u32)src[ip] << 8) | (zd_u32)src[ip + 1u]) + 8192u;
                ip += 2u;
            } else {
                distance = (hi << 8) + lo + 1u;
            }
            zd_u32 length = len + 3u;
            if (distance > op) return ZD_STATUS_CORRUPT_OFFSET_BEFORE_START;
            if (dst_len - op < length) return ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
            if (ip >= src_len) return ZD_STATUS_CORRUPT_BLOSCLZ;
            zd_lz_match_copy_thread(dst, op, distance, length);
            op += length;
        }
        ctrl = src[ip++];
    }
}

/* The same checks in the same order as zd_blosclz_decode_thread, without the copies (see
   zd_lz4_parse_thread); the stream must produce exactly dst_len bytes. */
ZD_FUNC void zd_blosclz_parse_thread(zd_lz_cursor *c, const ZD_GLOBAL zd_u8 *src, zd_u32 src_len, zd_u32 dst_len,
                                     ZD_LOCAL zd_lz_batch *b) {
    zd_lz_batch_begin_thread(b, c);
    if (c->ip == 0u) {
        if (src_len == 0u) {
            b->status = ZD_STATUS_CORRUPT_BLOSCLZ;
            return;
        }
        c->ctrl = src[0] & 31u;
        c->ip = 1u;
    }
    zd_u32 ip = c->ip, op = c->op, ctrl = c->ctrl, s = ZD_STATUS_OK;
    while (c->n < ZD_LZ_BATCH) {
        if (ctrl < 32u) {
            zd_u32 run = ctrl + 1u;
            if (src_len - ip < run) {
                s = ZD_STATUS_CORRUPT_TRUNCATED;
                break;
            }
            if (dst_len - op < run) {
                s = ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
                break;
            }
            zd_lz_batch_push_thread(b, c, ip, run, op, 0u, 0u);
            ip += run;
            op += run;
            if (ip >= src_len) {
                b->done = 1u;
                if (op != dst_len) s = ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
                break;
            }
        } else {
            zd_u32 len = (ctrl >> 5) - 1u;
            zd_u32 hi = ctrl & 31u;
            if (len == 6u) {
                zd_u32 x;
                do {
                    if (ip >= src_len) {
                        s = ZD_STATUS_CORRUPT_TRUNCATED;
                        break;
                    }
                    x = src[ip++];
                    len += x;
                } while (x == 255u && len < ZD_BLOSCLZ_LEN_CAP);
                if (s != ZD_STATUS_OK) break;
            }
            if (ip >= src_len) {
                s = ZD_STATUS_CORRUPT_TRUNCATED;
                break;
            }
            zd_u32 lo = src[ip++];
            zd_u32 distance;
            if (hi == 31u && lo == 255u) {
                if (src_len - ip < 2u) {
                    s = ZD_STATUS_CORRUPT_TRUNCATED;
                    break;
                }
                distance = (((zd_u32)src[ip] << 8) | (zd_u32)src[ip + 1u]) + 8192u;
                ip += 2u;
            } else {
                distance = (hi << 8) + lo + 1u;
            }
            zd_u32 length = len + 3u;
            if (distance > op) {
                s = ZD_STATUS_CORRUPT_OFFSET_BEFORE_START;
                break;
            }
            if (dst_len - op < length) {
                s = ZD_STATUS_CORRUPT_OUTPUT_OVERFLOW;
                break;
            }
            if (ip >= src_len) {
                s = ZD_STATUS_CORRUPT_BLOSCLZ;
                break;
            }
            zd_lz_batch_push_thread(b, c, 0u, 0u, op, distance, length);
            op += length;
        }
        ctrl = src[ip++];
    }
    zd_lz_batch_end_thread(b, c);
    c->ip = ip;
    c->op = op;
    c->ctrl = ctrl;
    b->status = s;
}

#endif
