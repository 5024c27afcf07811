/* SPDX-License-Identifier: Apache-2.0 */
// Manual device check and benchmark of the deflate/zlib/gzip decoders (cuda/zd_inflate.cu); not
// part of the Maven build. Streams come from zd_inflate_gen.py (manifest lines
// "<format> <label> <timed> <stream file> <original file>", format 0 deflate, 1 zlib, 2 gzip).
//   python3 src/test/cuda/zd_inflate_gen.py /tmp/zdinf
//   nvcc -O3 -I src/main/c -gencode arch=compute_90,code=sm_90 -o zd_inflate_check src/test/cuda/zd_inflate_check.cu
//   ./zd_inflate_check --manifest /tmp/zdinf/manifest.txt [--counts 256,1024,4096] [--blocks 32,64,128] [--reps 5] [--only gzip,zlib]
// 1. Check: every stream of the manifest, in one batch per format and block size, into a poisoned
//    dst with poisoned gaps between chunks: statuses, bytes and gaps compared.
// 2. Corruption: every stream truncated at 3 points and with 1-3 flipped bits (seeded), one
//    batch per format: no CUDA error, no write outside each chunk's range (the gaps stay poisoned),
//    and a status 0 only where the bytes are right or the stream has no checksum (deflate).
// 3. Bench: for each timed label, its distinct streams repeated round-robin to each --counts
//    batch (each chunk its own dst range, the compressed bytes shared), one warm-up launch, then
//    the median of --reps launches timed with CUDA events; GB/s of decoded bytes. Statuses, bytes
//    and gaps are checked after the timed launches, on the device.
// Exit status 0 only if every check passed.
#include "cuda/zd_inflate.cu"
#include "zd_harness_io.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3); } } while (0)

static const zd_u64 GAP = 256; // poisoned bytes before and after every chunk's output
static const unsigned char POISON = 0xA5;

typedef ZdStream Stream;

typedef void (*Entry)(const zd_u8 *, const zd_u64 *, const zd_u64 *, zd_u8 *, const zd_u64 *, const zd_u64 *, zd_u8 *,
                      zd_u64, zd_u32 *, zd_u32);
static Entry entry(int format) {
    return format == 2 ? zd_gzip_decode_batch : format == 1 ? zd_zlib_decode_batch : zd_deflate_decode_batch;
}
static const char *FMT[3] = {"deflate", "zlib", "gzip"};

// Per chunk c: mismatching bytes of dst against ref (when want_ref), and poisoned gap bytes that changed.
__global__ void zd_compare(const zd_u8 *dst, const zd_u64 *dst_off, const zd_u64 *dst_size, const zd_u8 *ref,
                           const zd_u64 *ref_off, const zd_u32 *status, int want_ref, unsigned long long *bad_bytes,
                           unsigned long long *bad_gaps, zd_u32 n) {
    zd_u32 c = blockIdx.x;
    if (c >= n) return;
    unsigned long long bb = 0, bg = 0;
    zd_u64 o = dst_off[c], s = dst_size[c];
    if (want_ref && status[c] == 0)
        for (zd_u64 i = threadIdx.x; i < s; i += blockDim.x) bb += dst[o + i] != ref[ref_off[c] + i];
    for (zd_u64 i = threadIdx.x; i < GAP; i += blockDim.x) bg += (dst[o - GAP + i] != POISON) + (dst[o + s + i] != POISON);
    if (bb) atomicAdd(bad_bytes, bb);
    if (bg) atomicAdd(bad_gaps, bg);
}

