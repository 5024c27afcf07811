#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The serial deflate decoder (zd_zlib_decode_batch) of two or more kernel sources side by side, kernel
# only, on the chunks of the int16 shuffle + zlib store (make_netcdf_like_store.py): whole 2 MB chunks
# (about 1 MB stored blocks, 1 MB dynamic), and their high-byte halves alone at zlib 1 (all dynamic
# blocks, mostly short matches: the decoder's loop). One chunk alone is one decoder's own rate; 1,320
# chunks (10 groups an SM on 132 SMs) the device full.
#   here:        bash tools/gpu/inflate-kernel-ab.sh build NAME [SRC_DIR]   (into .device/inflate-ab/NAME.gz)
#   GPU machine: bash tools/gpu/inflate-kernel-ab.sh run [ROUNDS]          (carry [".device"]; every NAME
#                built, in turn, ROUNDS times (default 2), then the checks of kernels/src/test/cuda)
# SRC_DIR defaults to kernels (another checkout's, e.g. `git worktree add /tmp/base HEAD~1`, gives
# the baseline). Each binary is kernels/src/test/cuda/zd_inflate_check.cu built against SRC_DIR's
# sources: it checks every status and byte it times, poisons the gaps around each chunk's output, and
# decodes truncated and bit-flipped copies (zd_inflate_gen.py's streams) without writing past them.
set -u
mode=${1:?build or run}; shift
case "$mode" in
build)
  name=${1:?name}; src=${2:-kernels}
  mkdir -p .device/inflate-ab
  /usr/local/cuda/bin/nvcc -O3 -lineinfo -I"$src/src/main/c" -gencode arch=compute_90,code=sm_90 \
    -o ".device/inflate-ab/$name" kernels/src/test/cuda/zd_inflate_check.cu || exit 1
  # small enough to carry beside the pack: the device tool takes at most 64 MiB
  strip ".device/inflate-ab/$name" && gzip -f -9 ".device/inflate-ab/$name" && echo "built .device/inflate-ab/$name.gz"
  ;;
run)
  OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
  rounds=${1:-2}
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  python3 benchmarks/python/make_netcdf_like_store.py /tmp/st --steps 24 > "$OUT/make-store.txt" 2>&1 || exit 1
  python3 - <<'PY' || exit 1
import os, zlib
a = '/tmp/st/netcdf-int16.zarr/x'
d = '/tmp/inflate-ab'
os.makedirs(d, exist_ok=True)
names = sorted(n for n in os.listdir(a) if not n.startswith('.'))[::12][:32]
with open(d + '/manifest.txt', 'w') as m:
    for i, n in enumerate(names):
        z = open(os.path.join(a, n), 'rb').read()
        o = zlib.decompress(z)
        hi = o[len(o) // 2:]  # the shuffled high bytes
        open(f'{d}/{i}.orig', 'wb').write(o)
        open(f'{d}/{i}.hi', 'wb').write(hi)
        open(f'{d}/{i}.hi.z', 'wb').write(zlib.compress(hi, 1))
        m.write(f"1 hi-int16 1 {d}/{i}.hi.z {d}/{i}.hi\n")
    for i, n in enumerate(names):
        m.write(f"1 real-int16 1 {os.path.join(a, n)} {d}/{i}.orig\n")
PY
  mkdir -p /tmp/inflate-ab/bin
  names=()
  for f in .device/inflate-ab/*.gz; do
    n=$(basename "$f" .gz)
    gzip -dc "$f" > "/tmp/inflate-ab/bin/$n" && chmod +x "/tmp/inflate-ab/bin/$n" && names+=("$n")
  done
  for r in $(seq "$rounds"); do
    for n in "${names[@]}"; do
      echo "== $n, round $r"
      "/tmp/inflate-ab/bin/$n" --manifest /tmp/inflate-ab/manifest.txt --counts 1,132,1320 --blocks 64 --reps 3 \
        > "$OUT/ab-$n-$r.txt" 2>&1
      grep -E "GB/s|ALL OK|FAIL" "$OUT/ab-$n-$r.txt"
    done
  done
  python3 kernels/src/test/cuda/zd_inflate_gen.py /tmp/inflate-ab/gen > "$OUT/gen.txt" 2>&1 || exit 1
  for n in "${names[@]}"; do
    echo "== $n, checks"
    "/tmp/inflate-ab/bin/$n" --manifest /tmp/inflate-ab/gen/manifest.txt --counts 256 --blocks 32,64,128 --reps 1 \
      > "$OUT/check-$n.txt" 2>&1
    grep -E "^(check|corrupt)|ALL OK|FAIL" "$OUT/check-$n.txt"
  done
  ;;
*) echo "build or run" >&2; exit 2 ;;
esac
