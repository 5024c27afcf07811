/* SPDX-License-Identifier: Apache-2.0 */
// Manual device benchmark (not part of the Maven build) for zd_zstd_decode_batch.
// Manifest lines: "<label> <mode> <size> <seed> <frame.zst>"; the originals are regenerated with
// zd_bench_data.h (mode, size, seed). For each label (optionally filtered by a prefix list), the
// distinct frames are repeated round-robin up to --batch bytes decoded, copied to the device once
// (each copy its own bytes), and the kernel is timed with CUDA events: median of --reps launches
// after one warm-up, for each block size in --blocks. The output is poisoned first; statuses and
// every byte are checked after the timed launches.
// Build: nvcc -O3 -I src/main/c -gencode arch=compute_90,code=sm_90 -o zd_gpu_bench src/test/cuda/zd_gpu_bench.cu
#include "cuda/zd_zstd.cu"
#include "zd_bench_data.h"
#include "zd_harness_io.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(3); } } while (0)

struct Frame { std::vector<unsigned char> z, o; };

int main(int argc, char **argv) {
    std::string man = "manifest.txt", only = "", blocks = "32,64";
    double batch = 1073741824.0; int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--manifest") man = v; else if (k == "--only") only = v; else if (k == "--blocks") blocks = v;
        else if (k == "--batch") batch = atof(v.c_str()); else if (k == "--reps") reps = atoi(v.c_str());
    }
    std::vector<int> bs; for (char *t = strtok(&blocks[0], ","); t; t = strtok(NULL, ",")) bs.push_back(atoi(t));
    std::vector<std::string> prefixes; { std::string o = only; for (char *t = strtok(&o[0], ","); t; t = strtok(NULL, ",")) prefixes.push_back(t); }
    std::map<std::string, std::vector<Frame>> groups; std::vector<std::string> order;
    FILE *m = fopen(man.c_str(), "r"); if (!m) return 2;
    char lab[256], fn[4096]; int mode; long size, seed;
    while (fscanf(m, "%255s %d %ld %ld %4095s", lab, &mode, &size, &seed, fn) == 5) {
        bool take = prefixes.empty();
        for (auto &p : prefixes) if (std::string(lab).rfind(p, 0) == 0) take = true;
        if (!take) continue;
        Frame f; f.z = zd_slurp(fn); f.o.resize(size); zdg_fill(f.o.data(), size, mode, seed);
        if (!groups.count(lab)) order.push_back(lab);
        groups[lab].push_back(std::move(f));
    }
    fclose(m);
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, zd_zstd_decode_batch));
    printf("%s, %d SMs; kernel: %d regs, %zu B static smem, %zu B local; lds=%zu B\n", prop.name, prop.multiProcessorCount,
           fa.numRegs, fa.sharedSizeBytes, fa.localSizeBytes, sizeof(zd_zstd_lds));
    int fails = 0;
    std::vector<std::string> table;
    for (auto &lbl : order) {
        auto &fr = groups[lbl];
        size_t osz = fr[0].o.size();
        zd_u32 n = (zd_u32)std::max(1.0, batch / (double)osz + 0.999);
        std::vector<zd_u64> so(n), ss(n), dof(n), ds(n);
        size_t zin = 0;
        for (zd_u32 i = 0; i < n; i++) { auto &f = fr[i % fr.size()]; so[i] = zin; ss[i] = f.z.size(); zin += f.z.size(); dof[i] = (zd_u64)i * osz; ds[i] = osz; }
        size_t out_total = (size_t)n * osz;
        zd_u8 *dsrc, *ddst, *dscr; zd_u64 *dso, *dss, *ddo, *dds; zd_u32 *dstat;
        CK(cudaMalloc(&dsrc, zin)); CK(cudaMalloc(&ddst, out_total + 256));
        CK(cudaMalloc(&dscr, (size_t)n * ZD_ZSTD_SCRATCH_PER_FRAME));
        CK(cudaMalloc(&dso, 8 * n)); CK(cudaMalloc(&dss, 8 * n)); CK(cudaMalloc(&ddo, 8 * n)); CK(cudaMalloc(&dds, 8 * n));
        CK(cudaMalloc(&dstat, 4 * n));
        for (size_t k = 0; k < fr.size() && k < n; k++) CK(cudaMemcpy(dsrc + so[k], fr[k].z.data(), fr[k].z.size(), cudaMemcpyHostToDevice));
        for (zd_u32 i = (zd_u32)fr.size(); i < n; i++) CK(cudaMemcpy(dsrc + so[i], dsrc + so[i % fr.size()], ss[i], cudaMemcpyDeviceToDevice));
        CK(cudaMemcpy(dso, so.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dss, ss.data(), 8 * n, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(ddo, dof.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dds, ds.data(), 8 * n, cudaMemcpyHostToDevice));
        std::vector<unsigned char> out(out_total + 256);
        std::vector<zd_u32> st(n);
        for (int b : bs) {
            CK(cudaMemset(ddst, 0xA5, out_total + 256)); CK(cudaMemset(dstat, 0xFF, 4 * n));
            cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
            std::vector<float> ms;
            for (int r = -1; r < reps; r++) {
                cudaEventRecord(e0);
                zd_zstd_decode_batch<<<n, b>>>(dsrc, dso, dss, ddst, ddo, dds, dscr, ZD_ZSTD_SCRATCH_PER_FRAME, dstat, n);
                cudaEventRecord(e1); CK(cudaGetLastError()); CK(cudaEventSynchronize(e1));
                float t = 0; cudaEventElapsedTime(&t, e0, e1); if (r >= 0) ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            float med = ms[ms.size() / 2];
            CK(cudaMemcpy(out.data(), ddst, out.size(), cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(st.data(), dstat, 4 * n, cudaMemcpyDeviceToHost));
            int bad = 0, badst = 0;
            for (zd_u32 i = 0; i < n; i++) {
                if (st[i] != 0) { if (badst++ < 3) printf("  %s frame %u status %u\n", lbl.c_str(), i, st[i]); }
                else if (memcmp(out.data() + dof[i], fr[i % fr.size()].o.data(), osz) != 0) { if (bad++ < 3) printf("  %s frame %u MISMATCH\n", lbl.c_str(), i); }
            }
            for (int g = 0; g < 256; g++) if (out[out_total + g] != 0xA5) { bad++; printf("  guard overwritten\n"); break; }
            fails += bad + badst;
            char line[256];
            snprintf(line, sizeof line, "%-16s blk=%3d n=%6u ratio=%5.2f  med %8.3f ms  min %8.3f  max %8.3f  %7.1f GB/s  in+out %5.1f%% of 4.8TB/s  %s",
                     lbl.c_str(), b, n, (double)out_total / zin, med, ms.front(), ms.back(), out_total / (med * 1e6),
                     100.0 * (out_total + zin) / (med * 1e-3) / 4.8e12, (bad || badst) ? "FAIL" : "ok");
            puts(line); fflush(stdout); table.push_back(line);
            cudaEventDestroy(e0); cudaEventDestroy(e1);
        }
        cudaFree(dsrc); cudaFree(ddst); cudaFree(dscr); cudaFree(dso); cudaFree(dss); cudaFree(ddo); cudaFree(dds); cudaFree(dstat);
    }
    printf("\n"); for (auto &l : table) puts(l.c_str());
    printf(fails ? "FAIL\n" : "ALL OK\n");
    return fails ? 1 : 0;
}
