#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Launch settings of the multi-pass kernels (Java system properties) timed on the GPU machine in
# one call, on the same frames, each run checking its bytes (ZstdKernelBench verifies).
#   bash tools/gpu/prop-sweep.sh shard|plain|gen|read-shard|read-plain "label|-Dkey=value ..." ...
#   (after device-pack; logs under $OUT)
# shard: the sharded ERA5 layout's inner frames (generated once, as mp-check.sh shard does);
# plain: the 66 MB frames of the one-time-step-per-chunk layout (8 of them, as mp-check.sh bench);
# gen: generated frames (BENCH_ARGS, default 1 MiB at levels 1, 3, 9 and 4 MiB at level 9);
# read-shard, read-plain: the end-to-end read of the whole [32, 16, 721, 1440] store on cuda
# (`zarr-direct bench`, PASSES passes, default 5), no CPU comparison.
set -u
what=${1:?shard or gen}; shift
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PATH=/tmp/jre/bin:$PATH
if [ "$what" = shard ]; then
  if [ ! -s /tmp/zdgen/shard-frames/000000 ]; then
    [ -s /tmp/zdbench/era5-sharded/c/0/0/0/0 ] || bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench \
      /tmp/zdbench/era5-sharded --generate era5-sharded --passes 1 --backend cpu > "$OUT/generate-sharded.txt" 2>&1
    python3 tools/gpu/shard-frames.py /tmp/zdbench/era5-sharded /tmp/zdgen/shard-frames || exit 1
  fi
  args=(--frames-from /tmp/zdgen/shard-frames --batch-gib 2 --reps 5 --warmup 1)
elif [ "$what" = plain ]; then
  [ -s /tmp/zdgen/era5/c/0/0/0/0 ] || bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench /tmp/zdgen/era5 \
    --generate era5 --shape 8,16,721,1440 --passes 1 --backend cpu > "$OUT/generate-plain.txt" 2>&1
  args=(--frames-from /tmp/zdgen/era5/c --batch-gib 2 --reps 5 --warmup 1)
elif [ "$what" = read-shard ] || [ "$what" = read-plain ]; then
  layout=era5; [ "$what" = read-shard ] && layout=era5-sharded
  for spec in "$@"; do
    label=${spec%%|*}; opts=${spec#*|}
    DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} $opts" bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench \
      /tmp/zdbench/$layout --generate $layout --backend cuda --passes "${PASSES:-5}" --batch 32 \
      > "$OUT/$what-$label.txt" 2>&1
    echo "== $what $label (exit $?): $(grep -E '^result|Exception|wrong' "$OUT/$what-$label.txt" | tr '\n' ' ')"
  done
  exit 0
else
  # shellcheck disable=SC2206 # words
  args=(${BENCH_ARGS:---batch-gib 1 --reps 3 --warmup 1 --sizes 1048576,4194304 --levels 1,3,9})
fi
for spec in "$@"; do
  label=${spec%%|*}; opts=${spec#*|}
  DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} $opts" bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench \
    "${args[@]}" > "$OUT/$what-$label.txt" 2>&1
  echo "== $what $label (exit $?): $(grep -E 'multi-pass split|^[0-9]+ [KM]iB|Exception|wrong|mismatch' \
    "$OUT/$what-$label.txt" | tr -s ' ' | tr '\n' ' ')"
done
