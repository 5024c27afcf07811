/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_gzip.h - gzip (RFC 1952) decoding by one work-group: one or more members one after the
 * other, as the CPU GzipCodec reads them. Each member: ID1 ID2 = 1f 8b, CM = 8, FLG without
 * reserved bits, then FEXTRA, FNAME, FCOMMENT and FHCRC where flagged (FHCRC is the low 16 bits
 * of the CRC-32 of the header bytes before it), raw deflate, then CRC-32 and ISIZE (size mod
 * 2^32) of the member's output. The members together must produce exactly dst_len bytes, and
 * the input must end exactly after a member (trailing zeros are not skipped: the CPU codec
 * rejects them too).
 *
 * CRC-32 over the output is group-parallel: each item runs a slicing-by-4 CRC over one slice
 * (tables in local memory), and item 0 joins the slices' CRCs: crc(A || B) = crc(A) * x^(8|B|)
 * + crc(B) in GF(2)[x] mod P, where one power serves every slice of the common length.
 *
 * Memory: local sizeof(zd_gzip_lds) = ZD_GZIP_LDS_BYTES (the inflate state and 4 KiB of CRC
 * tables); no global scratch.
 */
#ifndef ZD_GZIP_H
#define ZD_GZIP_H

#include "zd_portable.h"
#include "zstd/zd_status.h"
#include "inflate/zd_inflate.h"

#define ZD_CRC32_POLY 0xEDB88320u /* reflected */

typedef struct {
    zd_inflate_lds inf;
    zd_u32 crc[4][256];
    zd_u64 next;
    zd_u32 hstatus;
} zd_gzip_lds;

#define ZD_GZIP_LDS_BYTES ((zd_u64)sizeof(zd_gzip_lds))
ZD_STATIC_ASSERT(sizeof(zd_gzip_lds) <= 48u * 1024u, zd_gzip_lds_fits_48k);

/* Cooperative: the slicing-by-4 tables. crc[0] is the byte-wise table. */
ZD_INLINE void zd_crc32_tables_group(ZD_LOCAL zd_u32 (*crc)[256]) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    for (zd_u32 i = lid; i < 256u; i += ls) {
        zd_u32 c = i;
        for (zd_u32 k = 0; k < 8u; k++) c = (c & 1u) ? (c >> 1) ^ ZD_CRC32_POLY : c >> 1;
        crc[0][i] = c;
    }
    ZD_BARRIER();
    for (zd_u32 t = 1; t < 4u; t++) {
        for (zd_u32 i = lid; i < 256u; i += ls) {
            zd_u32 c = crc[t - 1u][i];
            crc[t][i] = (c >> 8) ^ crc[0][c & 255u];
        }
        ZD_BARRIER();
    }
}

/* Per item: continues a (pre-inverted) CRC over p[0..n). */
ZD_INLINE zd_u32 zd_crc32_update_thread(zd_u32 c, const ZD_GLOBAL zd_u8 *p, zd_u64 n,
                                        ZD_LOCAL zd_u32 (*crc)[256]) {
    zd_u64 i = 0;
    while (i < n && zd_addr_mod4(p + i) != 0u) c = (c >> 8) ^ crc[0][(c ^ p[i++]) & 255u];
    for (; i + 4u <= n; i += 4u) {
        c ^= zd_ld_u32a(p + i);
        c = crc[3][c & 255u] ^ crc[2][(c >> 8) & 255u] ^ crc[1][(c >> 16) & 255u] ^ crc[0][c >> 24];
    }
    for (; i < n; i++) c = (c >> 8) ^ crc[0][(c ^ p[i]) & 255u];
    return c;
}

/* a * b mod P, both polynomials in the reflected representation (bit 31 is x^0). */
ZD_INLINE zd_u32 zd_crc32_mul_thread(zd_u32 a, zd_u32 b) {
    zd_u32 p = 0;
    for (zd_u32 m = 0x80000000u; m != 0u; m >>= 1) {
        if (a & m) p ^= b;
        b = (b & 1u) ? (b >> 1) ^ ZD_CRC32_POLY : b >> 1;
    }
    return p;
}

/* x^(8n) mod P: the factor that moves a CRC past n more bytes. */
ZD_INLINE zd_u32 zd_crc32_x8n_thread(zd_u64 n) {
    zd_u32 r = 0x80000000u, sq = 0x00800000u; /* x^0, x^8 */
    while (n != 0u) {
        if (n & 1u) r = zd_crc32_mul_thread(sq, r);
        sq = zd_crc32_mul_thread(sq, sq);
        n >>= 1;
    }
    return r;
}

/* Cooperative: the CRC-32 of p[0..n), on every item. lanes: zd_local_size() words. */
ZD_FUNC zd_u32 zd_crc32_group(const ZD_GLOBAL zd_u8 *p, zd_u64 n, ZD_LOCAL zd_u32 (*crc)[256],
                              ZD_LOCAL zd_u32 *lanes) {
    zd_u32 lid = zd_local_id(), ls = zd_local_size();
    zd_u64 slice = ((n + ls - 1u) / ls + 63u) & ~(zd_u64)63u;
    zd_u64 a = zd_min_u64((zd_u64)lid * slice, n), b = zd_min_u64(a + slice, n);
    lanes[lid] = ~zd_crc32_update_thread(0xFFFFFFFFu, p + a, b - a, crc);
    ZD_BARRIER();
    zd_u32 total = 0u;
    if (lid == 0u) {
        total = lanes[0];
        zd_u32 shift = zd_crc32_x8n_thread(slice);
        for (zd_u32 i = 1; i < ls; i++) {
            zd_u64 s0 = zd_min_u64((zd_u64)i * slice, n), s1 = zd_min_u64(s0 + slice, n);
            if (s1 == s0) break;
            zd_u32 f = s1 - s0 == slice ? shift : zd_crc32_x8n_thread(s1 - s0);
            total = zd_crc32_mul_thread(f, total) ^ lanes[i];
        }
        lanes[0] = total;
    }
    /* published through local memory, not a private value that lives across the barrier (PoCL
       3.1 lost such values: item 0 then returned 0) */
    ZD_BARRIER();
    total = lanes[0];
    ZD_BARRIER();
    return total;
}

