#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How many symbols a warp could decode a step if each lane decoded at its own bit.

The device decodes a dynamic block on one thread of a warp: each step of its loop decodes one symbol
(or two literals whose codes fit the table's index together) and waits on it before the next. A warp
could instead decode, in one step, the symbol that would start at each of the next W bits (lane i at
bit b + i; W = 32, or 64 with two offsets a lane), then walk from b along the symbols' lengths (a
shuffle a symbol) through every true symbol that starts before b + W, and go on from the first one
past it. This counts, on real chunks, the steps each way: the serial loop's (literal pairs merged as
the device merges them, codes of 10 bits or fewer together) and the warp's for each W; their ratio
bounds what such a decoder could gain on the dynamic blocks' symbols, before the cost of a step
(every lane decodes, literals and matches both, and the walk).

    /usr/bin/python3 benchmarks/python/deflate_lanes.py ZLIB_CHUNK_FILE... [--windows 32,64]

Uses deflate_sync.py's decoder (pure Python: some seconds a MB).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deflate_sync import blocks, step  # noqa: E402

PAIR_BITS = 10  # ZD_INF_LBITS: two literals at one lookup when both codes fit in it


def block_tokens(bits, lit, dist, start: int) -> list[tuple[int, int]]:
    """The block's true symbols in order: (start bit, bits), a pair of literals merged into one."""
    syms = []
    pos = start
    while True:
        kind, nxt = step(bits, pos, lit, dist)
        syms.append((pos, nxt - pos, kind))
        pos = nxt
        if kind == "end":
            break
    merged = []
    i = 0
    while i < len(syms):
        p, n, kind = syms[i]
        if kind == "lit" and i + 1 < len(syms) and syms[i + 1][2] == "lit" and n + syms[i + 1][1] <= PAIR_BITS:
            merged.append((p, n + syms[i + 1][1]))
            i += 2
        else:
            merged.append((p, n))
            i += 1
    return merged


def warp_steps(tokens: list[tuple[int, int]], w: int) -> int:
    """Steps of a warp that decodes at each of w bits a step and walks every symbol starting in them."""
    steps = 0
    i = 0
    while i < len(tokens):
        base = tokens[i][0]
        steps += 1
        while i < len(tokens) and tokens[i][0] < base + w:
            i += 1
    return steps


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--windows", default="32,64", help="bits a warp step decodes at (comma-separated)")
    a = ap.parse_args()
    ws = [int(x) for x in a.windows.split(",")]
    serial = 0
    warp = dict.fromkeys(ws, 0)
    nblocks = 0
    bits_total = 0
    for f in a.files:
        data = Path(f).read_bytes()
        for bits, lit, dist, start, _starts, end in blocks(data):
            toks = block_tokens(bits, lit, dist, start)
            nblocks += 1
            bits_total += end - start
            serial += len(toks)
            for w in ws:
                warp[w] += warp_steps(toks, w)
    if serial == 0:
        print("no dynamic blocks")
        return 1
    print(f"{len(a.files)} streams, {nblocks} dynamic blocks, {bits_total / serial:.1f} bits a serial step "
          f"(a symbol with its extra bits and distance, or a literal pair)")
    print(f"serial loop: {serial} steps")
    for w in ws:
        print(f"warp, {w} bits a step: {warp[w]} steps ({serial / warp[w]:.2f} symbols a step, "
              f"{serial / warp[w]:.2f}x fewer steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
