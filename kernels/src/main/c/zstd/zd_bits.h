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

#endif
