#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after tools/device-pack, carry [".device"]): the multi-pass execute pass
# in each of its ways (block window in shared memory or in place; short matches marked in the
# same round or a round later), checked byte for byte on generated 4 MiB frames at levels 1/3/9
# and timed on the sharded ERA5 layout's inner frames (4.15 MB) and, with `era5`, on the
# one-time-step chunks (66 MB). One line per variant and frame set; logs under $OUT.
#   bash tools/gpu/exec-variants.sh [era5]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PATH=/tmp/jre/bin:$PATH
sets="shard-frames"
bash tools/gpu/mp-check.sh shard --reps 1 --warmup 0 > /dev/null   # generates the store once
if [ "${1:-}" = era5 ]; then bash tools/gpu/mp-check.sh bench --reps 1 --warmup 0 > /dev/null; sets="$sets era5/c"; fi
for v in "true true" "true false" "false true" "false false"; do
  set -- $v
  opts="-Dzarrdirect.cuda.zstdMultiPassWindow=$1 -Dzarrdirect.cuda.zstdMultiPassSameRound=$2"
  log="$OUT/variant-window-$1-sameround-$2-generated.txt"
  DEVICE_JAVA_OPTS="$opts" bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --batch-gib 1 --reps 3 \
    --warmup 1 --sizes 4194304 --levels 1,3,9 > "$log" 2>&1
  echo "window=$1 same-round=$2 generated 4 MiB (exit $?): $(grep -E '^4 MiB|Exception|different bytes' "$log" | tail -3 | tr -s ' ' | tr '\n' ' ')"
  for frames in $sets; do
    log="$OUT/variant-window-$1-sameround-$2-${frames%%/*}.txt"
    DEVICE_JAVA_OPTS="$opts" bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --frames-from /tmp/zdgen/$frames \
      --batch-gib 2 --reps 5 --warmup 1 > "$log" 2>&1
    echo "window=$1 same-round=$2 ${frames%%/*} (exit $?): $(grep -E 'multi-pass split' "$log" | sed 's/multi-pass split of the median run: //') | $(grep -E '^[0-9]+ MiB|Exception|different bytes' "$log" | tail -1 | tr -s ' ')"
  done
done
