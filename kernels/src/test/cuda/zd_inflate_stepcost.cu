/* SPDX-License-Identifier: Apache-2.0 */
// Manual device measurement, not part of the Maven build: where the serial deflate decoder's time
// goes. One chunk a group; the same zlib streams (manifest format 1) decoded four ways:
//   step:     item 0 alone calls zd_inflate_step_thread with no budget, orders dropped (no writers,
//             no barrier): the step function's own cost, the bound of any way to write;
//   slice16:  the same, ZD_INF_SLICE symbols a call: plus the calls' overhead;
//   group64:  zd_inflate_stream_group with 64 items (the decoder's warp and one writers' warp, who
//             meet at ZD_TAIL_BARRIER between segments): the real decode, written to dst;
//   group32:  the same with 32 items (writers in the decoder's warp: every item meets at every
//             segment, the way OpenCL runs);
//   group32w: an experiment, not in the kernels: 32 items, lanes 1-31 writing a batch's segments
//             between __syncwarp(0xFFFFFFFE) while lane 0 decodes the whole next batch (the run
//             loop of ZD_TAIL_BARRIER inside one warp: one warp a chunk instead of two).
// Each way checks the status and the output size; group ways also compare the bytes. Streams: the
// manifest that `bash tools/gpu/inflate-kernel-ab.sh run` writes on the GPU machine
// (/tmp/inflate-ab/manifest.txt: the int16 store's chunks and their high bytes).
//   nvcc -O3 -lineinfo -I src/main/c -gencode arch=compute_90,code=sm_90 -o zd_inflate_stepcost src/test/cuda/zd_inflate_stepcost.cu
//   ./zd_inflate_stepcost --manifest M [--counts 1,132,1320] [--reps 3]
// Build with -DZD_INF_CHASE=N to try another chase for group32 (cuda/zd_inflate.cu sets 0; 128 or
// more cuts no segment at all: a batch is one round, every byte chased to its literal or an earlier
// batch's byte).
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

__global__ void zd_stepcost(const zd_u8 *src, const zd_u64 *soff, const zd_u64 *ssize, const zd_u64 *dsize,
                            zd_u64 *got, zd_u32 *status, zd_u32 budget) {
    __shared__ zd_inflate_lds lds;
    zd_u32 c = blockIdx.x;
    if (threadIdx.x != 0u) return;
    zd_inf_state st;
    zd_inf_start_thread(&st, ssize[c], 2u, 0u, dsize[c], ZD_INF_NO_STOP);
    const zd_u8 *s = src + soff[c];
    for (;;) {
        ZD_LOCAL zd_inf_batch *bt = &lds.u.b[0];
        if (!zd_inflate_step_thread(&st, s, &lds, bt, budget)) continue;
        if (bt->op == ZD_INF_OP_DONE) break;
    }
    status[c] = lds.status;
    got[c] = lds.out_end;
}

// zd_inf_run_group's loop with the writers' barrier, for a group of one warp: lanes 1-31 meet at
// __syncwarp with their mask (which orders their memory) while lane 0 decodes.
__device__ void zd_run_group_warp(zd_inf_state *st, const zd_u8 *src, zd_inf_out o, zd_inflate_lds *lds) {
    zd_u32 lid = threadIdx.x;
    st->chase = 0u;
    for (zd_u32 cur = 1;; cur ^= 1u) {
        zd_inf_batch *bt = &lds->u.b[cur];
        if (bt->op == ZD_INF_OP_DONE) break;
        if (lid == 0u) {
            while (!zd_inflate_step_thread(st, src, lds, &lds->u.b[cur ^ 1u], 0xFFFFFFFFu)) {
            }
        } else {
            zd_u32 nseg = bt->op == ZD_INF_OP_EXEC ? bt->nseg : 1u;
            for (zd_u32 k = 0; k < nseg; k++) {
                if (k > 0u) __syncwarp(0xFFFFFFFEu);
                zd_inf_write_segment_thread(src, o, bt, k, lid - 1u, 31u, 0u);
            }
        }
        __syncthreads();
    }
}

