#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Adds the SPDX license identifier to every tracked source file that lacks it (idempotent).
#   scripts/spdx-headers.sh          add the missing headers
#   scripts/spdx-headers.sh --check  list the files without one; exit 1 if any
# Java: "// SPDX..." as line 1. C, CUDA, OpenCL: "/* SPDX... */" as line 1. Shell and Python
# (launchers, tools/, scripts/, python/, benchmarks/python, examples/): "# SPDX..." after the shebang.
set -euo pipefail
cd "$(dirname "$0")/.."
ID='SPDX-License-Identifier: Apache-2.0'
check=0; [[ "${1:-}" == --check ]] && check=1
missing=0

has_id() { head -n 3 "$1" | grep -q "$ID"; }

add() { # file, comment line
    local f=$1 line=$2 tmp
    if has_id "$f"; then return; fi
    missing=$((missing + 1))
    if ((check)); then echo "$f"; return; fi
    tmp=$(mktemp)
    if head -n 1 "$f" | grep -q '^#!'; then
        { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } > "$tmp"
    else
        { echo "$line"; cat "$f"; } > "$tmp"
    fi
    cat "$tmp" > "$f"   # keeps the file's mode (executable scripts stay executable)
    rm -f "$tmp"
}

while IFS= read -r f; do
    case "$f" in
        *.java) add "$f" "// $ID" ;;
        *.c|*.h|*.cu|*.cl) add "$f" "/* $ID */" ;;
        *.py|*.sh) add "$f" "# $ID" ;;
        *) if head -n 1 "$f" | grep -q '^#!.*\(bash\|sh\|python\)'; then add "$f" "# $ID"; fi ;;
    esac
done < <(git ls-files -- '*.java' '*.c' '*.h' '*.cu' '*.cl' \
            'tools/*' 'scripts/*' 'python/*.py' 'python/*.sh' 'benchmarks/python/*.py' 'examples/*.py' \
            zarr-direct run-tests .ci/run \
         | grep -v '\.pyc$')

if ((check)); then
    ((missing == 0)) || { echo "$missing file(s) without '$ID'" >&2; exit 1; }
else
    echo "added the SPDX header to $missing file(s)"
fi
