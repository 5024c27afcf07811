/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_xxh64.h - XXH64 (seed 0) written from the public algorithm description, split so that a
 * work-group can compute the four 32-byte-stripe accumulators in parallel (one lane per item)
 * and item 0 finishes the hash.
 */
#ifndef ZD_XXH64_H
#define ZD_XXH64_H

#include "zd_portable.h"
#include "zstd/zd_bits.h"

#define ZD_XXH_P1 ZD_U64(0x9E3779B185EBCA87)
#define ZD_XXH_P2 ZD_U64(0xC2B2AE3D27D4EB4F)
#define ZD_XXH_P3 ZD_U64(0x165667B19E3779F9)
#define ZD_XXH_P4 ZD_U64(0x85EBCA77C2B2AE63)
#define ZD_XXH_P5 ZD_U64(0x27D4EB2F165667C5)

ZD_INLINE zd_u64 zd_xxh64_round(zd_u64 acc, zd_u64 input) {
    acc += input * ZD_XXH_P2;
    acc = zd_rotl64(acc, 31u);
    return acc * ZD_XXH_P1;
}

ZD_INLINE zd_u64 zd_xxh64_merge(zd_u64 h, zd_u64 acc) {
    h ^= zd_xxh64_round(0u, acc);
    return h * ZD_XXH_P1 + ZD_XXH_P4;
}

ZD_INLINE zd_u64 zd_load64_thread(const ZD_GLOBAL zd_u8 *p) {
    zd_u64 v = 0;
    for (zd_u32 i = 0; i < 8u; i++) v |= (zd_u64)p[i] << (8u * i);
    return v;
}

/* Accumulator of lane (0..3) over all full 32-byte stripes of p[0..len). */
ZD_INLINE zd_u64 zd_xxh64_lane_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 len, zd_u32 lane) {
    zd_u64 acc;
    if (lane == 0u) acc = ZD_XXH_P1 + ZD_XXH_P2;
    else if (lane == 1u) acc = ZD_XXH_P2;
    else if (lane == 2u) acc = 0u;
    else acc = 0u - ZD_XXH_P1;
    zd_u64 stripes = len / 32u;
    for (zd_u64 s = 0; s < stripes; s++) acc = zd_xxh64_round(acc, zd_load64_thread(p + s * 32u + lane * 8u));
    return acc;
}

/* Final hash from the four lane accumulators (ignored when len < 32) and the tail. */
ZD_INLINE zd_u64 zd_xxh64_finish_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 len, zd_u64 v1, zd_u64 v2, zd_u64 v3,
                                        zd_u64 v4) {
    zd_u64 h;
    if (len >= 32u) {
        h = zd_rotl64(v1, 1u) + zd_rotl64(v2, 7u) + zd_rotl64(v3, 12u) + zd_rotl64(v4, 18u);
        h = zd_xxh64_merge(h, v1);
        h = zd_xxh64_merge(h, v2);
        h = zd_xxh64_merge(h, v3);
        h = zd_xxh64_merge(h, v4);
    } else {
        h = ZD_XXH_P5;
    }
    h += len;
    zd_u64 i = (len / 32u) * 32u;
    for (; i + 8u <= len; i += 8u) {
        h ^= zd_xxh64_round(0u, zd_load64_thread(p + i));
        h = zd_rotl64(h, 27u) * ZD_XXH_P1 + ZD_XXH_P4;
    }
    if (i + 4u <= len) {
        zd_u64 w = (zd_u64)p[i] | ((zd_u64)p[i + 1u] << 8) | ((zd_u64)p[i + 2u] << 16) | ((zd_u64)p[i + 3u] << 24);
        h ^= w * ZD_XXH_P1;
        h = zd_rotl64(h, 23u) * ZD_XXH_P2 + ZD_XXH_P3;
        i += 4u;
    }
    for (; i < len; i++) {
        h ^= (zd_u64)p[i] * ZD_XXH_P5;
        h = zd_rotl64(h, 11u) * ZD_XXH_P1;
    }
    h ^= h >> 33;
    h *= ZD_XXH_P2;
    h ^= h >> 29;
    h *= ZD_XXH_P3;
    h ^= h >> 32;
    return h;
}

/* Single-item XXH64 (seed 0) of p[0..len). */
ZD_INLINE zd_u64 zd_xxh64_thread(const ZD_GLOBAL zd_u8 *p, zd_u64 len) {
    return zd_xxh64_finish_thread(p, len, zd_xxh64_lane_thread(p, len, 0u), zd_xxh64_lane_thread(p, len, 1u),
                                  zd_xxh64_lane_thread(p, len, 2u), zd_xxh64_lane_thread(p, len, 3u));
}

#endif
