#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# 2-GPU machine (nvidia-h100-x2; project packed into .device/, carry [".device"]): ZarrLoader under
# torchrun, one JVM loader per rank on its own GPU. Writes one ERA5-like store with TensorStore
# (zstd 3, [STEPS, 16, 721, 1440]), then runs benchmarks/python/ddp_loader.py with 1 and with 2
# processes: the checks (equal batch counts, disjoint rank shards covering each epoch) and the
# aggregate delivered GB/s of each. STEPS=64 EPOCHS=3 DIR=/tmp/zdddp.
set -euo pipefail
root=$(pwd)
STEPS=${STEPS:-64}; EPOCHS=${EPOCHS:-3}; DIR=${DIR:-/tmp/zdddp}
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export ZARR_DIRECT_SERVER_COMMAND="$root/tools/gpu/zd-home/zarr-direct"
bash .device/run java -version 2>&1 | head -1
nvidia-smi --query-gpu=index,name --format=csv,noheader
python3 benchmarks/python/make_era5_stores.py "$DIR" --steps "$STEPS" --layouts zstd >/dev/null
store=$DIR/era5-zstd.zarr; stats=$DIR/era5-zstd.stats.json
find "$DIR" -type f -print0 | xargs -0 -P 8 -n 64 cat > /dev/null   # page cache, as loader-bench.sh
for n in 1 2; do
  echo "== torchrun --nproc_per_node $n"
  torchrun --standalone --nproc_per_node "$n" benchmarks/python/ddp_loader.py "$store" --stats "$stats" \
    --epochs "$EPOCHS" 2>&1 | grep -v "^W.*OMP_NUM_THREADS\|^\*\*\*\*\|Setting OMP_NUM_THREADS" | tail -5
done
ls /dev/shm | grep -c '^zd-' | sed 's/^/zarr-direct files left in \/dev\/shm: /'
