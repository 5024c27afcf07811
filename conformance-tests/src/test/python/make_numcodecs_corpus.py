#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes Zarr v2 arrays with zarr-python 2 and numcodecs (c-blosc 1.21, zlib) into DIR, and for
each array NAME.bin: its elements in C order, little-endian, as zarr-python reads them back.
DIR/manifest.json lists the arrays with what each covers. Run with Debian's /usr/bin/python3
(python3-zarr python3-numcodecs python3-blosc). Deterministic: seeded data.

  make_numcodecs_corpus.py DIR
"""
import json
import os
import sys

import numcodecs
import numpy as np
import zarr


def data(rng, dtype, shape, kind):
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if kind == "random":  # incompressible
        raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).tobytes()
        a = np.frombuffer(raw, dtype=dt.newbyteorder("=")).copy()
        if dt.kind == "f":
            a[~np.isfinite(a)] = 0  # NaN bit patterns are not unique: keep the byte comparison exact
    elif dt.kind == "f":
        t = np.linspace(0, 6, n)
        a = (280 + 15 * np.sin(t) + rng.normal(0, 0.5, n)).astype(dt)
    else:
        info = np.iinfo(dt)
        a = (np.arange(n) % 97 + rng.integers(0, 3, n)).clip(info.min, info.max).astype(dt)
    return a.reshape(shape)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261126)
    cases = []
    shuffles = [numcodecs.Blosc.NOSHUFFLE, numcodecs.Blosc.SHUFFLE, numcodecs.Blosc.BITSHUFFLE]
    dtypes = ["|u1", "<i2", "<f4", ">f8", "<u8"]
    i = 0
    for cname in ["lz4", "lz4hc", "blosclz", "zstd", "zlib"]:
        for shuffle in shuffles:
            for clevel, blocksize in [(5, 0), (1, 4096), (9, 0)] if cname == "lz4" else [(5, 0)]:
                dtype = dtypes[i % len(dtypes)]
                i += 1
                cases.append(dict(name="blosc-%s-s%d-c%d-b%d-%s" % (cname, shuffle, clevel, blocksize, dtype.strip("<>|")),
                                  dtype=dtype, compressor=numcodecs.Blosc(cname=cname, clevel=clevel, shuffle=shuffle,
                                                                          blocksize=blocksize),
                                  filters=None, order="C" if i % 3 else "F", kind="smooth"))
    for dtype in dtypes:  # every element size with the default blosc (lz4, byte shuffle)
        cases.append(dict(name="blosc-default-" + dtype.strip("<>|"), dtype=dtype, compressor=numcodecs.Blosc(),
                          filters=None, order="C", kind="smooth"))
    cases.append(dict(name="blosc-lz4-random", dtype="<f4", compressor=numcodecs.Blosc("lz4", 5, 1), filters=None,
                      order="C", kind="random"))
    cases.append(dict(name="blosc-clevel0", dtype="<f4", compressor=numcodecs.Blosc("lz4", 0, 1), filters=None,
                      order="C", kind="smooth"))
    for level in [1, 6, 9]:
        cases.append(dict(name="zlib-%d" % level, dtype="<f4", compressor=numcodecs.Zlib(level), filters=None,
                          order="C", kind="smooth"))
    # what netCDF4/HDF5 data becomes: int16 with a 2-byte shuffle, then zlib
    cases.append(dict(name="zlib-shuffle-i2", dtype="<i2", compressor=numcodecs.Zlib(4),
                      filters=[numcodecs.Shuffle(elementsize=2)], order="C", kind="smooth"))
    cases.append(dict(name="gzip-5", dtype="<f4", compressor=numcodecs.GZip(5), filters=None, order="C",
                      kind="smooth"))
    cases.append(dict(name="delta-zlib-i4", dtype="<i4", compressor=numcodecs.Zlib(1),
                      filters=[numcodecs.Delta(dtype="<i4")], order="C", kind="smooth"))
    # delta before zlib and blosc over every element size, a same-size astype, floats (numpy's
    # sequential cumsum: the device must sum in that order), big-endian elements and F order
    for dtype, astype, compressor, order, kind in [
            ("|i1", None, numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE), "C", "smooth"),
            ("<u2", "<i2", numcodecs.Zlib(1), "F", "smooth"),
            ("<i8", None, numcodecs.Blosc("zstd", 3, numcodecs.Blosc.SHUFFLE), "C", "random"),
            ("<u8", None, numcodecs.Zlib(6), "C", "smooth"),
            ("<f2", None, numcodecs.Zlib(1), "C", "smooth"),
            ("<f4", None, numcodecs.Blosc("lz4", 5, numcodecs.Blosc.SHUFFLE), "C", "smooth"),
            (">f8", None, numcodecs.Zlib(1), "F", "smooth")]:
        name = "delta-%s-%s%s-%s" % (compressor.codec_id, dtype.strip("<>|"), "-as-" + astype.strip("<>|") if astype else "",
                                      order)
        cases.append(dict(name=name, dtype=dtype, compressor=compressor,
                          filters=[numcodecs.Delta(dtype=dtype, astype=astype or dtype)], order=order, kind=kind))
    cases.append(dict(name="zlib-random", dtype="<u2", compressor=numcodecs.Zlib(6), filters=None, order="C",
                      kind="random"))
    manifest = []
    shape, chunks = (7, 20, 33), (3, 8, 33)
    for c in cases:
        fill = 0
        z = zarr.open_array(os.path.join(out, c["name"]), mode="w", shape=shape, chunks=chunks, dtype=c["dtype"],
                            compressor=c["compressor"], filters=c["filters"], order=c["order"], fill_value=fill)
        a = data(rng, c["dtype"], shape, c["kind"])
        z[:] = a
        # one chunk left unwritten: readers fill it
        key = os.path.join(out, c["name"], "1.1.0")
        if os.path.exists(key):
            os.remove(key)
        back = zarr.open_array(os.path.join(out, c["name"]), mode="r")[:]
        with open(os.path.join(out, c["name"] + ".bin"), "wb") as f:
            f.write(np.ascontiguousarray(back.astype(back.dtype.newbyteorder("<"))).tobytes())
        manifest.append(dict(name=c["name"], dtype=c["dtype"], compressor=c["compressor"].get_config(),
                             filters=[f.get_config() for f in (c["filters"] or [])], order=c["order"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(dict(zarr=zarr.__version__, numcodecs=numcodecs.__version__, arrays=manifest), f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
