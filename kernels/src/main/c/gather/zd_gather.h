/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_gather.h - the plane gather of a training loader's batch assembly (Java: PlaneGather): whole
 * planes copied from decoded chunks into a batch, each element normalised and converted on the way.
 *
 * For plane p of the table and element i < plane_elems:
 *   x = src[src_plane[p] * plane_elems + i]                 float32 or float64, little-endian
 *   y = isnan(x) && REPLACE_NAN ? nan_value : fma(x, scale[p], shift[p])
 *   dst[dst_plane[p] * plane_elems + i] = out(y)            float32, float16 or bfloat16
 * The arithmetic is fixed so that every front end writes the same bytes as PlaneGather.runOnHost:
 *   float32 x: one float32 fma, rounded once;
 *   float64 x: one float64 fma with scale and shift widened, rounded once to float32;
 *   float16 and bfloat16: round to nearest, ties to even, from that float32; overflow is infinity;
 *   every NaN output is the canonical quiet NaN of its type (0x7FC00000, 0x7E00, 0x7FC0).
 *
 * The table (8-aligned, uploaded once per launch; Java: dev.zarrdirect.kernels.GatherTable):
 *   zd_u64 src_plane[n] | zd_u64 dst_plane[n] | zd_u32 scale_bits[n] | zd_u32 shift_bits[n]
 * Output planes are distinct (the host keeps the last of planes that name the same output plane),
 * so items never write the same element. src and dst point at element 0 of each buffer; a plane
 * outside src_planes or dst_planes (the whole planes each buffer holds) is skipped.
 */
#ifndef ZD_GATHER_H
#define ZD_GATHER_H

#include "zd_portable.h"

/* flags */
#define ZD_GATHER_SRC_F64 0x01u     /* source elements are float64 (else float32) */
#define ZD_GATHER_OUT_F16 0x02u     /* output float16 */
#define ZD_GATHER_OUT_BF16 0x04u    /* output bfloat16 (neither: float32) */
#define ZD_GATHER_REPLACE_NAN 0x08u /* NaNs of the source become nan_value */
#define ZD_GATHER_VEC4 0x10u        /* 4 elements an access: plane_elems % 4 == 0, src 16-aligned, dst 4-element aligned */
#define ZD_GATHER_BYTES 0x20u       /* src or dst not aligned to its element: byte accesses */

#define ZD_GATHER_NAN_F32 0x7FC00000u
#define ZD_GATHER_NAN_F16 0x7E00u
#define ZD_GATHER_NAN_BF16 0x7FC0u

/* Per item: float32 to the bits of an IEEE half, to nearest even; overflow gives infinity; NaN 0x7E00. */
ZD_INLINE zd_u32 zd_gather_f16_soft_thread(zd_u32 f) {
    zd_u32 sign = (f >> 16) & 0x8000u;
    zd_u32 a = f & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return ZD_GATHER_NAN_F16;
    if (a >= 0x477FF000u) return sign | 0x7C00u; /* 65520 and up (the tie above 65504 rounds to even: up) */
    if (a >= 0x38800000u) {                      /* a normal half: 2^-14 and up */
        zd_u32 r = a - 0x38000000u;              /* exponent bias 127 -> 15 */
        return sign | ((r + 0x0FFFu + ((r >> 13) & 1u)) >> 13);
    }
    if (a < 0x33000000u) return sign; /* below 2^-25 (half the smallest subnormal): zero */
    /* a subnormal half, in units of 2^-24: the significand shifted right by 126 - exponent (14..24) */
    zd_u32 e = a >> 23;
    zd_u32 m = (a & 0x7FFFFFu) | 0x800000u;
    zd_u32 s = 126u - e;
    zd_u32 q = m >> s;
    zd_u32 rem = m & ((1u << s) - 1u);
    zd_u32 mid = 1u << (s - 1u);
    if (rem > mid || (rem == mid && (q & 1u) != 0u)) q++;
    return sign | q;
}

