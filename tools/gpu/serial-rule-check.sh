#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (.device packed, carry [".device"]): the zarrdirect.serialRunsPerCore rule of issue #24
# on stores written by TensorStore: plain zlib (numcodecs' "zlib", level 1; a [1, 16, 721, 1440]
# chunk is one 66 MB deflate stream) and blosc with zlib inside (1 MiB blocks of four streams each).
# For each: cuda with the rule (the default), cuda without it (ZARRDIRECT_SERIAL_RUNS_PER_CORE=0:
# every batch on the device), cpu+copy; calls of 4 steps, the whole array in one call, 2-step windows
# 4 queued; TensorStore + copy. Without the rule, plain zlib reads only its first 4 steps, once: a
# 66 MB stream on one device thread takes seconds. LAYOUTS="... netcdf-int16" adds the int16
# shuffle + zlib store of make_netcdf_like_store.py (chunks [1, 1, 721, 1440], 2 MB each), which
# TensorStore cannot read (v2 filters).
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
LAYOUTS=${LAYOUTS:-zlib-v2 blosc-zlib-v2}
era5=$(echo "$LAYOUTS" | tr ' ' '\n' | grep -v netcdf-int16 | paste -sd,)
[ -z "$era5" ] || python3 benchmarks/python/make_era5_stores.py /tmp/st --steps 24 --layouts "$era5" >/tmp/mk.txt 2>&1 \
  || tail -5 /tmp/mk.txt
case " $LAYOUTS " in *" netcdf-int16 "*) python3 benchmarks/python/make_netcdf_like_store.py /tmp/st --steps 24 ;; esac
for L in $LAYOUTS; do
  A=/tmp/st/era5-$L.zarr/x
  [ "$L" = netcdf-int16 ] && A=/tmp/st/netcdf-int16.zarr/x
  echo "=== $L"
  timeout 150 $Z bench "$A" --backend cuda --compare-cpu --passes 3 2>&1 | grep -E "^(stored|backend|reading|result|speedup)"
  echo "--- rule off: every batch on the device"
  if [ "$L" = zlib-v2 ]; then off="--region 0:4,:,:,: --passes 1"; else off="--passes 3"; fi
  # shellcheck disable=SC2086
  ZARRDIRECT_SERIAL_RUNS_PER_CORE=0 timeout 150 $Z bench "$A" --backend cuda $off 2>&1 | grep -E "^(reading|result)"
  echo "--- the whole array in one call"
  timeout 120 $Z bench "$A" --backend cuda --batch 24 --passes 3 2>&1 | grep -E "^result"
  echo "--- 2-step windows, 4 queued"
  timeout 120 $Z bench "$A" --backend cuda --compare-cpu --batch 2 --ahead 4 --passes 3 2>&1 | grep -E "^(result|speedup)"
  if [ "$L" != zlib-v2 ]; then
    ZARRDIRECT_SERIAL_RUNS_PER_CORE=0 timeout 120 $Z bench "$A" --backend cuda --batch 2 --ahead 4 --passes 3 2>&1 \
      | grep -E "^result" | sed 's/^/rule off: /'
  fi
  [ "$L" = netcdf-int16 ] && continue
  python3 benchmarks/python/ts_read_copy.py "$A" "$L"
done
