#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Any machine with python3 and numpy (the GPU machine's host): how N processes started together scale
# on this machine with no shared data at all, the ceiling for N one-core workers of any program.
#   bash tools/gpu/cpu-ceiling.sh          (COUNTS="1 2 4 8 16")
# compute: a pure-Python integer loop (registers and L1 only);
# memory:  numpy sums over a private 256 MiB array per process (memory bandwidth);
# Each line: wall seconds for N processes doing the same fixed work each, and N x t(1) / t(N)
# ("of linear": 1.0 when N processes take as long as one).
set -u
COUNTS=${COUNTS:-"1 2 4 8 16"}
compute='
x = 0
for i in range(25_000_000):
    x += i * i
'
memory='
import numpy as np
a = np.ones(32 << 20)          # 256 MiB of float64
s = 0.0
for _ in range(40):
    s += float(a.sum())
'
for kind in compute memory; do
  prog=${!kind}
  base=
  for n in $COUNTS; do
    t0=$(date +%s.%N)
    for _ in $(seq "$n"); do python3 -c "$prog" & done
    wait
    t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    base=${base:-$t}
    echo "$kind: $n process(es) $t s, $(awk -v b="$base" -v t="$t" 'BEGIN { printf "%.2f", b / t }') of linear"
  done
done
