/* SPDX-License-Identifier: Apache-2.0 */
// Manual device check and benchmark of the blosc kernels (not part of the Maven build).
//  1. With a corpus (kernels/src/test/resources/blosc/corpus.bin, frames written by c-blosc 1.21):
//     every frame in one batch, through every entry (zd_blosc_decode, the lz ones), several grid and
//     group sizes; statuses as the host tests expect them (zstd and zlib in decode_lz:
//     BLOSC_CODEC_UNSUPPORTED or 0), bytes equal to the raw data, guard bytes around every chunk intact.
//  2. Generated lz4 + byte-shuffle chunks (float32 fields of zd_bench_data.h, framed here by a
//     small LZ4 writer of our own), repeated up to --gib GiB of decoded bytes, each copy with its
//     own compressed bytes: checked byte for byte, then plan + decode timed with CUDA events
//     (median of --reps) for the three lz entries (whole group per stream with match waves, bytes
//     copied in pieces, or with copy chains resolved; thread per stream), several group sizes and
//     grids; GB/s of decoded bytes. Store-like chunks (a [16, 721, 1440] float32
//     step, c-blosc's 512 KiB blocks, 4 chunks a call): --chunk 66447360 --block 524288 --gib 0.25
//  3. With --frames MANIFEST (lines "FRAME_FILE RAW_FILE": blosc frames written by another
//     implementation, e.g. the chunk files of a store TensorStore wrote, and their decoded bytes):
//     the frames repeated up to --gib GiB, each copy with its own compressed bytes, decoded by the
//     entry the CUDA codec picks for their compressor (lz4/blosclz: zd_blosc_decode_lz, zstd:
//     zd_blosc_decode_zstd, zlib: zd_blosc_decode_zlib) over a few group shapes; checked byte for
//     byte, timed as in 2 (tools/gpu/blosc-kernel-bench.sh runs it per compressor and shuffle).
// Build (from kernels/):
//   nvcc -O3 -I src/main/c -I src/test/cuda -gencode arch=compute_90,code=sm_90 -o zd_blosc_check src/test/cuda/zd_blosc_check.cu
// Run: ./zd_blosc_check --corpus src/test/resources/blosc/corpus.bin [--gib 1] [--chunk 1048576] [--block 131072] [--reps 5]
//      ./zd_blosc_check --frames MANIFEST [--gib 1] [--reps 5]
#include "cuda/zd_blosc.cu"
#include "zd_bench_data.h"
#include "zd_blosc_writer.h"
#include "zd_harness_io.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3); } } while (0)
static const int GUARD = 64;
static const unsigned char POISON = 0xA5;

static zd_u32 rd32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (zd_u32)p[3] << 24; }

// ------------------------------------------------------------------ batches on the device
struct Batch {
    std::vector<zd_u64> so, ss, dof, ds;
    Bytes src;
    size_t dst_bytes = GUARD;
    void add(const Bytes &frame, size_t dlen) {
        so.push_back(src.size()); ss.push_back(frame.size());
        src.insert(src.end(), frame.begin(), frame.end());
        dof.push_back(dst_bytes); ds.push_back(dlen);
        dst_bytes += dlen + GUARD;
    }
    zd_u32 n() const { return (zd_u32)so.size(); }
};