__global__ void __launch_bounds__(32) zd_groupwarp(const zd_u8 *src, const zd_u64 *soff, const zd_u64 *ssize,
                                                   zd_u8 *dst, const zd_u64 *doff, const zd_u64 *dsize, zd_u64 *got,
                                                   zd_u32 *status) {
    __shared__ zd_inflate_lds lds;
    zd_u32 c = blockIdx.x;
    zd_inf_state st;
    zd_inf_start_thread(&st, ssize[c], 2u, 0u, dsize[c], ZD_INF_NO_STOP);
    if (threadIdx.x == 0u) { // as zd_inflate_stream_group: an empty batch 1 first
        lds.u.b[1].op = ZD_INF_OP_EXEC;
        lds.u.b[1].nseg = 0u;
    }
    __syncthreads();
    zd_inf_out o;
    o.dst = dst + doff[c];
    o.cells = 0;
    o.cell0 = 0u;
    zd_run_group_warp(&st, src + soff[c], o, &lds);
    if (threadIdx.x == 0u) {
        status[c] = lds.status;
        got[c] = lds.out_end;
    }
}

__global__ void zd_groupcost(const zd_u8 *src, const zd_u64 *soff, const zd_u64 *ssize, zd_u8 *dst,
                             const zd_u64 *doff, const zd_u64 *dsize, zd_u64 *got, zd_u32 *status) {
    __shared__ zd_inflate_lds lds;
    zd_u32 c = blockIdx.x;
    zd_u64 in_end = 0, out_end = 0;
    zd_u32 stt = zd_inflate_stream_group(src + soff[c], ssize[c], 2u, dst + doff[c], dsize[c], 0u, &in_end, &out_end, &lds);
    if (threadIdx.x == 0u) {
        status[c] = stt;
        got[c] = out_end;
    }
}


