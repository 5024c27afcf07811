#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Times `stats` over an ERA5-like store on a Spark standalone cluster of 1, 2, 4 ... one-core
# executors, against the single-machine CLI (all cores, and one thread: the per-core baseline), and
# checks that every Spark result equals the CLI's within 1e-9 (relative).
#
#   tools/spark-bench.sh [WORK_DIR]            (default WORK_DIR: /tmp/zd-spark-bench)
#
# Environment (all optional):
#   SHAPE=730,8,181,360      [time, channel, lat, lon] of the generated store (float32, zstd 3)
#   EXECUTORS="1 2"          executor counts to time; as many one-core workers as the largest are started
#   EXECUTOR_MEMORY=1g       heap of each executor (reads are off-heap)
#   TASK_BYTES=268435456     --task-bytes of the Spark stats
#   REPEAT=2                 runs of each configuration; the fastest is reported (the first warms the page cache)
#   SKIP_BUILD=1             reuse the jars of an earlier run
#   JOB_TIMEOUT=600          seconds a spark-submit may take before the bench fails
#   PREBUILT=DIR             run from a folder made by --pack (no Maven or JDK needed: a machine
#                            without network, e.g. the GPU machine; see below)
# The job waits for all its executors (minRegisteredResourcesRatio=1), so "job s" leaves out their
# JVM start, which "submit s" (spark-submit to exit) includes.
# Needs JDK 25+ (JAVA_HOME or scripts/find-java.sh), Maven, and nothing else: Spark's jars come from
# Maven Central as the spark module's provided dependencies. Builds with `package`, never `install`.
#
#   tools/spark-bench.sh --pack DIR
# builds as above and writes into DIR everything a run needs, as plain files: spark-home/jars (less
# what a standalone stats job never loads: RocksDB's 70 MB, other platforms' netty and zstd natives), app/
# (the application jar and zarr-direct's jars), cli/ (the CLI's class path) and jre.txz (a Java
# runtime of the modules Spark uses; its executors start with --add-modules=jdk.incubator.vector).
# Then, on the other machine: PREBUILT=DIR tools/spark-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PACK=
if [[ "${1:-}" == --pack ]]; then
    PACK=${2:?"--pack DIR"}
    WORK=$(mktemp -d)
else
    WORK=${1:-/tmp/zd-spark-bench}
fi
SHAPE=${SHAPE:-730,8,181,360}
EXECUTORS=${EXECUTORS:-"1 2"}
EXECUTOR_MEMORY=${EXECUTOR_MEMORY:-1g}
TASK_BYTES=${TASK_BYTES:-268435456}
REPEAT=${REPEAT:-2}
PREBUILT=${PREBUILT:-}
JVM_FLAGS="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
mkdir -p "$WORK"

if [[ -n "$PREBUILT" ]]; then
    PREBUILT=$(cd "$PREBUILT" && pwd)
    [[ -x "$PREBUILT/jre/bin/java" ]] || tar -C "$PREBUILT" -xJf "$PREBUILT/jre.txz"
    JAVA_HOME=$PREBUILT/jre
    export JAVA_HOME PATH=$JAVA_HOME/bin:$PATH
    CLI_CP="$PREBUILT/cli/*"
    APP_JAR=$(ls "$PREBUILT"/app/zarr-direct-spark-*.jar | head -1)
    APP_DEPS=$(ls "$PREBUILT"/app/zarr-direct-*.jar | grep -v "/zarr-direct-spark-" | paste -sd, -)
    SPARK_HOME=$PREBUILT/spark-home