struct Dev {
    zd_u8 *src = nullptr, *dst = nullptr, *scratch = nullptr;
    zd_u64 *so, *ss, *dof, *ds, *plan;
    zd_u32 *status;
    size_t scratch_bytes = 0;
    Dev(const Batch &b) {
        zd_u32 n = b.n();
        CK(cudaMalloc(&src, std::max<size_t>(1, b.src.size())));
        CK(cudaMalloc(&dst, b.dst_bytes));
        CK(cudaMalloc(&so, 8 * (size_t)n + 8)); CK(cudaMalloc(&ss, 8 * (size_t)n + 8));
        CK(cudaMalloc(&dof, 8 * (size_t)n + 8)); CK(cudaMalloc(&ds, 8 * (size_t)n + 8));
        CK(cudaMalloc(&plan, ZD_BLOSC_PLAN_BYTES(n)));
        CK(cudaMalloc(&status, 4 * (size_t)n + 4));
        CK(cudaMemcpy(src, b.src.data(), b.src.size(), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(so, b.so.data(), 8 * (size_t)n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(ss, b.ss.data(), 8 * (size_t)n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dof, b.dof.data(), 8 * (size_t)n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(ds, b.ds.data(), 8 * (size_t)n, cudaMemcpyHostToDevice));
    }
    void need_scratch(size_t bytes) {
        if (bytes <= scratch_bytes) return;
        if (scratch) CK(cudaFree(scratch));
        CK(cudaMalloc(&scratch, bytes));
        scratch_bytes = bytes;
    }
    ~Dev() {
        cudaFree(src); cudaFree(dst); cudaFree(so); cudaFree(ss); cudaFree(dof); cudaFree(ds); cudaFree(plan);
        cudaFree(status); if (scratch) cudaFree(scratch);
    }
    // one run on poisoned output and statuses, both read back into out (the batch's dst_bytes) and st:
    // the run a check looks at
    void run_checked(zd_u32 n, int entry, zd_u32 groups, zd_u32 items, zd_u64 spg, Bytes &out,
                     std::vector<zd_u32> &st) {
        CK(cudaMemset(dst, POISON, out.size()));
        CK(cudaMemset(status, 0x5A, 4 * (size_t)n));
        run(n, entry, groups, items, spg);
        CK(cudaMemcpy(out.data(), dst, out.size(), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(st.data(), status, 4 * (size_t)n, cudaMemcpyDeviceToHost));
    }
    // plan + decode (entry: 0 zd_blosc_decode, 1 zd_blosc_decode_lz, 2 zd_blosc_decode_lz_thread,
    // 3 zd_blosc_decode_lz_resolve, 4 zd_blosc_decode_lz_overlap, 5 zd_blosc_decode_zstd, 6 zd_blosc_decode_zlib);
    // returns the time of both launches in ms
    float run(zd_u32 n, int entry, zd_u32 groups, zd_u32 items, zd_u64 spg) {
        need_scratch(spg * groups);
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
        CK(cudaEventRecord(e0));
        zd_blosc_plan<<<1, 1024>>>(src, so, ss, ds, plan, status, n);
        CK(cudaGetLastError());
        if (entry == 1) zd_blosc_decode_lz<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        else if (entry == 2)
            zd_blosc_decode_lz_thread<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        else if (entry == 3)
            zd_blosc_decode_lz_resolve<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        else if (entry == 4)
            zd_blosc_decode_lz_overlap<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        else if (entry == 5)
            zd_blosc_decode_zstd<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        else if (entry == 6)
            zd_blosc_decode_zlib<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        else zd_blosc_decode<<<groups, items>>>(src, so, ss, dst, dof, ds, plan, scratch, spg, status, n);
        CK(cudaGetLastError());
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaDeviceSynchronize());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
        return ms;
    }
};

static int corpus_check(const std::string &path) {
    Bytes c = zd_slurp(path);
    if (c.size() < 12 || memcmp(c.data(), "ZDBLOSC1", 8) != 0) { fprintf(stderr, "%s: not a blosc corpus\n", path.c_str()); return 2; }
    size_t p = 8;
    zd_u32 nd = rd32(&c[p]); p += 4;
    std::vector<Bytes> data;
    for (zd_u32 i = 0; i < nd; i++) { zd_u32 l = rd32(&c[p]); data.emplace_back(c.begin() + p + 4, c.begin() + p + 4 + l); p += 4 + l; }
    zd_u32 nc = rd32(&c[p]); p += 4;
    Batch b;
    std::vector<std::string> names;
    std::vector<zd_u32> which;
    for (zd_u32 k = 0; k < nc; k++) {
        zd_u32 nl = c[p] | c[p + 1] << 8;
        names.emplace_back((const char *)&c[p + 2], nl); p += 2 + nl;
        zd_u32 d = rd32(&c[p]), fl = rd32(&c[p + 4]);
        b.add(Bytes(c.begin() + p + 8, c.begin() + p + 8 + fl), data[d].size());
        which.push_back(d);
        p += 8 + fl;
    }
    Dev dev(b);
    Bytes out(b.dst_bytes);
    std::vector<zd_u32> st(nc);
    int fails = 0;
    static const char *entries[] = {"zd_blosc_decode", "zd_blosc_decode_lz", "zd_blosc_decode_lz_thread",
                                    "zd_blosc_decode_lz_resolve", "zd_blosc_decode_lz_overlap"};
    for (int lz = 0; lz < 5; lz++)
        for (zd_u32 items : {32u, 128u})
            for (zd_u32 groups : {1u, 7u, 264u}) {
                zd_u64 spg = lz ? ZD_BLOSC_LZ_SCRATCH_PER_GROUP(1 << 20) : ZD_BLOSC_SCRATCH_PER_GROUP(1 << 20);
                dev.run_checked(nc, lz, groups, items, spg, out, st);
                int bad = 0;
                for (zd_u32 i = 0; i < nc; i++) {
                    const unsigned char *f = &b.src[b.so[i]];
                    zd_u32 codec = f[2] >> 5, memcpyed = (f[2] & 2) != 0;
                    zd_u32 want = (memcpyed || b.ds[i] == 0 || codec != 2) ? 0 : ZD_STATUS_BLOSC_CODEC_UNSUPPORTED;
                    bool ok = st[i] == want || (lz && (codec == 4 || codec == 3) && st[i] == ZD_STATUS_BLOSC_CODEC_UNSUPPORTED);
                    if (ok && st[i] == 0 && memcmp(&out[b.dof[i]], data[which[i]].data(), b.ds[i]) != 0) ok = false;
                    for (int g = 0; g < GUARD && ok; g++) if (out[b.dof[i] + b.ds[i] + g] != POISON) ok = false;
                    if (!ok && bad++ < 5) printf("  %s: status %u (want %u)\n", names[i].c_str(), st[i], want);
                }
                for (int g = 0; g < GUARD; g++) if (out[g] != POISON) { bad++; break; }
                printf("corpus %-25s %4u groups x %3u items: %u frames, %d bad\n", entries[lz], groups, items, nc, bad);
                fails += bad;
            }
    return fails;
}

static int bench(double gib, zd_u32 chunk, zd_u32 block, int reps) {
    size_t n = (size_t)(gib * 1073741824.0 / chunk);
    const int distinct = (int)std::min<size_t>(16, std::max<size_t>(1, n)); // chunks as large as a store's: few
    std::vector<Bytes> raw(distinct), frames(distinct);
    size_t zsum = 0;
    for (int k = 0; k < distinct; k++) {
        raw[k].resize(chunk);
        zdg_fill(raw[k].data(), chunk, 1, 1000 + k);
        frames[k] = blosc_lz4_shuffle(raw[k], 4, block);
        zsum += frames[k].size();
    }
    Batch b;
    for (size_t i = 0; i < n; i++) b.add(frames[i % distinct], chunk);
    printf("bench: lz4 + shuffle, typesize 4, %zu chunks of %u bytes, blocks of %u, ratio %.2f, %.1f MiB compressed\n", n,
           chunk, block, (double)chunk * distinct / zsum, b.src.size() / 1048576.0);
    Dev dev(b);
    Bytes out(b.dst_bytes);
    std::vector<zd_u32> st(n);
    int dev_id, sms;
    CK(cudaGetDevice(&dev_id));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev_id));
    int fails = 0;
    zd_u64 spg = ZD_BLOSC_LZ_SCRATCH_PER_GROUP(block);
    static const char *names[] = {"", "zd_blosc_decode_lz", "zd_blosc_decode_lz_thread", "zd_blosc_decode_lz_resolve",
                                  "zd_blosc_decode_lz_overlap"};
    for (int entry : {1, 4, 3, 2})
    for (zd_u32 items : {32u, 64u, 128u})
        for (zd_u32 per_sm : {4u, 8u, 16u, 32u}) {
            zd_u32 groups = per_sm * (zd_u32)sms;
            if (entry == 4 && items <= 32u) continue; // the overlap needs a second warp
            dev.run_checked((zd_u32)n, entry, groups, items, spg, out, st); // warm-up, and the run that is checked
            int bad = 0;
            for (size_t i = 0; i < n; i++) {
                bool ok = st[i] == 0 && memcmp(&out[b.dof[i]], raw[i % distinct].data(), chunk) == 0;
                for (int g = 0; g < GUARD && ok; g++) if (out[b.dof[i] + chunk + g] != POISON) ok = false;
                if (!ok && bad++ < 3) printf("  chunk %zu: status %u or bytes differ\n", i, st[i]);
            }
            std::vector<float> t;
            for (int r = 0; r < reps; r++) t.push_back(dev.run((zd_u32)n, entry, groups, items, spg));
            std::sort(t.begin(), t.end());
            float ms = t[t.size() / 2];
            printf("%-25s %3u items x %5u groups (%2u/SM): %8.3f ms  %7.2f GB/s decoded  bad chunks %d\n",
                   names[entry], items, groups, per_sm, ms,
                   (double)n * chunk / (ms * 1e6), bad);
            fails += bad;
        }
    return fails;
}

// Frames written elsewhere (see 3. above), decoded as the CUDA codec would.
static int frames_bench(const std::string &manifest, double gib, int reps) {
    std::vector<Bytes> frames, raws;
    std::vector<std::string> names;
    FILE *m = fopen(manifest.c_str(), "r");
    if (!m) { fprintf(stderr, "cannot open %s\n", manifest.c_str()); return 2; }
    char fa[4096], ra[4096];
    while (fscanf(m, "%4095s %4095s", fa, ra) == 2) {
        frames.push_back(zd_slurp(fa));
        raws.push_back(zd_slurp(ra));
        names.push_back(fa);
    }
    fclose(m);
    if (frames.empty()) { fprintf(stderr, "%s: no frames\n", manifest.c_str()); return 2; }
    size_t raw_sum = 0, z_sum = 0;
    zd_u32 block = 0;
    for (size_t k = 0; k < frames.size(); k++) {
        if (frames[k].size() < 16) { fprintf(stderr, "%s: not a blosc frame\n", names[k].c_str()); return 2; }
        raw_sum += raws[k].size();
        z_sum += frames[k].size();
        block = std::max(block, rd32(&frames[k][8]));
    }
    const unsigned char *h = frames[0].data();
    zd_u32 codec = h[2] >> 5, typesize = h[3];
    int entry = codec == 4 ? 5 : codec == 3 ? 6 : 1;
    const char *names_of[] = {"", "zd_blosc_decode_lz", "", "", "zd_blosc_decode_lz_overlap", "zd_blosc_decode_zstd",
                              "zd_blosc_decode_zlib"};
    size_t copies = std::max<size_t>(1, (size_t)(gib * 1073741824.0 / raw_sum + 0.5));
    Batch b;
    std::vector<size_t> which;
    for (size_t c = 0; c < copies; c++)
        for (size_t k = 0; k < frames.size(); k++) { b.add(frames[k], raws[k].size()); which.push_back(k); }
    zd_u32 n = b.n();
    printf("frames: %zu of %s (compressor %u, flags 0x%02x, typesize %u, blocks of %u), ratio %.2f, x%zu = %u chunks, %.2f GiB decoded\n",
           frames.size(), manifest.c_str(), codec, h[2], typesize, block, (double)raw_sum / z_sum, copies, n,
           (double)raw_sum * copies / 1073741824.0);
    Dev dev(b);
    Bytes out(b.dst_bytes);
    std::vector<zd_u32> st(n);
    int dev_id, sms;
    CK(cudaGetDevice(&dev_id));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev_id));
    zd_u64 spg = entry == 5 ? ZD_BLOSC_SCRATCH_PER_GROUP(block) : ZD_BLOSC_LZ_SCRATCH_PER_GROUP(block);
    int fails = 0;
    int lz = entry == 1;
    for (int pass = 0; pass < (lz ? 2 : 1); pass++, entry = lz ? 4 : entry) // lz: also with the parse overlapped
    for (zd_u32 items : {32u, 64u, 128u})
        for (zd_u32 per_sm : {4u, 8u, 16u, 32u}) {
            zd_u32 groups = per_sm * (zd_u32)sms;
            if ((double)spg * groups > 8.0 * 1073741824.0) continue; // scratch past 8 GiB
            if (entry == 4 && items <= 32u) continue; // the overlap needs a second warp
            dev.run_checked(n, entry, groups, items, spg, out, st);
            int bad = 0;
            for (zd_u32 i = 0; i < n; i++) {
                const Bytes &want = raws[which[i]];
                bool ok = st[i] == 0 && memcmp(&out[b.dof[i]], want.data(), want.size()) == 0;
                for (int g = 0; g < GUARD && ok; g++) if (out[b.dof[i] + want.size() + g] != POISON) ok = false;
                if (!ok && bad++ < 3) printf("  chunk %u (%s): status %u or bytes differ\n", i, names[which[i]].c_str(), st[i]);
            }
            std::vector<float> t;
            for (int r = 0; r < reps; r++) t.push_back(dev.run(n, entry, groups, items, spg));
            std::sort(t.begin(), t.end());
            float ms = t[t.size() / 2];
            printf("%-25s %3u items x %5u groups (%2u/SM): %8.3f ms  %7.2f GB/s decoded  bad chunks %d\n", names_of[entry],
                   items, groups, per_sm, ms, (double)raw_sum * copies / (ms * 1e6), bad);
            fails += bad;
        }
    return fails;
}

int main(int argc, char **argv) {
    std::string corpus, manifest;
    double gib = 1.0;
    zd_u32 chunk = 1 << 20, block = 1 << 17;
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--corpus") corpus = v; else if (k == "--gib") gib = atof(v.c_str());
        else if (k == "--frames") manifest = v;
        else if (k == "--chunk") chunk = (zd_u32)atol(v.c_str()); else if (k == "--block") block = (zd_u32)atol(v.c_str());
        else if (k == "--reps") reps = atoi(v.c_str());
        else { fprintf(stderr, "unknown option %s\n", k.c_str()); return 2; }
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s, %d SMs; shared memory: decode %zu B, decode_lz %zu B\n", prop.name, prop.multiProcessorCount,
           sizeof(zd_blosc_lds) + sizeof(zd_blosc_codec_lds), sizeof(zd_blosc_lds));
    int fails = 0;
    if (!corpus.empty()) fails += corpus_check(corpus);
    if (!manifest.empty()) fails += frames_bench(manifest, gib, reps);
    else if (gib > 0) fails += bench(gib, chunk, block, reps);
    printf(fails ? "FAIL\n" : "ALL OK\n");
    return fails ? 1 : 0;
}