int main(int argc, char **argv) {
    std::string man = "manifest.txt", counts = "1,132,1320";
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i], v = argv[i + 1];
        if (k == "--manifest") man = v; else if (k == "--counts") counts = v; else if (k == "--reps") reps = atoi(v.c_str());
        else { fprintf(stderr, "unknown option %s\n", k.c_str()); return 2; }
    }
    std::vector<ZdStream> all;
    for (ZdStream &s : zd_read_manifest(man))
        if (s.format == 1) all.push_back(std::move(s)); // zlib streams only
    std::map<std::string, std::vector<const ZdStream *>> groups; std::vector<std::string> order;
    for (auto &s : all) { if (!groups.count(s.label)) order.push_back(s.label); groups[s.label].push_back(&s); }
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    cudaFuncAttributes fa, fb; CK(cudaFuncGetAttributes(&fa, zd_stepcost)); CK(cudaFuncGetAttributes(&fb, zd_groupcost));
    printf("%s, %d SMs; zd_stepcost %d regs %zu B local; zd_groupcost %d regs %zu B local\n", prop.name,
           prop.multiProcessorCount, fa.numRegs, fa.localSizeBytes, fb.numRegs, fb.localSizeBytes);
    int fails = 0;
    std::vector<int> cs;
    { std::string c = counts; for (char *t = strtok(&c[0], ","); t; t = strtok(NULL, ",")) cs.push_back(atoi(t)); }
    for (auto &lab : order) {
        auto &g = groups[lab];
        std::vector<zd_u64> off(g.size());
        zd_u64 tot = 0;
        for (size_t i = 0; i < g.size(); i++) { off[i] = tot; tot += (g[i]->z.size() + 16 + 7) & ~(zd_u64)7; }
        zd_u8 *src; CK(cudaMalloc(&src, tot + 16)); CK(cudaMemset(src, 0, tot + 16));
        for (size_t i = 0; i < g.size(); i++) CK(cudaMemcpy(src + off[i], g[i]->z.data(), g[i]->z.size(), cudaMemcpyHostToDevice));
        for (int n : cs) {
            std::vector<zd_u64> so(n), ss(n), ds(n), dof(n);
            zd_u64 decoded = 0;
            for (int c = 0; c < n; c++) {
                int w = c % (int)g.size();
                so[c] = off[w]; ss[c] = g[w]->z.size() - 4; // the raw deflate stream ends before Adler-32
                ds[c] = g[w]->o.size(); dof[c] = decoded; decoded += ds[c];
            }
            zd_u64 *d_so, *d_ss, *d_ds, *d_do, *d_got; zd_u32 *d_st; zd_u8 *dst;
            CK(cudaMalloc(&d_so, 8 * n)); CK(cudaMalloc(&d_ss, 8 * n)); CK(cudaMalloc(&d_ds, 8 * n)); CK(cudaMalloc(&d_do, 8 * n));
            CK(cudaMalloc(&d_got, 8 * n)); CK(cudaMalloc(&d_st, 4 * n)); CK(cudaMalloc(&dst, decoded));
            CK(cudaMemcpy(d_so, so.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_ss, ss.data(), 8 * n, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(d_ds, ds.data(), 8 * n, cudaMemcpyHostToDevice)); CK(cudaMemcpy(d_do, dof.data(), 8 * n, cudaMemcpyHostToDevice));
            const char *names[5] = {"step", "slice16", "group64", "group32", "group32w"};
            for (int way = 0; way < 5; way++) {
                auto launch = [&]() {
                    if (way == 0) zd_stepcost<<<n, 32>>>(src, d_so, d_ss, d_ds, d_got, d_st, 0xFFFFFFFFu);
                    else if (way == 1) zd_stepcost<<<n, 32>>>(src, d_so, d_ss, d_ds, d_got, d_st, ZD_INF_SLICE);
                    else if (way < 4) zd_groupcost<<<n, way == 2 ? 64 : 32>>>(src, d_so, d_ss, dst, d_do, d_ds, d_got, d_st);
                    else zd_groupwarp<<<n, 32>>>(src, d_so, d_ss, dst, d_do, d_ds, d_got, d_st);
                };
                launch(); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
                std::vector<float> ms;
                cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
                for (int r = 0; r < reps; r++) {
                    CK(cudaMemset(d_st, 0xFF, 4 * n)); CK(cudaMemset(d_got, 0, 8 * n)); CK(cudaMemset(dst, 0xA5, decoded));
                    CK(cudaEventRecord(e0)); launch(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1));
                    float t = 0; CK(cudaEventElapsedTime(&t, e0, e1)); ms.push_back(t);
                }
                cudaEventDestroy(e0); cudaEventDestroy(e1);
                std::sort(ms.begin(), ms.end());
                std::vector<zd_u64> got(n); std::vector<zd_u32> st(n);
                CK(cudaMemcpy(got.data(), d_got, 8 * n, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(st.data(), d_st, 4 * n, cudaMemcpyDeviceToHost));
                int bad = 0;
                for (int c = 0; c < n; c++) bad += st[c] != 0u || got[c] != ds[c];
                if (way >= 2) {
                    std::vector<unsigned char> out(decoded);
                    CK(cudaMemcpy(out.data(), dst, decoded, cudaMemcpyDeviceToHost));
                    for (int c = 0; c < n; c++) bad += memcmp(out.data() + dof[c], g[c % g.size()]->o.data(), ds[c]) != 0;
                }
                fails += bad;
                float med = ms[ms.size() / 2];
                printf("%-14s chunks %5d %-8s %9.3f ms %8.2f GB/s%s\n", lab.c_str(), n, names[way], med,
                       decoded / (med * 1e6), bad ? "  MISMATCH" : "");
                fflush(stdout);
            }
            cudaFree(d_so); cudaFree(d_ss); cudaFree(d_ds); cudaFree(d_do); cudaFree(d_got); cudaFree(d_st); cudaFree(dst);
        }
        cudaFree(src);
    }
    printf(fails ? "FAIL (%d)\n" : "ALL OK\n", fails);
    return fails ? 1 : 0;
}
