#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What a user would pick instead of zarr-direct for one array: TensorStore reads it whole, then
torch copies it to the GPU. Prints the best rate of --reps reads, decoded bytes per second.

    python3 benchmarks/python/ts_read_copy.py PATH LABEL [--reps 3]

PATH is a zarr array (v2 or v3) on the local file system; LABEL names it in the output line,
"tensorstore+copy LABEL: X GB/s (best of N, Y GB)", which the tools/gpu scripts grep.
"""

import argparse
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("path")
    ap.add_argument("label")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    import tensorstore as ts
    import torch
    t = ts.open({"driver": "zarr", "kvstore": {"driver": "file", "path": a.path}}).result()
    best, nbytes = 0.0, 0
    for _ in range(a.reps):
        t0 = time.perf_counter()
        x = t.read().result()
        torch.from_numpy(x).cuda()
        torch.cuda.synchronize()
        nbytes = x.nbytes
        best = max(best, nbytes / (time.perf_counter() - t0) / 1e9)
    print("tensorstore+copy %s: %.2f GB/s (best of %d, %.2f GB)" % (a.label, best, a.reps, nbytes / 1e9))


if __name__ == "__main__":
    main()
