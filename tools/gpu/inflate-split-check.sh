#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (.device packed, carry [".device"]): gzip/zlib streams decoded split
# (zarrdirect.cuda.inflateSplitBytes, kernels' inflate/zd_inflate_split.h) against the serial kernel
# (inflateSplitBytes=0) and cpu+copy, on stores not written by us: TensorStore's zlib level 1 v2
# store (a [1, 16, 721, 1440] float32 chunk is one 66 MB stream) and the int16 shuffle + zlib store
# of make_netcdf_like_store.py (2 MB chunks). Calls of 4 steps, the whole array in one call, 2-step
# windows 4 queued; TensorStore + copy for the zlib store. SPLITS="32k 256k" adds range sizes.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
python3 benchmarks/python/make_era5_stores.py /tmp/st --steps 24 --layouts zlib-v2 >/tmp/mk.txt 2>&1 || tail -5 /tmp/mk.txt
python3 benchmarks/python/make_netcdf_like_store.py /tmp/st --steps 24 >/tmp/mk2.txt 2>&1 || tail -5 /tmp/mk2.txt
for L in zlib-v2 netcdf-int16; do
  A=/tmp/st/era5-$L.zarr/x
  [ "$L" = netcdf-int16 ] && A=/tmp/st/netcdf-int16.zarr/x
  echo "=== $L"
  timeout 150 $Z bench "$A" --backend cuda --compare-cpu --passes 3 2>&1 | grep -E "^(stored|backend|reading|result|speedup)"
  echo "--- the whole array in one call"
  timeout 120 $Z bench "$A" --backend cuda --compare-cpu --batch 24 --passes 3 2>&1 | grep -E "^(result|speedup)"
  for s in ${SPLITS:-}; do
    timeout 120 $Z bench "$A" --backend cuda --batch 24 --passes 3 --set zarrdirect.cuda.inflateSplitBytes=$s 2>&1 \
      | grep -E "^result" | sed "s/^/ranges of $s: /"
  done
  echo "--- 2-step windows, 4 queued"
  timeout 120 $Z bench "$A" --backend cuda --compare-cpu --batch 2 --ahead 4 --passes 3 2>&1 | grep -E "^(result|speedup)"
  echo "--- serial kernel, every batch on the device (inflateSplitBytes=0, rule off)"
  if [ "$L" = zlib-v2 ]; then off="--region 0:4,:,:,: --passes 1"; else off="--passes 3"; fi
  # shellcheck disable=SC2086
  ZARRDIRECT_SERIAL_RUNS_PER_CORE=0 timeout 150 $Z bench "$A" --backend cuda $off \
    --set zarrdirect.cuda.inflateSplitBytes=0 2>&1 | grep -E "^(reading|result)"
  if [ "$L" = netcdf-int16 ]; then
    echo "--- serial kernel, the whole array in one call"
    timeout 120 $Z bench "$A" --backend cuda --batch 24 --passes 3 --set zarrdirect.cuda.inflateSplitBytes=0 2>&1 \
      | grep -E "^result"
  fi
  [ "$L" = netcdf-int16 ] && continue
  python3 benchmarks/python/ts_read_copy.py "$A" "$L"
done
