#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (carry [".gpucheck"], prepared by tools/gpu/codecs-prep.sh): the blosc kernels alone
# on frames c-blosc wrote through TensorStore, one compressor and shuffle at a time. For each
# layout of benchmarks/python/bench_common.py: an ERA5-like store of STEPS time steps
# (make_era5_stores.py; chunks [1, 16, 721, 1440] float32, 66 MB each), its chunk files and their
# decoded bytes (read back by TensorStore) listed for `zd_blosc_check --frames`, which repeats them
# to GIB GiB, decodes them with the entry the CUDA codec picks and checks every byte.
#   [LAYOUTS="blosc-v2 blosc-zstd-v2"] [STEPS=8] [GIB=1] [REPS=3] bash tools/gpu/blosc-kernel-bench.sh
set -u
cd "$(dirname "$0")/../.."
LAYOUTS=${LAYOUTS:-"blosc-v2 blosc-bitshuffle-v2 blosc-noshuffle-v2 blosc-blosclz-v2 blosc-zstd-v2 blosc-zlib-v2"}
STEPS=${STEPS:-8}; GIB=${GIB:-1}; REPS=${REPS:-3}; DIR=${DIR:-/tmp/blosc-kernel-bench}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for lay in $LAYOUTS; do
  echo "=== $lay"
  if ! python3 benchmarks/python/make_era5_stores.py "$DIR" --steps "$STEPS" --layouts "$lay" > "$DIR.$lay.log" 2>&1; then
    tail -5 "$DIR.$lay.log"; continue
  fi
  python3 - "$DIR" "$lay" <<'PY' || continue
import os, sys
import numpy as np
import tensorstore as ts
sys.path.insert(0, "benchmarks/python")
import bench_common as bc
root, lay = sys.argv[1], sys.argv[2]
path = bc.store_path(root, lay)
t = ts.open(bc.array_spec(path, lay)).result()
raw = os.path.join(root, "raw-" + lay)
os.makedirs(raw, exist_ok=True)
with open(os.path.join(root, lay + ".manifest"), "w") as m:
    for i in range(t.shape[0]):
        frame = os.path.join(path, bc.VARIABLE, f"{i}.0.0.0")  # dimension_separator "."
        r = os.path.join(raw, f"{i}.bin")
        np.ascontiguousarray(t[i].read().result()).tofile(r)
        m.write(f"{frame} {r}\n")
PY
  timeout 240 ./.gpucheck/zd_blosc_check --frames "$DIR/$lay.manifest" --gib "$GIB" --reps "$REPS" 2>&1 \
    | grep -E "frames:|GB/s|ALL OK|FAIL|differ"
  rm -rf "$DIR/raw-$lay" "$DIR/era5-$lay.zarr"
done
