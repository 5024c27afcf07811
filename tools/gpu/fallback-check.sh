#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (.device packed, carry [".device"]): the fallback rule of issue #24 as a check. A device
# read of a store whose codec runs on the host (blosc lz4, made a host stage with
# ZARRDIRECT_CODEC_BLOSC=cpu: every blosc compressor decodes on the device now) must be at least MIN
# (default 0.9) times as fast as the CPU backend plus one copy, measured in the same bench call.
# Exits 1 when a run's ratio is below MIN. RUNS=2 calls; the store is generated once.
set -uo pipefail
MIN=${MIN:-0.9}; RUNS=${RUNS:-2}; STORE=${STORE:-/tmp/era5-blosc}
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
[ -e "$STORE/zarr.json" ] || [ -e "$STORE/.zarray" ] || $Z bench "$STORE" --generate era5 --compressor blosc \
  --shape 16,16,721,1440 --backend cuda --passes 1 --batch 16 >/dev/null 2>&1
fail=0
for i in $(seq "$RUNS"); do
  out=$(ZARRDIRECT_CODEC_BLOSC=cpu $Z bench "$STORE" --backend cuda --compare-cpu --passes 5 --batch 16 2>&1)
  echo "$out" | grep -q "^backend:.*decoded on the host" || { echo "run $i: FAIL the path names no host stage:"; echo "$out" | grep "^backend:"; fail=1; }
  echo "$out" | grep -E "^(backend|result|speedup)" | sed "s/^/run $i: /"
  ratio=$(echo "$out" | sed -n 's/^speedup: *\([0-9.]*\)x.*/\1/p')
  if [ -z "$ratio" ]; then echo "run $i: no speedup line"; fail=1; continue; fi
  if awk "BEGIN {exit !($ratio < $MIN)}"; then echo "run $i: FAIL ${ratio}x < ${MIN}x"; fail=1; else echo "run $i: ok ${ratio}x >= ${MIN}x"; fi
done
exit $fail
