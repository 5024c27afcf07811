/* SPDX-License-Identifier: Apache-2.0 */
/*
 * zd_backend.cl - byte-level kernels of the OpenCL backend: strided region copies and fills
 * (Backend.copyRegions/fillRegions, the transpose and little-endian bytes codecs), byte swapping
 * (big-endian bytes codec) and CRC32C (crc32c codec). Built at run time by OpenClBackend with
 * -DZD_LOCAL_SIZE=<work-group size>.
 *
 * Offsets, extents and strides come in a table of ulong words that the host uploads once per
 * launch; every descriptor the host builds stays inside its buffers (the host checks the bounds
 * of each region before it writes the table), so the kernels do no bounds checks of their own.
 */

#ifndef ZD_LOCAL_SIZE
#define ZD_LOCAL_SIZE 64
#endif

/* Region descriptor: ZD_DESC_WORDS ulongs. */
#define ZD_MAX_RANK 8
#define ZD_DESC_WORDS (5 + 3 * ZD_MAX_RANK)
#define ZD_D_SRC 0      /* byte offset of the first unit in src */
#define ZD_D_DST 1      /* byte offset of the first unit in dst */
#define ZD_D_COUNT 2    /* units to move: the product of the extents */
#define ZD_D_RANK 3     /* dimensions used, 1..ZD_MAX_RANK */
#define ZD_D_WIDTH 4    /* bytes per unit: 1, 2, 4 or 8 */
#define ZD_D_EXT 5      /* extents, outermost first; the last is in units */
#define ZD_D_SSTR (5 + ZD_MAX_RANK)      /* src byte strides */
#define ZD_D_DSTR (5 + 2 * ZD_MAX_RANK)  /* dst byte strides */

/* Moves one unit of `w` bytes; both offsets are multiples of w (the host chose w so). */
inline void zd_move_unit(const global uchar *src, ulong s, global uchar *dst, ulong d, uint w) {
    switch (w) {
    case 8: *(global ulong *)(dst + d) = *(const global ulong *)(src + s); break;
    case 4: *(global uint *)(dst + d) = *(const global uint *)(src + s); break;
    case 2: *(global ushort *)(dst + d) = *(const global ushort *)(src + s); break;
    default: dst[d] = src[s]; break;
    }
}

/*
 * One descriptor per row of the NDRange (dimension 1); the work-items of dimension 0 stride
 * over the descriptor's units.
 */
kernel void zd_copy_regions(const global uchar *src, global uchar *dst, const global ulong *table, uint n) {
    uint di = (uint)get_global_id(1);
    if (di >= n) return;
    const global ulong *t = table + (ulong)di * ZD_DESC_WORDS;
    ulong count = t[ZD_D_COUNT];
    uint rank = (uint)t[ZD_D_RANK];
    uint w = (uint)t[ZD_D_WIDTH];
    ulong last = t[ZD_D_EXT + rank - 1];
    ulong s0 = t[ZD_D_SRC], d0 = t[ZD_D_DST];
    for (ulong u = get_global_id(0); u < count; u += get_global_size(0)) {
        ulong inner = u % last;
        ulong rest = u / last;
        ulong s = s0 + inner * t[ZD_D_SSTR + rank - 1];
        ulong d = d0 + inner * t[ZD_D_DSTR + rank - 1];
        for (int k = (int)rank - 2; k >= 0; k--) {
            ulong e = t[ZD_D_EXT + k];
            ulong i = rest % e;
            rest /= e;
            s += i * t[ZD_D_SSTR + k];
            d += i * t[ZD_D_DSTR + k];
        }
        zd_move_unit(src, s, dst, d, w);
    }
}

/*
 * Fills regions with a pattern of elem bytes. The table starts with 4 ulongs holding the pattern
 * repeated over 32 bytes and 1 ulong holding elem; descriptors follow (src fields unused). Each
 * innermost run starts at an element boundary, so the unit at byte p of a run takes the pattern
 * bytes from phase p % elem.
 */
kernel void zd_fill_regions(global uchar *dst, const global ulong *table, uint n) {
    uint di = (uint)get_global_id(1);
    if (di >= n) return;
    uchar rep[32];
    const global uchar *tb = (const global uchar *)table;
    for (int i = 0; i < 32; i++) rep[i] = tb[i];
    ulong elem = table[4];
    const global ulong *t = table + 5 + (ulong)di * ZD_DESC_WORDS;
    ulong count = t[ZD_D_COUNT];
    uint rank = (uint)t[ZD_D_RANK];
    uint w = (uint)t[ZD_D_WIDTH];
    ulong last = t[ZD_D_EXT + rank - 1];
    ulong d0 = t[ZD_D_DST];
    for (ulong u = get_global_id(0); u < count; u += get_global_size(0)) {
        ulong inner = u % last;
        ulong rest = u / last;
        ulong d = d0 + inner * t[ZD_D_DSTR + rank - 1];
        for (int k = (int)rank - 2; k >= 0; k--) {
            ulong e = t[ZD_D_EXT + k];
            ulong i = rest % e;
            rest /= e;
            d += i * t[ZD_D_DSTR + k];
        }
        uint ph = (uint)((inner * w) % elem);
        switch (w) {
        case 8: *(global ulong *)(dst + d) = as_ulong(vload8(0, rep + ph)); break;
        case 4: *(global uint *)(dst + d) = as_uint(vload4(0, rep + ph)); break;
        case 2: *(global ushort *)(dst + d) = as_ushort(vload2(0, rep + ph)); break;
        default: dst[d] = rep[ph]; break;
        }
    }
}

