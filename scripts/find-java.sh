# SPDX-License-Identifier: Apache-2.0
# Sourced by the launchers: sets ZD_JAVA_HOME to a JDK >= 25, or prints what is missing and exits.
# Order: JAVA_HOME when it is new enough, then the newest JDK under /usr/lib/jvm.
zd_java_major() {
  "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1
}
zd_find_java() {
  local seen="" c v
  for c in "${JAVA_HOME:-}" $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    c=${c%/}
    [ -n "$c" ] && [ -x "$c/bin/java" ] || continue
    v=$(zd_java_major "$c")
    seen="$seen ${c}(java ${v:-?})"
    if [ -n "$v" ] && [ "$v" -ge 25 ] && [ -x "$c/bin/javac" ]; then
      ZD_JAVA_HOME=$c
      return 0
    fi
  done
  echo "zarr-direct: needs a Java 25 JDK (java and javac); found:${seen:- nothing under JAVA_HOME or /usr/lib/jvm}." >&2
  echo "zarr-direct: install Temurin 25 (or any JDK 25+) and/or set JAVA_HOME to it." >&2
  return 1
}
