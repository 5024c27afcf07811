#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (project packed into .device/ by tools/device-pack; run with carry [".device"]): the
# object-store read benchmark of issue #26, from the repository root:
#   bash tools/gpu/s3-bench.sh
# 1. writes ERA5-like stores [STEPS, 16, 721, 1440] float32 with TensorStore into $DIR
#    (benchmarks/python/make_era5_stores.py: zarr v3 zstd 3, and v3 sharded), then reads every file
#    once so that the server reads from the page cache;
# 2. serves $DIR as the bucket "bench" from a local S3 endpoint on 127.0.0.1: MiniS3Server
#    (benchmarks, JDK only: s3proxy and its 22 MB of jars need not be carried);
# 3. reads each store whole, in slabs of 8 time steps, through s3:// with zarr-direct (host, and
#    device when BACKENDS has cuda) and with TensorStore's s3 driver (endpoint override, anonymous),
#    with the same requests in flight (zarr-direct: as many worker threads; TensorStore: as many
#    s3_request_concurrency and data_copy_concurrency), and prints decoded GB/s side by side.
# Knobs (environment): STEPS=32 DIR=/tmp/zds3 LAYOUTS=zstd,sharded IN_FLIGHT=16,64 ROUNDS=3
# BACKENDS=cpu,cuda STORE_ARGS (more make_era5_stores.py options, e.g. "--lat 181 --lon 360")
# STREAM_CHECK=on: the host reads run once per value of on,off, with the setting
# zarrdirect.cpu.zstdStreamCheck true or false (through its environment variable), for the cost of the
# Huffman stream check after libzstd; device reads and TensorStore run once (the GPU kernels always check).
# Writes $OUT/s3-bench.jsonl (one line per run), $OUT/s3-bench.md (the table), $OUT/s3-server.log.
#
# The pack must hold the AWS SDK (11.7 MB), which tools/device-pack leaves out unless asked, and the
# carry limit is 64 MiB with the working tree, so pack for it and trim it (tools/gpu/slim-pack.sh):
#   DEVICE_PACK_S3=1 tools/device-pack && bash tools/gpu/s3-bench.sh --prune-pack
set -u
root=$(pwd)
[ -f "$root/benchmarks/python/s3_ts_read.py" ] || { echo "run from the repository root" >&2; exit 2; }

if [ "${1:-}" = "--prune-pack" ]; then
  # what the mains need, the AWS SDK and store-cloud included (they are on the benchmarks' class path)
  exec tools/gpu/slim-pack.sh
fi

OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-32}
DIR=${DIR:-/tmp/zds3}
LAYOUTS=${LAYOUTS:-zstd,sharded}
IN_FLIGHT=${IN_FLIGHT:-16,64}
ROUNDS=${ROUNDS:-3}
BACKENDS=${BACKENDS:-cpu,cuda}
STREAM_CHECK=${STREAM_CHECK:-on}
for check in ${STREAM_CHECK//,/ }; do
  case $check in
    on|off) ;;
    *) echo "s3-bench: STREAM_CHECK takes on, off or on,off, not \"$STREAM_CHECK\"" >&2; exit 2 ;;
  esac
done
export DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} -XX:ErrorFile=$OUT/hs_err_%p.log"
if [ -f .device/run ]; then run=(bash .device/run main)
else run=(java --enable-native-access=ALL-UNNAMED -cp "${ZD_CLASSPATH:?set ZD_CLASSPATH or pack .device}")
fi

echo "s3-bench: writing stores into $DIR ($STEPS steps, $LAYOUTS)" | tee "$OUT/s3-bench.log"
# shellcheck disable=SC2086
python3 benchmarks/python/make_era5_stores.py "$DIR" --steps "$STEPS" --layouts "$LAYOUTS" ${STORE_ARGS:-} \
  >>"$OUT/s3-bench.log" 2>&1 || { tail -20 "$OUT/s3-bench.log"; exit 1; }
find "$DIR" -type f -exec cat {} + >/dev/null

"${run[@]}" dev.zarrdirect.benchmarks.s3.MiniS3Server "$DIR" bench 0 256 >"$OUT/s3-server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
ep=""
for _ in $(seq 1 100); do
  ep=$(sed -n 's/^endpoint //p' "$OUT/s3-server.log")
  [ -n "$ep" ] && break
  sleep 0.2
done
[ -n "$ep" ] || { echo "s3-bench: the S3 server did not start:"; cat "$OUT/s3-server.log"; exit 1; }
echo "s3-bench: serving $DIR as s3://bench at $ep" | tee -a "$OUT/s3-bench.log"

: >"$OUT/s3-bench.jsonl"
for layout in ${LAYOUTS//,/ }; do
  for n in ${IN_FLIGHT//,/ }; do
    for b in ${BACKENDS//,/ }; do
      checks=default
      [ "$b" = cpu ] && checks=${STREAM_CHECK//,/ }
      for check in $checks; do
        setting=()
        case $check in
          on) setting=(ZARRDIRECT_CPU_ZSTD_STREAM_CHECK=true) ;;
          off) setting=(ZARRDIRECT_CPU_ZSTD_STREAM_CHECK=false) ;;
        esac
        env ${setting[@]+"${setting[@]}"} "${run[@]}" dev.zarrdirect.benchmarks.s3.S3ReadBench "$ep" \
          "s3://bench/era5-$layout.zarr" x "$n" "$ROUNDS" "$b" 2>>"$OUT/s3-bench.log" | grep '^{' \
          | tee -a "$OUT/s3-bench.jsonl"
      done
    done
    python3 benchmarks/python/s3_ts_read.py "$ep" bench "era5-$layout.zarr" x "$n" --rounds "$ROUNDS" \
      2>>"$OUT/s3-bench.log" | grep '^{' | tee -a "$OUT/s3-bench.jsonl"
  done
done

python3 - "$OUT/s3-bench.jsonl" <<'PY' | tee "$OUT/s3-bench.md"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def check(r):  # zarrdirect.cpu.zstdStreamCheck as the CPU backend resolved it; "-" where none applies
    v = r.get('zstd_stream_check')
    return '-' if v is None else 'on' if v else 'off'
print("| store | in flight | reader | stream check | median GB/s | cores busy | rounds GB/s |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['location'].split('/')[-1]} | {r['in_flight']} | {r['reader']} | {check(r)} | {r['median_gbps']:.3f} | {r.get('median_cores_busy', '-')} | {r['gbps']} |")
ts = {(r['location'], r['in_flight']): r['median_gbps'] for r in rows if r['reader'].startswith('tensorstore')}
print()
for r in rows:
    k = (r['location'], r['in_flight'])
    if not r['reader'].startswith('tensorstore') and k in ts and ts[k] > 0:
        label = r['reader'] + ('' if check(r) == '-' else f" (stream check {check(r)})")
        print(f"{r['location'].split('/')[-1]} {r['in_flight']} in flight: {label} / tensorstore = {r['median_gbps'] / ts[k]:.2f}x")
PY
