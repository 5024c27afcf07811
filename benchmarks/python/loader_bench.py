#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Training-loader benchmark (issue #22, item 3): the same windows of the same stores, side by side,
delivered to one GPU by
  (a) torch's DataLoader over a TensorStore Dataset (what users run today): spawn workers (8 and
      16), pin_memory, persistent workers, then .cuda(non_blocking=True); also with 16 workers to
      pinned host memory only (no copy), the figure the CPU path is held against;
  (b) zarr_direct.torch.ZarrLoader(device="cuda"): decoded and assembled on the GPU;
  (c) ZarrLoader(device="cpu", backend="cpu"): the host path, no copy;
and `zarr-direct bench`'s whole-array device rate for the same store (run with --bench-cmd, or
given with --bench-gbps).

Per configuration, after a warm-up (start-up time is reported separately, never in a rate):
  throughput  batches as fast as they come; GB/s of input + target tensors delivered (on the GPU:
              after an event on the consumer's stream has completed), samples/s;
  step        with a simulated training step (bf16 matmul loop calibrated with CUDA events to
              --step-ms): the share of wall time spent waiting for data, i.e. from the end of step
              k (its work completed on the GPU) to batch k+1 usable on the GPU.
Epoch boundaries fall inside the timed runs (an epoch of T=64 has 15 batches of 4): a loader pays
for starting each epoch, as in training.

    python3 benchmarks/python/loader_bench.py --stores-dir /tmp/zdloader [--dry-run]

Output: a markdown table on stdout and --json with every number, the GPU, versions and the command.
--dry-run prints the plan and an estimate of the run time without TensorStore, CUDA or zarr_direct.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_common as bc  # noqa: E402

GB = 1e9


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stores-dir", default="/tmp/zdloader", help="folder of make_era5_stores.py's stores")
    ap.add_argument("--layouts", default="zstd,sharded,blosc-v2",
                    help="comma-separated, of: " + ", ".join(bc.LAYOUTS) + " (default: zstd,sharded,blosc-v2)")
    ap.add_argument("--history", type=int, default=2)
    ap.add_argument("--future", type=int, default=1)
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--batch-sizes", default="4", help="comma-separated, e.g. 4,8 (default 4)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--configs", default="bench,zd-cuda,zd-cpu,ts",
                    help="comma-separated of: bench (zarr-direct bench, whole array), zd-cuda, zd-cpu, ts "
                         "(TensorStore DataLoader, --workers; host-only run with --host-workers)")
    ap.add_argument("--workers", default="16,8", help="DataLoader worker counts (default 16,8)")
    ap.add_argument("--host-workers", default="16",
                    help="worker counts also timed to pinned host memory without the copy ('' for none)")
    ap.add_argument("--prefetch-factor", type=int, default=2, help="DataLoader prefetch_factor (default 2)")
    ap.add_argument("--ts-normalize", choices=["worker", "gpu"], default="worker",
                    help="baseline normalizes in the workers (numpy, default) or on the GPU after the copy")
    ap.add_argument("--zd-prefetch", type=int, default=4, help="ZarrLoader prefetch (default 4)")
    ap.add_argument("--zd-backend", default="auto", help="ZarrLoader backend for zd-cuda (default auto)")
    ap.add_argument("--warmup", type=int, default=3,
                    help="untimed batches before a ZarrLoader's timed runs (default 3); a DataLoader warms up "
                         "with one round of its workers")
    ap.add_argument("--batches", type=int, default=200,
                    help="a timed run ends after this many batches (default 200) ...")
    ap.add_argument("--seconds", type=float, default=5.0,
                    help="... or at the first batch after this many seconds (default 5); a DataLoader's run at "
                         "the end of a round of its workers")
    ap.add_argument("--step-ms", type=float, default=50.0, help="simulated training step; 0: no step runs")
    ap.add_argument("--bench-cmd", default="",
                    help="command prefix of the CLI, e.g. 'bash .device/run main dev.zarrdirect.cli.ZarrDirectCli'; "
                         "runs `bench STORE/x --backend cuda` per store")
    ap.add_argument("--bench-passes", type=int, default=3)
    ap.add_argument("--bench-gbps", default="", help="given rates instead of running bench: zstd=30.1,sharded=38")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cpu: a smoke test without a GPU (no copy, no step runs, no zd-cuda)")
    ap.add_argument("--no-check", action="store_true",
                    help="skip comparing one ZarrLoader sample with the TensorStore window")
    ap.add_argument("--drop-caches", action="store_true",
                    help="drop the page cache before each configuration (root only; default: stores stay cached)")
    ap.add_argument("--page-cache-note", default="", help="how the caller left the page cache (recorded)")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds: configurations that would start later are skipped (0: none)")
    ap.add_argument("--json", default="loader-bench.json")
    ap.add_argument("--command", default="", help="the outer command, recorded in the JSON")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and an estimate, run nothing")
    ap.add_argument("--assume-shape", default="64,16,721,1440",
                    help="for --dry-run: the shape of stores that are not written yet")
    a = ap.parse_args(argv)
    a.layouts = [s for s in a.layouts.split(",") if s]
    for lay in a.layouts:
        if lay not in bc.LAYOUTS:
            ap.error(f"unknown layout {lay!r}")
    a.batch_sizes = [int(s) for s in a.batch_sizes.split(",") if s]
    a.workers = [int(s) for s in a.workers.split(",") if s]
    a.host_workers = [int(s) for s in a.host_workers.split(",") if s]
    a.configs = [s for s in a.configs.split(",") if s]
    a.assume_shape = [int(s) for s in a.assume_shape.split(",")]
    for c in a.configs:
        if c not in ("bench", "zd-cuda", "zd-cpu", "ts"):
            ap.error(f"unknown configuration {c!r}")
    a.bench_given = {}
    for kv in [s for s in a.bench_gbps.split(",") if s]:
        k, _, v = kv.partition("=")
        a.bench_given[k.strip()] = float(v)
    return a