else
    # shellcheck source=../scripts/find-java.sh
    . scripts/find-java.sh
    zd_find_java || exit 2
    JAVA_HOME=$ZD_JAVA_HOME
    export JAVA_HOME PATH=$JAVA_HOME/bin:$PATH
    # ---- build: the CLI and the spark module, their class paths, Spark's jars as a SPARK_HOME ----
    if [[ "${SKIP_BUILD:-}" != 1 ]]; then
        rm -rf "$WORK/spark-home" && mkdir -p "$WORK/spark-home/jars"
        # Reactor builds, so that zarr-direct's own jars come from this build, never from ~/.m2. Only
        # the spark module has provided dependencies (Spark's): they become SPARK_HOME/jars.
        build="mvn -B -ntp -q -pl cli,spark -am -Dmaven.test.skip=true -Dzd.doclint.skip=true -Dzd.nvcc.skip=true package"
        $build dependency:copy-dependencies -DincludeScope=provided -DoutputDirectory="$WORK/spark-home/jars"
        $build dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile=target/bench-classpath.txt
    fi
    # the main jar, not the -sources or -javadoc one a release build leaves beside it
    CLI_CP="$(ls "$ROOT"/cli/target/zarr-direct-cli-*.jar | grep -Ev -- '-(sources|javadoc|tests)\.jar$' | head -1):$(cat cli/target/bench-classpath.txt)"
    APP_JAR=$(ls "$ROOT"/spark/target/zarr-direct-spark-*.jar | grep -Ev -- '-(sources|javadoc|tests)\.jar$' | head -1)
    # Maven mediated the jars Spark shares with zarr-direct (Jackson, zstd-jni, lz4-java) out of the
    # provided scope: they join SPARK_HOME/jars, as a Spark distribution has its own copies; the
    # application ships zarr-direct's jars only.
    APP_DEPS=
    for j in $(tr ':' '\n' < spark/target/bench-classpath.txt); do
        case "$(basename "$j")" in
            zarr-direct-*) APP_DEPS+="$j," ;;
            *) ln -sf "$j" "$WORK/spark-home/jars/$(basename "$j")" ;;
        esac
    done
    APP_DEPS=${APP_DEPS%,}
    SPARK_HOME=$WORK/spark-home
fi

