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
    /usr/bin/python3 benchmarks/python/deflate_sync.py CHUNK_FILE... --split 4096 [--margin 2048]

With --split it inflates each stream as a split inside blocks would (split_decode: decoders from
every cut, the true path moving onto each at the first bit both stood on) and compares the bytes
with zlib's.

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


def symbol(bits: Bits, pos: int, lit, dist):
    """As step, with the symbol: (("lit", byte) | ("match", length, distance) | ("end",), next)."""
    r = decode_sym(bits, pos, lit)
    if r is None:
        return None
    s, pos = r
    if s < 256:
        return ("lit", s), pos
    if s == 256:
        return ("end",), pos
    if s > 285:
        return None
    length = LEN_BASE[s - 257] + bits.get(pos, LEN_EXTRA[s - 257])
    pos += LEN_EXTRA[s - 257]
    r = decode_sym(bits, pos, dist)
    if r is None or r[0] > 29:
        return None
    d, pos = r
    base = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
            2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577][d]
    return ("match", length, base + bits.get(pos, DIST_EXTRA[d])), pos + DIST_EXTRA[d]


def split_decode(bits: Bits, lit, dist, start: int, end: int, cut: int, margin: int, stats: dict) -> list:
    """The block's symbols as a split decode finds them: decoder k from start + k * cut (k >= 1)
    records where it stood and what it read, up to margin bits past the next cut; walking the true
    path from the block's start, the walk moves onto decoder k's records at the first position both
    visited (from there the two decode the same), or decodes on when decoder k never met it."""
    cuts = list(range(start + cut, end, cut))
    records = []
    for b in cuts:
        rec, pos = {}, b
        order = []
        while pos < min(end, b + cut + margin):
            r = symbol(bits, pos, lit, dist)
            if r is None:
                break
            order.append(pos)
            rec[pos] = (len(order) - 1, r)
            if r[0][0] == "end":
                break
            pos = r[1]
        records.append((order, rec))
    out, pos, k = [], start, 0
    using = None  # (order, rec, index) of the decoder whose records are being replayed
    while True:
        if using is None and k < len(cuts) and pos >= cuts[k]:
            order, rec = records[k]
            if pos in rec:
                using = (order, rec)
                stats["synced"] += 1
                k += 1
            elif pos >= cuts[k] + cut + margin or (order and pos > order[-1]):
                stats["unsynced"] += 1  # decoder k never stood here: the walk decodes on itself
                k += 1
        if using is not None and pos in using[1]:
            sym, nxt = using[1][pos][1]
        else:
            using = None
            sym, nxt = symbol(bits, pos, lit, dist)
            stats["own"] += 1
        out.append(sym)
        stats["symbols"] += 1
        if sym[0] == "end":
            return out
        pos = nxt
        if using is not None and k < len(cuts) and pos >= cuts[k]:
            using = None  # past the next cut: look for that decoder's records


def inflate_split(data: bytes, cut: int, margin: int, stats: dict) -> bytes:
    """Inflates a zlib stream, its dynamic blocks by split_decode, the rest serially."""
    out = bytearray()
    bits = Bits(data)

    def run(syms):
        for sym in syms:
            if sym[0] == "lit":
                out.append(sym[1])
            elif sym[0] == "match":
                _, n, d = sym
                for _ in range(n):
                    out.append(out[-d])

    for kind, payload in all_blocks(data):
        if kind == "stored":
            out += payload
        elif kind == "fixed":
            lit, dist, start = payload
            syms, pos = [], start
            while True:
                sym, pos = symbol(bits, pos, lit, dist)
                syms.append(sym)
                if sym[0] == "end":
                    break
            run(syms)
        else:
            lit, dist, start, end = payload
            run(split_decode(bits, lit, dist, start, end, cut, margin, stats))
    return bytes(out)


def all_blocks(data: bytes):
    """Every block: ("stored", bytes) | ("fixed", (lit, dist, start)) | ("dynamic", (lit, dist, start, end))."""
    for b in blocks(data, every=True):
        yield b


def blocks(data: bytes, every: bool = False):
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
            if every:
                yield "stored", data[pos // 8 + 4:pos // 8 + 4 + n]
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
            if every:
                yield ("fixed", (lit, dist, start)) if btype == 1 else ("dynamic", (lit, dist, start, pos))
            elif btype == 2:
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
    ap.add_argument("--split", type=int, default=0, metavar="BYTES",
                    help="instead: inflate each stream with its dynamic blocks cut every BYTES encoded"
                         " bytes (split_decode) and compare with zlib")
    ap.add_argument("--margin", type=int, default=2048, help="bits a decoder reads past the next cut")
    a = ap.parse_args()
    if a.split:
        import zlib
        stats = {"synced": 0, "unsynced": 0, "own": 0, "symbols": 0}
        for f in a.files:
            data = open(f, "rb").read()
            got = inflate_split(data, a.split * 8, a.margin, stats)
            want = zlib.decompress(data)
            print(f"{f}: {len(got)} bytes, {'equal to' if got == want else 'DIFFERENT from'} zlib's")
            if got != want:
                return 1
        print(f"cuts taken over: {stats['synced']}, cuts whose decoder never met the walk: {stats['unsynced']},"
              f" symbols of dynamic blocks the walk decoded itself: {stats['own']} of {stats['symbols']}")
        return 0
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