ZD_INLINE zd_u32 zd_le32_thread(const ZD_GLOBAL zd_u8 *p) {
    return (zd_u32)p[0] | ((zd_u32)p[1] << 8) | ((zd_u32)p[2] << 16) | ((zd_u32)p[3] << 24);
}

/* Item 0: checks the member header at src[pos ..); *data gets where its deflate data starts. */
ZD_FUNC zd_u32 zd_gzip_header_thread(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, zd_u64 pos,
                                     ZD_LOCAL zd_u32 (*crc)[256], zd_u64 *data) {
    if (src_len - pos < 10u) return ZD_STATUS_CORRUPT_TRUNCATED;
    if (src[pos] != 0x1Fu || src[pos + 1u] != 0x8Bu) return ZD_STATUS_CORRUPT_BAD_MAGIC;
    if (src[pos + 2u] != 8u) return ZD_STATUS_CORRUPT_COMPRESSION_METHOD;
    zd_u32 flg = src[pos + 3u];
    if (flg & 0xE0u) return ZD_STATUS_CORRUPT_RESERVED_BIT;
    zd_u64 p = pos + 10u;
    if (flg & 4u) { /* FEXTRA */
        if (src_len - p < 2u) return ZD_STATUS_CORRUPT_TRUNCATED;
        zd_u64 xlen = (zd_u64)src[p] | ((zd_u64)src[p + 1u] << 8);
        p += 2u;
        if (src_len - p < xlen) return ZD_STATUS_CORRUPT_TRUNCATED;
        p += xlen;
    }
    for (zd_u32 f = 8u; f <= 16u; f <<= 1) { /* FNAME, FCOMMENT: zero-terminated */
        if ((flg & f) == 0u) continue;
        while (p < src_len && src[p] != 0u) p++;
        if (p >= src_len) return ZD_STATUS_CORRUPT_TRUNCATED;
        p++;
    }
    if (flg & 2u) { /* FHCRC */
        if (src_len - p < 2u) return ZD_STATUS_CORRUPT_TRUNCATED;
        zd_u32 stored = (zd_u32)src[p] | ((zd_u32)src[p + 1u] << 8);
        zd_u32 c = ~zd_crc32_update_thread(0xFFFFFFFFu, src + pos, p - pos, crc);
        if (stored != (c & 0xFFFFu)) return ZD_STATUS_CORRUPT_GZIP_HEADER_CRC;
        p += 2u;
    }
    *data = p;
    return ZD_STATUS_OK;
}

/*
 * Cooperative: decodes the gzip members of src[0..src_len) into exactly dst[0..dst_len).
 * Every item calls with the same arguments; the status is valid on every item.
 */
ZD_FUNC zd_u32 zd_gzip_decode_group(const ZD_GLOBAL zd_u8 *src, zd_u64 src_len, ZD_GLOBAL zd_u8 *dst, zd_u64 dst_len,
                                    ZD_LOCAL zd_gzip_lds *lds) {
    if (zd_local_size() > ZD_INF_MAX_ITEMS) return ZD_STATUS_GROUP_TOO_LARGE;
    zd_u32 lid = zd_local_id();
    zd_crc32_tables_group(lds->crc);
    if (src_len == 0u) return ZD_STATUS_CORRUPT_TRUNCATED;
    zd_u64 pos = 0u, out = 0u;
    while (pos < src_len) {
        if (lid == 0u) {
            zd_u64 data = 0u;
            lds->hstatus = zd_gzip_header_thread(src, src_len, pos, lds->crc, &data);
            lds->next = data;
        }
        ZD_BARRIER();
        zd_u32 s = lds->hstatus;
        zd_u64 data = lds->next;
        ZD_BARRIER();
        if (s != ZD_STATUS_OK) return s;
        zd_u64 in_end = 0u, out_end = 0u;
        s = zd_inflate_stream_group(src, src_len, data, dst, dst_len, out, &in_end, &out_end, &lds->inf);
        if (s != ZD_STATUS_OK) return s;
        if (src_len - in_end < 8u) return ZD_STATUS_CORRUPT_TRUNCATED;
        zd_u32 c = zd_crc32_group(dst + out, out_end - out, lds->crc, lds->inf.u.lanes);
        if (lid == 0u) {
            if (c != zd_le32_thread(src + in_end)) lds->hstatus = ZD_STATUS_CORRUPT_CHECKSUM;
            else if (zd_le32_thread(src + in_end + 4u) != (zd_u32)(out_end - out)) lds->hstatus = ZD_STATUS_CORRUPT_GZIP_SIZE;
            else lds->hstatus = ZD_STATUS_OK;
        }
        ZD_BARRIER();
        s = lds->hstatus;
        ZD_BARRIER();
        if (s != ZD_STATUS_OK) return s;
        out = out_end;
        pos = in_end + 8u;
    }
    return out == dst_len ? ZD_STATUS_OK : ZD_STATUS_CORRUPT_OUTPUT_UNDERFLOW;
}

#endif
