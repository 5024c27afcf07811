#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the prebuilt CLI distribution: dist/zarr-direct-<version>-linux-x86_64.tar.gz, which runs
# without a JDK on the user's machine:
#   zarr-direct-<version>/bin/zarr-direct   the command (runs runtime/bin/java with the JVM flags)
#   zarr-direct-<version>/runtime/          a jlink image of the Java modules the CLI needs
#   zarr-direct-<version>/lib/*.jar         the CLI and its runtime dependencies
#   zarr-direct-<version>/LICENSE, NOTICE, README.md
#
#   scripts/make-dist.sh [extra Maven arguments]     e.g. -o, -Dmaven.repo.local=/path
#
# The jars are built with `package -pl cli -am`, tests skipped, nothing installed into ~/.m2.
# Build on a machine with nvcc (/usr/local/cuda/bin/nvcc) so that the kernels jar carries the CUDA
# fatbin: the script refuses to make a distribution without it unless ZD_DIST_ALLOW_NO_FATBIN=1.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
# shellcheck source=scripts/find-java.sh
. scripts/find-java.sh
zd_find_java || exit 2
export JAVA_HOME="$ZD_JAVA_HOME"
[[ -x "$JAVA_HOME/bin/jlink" && -x "$JAVA_HOME/bin/jdeps" ]] || { echo "make-dist: $JAVA_HOME has no jlink/jdeps" >&2; exit 2; }
if command -v mvn >/dev/null 2>&1; then mvn=mvn
elif [[ -x ./mvnw ]]; then mvn=./mvnw
else echo "make-dist: needs Maven (mvn on PATH, or ./mvnw)" >&2; exit 2; fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x86_64 ;;
  Linux-aarch64) platform=linux-aarch64 ;;
  *) echo "make-dist: unsupported platform $(uname -s)-$(uname -m)" >&2; exit 2 ;;
esac

stage="$(mktemp -d "${TMPDIR:-/tmp}/zarr-direct-dist.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
lib="$stage/lib"
mkdir -p "$lib"
echo "make-dist: building the jars ($mvn package -pl cli -am, tests skipped)..." >&2
# copy-dependencies runs in every module of the reactor: the union is cli's runtime classpath, the
# modules of this build resolved to the jars just packaged.
if ! "$mvn" -B -ntp -Dmaven.test.skip=true -pl cli -am "$@" package dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$lib" >"$stage/mvn.log" 2>&1; then
  echo "make-dist: the Maven build failed; its output:" >&2
  tail -n 60 "$stage/mvn.log" >&2
  exit 1
fi
cli_jar="$(ls cli/target/zarr-direct-cli-*.jar | grep -v -e '-sources' -e '-javadoc' | head -n1)"
cp "$cli_jar" "$lib/"
version="$(basename "$cli_jar" .jar)"; version="${version#zarr-direct-cli-}"
kernels_jar="$(ls "$lib"/zarr-direct-kernels-*.jar | head -n1)"
if ! unzip -l "$kernels_jar" | grep -q 'zd_kernels.fatbin'; then
  if [[ "${ZD_DIST_ALLOW_NO_FATBIN:-0}" != 1 ]]; then
    echo "make-dist: $kernels_jar has no CUDA fatbin (no nvcc, or -Dzd.nvcc.skip=true); build where nvcc is installed, or set ZD_DIST_ALLOW_NO_FATBIN=1" >&2
    exit 1
  fi
  echo "make-dist: WARNING: no CUDA fatbin in this distribution (ZD_DIST_ALLOW_NO_FATBIN=1)" >&2
fi

name="zarr-direct-$version"
root="$stage/$name"
mkdir -p "$root/bin"
mv "$lib" "$root/lib"
# The Java modules: what jdeps finds in the jars, plus what is reached by reflection or service
# loading only (jdk.unsupported: zstd-jni and LWJGL; jdk.zipfs; jdk.management for the loader;
# java.security.jgss and jdk.net: the Apache HTTP client of store-cloud, which jdeps misses in an
# automatic module).
# The jars carry module descriptors that require automatic modules (lz4-java): jdeps resolves them
# as a module path, not as loose jars.
mods="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --multi-release 25 --print-module-deps \
  --module-path "$root/lib" --add-modules ALL-MODULE-PATH)"
mods="$(echo "$mods,java.logging,jdk.unsupported,java.management,java.naming,java.xml,jdk.management,java.net.http,jdk.zipfs,java.security.jgss,jdk.net" | tr ',' '\n' | sort -u | paste -sd,)"
echo "make-dist: jlink runtime with $mods" >&2
"$JAVA_HOME/bin/jlink" --add-modules "$mods" --strip-debug --no-man-pages --no-header-files \
  --compress=zip-6 --output "$root/runtime"
cp LICENSE NOTICE README.md "$root/"

cat > "$root/bin/zarr-direct" <<'SH'
#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# zarr-direct, prebuilt: runs the CLI on the bundled Java runtime (no JDK needed).
# Extra JVM flags: ZARRDIRECT_JAVA_OPTS.
set -euo pipefail
home="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
# Signal chaining for OpenCL drivers built on LLVM (see the launcher in the source tree).
if [[ -f "$home/runtime/lib/libjsig.so" ]]; then
  export LD_PRELOAD="$home/runtime/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}"
fi
# shellcheck disable=SC2086
exec "$home/runtime/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -Dorg.lwjgl.opencl.libname=libOpenCL.so.1 \
  ${ZARRDIRECT_JAVA_OPTS:-} -cp "$home/lib/*" dev.zarrdirect.cli.ZarrDirectCli "$@"
SH
chmod +x "$root/bin/zarr-direct"
"$root/bin/zarr-direct" version >/dev/null || { echo "make-dist: the staged bin/zarr-direct does not run" >&2; exit 1; }

mkdir -p "$repo/dist"
out="$repo/dist/$name-$platform.tar.gz"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01 00:00:00Z' -czf "$out" "$name"
echo "make-dist: $out ($(du -h "$out" | cut -f1))" >&2
