#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine host (carry [".device"]): how `zarr-direct stats` scales on this machine without Spark,
# the ceiling for tools/spark-bench.sh's one-core executors:
#   bash tools/gpu/stats-scaling.sh
# 1. generates an ERA5-like store [SHAPE] float32 zstd 3 (bench --generate) as variable "data";
# 2. times one CLI process with ZARRDIRECT_THREADS = 1, 2, 4 ... (one JVM, its worker threads);
# 3. times N single-thread CLI processes started together, each over a disjoint 1/N of the time
#    axis (--time-range), N = 1, 2, 4 ...: what N one-core workers can do here, with a JVM start each
#    as a Spark executor has, and no scheduler.
# Knobs: SHAPE=2920,8,181,360 DIR=/tmp/zdscale COUNTS="1 2 4 8 16"
set -u
SHAPE=${SHAPE:-2920,8,181,360}
DIR=${DIR:-/tmp/zdscale}
COUNTS=${COUNTS:-"1 2 4 8 16"}
run=(bash .device/run main dev.zarrdirect.cli.ZarrDirectCli)
[ -f .device/run ] || { echo "no .device: run tools/device-pack first" >&2; exit 2; }
bash .device/run java -version >/dev/null 2>&1 # unpacks the runtime once, before processes race to it
store=$DIR/era5.zarr
if [ ! -f "$store/zarr.json" ]; then
  mkdir -p "$store"
  "${run[@]}" bench --generate era5 --shape "$SHAPE" --passes 1 --backend cpu "$store/data" >/dev/null 2>&1
  printf '{"zarr_format": 3, "node_type": "group", "attributes": {}}\n' > "$store/zarr.json"
fi
steps=${SHAPE%%,*}
echo "store: $store ($(du -sh "$store" | cut -f1) on disk, shape $SHAPE float32), $(nproc) cores"
cat "$store"/data/c/*/*/*/* > /dev/null 2>&1 # page cache
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
for t in $COUNTS; do
  t0=$(date +%s.%N)
  ZARRDIRECT_THREADS=$t "${run[@]}" stats "$store" --variables data --backend cpu -o "$DIR/stats-threads-$t.json" >/dev/null 2>&1 \
    || echo "stats with $t threads failed" >&2
  echo "one process, $t thread(s): $(secs "$t0" "$(date +%s.%N)") s"
done
for n in $COUNTS; do
  t0=$(date +%s.%N)
  pids=()
  for i in $(seq 0 $((n - 1))); do
    a=$((steps * i / n)); b=$((steps * (i + 1) / n))
    ZARRDIRECT_THREADS=1 "${run[@]}" stats "$store" --variables data --backend cpu --time-range "$a:$b" \
      -o "$DIR/stats-part-$n-$i.json" >/dev/null 2>&1 &
    pids+=($!)
  done
  fail=0
  for p in "${pids[@]}"; do wait "$p" || fail=1; done
  echo "$n single-thread processes over disjoint time ranges: $(secs "$t0" "$(date +%s.%N)") s$([ $fail = 1 ] && echo ' (a process failed)')"
done