if [[ -n "$PACK" ]]; then
    rm -rf "$PACK" && mkdir -p "$PACK/spark-home/jars" "$PACK/app" "$PACK/cli"
    # -L: the shared jars are links into ~/.m2
    cp -L "$WORK"/spark-home/jars/*.jar "$PACK/spark-home/jars/"
    (cd "$PACK/spark-home/jars" && rm -f rocksdbjni-*.jar netty-tcnative-boringssl-static-*-{osx,windows}-*.jar \
        netty-tcnative-boringssl-static-*-linux-aarch_64.jar netty-transport-native-*-aarch_64.jar \
        netty-transport-native-kqueue-*.jar netty-resolver-dns-native-macos-*.jar)
    cp "$APP_JAR" "$PACK/app/"
    for j in ${APP_DEPS//,/ }; do cp "$j" "$PACK/app/"; done
    for j in ${CLI_CP//:/ }; do cp "$j" "$PACK/cli/"; done
    # zstd-jni carries its library for 17 platforms: keep Linux x86-64's (7 MB less a copy)
    if command -v zip >/dev/null; then
        for j in "$PACK"/spark-home/jars/zstd-jni-*.jar "$PACK"/cli/zstd-jni-*.jar; do
            zip -q -d "$j" 'aix/*' 'darwin/*' 'freebsd/*' 'win/*' 'linux/aarch64/*' 'linux/arm/*' 'linux/i386/*' \
                'linux/loongarch64/*' 'linux/mips64/*' 'linux/ppc64/*' 'linux/ppc64le/*' 'linux/riscv64/*' \
                'linux/s390x/*' 2>/dev/null || true
        done
    fi
    mods=java.se,jdk.incubator.vector,jdk.unsupported,jdk.management,jdk.zipfs,jdk.net,jdk.httpserver,jdk.crypto.cryptoki,jdk.security.auth,jdk.naming.dns
    "$JAVA_HOME/bin/jlink" --add-modules "$mods" --strip-debug --no-man-pages --no-header-files --compress=zip-9 \
        --output "$WORK/jre"
    strip --strip-unneeded "$WORK/jre/lib/server/libjvm.so" 2>/dev/null || true
    tar -C "$WORK" -cJf "$PACK/jre.txz" jre
    rm -rf "$WORK"
    du -sh "$PACK" | awk '{print "spark-bench: packed " $1 " into " $2}'
    exit 0
fi
export SPARK_HOME SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1

cli() { java $JVM_FLAGS -cp "$CLI_CP" dev.zarrdirect.cli.ZarrDirectCli "$@"; }

# ---- the store: bench --generate's array as variable "data" of a group ----
STORE=$WORK/era5-$(echo "$SHAPE" | tr ',' 'x').zarr
if [[ ! -f "$STORE/zarr.json" ]]; then
    mkdir -p "$STORE"
    cli bench --generate era5 --shape "$SHAPE" --passes 1 --backend cpu "$STORE/data" >/dev/null
    printf '{"zarr_format": 3, "node_type": "group", "attributes": {}}\n' > "$STORE/zarr.json"
fi
echo "store: $STORE ($(du -sh "$STORE" | cut -f1) on disk, shape $SHAPE float32)"

best() { # command...: runs it REPEAT times, prints the fastest wall time in seconds
    local b=
    for _ in $(seq "$REPEAT"); do
        local t0 t1
        t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
        b=$(awk -v a="${b:-1e9}" -v t0="$t0" -v t1="$t1" 'BEGIN { d = t1 - t0; print (d < a ? d : a) }')
    done
    echo "$b"
}

CORES=$(nproc)
cli_all=$(best cli stats "$STORE" --variables data --backend cpu -o "$WORK/stats-cli.json")
cli_one=$(ZARRDIRECT_THREADS=1 best cli stats "$STORE" --variables data --backend cpu -o "$WORK/stats-cli-1.json")
echo "cli stats: ${cli_all} s on $CORES core(s); ${cli_one} s on one thread"

# ---- the cluster: a master and as many one-core workers as the largest executor count ----
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do pkill -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
spark_java() { java -Xmx256m -cp "$SPARK_HOME/jars/*" "$@"; }
MAX=$(echo "$EXECUTORS" | tr ' ' '\n' | sort -n | tail -1)
spark_java org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 7177 --webui-port 8180 \
    > "$WORK/master.log" 2>&1 & PIDS+=($!)
for i in $(seq "$MAX"); do
    spark_java org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores 1 --memory "$EXECUTOR_MEMORY" \
        --webui-port $((8180 + i)) --work-dir "$WORK/worker-$i" spark://127.0.0.1:7177 > "$WORK/worker-$i.log" 2>&1 &
    PIDS+=($!)
done
for _ in $(seq 120); do
    [[ $(grep -c "Registering worker" "$WORK/master.log" 2>/dev/null || true) -ge $MAX ]] && break; sleep 1
done
[[ $(grep -c "Registering worker" "$WORK/master.log" || true) -ge $MAX ]] \
    || { echo "the workers did not register within 120 s; see $WORK/*.log" >&2; exit 1; }

submit() { # executors output
    # bounded: executors that cannot start are relaunched by Spark without end
    timeout "${JOB_TIMEOUT:-600}" java -Xmx1g -cp "$SPARK_HOME/jars/*" org.apache.spark.deploy.SparkSubmit --master spark://127.0.0.1:7177 \
        --conf spark.ui.enabled=false --conf spark.executor.cores=1 --conf spark.cores.max="$1" \
        --conf spark.scheduler.minRegisteredResourcesRatio=1.0 \
        --conf spark.executor.memory="$EXECUTOR_MEMORY" --conf spark.executorEnv.ZARRDIRECT_THREADS=1 \
        --conf spark.executor.extraJavaOptions="$JVM_FLAGS" --conf spark.driver.extraJavaOptions="$JVM_FLAGS" \
        --jars "$APP_DEPS" --class dev.zarrdirect.spark.jobs.ZarrDirectSpark "$APP_JAR" \
        stats "$STORE" --variables data --backend cpu --task-bytes "$TASK_BYTES" -o "$2"
}

printf '%-10s %12s %12s %18s\n' executors "job s" "submit s" "cli(1 thread)/job"
for n in $EXECUTORS; do
    job=; wall=
    for _ in $(seq "$REPEAT"); do
        t0=$(date +%s.%N)
        line=$(submit "$n" "$WORK/stats-spark-$n.json" 2>"$WORK/submit-$n.log" | grep ' s on ') \
            || { echo "spark-submit with $n executor(s) failed or timed out; see $WORK/submit-$n.log" >&2; exit 1; }
        t1=$(date +%s.%N)
        s=$(echo "$line" | sed -E 's/.*task\(s\), ([0-9.]+) s on.*/\1/')
        job=$(awk -v a="${job:-1e9}" -v d="$s" 'BEGIN { print (d < a ? d : a) }')
        wall=$(awk -v a="${wall:-1e9}" -v t0="$t0" -v t1="$t1" 'BEGIN { d = t1 - t0; print (d < a ? d : a) }')
    done
    printf '%-10s %12.2f %12.2f %18.2f\n' "$n" "$job" "$wall" "$(awk -v a="$cli_one" -v b="$job" 'BEGIN { print a / b }')"
    python3 - "$WORK/stats-cli.json" "$WORK/stats-spark-$n.json" <<'EOF' || exit 1
import json, sys
a, b = (json.load(open(p))["variables"] for p in sys.argv[1:3])
for name, v in a.items():
    w = b[name]
    assert v["count"] == w["count"] and v["nan_count"] == w["nan_count"], name
    for k in ("mean", "std"):
        for x, y in zip(v[k], w[k]):
            assert abs(x - y) <= 1e-9 * max(abs(x), 1e-300), (name, k, x, y)
EOF
done
echo "every Spark result equals the CLI's within 1e-9 (relative)"