// A batch on the device: chunk c decodes src[so[c]..] into dst[doff[c]..], with GAP poisoned bytes around each.
struct Batch {
    zd_u32 n = 0;
    zd_u8 *src = nullptr, *dst = nullptr, *ref = nullptr;
    zd_u64 *so, *ss, *doff, *ds, *roff;
    zd_u32 *status;
    zd_u64 dst_bytes = 0, decoded = 0;
    unsigned long long *bad;
    std::vector<zd_u64> h_ds;
    Batch(const std::vector<const std::vector<unsigned char> *> &zs, const std::vector<const std::vector<unsigned char> *> &os,
          const std::vector<zd_u32> &which, bool with_ref) {
        // distinct streams uploaded once; chunks point at them
        std::vector<zd_u64> zo(zs.size()), oo(os.size());
        zd_u64 zt = 0, ot = 0;
        for (size_t i = 0; i < zs.size(); i++) { zo[i] = zt; zt += zs[i]->size() + 16; oo[i] = ot; ot += os[i]->size() + 16; }
        n = (zd_u32)which.size();
        std::vector<zd_u64> h_so(n), h_ss(n), h_do(n), h_ro(n);
        h_ds.resize(n);
        zd_u64 dt = GAP;
        for (zd_u32 c = 0; c < n; c++) {
            zd_u32 w = which[c];
            h_so[c] = zo[w]; h_ss[c] = zs[w]->size(); h_ro[c] = oo[w]; h_ds[c] = os[w]->size();
            h_do[c] = dt; dt += (h_ds[c] + 2 * GAP + 255) & ~(zd_u64)255; decoded += h_ds[c];
        }
        dst_bytes = dt + GAP;
        CK(cudaMalloc(&src, zt + 1)); CK(cudaMalloc(&dst, dst_bytes));
        for (size_t i = 0; i < zs.size(); i++) if (!zs[i]->empty()) CK(cudaMemcpy(src + zo[i], zs[i]->data(), zs[i]->size(), cudaMemcpyHostToDevice));
        if (with_ref) {
            CK(cudaMalloc(&ref, ot + 1));
            for (size_t i = 0; i < os.size(); i++) if (!os[i]->empty()) CK(cudaMemcpy(ref + oo[i], os[i]->data(), os[i]->size(), cudaMemcpyHostToDevice));
        }
        CK(cudaMalloc(&so, 8 * n + 8)); CK(cudaMalloc(&ss, 8 * n + 8)); CK(cudaMalloc(&doff, 8 * n + 8));
        CK(cudaMalloc(&ds, 8 * n + 8)); CK(cudaMalloc(&roff, 8 * n + 8)); CK(cudaMalloc(&status, 4 * n + 4));
        CK(cudaMalloc(&bad, 16));
        CK(cudaMemcpy(so, h_so.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(ss, h_ss.data(), 8 * n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(doff, h_do.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(ds, h_ds.data(), 8 * n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(roff, h_ro.data(), 8 * n, cudaMemcpyHostToDevice));
    }
    ~Batch() {
        cudaFree(src); cudaFree(dst); cudaFree(ref); cudaFree(so); cudaFree(ss); cudaFree(doff); cudaFree(ds);
        cudaFree(roff); cudaFree(status); cudaFree(bad);
    }
    void poison() { CK(cudaMemset(dst, POISON, dst_bytes)); CK(cudaMemset(status, 0xFF, 4 * n)); }
    void launch(int format, int block) {
        entry(format)<<<n, block>>>(src, so, ss, dst, doff, ds, nullptr, 0, status, n);
        CK(cudaGetLastError());
    }
    // bad bytes (where want_ref), bad gap bytes; statuses to host
    void compare(bool want_ref, unsigned long long *bb, unsigned long long *bg, std::vector<zd_u32> &st) {
        CK(cudaMemset(bad, 0, 16));
        zd_compare<<<n, 256>>>(dst, doff, ds, ref, roff, status, want_ref, bad, bad + 1, n);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        unsigned long long h[2]; CK(cudaMemcpy(h, bad, 16, cudaMemcpyDeviceToHost));
        *bb = h[0]; *bg = h[1];
        st.resize(n); CK(cudaMemcpy(st.data(), status, 4 * n, cudaMemcpyDeviceToHost));
    }
};

static std::vector<int> ints(std::string s) {
    std::vector<int> v;
    for (char *t = strtok(&s[0], ","); t; t = strtok(NULL, ",")) v.push_back(atoi(t));
    return v;
}

int main(int argc, char **argv) {
    std::string man = "manifest.txt", only = "", counts = "256,1024,4096", blocks = "32,64,128";
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--manifest") man = v; else if (k == "--only") only = v; else if (k == "--counts") counts = v;
        else if (k == "--blocks") blocks = v; else if (k == "--reps") reps = atoi(v.c_str());
        else { fprintf(stderr, "unknown option %s\n", k.c_str()); return 2; }
    }
    std::vector<int> cs = ints(counts), bs = ints(blocks);
    std::vector<std::string> prefixes;
    { std::string o = only; for (char *t = strtok(&o[0], ","); t; t = strtok(NULL, ",")) prefixes.push_back(t); }
    std::vector<Stream> all = zd_read_manifest(man);
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; lds: deflate %zu B, zlib %zu B, gzip %zu B\n", prop.name, prop.multiProcessorCount,
           sizeof(zd_inflate_lds), sizeof(zd_zlib_lds), sizeof(zd_gzip_lds));
    for (int f = 0; f < 3; f++) {
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, entry(f)));
        printf("  zd_%s_decode_batch: %d regs, %zu B static smem, %zu B local\n", FMT[f], fa.numRegs, fa.sharedSizeBytes, fa.localSizeBytes);
    }
    int fails = 0;

