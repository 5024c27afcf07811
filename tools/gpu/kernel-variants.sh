#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Kernel variants: fatbins built here with extra nvcc flags, timed on the GPU machine in one call
# (zarrdirect.cuda.kernelImage loads a fatbin file instead of the jar's).
#   here:        bash tools/gpu/kernel-variants.sh build NAME "-DFLAG=1 ..." [SRC_DIR]   (into .device/variants)
#   GPU machine: bash tools/gpu/kernel-variants.sh run [ZstdKernelBench args]   (after device-pack; logs under $OUT)
# SRC_DIR defaults to kernels/src/main/c (another checkout's, e.g. a git worktree of main, gives
# the baseline). `run` times every variant on the same frames and checks their bytes.
set -u
mode=${1:?build or run}; shift
case "$mode" in
build)
  name=${1:?variant name}; flags=${2:-}; src=${3:-kernels/src/main/c}
  mkdir -p .device/variants
  # shellcheck disable=SC2086 # flags are words
  /usr/local/cuda/bin/nvcc -fatbin -O3 -lineinfo -I"$src" -gencode arch=compute_90,code=sm_90 $flags \
    -o ".device/variants/$name.fatbin" "$src/cuda/zd_kernels.cu" || exit 1
  # compressed: the device tool carries at most 64 MiB, and .device/ is most of it
  xz -f -6 ".device/variants/$name.fatbin" && echo "built .device/variants/$name.fatbin.xz ($flags)"
  ;;
run)
  OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
  export PATH=/tmp/jre/bin:$PATH
  args=("$@"); [ ${#args[@]} -eq 0 ] && args=(--batch-gib 1 --reps 5 --warmup 1 --sizes 1048576 --levels 1,3,9)
  mkdir -p /tmp/zd-variants
  for f in .device/variants/*.fatbin.xz; do
    v=$(basename "$f" .fatbin.xz)
    xz -dc "$f" > "/tmp/zd-variants/$v.fatbin" || exit 1
    DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} -Dzarrdirect.cuda.kernelImage=/tmp/zd-variants/$v.fatbin" \
      bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench "${args[@]}" > "$OUT/variant-$v.txt" 2>&1
    echo "== $v (exit $?)"
    grep -E '^[0-9]+ (KiB|MiB)|multi-pass split|Exception|different' "$OUT/variant-$v.txt" | sed 's/multi-pass split of the median run: /  split: /'
  done
  ;;
*) echo "usage: $0 build NAME FLAGS [SRC] | run [bench args]" >&2; exit 2 ;;
esac