/* Per item: the output bits of y (in the low 16 bits for the 16-bit types). */
ZD_INLINE zd_u32 zd_gather_out_thread(float y, zd_u32 flags) {
    zd_u32 b = zd_f32_bits(y);
    zd_u32 is_nan = (b & 0x7FFFFFFFu) > 0x7F800000u;
    if (flags & ZD_GATHER_OUT_F16) {
        if (is_nan) return ZD_GATHER_NAN_F16;
#if ZD_HAS_F16_RNE
        return zd_f32_to_f16_rne(y);
#else
        return zd_gather_f16_soft_thread(b);
#endif
    }
    if (flags & ZD_GATHER_OUT_BF16) return is_nan ? ZD_GATHER_NAN_BF16 : (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
    return is_nan ? ZD_GATHER_NAN_F32 : b;
}

/* Per item: y of a float32 source element with bits xb. */
ZD_INLINE float zd_gather_y32_thread(zd_u32 xb, float scale, float shift, zd_u32 flags, float nan_value) {
    if ((flags & ZD_GATHER_REPLACE_NAN) && (xb & 0x7FFFFFFFu) > 0x7F800000u) return nan_value;
    return zd_fma_f32(zd_f32_from_bits(xb), scale, shift);
}

/* Per item: y of a float64 source element with bits xb (0 where the front end has no double). */
ZD_INLINE float zd_gather_y64_thread(zd_u64 xb, float scale, float shift, zd_u32 flags, float nan_value) {
    if ((flags & ZD_GATHER_REPLACE_NAN) && (xb & ZD_U64(0x7FFFFFFFFFFFFFFF)) > ZD_U64(0x7FF0000000000000))
        return nan_value;
#if ZD_HAS_F64
    return zd_f64_to_f32(zd_fma_f64(zd_f64_from_bits(xb), (double)scale, (double)shift));
#else
    (void)scale;
    (void)shift;
    return 0.0f; /* the host never launches a float64 gather here */
#endif
}

/* Per item: little-endian loads and stores of element-sized words, byte by byte when `bytes`. */
ZD_INLINE zd_u32 zd_gather_ld32_thread(const ZD_GLOBAL zd_u8 *p, zd_u32 bytes) {
    if (!bytes) return *(const ZD_GLOBAL zd_u32 *)p;
    return (zd_u32)p[0] | ((zd_u32)p[1] << 8) | ((zd_u32)p[2] << 16) | ((zd_u32)p[3] << 24);
}
ZD_INLINE zd_u64 zd_gather_ld64_thread(const ZD_GLOBAL zd_u8 *p, zd_u32 bytes) {
    if (!bytes) return *(const ZD_GLOBAL zd_u64 *)p;
    return (zd_u64)zd_gather_ld32_thread(p, 1u) | ((zd_u64)zd_gather_ld32_thread(p + 4, 1u) << 32);
}
ZD_INLINE void zd_gather_st_thread(ZD_GLOBAL zd_u8 *p, zd_u32 v, zd_u32 width, zd_u32 bytes) {
    if (!bytes) {
        if (width == 4u) *(ZD_GLOBAL zd_u32 *)p = v;
        else *(ZD_GLOBAL zd_u16 *)p = (zd_u16)v;
        return;
    }
    for (zd_u32 k = 0; k < width; k++) p[k] = (zd_u8)(v >> (8u * k));
}

/* Per item: element i of one plane (s and d at the plane's first element). */
ZD_INLINE void zd_gather_one_thread(const ZD_GLOBAL zd_u8 *s, ZD_GLOBAL zd_u8 *d, zd_u64 i, float scale, float shift,
                                    zd_u32 flags, float nan_value) {
    zd_u32 bytes = flags & ZD_GATHER_BYTES;
    float y = (flags & ZD_GATHER_SRC_F64)
                  ? zd_gather_y64_thread(zd_gather_ld64_thread(s + i * 8u, bytes), scale, shift, flags, nan_value)
                  : zd_gather_y32_thread(zd_gather_ld32_thread(s + i * 4u, bytes), scale, shift, flags, nan_value);
    zd_u32 width = (flags & (ZD_GATHER_OUT_F16 | ZD_GATHER_OUT_BF16)) ? 2u : 4u;
    zd_gather_st_thread(d + i * width, zd_gather_out_thread(y, flags), width, bytes);
}

/* Per item: elements 4u .. 4u+3 of one plane with one wide load (two for float64) and one wide store. */
ZD_INLINE void zd_gather_vec4_thread(const ZD_GLOBAL zd_u8 *s, ZD_GLOBAL zd_u8 *d, zd_u64 u, float scale, float shift,
                                     zd_u32 flags, float nan_value) {
    float y0, y1, y2, y3;
    if (flags & ZD_GATHER_SRC_F64) {
        zd_u64x2 a = ((const ZD_GLOBAL zd_u64x2 *)s)[2u * u];
        zd_u64x2 b = ((const ZD_GLOBAL zd_u64x2 *)s)[2u * u + 1u];
        y0 = zd_gather_y64_thread(a.x, scale, shift, flags, nan_value);
        y1 = zd_gather_y64_thread(a.y, scale, shift, flags, nan_value);
        y2 = zd_gather_y64_thread(b.x, scale, shift, flags, nan_value);
        y3 = zd_gather_y64_thread(b.y, scale, shift, flags, nan_value);
    } else {
        zd_u32x4 v = ((const ZD_GLOBAL zd_u32x4 *)s)[u];
        y0 = zd_gather_y32_thread(v.x, scale, shift, flags, nan_value);
        y1 = zd_gather_y32_thread(v.y, scale, shift, flags, nan_value);
        y2 = zd_gather_y32_thread(v.z, scale, shift, flags, nan_value);
        y3 = zd_gather_y32_thread(v.w, scale, shift, flags, nan_value);
    }
    if (flags & (ZD_GATHER_OUT_F16 | ZD_GATHER_OUT_BF16)) {
        zd_u16x4 o;
        o.x = (zd_u16)zd_gather_out_thread(y0, flags);
        o.y = (zd_u16)zd_gather_out_thread(y1, flags);
        o.z = (zd_u16)zd_gather_out_thread(y2, flags);
        o.w = (zd_u16)zd_gather_out_thread(y3, flags);
        ((ZD_GLOBAL zd_u16x4 *)d)[u] = o;
    } else {
        zd_u32x4 o;
        o.x = zd_gather_out_thread(y0, flags);
        o.y = zd_gather_out_thread(y1, flags);
        o.z = zd_gather_out_thread(y2, flags);
        o.w = zd_gather_out_thread(y3, flags);
        ((ZD_GLOBAL zd_u32x4 *)d)[u] = o;
    }
}

/*
 * Per item: this item's share of plane p of the table: the accesses first, first + stride, ...
 * (elements, or groups of 4 with ZD_GATHER_VEC4). Items of a launch split a plane among them by
 * choosing first and stride; the planes themselves are independent.
 */
ZD_FUNC void zd_gather_plane_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_planes, ZD_GLOBAL zd_u8 *dst,
                                    zd_u64 dst_planes, const ZD_GLOBAL zd_u64 *table, zd_u32 n_planes,
                                    zd_u64 plane_elems, zd_u32 flags, zd_u32 nan_bits, zd_u32 p, zd_u64 first,
                                    zd_u64 stride) {
    zd_u64 sp = table[p];
    zd_u64 dp = table[n_planes + p];
    if (sp >= src_planes || dp >= dst_planes) return;
    const ZD_GLOBAL zd_u32 *ab = (const ZD_GLOBAL zd_u32 *)(table + 2u * n_planes);
    float scale = zd_f32_from_bits(ab[p]);
    float shift = zd_f32_from_bits(ab[n_planes + p]);
    float nan_value = zd_f32_from_bits(nan_bits);
    zd_u32 es = (flags & ZD_GATHER_SRC_F64) ? 8u : 4u;
    zd_u32 ed = (flags & (ZD_GATHER_OUT_F16 | ZD_GATHER_OUT_BF16)) ? 2u : 4u;
    const ZD_GLOBAL zd_u8 *s = src + sp * plane_elems * es;
    ZD_GLOBAL zd_u8 *d = dst + dp * plane_elems * ed;
    if (flags & ZD_GATHER_VEC4) {
        zd_u64 units = plane_elems / 4u;
        for (zd_u64 u = first; u < units; u += stride) zd_gather_vec4_thread(s, d, u, scale, shift, flags, nan_value);
    } else {
        for (zd_u64 i = first; i < plane_elems; i += stride) zd_gather_one_thread(s, d, i, scale, shift, flags, nan_value);
    }
}

#endif /* ZD_GATHER_H */
