#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Where a JFR recording's CPU went, as text: reads the output of
`jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample --stack-depth 40 FILE` on stdin and
prints, per event kind, the share of samples whose top frame is each method, and the share whose
stack holds each of a few zarr-direct and library landmarks. No dependencies (the GPU machine's
python3 runs it on the recording it just made).

    jfr print --events jdk.ExecutionSample,jdk.NativeMethodSample --stack-depth 40 x.jfr | python3 tools/gpu/jfr-top.py
"""
import collections
import re
import sys

LANDMARKS = ["ZstdHuffmanStreams", "Zstd.decompress", "ZstdCodec", "InnerDecodes", "readFully", "S3Store",
             "org.apache.http", "software.amazon", "SocketInputStream", "NioSocketImpl", "initNativeMemory",
             "NativeBlocks", "HostRegion", "placeFrom", "MemorySegment.copy", "Selector", "park", "ChannelMoments"]

# jfr print interleaves the kinds in time order: an event is its header line and what follows up
# to the next header at the start of a line
blocks = collections.defaultdict(list)
kind, lines = None, []
for line in sys.stdin:
    m = re.match(r"^(jdk\.\w+) \{", line)
    if m:
        if kind:
            blocks[kind].append("".join(lines))
        kind, lines = m.group(1), []
    else:
        lines.append(line)
if kind:
    blocks[kind].append("".join(lines))
for kind in ("jdk.ExecutionSample", "jdk.NativeMethodSample"):
    events = blocks.get(kind, [])
    if not events:
        continue
    top = collections.Counter()
    marks = collections.Counter()
    for e in events:
        frames = [re.sub(r"\(.*", "", l.strip()) for l in e.split("\n") if "line:" in l]
        if not frames:
            continue
        top[frames[0]] += 1
        stack = "\n".join(frames)
        for m in LANDMARKS:
            if m in stack:
                marks[m] += 1
    n = len(events)
    print(f"{kind}: {n} samples")
    for f, c in top.most_common(20):
        print(f"  {100 * c / n:5.1f}%  {f}")
    print("  stacks holding:")
    for m, c in marks.most_common():
        print(f"  {100 * c / n:5.1f}%  {m}")
