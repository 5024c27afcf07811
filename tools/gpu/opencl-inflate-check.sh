#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (.device packed, carry [".device"]): gzip/zlib streams decoded split on OpenCL
# (zarrdirect.opencl.inflateSplitBytes, the same kernels and plan as CUDA's) against `cuda` and
# cpu+copy in the same call, on TensorStore's zlib level 1 v2 store (a [1, 16, 721, 1440] float32
# chunk is one 66 MB stream; STEPS steps, default 8): calls of 4 steps, the whole array in one call,
# 2-step windows 4 queued. SPLIT is the OpenCL range (default 64k); OPENCL_OFF=1 adds the OpenCL
# reads with split off (the host path the serial-run rule picks).
set -u
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
steps=${STEPS:-8}
split=${SPLIT:-64k}
python3 benchmarks/python/make_era5_stores.py /tmp/st --steps "$steps" --layouts zlib-v2 >/tmp/mk.txt 2>&1 \
  || tail -5 /tmp/mk.txt
A=/tmp/st/era5-zlib-v2.zarr/x
row() { # label, then bench options
  local label=$1
  shift
  echo "--- $label"
  timeout 150 $Z bench "$A" "$@" 2>&1 | grep -E "^(reading|result|speedup)"
}
row "cuda, calls of 4 steps" --backend cuda --compare-cpu --passes 3
row "opencl split ($split), calls of 4 steps" --backend opencl --passes 3 --set zarrdirect.opencl.inflateSplitBytes="$split"
row "cuda, the whole array in one call" --backend cuda --compare-cpu --batch "$steps" --passes 3
row "opencl split, the whole array in one call" --backend opencl --batch "$steps" --passes 3 \
  --set zarrdirect.opencl.inflateSplitBytes="$split"
row "cuda, 2-step windows, 4 queued" --backend cuda --compare-cpu --batch 2 --ahead 4 --passes 3
row "opencl split, 2-step windows, 4 queued" --backend opencl --batch 2 --ahead 4 --passes 3 \
  --set zarrdirect.opencl.inflateSplitBytes="$split"
if [ "${OPENCL_OFF:-0}" = 1 ]; then
  row "opencl, split off (host path), calls of 4 steps" --backend opencl --passes 3
  row "opencl, split off, 2-step windows" --backend opencl --batch 2 --ahead 4 --passes 3
fi
