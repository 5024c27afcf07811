#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (after tools/device-pack, run with carry [".device"]): Nsight Compute on the
# multi-pass zstd kernels while ZstdKernelBench runs, with per-source-line stall samples.
#   bash tools/gpu/ncu-stalls.sh NAME KERNEL_REGEX COUNT [ZstdKernelBench args]
# e.g. bash tools/gpu/ncu-stalls.sh l3 'entropy_pairs|exec_win' 2 --batch-gib 0.25 --sizes 1048576 --levels 3
# Under $OUT: NAME-details.csv (every section of the first COUNT matching launches) and
# NAME-sass.csv (SASS instructions with their sampled stall reasons; variants are built with
# -lineinfo, the jar's fatbin is not: pass -Dzarrdirect.cuda.kernelImage in DEVICE_JAVA_OPTS).
set -u
name=${1:?name}; kre=${2:?kernel regex}; count=${3:?launch count}; shift 3
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
NCU=${NCU:-$(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)}
[ -x "$NCU" ] || { echo "no ncu under /opt/nvidia/nsight-compute" >&2; exit 1; }
export PATH=/tmp/jre/bin:$PATH
args=("$@"); [ ${#args[@]} -eq 0 ] && args=(--batch-gib 0.25 --reps 1 --warmup 0 --sizes 1048576 --levels 3)
rep=/tmp/ncu-$name
"$NCU" --target-processes all -k "regex:$kre" -c "$count" --set full --import-source yes -f -o "$rep" \
  bash .device/run main dev.zarrdirect.cuda.bench.ZstdKernelBench "${args[@]}" > "$OUT/$name-run.txt" 2>&1
echo "ncu exit $?"
"$NCU" -i "$rep.ncu-rep" --page details --csv > "$OUT/$name-details.csv" 2>&1
"$NCU" -i "$rep.ncu-rep" --page source --csv --print-source sass > "$OUT/$name-sass.csv" 2>&1
ls -la "$OUT"
