# SPDX-License-Identifier: Apache-2.0
"""Uncompressed Zarr v2 groups written and read with numpy alone.

The tests write their store with zarr-python when it is installed (Debian: python3-zarr), with
real codecs. Where it is not (the GPU machine's image has torch but no zarr), they fall back to
this: valid Zarr v2 (``.zgroup``, ``.zarray`` with ``compressor: null``, ``.zattrs``, C order,
chunk keys joined with '.'), which any Zarr reader opens, the JVM server included.
"""

import itertools
import json
import os

import numpy as np


def write_array(root, name, data, chunks, dims, fill_value="NaN"):
    """Writes ``data`` (float32) as array ``name`` of the group at ``root``, chunk by chunk."""
    os.makedirs(os.path.join(root, name), exist_ok=True)
    if not os.path.exists(os.path.join(root, ".zgroup")):
        with open(os.path.join(root, ".zgroup"), "w") as f:
            json.dump({"zarr_format": 2}, f)
    meta = {"zarr_format": 2, "shape": list(data.shape), "chunks": list(chunks), "dtype": "<f4",
            "compressor": None, "fill_value": fill_value, "order": "C", "filters": None}
    with open(os.path.join(root, name, ".zarray"), "w") as f:
        json.dump(meta, f)
    with open(os.path.join(root, name, ".zattrs"), "w") as f:
        json.dump({"_ARRAY_DIMENSIONS": list(dims)}, f)
    grid = [range(-(-s // c)) for s, c in zip(data.shape, chunks)]
    for index in itertools.product(*grid):
        block = np.full(chunks, np.nan, dtype="<f4")
        region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(index, chunks, data.shape))
        part = data[region]
        block[tuple(slice(0, e) for e in part.shape)] = part
        with open(os.path.join(root, name, ".".join(map(str, index))), "wb") as f:
            f.write(np.ascontiguousarray(block).tobytes())


class Array:
    """Read side: ``shape``, ``ndim``, ``attrs`` and numpy indexing of a whole (small) array."""

    def __init__(self, path):
        with open(os.path.join(path, ".zarray")) as f:
            meta = json.load(f)
        if meta.get("compressor") is not None or meta.get("filters"):
            raise ValueError(f"{path}: only uncompressed arrays can be read without zarr-python")
        attrs_path = os.path.join(path, ".zattrs")
        self.attrs = json.load(open(attrs_path)) if os.path.exists(attrs_path) else {}
        self.path, self.shape, self.chunks = path, tuple(meta["shape"]), tuple(meta["chunks"])
        self.dtype = np.dtype(meta["dtype"])
        self.ndim = len(self.shape)
        self._data = None

    def _load(self):
        out = np.full(self.shape, np.nan, dtype=self.dtype)
        grid = [range(-(-s // c)) for s, c in zip(self.shape, self.chunks)]
        for index in itertools.product(*grid):
            key = os.path.join(self.path, ".".join(map(str, index)))
            if not os.path.exists(key):
                continue
            raw = open(key, "rb").read()
            expected = int(np.prod(self.chunks)) * self.dtype.itemsize
            if len(raw) != expected:
                raise ValueError(f"chunk {key} holds {len(raw)} bytes, not {expected}")
            block = np.frombuffer(raw, dtype=self.dtype).reshape(self.chunks)
            region = tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(index, self.chunks, self.shape))
            out[region] = block[tuple(slice(0, r.stop - r.start) for r in region)]
        return out

    def __getitem__(self, index):
        if self._data is None:
            self._data = self._load()
        return self._data[index]


class Group:
    def __init__(self, root):
        if not os.path.exists(os.path.join(root, ".zgroup")):
            raise ValueError(f"{root} is not a Zarr v2 group")
        self.root = root

    def array_keys(self):
        return [n for n in os.listdir(self.root) if os.path.exists(os.path.join(self.root, n, ".zarray"))]

    def __getitem__(self, name):
        return Array(os.path.join(self.root, name))
