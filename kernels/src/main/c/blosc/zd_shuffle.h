/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_shuffle.h - undoes blosc's byte shuffle and bit shuffle for one block, cooperatively by the
 * items of a group (every item calls; src and dst must not overlap). Same bytes as the CPU
 * reference ByteShuffle.unshuffle and BitShuffle.unshuffleBlock:
 *
 *   byte shuffle: n = bytes / typesize elements stored as typesize rows of n bytes (row j holds
 *     byte j of every element); bytes after the last whole element are stored unchanged.
 *   bit shuffle (blosc format version 2): when n is a non-zero multiple of 8, the n x 8*typesize
 *     bit matrix is stored transposed (bit k of byte j of element i is bit (8j + k) * n + i of
 *     the block, least significant bit first); the bytes after the last whole element are stored
 *     unchanged. Otherwise the whole block is stored unchanged.
 *
 * Work split: byte shuffle, one element per item (reads of a row are consecutive across items,
 * writes land side by side, as 4-byte words where the type size and dst allow: two elements per
 * word for typesize 2); bit shuffle, one group of 8 elements per item (8 row bytes read,
 * one 8x8 bit transpose per byte of the type, 8 * typesize bytes written).
 */
#ifndef ZD_SHUFFLE_H
#define ZD_SHUFFLE_H

#include "zd_portable.h"

ZD_INLINE void zd_blosc_copy_group(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, zd_u64 n) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    /* word copies where both sides share 4-byte alignment (the common case: block offsets are
       multiples of the type size and buffers are aligned) */
    if (zd_addr_mod4(src) == zd_addr_mod4(dst)) {
        zd_u64 head = (4u - zd_addr_mod4(src)) & 3u;
        if (head > n) head = n;
        for (zd_u64 i = lid; i < head; i += ls) dst[i] = src[i];
        zd_u64 words = (n - head) >> 2;
        for (zd_u64 w = lid; w < words; w += ls) zd_st_u32a(dst + head + 4u * w, zd_ld_u32a(src + head + 4u * w));
        for (zd_u64 i = head + 4u * words + lid; i < n; i += ls) dst[i] = src[i];
        return;
    }
    for (zd_u64 i = lid; i < n; i += ls) dst[i] = src[i];
}

