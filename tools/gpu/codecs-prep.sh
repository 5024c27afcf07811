#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# On the dev machine (nvcc, Debian's python3-zarr): prepares the ignored .gpucheck/ folder that
# tools/gpu/codecs-check.sh runs on the GPU machine: the standalone blosc, deflate and delta kernel checks
# built for sm_90, the deflate stream generator, and the zarr-python numcodecs corpus (the GPU
# machine has no zarr-python). Pack .device first (CONTRIBUTING.md, "The GPU machine"): this also replaces .device's fatbin by
# an sm_90-only one so that .device and .gpucheck fit the 64 MiB a device call carries.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p .gpucheck
"$nvcc" -O3 -I kernels/src/main/c -I kernels/src/test/cuda -gencode arch=compute_90,code=sm_90 \
  -o .gpucheck/zd_blosc_check kernels/src/test/cuda/zd_blosc_check.cu
"$nvcc" -O3 -I kernels/src/main/c -gencode arch=compute_90,code=sm_90 \
  -o .gpucheck/zd_inflate_check kernels/src/test/cuda/zd_inflate_check.cu
"$nvcc" -O3 -I kernels/src/main/c -gencode arch=compute_90,code=sm_90 \
  -o .gpucheck/zd_delta_check kernels/src/test/cuda/zd_delta_check.cu
strip .gpucheck/zd_blosc_check .gpucheck/zd_inflate_check .gpucheck/zd_delta_check
cp kernels/src/test/cuda/zd_inflate_gen.py .gpucheck/
rm -rf .gpucheck/corpus
/usr/bin/python3 conformance-tests/src/test/python/make_numcodecs_corpus.py .gpucheck/corpus
fat=.device/classes/kernels/dev/zarrdirect/kernels/zd_kernels.fatbin
if [ -e "$fat" ]; then
  "$nvcc" -fatbin -O3 -lineinfo -I kernels/src/main/c -gencode arch=compute_90,code=sm_90 -o "$fat" \
    kernels/src/main/c/cuda/zd_kernels.cu
fi
du -sh .device .gpucheck 2>/dev/null
