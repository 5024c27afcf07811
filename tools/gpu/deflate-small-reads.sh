#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (.device packed, carry [".device"]): reads of the three small-chunk deflate stores, one
# call, each store three ways (calls, the whole array in one call, windows 4 queued):
#   int16 2 MB   make_netcdf_like_store.py, 24 steps:                       calls of 4, 24, windows of 2
#   float32 2 MB TensorStore zlib 1 v2, 256 steps of [4, 256, 512]:          calls of 64, 256, windows of 32
#   int16 8.3 MB make_netcdf_like_store.py, 4 channels of [1442, 2880]:     calls of 4, 24, windows of 2
# WAY=choice (default): every batch on `cuda` (zarrdirect.serialRunsPerCore=0) against cpu+copy in
#   the same bench, then the defaults (batches shared with the host: zarrdirect.hostShare), then the
#   timed choice alone (zarrdirect.hostShare=false); PASSES passes (default 4).
# WAY=opencl: every batch on the device, `cuda` then `opencl` (NVIDIA's, same GPU); PASSES default 3.
# WAY=defaults: `cuda` then `opencl` with their defaults (batches shared with the host), what a user
#   gets on each; PASSES default 4.
# docs/performance.md, "The writers' own barrier" and "The device's cold passes", has the tables this
# printed before batches were shared; "Host and device at once" the shared and timed-choice figures;
# "Shared batches: coarse ones, and OpenCL's" those of WAY=defaults.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
way=${WAY:-choice}
case "$way" in
choice) passes=${PASSES:-4} ;;
opencl) passes=${PASSES:-3} ;;
defaults) passes=${PASSES:-4} ;;
*) echo "WAY is choice, opencl or defaults" >&2; exit 2 ;;
esac
python3 benchmarks/python/make_netcdf_like_store.py /tmp/st --steps 24 >/tmp/mk1.txt 2>&1 || tail -5 /tmp/mk1.txt
python3 benchmarks/python/make_netcdf_like_store.py /tmp/st8 --steps 24 --channels 4 --lat 1442 --lon 2880 \
  >/tmp/mk2.txt 2>&1 || tail -5 /tmp/mk2.txt
python3 benchmarks/python/make_era5_stores.py /tmp/stf --steps 256 --channels 4 --lat 256 --lon 512 --layouts zlib-v2 \
  >/tmp/mk3.txt 2>&1 || tail -5 /tmp/mk3.txt
bench() { # label, array, bench options
  local label=$1 a=$2
  shift 2
  echo "--- $label"
  timeout 120 $Z bench "$a" "$@" 2>&1 | grep -E "^(result|speedup|path:)|Exception"
}
for s in 2 f 8; do
  case $s in
  2) A=/tmp/st/netcdf-int16.zarr/x; hows=("--batch 4" "--batch 24" "--batch 2 --ahead 4") ;;
  f) A=/tmp/stf/era5-zlib-v2.zarr/x; hows=("--batch 64" "--batch 256" "--batch 32 --ahead 4") ;;
  8) A=/tmp/st8/netcdf-int16.zarr/x; hows=("--batch 4" "--batch 24" "--batch 2 --ahead 4") ;;
  esac
  echo "=== $A"
  for how in "${hows[@]}"; do
    # shellcheck disable=SC2086 # $how is a list of options
    if [ "$way" = choice ]; then
      bench "$s device $how" "$A" --backend cuda $how --passes "$passes" --compare-cpu --set zarrdirect.serialRunsPerCore=0
      bench "$s shared $how" "$A" --backend cuda $how --passes "$passes"
      bench "$s choice $how" "$A" --backend cuda $how --passes "$passes" --set zarrdirect.hostShare=false
    elif [ "$way" = opencl ]; then
      for b in cuda opencl; do
        bench "$s $b $how" "$A" --backend $b $how --passes "$passes" --set zarrdirect.serialRunsPerCore=0
      done
    else
      for b in cuda opencl; do
        bench "$s $b default $how" "$A" --backend $b $how --passes "$passes"
      done
    fi
  done
done
