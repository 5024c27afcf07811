/* SPDX-License-Identifier: Apache-2.0 */
// CPU check of the benchmark's blosc writer (zd_blosc_writer.h): its frames decode to their raw
// bytes through the host build of the kernels. From kernels/:
//   gcc -std=gnu11 -O2 -c -pthread -I src/main/c src/main/c/host/zd_host.c -o /tmp/zd_host.o
//   g++ -O2 -I src/test/cuda src/test/cuda/zd_blosc_writer_check.cpp /tmp/zd_host.o -pthread -lm -o /tmp/wcheck && /tmp/wcheck
#include "zd_bench_data.h"
#include "zd_blosc_writer.h"
#include <cstdio>
extern "C" int zd_host_blosc_decode_batch(const uint8_t *, const uint64_t *, const uint64_t *, uint8_t *, const uint64_t *,
                                          const uint64_t *, uint64_t *, uint8_t *, uint64_t, uint32_t *, uint32_t, uint32_t,
                                          uint32_t, uint32_t);
int main() {
    int fails = 0;
    for (uint32_t chunk : {1000u, 65536u, 1u << 20, (1u << 20) + 12}) {
        for (uint32_t block : {4096u, 131072u}) {
            Bytes raw(chunk);
            zdg_fill(raw.data(), chunk, 1, chunk + block);
            Bytes f = blosc_lz4_shuffle(raw, 4, block);
            Bytes out(chunk);
            std::vector<uint8_t> scratch(2 * (size_t)block + 64);
            uint64_t so = 0, ss = f.size(), doff = 0, ds = chunk;
            uint32_t st = 99;
            zd_host_blosc_decode_batch(f.data(), &so, &ss, out.data(), &doff, &ds, nullptr, scratch.data(), block + 16, &st, 1,
                                       2, 4, 0);
            bool ok = st == 0 && out == raw;
            printf("chunk %8u block %6u: ratio %.2f status %u %s\n", chunk, block, (double)chunk / f.size(), st, ok ? "ok" : "BAD");
            fails += !ok;
        }
    }
    return fails != 0;
}
