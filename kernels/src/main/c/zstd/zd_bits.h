/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_bits.h - bounds-checked bit readers (per-item helpers).
 *
 * Forward reader (FSE table descriptions): bits are consumed from bit 0 of byte 0 upward.
 * Backward reader (FSE/Huffman streams): the stream ends with a 1 bit followed by 0..7 zero
 * bits of padding in its last byte; values are read from the highest unread bit downward,
 * each value being the little-endian integer of the bits [pos - n, pos).
 * Reads past either end return zero bits and never touch memory outside [p, p + len);
 * the caller checks zd_fwd_overrun / zd_bwd pos afterwards.
 */
#ifndef ZD_BITS_H
#define ZD_BITS_H

#include "zd_portable.h"

/* Up to 8 bytes little-endian from p[off..], bytes at or past len read as 0. */
ZD_INLINE zd_u64 zd_load_le_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 len, zd_u64 off, zd_u32 n) {
    zd_u64 v = 0;
    if (off < len && len - off >= (zd_u64)n) {
        for (zd_u32 i = 0; i < n; i++) v |= (zd_u64)p[off + i] << (8u * i);
    } else {
        for (zd_u32 i = 0; i < n; i++) {
            if (off + i < len) v |= (zd_u64)p[off + i] << (8u * i);
        }
    }
    return v;
}

ZD_INLINE zd_u64 zd_mask64(zd_u32 n) { return n >= 64u ? ~(zd_u64)0 : (((zd_u64)1 << n) - 1u); }

/* ---------------------------------------------------------------- forward reader */
typedef struct {
    const ZD_GLOBAL zd_u8 *p;
    zd_u64 len;    /* bytes available */
    zd_u64 bitpos; /* bits consumed so far */
} zd_fwd_bits;

/* n <= 32 */
ZD_INLINE zd_u32 zd_fwd_peek_thread(const zd_fwd_bits *r, zd_u32 n) {
    zd_u64 v = zd_load_le_thread(r->p, r->len, r->bitpos >> 3, 5u) >> (r->bitpos & 7u);
    return (zd_u32)(v & zd_mask64(n));
}
ZD_INLINE void zd_fwd_skip_thread(zd_fwd_bits *r, zd_u32 n) { r->bitpos += n; }
ZD_INLINE zd_u32 zd_fwd_read_thread(zd_fwd_bits *r, zd_u32 n) {
    zd_u32 v = zd_fwd_peek_thread(r, n);
    r->bitpos += n;
    return v;
}
/* Bytes consumed, rounded up. */
ZD_INLINE zd_u64 zd_fwd_bytes_thread(const zd_fwd_bits *r) { return (r->bitpos + 7u) >> 3; }
ZD_INLINE int zd_fwd_overrun_thread(const zd_fwd_bits *r) { return zd_fwd_bytes_thread(r) > r->len; }

/* ---------------------------------------------------------------- backward reader */
typedef struct {
    const ZD_GLOBAL zd_u8 *p;
    zd_u64 len;
    zd_i64 pos; /* unread bits; negative after reading past the start (stream overrun) */
} zd_bwd_bits;

/* Returns 0 when the stream is well formed (non-empty, last byte non-zero). */
ZD_INLINE int zd_bwd_init_thread(zd_bwd_bits *r, const ZD_GLOBAL zd_u8 *p, zd_u64 len) {
    r->p = p;
    r->len = len;
    r->pos = 0;
    if (len == 0u) return 1;
    zd_u32 last = p[len - 1u];
    if (last == 0u) return 1;
    r->pos = (zd_i64)((len - 1u) * 8u + zd_highbit32(last));
    return 0;
}

/* Next n bits (n <= 32) without consuming; bits below position 0 read as zero. */
ZD_INLINE zd_u32 zd_bwd_peek_thread(const zd_bwd_bits *r, zd_u32 n) {
    if (n == 0u) return 0u;
    zd_i64 lo = r->pos - (zd_i64)n;
    if (lo >= 0) {
        zd_u64 v = zd_load_le_thread(r->p, r->len, (zd_u64)lo >> 3, 5u) >> ((zd_u64)lo & 7u);
        return (zd_u32)(v & zd_mask64(n));
    }
    if (r->pos <= 0) return 0u;
    zd_u64 v = zd_load_le_thread(r->p, r->len, 0u, 4u) & zd_mask64((zd_u32)r->pos);
    return (zd_u32)(v << (zd_u32)(-lo));
}
ZD_INLINE void zd_bwd_skip_thread(zd_bwd_bits *r, zd_u32 n) { r->pos -= (zd_i64)n; }
ZD_INLINE zd_u32 zd_bwd_read_thread(zd_bwd_bits *r, zd_u32 n) {
    zd_u32 v = zd_bwd_peek_thread(r, n);
    r->pos -= (zd_i64)n;
    return v;
}

