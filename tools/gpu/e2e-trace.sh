#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after tools/device-pack, run with carry [".device"]): where the time of
# `readToDevice` goes on an ERA5 layout, per device batch size. Runs the cuda bench with
# -Dzarrdirect.trace=true (PipelineTrace: allocate, plan, each batch's fetch and decode spans) and
# prints the result line and the trace of the last pass for each batch size.
#   bash tools/gpu/e2e-trace.sh [LAYOUT] [BATCH_SIZES...]      (era5-sharded, 256)
# Extra JVM options go in DEVICE_JAVA_OPTS (e.g. -Dzarrdirect.cuda.readerThreads=16).
set -u
layout=${1:-era5-sharded}; shift || true
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(256)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PATH=/tmp/jre/bin:$PATH
dir=/tmp/zdbench/$layout
if [ ! -s "$dir/c/0/0/0/0" ]; then
  bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench "$dir" --generate "$layout" --passes 1 --backend cpu \
    > "$OUT/generate-$layout.txt" 2>&1 || { echo "generate $layout failed:"; tail -5 "$OUT/generate-$layout.txt"; exit 1; }
fi
base=${DEVICE_JAVA_OPTS:-}
for b in "${sizes[@]}"; do
  log="$OUT/trace-$layout-$b.txt"
  DEVICE_JAVA_OPTS="$base -Dzarrdirect.trace=true -Dzarrdirect.cuda.batchSize=$b" bash .device/run main \
    dev.zarrdirect.cli.ZarrDirectCli bench "$dir" --backend cuda --passes 3 --batch "${E2E_BATCH:-32}" > "$log" 2>&1
  echo "== batch size $b: $(grep -E '^result' "$log" | tr -s ' ')"
  # the last pass's trace: from its header line to the end
  awk '/^trace /{buf=""} {buf=buf $0 "\n"} END{printf "%s", buf}' "$log" | grep -v '^result'
done
