#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes corpus.bin: Blosc1 frames made by a real c-blosc (python3-blosc 1.11 = c-blosc 1.21), and
the raw bytes they hold, for the kernels' blosc tests (BloscKernelTest).

Run with Debian's python: /usr/bin/python3 make-corpus.py  (writes corpus.bin next to this file).

Layout, little-endian: "ZDBLOSC1", u32 datasets, per dataset u32 length + bytes; u32 cases, per case
u16 name length + UTF-8 name, u32 dataset index, u32 frame length + frame bytes.
"""
import os
import random
import struct

import blosc

SEED = 20261126


def dataset(kind, size, typesize, rnd):
    if kind == "random":
        return rnd.randbytes(size)
    if kind == "runs":  # long runs: overlapping matches with short offsets
        out = bytearray()
        while len(out) < size:
            out += bytes([rnd.randrange(4)]) * rnd.randrange(1, 300)
        return bytes(out[:size])
    if kind == "text":
        words = [b"zarr", b"chunk", b"blosc", b"shuffle", b"decode", b"kernel", b"lz4", b"\n"]
        out = bytearray()
        while len(out) < size:
            out += rnd.choice(words) + b" "
        return bytes(out[:size])
    # smooth: slowly growing little-endian integers of the type size, with small noise
    out = bytearray()
    v = rnd.randrange(1 << 16)
    mask = (1 << (8 * typesize)) - 1
    while len(out) < size:
        v = (v + rnd.randrange(3)) & mask
        out += v.to_bytes(typesize, "little")
    return bytes(out[:size])


def main():
    rnd = random.Random(SEED)
    blosc.set_nthreads(1)
    datasets, index = [], {}

    def data(kind, size, typesize):
        key = (kind, size, typesize if kind == "smooth" else 0)
        if key not in index:
            index[key] = len(datasets)
            datasets.append(dataset(kind, size, typesize, rnd))
        return index[key]

    shuffles = {"noshuffle": blosc.NOSHUFFLE, "shuffle": blosc.SHUFFLE, "bitshuffle": blosc.BITSHUFFLE}
    cases = []

    def add(kind, size, typesize, cname, clevel, shuffle, blocksize):
        d = data(kind, size, typesize)
        blosc.set_blocksize(blocksize)
        frame = blosc.compress(datasets[d], typesize=typesize, clevel=clevel, shuffle=shuffles[shuffle], cname=cname)
        assert blosc.decompress(frame) == datasets[d]
        name = f"{cname}/L{clevel}/{shuffle}/ts{typesize}/bs{blocksize}/{kind}/{size}"
        cases.append((name, d, frame))

    cnames = ["blosclz", "lz4", "lz4hc", "zstd", "zlib"]
    # every compressor, shuffle and type size on a mid-sized odd buffer, forced small blocks
    # (several blocks, a short last one) and automatic ones
    k = 0
    for cname in cnames:
        for shuffle in shuffles:
            for typesize in (1, 2, 3, 4, 8):
                add("smooth", 12011, typesize, cname, 5, shuffle, (0, 4096)[k % 2])
                k += 1
    # levels, with the kinds of data that stress matches and literals
    for cname in cnames:
        for clevel in (0, 1, 5, 9):
            for i, kind in enumerate(("text", "runs", "random")):
                add(kind, 9001, 4, cname, clevel, list(shuffles)[(clevel + i) % 3], 2048)
    # tiny and empty buffers, every shuffle
    for cname in ("blosclz", "lz4", "zstd", "zlib"):
        for shuffle in shuffles:
            for size in (0, 1, 7, 127, 128, 1001):
                add("smooth", size, 4 if size % 4 == 0 else 1, cname, 5, shuffle, 0)
    # automatic block sizes on a buffer large enough for several blocks, and odd forced sizes
    # (c-blosc rounds them to the type size; 128 is its minimum)
    for cname in ("blosclz", "lz4", "lz4hc", "zstd", "zlib"):
        for shuffle in shuffles:
            add("smooth", 98309, 8, cname, 9, shuffle, 0)
            add("smooth", 98309, 8, cname, 5, shuffle, 16384)
            add("text", 30001, 3, cname, 5, shuffle, 1000)
            add("runs", 30001, 2, cname, 9, shuffle, 128)
    out = bytearray(b"ZDBLOSC1")
    out += struct.pack("<I", len(datasets))
    for d in datasets:
        out += struct.pack("<I", len(d)) + d
    out += struct.pack("<I", len(cases))
    for name, d, frame in cases:
        nb = name.encode()
        out += struct.pack("<H", len(nb)) + nb + struct.pack("<II", d, len(frame)) + frame
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus.bin")
    with open(path, "wb") as f:
        f.write(out)
    print(f"{path}: {len(cases)} cases, {len(datasets)} datasets, {len(out)} bytes")


if __name__ == "__main__":
    main()
