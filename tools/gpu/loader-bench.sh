#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# GPU machine (project packed into .device/ by tools/device-pack; run with carry [".device"]): the
# training-loader benchmark of issue #22 in one call, from the repository root:
#   bash tools/gpu/loader-bench.sh [loader_bench.py options]
# 1. writes three ERA5-like stores [STEPS, 16, 721, 1440] float32 with TensorStore into $DIR (local
#    disk; kept if already there with the same parameters): zarr v3 zstd 3, v3 sharded (one channel
#    per inner chunk), v2 blosc lz4 (benchmarks/python/make_era5_stores.py), and their stats files;
# 2. reads every store file once, so that all loaders read from the page cache (caches are not
#    dropped unless DROP_CACHES=1, which drops them before each configuration where root may);
# 3. runs benchmarks/python/loader_bench.py on them: torch DataLoader + TensorStore (8 and 16 spawn
#    workers), ZarrLoader cuda and cpu, and `zarr-direct bench` on the same stores.
# Knobs (environment): STEPS=64 DIR=/tmp/zdloader SECONDS_PER=5 BATCH_SIZES=4 WORKERS=16,8
# BUDGET=480 (seconds for the whole script: configurations that would start later are skipped);
# STORE_ARGS: more make_era5_stores.py options (e.g. "--lat 181 --lon 360" for a quick try).
# Writes $OUT/loader-bench.json (every number), .md (the tables), .log, stores.json, env.txt.
# The call carries .device (64 MiB with the working tree): tests are not needed here, so leave them
# out of the pack first: rm -rf .device/tools .device/classes/*-tests .device/lib/{archunit,jqwik,jmh,jopt}*
# Expected run time with the defaults: about 6 minutes (writing the stores about half a minute).
set -u
t_script=$(date +%s)
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
root=$(pwd)
[ -f "$root/benchmarks/python/loader_bench.py" ] || { echo "run from the repository root" >&2; exit 2; }
STEPS=${STEPS:-64}
DIR=${DIR:-/tmp/zdloader}
SECONDS_PER=${SECONDS_PER:-5}
BATCH_SIZES=${BATCH_SIZES:-4}
WORKERS=${WORKERS:-16,8}
BUDGET=${BUDGET:-480}
export DEVICE_JAVA_OPTS="${DEVICE_JAVA_OPTS:-} -XX:ErrorFile=$OUT/hs_err_%p.log"

# The Python package from this checkout; its JVM through the packed .device/ (no Maven, no system
# Java here): tools/gpu/zd-home/zarr-direct runs the CLI with .device/run's java. The package starts
# its server with ZARR_DIRECT_SERVER_COMMAND if set, else $ZARR_DIRECT_HOME/zarr-direct: both name it.
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
export ZARR_DIRECT_HOME="$root/tools/gpu/zd-home"
export ZARR_DIRECT_SERVER_COMMAND="$root/tools/gpu/zd-home/zarr-direct"
have_jvm=no
if [ -f .device/run ]; then
  t0=$(date +%s.%N)
  bash .device/run java -version > "$OUT/java.txt" 2>&1 && have_jvm=yes   # unpacks the runtime into /tmp/jre once
  t1=$(date +%s.%N)
  export ZARR_DIRECT_JAVA=/tmp/jre/bin/java
  export JAVA_HOME=/tmp/jre
fi
export ZD_GIT_COMMIT=${ZD_GIT_COMMIT:-$(cat .device/commit 2>/dev/null || echo "unknown (packed before tools/device-pack wrote .device/commit)")}

{
  echo "date: $(date -u +%FT%TZ)  commit: $ZD_GIT_COMMIT"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  echo "cpus: $(nproc)  $(grep -m1 'model name' /proc/cpuinfo)"
  free -g | sed -n 1,2p
  df -hT "$(dirname "$DIR")" /dev/shm | sed 's/^/df: /'
  echo "python3: $(command -v python3) $(python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)' 2>&1)"
  echo "tensorstore: $(python3 -c 'from importlib.metadata import version; print(version("tensorstore"))' 2>&1)"
  echo "jvm: $have_jvm $(head -1 "$OUT/java.txt" 2>/dev/null) (first start, unpacking: $(awk "BEGIN {printf \"%.1f\", ${t1:-0} - ${t0:-0}}") s)"
  echo "zarr_direct: $(python3 -c 'import zarr_direct.torch as t; print(t.__file__)' 2>&1 | tail -1)"
  echo "ZARR_DIRECT_SERVER_COMMAND=$ZARR_DIRECT_SERVER_COMMAND ZARR_DIRECT_HOME=$ZARR_DIRECT_HOME"
  echo "ZARR_DIRECT_JAVA=${ZARR_DIRECT_JAVA:-} PYTHONPATH=$PYTHONPATH"
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

echo "== stores ($DIR, T=$STEPS)"
# shellcheck disable=SC2086
python3 benchmarks/python/make_era5_stores.py "$DIR" --steps "$STEPS" ${STORE_ARGS:-} --json "$OUT/stores.json" \
  || { echo "writing the stores failed" >&2; exit 1; }

echo "== page cache"
cached() { awk '/^Cached:/ {printf "%.1f GB", $2 / 1e6}' /proc/meminfo; }
before=$(cached)
find "$DIR" -type f -print0 | xargs -0 -P 8 -n 64 cat > /dev/null
if [ -w /proc/sys/vm/drop_caches ]; then writable="root could drop them"; else writable="not writable here"; fi
drop=(); cache_note="not dropped ($writable): every store file read once before timing, all loaders read from the page cache"
if [ "${DROP_CACHES:-0}" = 1 ]; then drop=(--drop-caches); cache_note="dropped before each configuration (DROP_CACHES=1; $writable)"; fi
echo "page cache: $cache_note; Cached $before -> $(cached)"

elapsed=$(( $(date +%s) - t_script ))
deadline=$(( BUDGET - elapsed )); [ "$deadline" -lt 60 ] && deadline=60
bench_cmd=""
[ "$have_jvm" = yes ] && bench_cmd="bash $root/.device/run main dev.zarrdirect.cli.ZarrDirectCli"
echo "== loaders (configurations starting after ${deadline}s are skipped)"
python3 benchmarks/python/loader_bench.py --stores-dir "$DIR" --seconds "$SECONDS_PER" --batch-sizes "$BATCH_SIZES" \
  --workers "$WORKERS" --bench-cmd "$bench_cmd" --deadline "$deadline" "${drop[@]}" \
  --json "$OUT/loader-bench.json" --page-cache-note "$cache_note" \
  --command "STEPS=$STEPS DIR=$DIR SECONDS_PER=$SECONDS_PER BATCH_SIZES=$BATCH_SIZES WORKERS=$WORKERS BUDGET=$BUDGET DROP_CACHES=${DROP_CACHES:-0} bash tools/gpu/loader-bench.sh $*" \
  "$@" 2>&1 | tee "$OUT/loader-bench.log"
rc=${PIPESTATUS[0]}
python3 - "$OUT/loader-bench.json" "$OUT/loader-bench.md" <<'PY' 2>/dev/null || true
import json, sys
d = json.load(open(sys.argv[1]))
open(sys.argv[2], "w").write(d.get("markdown", "(no report: the run did not finish)") + "\n")
PY
ls "$OUT"/hs_err_*.log 2>/dev/null | sed 's/^/JVM crash report: /'
echo "page cache: $cache_note"
echo "total $(( $(date +%s) - t_script )) s, loader_bench exit $rc; files in \$OUT: $(cd "$OUT" && ls | tr '\n' ' ')"
exit "$rc"
