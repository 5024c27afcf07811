# SPDX-License-Identifier: Apache-2.0
# Sourced by the launchers: sets ZD_JAVA_HOME to a JDK >= 25, or prints what is missing and exits.
# Order: JAVA_HOME when it is new enough, then the newest JDK under /usr/lib/jvm, then the JDK of the
# java on PATH. Used by ./zarr-direct, ./run-tests and python/scripts/build_wheel.sh.
zd_java_major() {
  "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1
}
zd_find_java() {
  local seen="" c v
  local path_jdk=""
  if command -v java >/dev/null 2>&1; then
    path_jdk=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  fi
  for c in "${JAVA_HOME:-}" $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV) "$path_jdk"; do
    c=${c%/}
    [ -n "$c" ] && [ -x "$c/bin/java" ] || continue
    case " $seen " in *" $c("*) continue ;; esac
    v=$(zd_java_major "$c")
    if [ -x "$c/bin/javac" ]; then seen="$seen ${c}(java ${v:-?})"; else seen="$seen ${c}(java ${v:-?}, no javac)"; fi
    if [ -n "$v" ] && [ "$v" -ge 25 ] && [ -x "$c/bin/javac" ]; then
      ZD_JAVA_HOME=$c
      return 0
    fi
  done
  echo "zarr-direct: needs a Java 25 JDK (java and javac); found:${seen:- nothing (no JAVA_HOME, nothing under /usr/lib/jvm, no java on PATH)}." >&2
  echo "zarr-direct: install Temurin 25 (or any JDK 25+) and/or set JAVA_HOME to it." >&2
  return 1
}
