#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (carry [".device", ".gpucheck"], prepared by tools/gpu/codecs-prep.sh): the device
# codecs of issue #24 in one call: the device conformance, numcodecs interop and CUDA codec tests;
# the deflate and delta kernel checks and benchmarks; compute-sanitizer over the blosc kernel check; and a
# TensorStore-written blosc store read by cuda, cpu+copy and TensorStore+copy.
# ONLY=tests,inflate,delta,memcheck,stores,kernel runs those sections alone (default: all); the
# stores section needs no .gpucheck. LAYOUT=blosc-zlib-v2 reads that store instead of blosc-v2
# (benchmarks/python/bench_common.py).
set -u
cd "$(dirname "$0")/../.."
LAYOUT=${LAYOUT:-blosc-v2}
want() { [[ -z ${ONLY:-} || ,$ONLY, == *,$1,* ]]; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if want tests; then
echo "=== tests"
ZD_NUMCODECS_CORPUS=$PWD/.gpucheck/corpus ZD_REQUIRE_DEVICE=cuda timeout 240 bash .device/run test \
  --select-class dev.zarrdirect.conformance.device.DeviceReadConformanceTest \
  --select-class dev.zarrdirect.conformance.interop.ZarrPythonNumcodecsInteropTest \
  --select-class dev.zarrdirect.conformance.cuda.CudaCodecsMatchCpuTest 2>&1 | grep -E "tests (successful|failed|found)|FAIL|✘|Exception" | head -30
fi
if want inflate; then
echo "=== inflate"
python3 .gpucheck/zd_inflate_gen.py /tmp/zdinf --distinct 2 --min-mib 1 --max-mib 1 >/tmp/gen.txt 2>&1; grep "CPU zlib" /tmp/gen.txt | head -4
timeout 120 ./.gpucheck/zd_inflate_check --manifest /tmp/zdinf/manifest.txt --counts 256,1024 --blocks 64 --reps 3 2>&1 | tail -25
fi
if want delta; then
echo "=== delta"
timeout 120 ./.gpucheck/zd_delta_check --chunk-kib 1024 --gib 0.25 --reps 5 2>&1 | tail -14
fi
if want memcheck; then
echo "=== memcheck"
timeout 90 compute-sanitizer --tool memcheck --print-limit 5 ./.gpucheck/zd_blosc_check --corpus kernels/src/test/resources/blosc/corpus.bin --gib 0.02 --reps 1 2>&1 | tail -4
fi
if want stores; then
echo "=== stores"
python3 benchmarks/python/make_era5_stores.py /tmp/st --steps 24 --layouts $LAYOUT >/tmp/mk.txt 2>&1 || tail -5 /tmp/mk.txt
Z="bash .device/run main dev.zarrdirect.cli.ZarrDirectCli"
timeout 150 $Z bench /tmp/st/era5-$LAYOUT.zarr/x --backend cuda --compare-cpu --limits --passes 5 2>&1 | tail -22
echo "--- the whole array in one call"
timeout 120 $Z bench /tmp/st/era5-$LAYOUT.zarr/x --backend cuda --batch 24 --passes 5 2>&1 | grep -E "^(reading|result)"
echo "--- 2-step windows, 4 queued"
timeout 120 $Z bench /tmp/st/era5-$LAYOUT.zarr/x --backend cuda --compare-cpu --batch 2 --ahead 4 --passes 3 2>&1 | grep -E "^(reading|result|speedup)"
echo "--- opencl on the same GPU"
timeout 120 $Z bench /tmp/st/era5-$LAYOUT.zarr/x --backend opencl --passes 3 2>&1 | grep -E "^(backend|result)"
fi
if want kernel; then
echo "=== blosc kernel"
timeout 120 ./.gpucheck/zd_blosc_check --corpus kernels/src/test/resources/blosc/corpus.bin --gib 1 --reps 5 2>&1 | grep -E "bench|GB/s|OK|bad" | tail -16
fi
if want stores; then
python3 benchmarks/python/ts_read_copy.py /tmp/st/era5-$LAYOUT.zarr/x "$LAYOUT" --reps 4
fi