# ---------------------------------------------------------------------------------------------
# plan

def make_plan(a, assume=False):
    stores = []
    for lay in a.layouts:
        path = bc.store_path(a.stores_dir, lay)
        shape = bc.read_shape(path)
        assumed = shape is None and assume
        if assumed:
            shape = list(a.assume_shape)
        t = shape[0] if shape else None
        w = bc.Windows(a.history, a.future, a.stride, 0, t or 0)
        stores.append({"layout": lay, "path": path, "stats": bc.stats_path(a.stores_dir, lay),
                       "description": bc.LAYOUTS[lay][0], "shape": shape, "windows": w, "assumed": assumed,
                       "step_bytes": int(np.prod(shape[1:])) * 4 if shape else None})
    return stores


def estimate(a, stores):
    """Rough seconds of the run, at assumed rates: TensorStore DataLoader 1.5 GB/s (issue #22 saw
    1.1-1.9 on an H100), ZarrLoader 20 GB/s on cuda and 8 GB/s on cpu; 10 s to spawn a pool of
    workers, 3 s to start a JVM. The DataLoader's runs are whole rounds of its workers, and the
    last run of each store also takes the batches in flight (prefetch_factor rounds)."""
    total = 15.0  # imports, calibration
    rows = []
    steps = 1 if (a.step_ms > 0 and a.device == "cuda") else 0
    known = [s for s in stores if s["shape"]]
    for b in a.batch_sizes:
        for s in known:
            nbytes = b * (a.history + a.future) * s["step_bytes"]

            def run(rate):
                per = nbytes / (rate * GB)
                return a.warmup * per + min(max(a.seconds, per), a.batches * per)
            if "zd-cuda" in a.configs and a.device == "cuda":
                rows.append((s["layout"], b, "zd-cuda", 3 + run(20) * (1 + steps)))
            if "zd-cpu" in a.configs:
                rows.append((s["layout"], b, "zd-cpu", 3 + run(8)))
        if "ts" in a.configs:
            for w in a.workers:
                nbytes = b * (a.history + a.future) * known[0]["step_bytes"] if known else 0
                round_s = w * nbytes / (1.5 * GB)
                per_run = max(1, math.ceil(a.seconds / max(round_s, 1e-9))) * round_s
                phases = (1 if a.device == "cuda" else 0) + steps + (w in a.host_workers or a.device != "cuda")
                for i, s in enumerate(known):
                    last = max(per_run, a.prefetch_factor * round_s) if i < len(known) - 1 else per_run
                    rows.append((s["layout"], b, f"ts{w}", round_s + (phases - 1) * per_run + last
                                 + (10 if i == 0 else 0)))
    for s in known:
        if "bench" in a.configs and a.bench_cmd and s["layout"] not in a.bench_given:
            logical = s["shape"][0] * s["step_bytes"]
            rate = 4.5 if s["layout"] == "blosc-v2" else 25
            rows.append((s["layout"], "-", "bench", 4 + (a.bench_passes + 1) * logical / (rate * GB)))
    total += sum(r[3] for r in rows)
    return total, rows


def print_plan(a, stores):
    print("plan:")
    for s in stores:
        w = s["windows"]
        if not s["shape"]:
            print(f"  {s['layout']:9s} {s['path']}: not there yet (make_era5_stores.py writes it)")
            continue
        print(f"  {s['layout']:9s} {s['path']} {s['shape']}{' (assumed: not written yet)' if s['assumed'] else ''} "
              f"({s['description']})")
        print(f"            windows history={w.history} future={w.future} stride={w.stride}: "
              f"{w.samples} samples; stats {s['stats']}")
        for b in a.batch_sizes:
            nbytes = b * (a.history + a.future) * s["step_bytes"]
            print(f"            batch {b}: {w.batches(b)} batches/epoch, {nbytes / GB:.3f} GB input+target a batch")
    print(f"  configurations: {', '.join(a.configs)}; DataLoader workers {a.workers} (host-only also {a.host_workers}), "
          f"prefetch_factor {a.prefetch_factor}, spawn, pin_memory, persistent; ZarrLoader prefetch {a.zd_prefetch}")
    print(f"  timed runs: {a.seconds:g} s or {a.batches} batches, after {a.warmup} warm-up batches (DataLoader: "
          f"whole rounds of its workers, one round of warm-up); "
          + (f"step runs with a {a.step_ms:g} ms matmul step" if a.step_ms > 0 else "no step runs"))
    total, rows = estimate(a, stores)
    for lay, b, cfg, sec in rows:
        print(f"    ~{sec:5.1f} s  {lay} B={b} {cfg}")
    print(f"  estimated: ~{total:.0f} s (assumed rates: TensorStore 1.5 GB/s, ZarrLoader 20 GB/s cuda, 8 GB/s cpu)")


