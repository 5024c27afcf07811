#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Trims .device/ (tools/device-pack's output: 300 MB and more, most of it Spark's jars) to what a
# GPU call needs, under the 64 MiB a call carries with the working tree. From the project root:
#   tools/device-pack [-o ...] && tools/gpu/slim-pack.sh            # mains: CLI, benchmarks, loader
#   tools/device-pack [-o ...] && tools/gpu/slim-pack.sh --tests    # and the device conformance tests
# (DEVICE_PACK_S3=1 tools/device-pack keeps the AWS SDK, which the mains' class path then keeps.)
# Keeps the jars on the runtime class path of the modules the mains live in (and, with --tests, the
# test class path of conformance-tests: jqwik and the JUnit launcher), every module's classes but
# Spark's and the examples', and with --tests the test classes of conformance-tests, testing and
# testkit; drops zstd-jni's libraries for other platforms. Needs Maven with the local repository
# the pack was built from (offline is fine). Prints the size before and after.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -d .device/lib ] || [ ! -d .device/classes ]; then
  echo "slim-pack: no .device/: run tools/device-pack first" >&2
  exit 1
fi
tests=false
for a in "$@"; do
  case $a in
    --tests) tests=true ;;
    *) echo "slim-pack: unknown option $a (only --tests)" >&2; exit 2 ;;
  esac
done
before=$(du -sm .device | cut -f1)
keep=$(mktemp)
trap 'rm -f "$keep" "$keep".*' EXIT
mvn=${MVN:-mvn}
# the modules the mains and the loader run from; their runtime class paths name every jar kept (one
# Maven run a module: with several in one reactor, the output file holds only the last one's)
for m in cli benchmarks loader store-cloud backend-cuda backend-opencl testkit; do
  "$mvn" -q -o -pl "$m" dependency:build-classpath -DincludeScope=runtime -Dmdep.outputFile="$keep.rt-$m" >/dev/null
done
if $tests; then
  "$mvn" -q -o -pl conformance-tests dependency:build-classpath -DincludeScope=test -Dmdep.outputFile="$keep.test" \
    >/dev/null
fi
# each file is one line without its end: a newline after each, or a file's last jar joins the next's first
for f in "$keep".*; do cat "$f"; echo; done | tr ':' '\n' | sed 's|.*/||' | grep '\.jar$' | sort -u >"$keep"
[ -s "$keep" ] || { echo "slim-pack: Maven gave no class path" >&2; exit 1; }
dropped=0
for j in .device/lib/*.jar; do
  if ! grep -qxF "$(basename "$j")" "$keep"; then
    rm -f "$j"
    dropped=$((dropped + 1))
  fi
done
rm -rf .device/classes/spark .device/classes/examples_*
for d in .device/classes/*-tests; do
  [ -d "$d" ] || continue
  case $(basename "$d") in
    conformance-tests-tests|testing-tests|testkit-tests) $tests || rm -rf "$d" ;;
    *) rm -rf "$d" ;;
  esac
done
$tests || rm -rf .device/tools
for z in .device/lib/zstd-jni-*.jar; do
  [ -f "$z" ] || continue
  # only linux/amd64 runs there; zip -d exits 12 when a pattern matches nothing
  zip -q -d "$z" 'darwin/*' 'win/*' 'freebsd/*' 'aix/*' 'linux/aarch64/*' 'linux/arm/*' 'linux/ppc64*' \
    'linux/i386/*' 'linux/mips64/*' 'linux/loongarch64/*' 'linux/riscv64/*' 'linux/s390x/*' >/dev/null 2>&1 || true
done
echo "slim-pack: .device from ${before} MB to $(du -sm .device | cut -f1) MB ($dropped jars dropped$($tests && echo ', tests kept'))"
