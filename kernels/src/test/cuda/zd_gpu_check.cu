/* SPDX-License-Identifier: Apache-2.0 */
// Manual device check (not part of the Maven build): decodes a batch of zstd chunks listed in a
// manifest ("<frame file> <original file>" per line) with the CUDA entry, compares byte for byte,
// and prints the kernel time for several block sizes.
// Build: nvcc -O3 -I src/main/c -gencode arch=compute_90,code=sm_90 -o zd_gpu_check src/test/cuda/zd_gpu_check.cu
#include "cuda/zd_zstd.cu"
#include "zd_harness_io.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(3); } } while (0)

int main(int argc, char **argv) {
    const char *man = argc > 1 ? argv[1] : "manifest.txt";
    int reps = argc > 2 ? atoi(argv[2]) : 1;
    std::vector<unsigned char> src, ref;
    std::vector<zd_u64> so, ss, dof, ds;
    char a[4096], b[4096];
    FILE *m = fopen(man, "r");
    if (!m) return 2;
    while (fscanf(m, "%4095s %4095s", a, b) == 2) {
        auto f = zd_slurp(a), o = zd_slurp(b);
        for (int r = 0; r < reps; r++) {
            so.push_back(src.size()); ss.push_back(f.size());
            dof.push_back(ref.size()); ds.push_back(o.size());
            src.insert(src.end(), f.begin(), f.end());
            ref.insert(ref.end(), o.begin(), o.end());
        }
    }
    fclose(m);
    zd_u32 n = (zd_u32)so.size();
    printf("frames=%u compressed=%zu decoded=%zu lds=%zu B\n", n, src.size(), ref.size(), sizeof(zd_zstd_lds));
    zd_u8 *dsrc, *ddst, *dscr; zd_u64 *dso, *dss, *ddo, *dds; zd_u32 *dst_status;
    CK(cudaMalloc(&dsrc, src.size())); CK(cudaMalloc(&ddst, ref.size() + 64));
    CK(cudaMalloc(&dscr, (size_t)n * ZD_ZSTD_SCRATCH_PER_FRAME));
    CK(cudaMalloc(&dso, 8 * n)); CK(cudaMalloc(&dss, 8 * n)); CK(cudaMalloc(&ddo, 8 * n)); CK(cudaMalloc(&dds, 8 * n));
    CK(cudaMalloc(&dst_status, 4 * n));
    CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dso, so.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dss, ss.data(), 8 * n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddo, dof.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dds, ds.data(), 8 * n, cudaMemcpyHostToDevice));
    std::vector<unsigned char> out(ref.size() + 64);
    std::vector<zd_u32> st(n);
    int fails = 0;
    for (int bs : {32, 64, 128, 256}) {
        CK(cudaMemset(ddst, 0xA5, ref.size() + 64));
        CK(cudaMemset(dst_status, 0xFF, 4 * n));
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        zd_zstd_decode_batch<<<n, bs>>>(dsrc, dso, dss, ddst, ddo, dds, dscr, ZD_ZSTD_SCRATCH_PER_FRAME, dst_status, n);
        CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
        cudaEventRecord(e0);
        zd_zstd_decode_batch<<<n, bs>>>(dsrc, dso, dss, ddst, ddo, dds, dscr, ZD_ZSTD_SCRATCH_PER_FRAME, dst_status, n);
        cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
        float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
        CK(cudaMemcpy(out.data(), ddst, out.size(), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(st.data(), dst_status, 4 * n, cudaMemcpyDeviceToHost));
        int bad = 0, badst = 0;
        for (zd_u32 i = 0; i < n; i++) {
            if (st[i] != 0) { if (badst++ < 5) printf("  frame %u status %u\n", i, st[i]); }
            else if (memcmp(out.data() + dof[i], ref.data() + dof[i], ds[i]) != 0) { if (bad++ < 5) printf("  frame %u MISMATCH\n", i); }
        }
        for (int g = 0; g < 64; g++) if (out[ref.size() + g] != 0xA5) { bad++; printf("  guard overwritten\n"); break; }
        fails += bad + badst;
        printf("block=%3d  %8.3f ms  %7.2f GB/s decoded  status!=0: %d  mismatches: %d\n", bs, ms, ref.size() / (ms * 1e6), badst, bad);
    }
    printf(fails ? "FAIL\n" : "ALL OK\n");
    return fails ? 1 : 0;
}
