# SPDX-License-Identifier: Apache-2.0
"""Shared pieces of the loader benchmark: the three ERA5-like store layouts, the window arithmetic,
the stats file, and the TensorStore Dataset that the baseline DataLoader reads with.

Needs numpy; torch and tensorstore only where a function says so (imported lazily, so that the plan
of a run can be printed on a machine that has neither). Nothing here imports zarr_direct.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass

import numpy as np

VARIABLE = "x"
DIMENSION_NAMES = ["time", "channel", "latitude", "longitude"]

# blosc layouts, zarr v2, clevel 5, chunks [1,C,H,W]: name -> (cname, shuffle: 0 none, 1 byte, 2 bit)
BLOSC_LAYOUTS = {
    "blosc-v2": ("lz4", 1),
    "blosc-zlib-v2": ("zlib", 1),
    "blosc-zstd-v2": ("zstd", 1),
    "blosc-blosclz-v2": ("blosclz", 1),
    "blosc-bitshuffle-v2": ("lz4", 2),
    "blosc-noshuffle-v2": ("lz4", 0),
}
_SHUFFLES = ("without shuffle", "byte shuffle", "bit shuffle")

# name -> (description, zarr format); the stores are DIR/NAME.zarr (a group holding the array `x`)
# and their statistics DIR/NAME.stats.json.
LAYOUTS = {
    "zstd": ("zarr v3, zstd 3, one time step per chunk [1,C,H,W]", 3),
    "sharded": ("zarr v3, one shard per time step [1,C,H,W], inner chunks [1,1,H,W], zstd 3", 3),
    **{name: (f"zarr v2, blosc {cname} clevel 5 {_SHUFFLES[sh]}, chunks [1,C,H,W]", 2)
       for name, (cname, sh) in BLOSC_LAYOUTS.items()},
    "zlib-v2": ("zarr v2, zlib level 1 (numcodecs' default), chunks [1,C,H,W]", 2),
}


def store_path(root: str, layout: str) -> str:
    return os.path.join(os.path.abspath(root), f"era5-{layout}.zarr")


def stats_path(root: str, layout: str) -> str:
    return os.path.join(os.path.abspath(root), f"era5-{layout}.stats.json")


def array_spec(path: str, layout: str, shape=None, level: int = 3, clevel: int = 5) -> dict:
    """The TensorStore spec of the variable `x` of the group at `path`; with `shape`, a spec that
    creates it (deleting what is there)."""
    zarr_format = LAYOUTS[layout][1]
    spec = {
        "driver": "zarr3" if zarr_format == 3 else "zarr",
        "kvstore": {"driver": "file", "path": os.path.join(path, VARIABLE) + "/"},
    }
    if shape is None:
        return spec
    t, c, h, w = shape
    le = {"name": "bytes", "configuration": {"endian": "little"}}
    zstd = {"name": "zstd", "configuration": {"level": level, "checksum": False}}
    if layout == "zstd":
        meta = {"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, c, h, w]}},
                "codecs": [le, zstd]}
    elif layout == "sharded":
        meta = {"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1, c, h, w]}},
                "codecs": [{"name": "sharding_indexed", "configuration": {
                    "chunk_shape": [1, 1, h, w],
                    "codecs": [le, zstd],
                    "index_codecs": [le, {"name": "crc32c"}],
                    "index_location": "end"}}]}
    elif layout in BLOSC_LAYOUTS:
        cname, shuffle = BLOSC_LAYOUTS[layout]
        meta = {"chunks": [1, c, h, w], "dtype": "<f4", "order": "C", "filters": None,
                "compressor": {"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": 0},
                "fill_value": "NaN", "dimension_separator": "."}
    elif layout == "zlib-v2":
        meta = {"chunks": [1, c, h, w], "dtype": "<f4", "order": "C", "filters": None,
                "compressor": {"id": "zlib", "level": 1}, "fill_value": "NaN", "dimension_separator": "."}
    else:
        raise ValueError(f"unknown layout {layout!r}; expected one of {sorted(LAYOUTS)}")
    if zarr_format == 3:
        meta.update({"data_type": "float32", "fill_value": "NaN", "dimension_names": DIMENSION_NAMES,
                     "chunk_key_encoding": {"name": "default"}})
    meta["shape"] = [t, c, h, w]
    spec.update({"metadata": meta, "create": True, "delete_existing": True})
    return spec


def read_shape(path: str) -> list[int] | None:
    """The shape of `x` from its metadata JSON (no TensorStore needed), or None if absent."""
    for name in ("zarr.json", ".zarray"):
        p = os.path.join(path, VARIABLE, name)
        if os.path.exists(p):
            with open(p) as f:
                return list(json.load(f)["shape"])
    return None


def stored_bytes(path: str) -> int:
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(d, f))
    return total


# ---------------------------------------------------------------------------------------------
# Windows: the sample whose first input step is s has inputs s, s+stride, .., s+(history-1)*stride
# and targets s+history*stride, .., s+(history+future-1)*stride (issue #22).

@dataclass(frozen=True)
class Windows:
    history: int
    future: int
    stride: int
    t0: int
    t1: int

    @property
    def span(self) -> int:  # steps from the first input to the last target, inclusive
        return (self.history + self.future - 1) * self.stride + 1

    @property
    def samples(self) -> int:
        return max(0, self.t1 - self.t0 - self.span + 1)

    def batches(self, batch_size: int, drop_last: bool = True) -> int:
        n = self.samples
        return n // batch_size if drop_last else math.ceil(n / batch_size)

    def first_step(self, sample: int) -> int:
        return self.t0 + sample


def epoch_order(samples: int, seed: int, epoch: int) -> list[int]:
    """The baseline's epoch order: a permutation that depends on (seed, epoch) only. It is not the
    ZarrLoader's order (that one is the JVM's); both loaders see the same number of samples and the
    same windows, which is what throughput depends on."""
    import torch
    g = torch.Generator()
    g.manual_seed(seed * 1_000_003 + epoch)
    return torch.randperm(samples, generator=g).tolist()


# ---------------------------------------------------------------------------------------------
# Statistics file, as `zarr-direct stats` writes it (issue #22).

def stats_document(store: str, t1: int, mean, std, count, nan_count, t0: int = 0) -> dict:
    c = len(mean)
    return {"format": "zarr-direct-stats", "version": 1, "store": os.path.abspath(store),
            "time_range": [t0, t1],
            "variables": {VARIABLE: {"channels": list(range(c)),
                                     "mean": [float(v) for v in mean], "std": [float(v) for v in std],
                                     "count": [int(v) for v in count], "nan_count": [int(v) for v in nan_count]}}}


def read_stats(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(mean, std) of `x`, float32 [C]."""
    with open(path) as f:
        doc = json.load(f)
    if doc.get("format") != "zarr-direct-stats":
        raise ValueError(f"{path}: not a zarr-direct stats file (format {doc.get('format')!r})")
    v = doc["variables"][VARIABLE]
    return np.asarray(v["mean"], np.float32), np.asarray(v["std"], np.float32)


