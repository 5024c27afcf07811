/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_delta.h - numcodecs' delta filter over one chunk, cooperatively by the items of a group (every
 * item calls). Same bytes as the CPU reference DeltaCodec (backend-cpu), which is numpy's:
 *
 *   encode: out[0] = in[0], out[k] = in[k] - in[k-1]
 *   decode: out[0] = in[0], out[k] = out[k-1] + in[k]
 *
 * in the element type: integers of 1, 2, 4 or 8 bytes wrap (signed and unsigned have the same bits);
 * floats of 2 (IEEE half: each sum or difference computed in float and rounded to half, as numpy and
 * Java's Float.float16ToFloat/floatToFloat16 do), 4 and 8 bytes round to nearest even.
 *
 * Order of the sums. Integer sums wrap modulo 2^bits, which is associative: decoding is a parallel
 * prefix sum, tile by tile (zd_scan_excl_u64_group plus a carry from the tiles before). Float sums
 * are not associative: the k-th output is the k-th rounded partial sum of the sequential loop, and
 * no other evaluation order gives its bits in general (one reassociated sum already rounds
 * differently), so float decoding runs the CPU's sequential loop on item 0 over each tile held in
 * local memory, the group loading and storing the tiles. Encoding is one subtraction per element in
 * every type: parallel and exact.
 *
 * NaN results. A float operation whose result is NaN gets the bits x86-64 SSE gives, where the CPU
 * codec and numpy run: the first NaN operand with its quiet bit set, else (infinity minus infinity)
 * the default NaN with the sign bit set. The device's own NaN (CUDA's 0x7FFFFFFF) never appears.
 * Two NaN operands with different payloads have no single answer on the CPU either (the JIT may swap
 * the operands of an addition); here the accumulated one wins.
 *
 * In place: src == dst is allowed (each tile is read into local memory before any of it is written);
 * partly overlapping src and dst are not. Every access stays inside [0, n * elem) of src and dst.
 */
#ifndef ZD_DELTA_H
#define ZD_DELTA_H

#include "zd_portable.h"
#include "zstd/zd_status.h"

/* Elements per item per tile; a tile is ZD_DELTA_PER_ITEM * local_size elements. */
#define ZD_DELTA_PER_ITEM 8u
/* Largest group the local memory below serves. */
#define ZD_DELTA_MAX_ITEMS 256u
#define ZD_DELTA_TILE_MAX (ZD_DELTA_PER_ITEM * ZD_DELTA_MAX_ITEMS)
#define ZD_DELTA_SCAN_WORDS (ZD_SCAN_TMP_WORDS < ZD_DELTA_MAX_ITEMS ? ZD_SCAN_TMP_WORDS : ZD_DELTA_MAX_ITEMS)

/* The kernel's `type` argument: the element size in bytes, plus ZD_DELTA_FLOAT for floats. */
#define ZD_DELTA_FLOAT 0x100u

typedef struct {
    zd_u64 tile[ZD_DELTA_TILE_MAX]; /* element bits, zero-extended */
    zd_u64 scan[ZD_DELTA_SCAN_WORDS];
} zd_delta_lds;

/* ---------------------------------------------------------------- per item: elements */

/* Element k of p, zero-extended; `wide`: p is aligned to size and the device is little-endian. */
ZD_INLINE zd_u64 zd_delta_load_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 k, zd_u32 size, zd_u32 wide) {
    const ZD_GLOBAL zd_u8 *e = p + k * size;
    if (wide) {
        switch (size) {
        case 1u: return e[0];
        case 2u: return *(const ZD_GLOBAL zd_u16 *)e;
        case 4u: return *(const ZD_GLOBAL zd_u32 *)e;
        default: return *(const ZD_GLOBAL zd_u64 *)e;
        }
    }
    zd_u64 v = 0;
    for (zd_u32 j = 0; j < size; j++) v |= (zd_u64)e[j] << (8u * j);
    return v;
}

/* Stores the low `size` bytes of v as element k of p. */
ZD_INLINE void zd_delta_store_thread(ZD_GLOBAL zd_u8 *p, zd_u64 k, zd_u32 size, zd_u32 wide, zd_u64 v) {
    ZD_GLOBAL zd_u8 *e = p + k * size;
    if (wide) {
        switch (size) {
        case 1u: e[0] = (zd_u8)v; return;
        case 2u: *(ZD_GLOBAL zd_u16 *)e = (zd_u16)v; return;
        case 4u: *(ZD_GLOBAL zd_u32 *)e = (zd_u32)v; return;
        default: *(ZD_GLOBAL zd_u64 *)e = v; return;
        }
    }
    for (zd_u32 j = 0; j < size; j++) e[j] = (zd_u8)(v >> (8u * j));
}

/* ---------------------------------------------------------------- per item: float arithmetic */

