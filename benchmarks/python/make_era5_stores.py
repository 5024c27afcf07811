#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the loader benchmark's ERA5-like stores with TensorStore (not with zarr-direct).

    python3 benchmarks/python/make_era5_stores.py DIR [--steps 64] [--layouts zstd,sharded,blosc-v2]

Each store DIR/era5-LAYOUT.zarr is a group with one float32 variable `x` [T, C, H, W] (default
[64, 16, 721, 1440]) whose dimensions are named time, channel, latitude, longitude:
  zstd      zarr v3, zstd level 3, one time step per chunk [1, C, H, W]
  sharded   zarr v3, one shard per time step [1, C, H, W], inner chunks [1, 1, H, W], zstd 3 inside
  blosc-v2  zarr v2, blosc lz4 clevel 5 with byte shuffle, chunks [1, C, H, W], _ARRAY_DIMENSIONS
  blosc-zlib-v2  the same with zlib inside blosc (as netCDF-derived data is often compressed)
  blosc-zstd-v2  the same with zstd inside blosc (as dynamical.org's stores are, in v3)
  blosc-blosclz-v2, blosc-bitshuffle-v2, blosc-noshuffle-v2  blosclz with byte shuffle; lz4
            with bit shuffle; lz4 without shuffle (tools/gpu/blosc-kernel-bench.sh)
  zlib-v2   zarr v2, zlib level 1 (numcodecs' default compressor id "zlib"), chunks [1, C, H, W]
All three hold the same values: smooth fields that move with time (the formulas of zarr-direct's
testkit SyntheticEra5, channel c is field c % 8 shifted by 5 * (c // 8) steps) plus small seeded
noise, rounded to --keep-bits mantissa bits as 16-bit GRIB packing leaves reanalysis data, so that
compression ratios are those of real data rather than of noise or of constants.

Beside each store, DIR/era5-LAYOUT.stats.json holds per-channel mean and std (population, over all
of time) in the zarr-direct stats format, computed with numpy from the generated values, so that
every loader normalizes with the same numbers. DIR/era5-LAYOUT.done.json records the parameters;
a store whose record matches is not written again (--force rewrites).

Needs numpy and tensorstore (no zarr-python). Time steps are generated and written in parallel.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common as bc  # noqa: E402

GENERATOR = "era5-like v1 (SyntheticEra5 fields, numpy PCG64 noise)"
NOISE_SCALE = [0.2, 0.2, 0.2, 20, 20, 0.2, 0.2, 20]


class Era5Like:
    """Values of time step t, [C, H, W] float32, deterministic in (seed, t) and the grid."""

    def __init__(self, channels: int, lat: int, lon: int, seed: int, keep_bits: int):
        self.c, self.h, self.w = channels, lat, lon
        self.seed, self.keep_bits = seed, keep_bits
        self.phi = np.deg2rad(90.0 - 180.0 * np.arange(lat) / max(1, lat - 1))[:, None]
        self.lam = (2 * np.pi * np.arange(lon) / lon)[None, :]

    def field(self, c: int, t: int) -> np.ndarray:
        p, l = self.phi, self.lam
        day = 2 * np.pi * t / 24.0
        sp, cp = np.sin(p), np.cos(p)
        if c == 0:
            f = 288 - 40 * sp * sp + 6 * cp * np.sin(l - day) + 3 * np.cos(3 * l + 2 * p - 0.3 * day)
        elif c == 1:
            f = 12 * np.cos(2 * p) * cp + 5 * np.sin(4 * l - 0.5 * day) * cp
        elif c == 2:
            f = 6 * np.sin(3 * l - 0.4 * day) * np.sin(2 * p) + 2 * np.cos(l + p)
        elif c == 3:
            f = 101325 + 1500 * np.cos(3 * p) + 900 * np.sin(2 * l - 0.2 * day) * cp * cp
        elif c == 4:
            f = 55000 - 3500 * sp * sp + 600 * np.sin(5 * l - 0.3 * day) * cp
        elif c == 5:
            f = 280 - 35 * sp * sp + 4 * np.sin(2 * l - 0.25 * day + p)
        elif c == 6:
            f = 50 * cp * cp * cp * (1 + 0.3 * np.sin(3 * l - 0.6 * day))
        else:
            f = 100000 - 800 * sp * sp + 700 * np.cos(2 * l + 3 * p - 0.1 * day)
        return np.broadcast_to(f, (self.h, self.w))

    def step(self, t: int) -> np.ndarray:
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([self.seed, t])))
        out = np.empty((self.c, self.h, self.w), np.float32)
        for c in range(self.c):
            out[c] = self.field(c % 8, t + 5 * (c // 8))
            noise = rng.random((self.h, self.w), dtype=np.float32)
            noise -= np.float32(0.5)
            noise *= np.float32(2 * NOISE_SCALE[c % 8])
            out[c] += noise
        if self.keep_bits < 23:  # round to nearest, keeping keep_bits mantissa bits
            drop = 23 - self.keep_bits
            bits = out.view(np.uint32)
            bits += np.uint32(1 << (drop - 1))
            bits &= np.uint32(~((1 << drop) - 1) & 0xFFFFFFFF)
        return out


def step_moments(x: np.ndarray):
    """Per channel: count, mean, sum of squared deviations (float64) of one step [C, H, W]."""
    n = x.shape[1] * x.shape[2]
    mean = np.empty(x.shape[0])
    m2 = np.empty(x.shape[0])
    nan = np.empty(x.shape[0], np.int64)
    for c in range(x.shape[0]):
        v = x[c].astype(np.float64)
        nan[c] = int(np.isnan(v).sum())
        mean[c] = v.mean()
        v -= mean[c]
        m2[c] = np.dot(v.ravel(), v.ravel())
    return n, mean, m2, nan


def combine(parts):
    """Chan et al.'s pairwise combination of per-step (n, mean, m2), in step order."""
    n, mean, m2 = 0, None, None
    for k, mk, m2k, _ in parts:
        if mean is None:
            n, mean, m2 = k, mk.copy(), m2k.copy()
            continue
        d = mk - mean
        tot = n + k
        mean = mean + d * (k / tot)
        m2 = m2 + m2k + d * d * (n * k / tot)
        n = tot
    return n, mean, np.sqrt(m2 / n)


def write_group_metadata(path: str, layout: str, params: dict):
    attrs = {"title": "ERA5-like synthetic data for the zarr-direct loader benchmark", "layout": layout,
             "generator": GENERATOR, "seed": params["seed"], "keep_bits": params["keep_bits"]}
    if bc.LAYOUTS[layout][1] == 3:
        with open(os.path.join(path, "zarr.json"), "w") as f:
            json.dump({"zarr_format": 3, "node_type": "group", "attributes": attrs}, f, indent=2)
    else:
        with open(os.path.join(path, ".zgroup"), "w") as f:
            json.dump({"zarr_format": 2}, f)
        with open(os.path.join(path, ".zattrs"), "w") as f:
            json.dump(attrs, f, indent=2)
        with open(os.path.join(path, bc.VARIABLE, ".zattrs"), "w") as f:
            json.dump({"_ARRAY_DIMENSIONS": bc.DIMENSION_NAMES}, f)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="folder for the stores (local disk)")
    ap.add_argument("--steps", type=int, default=64, help="time steps T (default 64)")
    ap.add_argument("--channels", type=int, default=16)
    ap.add_argument("--lat", type=int, default=721)
    ap.add_argument("--lon", type=int, default=1440)
    ap.add_argument("--layouts", default="zstd,sharded,blosc-v2",
                    help="comma-separated, of: " + ", ".join(bc.LAYOUTS) + " (default: zstd,sharded,blosc-v2)")
    ap.add_argument("--keep-bits", type=int, default=13,
                    help="mantissa bits kept (23: no rounding); default 13: zstd 3 ratio about 2.6, as reanalysis data")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--level", type=int, default=3, help="zstd level (default 3)")
    ap.add_argument("--clevel", type=int, default=5, help="blosc clevel (default 5)")
    ap.add_argument("--threads", type=int, default=min(16, os.cpu_count() or 4), help="steps generated at once")
    ap.add_argument("--force", action="store_true", help="write again even if a matching store is there")
    ap.add_argument("--json", help="also write this summary JSON")
    a = ap.parse_args(argv)

    layouts = [s for s in a.layouts.split(",") if s]
    for lay in layouts:
        if lay not in bc.LAYOUTS:
            ap.error(f"unknown layout {lay!r}; expected some of {', '.join(bc.LAYOUTS)}")
    shape = [a.steps, a.channels, a.lat, a.lon]
    params = {"generator": GENERATOR, "shape": shape, "seed": a.seed, "keep_bits": a.keep_bits,
              "level": a.level, "clevel": a.clevel}
    os.makedirs(a.dir, exist_ok=True)
    logical = int(np.prod(shape)) * 4

    def done(lay):
        p = os.path.join(os.path.abspath(a.dir), f"era5-{lay}.done.json")
        try:
            with open(p) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            return None
        ok = (rec.get("params") == params and os.path.exists(bc.stats_path(a.dir, lay))
              and bc.read_shape(bc.store_path(a.dir, lay)) == shape)
        return rec if ok else None

    todo = [lay for lay in layouts if a.force or done(lay) is None]
    summary = {"dir": os.path.abspath(a.dir), "params": params, "stores": {}}
    if not todo:
        print(f"stores: {', '.join(layouts)} in {a.dir} already written with these parameters (--force rewrites)")
    else:
        import tensorstore as ts
        ctx = ts.Context()
        arrays = {}
        for lay in todo:
            path = bc.store_path(a.dir, lay)
            os.makedirs(path, exist_ok=True)
            for marker in (os.path.join(os.path.abspath(a.dir), f"era5-{lay}.done.json"),):
                if os.path.exists(marker):
                    os.remove(marker)
            arrays[lay] = ts.open(bc.array_spec(path, lay, shape, a.level, a.clevel), context=ctx).result()
            write_group_metadata(path, lay, params)
        gen = Era5Like(a.channels, a.lat, a.lon, a.seed, a.keep_bits)

        def one(t):
            x = gen.step(t)
            for lay in todo:
                txn = ts.Transaction()
                arrays[lay].with_transaction(txn)[t:t + 1].write(x[None]).result()
                txn.commit_async().result()
            return step_moments(x)

        t0 = time.perf_counter()
        print(f"writing {', '.join(todo)}: {shape} float32 ({logical / 1e9:.2f} GB each), "
              f"{a.threads} steps at once ...", flush=True)
        with cf.ThreadPoolExecutor(a.threads) as pool:
            parts = list(pool.map(one, range(a.steps)))
        took = time.perf_counter() - t0
        n, mean, std = combine(parts)
        nan = sum(p[3] for p in parts)
        # check: two steps read back equal the generated values
        for lay in todo:
            for t in sorted({0, a.steps - 1}):
                back = arrays[lay][t].read().result()
                if not np.array_equal(back, gen.step(t), equal_nan=True):
                    raise SystemExit(f"{lay}: step {t} read back differs from what was written")
        print(f"wrote in {took:.1f} s ({len(todo) * logical / 1e9 / took:.2f} GB/s of values written); "
              f"read-back check of steps 0 and {a.steps - 1}: equal", flush=True)
        for lay in layouts:  # every requested store gets the same statistics
            path = bc.store_path(a.dir, lay)
            doc = bc.stats_document(path, a.steps, mean, std, [n] * a.channels, nan)
            with open(bc.stats_path(a.dir, lay), "w") as f:
                json.dump(doc, f, indent=1)
        for lay in todo:
            with open(os.path.join(os.path.abspath(a.dir), f"era5-{lay}.done.json"), "w") as f:
                json.dump({"params": params, "write_seconds": took, "layouts_written_together": todo}, f, indent=1)
        summary["write_seconds"] = took
        summary["written"] = todo
    for lay in layouts:
        path = bc.store_path(a.dir, lay)
        sb = bc.stored_bytes(path)
        summary["stores"][lay] = {"path": path, "stats": bc.stats_path(a.dir, lay), "description": bc.LAYOUTS[lay][0],
                                  "logical_bytes": logical, "stored_bytes": sb, "ratio": logical / max(1, sb)}
        print(f"  {lay:9s} {path}: stored {sb / 1e9:.2f} GB, compression ratio {logical / max(1, sb):.2f}  "
              f"({bc.LAYOUTS[lay][0]})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
