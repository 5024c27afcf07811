#!/usr/bin/env bash
# GPU machine (after ../shared/tools/device-pack, run with carry [".device"]): checks and times the
# multi-pass zstd path in one call. Logs under $OUT; the last lines summarise.
#   bash tools/gpu/mp-check.sh [bench|conf|e2e|all] [extra ZstdKernelBench args]
# e2e: `zarr-direct bench` of both ERA5 layouts ([32,16,721,1440] float32, zstd 3), cuda against
# cpu + copy in the same run, with the read and host-to-device limits.
set -u
what=${1:-all}; shift || true
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PATH=/tmp/jre/bin:$PATH
summary=()
if [ "$what" = bench ] || [ "$what" = all ]; then
  if [ ! -s /tmp/zdgen/era5/c/0/0/0/0 ]; then
    bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench /tmp/zdgen/era5 --generate era5 \
      --shape 8,16,721,1440 --passes 1 --backend cpu > "$OUT/generate.txt" 2>&1 || { tail -20 "$OUT/generate.txt"; exit 1; }
  fi
  bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench --frames-from /tmp/zdgen/era5/c \
    --batch-gib 2 --reps 5 --warmup 1 "$@" > "$OUT/bench-era5.txt" 2>&1
  summary+=("era5 66 MB frames: $(grep -E 'multi-pass split|^[0-9]+ MiB' "$OUT/bench-era5.txt" | tr '\n' ' ')")
fi
if [ "$what" = conf ] || [ "$what" = all ]; then
  ZD_REQUIRE_CUDA=1 bash .device/run test --select-package dev.zarrdirect.conformance.cuda > "$OUT/conf-cuda.txt" 2>&1
  summary+=("conformance cuda: $(grep -E 'tests (successful|failed)' "$OUT/conf-cuda.txt" | tr -s ' ' | tr '\n' ' ')")
  DEVICE_JAVA_OPTS=-Dzarrdirect.cuda.zstdMultiPassMin=65536 ZD_REQUIRE_CUDA=1 bash .device/run test \
    --select-class dev.zarrdirect.conformance.cuda.CudaCodecsMatchCpuTest > "$OUT/conf-cuda-mp.txt" 2>&1
  summary+=("codecs, multi-pass forced: $(grep -E 'tests (successful|failed)' "$OUT/conf-cuda-mp.txt" | tr -s ' ' | tr '\n' ' ')")
fi
if [ "$what" = e2e ] || [ "$what" = all ]; then
  for layout in era5 era5-sharded; do
    bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench /tmp/zdbench/$layout --generate $layout \
      --backend cuda --compare-cpu --limits --passes 3 --batch "${E2E_BATCH:-32}" > "$OUT/e2e-$layout.txt" 2>&1
    summary+=("e2e $layout: $(grep -E '^(result|limit|speedup|stored)' "$OUT/e2e-$layout.txt" | tr -s ' ' | tr '\n' ' ')")
  done
fi
printf '%s\n' "${summary[@]}"
