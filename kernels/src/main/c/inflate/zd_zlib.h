/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_zlib.h - zlib (RFC 1950) decoding by one work-group, as numcodecs' zlib codec writes it and
 * the CPU ZlibCodec reads it: CMF FLG (CM 8, CINFO <= 7, CMF * 256 + FLG a multiple of 31, no
 * FDICT: there is no way to pass a dictionary), raw deflate, Adler-32 big-endian; the stream
 * must produce exactly dst_len bytes and end exactly at src_len.
 *
 * Adler-32 is group-parallel: each item sums one slice, S = sum of its bytes and T = sum of
 * (bytes from it to the slice's end) * byte, both mod 65521; item 0 joins them:
 *   a = 1 + sum S_i,   b = N + sum (T_i + S_i * bytes after slice i)   (mod 65521).
 *
 * Memory: local sizeof(zd_zlib_lds) = ZD_ZLIB_LDS_BYTES; no global scratch.
 */
#ifndef ZD_ZLIB_H
#define ZD_ZLIB_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "inflate/zd_inflate.h"

#define ZD_ADLER_MOD 65521u

typedef struct {
    zd_inflate_lds inf;
    zd_u32 result;
} zd_zlib_lds;

#define ZD_ZLIB_LDS_BYTES ((zd_u64)sizeof(zd_zlib_lds))
ZD_STATIC_ASSERT(sizeof(zd_zlib_lds) <= 48u * 1024u, zd_zlib_lds_fits_48k);

/*
 * Cooperative: the Adler-32 of p[0..n), on every item. acc: 2 words of local memory. Each item sums
 * a slice: its part of a is its bytes' sum, its part of b its own running sum plus that sum moved
 * past the bytes after the slice; two local atomics add the parts (at most 1,024 parts, each below
 * 65521: no overflow). Before, item 0 combined the items' parts in a loop after a barrier: on PoCL
 * 3.1, called from zd_infs_layout_group, that loop read stale parts.
 */
ZD_FUNC zd_u32 zd_adler32_group(const ZD_GLOBAL zd_u8 *p, zd_u64 n, ZD_LOCAL zd_u32 *acc) {
    if (zd_local_id() == 0u) {
        acc[0] = 0u;
        acc[1] = 0u;
    }
    ZD_BARRIER();
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 slice = ((n + ls - 1u) / ls + 63u) & ~(zd_u64)63u;
    zd_u64 a0 = zd_min_u64((zd_u64)lid * slice, n), a1 = zd_min_u64(a0 + slice, n);
    zd_u64 s = 0u, t = 0u;
    /* s < 65521 + 255 * 2^16 and t < 2^16 * s after a stretch of 2^16 bytes: far from 2^64 */
    for (zd_u64 i = a0; i < a1;) {
        zd_u64 stop = zd_min_u64(a1, i + 65536u);
        for (; i < stop; i++) {
            s += p[i];
            t += s;
        }
        s %= ZD_ADLER_MOD;
        t %= ZD_ADLER_MOD;
    }
    zd_atomic_add_u32_local(&acc[0], (zd_u32)s);
    zd_atomic_add_u32_local(&acc[1], (zd_u32)((t + s * ((n - a1) % ZD_ADLER_MOD)) % ZD_ADLER_MOD));
    ZD_BARRIER();
    zd_u32 a = (zd_u32)((1u + (zd_u64)acc[0]) % ZD_ADLER_MOD);
    zd_u32 b = (zd_u32)((n % ZD_ADLER_MOD + (zd_u64)acc[1]) % ZD_ADLER_MOD);
    ZD_BARRIER(); /* acc may be written again once every item has read it */
    return (b << 16) | a;
}

/*
 * Cooperative: decodes the zlib stream src[0..src_len) into exactly dst[0..dst_len).
 * Every item calls with the same arguments; the status is valid on every item.
 */
ZD_FUNC zd_u32 zd_zlib_decode_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len,
                                    ZD_LOCAL zd_zlib_lds *lds) {
    if (zd_local_size() > ZD_INF_MAX_ITEMS) return ZD_STATUS_GROUP_TOO_LARGE;
    if (src_len < 2u) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u32 cmf = src[0], flg = src[1];
    if ((cmf * 256u + flg) % 31u != 0u) return ZD_STATUS_CORRUPT_ZLIB_HEADER_CHECK;
    if ((cmf & 15u) != 8u || (cmf >> 4) > 7u) return ZD_STATUS_CORRUPT_COMPRESSION_METHOD;
    if (flg & 0x20u) return ZD_STATUS_CORRUPT_DICTIONARY_NOT_SUPPORTED;
    zd_u64 in_end = 0u, out_end = 0u;
    zd_u32 s = zd_inflate_stream_group(src, src_len, 2u, dst, dst_len, 0u, &in_end, &out_end, &lds->inf);
    if (s != ZD_STATUS_OK) return s;
    if (src_len - in_end < 4u) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u32 c = zd_adler32_group(dst, out_end, lds->inf.u.lanes);
    if (zd_local_id() == 0u) {
        const ZD_GLOBAL zd_u8 *q = src + in_end;
        zd_u32 stored = ((zd_u32)q[0] << 24) | ((zd_u32)q[1] << 16) | ((zd_u32)q[2] << 8) | (zd_u32)q[3];
        lds->result = stored == c ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_CHECKSUM;
    }
    ZD_BARRIER();
    s = lds->result;
    ZD_BARRIER();
    if (s != ZD_STATUS_OK) return s;
    if (out_end != dst_len) return ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
    if (in_end + 4u != src_len) return ZD_STATUS_CORRUPT_TRAILING_BYTES;
    return ZD_STATUS_OK;
}

#endif
