#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after the project is packed into .device/, run with carry [".device"]): the read
# engine's checks and figures in one call, to compare before and after a change on one machine.
#   bash tools/gpu/engine-check.sh [conf] [e2e] [windows] [opencl]   (default: all four)
# conf:    the CUDA, device-read and OpenCL conformance suites
# e2e:     `bench` of both ERA5 layouts ([32,16,721,1440] float32, zstd 3) on cuda, against cpu + copy
#          in the same run, with the read and host-to-device limits (E2E_PASSES passes, default 5)
# windows: the same stores read in calls of 2 time steps (what a training loader asks for); with
#          AHEAD=N also with N reads queued at once (bench --ahead: read-ahead across successive reads)
# opencl:  the plain layout on the opencl backend
# Logs under $OUT; the last lines summarise.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} -XX:ErrorFile=$OUT/hs_err_%p.log"
what=("$@"); [ ${#what[@]} -gt 0 ] || what=(conf e2e windows opencl)
passes=${E2E_PASSES:-5}
summary=()
has() { local w; for w in "${what[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
tests() { grep -E 'tests (successful|failed)' "$1" | tr -s ' ' | tr '\n' ' '; }
bench() { # LOG ARGS...: one `zarr-direct bench`, summarised
  local log=$1; shift
  bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench "$@" > "$log" 2>&1
  echo "(exit $?) $(grep -E '^(result|limit|speedup|stored)' "$log" | tr -s ' ' | tr '\n' ' ')"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader > "$OUT/gpu.txt" 2>&1
summary+=("gpu: $(cat "$OUT/gpu.txt")")
if has conf; then
  ZD_REQUIRE_CUDA=1 bash .device/run test --select-package dev.zarrdirect.conformance.cuda > "$OUT/conf-cuda.txt" 2>&1
  summary+=("conformance cuda: $(tests "$OUT/conf-cuda.txt")")
  ZD_REQUIRE_DEVICE=cuda bash .device/run test --select-package dev.zarrdirect.conformance.device > "$OUT/conf-device.txt" 2>&1
  summary+=("conformance device reads (cuda): $(tests "$OUT/conf-device.txt")")
  ZD_REQUIRE_OPENCL=1 bash .device/run test --select-package dev.zarrdirect.conformance.opencl > "$OUT/conf-opencl.txt" 2>&1
  summary+=("conformance opencl: $(tests "$OUT/conf-opencl.txt")")
fi
for layout in era5 era5-sharded; do
  store=/tmp/zdbench/$layout
  if has e2e; then
    summary+=("e2e $layout cuda vs cpu+copy: $(bench "$OUT/e2e-$layout.txt" $store --generate $layout --backend cuda \
      --compare-cpu --limits --passes "$passes" --batch 32)")
  fi
  if has windows; then
    bench "$OUT/gen-$layout.txt" $store --generate $layout --backend cpu --passes 1 --batch 32 > /dev/null
    summary+=("windows of 2 steps $layout cuda: $(bench "$OUT/win-$layout.txt" $store --backend cuda --passes "$passes" --batch 2)")
    [ "${AHEAD:-1}" -gt 1 ] && summary+=("windows of 2 steps $layout cuda, $AHEAD queued: $(bench "$OUT/win-ahead-$layout.txt" $store \
      --backend cuda --passes "$passes" --batch 2 --ahead "$AHEAD")")
  fi
done
if has opencl; then
  bench "$OUT/gen-era5.txt" /tmp/zdbench/era5 --generate era5 --backend cpu --passes 1 --batch 32 > /dev/null
  summary+=("opencl era5: $(bench "$OUT/opencl-era5.txt" /tmp/zdbench/era5 --backend opencl --passes 3 --batch 32)")
fi
ls "$OUT"/hs_err_*.log 2>/dev/null | sed 's/^/JVM crash report: /'
printf '%s\n' "${summary[@]}"
