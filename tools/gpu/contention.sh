#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after tools/device-pack, carry [".device"]): `zarr-direct bench` on the cuda backend
# while another process keeps the GPU busy with a training-like step (36 bf16 8192^3 matmuls, then
# a synchronize), under tools/gpu/watchdog.sh. Tells whether the decode kernels stall when the GPU
# is time-sliced with another process, without the loader (docs/status/known-problems.md).
#   RUNS=2 LIMIT=90 [MODE=loader] bash tools/gpu/contention.sh [LAYOUT]      (zstd)
# MODE=loader runs the loader benchmark's cuda configuration (no step of its own) instead of bench.
set -u
OUT=${OUT:-/tmp/out}; base=$OUT; RUNS=${RUNS:-2}; LIMIT=${LIMIT:-90}; layout=${1:-zstd}
DIR=${DIR:-/tmp/zdloader}
python3 benchmarks/python/make_era5_stores.py "$DIR" --steps 16 > "$base/stores.txt" 2>&1 || { cat "$base/stores.txt"; exit 1; }
bash .device/run java -version > /dev/null 2>&1
for ((i = 1; i <= RUNS; i++)); do
  export OUT=$base/r$i; mkdir -p "$OUT"
  python3 - "$((LIMIT + 10))" > "$OUT/steps.txt" 2>&1 <<'PY' &
import sys, time, torch
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16); b = a.clone(); c = torch.empty_like(a)
t0 = time.time(); worst = 0.0; n = 0
while time.time() - t0 < float(sys.argv[1]):
    s = time.time()
    for _ in range(36):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    worst = max(worst, time.time() - s); n += 1
    if n % 50 == 0:
        print(f"{n} steps, worst {worst * 1e3:.0f} ms", flush=True)
print(f"steps {n} in {time.time() - t0:.1f} s, worst {worst * 1e3:.0f} ms", flush=True)
PY
  mm=$!
  sleep 3
  t0=$SECONDS
  if [ "${MODE:-bench}" = loader ]; then
    # the loader with no step of its own: only the other process loads the GPU
    STEPS=16 SECONDS_PER=3 LIMIT=$LIMIT bash tools/gpu/watchdog.sh bash tools/gpu/loader-bench.sh --layouts "$layout" \
      --configs zd-cuda --step-ms 0 > "$OUT/bench.txt" 2>&1
  else
    LIMIT=$LIMIT bash tools/gpu/watchdog.sh bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench \
      "$DIR/era5-$layout.zarr/x" --backend cuda --passes 60 --batch 32 > "$OUT/bench.txt" 2>&1
  fi
  rc=$?
  kill "$mm" 2>/dev/null; wait "$mm" 2>/dev/null
  echo "run $i: bench exit $rc after $((SECONDS - t0)) s; $(grep -m1 -E '^result|^\| ZarrLoader' "$OUT/bench.txt"); matmul: $(tail -1 "$OUT/steps.txt")"
done
