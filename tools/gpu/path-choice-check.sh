#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (.device packed, carry [".device"]): device batches of deflate streams go the way timed
# faster (PathChoice, issue #24), against cpu+copy in the same call. Stores: the int16 shuffle + zlib
# stores of make_netcdf_like_store.py (2 MB chunks [1, 1, 721, 1440], and 8.3 MB chunks
# [1, 1, 1442, 2880] with 4 channels), and TensorStore's zlib level 1 v2 store (66 MB streams,
# ZLIB_STEPS steps, default 4). For each: calls of 4 steps, the whole array in one call, 2-step
# windows 4 queued; PASSES passes (default 6: the first batches of each size are the probes, and
# bench prints where the batches went after the passes). FORCED=1 adds the 8 MB store with every
# batch on the device (zarrdirect.serialRunsPerCore=0) and every batch on the host (4096).
# OPENCL=1 adds OpenCL's 2-step windows on the zlib and 8 MB stores with 1 and 4 command queues
# (zarrdirect.opencl.queues), and CUDA's in the same call. FLOAT=1 adds TensorStore's zlib level 1
# v2 store of 256 steps of [4, 256, 512] float32 (2 MB streams, about 1 MB encoded): calls of 64
# steps, the whole array, 32-step windows 4 queued. RANGES="8192 16384" adds the 2 MB stores with
# every batch on the device, split in ranges of at most each size (zarrdirect.cuda.inflateSplitBytes);
# RANGE_STORES="2 f 8 z" picks the stores it runs on (default "2 f": the int16 and float 2 MB ones).
# STORES="2 8 z" picks the int16 2 MB, int16 8.3 MB and zlib 66 MB stores (default: all three;
# STORES=" " none). Since batches are shared with the host by default (zarrdirect.hostShare), every
# bench here runs with SHARE (default false: the timed choice, what this script checks); SHARE=true
# measures the default.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
passes=${PASSES:-6}
python3 benchmarks/python/make_netcdf_like_store.py /tmp/st --steps 24 >/tmp/mk1.txt 2>&1 || tail -5 /tmp/mk1.txt
python3 benchmarks/python/make_netcdf_like_store.py /tmp/st8 --steps 24 --channels 4 --lat 1442 --lon 2880 \
  >/tmp/mk2.txt 2>&1 || tail -5 /tmp/mk2.txt
python3 benchmarks/python/make_era5_stores.py /tmp/stz --steps "${ZLIB_STEPS:-4}" --layouts zlib-v2 >/tmp/mk3.txt 2>&1 \
  || tail -5 /tmp/mk3.txt
bench() { # label, array, bench options
  local label=$1 a=$2
  shift 2
  echo "--- $label"
  timeout 200 $Z bench "$a" "$@" --set "zarrdirect.hostShare=${SHARE:-false}" 2>&1 | grep -E "^(reading|result|speedup|path:)"
}
declare -A path=([2]=/tmp/st/netcdf-int16.zarr/x [8]=/tmp/st8/netcdf-int16.zarr/x [z]=/tmp/stz/era5-zlib-v2.zarr/x)
for s in ${STORES:-2 8 z}; do
  A=${path[$s]}
  echo "=== $A"
  bench "calls of 4 steps" "$A" --backend cuda --compare-cpu --passes "$passes"
  bench "the whole array in one call" "$A" --backend cuda --compare-cpu --batch 24 --passes "$passes"
  bench "2-step windows, 4 queued" "$A" --backend cuda --compare-cpu --batch 2 --ahead 4 --passes "$passes"
done
F=/tmp/stf/era5-zlib-v2.zarr/x
if [ "${FLOAT:-0}" = 1 ] || [ -n "${RANGES:-}" ]; then
  python3 benchmarks/python/make_era5_stores.py /tmp/stf --steps 256 --channels 4 --lat 256 --lon 512 \
    --layouts zlib-v2 >/tmp/mk4.txt 2>&1 || tail -5 /tmp/mk4.txt
fi
if [ "${FLOAT:-0}" = 1 ]; then
  echo "=== $F"
  bench "calls of 64 steps" "$F" --backend cuda --compare-cpu --batch 64 --passes "$passes"
  bench "the whole array in one call" "$F" --backend cuda --compare-cpu --batch 256 --passes "$passes"
  bench "32-step windows, 4 queued" "$F" --backend cuda --compare-cpu --batch 32 --ahead 4 --passes "$passes"
fi
for r in ${RANGES:-}; do
  for s in ${RANGE_STORES:-2 f}; do
    case $s in
      f) A=$F; hows=("--batch 64" "--batch 256" "--batch 32 --ahead 4") ;;
      *) A=${path[$s]}; hows=("" "--batch 24" "--batch 2 --ahead 4") ;;
    esac
    for how in "${hows[@]}"; do
      # shellcheck disable=SC2086 # $how is options
      bench "$A, every batch on the device, ranges of at most $r, ${how:-calls of 4}" "$A" \
        --backend cuda $how --passes "$passes" --set zarrdirect.serialRunsPerCore=0 --set zarrdirect.cuda.inflateSplitBytes=$r
    done
  done
done
if [ "${FORCED:-0}" = 1 ]; then
  A=/tmp/st8/netcdf-int16.zarr/x
  for rule in 0 4096; do
    for how in "" "--batch 24" "--batch 2 --ahead 4"; do
      # shellcheck disable=SC2086
      bench "8 MB store, serialRunsPerCore=$rule ${how:-calls of 4}" "$A" --backend cuda $how --passes "$passes" \
        --compare-cpu --set zarrdirect.serialRunsPerCore=$rule
    done
  done
fi
if [ "${OPENCL:-0}" = 1 ]; then
  for q in 1 4; do
    bench "opencl, $q queues, zlib store, 2-step windows, 4 queued" /tmp/stz/era5-zlib-v2.zarr/x --backend opencl \
      --batch 2 --ahead 4 --passes "$passes" --set zarrdirect.opencl.queues=$q
    bench "opencl, $q queues, 8 MB int16 store, 2-step windows, 4 queued" /tmp/st8/netcdf-int16.zarr/x \
      --backend opencl --batch 2 --ahead 4 --passes "$passes" --set zarrdirect.opencl.queues=$q
  done
  bench "cuda, zlib store, 2-step windows, 4 queued" /tmp/stz/era5-zlib-v2.zarr/x --backend cuda --batch 2 --ahead 4 \
    --passes "$passes"
  bench "cuda, 8 MB int16 store, 2-step windows, 4 queued" /tmp/st8/netcdf-int16.zarr/x --backend cuda --batch 2 \
    --ahead 4 --passes "$passes"
fi
