#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine: the same bench on two builds, alternating, in one call, so that a change is compared
# on one card and host (figures from different calls differ by more than most changes).
#   bash tools/gpu/ab.sh [ROUNDS] [LAYOUTS...]        (default: 6 rounds, era5-sharded era5)
# Needs .device/run (the change) and .device/run-base (the base). Make run-base on the dev machine:
# pack the base commit in a second clone (tools/device-pack there), copy its .device/classes/* except
# kernels and *-tests into .device/classes-base/ here, and write .device/run-base as .device/run with
# its class path set to classes-base/*, then classes/kernels, then lib/*.jar. Carry ".device" (64 MiB
# at most with the working tree: leave test classes and test-only jars out of it for this call).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
rounds=${1:-6}; shift || true
layouts=("$@"); [ ${#layouts[@]} -gt 0 ] || layouts=(era5-sharded era5)
median() { grep -E '^result' "$1" | sed 's/.*median \([0-9.]*\) GB.s.*/\1/' | tr '\n' ' '; }
nvidia-smi --query-gpu=name --format=csv,noheader
for layout in "${layouts[@]}"; do
  [ -s "/tmp/zdbench/$layout/zarr.json" ] || bash .device/run main dev.zarrdirect.cli.ZarrDirectCli bench \
    "/tmp/zdbench/$layout" --generate "$layout" --backend cpu --passes 1 --batch 32 > "$OUT/gen-$layout.txt" 2>&1
done
for i in $(seq "$rounds"); do
  for v in base new; do
    r=.device/run; [ "$v" = base ] && r=.device/run-base
    line="$v $i:"
    for layout in "${layouts[@]}"; do
      bash "$r" main dev.zarrdirect.cli.ZarrDirectCli bench "/tmp/zdbench/$layout" --backend cuda --passes 7 \
        --batch "${AB_BATCH:-32}" > "$OUT/ab-$v-$layout-$i.txt" 2>&1
      line="$line $layout $(median "$OUT/ab-$v-$layout-$i.txt")"
    done
    echo "$line"
  done
done
