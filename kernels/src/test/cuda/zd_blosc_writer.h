/* SPDX-License-Identifier: Apache-2.0 */
// Host-side blosc 1.x writer for the GPU benchmark (zd_blosc_check.cu): lz4 + byte shuffle frames
// from our own small LZ4 block writer. C++ host code only; checked on the CPU by
// zd_blosc_writer_check.cpp against the host build of the kernels.
#ifndef ZD_BLOSC_WRITER_H
#define ZD_BLOSC_WRITER_H
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>
typedef std::vector<unsigned char> Bytes;
static void wr32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }

// ------------------------------------------------------------------ a small LZ4 block writer
// Greedy, one hash probe, 4-byte minimum match; the last 5 bytes are literals and no match starts
// in the last 12, as the block format asks. Returns 0 when the result would not be smaller.
static size_t lz4_put_len(unsigned char *o, size_t op, size_t len) {
    for (; len >= 255; len -= 255) o[op++] = 255;
    o[op++] = (unsigned char)len;
    return op;
}
static size_t lz4_compress(const unsigned char *in, size_t n, unsigned char *out, size_t cap) {
    std::vector<uint32_t> table(1 << 14, 0xFFFFFFFFu);
    size_t ip = 0, anchor = 0, op = 0;
    size_t limit = n > 12 ? n - 12 : 0;
    auto emit = [&](size_t lit, size_t off, size_t ml, bool last) -> bool {
        if (op + 1 + lit + lit / 255 + 8 + ml / 255 > cap) return false;
        size_t tok = op++;
        unsigned char t = (unsigned char)((lit >= 15 ? 15 : lit) << 4);
        if (lit >= 15) op = lz4_put_len(out, op, lit - 15);
        memcpy(out + op, in + anchor, lit);
        op += lit;
        if (!last) {
            out[op++] = (unsigned char)off;
            out[op++] = (unsigned char)(off >> 8);
            size_t m = ml - 4;
            t |= (unsigned char)(m >= 15 ? 15 : m);
            if (m >= 15) op = lz4_put_len(out, op, m - 15);
        }
        out[tok] = t;
        return true;
    };
    while (ip < limit) {
        uint32_t seq;
        memcpy(&seq, in + ip, 4);
        uint32_t h = (seq * 2654435761u) >> 18;
        uint32_t ref = table[h];
        table[h] = (uint32_t)ip;
        uint32_t rs;
        if (ref != 0xFFFFFFFFu) memcpy(&rs, in + ref, 4);
        if (ref == 0xFFFFFFFFu || ip - ref > 65535 || rs != seq) { ip++; continue; }
        size_t ml = 4;
        while (ip + ml < n - 5 && in[ref + ml] == in[ip + ml]) ml++;
        if (!emit(ip - anchor, ip - ref, ml, false)) return 0;
        ip += ml;
        anchor = ip;
    }
    if (!emit(n - anchor, 0, 0, true)) return 0;
    return op < n ? op : 0;
}

// A blosc 1.x frame: lz4, byte shuffle, split streams where the format's rule splits.
static Bytes blosc_lz4_shuffle(const Bytes &raw, uint32_t typesize, uint32_t blocksize) {
    uint32_t n = (uint32_t)raw.size(), nblocks = (n + blocksize - 1) / blocksize;
    Bytes out(16 + 4 * (size_t)nblocks + n + 4 * (size_t)nblocks * typesize + 64);
    out[0] = 2; out[1] = 1; out[2] = 0x01 | (1 << 5); out[3] = (unsigned char)typesize;
    wr32(&out[4], n); wr32(&out[8], blocksize);
    size_t pos = 16 + 4 * (size_t)nblocks;
    Bytes sh(blocksize), tmp(blocksize + blocksize / 255 + 64);
    for (uint32_t b = 0; b < nblocks; b++) {
        uint32_t start = b * blocksize, bs = std::min(blocksize, n - start), ne = bs / typesize;
        wr32(&out[16 + 4 * b], (uint32_t)pos);
        for (uint32_t e = 0; e < ne; e++)
            for (uint32_t j = 0; j < typesize; j++) sh[(size_t)j * ne + e] = raw[start + (size_t)e * typesize + j];
        for (uint32_t i = ne * typesize; i < bs; i++) sh[i] = raw[start + i];
        bool split = bs == blocksize && typesize <= 16 && blocksize / typesize >= 128;
        uint32_t splits = split ? typesize : 1, neb = bs / splits;
        for (uint32_t s = 0; s < splits; s++) {
            size_t c = lz4_compress(&sh[(size_t)s * neb], neb, tmp.data(), tmp.size());
            if (c == 0) { wr32(&out[pos], neb); memcpy(&out[pos + 4], &sh[(size_t)s * neb], neb); pos += 4 + neb; }
            else { wr32(&out[pos], (uint32_t)c); memcpy(&out[pos + 4], tmp.data(), c); pos += 4 + c; }
        }
    }
    wr32(&out[12], (uint32_t)pos);
    out.resize(pos);
    return out;
}

#endif
