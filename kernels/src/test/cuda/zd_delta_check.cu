/* SPDX-License-Identifier: Apache-2.0 */
// Manual device check and benchmark of the delta filter (cuda/zd_delta.cu); not part of the Maven
// build (the Java tests CudaCodecsMatchCpuTest and DeviceReadConformanceTest are the conformance).
//   nvcc -O3 -I src/main/c -gencode arch=compute_90,code=sm_90 -o zd_delta_check src/test/cuda/zd_delta_check.cu
//   ./zd_delta_check [--chunk-kib 1024] [--gib 1] [--reps 5]
// For i1, i2, i4, i8, f4 and f8: a batch of chunks (--gib decoded bytes in all, each --chunk-kib) of
// seeded data (floats with subnormals, signed zeros, overflow to infinity, infinity minus infinity); encoded and decoded on the device (both timed: median of --reps launches, CUDA events, GB/s
// of decoded bytes) and compared byte for byte with the sequential loop of this host, which is
// what numpy and the CPU codec compute on x86-64. Exit status 0 only if every byte matched.
#include "cuda/zd_delta.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3); } } while (0)

// The host reference: the CPU codec's loops, in the element type (x86-64 arithmetic; integers
// unsigned, whose wrapping is defined and has the signed types' bits).
template <typename T> static void ref(const T *in, T *out, size_t n, bool encode) {
    T acc = 0, prev = 0;
    for (size_t k = 0; k < n; k++) {
        T cur = in[k];
        if (encode) {
            out[k] = k == 0 ? cur : (T)(cur - prev);
            prev = cur;
        } else {
            acc = k == 0 ? cur : (T)(acc + cur);
            out[k] = acc;
        }
    }
}

template <typename T> static void fill(std::mt19937_64 &r, T *p, size_t n) {
    if constexpr (!std::is_floating_point<T>::value) {
        for (size_t k = 0; k < n; k++) p[k] = (T)r();
    } else {
        for (size_t k = 0; k < n; k++) {
            double v;
            switch (r() % 40) {
            case 0: v = (sizeof(T) == 4 ? 1.4e-45 : 4.9e-324) * (double)(1 + r() % 1000); break;
            case 1: v = 0.0; break;
            case 2: v = -0.0; break;
            case 3: v = (sizeof(T) == 4 ? 3e38 : 1.7e308) * (r() % 2 ? 1 : -1); break;
            default: v = ((double)(r() % 2000001) / 1e6 - 1) * 1000;
            }
            p[k] = (T)v;
        }
        if (n > 3) { p[n / 3] = (T)INFINITY; p[2 * n / 3] = (T)-INFINITY; }
    }
}

