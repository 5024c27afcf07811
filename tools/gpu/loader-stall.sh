#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after tools/device-pack, carry [".device"]): reproduces the intermittent stall of
# the ZarrLoader cuda configuration while the consumer runs a training step (docs/known-problems.md).
# Runs the loader benchmark on a small store RUNS times, each under tools/gpu/watchdog.sh; a run
# that has not ended after LIMIT seconds leaves thread dumps of both processes, nvidia-smi and
# pmon under $OUT/<run>/watchdog and is counted as a stall.
#   RUNS=3 LIMIT=60 bash tools/gpu/loader-stall.sh [loader_bench.py options, e.g. --step-ms 0]
set -u
base=${OUT:-/tmp/out}; RUNS=${RUNS:-3}; LIMIT=${LIMIT:-60}
stalls=0
for ((i = 1; i <= RUNS; i++)); do
  export OUT=$base/r$i; mkdir -p "$OUT"
  t0=$SECONDS
  STEPS=16 SECONDS_PER=3 LIMIT=$LIMIT bash tools/gpu/watchdog.sh bash tools/gpu/loader-bench.sh --layouts zstd \
    --configs zd-cuda "$@" > "$OUT/console.txt" 2>&1
  rc=$?
  [ "$rc" = 124 ] && stalls=$((stalls + 1))
  echo "run $i: exit $rc after $((SECONDS - t0)) s; $(grep -m1 '^| ZarrLoader' "$OUT/console.txt" || echo 'no result line')"
done
echo "stalls: $stalls of $RUNS runs (limit ${LIMIT}s each)"
