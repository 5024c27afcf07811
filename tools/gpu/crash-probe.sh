#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine: repeats the store generation that sometimes dies of a plain "Segmentation fault"
# (docs/correctness-issues.md) with core dumps on, and prints the crashing threads' stacks with
# cuda-gdb (the machine has no gdb). Logs under $OUT.
#   bash tools/gpu/crash-probe.sh [RUNS]
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$PWD
export PATH=/tmp/jre/bin:$PATH
echo "core_pattern: $(cat /proc/sys/kernel/core_pattern)"
ulimit -c unlimited
for i in $(seq 1 "${1:-3}"); do
  d=/tmp/crash/$i; rm -rf "$d"; mkdir -p "$d"
  (cd "$d" && DEVICE_JAVA_OPTS="-XX:ErrorFile=$OUT/hs_err_%p.log -Xcheck:jni" bash "$root/.device/run" main \
    dev.zarrdirect.cli.ZarrDirectCli bench "$d/store" --generate era5-sharded --passes 1 --backend cpu \
    > "$OUT/crash-run-$i.txt" 2>&1)
  rc=$?
  echo "run $i: exit $rc; $(grep -c 'handler modified' "$OUT/crash-run-$i.txt") handler warnings; cores: $(ls "$d" | grep -c core)"
  for c in "$d"/core*; do
    [ -e "$c" ] || continue
    cuda-gdb -batch -ex "info threads" -ex "bt 30" /tmp/jre/bin/java "$c" > "$OUT/crash-bt-$i.txt" 2>&1
    grep -E "^#|^\*" "$OUT/crash-bt-$i.txt" | head -40
  done
  rm -rf "$d"
done
