#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes every inner chunk of a sharded Zarr v3 array as its own file, so that ZstdKernelBench
--frames-from can time the kernel on exactly the frames a sharded read decodes.
   python3 tools/gpu/shard-frames.py ARRAY_DIR OUT_DIR [MAX_FRAMES]"""
import json
import os
import struct
import sys

array, out = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 62
meta = json.load(open(os.path.join(array, "zarr.json")))
shard = next(c for c in meta["codecs"] if c["name"] == "sharding_indexed")["configuration"]
outer = meta["chunk_grid"]["configuration"]["chunk_shape"]
inner = shard["chunk_shape"]
n = 1
for o, i in zip(outer, inner):
    n *= -(-o // i)
crc = any(c["name"] == "crc32c" for c in shard.get("index_codecs", []))
index_bytes = 16 * n + (4 if crc else 0)
at_end = shard.get("index_location", "end") == "end"
os.makedirs(out, exist_ok=True)
written = 0
for root, _, files in sorted(os.walk(os.path.join(array, "c"))):
    for f in sorted(files):
        data = open(os.path.join(root, f), "rb").read()
        index = data[-index_bytes:] if at_end else data[:index_bytes]
        for k in range(n):
            off, size = struct.unpack_from("<QQ", index, 16 * k)
            if off == 2**64 - 1 or written >= limit:
                continue
            with open(os.path.join(out, "%06d" % written), "wb") as w:
                w.write(data[off:off + size])
            written += 1
print("%d inner frames written to %s" % (written, out))
