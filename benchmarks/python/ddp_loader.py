# SPDX-License-Identifier: Apache-2.0
"""ZarrLoader under torchrun: one JVM loader per rank, each on its own GPU.

    torchrun --nproc_per_node 2 benchmarks/python/ddp_loader.py STORE --variable x --stats STATS.json

Every rank reads the epochs it is given and touches every batch on its GPU (a sum, so the batch is
really waited for). Rank 0 then checks what the issue asks of sharding over ranks: the same number
of batches on every rank, rank shards disjoint within each epoch, and together every sample the
epoch keeps (drop_last), and reports the aggregate delivered rate (input + target bytes over the
slowest rank's time). Exits non-zero when a check fails. Prints one JSON line at the end.
"""

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from zarr_direct.torch import ZarrLoader  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store")
    ap.add_argument("--variable", default="x")
    ap.add_argument("--stats")
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=3, help="timed epochs, after one untimed")
    a = ap.parse_args()

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    t_open = time.perf_counter()
    seen = {}
    delivered = 0
    with ZarrLoader(a.store, variables=[a.variable], history=2, future=1, stride=1, batch_size=a.batch_size,
                    shuffle=True, seed=0, drop_last=True, normalize=a.stats, device="cuda", prefetch=4) as loader:
        batches = len(loader)
        loader.set_epoch(0)
        sink = torch.zeros((), device="cuda")
        for b in loader:
            sink += b["input"].sum()
        opened = time.perf_counter() - t_open
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        for epoch in range(1, a.epochs + 1):
            loader.set_epoch(epoch)
            times = []
            for b in loader:
                sink += b["input"].sum() + b["target"].sum()
                times += b["time"].tolist()
                delivered += b["input"].numel() * b["input"].element_size() + b["target"].numel() * b["target"].element_size()
            seen[epoch] = times
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        samples_per_epoch = None
    mine = {"rank": rank, "device": torch.cuda.get_device_name(local), "batches": batches, "seen": seen,
            "bytes": delivered, "seconds": elapsed, "first_epoch_s": opened, "finite": bool(torch.isfinite(sink))}
    every = [None] * world
    dist.all_gather_object(every, mine)
    ok = True
    if rank == 0:
        problems = []
        if len({r["batches"] for r in every}) != 1:
            problems.append("ranks have different batch counts: " + str([r["batches"] for r in every]))
        for epoch in range(1, a.epochs + 1):
            sets = [set(r["seen"][epoch]) for r in every]
            lists = [r["seen"][epoch] for r in every]
            if any(len(s) != len(l) for s, l in zip(sets, lists)):
                problems.append(f"epoch {epoch}: a rank saw a sample twice")
            union = set().union(*sets)
            if sum(len(s) for s in sets) != len(union):
                problems.append(f"epoch {epoch}: rank shards overlap")
            samples_per_epoch = len(union)
        if not all(r["finite"] for r in every):
            problems.append("a batch held a non-finite value")
        slowest = max(r["seconds"] for r in every)
        total = sum(r["bytes"] for r in every)
        report = {"world_size": world, "devices": [r["device"] for r in every], "batch_size": a.batch_size,
                  "batches_per_rank": every[0]["batches"], "samples_per_epoch_all_ranks": samples_per_epoch,
                  "timed_epochs": a.epochs, "aggregate_GBps": round(total / slowest / 1e9, 2),
                  "per_rank_GBps": [round(r["bytes"] / r["seconds"] / 1e9, 2) for r in every],
                  "first_epoch_s": [round(r["first_epoch_s"], 2) for r in every], "problems": problems}
        print("ddp-loader " + json.dumps(report), flush=True)
        ok = not problems
    flag = torch.tensor([1 if ok else 0], device="cuda")
    dist.broadcast(flag, 0)
    dist.destroy_process_group()
    sys.exit(0 if flag.item() else 1)


if __name__ == "__main__":
    main()