/* The NaN x86-64 gives for an operation on a and b whose result is NaN (see the header). */
ZD_INLINE zd_u32 zd_delta_nan_f32(zd_u32 a, zd_u32 b) {
    if ((a & 0x7FFFFFFFu) > 0x7F800000u) return a | 0x00400000u;
    if ((b & 0x7FFFFFFFu) > 0x7F800000u) return b | 0x00400000u;
    return 0xFFC00000u;
}

ZD_INLINE zd_u32 zd_delta_add_f32(zd_u32 a, zd_u32 b) {
    zd_u32 r = zd_f32_bits(zd_f32_from_bits(a) + zd_f32_from_bits(b));
    return (r & 0x7FFFFFFFu) > 0x7F800000u ? zd_delta_nan_f32(a, b) : r;
}

ZD_INLINE zd_u32 zd_delta_sub_f32(zd_u32 a, zd_u32 b) {
    zd_u32 r = zd_f32_bits(zd_f32_from_bits(a) - zd_f32_from_bits(b));
    return (r & 0x7FFFFFFFu) > 0x7F800000u ? zd_delta_nan_f32(a, b) : r;
}

#if ZD_HAS_F64
ZD_INLINE zd_u64 zd_delta_nan_f64(zd_u64 a, zd_u64 b) {
    if ((a & ZD_U64(0x7FFFFFFFFFFFFFFF)) > ZD_U64(0x7FF0000000000000)) return a | ZD_U64(0x0008000000000000);
    if ((b & ZD_U64(0x7FFFFFFFFFFFFFFF)) > ZD_U64(0x7FF0000000000000)) return b | ZD_U64(0x0008000000000000);
    return ZD_U64(0xFFF8000000000000);
}

ZD_INLINE zd_u64 zd_delta_add_f64(zd_u64 a, zd_u64 b) {
    zd_u64 r = zd_f64_bits(zd_f64_from_bits(a) + zd_f64_from_bits(b));
    return (r & ZD_U64(0x7FFFFFFFFFFFFFFF)) > ZD_U64(0x7FF0000000000000) ? zd_delta_nan_f64(a, b) : r;
}

ZD_INLINE zd_u64 zd_delta_sub_f64(zd_u64 a, zd_u64 b) {
    zd_u64 r = zd_f64_bits(zd_f64_from_bits(a) - zd_f64_from_bits(b));
    return (r & ZD_U64(0x7FFFFFFFFFFFFFFF)) > ZD_U64(0x7FF0000000000000) ? zd_delta_nan_f64(a, b) : r;
}
#endif

/* Half bits to float bits, exact; NaN payloads shifted up as Java's Float.float16ToFloat does. */
ZD_INLINE zd_u32 zd_delta_f16_to_f32(zd_u32 h) {
    zd_u32 sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    if (e == 0u) {
        if (m == 0u) return sign;
        zd_u32 top = zd_highbit32(m); /* m * 2^-24 = 1.f * 2^(top - 24) */
        return sign | ((top + 103u) << 23) | ((m << (23u - top)) & 0x7FFFFFu);
    }
    if (e == 31u) return sign | 0x7F800000u | (m << 13);
    return sign | ((e + 112u) << 23) | (m << 13);
}

/* Float bits to half bits, to nearest even, overflow to infinity; a NaN keeps its sign and folds
   its payload into the half's 10 bits as Java's Float.floatToFloat16 does. */
ZD_INLINE zd_u32 zd_delta_f32_to_f16(zd_u32 f) {
    zd_u32 sign = (f >> 16) & 0x8000u, a = f & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return sign | 0x7C00u | ((f & 0x007FE000u) >> 13) | ((f & 0x00001FF0u) >> 4) | (f & 0xFu);
    if (a >= 0x477FF000u) return sign | 0x7C00u; /* >= 65520: the largest half plus half an ulp */
    if (a <= 0x33000000u) return sign;           /* <= 2^-25: half the smallest subnormal, or less */
    zd_i32 exp = (zd_i32)(a >> 23) - 127;
    zd_u32 shift = 13u, msb = 0u;
    if (exp < -14) { /* a half subnormal */
        shift += (zd_u32)(-14 - exp);
        exp = -15;
        msb = 0x00800000u;
    }
    zd_u32 sig = (f & 0x007FFFFFu) | msb;
    zd_u32 bits = sig >> shift;
    zd_u32 lsb = sig & (1u << shift), mid = sig & (1u << (shift - 1u)), sticky = sig & ((1u << (shift - 1u)) - 1u);
    if (mid != 0u && (lsb | sticky) != 0u) bits++;
    return sign | ((((zd_u32)(exp + 15)) << 10) + bits);
}

ZD_INLINE zd_u64 zd_delta_add_f16(zd_u64 a, zd_u64 b) {
    return zd_delta_f32_to_f16(zd_delta_add_f32(zd_delta_f16_to_f32((zd_u32)a), zd_delta_f16_to_f32((zd_u32)b)));
}

ZD_INLINE zd_u64 zd_delta_sub_f16(zd_u64 a, zd_u64 b) {
    return zd_delta_f32_to_f16(zd_delta_sub_f32(zd_delta_f16_to_f32((zd_u32)a), zd_delta_f16_to_f32((zd_u32)b)));
}