# ---------------------------------------------------------------------------------------------
# environment

def versions():
    from importlib import metadata
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for p in ("torch", "tensorstore", "numpy", "cupy-cuda13x", "cupy", "xarray"):
        try:
            out[p] = metadata.version(p)
        except Exception:
            pass
    try:
        import torch
        out["torch_cuda"] = torch.version.cuda
    except Exception:
        pass
    return out


def host_info():
    info = {"cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"model name\s*:\s*(.*)", f.read())
            info["cpu"] = m.group(1).strip() if m else None
        with open("/proc/meminfo") as f:
            mem = dict(line.split(":", 1) for line in f)
            info["mem_total"] = mem["MemTotal"].strip()
            info["cached_at_start"] = mem["Cached"].strip()
    except Exception:
        pass
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version,clocks.max.sm",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        info["nvidia_smi"] = r.stdout.strip()
    except Exception:
        pass
    return info


def drop_caches():
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------
# timing

class Clock:
    """Waits until the work queued on the current CUDA stream has completed (an event polled with
    short sleeps, so the GIL stays free for the DataLoader's pin-memory thread), or nothing on CPU."""

    def __init__(self, device):
        self.cuda = device == "cuda"
        if self.cuda:
            import torch
            self.torch = torch

    def sync(self):
        if not self.cuda:
            return
        ev = self.torch.cuda.Event()
        ev.record()
        while not ev.query():
            time.sleep(50e-6)


class Feed:
    """Batches over successive epochs: make_iter(epoch) gives one epoch's iterator. `count` counts
    batches since the current iterator started; `new_epoch` says the last batch opened an epoch."""

    def __init__(self, make_iter):
        self.make_iter = make_iter
        self.epoch = 0
        self.count = 0
        self.new_epoch = True
        self.it = make_iter(0)

    def next(self):
        opened = self.count == 0
        for _ in range(3):
            try:
                batch = next(self.it)
                self.count += 1
                self.new_epoch = opened
                return batch
            except StopIteration:
                self.epoch += 1
                self.count = 0
                opened = True
                self.it = self.make_iter(self.epoch)
        raise RuntimeError("three epochs in a row gave no batch")


def nbytes(t):
    return t.numel() * t.element_size()


def warm(feed, deliver, clock, n, step=None):
    for _ in range(n):
        x, y = deliver(feed.next())
        if step is not None:
            step(x, y)
        clock.sync()


def timed(feed, deliver, clock, a, step=None, rounds=1, switch=None):
    """One timed run. Without `step`: batches as fast as they come (GB/s, samples/s). With `step`:
    after each batch is usable on the GPU, one simulated step; waiting = from the end of a step
    (its work completed) to the next batch usable. Ends after --seconds or --batches, at a multiple
    of `rounds` batches (the DataLoader's workers deliver in round-robin; whole rounds keep the
    figure free of where the window cuts a round). `switch` = (sampler, next store, seconds a
    round): in a store's last run, the stream moves to the next store once the batches in flight
    fill the rest of the run, and the run ends exactly where this store's batches do."""
    end_at = None
    gaps, eps, rows_l, bytes_l = [], [], [], []
    computes = []
    t0 = tp = time.perf_counter()
    while True:
        # batches taken by this run: feed.count starts again at each ZarrLoader epoch, so on a
        # store of a few batches an epoch, counting with it could stay at or below zero forever
        n = len(gaps)
        el = tp - t0
        if end_at is not None:
            if feed.count >= end_at:
                break
        elif n % rounds == 0:
            if switch is not None:
                sampler, nxt, round_s = switch
                inflight = (sampler.generated - feed.count) / rounds * (round_s or 0)
                if el + inflight >= a.seconds or n + sampler.generated - feed.count >= a.batches:
                    at = max(-(-sampler.generated // rounds) * rounds, feed.count + rounds)
                    sampler.request_switch(nxt, at)
                    end_at = at
                    continue
            elif n > 0 and (el >= a.seconds or n >= a.batches):
                break
        t_ask = time.perf_counter()
        x, y = deliver(feed.next())
        t_got = time.perf_counter()
        clock.sync()
        t_have = time.perf_counter()
        gaps.append(t_have - tp)
        eps.append(feed.new_epoch)
        rows_l.append(x.shape[0])
        bytes_l.append(nbytes(x) + nbytes(y))
        tp = t_have
        if step is not None:
            step(x, y)
            clock.sync()
            tp = time.perf_counter()
            computes.append(tp - t_have)
        if TRACE:  # where each batch's time went, as it happens (ZD_BENCH_TRACE=1)
            print(f"trace batch {len(gaps)} epoch-start {feed.new_epoch}: message {t_got - t_ask:.3f} s, usable "
                  f"{t_have - t_got:.3f} s, step {tp - t_have:.3f} s", file=sys.stderr, flush=True)
    el = tp - t0
    n = len(gaps)
    total, rows = sum(bytes_l), sum(rows_l)
    # the same without the batches that opened an epoch and the time waited for them
    keep = [i for i in range(n) if not eps[i]]
    el_in = el - sum(gaps[i] for i in range(n) if eps[i])
    r = {"batches": n, "seconds": el, "rounds_of": rounds, "gbps": total / el / GB, "samples_per_s": rows / el,
         "batch_bytes": total // max(1, n), "epoch_starts": n - len(keep)}
    if n - len(keep) and el_in > 0:
        r["gbps_within_epochs"] = sum(bytes_l[i] for i in keep) / el_in / GB
    w = sorted(gaps)
    if step is None:
        r.update({"batch_ms_median": 1e3 * statistics.median(gaps), "batch_ms_max": 1e3 * w[-1]})
    else:
        r.update({"wait_share": sum(gaps) / el, "wait_ms_mean": 1e3 * sum(gaps) / n,
                  "wait_ms_median": 1e3 * w[n // 2], "wait_ms_p90": 1e3 * w[min(n - 1, int(0.9 * n))],
                  "wait_ms_max": 1e3 * w[-1], "step_ms_mean": 1e3 * sum(computes) / n})
        if n - len(keep):
            wk = sum(gaps[i] for i in keep)
            r["wait_share_within_epochs"] = wk / (wk + sum(computes[i] for i in keep))
    return r


TRACE = os.environ.get("ZD_BENCH_TRACE") == "1"


class Step:
    """A simulated training step: reads the batch once, then n bf16 8192^3 matmuls, n calibrated
    with CUDA events so that the step takes about `ms`."""

    def __init__(self, ms):
        import torch
        self.torch = torch
        g = torch.Generator(device="cuda")
        g.manual_seed(1)
        n = 8192
        self.a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
        self.b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
        self.c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(5):
            torch.matmul(self.a, self.b, out=self.c)
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        per = []
        for _ in range(3):
            s.record()
            for _ in range(10):
                torch.matmul(self.a, self.b, out=self.c)
            e.record()
            e.synchronize()
            per.append(s.elapsed_time(e) / 10)
        self.matmul_ms = statistics.median(per)
        self.tflops = 2 * n ** 3 / (self.matmul_ms * 1e-3) / 1e12
        self.n = max(1, round(ms / self.matmul_ms))
        self.sink = torch.zeros((), device="cuda")
        x = torch.randn(4, 2, 16, 64, 64, device="cuda")
        times = []
        for _ in range(5):
            s.record()
            self(x, x)
            e.record()
            e.synchronize()
            times.append(s.elapsed_time(e))
        self.step_ms = statistics.median(times)

    def __call__(self, x, y):
        acc = x.sum(dtype=self.torch.float32) + y.sum(dtype=self.torch.float32)
        for _ in range(self.n):
            self.torch.matmul(self.a, self.b, out=self.c)
        self.sink = acc + self.c[0, 0].float()


# ---------------------------------------------------------------------------------------------
# configurations

def run_bench_cli(a, s):
    cmd = shlex.split(a.bench_cmd) + ["bench", os.path.join(s["path"], bc.VARIABLE), "--backend", "cuda",
                                      "--passes", str(a.bench_passes), "--batch", "32"]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    m = re.search(r"^result:\s+cuda\s+median ([0-9.]+) GB/s", out, re.M)
    res = {"command": shlex.join(cmd), "exit": r.returncode, "seconds": time.perf_counter() - t0,
           "output": out[-4000:]}
    if m:
        res["gbps"] = float(m.group(1))
    else:
        res["error"] = f"no result line (exit {r.returncode}): " + out.strip()[-400:]
    return res


def zd_available():
    try:
        from zarr_direct.torch import ZarrLoader  # noqa: F401
        import zarr_direct
        return None, getattr(zarr_direct, "__file__", None)
    except Exception as e:  # report, and measure the baseline alone
        return f"{type(e).__name__}: {e}", None


def run_zd(a, s, b, device, backend, clock, step, check_store):
    from zarr_direct.torch import ZarrLoader
    w = s["windows"]
    res = {"device": device, "backend_requested": backend, "prefetch": a.zd_prefetch}
    t0 = time.perf_counter()
    loader = ZarrLoader(s["path"], variables=[bc.VARIABLE], history=a.history, future=a.future, stride=a.stride,
                        batch_size=b, shuffle=True, seed=a.seed, drop_last=True, rank=0, world_size=1,
                        normalize=s["stats"], device=device, prefetch=a.zd_prefetch, backend=backend)
    try:
        res["open_s"] = time.perf_counter() - t0
        res["len"] = len(loader)
        res["len_expected"] = w.batches(b)
        for attr in ("backend", "info", "opened"):  # whatever the loader tells about itself
            v = getattr(loader, attr, None)
            if isinstance(v, (str, int, float, dict, list)):
                res["loader_" + attr] = v

        def make_iter(epoch):
            loader.set_epoch(epoch)
            return iter(loader)

        feed = Feed(make_iter)
        first = feed.next()
        x, y = first["input"], first["target"]
        clock.sync()
        res["start_s"] = time.perf_counter() - t0  # JVM start, open, first batch on the device
        res["first_batch_s"] = res["start_s"] - res["open_s"]
        want = "cuda" if device == "cuda" else "cpu"
        if x.device.type != want or y.device.type != want:
            raise RuntimeError(f"batch tensors on {x.device}/{y.device}, expected {want}")
        exp_in = [b, a.history, s["shape"][1], s["shape"][2], s["shape"][3]]
        if list(x.shape) != exp_in or list(y.shape) != [b, a.future] + exp_in[2:]:
            raise RuntimeError(f"batch shapes {list(x.shape)} / {list(y.shape)}, expected {exp_in} and future {a.future}")
        if check_store is not None:
            check_store.append({"layout": s["layout"], "device": device, "time": int(first["time"][0]),
                                "input": x[0].detach().float().cpu().clone(), "target": y[0].detach().float().cpu().clone()})

        def deliver(batch):
            return batch["input"], batch["target"]

        warm(feed, deliver, clock, a.warmup)
        res["throughput"] = timed(feed, deliver, clock, a)
        if step is not None:
            warm(feed, deliver, clock, 1, step)
            res["step"] = timed(feed, deliver, clock, a, step=step)
    finally:
        t1 = time.perf_counter()
        loader.close()
        res["close_s"] = time.perf_counter() - t1
    return res


def check_samples(a, stores, samples):
    """Each kept ZarrLoader sample against the TensorStore window normalized in float32 numpy."""
    out = []
    by = {s["layout"]: s for s in stores}
    for smp in samples:
        s = by[smp["layout"]]
        w = s["windows"]
        ds = bc.TsWindows([bc.array_spec(s["path"], s["layout"])], [bc.read_stats(s["stats"])], w)
        ref = ds.read_window(0, smp["time"] - w.t0)
        got = np.concatenate([smp["input"].numpy(), smp["target"].numpy()])
        diff = np.abs(got.astype(np.float64) - ref)
        rel = float(np.linalg.norm(got.astype(np.float64) - ref) / max(1e-30, np.linalg.norm(ref)))
        ok = bool(np.isfinite(got).all() and rel < 1e-4)  # float32 normalization in another order: ~1e-6
        out.append({"layout": smp["layout"], "device": smp["device"], "time": smp["time"],
                    "max_abs_diff": float(np.nanmax(diff)), "rel_l2": rel, "ok": ok})
    return out


def run_ts(a, stores, b, workers, clock, step, results, deadline_hit):
    """One DataLoader, one pool of spawned workers, one endless stream of batches for every store
    (StreamBatchSampler): per store one warm-up round of the workers, then the timed runs, each of
    whole rounds; the last one hands over to the next store without draining the pipeline."""
    import torch
    from torch.utils.data import DataLoader
    w = stores[0]["windows"]
    specs = [bc.array_spec(s["path"], s["layout"]) for s in stores]
    stats = [bc.read_stats(s["stats"]) for s in stores]
    norm = a.ts_normalize if a.device == "cuda" else "worker"
    ds = bc.TsWindows(specs, stats, w, normalize="worker" if norm == "worker" else "none")
    sampler = bc.StreamBatchSampler(w, a.seed, b)
    pin = a.device == "cuda"
    dl = DataLoader(ds, batch_sampler=sampler, num_workers=workers, pin_memory=pin, persistent_workers=True,
                    prefetch_factor=a.prefetch_factor, multiprocessing_context="spawn", worker_init_fn=bc.worker_init)
    gpu_stats = None
    if a.device == "cuda" and norm == "gpu":
        gpu_stats = [(torch.as_tensor(m).cuda().view(1, 1, -1, 1, 1), torch.as_tensor(sd).cuda().view(1, 1, -1, 1, 1))
                     for m, sd in stats]
    W = workers
    cur = {"store": 0}

    def check(batch):
        st = batch["store"]
        if int(st.min()) != cur["store"] or int(st.max()) != cur["store"]:
            raise RuntimeError(f"batch of stores {st.tolist()} while measuring store {cur['store']}")

    def to_gpu(batch):
        check(batch)
        x = batch["input"].cuda(non_blocking=True)
        y = batch["target"].cuda(non_blocking=True)
        if gpu_stats is not None:
            m, sd = gpu_stats[cur["store"]]
            x = (x - m) / sd
            y = (y - m) / sd
        return x, y

    def host(batch):
        check(batch)
        return batch["input"], batch["target"]

    cpu_clock = Clock("cpu")
    phases = []
    if a.device == "cuda":
        phases.append(("throughput", to_gpu, clock, None))
        if W in a.host_workers:
            phases.append(("throughput_host", host, cpu_clock, None))
        if step is not None:
            phases.append(("step", to_gpu, clock, step))
    else:
        phases.append(("throughput_host", host, cpu_clock, None))
    t0 = time.perf_counter()
    feed = None
    round_s = started = None
    try:
        for si, s in enumerate(stores):
            res = results[s["layout"]].setdefault(f"B{b}", {}).setdefault(f"ts{W}", {})
            res.update({"workers": W, "prefetch_factor": a.prefetch_factor, "pin_memory": pin, "normalize": norm,
                        "len_expected": w.batches(b), "stream": "endless (epochs back to back)"})
            if s["windows"] != w:
                res["error"] = "stores differ in time extent; the baseline needs one window set"
                break
            if si > 0 and cur["store"] != si:  # the stream did not move here (deadline or an error)
                res["skipped"] = "deadline" if deadline_hit() else "the store before failed"
                continue
            if a.drop_caches:
                res["caches_dropped"] = drop_caches()
            last = si == len(stores) - 1 or deadline_hit()
            try:
                if feed is None:
                    feed = Feed(lambda e: iter(dl))  # spawns the workers
                    check(feed.next())
                    started = time.perf_counter() - t0  # spawn, imports, ts.open, first batch
                    warm(feed, host, cpu_clock, W - 1)
                else:
                    warm(feed, host, cpu_clock, W)  # one round of the new store
                res["start_s"] = started
                for pi, (name, deliver, clk, stp) in enumerate(phases):
                    final = pi == len(phases) - 1 and not last
                    r = timed(feed, deliver, clk, a, step=stp, rounds=W,
                              switch=(sampler, si + 1, round_s) if final else None)
                    res[name] = r
                    if r["batches"]:
                        round_s = r["seconds"] / (r["batches"] / W) if stp is None else round_s
                if not last:
                    cur["store"] = si + 1
            except Exception as e:
                res["error"] = f"{type(e).__name__}: {e}"
                res["traceback"] = traceback.format_exc()[-3000:]
                break
    finally:
        it = getattr(dl, "_iterator", None) or (feed.it if feed is not None else None)
        try:
            if it is not None and hasattr(it, "_shutdown_workers"):
                it._shutdown_workers()
        except Exception as e:  # a worker that dies while stopping must not lose the figures
            for s in stores:
                results[s["layout"]].setdefault(f"B{b}", {}).setdefault(f"ts{W}", {})["shutdown_error"] = \
                    f"{type(e).__name__}: {e}"
        del it, feed, dl
        gc.collect()


# ---------------------------------------------------------------------------------------------
# report

def _one_line(text, n=240):
    lines = [x.strip() for x in str(text).splitlines() if x.strip() and not x.startswith("---")]
    out = " ⏎ ".join(lines).replace("|", "/")
    return out if len(out) <= n else out[:n - 1] + "…"


def fmt(v, spec=".2f", none="–"):
    return none if v is None else format(v, spec)


def report(a, stores, results, meta):
    lines = []
    p = lines.append
    p(f"## Loader benchmark: {meta.get('gpu', 'no GPU')}, {meta['host'].get('cpus')} CPUs")
    p("")
    p(f"Windows history={a.history} future={a.future} stride={a.stride}, shuffled (seed {a.seed}), drop_last. "
      f"Timed runs: ≥{a.seconds:g} s (≤{a.batches} batches) after a warm-up ({a.warmup} batches; DataLoader: one "
      f"round of its workers, and its runs are whole rounds). Page cache: {meta['page_cache']}.")
    if meta.get("step"):
        st = meta["step"]
        p(f"Simulated step: {st['matmuls']} bf16 8192³ matmuls ({st['matmul_ms']:.2f} ms each, "
          f"{st['tflops']:.0f} TFLOP/s), {st['step_ms']:.1f} ms a step.")
    if meta.get("zarr_direct_error"):
        p(f"ZarrLoader: not available ({meta['zarr_direct_error']})")
    p("")
    for s in stores:
        r = results.get(s["layout"], {})
        bench = r.get("bench", {})
        bench_gbps = bench.get("gbps")
        p(f"### {s['layout']}: {s['description']}; {s['shape']} float32, compression ratio "
          f"{fmt(r.get('compression_ratio'))}, {s['windows'].samples} samples")
        p("")
        p("| loader | B | start s | GB/s | GB/s in epochs | samples/s | wait % of step (in epochs) "
          "| wait ms p50 / p90 | × DataLoader | of bench |")
        p("|---|---|---|---|---|---|---|---|---|---|")
        if bench:
            txt = fmt(bench_gbps) if bench_gbps else "error: " + str(bench.get("error", "?"))[:80]
            p(f"| `zarr-direct bench --backend cuda`, whole array{' (given)' if bench.get('given') else ''} "
              f"| 32 steps | | {txt} | | | | | | 100% |")
        for b in a.batch_sizes:
            rb = r.get(f"B{b}", {})

            def best(field):
                vals = [v[field]["gbps"] for k, v in rb.items() if k.startswith("ts") and field in v]
                return max(vals) if vals else None
            ts_best, ts_host_best = best("throughput"), best("throughput_host")
            order = [k for k in rb if k.startswith("ts")] + [k for k in ("zd-cuda", "zd-cpu") if k in rb]
            for k in order:
                v = rb[k]
                to_gpu = "throughput" in v or (a.device == "cuda" and not k.startswith("zd-cpu"))
                name = {"zd-cuda": "ZarrLoader cuda", "zd-cpu": "ZarrLoader cpu (host, no copy)"}.get(
                    k, f"DataLoader+TensorStore, {v.get('workers')} workers → " + ("GPU" if to_gpu else "host (no copy)"))
                info = v.get("loader_info") or {}
                if info:
                    name += " (" + ", ".join(str(info[f]) for f in ("backend", "memory") if info.get(f)) + \
                        (f", prefetch {info['prefetch']}" if info.get("prefetch") is not None else "") + ")"
                bad = v.get("unavailable") or v.get("skipped") or v.get("error")
                tp = v.get("throughput") or v.get("throughput_host")
                if bad and not tp:
                    what = "not available" if "unavailable" in v else "skipped" if "skipped" in v else "error"
                    p(f"| {name} | {b} | | {what}: {_one_line(bad)} | | | | | | |")
                    continue
                stp = v.get("step")
                gb = tp["gbps"] if tp else None
                ref = ts_host_best if k == "zd-cpu" or not to_gpu else ts_best
                vs = gb / ref if gb and ref and k.startswith("zd") else None
                vs_bench = gb / bench_gbps if gb and bench_gbps and k == "zd-cuda" else None
                wait = None
                if stp:
                    wait = f"{100 * stp['wait_share']:.1f}"
                    if "wait_share_within_epochs" in stp:
                        wait += f" ({100 * stp['wait_share_within_epochs']:.1f})"
                p(f"| {name} | {b} | {fmt(v.get('start_s'), '.1f')} | {fmt(gb)} | {fmt(tp.get('gbps_within_epochs'))} "
                  f"| {fmt(tp['samples_per_s'], '.1f')} | {wait or '–'} "
                  f"| {fmt(stp['wait_ms_median'] if stp else None, '.1f')} / {fmt(stp['wait_ms_p90'] if stp else None, '.1f')} "
                  f"| {fmt(vs, '.1f') + '×' if vs else '–'} | {fmt(100 * vs_bench, '.0f') + '%' if vs_bench else '–'} |")
                if bad:
                    p(f"| ↳ {name}: {_one_line(bad)} | | | | | | | | | |")
                if k.startswith("ts") and v.get("throughput_host") and v.get("throughput"):
                    th = v["throughput_host"]
                    p(f"| DataLoader+TensorStore, {v.get('workers')} workers → pinned host only (no copy) | {b} | "
                      f"| {fmt(th['gbps'])} | | {fmt(th['samples_per_s'], '.1f')} | | | | |")
        p("")
    p("- *start s*: ZarrLoader: JVM start, open, first batch; DataLoader: spawning its workers and its first batch "
      "(one pool and one stream of batches serve every store in turn; spawned once).")
    p("- *GB/s*: input + target bytes delivered (on the GPU: usable on the consumer's stream) per second. "
      "*In epochs*: without the batches that open an epoch and the time waited for them (an epoch of these "
      "stores is short; a real training set's is thousands of batches). The DataLoader's stream runs epochs back "
      "to back without draining, so it has no epoch starts.")
    p("- *× DataLoader*: ZarrLoader cuda over the best DataLoader → GPU; ZarrLoader cpu over the best DataLoader → "
      "pinned host (no copy).")
    p("- Targets (issue #22): ZarrLoader cuda ≥ 10× the DataLoader, ≥ 80% of bench, waiting < 5% of the step; "
      "ZarrLoader cpu ≥ 1× the DataLoader without the copy.")
    checks = results.get("_checks")
    if checks:
        p("- Sample check (one ZarrLoader sample a store against TensorStore + numpy normalization): " + "; ".join(
            f"{c['layout']}/{c['device']} t={c['time']}: {'ok' if c['ok'] else 'MISMATCH'} (rel {c['rel_l2']:.1e}, "
            f"max |diff| {c['max_abs_diff']:.1e})" for c in checks))
    if results.get("_checks_error"):
        p(f"- Sample check failed to run: {results['_checks_error']}")
    if meta.get("aborted"):
        p(f"- **Aborted**: {meta['aborted']}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------

def measure(a, stores, meta, results, kept, clock, step, zd_err, deadline_hit, save):
    # 1. zarr-direct bench (a JVM of its own; before any loader holds device memory)
    if "bench" in a.configs:
        for s in stores:
            r = results[s["layout"]]
            if s["layout"] in a.bench_given:
                r["bench"] = {"gbps": a.bench_given[s["layout"]], "given": True}
            elif a.bench_cmd and a.device == "cuda":
                if deadline_hit():
                    r["bench"] = {"error": "skipped: deadline"}
                    continue
                print(f"bench {s['layout']} ...", flush=True)
                try:
                    r["bench"] = run_bench_cli(a, s)
                except Exception as e:
                    r["bench"] = {"error": f"{type(e).__name__}: {e}"}
                print(f"  {r['bench'].get('gbps', r['bench'].get('error'))}", flush=True)
                save()

    # 2. ZarrLoader, cuda then cpu (before the DataLoaders: nothing of TensorStore in this process yet)
    for cfg, device, backend in (("zd-cuda", "cuda", a.zd_backend), ("zd-cpu", "cpu", "cpu")):
        if cfg not in a.configs:
            continue
        for s in stores:
            for b in a.batch_sizes:
                res = results[s["layout"]].setdefault(f"B{b}", {}).setdefault(cfg, {})
                if device == "cuda" and a.device != "cuda":
                    res["skipped"] = "no GPU (--device cpu)"
                    continue
                if zd_err:
                    res["unavailable"] = zd_err
                    continue
                if deadline_hit():
                    res["skipped"] = "deadline"
                    continue
                if a.drop_caches:
                    res["caches_dropped"] = drop_caches()
                print(f"{cfg} {s['layout']} B={b} ...", flush=True)
                try:
                    res.update(run_zd(a, s, b, device, backend, clock if device == "cuda" else Clock("cpu"),
                                      step if device == "cuda" else None,
                                      None if a.no_check or b != a.batch_sizes[0] else kept))
                except Exception as e:
                    res["error"] = f"{type(e).__name__}: {e}"
                    res["traceback"] = traceback.format_exc()[-3000:]
                tp = res.get("throughput")
                print(f"  {'%.2f GB/s' % tp['gbps'] if tp else res.get('error')}", flush=True)
                gc.collect()
                save()

    # 3. torch DataLoader over TensorStore, one pool of spawned workers per (workers, batch size)
    if "ts" in a.configs:
        for b in a.batch_sizes:
            for workers in a.workers:
                if deadline_hit():
                    for s in stores:
                        results[s["layout"]].setdefault(f"B{b}", {}).setdefault(f"ts{workers}", {})["skipped"] = "deadline"
                    continue
                print(f"DataLoader+TensorStore {workers} workers B={b} ...", flush=True)
                run_ts(a, stores, b, workers, clock, step, results, deadline_hit)
                for s in stores:
                    v = results[s["layout"]][f"B{b}"][f"ts{workers}"]
                    tp = v.get("throughput") or v.get("throughput_host")
                    print(f"  {s['layout']}: {'%.2f GB/s' % tp['gbps'] if tp else v.get('error', v.get('skipped'))}",
                          flush=True)
                save()

    # 4. the kept ZarrLoader samples against TensorStore (here, after the DataLoaders, so that this
    #    process used TensorStore only once nothing else is started from it)
    if kept:
        try:
            results["_checks"] = check_samples(a, stores, kept)
        except Exception as e:
            results["_checks_error"] = f"{type(e).__name__}: {e}"


def main(argv=None):
    a = parse_args(argv)
    t_start = time.perf_counter()
    stores = make_plan(a, assume=a.dry_run)
    if a.dry_run:
        print_plan(a, stores)
        return 0
    missing = [s["path"] for s in stores if not s["shape"] or not os.path.exists(s["stats"])]
    if missing:
        print("missing stores or stats (run make_era5_stores.py first): " + ", ".join(missing), file=sys.stderr)
        return 2
    if len({tuple(s["shape"]) for s in stores}) > 1:
        print("the stores differ in shape: " + ", ".join(f"{s['layout']} {s['shape']}" for s in stores), file=sys.stderr)
        return 2
    for b in a.batch_sizes:
        if stores[0]["windows"].batches(b) < 1:
            print(f"batch size {b}: no full batch in an epoch of {stores[0]['windows'].samples} samples", file=sys.stderr)
            return 2
    print_plan(a, stores)
    sys.stdout.flush()

    import torch
    meta = {"command": a.command or shlex.join([sys.executable] + sys.argv), "argv": sys.argv,
            "versions": versions(), "host": host_info(), "git_commit": os.environ.get("ZD_GIT_COMMIT"),
            "page_cache": a.page_cache_note or ("dropped before each configuration" if a.drop_caches
                                                else "not dropped (stores read from the page cache)"),
            "args": {k: v for k, v in vars(a).items() if k not in ("bench_given",)}}
    if a.device == "cuda":
        if not torch.cuda.is_available():
            print("no CUDA device (use --device cpu for a smoke test)", file=sys.stderr)
            return 2
        meta["gpu"] = torch.cuda.get_device_name()
        props = torch.cuda.get_device_properties(0)
        meta["gpu_memory_bytes"] = props.total_memory
        meta["gpu_multiprocessors"] = props.multi_processor_count
    if a.drop_caches:
        meta["drop_caches_works"] = drop_caches()
    clock = Clock(a.device)
    step = None
    if a.device == "cuda" and a.step_ms > 0:
        step = Step(a.step_ms)
        meta["step"] = {"target_ms": a.step_ms, "matmuls": step.n, "matmul_ms": step.matmul_ms,
                        "tflops": step.tflops, "step_ms": step.step_ms}
        print(f"simulated step: {step.n} bf16 matmuls, {step.step_ms:.1f} ms (target {a.step_ms:g})", flush=True)
    zd_err, zd_file = zd_available() if any(c.startswith("zd") for c in a.configs) else (None, None)
    meta["zarr_direct_error"], meta["zarr_direct_file"] = zd_err, zd_file
    if zd_err:
        print(f"ZarrLoader not available: {zd_err}", flush=True)

    def deadline_hit():
        return a.deadline > 0 and time.perf_counter() - t_start > a.deadline

    results = {s["layout"]: {"path": s["path"], "shape": s["shape"], "description": s["description"],
                             "samples": s["windows"].samples} for s in stores}
    for s in stores:
        sb = bc.stored_bytes(s["path"])
        results[s["layout"]]["stored_bytes"] = sb
        results[s["layout"]]["compression_ratio"] = s["shape"][0] * s["step_bytes"] / max(1, sb)
    kept = []

    def save(final=False):
        meta["seconds_total"] = time.perf_counter() - t_start
        doc = {"meta": meta, "results": results, "complete": final}
        if final:
            doc["markdown"] = report(a, stores, results, meta)
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1, default=str)
        return doc

    try:
        measure(a, stores, meta, results, kept, clock, step, zd_err, deadline_hit, save)
    except BaseException as e:  # Ctrl-C or a crash: keep and report what was measured
        meta["aborted"] = f"{type(e).__name__}: {e}"
        meta["aborted_traceback"] = traceback.format_exc()[-3000:]
        print(f"aborted: {meta['aborted']}", file=sys.stderr, flush=True)

    meta["seconds_total"] = time.perf_counter() - t_start
    try:
        with open("/proc/meminfo") as f:
            meta["host"]["cached_at_end"] = dict(line.split(":", 1) for line in f)["Cached"].strip()
    except Exception:
        pass
    doc = save(final=True)
    print()
    print(doc["markdown"])
    print(f"\nJSON: {a.json}; total {meta['seconds_total']:.0f} s")
    return 1 if meta.get("aborted") else 0


if __name__ == "__main__":
    sys.exit(main())
