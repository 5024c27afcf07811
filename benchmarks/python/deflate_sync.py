#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How soon a Huffman decoder started at the wrong bit of a deflate block falls into step.

The device inflates a dynamic block on one item, serially (about 3.5 MB/s); splitting inside a
block needs a decoder that starts at an arbitrary bit with the block's tables to fall into step
with the true symbol boundaries soon (Huffman codes tend to self-synchronise). This measures it on
real chunks: for each dynamic block of each zlib stream given, it decodes the block from its
start (the true boundaries of its literal/length symbols, a length's distance included), then
decodes again from random bits inside the block and counts the bits and symbols until the decoder
stands on a true boundary, from where it decodes the same symbols as the true decode.

    /usr/bin/python3 benchmarks/python/deflate_sync.py CHUNK_FILE... [--starts 200] [--seed 1]

Prints, over all blocks: the blocks' encoded sizes, and percentiles of the bits and symbols to
synchronise (a start whose decoder hits an invalid code or the end-of-block code first, or runs past the
block's end, is counted apart: a real decoder would start again a little further on).
"""
from __future__ import annotations

import argparse
import random
import sys

LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
            131, 163, 195, 227, 258]
LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12,
              13, 13]
CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]


class Bits:
    """The stream's bits, read LSB first as deflate packs them (n <= 24 at a time)."""

    def __init__(self, data: bytes):
        self.data = data + bytes(4)
        self.size = len(data) * 8

    def get(self, pos: int, n: int) -> int:
        i = pos >> 3
        return (int.from_bytes(self.data[i:i + 4], "little") >> (pos & 7)) & ((1 << n) - 1)


def table(lengths: list[int]) -> tuple[dict[tuple[int, int], int], int]:
    """Canonical Huffman code: {(length, bit-reversed code): symbol}, and the longest length."""
    longest = max(lengths) if any(lengths) else 0
    count = [0] * (longest + 1)
    for n in lengths:
        if n:
            count[n] += 1
    code = 0
    first = [0] * (longest + 2)
    for n in range(1, longest + 1):
        code = (code + count[n - 1]) << 1 if n > 1 else 0
        first[n] = code
    out = {}
    nxt = first[:]
    for sym, n in enumerate(lengths):
        if n:
            c = nxt[n]
            nxt[n] += 1
            rev = int(f"{c:0{n}b}"[::-1], 2)
            out[(n, rev)] = sym
    return out, longest


def decode_sym(bits: Bits, pos: int, t: tuple[dict, int]) -> tuple[int, int] | None:
    codes, longest = t
    for n in range(1, longest + 1):
        s = codes.get((n, bits.get(pos, n)))
        if s is not None:
            return s, pos + n
    return None


def step(bits: Bits, pos: int, lit, dist) -> tuple[str, int] | None:
    """One literal/length symbol (with a length's extra bits and distance) from pos: (kind, next)."""
    r = decode_sym(bits, pos, lit)
    if r is None:
        return None
    s, pos = r
    if s < 256:
        return "lit", pos
    if s == 256:
        return "end", pos
    if s > 285:
        return None
    pos += LEN_EXTRA[s - 257]
    r = decode_sym(bits, pos, dist)
    if r is None or r[0] > 29:
        return None
    return "match", r[1] + DIST_EXTRA[r[0]]


def blocks(data: bytes):
    """Each dynamic block of a zlib stream: (tables, first data bit, true symbol starts, end bit)."""
    bits = Bits(data)
    pos = 16  # zlib header
    while True:
        final = bits.get(pos, 1)
        btype = bits.get(pos + 1, 2)
        pos += 3
        if btype == 0:
            pos = (pos + 7) // 8 * 8
            n = bits.get(pos, 16)
            pos += 32 + 8 * n
        elif btype in (1, 2):
            if btype == 1:
                lit = table([8] * 144 + [9] * 112 + [7] * 24 + [8] * 8)
                dist = table([5] * 30)
            else:
                hlit = bits.get(pos, 5) + 257
                hdist = bits.get(pos + 5, 5) + 1
                hclen = bits.get(pos + 10, 4) + 4
                pos += 14
                cl = [0] * 19
                for i in range(hclen):
                    cl[CL_ORDER[i]] = bits.get(pos, 3)
                    pos += 3
                clt = table(cl)
                lens = []
                while len(lens) < hlit + hdist:
                    s, pos = decode_sym(bits, pos, clt)
                    if s < 16:
                        lens.append(s)
                    elif s == 16:
                        lens += [lens[-1]] * (3 + bits.get(pos, 2))
                        pos += 2
                    elif s == 17:
                        lens += [0] * (3 + bits.get(pos, 3))
                        pos += 3
                    else:
                        lens += [0] * (11 + bits.get(pos, 7))
                        pos += 7
                lit = table(lens[:hlit])
                dist = table(lens[hlit:])
            start = pos
            starts = []
            while True:
                starts.append(pos)
                kind, pos = step(bits, pos, lit, dist)
                if kind == "end":
                    break
            if btype == 2:
                yield bits, lit, dist, start, starts, pos
        else:
            raise ValueError("reserved block type")
        if final:
            return


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--starts", type=int, default=200, help="random starts per block")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    sizes, sync_bits, sync_syms = [], [], []
    lost = 0
    for f in a.files:
        data = open(f, "rb").read()
        for bits, lit, dist, start, starts, end in blocks(data):
            sizes.append((end - start) / 8)
            true = set(starts)
            for _ in range(a.starts):
                s = rng.randrange(start, end - 64)
                pos, k = s, 0
                while pos not in true and pos < end:
                    r = step(bits, pos, lit, dist)
                    if r is None or r[0] == "end":
                        break
                    pos, k = r[1], k + 1
                if pos in true:
                    sync_bits.append(pos - s)
                    sync_syms.append(k)
                else:
                    lost += 1

    def pct(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))]

    print(f"{len(sizes)} dynamic blocks, encoded bytes: median {pct(sizes, 0.5):.0f}, "
          f"min {min(sizes):.0f}, max {max(sizes):.0f}")
    n = len(sync_bits)
    print(f"{n} starts in step, {lost} hit an invalid or end code or the block's end first ({lost / (n + lost):.2%})")
    for q in (0.5, 0.9, 0.99, 0.999, 1.0):
        print(f"  p{q * 100:g}: {pct(sync_bits, q)} bits, {pct(sync_syms, q)} symbols")
    return 0


if __name__ == "__main__":
    sys.exit(main())