int main(int argc, char **argv) {
    size_t chunkKib = 1024, reps = 5;
    double gib = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--chunk-kib") chunkKib = strtoull(argv[i + 1], 0, 10);
        else if (a == "--gib") gib = atof(argv[i + 1]);
        else if (a == "--reps") reps = strtoull(argv[i + 1], 0, 10);
    }
    size_t chunk = chunkKib << 10, nChunks = std::max<size_t>(1, (size_t)(gib * (1ull << 30)) / chunk), total = chunk * nChunks;
    struct Type { const char *name; unsigned size; bool fp; };
    Type types[] = {{"i1", 1, false}, {"i2", 2, false}, {"i4", 4, false}, {"i8", 8, false}, {"f4", 4, true}, {"f8", 8, true}};
    std::vector<unsigned char> in(total), want(total), got(total);
    std::vector<zd_u64> table(5 * nChunks);
    for (size_t c = 0; c < nChunks; c++) {
        table[c] = c * chunk; table[nChunks + c] = chunk; table[2 * nChunks + c] = c * chunk; table[3 * nChunks + c] = chunk;
    }
    unsigned char *dIn, *dOut; zd_u64 *dTable; zd_u32 *dStatus;
    CK(cudaMalloc(&dIn, total)); CK(cudaMalloc(&dOut, total)); CK(cudaMalloc(&dTable, 4 * nChunks * 8)); CK(cudaMalloc(&dStatus, 4 * nChunks));
    CK(cudaMemcpy(dTable, table.data(), 4 * nChunks * 8, cudaMemcpyHostToDevice));
    int bad = 0;
    printf("%zu chunks of %zu KiB (%.2f GiB) per batch, %d threads per chunk, median of %zu launches\n", nChunks, chunkKib,
           total / 1073741824.0, (int)ZD_DELTA_MAX_ITEMS, reps);
    std::mt19937_64 r(20261127);
    for (const Type &t : types) {
        size_t n = chunk / t.size;
        for (size_t c = 0; c < nChunks; c++) {
            unsigned char *p = in.data() + c * chunk;
            switch (t.size) {
            case 1: fill(r, (zd_u8 *)p, n); break;
            case 2: fill(r, (zd_u16 *)p, n); break;
            case 4: if (t.fp) fill(r, (float *)p, n); else fill(r, (zd_u32 *)p, n); break;
            default: if (t.fp) fill(r, (double *)p, n); else fill(r, (zd_u64 *)p, n);
            }
        }
        CK(cudaMemcpy(dIn, in.data(), total, cudaMemcpyHostToDevice));
        for (int encode = 0; encode < 2; encode++) {
            for (size_t c = 0; c < nChunks; c++) {
                const unsigned char *p = in.data() + c * chunk; unsigned char *o = want.data() + c * chunk;
                switch (t.size) {
                case 1: ref((const zd_u8 *)p, (zd_u8 *)o, n, encode); break;
                case 2: ref((const zd_u16 *)p, (zd_u16 *)o, n, encode); break;
                case 4: if (t.fp) ref((const float *)p, (float *)o, n, encode); else ref((const zd_u32 *)p, (zd_u32 *)o, n, encode); break;
                default: if (t.fp) ref((const double *)p, (double *)o, n, encode); else ref((const zd_u64 *)p, (zd_u64 *)o, n, encode);
                }
            }
            zd_u32 type = t.size | (t.fp ? ZD_DELTA_FLOAT : 0u);
            std::vector<float> ms;
            for (size_t k = 0; k <= reps; k++) {
                CK(cudaMemset(dOut, 0xA5, total));
                cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
                CK(cudaEventRecord(e0));
                zd_delta_batch<<<(unsigned)nChunks, ZD_DELTA_MAX_ITEMS>>>(dIn, dTable, dTable + nChunks, dOut, dTable + 2 * nChunks,
                                                                      dTable + 3 * nChunks, dStatus, type, (zd_u32)encode, (zd_u32)nChunks);
                CK(cudaGetLastError()); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
                float f = 0; CK(cudaEventElapsedTime(&f, e0, e1));
                if (k > 0) ms.push_back(f);
                cudaEventDestroy(e0); cudaEventDestroy(e1);
            }
            std::sort(ms.begin(), ms.end());
            CK(cudaMemcpy(got.data(), dOut, total, cudaMemcpyDeviceToHost));
            std::vector<zd_u32> st(nChunks);
            CK(cudaMemcpy(st.data(), dStatus, 4 * nChunks, cudaMemcpyDeviceToHost));
            size_t stBad = std::count_if(st.begin(), st.end(), [](zd_u32 s) { return s != 0; });
            size_t first = total;
            for (size_t b = 0; b < total; b++) if (got[b] != want[b]) { first = b; break; }
            bool ok = first == total && stBad == 0;
            bad += !ok;
            printf("%s %s: %.2f GB/s (%.3f ms) %s", t.name, encode ? "encode" : "decode", total / (ms[ms.size() / 2] * 1e6),
                   ms[ms.size() / 2], ok ? "OK" : "MISMATCH");
            if (!ok) printf(" (first difference at byte %zu, %zu bad statuses)", first, stBad);
            printf("\n");
        }
    }
    return bad ? 1 : 0;
}