ZD_INLINE void zd_byte_unshuffle_group(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, zd_u64 bytes,
                                       zd_u32 typesize) {
    zd_u64 n = bytes / typesize;
    if (typesize <= 1u || n == 0u) {
        zd_blosc_copy_group(src, dst, bytes);
        return;
    }
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    if ((typesize & 3u) == 0u && (n & 3u) == 0u && zd_addr_mod4(src) == 0u && zd_addr_mod4(dst) == 0u) {
        /* four elements per item: a word of each of four byte planes, transposed as a 4 x 4 byte
           matrix into a word of each element. Byte loads, one element per item, waited on memory
           once for 4 bytes: in Nsight Compute that wait was the costliest instruction of the blosc
           kernel on 1 GiB of lz4 + shuffle (8% of its stall samples) */
        zd_u64 quads = n >> 2;
        for (zd_u64 q = lid; q < quads; q += ls) {
            ZD_GLOBAL zd_u8 *o = dst + 4u * q * typesize;
            for (zd_u32 j = 0; j < typesize; j += 4u) {
                const ZD_GLOBAL zd_u8 *r = src + (zd_u64)j * n + 4u * q;
                zd_u32 a = zd_ld_u32a(r), b = zd_ld_u32a(r + n), c = zd_ld_u32a(r + 2u * n), d = zd_ld_u32a(r + 3u * n);
                zd_st_u32a(o + j, (a & 0xFFu) | ((b & 0xFFu) << 8) | ((c & 0xFFu) << 16) | (d << 24));
                zd_st_u32a(o + typesize + j,
                           ((a >> 8) & 0xFFu) | (b & 0xFF00u) | ((c & 0xFF00u) << 8) | ((d & 0xFF00u) << 16));
                zd_st_u32a(o + 2u * typesize + j,
                           ((a >> 16) & 0xFFu) | ((b >> 8) & 0xFF00u) | (c & 0xFF0000u) | ((d & 0xFF0000u) << 8));
                zd_st_u32a(o + 3u * typesize + j,
                           (a >> 24) | ((b >> 16) & 0xFF00u) | ((c >> 8) & 0xFF0000u) | (d & 0xFF000000u));
            }
        }
    } else if ((typesize & 3u) == 0u && zd_addr_mod4(dst) == 0u) {
        /* whole 4-byte words per item: a group's stores cover consecutive words */
        for (zd_u64 e = lid; e < n; e += ls) {
            ZD_GLOBAL zd_u8 *o = dst + e * typesize;
            for (zd_u32 j = 0; j < typesize; j += 4u) {
                const ZD_GLOBAL zd_u8 *r = src + (zd_u64)j * n + e;
                zd_st_u32a(o + j, (zd_u32)r[0] | ((zd_u32)r[n] << 8) | ((zd_u32)r[2u * n] << 16) |
                                      ((zd_u32)r[3u * n] << 24));
            }
        }
    } else if (typesize == 2u && zd_addr_mod4(dst) == 0u) {
        /* two elements per item and word */
        for (zd_u64 e = 2u * lid; e + 1u < n; e += 2u * ls) {
            const ZD_GLOBAL zd_u8 *r = src + e;
            zd_st_u32a(dst + 2u * e, (zd_u32)r[0] | ((zd_u32)r[n] << 8) | ((zd_u32)r[1] << 16) | ((zd_u32)r[n + 1u] << 24));
        }
        if ((n & 1u) && lid == 0u) {
            dst[2u * (n - 1u)] = src[n - 1u];
            dst[2u * (n - 1u) + 1u] = src[2u * n - 1u];
        }
    } else {
        for (zd_u64 e = lid; e < n; e += ls) {
            ZD_GLOBAL zd_u8 *o = dst + e * typesize;
            for (zd_u32 j = 0; j < typesize; j++) o[j] = src[(zd_u64)j * n + e];
        }
    }
    zd_u64 whole = n * typesize;
    for (zd_u64 i = whole + lid; i < bytes; i += ls) dst[i] = src[i];
}

/* The 8x8 bit matrix in x (bit 8r + c: row r, column c) transposed: bit 8c + r holds it. */
ZD_INLINE zd_u64 zd_transpose8x8(zd_u64 x) {
    zd_u64 t = (x ^ (x >> 7)) & ZD_U64(0x00AA00AA00AA00AA);
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & ZD_U64(0x0000CCCC0000CCCC);
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & ZD_U64(0x00000000F0F0F0F0);
    x ^= t ^ (t << 28);
    return x;
}

ZD_INLINE void zd_bit_unshuffle_group(const ZD_GLOBAL zd_u8 *src, ZD_GLOBAL zd_u8 *dst, zd_u64 bytes,
                                      zd_u32 typesize) {
    zd_u64 n = bytes / typesize;
    if (n == 0u || (n & 7u) != 0u) {
        zd_blosc_copy_group(src, dst, bytes);
        return;
    }
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 row = n >> 3; /* bytes per bit row */
    for (zd_u64 g = lid; g < row; g += ls) {
        ZD_GLOBAL zd_u8 *o = dst + g * 8u * typesize;
        for (zd_u32 j = 0; j < typesize; j++) {
            const ZD_GLOBAL zd_u8 *r = src + (zd_u64)j * 8u * row + g;
            zd_u64 x = 0;
            ZD_UNROLL
            for (zd_u32 k = 0; k < 8u; k++) x |= (zd_u64)r[(zd_u64)k * row] << (8u * k);
            x = zd_transpose8x8(x);
            ZD_UNROLL
            for (zd_u32 m = 0; m < 8u; m++) o[(zd_u64)m * typesize + j] = (zd_u8)(x >> (8u * m));
        }
    }
    zd_u64 whole = n * typesize;
    for (zd_u64 i = whole + lid; i < bytes; i += ls) dst[i] = src[i];
}

#endif
