# SPDX-License-Identifier: Apache-2.0
"""ZarrLoader through a real server child process and shared memory (CUDA IPC on a GPU).

``JvmLoaderTest`` runs the contract against the JVM server (``zarr-direct loader-serve``, found as
``zarr_direct._launch`` says: in a checkout, its ``./zarr-direct`` launcher, which builds the
project on first use). It skips when that server cannot be started, unless ``ZD_REQUIRE_LOADER=1``
(CI), which turns the skip into a failure. ``JvmCudaLoaderTest`` runs the same contract on a GPU
(CUDA IPC slots). There is no stand-in server: the tests run against the real one or not at all.

Every expected batch is computed here with numpy from the arrays written with zarr-python.
Run: ``/usr/bin/python3 -m unittest discover -s python/tests -v``.
"""

import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
if os.environ.get("ZD_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(HERE))  # the package in this checkout, not an installed one

import numpy as np  # noqa: E402
import torch  # noqa: E402

try:
    import zarr
    from numcodecs import Blosc, Zstd
except ImportError:  # e.g. the GPU machine's image: uncompressed stores written with numpy instead
    zarr = None
import zarr_v2_minimal  # noqa: E402

from zarr_direct import _launch  # noqa: E402
from zarr_direct.torch import ZarrLoader  # noqa: E402

T, C, H, W = 12, 3, 16, 24
LEVELS = 4


def make_store(root):
    """An ERA5-like Zarr v2 group: ``x4`` [time, channel, lat, lon] (zstd), ``t2m`` [time, lat, lon]
    with NaNs (blosc lz4), ``u`` [time, level, lat, lon] (blosc zstd, bit-shuffled), and ``bad``,
    whose grid does not match the others; uncompressed without zarr-python. Returns the arrays."""
    rng = np.random.default_rng(1234)
    data = {
        "x4": (rng.standard_normal((T, C, H, W)) * 10 + 280).astype(np.float32),
        "t2m": (rng.standard_normal((T, H, W)) * 5 + 270).astype(np.float32),
        "u": (rng.standard_normal((T, LEVELS, H, W)) * 3).astype(np.float32),
        "bad": np.zeros((T, H, W + 1), np.float32),
    }
    data["t2m"][3, 2, 5] = np.nan
    data["t2m"][7, 10, 0] = np.nan
    chunking = {"x4": ((1, C, H, W), ["time", "channel", "lat", "lon"]), "t2m": ((2, 8, 12), ["time", "lat", "lon"]),
                "u": ((1, 2, H, W), ["time", "level", "lat", "lon"]), "bad": ((T, H, W + 1), ["time", "lat", "lon"])}
    if zarr is None:
        for name, (chunks, dims) in chunking.items():
            zarr_v2_minimal.write_array(root, name, data[name], chunks, dims)
        return data
    g = zarr.open_group(root, mode="w", zarr_version=2)
    compressors = {"x4": Zstd(level=3), "t2m": Blosc(cname="lz4", clevel=5, shuffle=Blosc.SHUFFLE),
                   "u": Blosc(cname="zstd", clevel=3, shuffle=Blosc.BITSHUFFLE), "bad": Zstd(level=1)}
    for name, (chunks, dims) in chunking.items():
        compressor = compressors[name]
        a = g.create_dataset(name, shape=data[name].shape, chunks=chunks, dtype="<f4", compressor=compressor,
                             fill_value=float("nan"))
        a[...] = data[name]
        a.attrs["_ARRAY_DIMENSIONS"] = dims
    return data


def reference(data, variables, channels, starts, history, future, stride, crop=None, normalize=None, nan=None):
    """(inputs, targets) float32 [B, steps, C, h, w] for samples starting at ``starts``: the windows
    as the loader defines them, normalized as a float32 fused multiply-add with scale = 1/std and
    shift = -mean/std (computed exactly in float64, rounded once), NaNs replaced after it."""
    y0, y1, x0, x1 = crop if crop is not None else (0, H, 0, W)
    fields, scales, shifts = [], [], []
    for name in variables:
        a = data[name] if data[name].ndim == 4 else data[name][:, None]
        chosen = (channels or {}).get(name, list(range(a.shape[1])))
        fields.append(a[:, chosen, y0:y1, x0:x1])
        mean, std = (normalize or {}).get(name, (0.0, 1.0))
        mean = np.broadcast_to(np.asarray(mean, np.float64), (len(chosen),))
        std = np.broadcast_to(np.asarray(std, np.float64), (len(chosen),))
        scales.append((1.0 / std).astype(np.float32))
        shifts.append((-mean / std).astype(np.float32))
    stacked = np.concatenate(fields, axis=1)  # [T, C, h, w]
    scale = np.concatenate(scales)[None, :, None, None].astype(np.float64)
    shift = np.concatenate(shifts)[None, :, None, None].astype(np.float64)
    steps = [[s + k * stride for k in range(history + future)] for s in starts]
    x = stacked[np.asarray(steps)]  # [B, steps, C, h, w]
    y = (x.astype(np.float64) * scale + shift).astype(np.float32)
    if nan is not None:
        y = np.where(np.isnan(x), np.float32(nan), y)
    return y[:, :history], y[:, history:]


def documented_permutation(n, seed, epoch):
    """The epoch order that EpochSampler documents (SplitMix64 draws, Fisher-Yates from the top)."""
    m = (1 << 64) - 1

    def mix64(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        return z ^ (z >> 31)

    state = mix64(mix64(seed & m) ^ epoch)
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state = (state + 0x9E3779B97F4A7C15) & m
        j = (mix64(state) * (i + 1)) >> 64
        order[i], order[j] = order[j], order[i]
    return order


def collect(loader):
    """One pass: a list of (times, input, target), cloned to the CPU."""
    out = []
    for batch in loader:
        out.append((batch["time"].tolist(), batch["input"].cpu().clone(), batch["target"].cpu().clone()))
    return out


def shm_files():
    return sorted(glob.glob(f"/dev/shm/zd-{os.getpid()}-*"))


def process_state(pid):
    """'gone', or the state letter of /proc/PID/stat ('Z' for a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


class LoaderContract:
    """The tests; a subclass says which server runs them (``server_environment``)."""

    server_environment = {}
    device = "cpu"
    backend = "cpu"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="zd-loader-test-")
        cls.store = os.path.join(cls.tmp, "era5.zarr")
        cls.data = make_store(cls.store)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self._saved_env = {k: os.environ.get(k) for k in self.server_environment}
        for k, v in self.server_environment.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def tearDown(self):
        for k, v in self._saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self.assertEqual(shm_files(), [], "a /dev/shm file of this process is left")

    def loader(self, **kw):
        kw.setdefault("device", self.device)
        kw.setdefault("backend", self.backend)
        kw.setdefault("variables", ["x4"])
        loader = ZarrLoader(self.store, **kw)
        self.addCleanup(loader.close)
        return loader

    def assert_batches_equal(self, got, want_in, want_tg, exact=True, dtype=torch.float32):
        want_in = torch.from_numpy(np.ascontiguousarray(want_in)).to(dtype)
        want_tg = torch.from_numpy(np.ascontiguousarray(want_tg)).to(dtype)
        for g, w in ((got[1], want_in), (got[2], want_tg)):
            self.assertEqual(g.dtype, dtype)
            self.assertEqual(tuple(g.shape), tuple(w.shape))
            if g.numel() == 0:
                continue
            differ = f"values differ, by up to {float((g.float() - w.float()).abs().nan_to_num().max())}"
            if exact:
                self.assertTrue(torch.equal(torch.isnan(g.float()), torch.isnan(w.float())), "NaN positions differ")
                ok = torch.isnan(w.float())
                self.assertTrue(torch.equal(torch.where(ok, torch.zeros_like(g), g),
                                            torch.where(ok, torch.zeros_like(w), w)), differ)
            else:
                # One unit in the last place of the output type, for a float32 multiply-add whose
                # reference is rounded twice.
                rtol = {torch.float32: 2e-7, torch.float16: 2 ** -10, torch.bfloat16: 2 ** -7}[dtype]
                self.assertTrue(torch.allclose(g.float(), w.float(), rtol=rtol, atol=1e-6, equal_nan=True), differ)

    # -- contents ----------------------------------------------------------------------------

    def test_windows_channels_and_crop_match_numpy(self):
        variables, channels = ["x4", "t2m", "u"], {"u": [3, 0]}
        loader = self.loader(variables=variables, channels=channels, history=2, future=1, stride=2,
                             batch_size=3, time_range=(1, 12), crop=(2, 14, 3, 21))
        self.assertEqual(loader.channels, ["x4[0]", "x4[1]", "x4[2]", "t2m", "u[3]", "u[0]"])
        # span (2 + 1 - 1) * 2 + 1 = 5: first steps 1..7, 7 samples, batches of 3, 1, in time order.
        self.assertEqual(len(loader), 3)
        self.assertEqual(loader.input_shape, [3, 2, 6, 12, 18])
        self.assertEqual(loader.target_shape, [3, 1, 6, 12, 18])
        batches = collect(loader)
        self.assertEqual([b[0] for b in batches], [[1, 2, 3], [4, 5, 6], [7]])
        for times, inputs, targets in batches:
            want = reference(self.data, variables, channels, times, 2, 1, 2, crop=(2, 14, 3, 21))
            self.assert_batches_equal((times, inputs, targets), *want)

    def test_time_axis_by_name_and_open_ended_range(self):
        loader = self.loader(history=1, future=2, batch_size=4, time_range=(6, None), time_dim="time")
        batches = collect(loader)
        self.assertEqual([b[0] for b in batches], [[6, 7, 8, 9]])
        self.assert_batches_equal(batches[0], *reference(self.data, ["x4"], None, [6, 7, 8, 9], 1, 2, 1))

    def test_normalize_with_values(self):
        norm = {"x4": ([280.0, 281.0, 279.5], [10.0, 9.5, 11.0]), "t2m": (270.0, 5.0)}
        loader = self.loader(variables=["x4", "t2m"], history=2, future=1, batch_size=5, normalize=norm)
        for batch in collect(loader):
            want = reference(self.data, ["x4", "t2m"], None, batch[0], 2, 1, 1, normalize=norm)
            self.assert_batches_equal(batch, *want, exact=False)

    def test_normalize_with_a_stats_file(self):
        # Statistics for every channel of each variable; the loader takes the selected ones.
        stats = {"x4": ([280.0, 281.0, 279.5], [10.0, 9.5, 11.0]), "u": ([0.1, 0.2, 0.3, 0.4], [3.0, 2.9, 3.1, 3.2])}
        path = os.path.join(self.tmp, "stats.json")
        with open(path, "w") as f:  # the format zarr-direct stats writes (loader/.../stats/StatsFile.java)
            json.dump({"format": "zarr-direct-stats", "version": 1, "store": self.store, "time_range": [0, T],
                       "variables": {k: {"channels": list(range(len(m))), "mean": m, "std": s,
                                         "count": [T * H * W] * len(m), "nan_count": [0] * len(m)}
                                     for k, (m, s) in stats.items()}}, f)
        channels = {"u": [2, 1]}
        loader = self.loader(variables=["u", "x4"], channels=channels, history=1, future=1, batch_size=6,
                             normalize=path)
        used = {"u": ([0.3, 0.2], [3.1, 2.9]), "x4": stats["x4"]}
        for batch in collect(loader):
            want = reference(self.data, ["u", "x4"], channels, batch[0], 1, 1, 1, normalize=used)
            self.assert_batches_equal(batch, *want, exact=False)

    def test_half_and_bfloat16_round_to_nearest_even(self):
        for dtype in (torch.float16, torch.bfloat16):
            with self.subTest(dtype=dtype):
                loader = self.loader(variables=["x4", "t2m"], history=1, future=1, batch_size=11, dtype=dtype)
                (batch,) = collect(loader)
                want = reference(self.data, ["x4", "t2m"], None, batch[0], 1, 1, 1)
                self.assert_batches_equal(batch, *want, exact=True, dtype=dtype)
                norm = {"x4": (280.0, 10.0), "t2m": (270.0, 5.0)}
                loader = self.loader(variables=["x4", "t2m"], history=1, future=1, batch_size=11, dtype=dtype,
                                     normalize=norm)
                (batch,) = collect(loader)
                want = reference(self.data, ["x4", "t2m"], None, batch[0], 1, 1, 1, normalize=norm)
                self.assert_batches_equal(batch, *want, exact=False, dtype=dtype)

    def test_nan_kept_or_replaced_in_output_units(self):
        norm = {"t2m": (270.0, 5.0)}
        kept = collect(self.loader(variables=["t2m"], history=1, future=0, batch_size=12, normalize=norm))
        self.assertEqual(int(torch.isnan(kept[0][1]).sum()), 2)
        replaced = collect(self.loader(variables=["t2m"], history=1, future=0, batch_size=12, normalize=norm,
                                       nan=-9.0))
        want = reference(self.data, ["t2m"], None, replaced[0][0], 1, 0, 1, normalize=norm, nan=-9.0)
        self.assert_batches_equal(replaced[0], *want, exact=False)
        self.assertEqual(float(replaced[0][1][3, 0, 0, 2, 5]), -9.0)

    # -- order ------------------------------------------------------------------------------------

    def test_each_epoch_is_a_permutation_of_the_samples(self):
        loader = self.loader(history=2, future=1, batch_size=4, shuffle=True, seed=7, drop_last=False)
        all_samples = list(range(T - 2))
        orders = []
        for epoch in (0, 1, 0):
            loader.set_epoch(epoch)
            times = [t for b in collect(loader) for t in b[0]]
            self.assertEqual(sorted(times), all_samples, f"epoch {epoch} is not a permutation")
            orders.append(times)
        self.assertNotEqual(orders[0], orders[1], "epochs 0 and 1 have the same order")
        self.assertEqual(orders[0], orders[2], "epoch 0 twice gave two orders")
        other = self.loader(history=2, future=1, batch_size=4, shuffle=True, seed=7, drop_last=False)
        self.assertEqual([t for b in collect(other) for t in b[0]], orders[0], "same seed, same epoch, another order")
        plain = self.loader(history=2, future=1, batch_size=4, shuffle=False)
        self.assertEqual([t for b in collect(plain) for t in b[0]], all_samples)

    def test_the_epoch_order_is_the_documented_permutation(self):
        # 10 samples over 3 ranks: 4 each (positions rank + 3k, wrapping to the start of the order).
        for rank in range(3):
            loader = self.loader(history=2, future=1, batch_size=3, shuffle=True, seed=12345, drop_last=False,
                                 rank=rank, world_size=3)
            loader.set_epoch(2)
            order = documented_permutation(10, 12345, 2)
            want = [order[(rank + 3 * k) % 10] for k in range(4)]
            self.assertEqual([b[0] for b in collect(loader)], [want[:3], want[3:]], f"rank {rank}")

    def test_rank_shards_are_disjoint_equal_and_cover_the_epoch(self):
        # 8 samples (steps 0..9, span 3), 2 ranks, batches of 2: no padding or dropping either way.
        for shuffle, drop_last in ((True, False), (True, True), (False, False)):
            with self.subTest(shuffle=shuffle, drop_last=drop_last):
                shards = []
                for rank in (0, 1):
                    loader = self.loader(history=2, future=1, batch_size=2, time_range=(0, 10), shuffle=shuffle,
                                         seed=3, drop_last=drop_last, rank=rank, world_size=2)
                    loader.set_epoch(5)
                    batches = collect(loader)
                    self.assertEqual(len(batches), len(loader))
                    shards.append([t for b in batches for t in b[0]])
                    for b in batches:
                        self.assert_batches_equal(b, *reference(self.data, ["x4"], None, b[0], 2, 1, 1))
                self.assertEqual(len(shards[0]), len(shards[1]))
                self.assertEqual(set(shards[0]) & set(shards[1]), set())
                self.assertEqual(sorted(shards[0] + shards[1]), list(range(8)))

    def test_rank_and_world_size_default_to_the_torchrun_variables(self):
        saved = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE")}
        os.environ.update(RANK="1", WORLD_SIZE="2")
        try:
            loader = self.loader(history=2, future=1, batch_size=2, time_range=(0, 10))
        finally:
            for k, v in saved.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        state = loader.state_dict()
        self.assertEqual((state["rank"], state["world_size"]), (1, 2))
        self.assertEqual(len(loader), 2)

    def test_resume_yields_the_rest_of_the_uninterrupted_run(self):
        options = dict(history=2, future=1, batch_size=2, shuffle=True, seed=11, drop_last=False)
        full = self.loader(**options)
        full.set_epoch(3)
        want = collect(full)
        self.assertEqual(len(want), 5)
        first = self.loader(**options)
        first.set_epoch(3)
        it = iter(first)
        # each batch is copied before the next: its slot is reused once the next one is asked for
        got = []
        for _ in range(2):
            b = next(it)
            got.append((b["time"].tolist(), b["input"].cpu().clone(), b["target"].cpu().clone()))
        state = first.state_dict()
        self.assertEqual((state["epoch"], state["position"]), (3, 2))
        first.close()
        resumed = self.loader(**options)
        resumed.load_state_dict(state)
        resumed.set_epoch(3)  # the usual top of a resumed epoch loop keeps the position
        got += collect(resumed)
        self.assertEqual([g[0] for g in got], [w[0] for w in want])
        for g, w in zip(got, want):
            self.assertTrue(torch.equal(g[1], w[1]) and torch.equal(g[2], w[2]))
        self.assertEqual(resumed.state_dict()["position"], 0, "a finished pass starts the epoch again")
        self.assertEqual(resumed.state_dict()["epoch"], 3, "the epoch is not advanced by the loader")

    def test_a_state_from_another_order_is_refused(self):
        loader = self.loader(history=2, future=1, batch_size=2, shuffle=True, seed=1)
        other = self.loader(history=2, future=1, batch_size=2, shuffle=True, seed=2)
        with self.assertRaisesRegex(ValueError, "seed"):
            loader.load_state_dict(other.state_dict())

    def test_breaking_out_and_iterating_again_starts_the_epoch_over(self):
        loader = self.loader(history=1, future=1, batch_size=3, shuffle=True, seed=5, prefetch=2)
        want = collect(loader)
        it = iter(loader)
        next(it)
        next(it)
        again = collect(loader)  # stops the pass above first
        self.assertEqual([b[0] for b in again], [b[0] for b in want])
        with self.assertRaises(RuntimeError):
            next(it)
        for _ in loader:
            break
        self.assertEqual([b[0] for b in collect(loader)], [b[0] for b in want])

    # -- errors -----------------------------------------------------------------------------------

    def test_unknown_variable_is_a_value_error_naming_it(self):
        with self.assertRaisesRegex(ValueError, "nosuchvar"):
            self.loader(variables=["x4", "nosuchvar"])

    def test_a_window_longer_than_the_time_range_is_a_value_error(self):
        with self.assertRaises(ValueError):
            self.loader(history=4, future=3, time_range=(0, 6))

    def test_mismatched_shapes_are_a_value_error_naming_both(self):
        with self.assertRaises(ValueError) as caught:
            self.loader(variables=["x4", "bad"])
        self.assertIn("bad", str(caught.exception))
        self.assertIn("x4", str(caught.exception))

    def test_bad_options_fail_before_any_server_starts(self):
        with self.assertRaisesRegex(ValueError, "history"):
            ZarrLoader(self.store, ["x4"], history=0, device=self.device)
        with self.assertRaisesRegex(ValueError, "channels"):
            ZarrLoader(self.store, ["x4"], channels={"u": [0]}, device=self.device)

    def test_a_corrupt_chunk_raises_in_python_naming_the_variable(self):
        broken = os.path.join(self.tmp, "broken.zarr")
        shutil.copytree(self.store, broken, dirs_exist_ok=True)
        with open(os.path.join(broken, "t2m", "2.0.0"), "wb") as f:
            f.write(b"\x00 not a blosc frame " * 4)
        loader = ZarrLoader(broken, ["t2m"], history=1, future=0, batch_size=1, device=self.device,
                            backend=self.backend)
        self.addCleanup(loader.close)
        with self.assertRaises(RuntimeError) as caught:
            collect(loader)
        self.assertNotIsInstance(caught.exception, ValueError)
        self.assertIn("t2m", str(caught.exception))
        # The server is idle again: another pass starts (and fails the same way), close works.
        with self.assertRaises(RuntimeError):
            collect(loader)
        loader.close()

    # -- lifetime ---------------------------------------------------------------------------------

    def test_no_shared_memory_file_is_left_while_open_or_after_close(self):
        with self.loader(history=1, future=1, batch_size=2) as loader:
            self.assertEqual(shm_files(), [], "slot files must be unlinked once mapped")
            pid = loader.server_pid
            next(iter(loader))
        self.assertEqual(shm_files(), [])
        self.assertEqual(process_state(pid), "gone")
        with self.assertRaises(RuntimeError):
            iter(loader)

    def test_a_killed_server_raises_in_python_and_leaves_nothing(self):
        loader = self.loader(history=1, future=1, batch_size=1, prefetch=2)
        it = iter(loader)
        next(it)
        pid = loader.server_pid
        os.kill(pid, signal.SIGKILL)
        started = time.monotonic()
        with self.assertRaises(RuntimeError) as caught:
            for _ in it:
                pass
        self.assertLess(time.monotonic() - started, 30)
        self.assertIn(str(pid), str(caught.exception))
        self.assertEqual(process_state(pid), "gone", "the killed server is not reaped")
        self.assertEqual(shm_files(), [])
        with self.assertRaisesRegex(RuntimeError, "new ZarrLoader"):
            iter(loader)
        loader.close()

    def test_garbage_collection_ends_the_server(self):
        loader = ZarrLoader(self.store, ["x4"], history=1, future=1, device=self.device, backend=self.backend)
        pid = loader.server_pid
        del loader
        import gc
        gc.collect()
        deadline = time.monotonic() + 20
        while process_state(pid) != "gone" and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(process_state(pid), "gone")


class CudaContract(LoaderContract):
    """The same batches on a CUDA device, and that closing gives the device memory back."""

    device = "cuda"
    backend = "auto"

    def setUp(self):
        if not torch.cuda.is_available():
            self.skipTest("no CUDA device (torch.cuda.is_available() is False)")
        super().setUp()

    def test_cuda_batches_live_on_the_device(self):
        loader = self.loader(variables=["x4", "t2m"], history=2, future=1, batch_size=3, dtype=torch.bfloat16)
        for batch in loader:
            self.assertEqual(batch["input"].device.type, "cuda")
            self.assertEqual(batch["time"].device.type, "cpu")
            want = reference(self.data, ["x4", "t2m"], None, batch["time"].tolist(), 2, 1, 1)
            got = (batch["time"].tolist(), batch["input"].cpu(), batch["target"].cpu())
            self.assert_batches_equal(got, *want, dtype=torch.bfloat16)

    def test_close_gives_the_device_memory_back(self):
        def one_loader():
            with self.loader(history=2, future=1, batch_size=4, prefetch=4) as loader:
                total = sum(float(b["input"].float().sum()) for b in loader)
                self.assertTrue(np.isfinite(total))

        one_loader()  # torch loads its kernels (lazily) on first use: not a leak
        torch.cuda.synchronize()
        free_before = torch.cuda.mem_get_info()[0]
        for _ in range(3):
            one_loader()
        torch.cuda.synchronize()
        free_after = torch.cuda.mem_get_info()[0]
        # The free memory of the whole device: a server still alive (its CUDA context alone is
        # hundreds of MiB) or slots still mapped here would show.
        self.assertLess(free_before - free_after, 32 << 20, "device memory was not given back")
        loader = self.loader(history=2, future=1, batch_size=4)
        self.assertEqual(len(collect(loader)), len(loader))


def _loader_serve_unavailable():
    """None when ``loader-serve`` starts here, else why not."""
    env = dict(os.environ)
    env.pop("ZARR_DIRECT_SERVER_COMMAND", None)
    saved = os.environ.pop("ZARR_DIRECT_SERVER_COMMAND", None)
    try:
        launch = _launch.find_launch()
    except RuntimeError as e:
        return str(e)
    finally:
        if saved is not None:
            os.environ["ZARR_DIRECT_SERVER_COMMAND"] = saved
    env.update(launch.env)
    try:
        r = subprocess.run(launch.command(["help", "loader-serve"]), env=env, capture_output=True, text=True,
                           timeout=1800, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{launch.description}: {e}"
    if r.returncode != 0:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-8:])
        return f"{launch.description} help loader-serve exited {r.returncode}:\n{tail}"
    return None


class _JvmServer:
    server_environment = {"ZARR_DIRECT_SERVER_COMMAND": None}
    _unavailable = "not probed"

    @classmethod
    def setUpClass(cls):
        if _JvmServer._unavailable == "not probed":
            _JvmServer._unavailable = _loader_serve_unavailable()
        if _JvmServer._unavailable is not None:
            message = f"loader-serve not available: {_JvmServer._unavailable}"
            if os.environ.get("ZD_REQUIRE_LOADER") == "1":
                raise AssertionError(message + " (ZD_REQUIRE_LOADER=1 makes this a failure)")
            raise unittest.SkipTest(message)
        super().setUpClass()



class JvmLoaderTest(_JvmServer, LoaderContract, unittest.TestCase):
    pass


class JvmCudaLoaderTest(_JvmServer, CudaContract, unittest.TestCase):
    pass



class JvmOpenClLoaderTest(_JvmServer, LoaderContract, unittest.TestCase):
    """Contents and output types through the OpenCL backend (PoCL in CI): decoded and gathered on the
    OpenCL device, then copied into the shared-memory slots. Skips when the server finds no OpenCL
    device, unless ``ZD_REQUIRE_OPENCL=1``."""

    backend = "opencl"

    def setUp(self):
        super().setUp()
        try:
            self.loader(history=1, future=0).close()
        except (RuntimeError, ValueError) as e:
            if 'backend "opencl" is unavailable' in str(e) and os.environ.get("ZD_REQUIRE_OPENCL") != "1":
                self.skipTest(f"no OpenCL device: {e}")
            raise


# Each test starts a JVM that compiles the OpenCL kernels: two tests cover what differs on OpenCL
# (the device decode, the gather kernel and its conversions, the copy into the slot).
for _name in [n for n in vars(LoaderContract) if n.startswith("test_")]:
    if _name not in ("test_windows_channels_and_crop_match_numpy", "test_half_and_bfloat16_round_to_nearest_even"):
        setattr(JvmOpenClLoaderTest, _name, None)