# ---------------------------------------------------------------------------------------------
# The baseline Dataset: what users run today (torch DataLoader over TensorStore reads).

KEY_STRIDE = 1 << 32  # dataset index = store * KEY_STRIDE + sample


class TsWindows:
    """Map-style Dataset over one or more stores; index = store * KEY_STRIDE + sample, so that one
    pool of workers serves every store (the batch sampler picks the store). Each worker opens
    TensorStore lazily, after the spawn (TensorStore aborts in forked workers). Returns
    {"input": float32 [history, C, H, W], "target": float32 [future, C, H, W], "time": int, "store": int}.
    normalize "worker": (x - mean) / std in the worker, float32 (as the ZarrLoader does on the GPU);
    "none": raw values (the consumer normalizes)."""

    def __init__(self, specs: list[dict], stats: list[tuple[np.ndarray, np.ndarray]], windows: Windows,
                 normalize: str = "worker"):
        self.specs = specs
        self.stats = [(np.asarray(m, np.float32)[:, None, None], np.asarray(s, np.float32)[:, None, None])
                      for m, s in stats]
        self.windows = windows
        self.normalize = normalize
        self._arrays = {}

    def __len__(self):  # only the sampler's indices are used; this is the largest key + 1
        return (len(self.specs) - 1) * KEY_STRIDE + self.windows.samples

    def _array(self, i):
        a = self._arrays.get(i)
        if a is None:
            import tensorstore as ts
            a = ts.open(self.specs[i], read=True).result()
            self._arrays[i] = a
        return a

    def read_window(self, store: int, sample: int) -> np.ndarray:
        w = self.windows
        s = w.first_step(sample)
        a = self._array(store)
        x = a[s:s + w.span:w.stride].read().result()  # [history + future, C, H, W] float32
        x = np.ascontiguousarray(x, dtype=np.float32)
        if self.normalize == "worker":
            mean, std = self.stats[store]
            x -= mean
            x /= std
        return x

    def __getitem__(self, key):
        import torch
        store, sample = divmod(int(key), KEY_STRIDE)
        x = torch.from_numpy(self.read_window(store, sample))
        h = self.windows.history
        return {"input": x[:h], "target": x[h:], "time": self.windows.first_step(sample), "store": store}


