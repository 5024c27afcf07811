#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks the installed artifacts the way a modular application uses them: builds the separate
# project examples/modular-consumer (its own module-info, the BOM, zarr-direct-core and the CPU
# backend from ~/.m2) and runs it on the module path with only the native-access flag the README
# names. Fails on a compile warning, a failed check, or anything printed on stderr.
#   scripts/check-modular-consumer.sh [extra Maven arguments]      (after `mvn install`)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
# shellcheck source=scripts/find-java.sh
. scripts/find-java.sh
zd_find_java || exit 2
export JAVA_HOME="$ZD_JAVA_HOME"
if command -v mvn >/dev/null 2>&1; then mvn=mvn; else mvn="$repo/mvnw"; fi
version=$(sed -n 's|^    <revision>\(.*\)</revision>$|\1|p' pom.xml | head -1)
proj=examples/modular-consumer
"$mvn" -q -B -ntp -Dstyle.color=never "$@" -f "$proj/pom.xml" -Dzd.version="$version" clean package dependency:build-classpath \
  -Dmdep.outputFile=target/module-path.txt -Dmdep.includeScope=runtime
# The modules that call native code: the README's "Use from Maven/Gradle" names the same list.
native=dev.zarrdirect.api,dev.zarrdirect.cpu,com.github.luben.zstd_jni,org.lz4.java
err=$(mktemp)
trap 'rm -f "$err"' EXIT
out=$("$JAVA_HOME/bin/java" --enable-native-access="$native" \
  --module-path "$proj/target/classes:$(cat "$proj/target/module-path.txt")" \
  -m dev.zarrdirect.example/dev.zarrdirect.example.Main 2>"$err") || { cat "$err" >&2; echo "check-modular-consumer: FAILED" >&2; exit 1; }
if [ -s "$err" ]; then
  echo "check-modular-consumer: the run printed on stderr:" >&2; cat "$err" >&2; exit 1
fi
echo "$out"
