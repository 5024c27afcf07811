#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""TensorStore's side of tools/gpu/s3-bench.sh: reads a whole zarr v3 array through its `s3` driver
from an S3 endpoint, in slabs of time steps as S3ReadBench does, and prints one JSON line.

    python3 benchmarks/python/s3_ts_read.py ENDPOINT BUCKET STORE ARRAY IN_FLIGHT [--rounds 5] [--steps-per-read 8]

IN_FLIGHT is TensorStore's s3_request_concurrency (requests in flight) and its data_copy_concurrency
(decoding threads), as zarr-direct gets the same number for both. Anonymous requests.
"""

import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("endpoint")
    ap.add_argument("bucket")
    ap.add_argument("store")
    ap.add_argument("array")
    ap.add_argument("in_flight", type=int)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps-per-read", type=int, default=8)
    a = ap.parse_args()
    import tensorstore as ts
    context = ts.Context({
        "s3_request_concurrency": {"limit": a.in_flight},
        "data_copy_concurrency": {"limit": a.in_flight},
        "cache_pool": {"total_bytes_limit": 0},
    })
    spec = {
        "driver": "zarr3",
        "kvstore": {"driver": "s3", "bucket": a.bucket, "path": f"{a.store}/{a.array}/",
                    "endpoint": a.endpoint, "aws_region": "us-east-1",
                    "aws_credentials": {"type": "anonymous"}},
    }
    arr = ts.open(spec, read=True, context=context).result()
    t_steps = arr.shape[0]
    gbps = []
    busy = []
    total = 0
    for r in range(a.rounds + 1):
        t0 = time.perf_counter()
        cpu0 = time.process_time()
        total = 0
        for t in range(0, t_steps, a.steps_per_read):
            out = arr[t:min(t_steps, t + a.steps_per_read)].read().result()
            total += out.nbytes
        s = time.perf_counter() - t0
        if r > 0:
            gbps.append(total / s / 1e9)
            # this process's CPU time over the wall time, as S3ReadBench reports it for zarr-direct
            busy.append((time.process_time() - cpu0) / s)
    gbps.sort()
    busy.sort()
    print(json.dumps({"reader": "tensorstore s3", "location": f"s3://{a.bucket}/{a.store}", "in_flight": a.in_flight,
                      "bytes": total, "gbps": [round(g, 3) for g in gbps], "median_gbps": round(gbps[len(gbps) // 2], 3),
                      "median_cores_busy": round(busy[len(busy) // 2], 2)}))


if __name__ == "__main__":
    main()