/* ---------------------------------------------------------------- fast backward reader
 * Same bit order as zd_bwd_bits, but the bits around the read position sit in a 64-bit
 * container c holding the 8 bytes p[cb .. cb + 8) (fewer, zero-extended, when len < 8), so
 * most reads are shifts of a register. zd_bwdf_refill_thread moves the window so that at least
 * 56 unread bits are in c (or every unread bit, near the start of the stream). A read of n bits
 * (n <= 32) is valid without a refill while pos - 8*cb >= n, or when cb == 0. pos is in bits and
 * goes negative after reading past the start (an overrun), as in zd_bwd_bits. */
typedef struct {
    const ZD_GLOBAL zd_u8 *p;
    zd_u64 c;
    zd_i32 pos;   /* unread bits */
    zd_i32 cbits; /* 8 * cb: bit index of bit 0 of c */
    zd_u32 len;
} zd_bwdf_bits;

/* Loads the container: 8 in-bounds bytes at (pos - 56) / 8, or the first min(len, 8) bytes. */
ZD_INLINE void zd_bwdf_reload_thread(zd_bwdf_bits *r) {
    if (r->pos >= 64) {
        zd_u32 cb = ((zd_u32)r->pos - 56u) >> 3; /* cb + 8 <= len: pos < 8 * len */
        const ZD_GLOBAL zd_u8 *q = r->p + cb;
        r->c = (zd_u64)q[0] | ((zd_u64)q[1] << 8) | ((zd_u64)q[2] << 16) | ((zd_u64)q[3] << 24) |
               ((zd_u64)q[4] << 32) | ((zd_u64)q[5] << 40) | ((zd_u64)q[6] << 48) | ((zd_u64)q[7] << 56);
        r->cbits = (zd_i32)(cb << 3);
    } else if (r->cbits != 0) {
        r->c = zd_load_le_thread(r->p, r->len, 0u, 8u);
        r->cbits = 0;
    }
}
/* Refills when fewer than `need` unread bits are in the container. */
ZD_INLINE void zd_bwdf_refill_thread(zd_bwdf_bits *r, zd_i32 need) {
    if (r->pos - r->cbits < need && r->cbits != 0) zd_bwdf_reload_thread(r);
}
/* Returns 0 when the stream is well formed (non-empty, last byte non-zero); len < 2^28. */
ZD_INLINE int zd_bwdf_init_thread(zd_bwdf_bits *r, const ZD_GLOBAL zd_u8 *p, zd_u64 len) {
    r->p = p;
    r->len = (zd_u32)len;
    r->pos = 0;
    r->cbits = 0;
    r->c = 0u;
    if (len == 0u) return 1;
    zd_u32 last = p[len - 1u];
    if (last == 0u) return 1;
    r->pos = (zd_i32)((zd_u32)(len - 1u) * 8u + zd_highbit32(last));
    r->cbits = 1; /* forces the first load */
    zd_bwdf_reload_thread(r);
    return 0;
}
/* Next n bits (n <= 32) without consuming; bits below position 0 read as zero. */
ZD_INLINE zd_u32 zd_bwdf_peek_thread(const zd_bwdf_bits *r, zd_u32 n) {
    zd_i32 sh = r->pos - r->cbits - (zd_i32)n;
    zd_u64 v;
    if (sh >= 0) v = r->c >> (zd_u32)sh;
    else if (r->pos > r->cbits) v = r->c << (zd_u32)(-sh);
    else v = 0u;
    return (zd_u32)v & (zd_u32)zd_mask64(n);
}
ZD_INLINE zd_u32 zd_bwdf_read_thread(zd_bwdf_bits *r, zd_u32 n) {
    zd_u32 v = zd_bwdf_peek_thread(r, n);
    r->pos -= (zd_i32)n;
    return v;
}

#endif