/* a + b (decode) or a - b (encode) in the element type; integers wrap at the store. */
ZD_INLINE zd_u64 zd_delta_op_thread(zd_u64 a, zd_u64 b, zd_u32 type, zd_u32 sub) {
    switch (type) {
    case ZD_DELTA_FLOAT | 2u: return sub ? zd_delta_sub_f16(a, b) : zd_delta_add_f16(a, b);
    case ZD_DELTA_FLOAT | 4u: return sub ? zd_delta_sub_f32((zd_u32)a, (zd_u32)b) : zd_delta_add_f32((zd_u32)a, (zd_u32)b);
#if ZD_HAS_F64
    case ZD_DELTA_FLOAT | 8u: return sub ? zd_delta_sub_f64(a, b) : zd_delta_add_f64(a, b);
#endif
    default: return sub ? a - b : a + b;
    }
}

/* ---------------------------------------------------------------- per group: one chunk */

/*
 * Encodes (encode != 0) or decodes one chunk: the src_len bytes of src into the first src_len bytes
 * of dst. type: the element size (1, 2, 4, 8) plus ZD_DELTA_FLOAT for floats (2, 4, 8). Returns
 * ZD_STATUS_OK, or ZD_STATUS_BAD_ARGUMENT without touching dst for a type it does not know (float64
 * where the device has no double), a src_len that is not whole elements, a dst_len below src_len or
 * a group larger than ZD_DELTA_MAX_ITEMS. The result is valid on every item.
 */
ZD_FUNC zd_u32 zd_delta_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len,
                              zd_u32 type, zd_u32 encode, ZD_LOCAL zd_delta_lds *lds) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u32 size = type & 0xFFu, fp = (type & ZD_DELTA_FLOAT) != 0u;
    zd_u32 known = size == 1u || size == 2u || size == 4u || size == 8u;
    if (type & ~(ZD_DELTA_FLOAT | 0xFFu)) known = 0u;
    if (fp && size == 1u) known = 0u;
#if !ZD_HAS_F64
    if (fp && size == 8u) known = 0u;
#endif
    if (!known || ls > ZD_DELTA_MAX_ITEMS || src_len % size != 0u || dst_len < src_len) return ZD_STATUS_BAD_ARGUMENT;
    zd_u64 n = src_len / size;
    zd_u32 wide = ZD_LITTLE_ENDIAN && (zd_addr_mod8(src) & (size - 1u)) == 0u && (zd_addr_mod8(dst) & (size - 1u)) == 0u;
    zd_u64 tile = (zd_u64)ZD_DELTA_PER_ITEM * ls;
    zd_u64 carry = 0;   /* integer decode: the sum of every element before the tile */
    zd_u64 acc = 0;     /* float decode (item 0): the last output before the tile */
    zd_u64 before = 0;  /* encode: the last input before the tile */
    /* Every barrier below is reached by every item in every tile, whatever the type and direction
       (PoCL's work-group compiler wants barriers outside of branches). */
    for (zd_u64 at = 0; at < n; at += tile) {
        zd_u64 cnt = zd_min_u64(tile, n - at);
        for (zd_u64 e = lid; e < tile; e += ls) lds->tile[e] = e < cnt ? zd_delta_load_thread(src, at + e, size, wide) : 0u;
        ZD_BARRIER();
        zd_u32 scan = !encode && !fp;
        zd_u64 first = (zd_u64)lid * ZD_DELTA_PER_ITEM, part = 0, total;
        if (scan)
            for (zd_u32 j = 0; j < ZD_DELTA_PER_ITEM; j++) part += lds->tile[first + j];
        zd_u64 run = carry + zd_scan_excl_u64_group(part, lds->scan, &total);
        if (encode) {
            /* every input of the tile is in local memory: outputs may overwrite src */
            for (zd_u64 e = lid; e < cnt; e += ls) {
                zd_u64 cur = lds->tile[e];
                zd_u64 prev = e > 0u ? lds->tile[e - 1u] : before;
                zd_delta_store_thread(dst, at + e, size, wide, at + e == 0u ? cur : zd_delta_op_thread(cur, prev, type, 1u));
            }
            before = lds->tile[cnt - 1u];
        } else if (fp) {
            if (lid == 0u) {
                for (zd_u64 e = 0; e < cnt; e++) {
                    acc = at + e == 0u ? lds->tile[e] : zd_delta_op_thread(acc, lds->tile[e], type, 0u);
                    lds->tile[e] = acc;
                }
            }
        } else {
            for (zd_u32 j = 0; j < ZD_DELTA_PER_ITEM; j++) {
                run += lds->tile[first + j];
                lds->tile[first + j] = run;
            }
            carry += total;
        }
        ZD_BARRIER();
        if (!encode)
            for (zd_u64 e = lid; e < cnt; e += ls) zd_delta_store_thread(dst, at + e, size, wide, lds->tile[e]);
        ZD_BARRIER();
    }
    return ZD_STATUS_OK;
}

#endif