/*
 * Reverses the bytes of every `unit`-byte word of each item: table rows of 3 ulongs
 * (src offset, dst offset, bytes). Same start in and out is safe (each word is read, then
 * written, by one work-item).
 */
kernel void zd_byteswap(const global uchar *src, global uchar *dst, const global ulong *table, uint n, uint unit) {
    uint di = (uint)get_global_id(1);
    if (di >= n) return;
    const global ulong *t = table + (ulong)di * 3;
    ulong s = t[0], d = t[1], words = t[2] / unit;
    for (ulong i = get_global_id(0); i < words; i += get_global_size(0)) {
        ulong o = i * unit;
        uchar b[8];
        for (uint k = 0; k < unit; k++) b[k] = src[s + o + k];
        for (uint k = 0; k < unit; k++) dst[d + o + k] = b[unit - 1 - k];
    }
}

/* ---- CRC32C (Castagnoli, reflected polynomial 0x82F63B78), as zlib combines CRC32. */
#define ZD_CRC32C_POLY 0x82F63B78u

/* a(x) * b(x) modulo the polynomial, in the reflected representation. */
inline uint zd_crc_multmodp(uint a, uint b) {
    uint m = 1u << 31, p = 0u;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1u)) == 0u) break;
        }
        m >>= 1;
        b = (b & 1u) ? (b >> 1) ^ ZD_CRC32C_POLY : b >> 1;
    }
    return p;
}

/* x^(n * 2^k) modulo the polynomial; x2n[j] holds x^(2^j). */
inline uint zd_crc_x2nmodp(ulong n, uint k, const local uint *x2n) {
    uint p = 1u << 31;
    while (n) {
        if (n & 1u) p = zd_crc_multmodp(x2n[k & 31u], p);
        n >>= 1;
        k++;
    }
    return p;
}

/*
 * One work-group per item; table rows of 4 ulongs: src offset, data bytes, dst offset, flags
 * (bit 0: copy the data to dst; bit 1: encode, i.e. write the CRC as 4 little-endian bytes after
 * the data in dst). results gets 2 uints per item: the stored CRC (the 4 bytes after the data in
 * src; decode only) and the computed one. Each work-item checksums one slice of the data, work-item
 * 0 combines the slices.
 */
kernel __attribute__((reqd_work_group_size(ZD_LOCAL_SIZE, 1, 1)))
void zd_crc32c(const global uchar *src, global uchar *dst, const global ulong *table, global uint *results, uint n) {
    local uint tab[256];
    local uint x2n[32];
    local uint part[ZD_LOCAL_SIZE];
    uint item = (uint)get_group_id(0);
    uint lid = (uint)get_local_id(0);
    for (uint i = lid; i < 256u; i += ZD_LOCAL_SIZE) {
        uint c = i;
        for (int k = 0; k < 8; k++) c = (c & 1u) ? (c >> 1) ^ ZD_CRC32C_POLY : c >> 1;
        tab[i] = c;
    }
    if (lid == 0u) {
        uint p = 1u << 30; /* x^1 */
        for (int j = 0; j < 32; j++) {
            x2n[j] = p;
            p = zd_crc_multmodp(p, p);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (item >= n) return; /* uniform per work-group */
    const global ulong *t = table + (ulong)item * 4;
    ulong s = t[0], len = t[1], d = t[2], flags = t[3];
    ulong slice = (len + ZD_LOCAL_SIZE - 1) / ZD_LOCAL_SIZE;
    ulong begin = min(len, (ulong)lid * slice);
    ulong end = min(len, begin + slice);
    uint c = 0xFFFFFFFFu;
    bool copy = (flags & 1u) != 0u;
    for (ulong i = begin; i < end; i++) {
        uchar b = src[s + i];
        if (copy) dst[d + i] = b;
        c = tab[(c ^ b) & 0xFFu] ^ (c >> 8);
    }
    part[lid] = c ^ 0xFFFFFFFFu;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) {
        uint crc = part[0];
        for (uint k = 1; k < ZD_LOCAL_SIZE; k++) {
            ulong b0 = min(len, (ulong)k * slice);
            ulong b1 = min(len, b0 + slice);
            crc = zd_crc_multmodp(zd_crc_x2nmodp(b1 - b0, 3u, x2n), crc) ^ part[k];
        }
        uint stored = 0u;
        if ((flags & 2u) != 0u) {
            for (int k = 0; k < 4; k++) dst[d + len + k] = (uchar)(crc >> (8 * k));
        } else {
            for (int k = 0; k < 4; k++) stored |= (uint)src[s + len + k] << (8 * k);
        }
        results[2 * item] = stored;
        results[2 * item + 1] = crc;
    }
}
