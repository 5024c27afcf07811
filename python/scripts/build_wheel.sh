#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds a zarr_direct wheel that bundles the project's jars, so that a user needs only torch and a
# Java 25 runtime: `pip install zarr_direct-*.whl`, then `from zarr_direct.torch import ZarrLoader`.
#
#   python/scripts/build_wheel.sh [OUT_DIR]        (default: python/dist)
#
# 1. Builds the cli module and what it needs with Maven (`package`, tests skipped: nothing is
#    installed into ~/.m2) and copies their runtime classpath into a staging directory.
#    Build on a machine with nvcc (/usr/local/cuda/bin/nvcc) for a wheel whose CUDA backend works:
#    without it the kernels module ships no fatbin and the cuda backend reports itself unavailable.
# 2. Copies the Python package next to them (zarr_direct/_jars/*.jar) and builds the wheel with pip,
#    offline: `pip wheel --no-deps --no-build-isolation` uses the setuptools already installed
#    (Debian: python3-setuptools, python3-wheel) instead of downloading one. The source tree is left
#    as it was: a checkout keeps running its own launcher, never stale bundled jars.
#
# PYTHON (default /usr/bin/python3) is the interpreter whose pip builds the wheel.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python_dir="$(dirname "$here")"
repo="$(dirname "$python_dir")"
out="$(mkdir -p "${1:-$python_dir/dist}" && cd "${1:-$python_dir/dist}" && pwd)"
PYTHON="${PYTHON:-/usr/bin/python3}"

# shellcheck source=../../scripts/find-java.sh
source "$repo/scripts/find-java.sh"
zd_find_java
export JAVA_HOME="$ZD_JAVA_HOME"

stage="$(mktemp -d "${TMPDIR:-/tmp}/zarr-direct-wheel.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
jars="$stage/src/zarr_direct/_jars"
mkdir -p "$stage/src"
cp -r "$python_dir/pyproject.toml" "$python_dir/README.md" "$python_dir/zarr_direct" "$stage/src/"
rm -rf "$jars" "$stage/src/zarr_direct/__pycache__"
mkdir -p "$jars"

echo "build_wheel: building the jars (mvn package -pl cli -am, tests skipped)..." >&2
log="$stage/mvn.log"
# copy-dependencies runs in every module of the reactor; each copies its runtime dependencies, the
# modules of this build resolved to the jars just packaged. Their union is cli's runtime classpath.
if ! (cd "$repo" && mvn -B -q -DskipTests -pl cli -am package dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$jars" >"$log" 2>&1); then
  echo "build_wheel: the Maven build failed; its output:" >&2
  tail -n 60 "$log" >&2
  exit 1
fi
cli_jar="$(ls "$repo"/cli/target/zarr-direct-cli-*.jar | grep -v -e '-sources' -e '-javadoc' | head -n1)"
cp "$cli_jar" "$jars/"
echo "build_wheel: $(ls "$jars" | wc -l) jars, $(du -sh "$jars" | cut -f1)" >&2

# The bundled jars must start the CLI: a quick check with the Java found above.
if ! "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
      -cp "$(ls "$jars"/*.jar | paste -sd:)" dev.zarrdirect.cli.ZarrDirectCli --version >/dev/null; then
  echo "build_wheel: the bundled jars do not start dev.zarrdirect.cli.ZarrDirectCli" >&2
  exit 1
fi

"$PYTHON" -m pip wheel --no-deps --no-build-isolation --no-index -w "$out" "$stage/src" >&2
ls -1 "$out"/zarr_direct-*.whl
