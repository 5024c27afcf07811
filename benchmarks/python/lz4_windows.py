#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How far a window walk could shorten the serial LZ4 parse of a blosc block's split streams.

On the GPU a blosc lz4 block's time is its longest split stream's parse: one item reads each
sequence's token, literal run and offset before it knows where the next sequence starts, so the
parse is one chain of dependent steps (docs/performance.md, "A block's parse beside its copies").
A warp could instead decode a token at every one of the next W bytes at once and walk the chain of
their lengths in registers, taking every sequence that starts in the window in one step, as long as
none has a length extension (a token nibble of 15, whose extra bytes only a serial read finds).
This measures, on the stream of real frames, what such a walk would cost in steps against the
serial parse:

  serial steps  one a sequence (what the kernel does now)
  window steps  one a window of W bytes walked, plus one a sequence the window stops at (a length
                extension, or too near the stream's end to read 17 bytes, as the kernel's fast path)

Frames come from c-blosc 1.21 (python3-blosc) compressing ERA5-like time steps of
make_era5_stores.py (the same generator, the same `blosc-v2` codec: lz4, clevel 5, byte shuffle,
typesize 4, c-blosc's automatic block size), or from chunk files given with --frames.

    /usr/bin/python3 benchmarks/python/lz4_windows.py [--steps 1] [--channels 16] [--windows 32,64]
    /usr/bin/python3 benchmarks/python/lz4_windows.py --frames CHUNK_FILE... [--windows 32,64]

Prints, per window size: the serial and window steps of the longest stream of each block (what a
block waits on), summed over the blocks, and their ratio; and the share of sequences with a length
extension.
"""
from __future__ import annotations

import argparse
import os
import struct
import sys


def blosc_streams(frame: bytes):
    """Yields, per block, the list of its LZ4 streams (bytes); raw streams are left out."""
    version, versionlz, flags, typesize = frame[0], frame[1], frame[2], frame[3]
    nbytes, blocksize, cbytes = struct.unpack_from("<III", frame, 4)
    if flags & 0x02:  # memcpyed
        return
    if (flags >> 5) != 1:
        raise ValueError(f"compressor {flags >> 5} is not lz4")
    nblocks = (nbytes + blocksize - 1) // blocksize
    starts = struct.unpack_from(f"<{nblocks}I", frame, 16)
    for b in range(nblocks):
        bsize = min(blocksize, nbytes - b * blocksize)
        split = not (flags & 0x10) and typesize > 1 and bsize == blocksize and bsize % typesize == 0
        nstreams = typesize if split else 1
        neblock = bsize // nstreams
        pos = starts[b]
        streams = []
        for _ in range(nstreams):
            (csize,) = struct.unpack_from("<i", frame, pos)
            pos += 4
            if csize != neblock:
                streams.append(frame[pos:pos + csize])
            pos += csize
        yield streams


def sequences(s: bytes):
    """The start of every sequence of the LZ4 block s, and whether it has a length extension."""
    ip, out = 0, []
    n = len(s)
    while True:
        start = ip
        token = s[ip]
        ip += 1
        lit, ext = token >> 4, False
        if lit == 15:
            ext = True
            while True:
                b = s[ip]
                ip += 1
                lit += b
                if b != 255:
                    break
        ip += lit
        if ip >= n:
            out.append((start, ext))
            return out
        ip += 2
        if token & 15 == 15:
            ext = True
            while True:
                b = s[ip]
                ip += 1
                if b != 255:
                    break
        out.append((start, ext))


def window_steps(s: bytes, seqs, w: int) -> int:
    """Steps of a walk that takes, from the current sequence, every sequence starting in the next w
    bytes with no extension and 17 readable bytes (one step), and a stopping one by itself."""
    n = len(s)
    steps, i = 0, 0
    while i < len(seqs):
        start, ext = seqs[i]
        if ext or n - start < 17:
            steps += 1  # the serial path
            i += 1
            continue
        steps += 1
        end = start + w
        i += 1
        while i < len(seqs) and seqs[i][0] < end and not seqs[i][1] and n - seqs[i][0] >= 17:
            i += 1
    return steps


def frames_from_generator(steps: int, channels: int):
    import blosc
    import numpy as np
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from make_era5_stores import Era5Like
    gen = Era5Like(channels, 721, 1440, 0, 13)  # make_era5_stores.py's defaults
    for t in range(steps):
        x = np.ascontiguousarray(gen.step(t))
        yield f"step {t}", blosc.compress(x.tobytes(), typesize=4, clevel=5, shuffle=blosc.SHUFFLE, cname="lz4")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", nargs="*", help="blosc chunk files (lz4) instead of generated steps")
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--windows", default="32,64")
    a = ap.parse_args()
    widths = [int(v) for v in a.windows.split(",")]
    frames = ((f, open(f, "rb").read()) for f in a.frames) if a.frames else frames_from_generator(a.steps, a.channels)
    serial = 0
    win = {w: 0 for w in widths}
    nseq = n_ext = blocks = 0
    enc = raw = stored = 0
    for name, frame in frames:
        raw += struct.unpack_from("<I", frame, 4)[0]
        stored += len(frame)
        for streams in blosc_streams(frame):
            if not streams:
                continue
            blocks += 1
            parsed = [sequences(s) for s in streams]
            for s, q in zip(streams, parsed):
                nseq += len(q)
                n_ext += sum(1 for _, e in q if e)
                enc += len(s)
            longest = max(range(len(streams)), key=lambda k: len(parsed[k]))
            serial += len(parsed[longest])
            for w in widths:
                # the block waits on the stream whose walk is longest, not always the serial longest
                win[w] += max(window_steps(s, q, w) for s, q in zip(streams, parsed))
        print(f"{name}: {blocks} blocks so far", file=sys.stderr)
    if blocks == 0:
        print("no lz4 block found")
        return 1
    print(f"frames: ratio {raw / stored:.2f}; blocks: {blocks}; sequences: {nseq} ({enc / nseq:.2f} encoded bytes each), "
          f"{100.0 * n_ext / nseq:.2f}% with a length extension")
    print(f"serial steps of each block's longest stream, summed: {serial} ({serial / blocks:.0f} a block)")
    for w in widths:
        print(f"window of {w} bytes: {win[w]} steps ({win[w] / blocks:.0f} a block), {serial / win[w]:.2f}x fewer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
