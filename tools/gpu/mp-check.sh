#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after tools/device-pack, run with carry [".device"]): checks and times the
# multi-pass zstd path in one call. Logs under $OUT; the last lines summarise.
#   bash tools/gpu/mp-check.sh [bench|shard|conf|e2e|all] [extra ZstdKernelBench args]
# shard: the kernel alone on the inner frames of the sharded ERA5 layout (4.15 MB each).
# e2e: `zarr-direct bench` of both ERA5 layouts ([32,16,721,1440] float32, zstd 3), cuda against
# cpu + copy in the same run, with the read and host-to-device limits (E2E_PASSES passes, default 3).
set -u
what=${1:-all}; shift || true
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PATH=/tmp/jre/bin:$PATH
# a JVM crash leaves its report with the logs (docs/correctness-issues.md: intermittent crash)
export DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} -XX:ErrorFile=$OUT/hs_err_%p.log"
summary=()
# JVM options that send every multi-pass frame, and every block with sequences, through the sequence pass
MP_SEQ_FORCED="-Dzarrdirect.cuda.zstdMultiPassMin=65536 -Dzarrdirect.cuda.zstdMultiPassSeqAbove=0 -Dzarrdirect.cuda.zstdMultiPassSeqMin=1"
# generate LAYOUT DIR LOG [bench args]: the store, once; a crash is reported and retried once
generate() {
  local layout=$1 dir=$2 log=$3; shift 3
  [ -s "$dir/c/0/0/0/0" ] && return 0
  for attempt in 1 2; do
    bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench "$dir" --generate "$layout" --passes 1 \
      --backend cpu "$@" > "$log" 2>&1 && return 0
    summary+=("generate $layout: attempt $attempt failed with exit $? ($(tail -c 300 "$log" | tr '\n' ' '))")
    rm -rf "$dir"
  done
  return 1
}
if [ "$what" = bench ] || [ "$what" = all ]; then
  generate era5 /tmp/zdgen/era5 "$OUT/generate.txt" --shape 8,16,721,1440 || { printf '%s\n' "${summary[@]}"; exit 1; }
  bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --frames-from /tmp/zdgen/era5/c \
    --batch-gib 2 --reps 5 --warmup 1 "$@" > "$OUT/bench-era5.txt" 2>&1
  summary+=("era5 66 MB frames: $(grep -E 'multi-pass split|^[0-9]+ MiB' "$OUT/bench-era5.txt" | tr '\n' ' ')")
fi
if [ "$what" = shard ] || [ "$what" = all ]; then
  generate era5-sharded /tmp/zdbench/era5-sharded "$OUT/generate-sharded.txt" || { printf '%s\n' "${summary[@]}"; exit 1; }
  [ -s /tmp/zdgen/shard-frames/000000 ] || python3 tools/gpu/shard-frames.py /tmp/zdbench/era5-sharded /tmp/zdgen/shard-frames
  bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --frames-from /tmp/zdgen/shard-frames \
    --batch-gib 2 --reps 5 --warmup 1 "$@" > "$OUT/bench-shard.txt" 2>&1
  summary+=("era5 sharded 4.15 MB frames: $(grep -E 'multi-pass split|^[0-9]+ MiB' "$OUT/bench-shard.txt" | tr '\n' ' ')")
fi
if [ "$what" = conf ] || [ "$what" = all ]; then
  ZD_REQUIRE_CUDA=1 bash .device/run test --select-package dev.zarrdirect.conformance.cuda > "$OUT/conf-cuda.txt" 2>&1
  summary+=("conformance cuda: $(grep -E 'tests (successful|failed)' "$OUT/conf-cuda.txt" | tr -s ' ' | tr '\n' ' ')")
  DEVICE_JAVA_OPTS="$DEVICE_JAVA_OPTS -Dzarrdirect.cuda.zstdMultiPassMin=65536" ZD_REQUIRE_CUDA=1 bash .device/run test \
    --select-class dev.zarrdirect.conformance.cuda.CudaCodecsMatchCpuTest > "$OUT/conf-cuda-mp.txt" 2>&1
  summary+=("codecs, multi-pass forced: $(grep -E 'tests (successful|failed)' "$OUT/conf-cuda-mp.txt" | tr -s ' ' | tr '\n' ' ')")
  # the same with the sequence pass forced for every block with sequences (batches of any size)
  DEVICE_JAVA_OPTS="$DEVICE_JAVA_OPTS $MP_SEQ_FORCED" ZD_REQUIRE_CUDA=1 bash .device/run test \
    --select-class dev.zarrdirect.conformance.cuda.CudaCodecsMatchCpuTest > "$OUT/conf-cuda-mp-seq.txt" 2>&1
  summary+=("codecs, multi-pass and sequence pass forced: $(grep -E 'tests (successful|failed)' "$OUT/conf-cuda-mp-seq.txt" | tr -s ' ' | tr '\n' ' ')")
  # the same with deferred execution forced for every batch (then zd_zstd_mp_resolve)
  DEVICE_JAVA_OPTS="$DEVICE_JAVA_OPTS $MP_SEQ_FORCED -Dzarrdirect.cuda.zstdMultiPassDefer=1" ZD_REQUIRE_CUDA=1 \
    bash .device/run test --select-class dev.zarrdirect.conformance.cuda.CudaCodecsMatchCpuTest \
    > "$OUT/conf-cuda-mp-defer.txt" 2>&1
  summary+=("codecs, multi-pass, sequence pass and deferred execution forced: $(grep -E 'tests (successful|failed)' "$OUT/conf-cuda-mp-defer.txt" | tr -s ' ' | tr '\n' ' ')")
  # generated frames of 4 MiB at levels 1/3/9 through the multi-pass path, checked byte for byte
  bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --batch-gib 1 --reps 3 --warmup 1 --sizes 4194304 \
    --levels 1,3,9 > "$OUT/bench-4mib.txt" 2>&1
  summary+=("generated 4 MiB frames (exit $?): $(grep -E '^4 MiB|Exception' "$OUT/bench-4mib.txt" | tail -3 | tr -s ' ' | tr '\n' ' ')")
fi
if [ "$what" = e2e ] || [ "$what" = all ]; then
  for layout in ${E2E_LAYOUTS:-era5 era5-sharded}; do
    bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench /tmp/zdbench/$layout --generate $layout \
      --backend cuda --compare-cpu --limits --passes "${E2E_PASSES:-3}" --batch "${E2E_BATCH:-32}" > "$OUT/e2e-$layout.txt" 2>&1
    summary+=("e2e $layout: $(grep -E '^(result|limit|speedup|stored|host)' "$OUT/e2e-$layout.txt" | tr -s ' ' | tr '\n' ' ')")
  done
fi
ls "$OUT"/hs_err_*.log 2>/dev/null | sed 's/^/JVM crash report: /'
printf '%s\n' "${summary[@]}"
