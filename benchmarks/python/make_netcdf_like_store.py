#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a netCDF-like zarr v2 store: int16 packed values, numcodecs' shuffle filter (element size 2)
then zlib, one chunk per time step and channel, as xarray writes data that came from netCDF4/HDF5.

    python3 benchmarks/python/make_netcdf_like_store.py DIR [--steps 24] [--channels 16] [--level 1]

DIR/netcdf-int16.zarr is a group with one variable `x` [T, C, H, W] int16 (default [24, 16, 721,
1440]), chunks [1, 1, H, W]. The values are the ERA5-like fields of make_era5_stores.py, packed per
channel to int16 with a scale and an offset (kept as attributes, as netCDF's scale_factor and
add_offset).

TensorStore cannot write (or read) v2 filters and the GPU machine has no zarr-python, so the chunks
are made here the way numcodecs makes them: Shuffle(elementsize=2) is a byte transpose (every
element's byte 0, then every element's byte 1) and Zlib(level) is zlib.compress(data, level). Run
with --verify where zarr-python is installed (Debian's python3-zarr: /usr/bin/python3) to write the
same array with zarr-python too and compare every chunk file byte for byte.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_era5_stores import Era5Like  # noqa: E402


def packing(gen: Era5Like):
    """Per channel (scale, offset) from step 0's range with a margin, so later steps stay in int16."""
    x = gen.step(0)
    lo = x.reshape(x.shape[0], -1).min(axis=1).astype(np.float64)
    hi = x.reshape(x.shape[0], -1).max(axis=1).astype(np.float64)
    span = np.maximum(hi - lo, 1e-6) * 1.5
    return span / 65000.0, (hi + lo) / 2.0


def packed_step(gen: Era5Like, t: int, scale, offset) -> np.ndarray:
    x = gen.step(t).astype(np.float64)
    q = np.rint((x - offset[:, None, None]) / scale[:, None, None])
    return np.clip(q, -32768, 32767).astype("<i2")


def shuffle2(a: np.ndarray) -> bytes:
    """numcodecs.Shuffle(elementsize=2) of a's bytes."""
    return a.view(np.uint8).reshape(-1, 2).T.tobytes()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--steps", type=int, default=24)
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--lat", type=int, default=721)
    ap.add_argument("--lon", type=int, default=1440)
    ap.add_argument("--level", type=int, default=1, help="zlib level (numcodecs' default: 1)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--verify", action="store_true", help="also write with zarr-python and compare the chunks")
    a = ap.parse_args()
    root = os.path.join(os.path.abspath(a.dir), "netcdf-int16.zarr")
    var = os.path.join(root, "x")
    os.makedirs(var, exist_ok=True)
    gen = Era5Like(a.channels, a.lat, a.lon, a.seed, 23)
    scale, offset = packing(gen)
    meta = {"zarr_format": 2, "shape": [a.steps, a.channels, a.lat, a.lon], "chunks": [1, 1, a.lat, a.lon],
            "dtype": "<i2", "compressor": {"id": "zlib", "level": a.level}, "fill_value": 0, "order": "C",
            "filters": [{"id": "shuffle", "elementsize": 2}], "dimension_separator": "."}
    with open(os.path.join(root, ".zgroup"), "w") as f:
        json.dump({"zarr_format": 2}, f)
    with open(os.path.join(var, ".zarray"), "w") as f:
        json.dump(meta, f, indent=1)
    with open(os.path.join(var, ".zattrs"), "w") as f:
        json.dump({"_ARRAY_DIMENSIONS": ["time", "channel", "latitude", "longitude"],
                   "scale_factor": list(scale), "add_offset": list(offset)}, f)

    def write(t):
        q = packed_step(gen, t, scale, offset)
        stored = 0
        for c in range(a.channels):
            blob = zlib.compress(shuffle2(np.ascontiguousarray(q[c])), a.level)
            with open(os.path.join(var, f"{t}.{c}.0.0"), "wb") as f:
                f.write(blob)
            stored += len(blob)
        return stored

    with cf.ThreadPoolExecutor(os.cpu_count()) as ex:
        stored = sum(ex.map(write, range(a.steps)))
    raw = a.steps * a.channels * a.lat * a.lon * 2
    print(f"{root}: int16 {meta['shape']}, chunks {meta['chunks']}, shuffle + zlib {a.level}: "
          f"{stored} bytes stored, ratio {raw / stored:.2f}")
    if a.verify:
        import numcodecs
        import zarr
        ref = os.path.join(os.path.abspath(a.dir), "netcdf-int16-zarr-python.zarr")
        z = zarr.open(ref, mode="w", shape=meta["shape"], chunks=meta["chunks"], dtype="<i2",
                      compressor=numcodecs.Zlib(a.level), filters=[numcodecs.Shuffle(elementsize=2)], fill_value=0)
        for t in range(a.steps):
            z[t] = packed_step(gen, t, scale, offset)
        bad = [k for k in sorted(os.listdir(var)) if not k.startswith(".")
               and open(os.path.join(var, k), "rb").read() != open(os.path.join(ref, k), "rb").read()]
        print(f"zarr-python {zarr.__version__}: {'every chunk equal' if not bad else 'chunks differ: ' + str(bad[:5])}")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
