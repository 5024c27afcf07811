#!/usr/bin/env bash
# GPU machine (after ../shared/tools/device-pack, carry [".device"]): times the multi-pass execute
# pass in each of its ways (block window in shared memory or in place; short matches as a data
# flow or in rounds) on the ERA5 chunk frames (66 MB) and on the sharded layout's inner frames
# (4.15 MB). Prints one line per variant and frame set; logs under $OUT.
#   bash tools/gpu/exec-variants.sh [ZstdKernelBench args]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PATH=/tmp/jre/bin:$PATH
bash tools/gpu/mp-check.sh bench --reps 1 --warmup 0 > /dev/null   # generates the stores once
bash tools/gpu/mp-check.sh shard --reps 1 --warmup 0 > /dev/null
for v in "true true" "true false" "false true" "false false"; do
  set -- $v
  for frames in era5/c shard-frames; do
    log="$OUT/variant-window-$1-dataflow-$2-${frames%%/*}.txt"
    DEVICE_JAVA_OPTS="-Dzarrdirect.cuda.zstdMultiPassWindow=$1 -Dzarrdirect.cuda.zstdMultiPassDataflow=$2" \
      bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --frames-from /tmp/zdgen/$frames \
      --batch-gib 2 --reps 5 --warmup 1 > "$log" 2>&1
    echo "window=$1 dataflow=$2 ${frames%%/*}: $(grep -E 'multi-pass split' "$log" | sed 's/multi-pass split of the median run: //') | $(grep -E '^[0-9]+ MiB' "$log" | tail -1 | awk '{print $5 " GB/s"}')"
  done
done