    // 1. every stream, every block size
    for (int f = 0; f < 3; f++) {
        std::vector<const std::vector<unsigned char> *> zs, os; std::vector<zd_u32> which;
        for (auto &s : all) if (s.format == f) { which.push_back((zd_u32)zs.size()); zs.push_back(&s.z); os.push_back(&s.o); }
        if (which.empty()) continue;
        Batch b(zs, os, which, true);
        for (int bsz : bs) {
            b.poison(); b.launch(f, bsz); CK(cudaDeviceSynchronize());
            unsigned long long bb, bg; std::vector<zd_u32> st; b.compare(true, &bb, &bg, st);
            int badst = 0;
            for (zd_u32 c = 0; c < b.n; c++) if (st[c] != 0 && badst++ < 5) printf("  %s stream %u: status %u\n", FMT[f], c, st[c]);
            printf("check %-7s %4u streams, block %3d: status!=0: %d, bad bytes: %llu, bad gap bytes: %llu\n", FMT[f], b.n, bsz, badst, bb, bg);
            fails += badst + (bb != 0) + (bg != 0);
        }
    }

    // 2. corrupted copies of the smaller streams
    srand(24);
    for (int f = 0; f < 3; f++) {
        std::vector<std::vector<unsigned char>> bad_z; std::vector<const std::vector<unsigned char> *> zs, os; std::vector<zd_u32> which;
        for (auto &s : all) {
            if (s.format != f || s.z.size() > (1u << 20) || s.z.empty()) continue;
            for (int k = 0; k < 6; k++) {
                std::vector<unsigned char> z = s.z;
                if (k < 3) z.resize(rand() % z.size());
                else for (int j = 0, fl = 1 + rand() % 3; j < fl; j++) z[rand() % z.size()] ^= (unsigned char)(1u << (rand() % 8));
                bad_z.push_back(std::move(z)); os.push_back(&s.o);
            }
        }
        if (bad_z.empty()) continue;
        for (size_t i = 0; i < bad_z.size(); i++) { zs.push_back(&bad_z[i]); which.push_back((zd_u32)i); }
        Batch b(zs, os, which, true);
        for (int bsz : bs) {
            b.poison(); b.launch(f, bsz); CK(cudaDeviceSynchronize());
            unsigned long long bb, bg; std::vector<zd_u32> st; b.compare(f != 0, &bb, &bg, st);
            int rejected = 0; for (auto s : st) rejected += s != 0;
            printf("corrupt %-7s %4u streams, block %3d: rejected %d, accepted with wrong bytes: %llu B, bad gap bytes: %llu\n",
                   FMT[f], b.n, bsz, rejected, bb, bg);
            fails += (bb != 0) + (bg != 0);
        }
    }

    // 3. bench
    std::map<std::string, std::vector<const Stream *>> groups; std::vector<std::string> order;
    for (auto &s : all) {
        if (!s.timed) continue;
        bool take = prefixes.empty();
        for (auto &p : prefixes) if (s.label.rfind(p, 0) == 0) take = true;
        if (!take) continue;
        if (!groups.count(s.label)) order.push_back(s.label);
        groups[s.label].push_back(&s);
    }
    std::vector<std::string> table;
    for (auto &lab : order) {
        auto &g = groups[lab];
        std::vector<const std::vector<unsigned char> *> zs, os;
        zd_u64 zb = 0, ob = 0;
        for (auto *s : g) { zs.push_back(&s->z); os.push_back(&s->o); zb += s->z.size(); ob += s->o.size(); }
        int f = g[0]->format;
        for (int n : cs) {
            std::vector<zd_u32> which(n);
            for (int c = 0; c < n; c++) which[c] = (zd_u32)(c % g.size());
            Batch b(zs, os, which, true);
            for (int bsz : bs) {
                b.poison();
                b.launch(f, bsz); CK(cudaDeviceSynchronize()); // warm-up
                std::vector<float> ms;
                cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
                for (int r = 0; r < reps; r++) {
                    CK(cudaEventRecord(e0)); b.launch(f, bsz); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
                    float t = 0; CK(cudaEventElapsedTime(&t, e0, e1)); ms.push_back(t);
                }
                cudaEventDestroy(e0); cudaEventDestroy(e1);
                std::sort(ms.begin(), ms.end());
                float med = ms[ms.size() / 2];
                unsigned long long bb, bg; std::vector<zd_u32> st; b.compare(true, &bb, &bg, st);
                int badst = 0; for (auto s : st) badst += s != 0;
                fails += badst + (bb != 0) + (bg != 0);
                char line[512];
                snprintf(line, sizeof line, "%-22s ratio %5.2f chunks %5d (%7.1f MiB) block %3d: %9.3f ms %8.2f GB/s%s", lab.c_str(),
                         (double)ob / (zb ? zb : 1), n, b.decoded / 1048576.0, bsz, med, b.decoded / (med * 1e6),
                         badst || bb || bg ? "  FAILED" : "");
                printf("%s\n", line); fflush(stdout);
                table.push_back(line);
            }
        }
    }
    printf(fails ? "FAIL (%d)\n" : "ALL OK\n", fails);
    return fails ? 1 : 0;
}