def worker_init(_worker_id):
    """DataLoader worker_init_fn: a worker ends with os._exit once Python's own exit handlers have
    run, so that TensorStore's threads are not torn down by C++ static destructors (seen here: a
    worker now and then died at exit with 'terminate called without an active exception', and the
    DataLoader then raised in the main process)."""
    import atexit
    atexit.register(os._exit, 0)


class StreamBatchSampler:
    """The baseline's batches, as one endless stream (DataLoader batch_sampler): the current store's
    epochs one after another (each the permutation of `epoch_order`, cut to whole batches as with
    drop_last), so that the DataLoader never drains at an epoch end: a store of 64 steps has 15
    batches an epoch, less than 16 workers x prefetch_factor 2 in flight, and a real training set
    has thousands. `request_switch(store, at)` moves the stream to another store from batch `at`
    (counted from the iterator's start; at least `generated`, the batches handed out so far), so
    that the batches already in flight are the old store's and are measured, not thrown away."""

    def __init__(self, windows: Windows, seed: int, batch_size: int):
        self.windows = windows
        self.seed = seed
        self.batch_size = batch_size
        self.store = 0
        self.generated = 0
        self._switch = None

    def request_switch(self, store: int, at: int):
        if at < self.generated:
            raise ValueError(f"switch at batch {at}: {self.generated} batches are handed out already")
        self._switch = (store, at)

    def __len__(self):  # endless; only len(DataLoader) asks
        return 1 << 40

    def _maybe_switch(self):
        if self._switch is not None and self.generated >= self._switch[1]:
            self.store = self._switch[0]
            self._switch = None
            return True
        return False

    def __iter__(self):
        self.generated = 0
        epochs = {}
        nb = self.windows.batches(self.batch_size)
        b = self.batch_size
        while True:
            self._maybe_switch()
            st = self.store
            e = epochs.get(st, 0)
            epochs[st] = e + 1
            order = epoch_order(self.windows.samples, self.seed, e)
            for i in range(nb):
                if self._maybe_switch():
                    break
                self.generated += 1
                yield [st * KEY_STRIDE + k for k in order[i * b:(i + 1) * b]]


def _selftest():
    """python3 bench_common.py: checks the window arithmetic and the batch stream (torch on CPU)."""
    w = Windows(2, 1, 1, 0, 64)
    assert (w.span, w.samples, w.batches(4), w.batches(8)) == (3, 62, 15, 7)
    assert Windows(2, 1, 3, 0, 64).samples == 64 - 7 + 1
    s = StreamBatchSampler(w, 0, 4)
    it = iter(s)
    first = [next(it) for _ in range(15)]
    keys = [k for b in first for k in b]
    assert len(set(keys)) == 60 and all(0 <= k < 62 for k in keys), "an epoch: 60 distinct samples of 62"
    second = [k for b in [next(it) for _ in range(15)] for k in b]
    assert second != keys and len(set(second)) == 60, "the next epoch: another order"
    assert s.generated == 30
    s.request_switch(1, 32)
    nxt = [next(it) for _ in range(4)]
    assert all(k < KEY_STRIDE for k in nxt[0] + nxt[1]) and all(k >= KEY_STRIDE for k in nxt[2] + nxt[3])
    try:
        s.request_switch(0, 10)
        raise AssertionError("a switch into the past must be refused")
    except ValueError:
        pass
    assert epoch_order(62, 0, 0) != epoch_order(62, 0, 1) and epoch_order(62, 0, 1) == epoch_order(62, 0, 1)
    print("bench_common: ok")


if __name__ == "__main__":
    _selftest()
