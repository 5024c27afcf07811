#!/usr/bin/env bash
# Launch settings of the multi-pass kernels (Java system properties) timed on the GPU machine in
# one call, on the same frames, each run checking its bytes (ZstdKernelBench verifies).
#   bash tools/gpu/prop-sweep.sh shard|gen "label|-Dkey=value ..." ...     (after device-pack; logs under $OUT)
# shard: the sharded ERA5 layout's inner frames (generated once, as mp-check.sh shard does);
# gen: generated frames (BENCH_ARGS, default 1 MiB at levels 1, 3, 9 and 4 MiB at level 9).
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
