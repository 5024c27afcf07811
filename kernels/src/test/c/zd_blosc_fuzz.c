/* SPDX-License-Identifier: Apache-2.0 */
/* Sanitizer fuzz driver for the blosc kernels (run by BloscCorruptionTest when gcc has ASan, or by hand):
 *   gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -pthread -I src/main/c \
 *       src/test/c/zd_blosc_fuzz.c -o blosc-fuzz -lm
 *   ./blosc-fuzz src/test/resources/blosc/corpus.bin 40 [seed]
 * For every corpus frame: the frame itself must decode to its raw bytes (or to the status the
 * frame's compressor implies); then every truncation of short frames (sampled for long ones) and
 * `flips` copies with 1-4 random bit flips. Input, output, scratch and plan are separate heap
 * blocks of exactly their size, so the sanitizer sees any read or write past them. Exit 0 when no
 * check failed (the sanitizers abort on their own). */
#include "host/zd_host.c"

#include <stdio.h>

static zd_u8 *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    zd_u8 *b = (zd_u8 *)malloc(*n + 1u);
    if (b == NULL || fread(b, 1, *n, f) != *n) exit(2);
    fclose(f);
    return b;
}

static zd_u32 rd32(const zd_u8 *p) { return (zd_u32)p[0] | (zd_u32)p[1] << 8 | (zd_u32)p[2] << 16 | (zd_u32)p[3] << 24; }

static zd_u64 rng = 0x9E3779B97F4A7C15ull;
static zd_u32 next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (zd_u32)(rng >> 11);
}

/* Decodes one frame with exactly sized heap buffers; returns its status, output in *out (malloc'd). */
static zd_u32 decode(const zd_u8 *frame, size_t len, size_t dst_len, zd_u8 **out, zd_u32 groups, zd_u32 items,
                     zd_u64 spg, zd_u32 mode) {
    zd_u8 *src = (zd_u8 *)malloc(len ? len : 1u);
    memcpy(src, frame, len);
    zd_u8 *dst = (zd_u8 *)malloc(dst_len ? dst_len : 1u);
    zd_u8 *scratch = (zd_u8 *)malloc(spg * groups ? spg * groups : 1u);
    zd_u64 *plan = (zd_u64 *)malloc(ZD_BLOSC_PLAN_BYTES(1));
    zd_u64 so = 0, ss = len, doff = 0, ds = dst_len;
    zd_u32 st = 0xFFFFFFFFu;
    if (zd_host_blosc_decode_batch(src, &so, &ss, dst, &doff, &ds, plan, scratch, spg, &st, 1u, groups, items, mode) != 0)
        exit(3);
    free(src);
    free(scratch);
    free(plan);
    *out = dst;
    return st;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s corpus.bin flips [seed]\n", argv[0]);
        return 2;
    }
    size_t n;
    zd_u8 *c = slurp(argv[1], &n);
    if (c == NULL || n < 12 || memcmp(c, "ZDBLOSC1", 8) != 0) {
        fprintf(stderr, "%s: not a blosc corpus\n", argv[1]);
        return 2;
    }
    int flips = atoi(argv[2]);
    if (argc > 3) rng ^= strtoull(argv[3], NULL, 0) * 0x2545F4914F6CDD1Dull;
    size_t p = 8;
    zd_u32 nd = rd32(c + p);
    p += 4;
    const zd_u8 **data = (const zd_u8 **)malloc(sizeof(zd_u8 *) * nd);
    zd_u32 *dlen = (zd_u32 *)malloc(4u * nd);
    for (zd_u32 i = 0; i < nd; i++) {
        dlen[i] = rd32(c + p);
        data[i] = c + p + 4;
        p += 4u + dlen[i];
    }
    zd_u32 nc = rd32(c + p);
    p += 4;
    zd_u64 spg = ZD_BLOSC_SCRATCH_PER_GROUP(128u * 1024u); /* the corpus blocks are at most 96 KiB */
    long runs = 0, accepted = 0, rejected = 0, fails = 0;
    for (zd_u32 k = 0; k < nc; k++) {
        zd_u32 nl = (zd_u32)c[p] | (zd_u32)c[p + 1] << 8;
        char name[256];
        snprintf(name, sizeof(name), "%.*s", (int)nl, (const char *)(c + p + 2));
        p += 2u + nl;
        zd_u32 d = rd32(c + p), fl = rd32(c + p + 4);
        const zd_u8 *frame = c + p + 8;
        p += 8u + fl;
        zd_u8 *out;
        zd_u32 codec = frame[2] >> 5, memcpyed = (frame[2] & 2u) != 0;
        zd_u32 want = (memcpyed || dlen[d] == 0 || codec != 2u) ? 0u : ZD_STATUS_BLOSC_CODEC_UNSUPPORTED;
        zd_u32 st = decode(frame, fl, dlen[d], &out, 2u, (k % 5u == 0u) ? 3u : 1u, spg, ZD_BLOSC_MODE_ZSTD + ZD_BLOSC_MODE_ZLIB + 2u * (k & 1u) + 4u * ((k >> 1) & 1u));
        if (st != want || (st == 0u && memcmp(out, data[d], dlen[d]) != 0)) {
            fprintf(stderr, "FAIL %s: status %u, want %u\n", name, st, want);
            fails++;
        }
        free(out);
        if (want != 0u) continue;
        zd_u32 step = fl <= 1000u ? 1u : fl / 200u;
        for (zd_u32 cut = 0; cut < fl; cut += (cut < 64u ? 1u : step)) {
            st = decode(frame, cut, dlen[d], &out, 1u, 1u, spg, ZD_BLOSC_MODE_ZSTD + ZD_BLOSC_MODE_ZLIB + 2u * (cut & 1u) + 4u * ((cut >> 1) & 1u));
            free(out);
            runs++;
            if (st == 0u) {
                fprintf(stderr, "FAIL %s: truncated to %u bytes but status 0\n", name, cut);
                fails++;
            }
        }
        zd_u8 *f = (zd_u8 *)malloc(fl);
        for (int i = 0; i < flips; i++) {
            memcpy(f, frame, fl);
            zd_u32 nf = 1u + next() % 4u;
            for (zd_u32 j = 0; j < nf; j++) f[next() % fl] ^= (zd_u8)(1u << (next() % 8u));
            zd_u32 items = (i % 7 == 0) ? 3u : 1u;
            st = decode(f, fl, dlen[d], &out, 1u + (zd_u32)(i % 3), items, spg, ZD_BLOSC_MODE_ZSTD + ZD_BLOSC_MODE_ZLIB + 2u * (zd_u32)(i & 1) + 4u * (zd_u32)((i >> 1) & 1));
            runs++;
            if (st == 0u) accepted++;
            else rejected++;
            free(out);
        }
        free(f);
    }
    free(data);
    free(dlen);
    free(c);
    printf("blosc fuzz: %u frames, %ld corrupted runs (%ld flips accepted, %ld rejected), %ld failures\n", nc, runs,
           accepted, rejected, fails);
    return fails ? 1 : 0;
}
