# SPDX-License-Identifier: Apache-2.0
"""Train a tiny forecast model for one epoch on the zarr-direct demo store, fed by ZarrLoader.

    python3 examples/train_era5.py                      # CUDA when torch has it, else the CPU
    python3 examples/train_era5.py --device cpu --steps 48 --batch-size 2

The demo store (``zarr-direct demo``: synthetic ERA5-like fields ``era5`` [time, 8 channels,
181 lat, 360 lon], float32, zstd) is written on first use, and so are its per-channel statistics
(``zarr-direct stats``), both with the same server the loader runs (a checkout's launcher, or the
jars of a wheel). The model sees ``history`` steps and predicts the next one; the last steps are
held out for validation. Prints the loss as it goes, and samples/s for the epoch (data loading,
forward, backward and optimizer step together).
"""

import argparse
import os
import subprocess
import sys
import time

import torch
from torch import nn

try:
    from zarr_direct import _launch
    from zarr_direct.torch import ZarrLoader
except ImportError:  # run from a checkout without installing the package
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    from zarr_direct import _launch
    from zarr_direct.torch import ZarrLoader

CHANNELS = 8  # the demo store's fields: t2m, u10, v10, msl, z500, t850, tcwv, sp


def zarr_direct(*args):
    """Runs a zarr-direct command with the server the loader would start; exits on failure."""
    launch = _launch.find_launch()
    print("$ zarr-direct " + " ".join(args), flush=True)
    done = subprocess.run(launch.command(list(args)), env=launch.environment())
    if done.returncode != 0:
        sys.exit(f"zarr-direct {args[0]} failed ({launch.description}), exit code {done.returncode}")


def prepare(store, steps, train_steps):
    """The demo store and the statistics of its training range, made if they are missing."""
    if not os.path.exists(os.path.join(store, "zarr.json")):
        zarr_direct("demo", store, "--steps", str(steps), "--passes", "1")
    stats = f"{store.rstrip('/')}.stats-0-{train_steps}.json"  # beside the store, not inside it
    if not os.path.exists(stats):
        zarr_direct("stats", store, "--variables", "era5", "--time-range", f"0:{train_steps}", "-o", stats)
    return stats


class TinyForecaster(nn.Module):
    """A few convolutions from ``history`` stacked steps to the change over the next step."""

    def __init__(self, history, channels, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(history * channels, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, channels, 3, padding=1))

    def forward(self, x):  # x: [B, history, C, H, W] -> [B, 1, C, H, W]
        b, h, c, y, w = x.shape
        return (x[:, -1] + self.net(x.reshape(b, h * c, y, w))).unsqueeze(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cache = os.environ.get("XDG_CACHE_HOME")
    if not cache or not os.path.isabs(cache):
        cache = os.path.join(os.path.expanduser("~"), ".cache")
    # the same per-user default as 'zarr-direct demo'
    p.add_argument("--store", default=os.path.join(cache, "zarr-direct", "demo.zarr"),
                   help="the demo store (written there when missing; default: %(default)s)")
    p.add_argument("--steps", type=int, default=96, help="time steps of a new demo store (default: %(default)s)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--backend", default="auto", help="where the server decodes: auto, cpu, cuda, opencl")
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--history", type=int, default=2)
    p.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"],
                   help="the type the loader delivers; the model computes in float32")
    p.add_argument("--lr", type=float, default=1e-3)
    args = p.parse_args()

    validation_steps = max(args.history + 1, args.steps // 8)
    train_steps = args.steps - validation_steps
    stats = prepare(args.store, args.steps, train_steps)
    torch.manual_seed(0)
    device = torch.device(args.device)
    model = TinyForecaster(args.history, CHANNELS).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    common = dict(variables=["era5"], history=args.history, future=1, batch_size=args.batch_size,
                  normalize=stats, dtype=getattr(torch, args.dtype), device=args.device, backend=args.backend)

    with ZarrLoader(args.store, shuffle=True, seed=0, drop_last=True, time_range=(0, train_steps), **common) as train:
        info = train.info
        print(f"loader: {len(train)} batches of {train.input_shape} -> {train.target_shape}, "
              f"{info['backend']} backend on {info['device']}, slots in {info['memory']}, prefetch {info['prefetch']}")
        train.set_epoch(0)  # one epoch here; a longer run calls set_epoch(e) before each
        model.train()
        samples, started = 0, time.perf_counter()
        for i, batch in enumerate(train):
            # The batch tensors are views of the loader's memory until the next batch: use them
            # now (the step below) or .clone() them.
            x, y = batch["input"].float(), batch["target"].float()
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            samples += x.shape[0]
            if i % 5 == 0 or i == len(train) - 1:
                print(f"batch {i:4d}/{len(train)}  loss {loss.item():.4f}  (first steps {batch['time'].tolist()})")
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        seconds = time.perf_counter() - started
        print(f"epoch 0: {samples} samples in {seconds:.1f} s, {samples / seconds:.1f} samples/s")

    with ZarrLoader(args.store, shuffle=False, drop_last=False, time_range=(train_steps, args.steps), **common) as val:
        model.eval()
        total, persistence, count = 0.0, 0.0, 0
        with torch.no_grad():
            for batch in val:
                x, y = batch["input"].float(), batch["target"].float()
                total += nn.functional.mse_loss(model(x), y, reduction="sum").item() / y[0].numel()
                persistence += nn.functional.mse_loss(x[:, -1:], y, reduction="sum").item() / y[0].numel()
                count += x.shape[0]
        print(f"validation: loss {total / count:.4f} over {count} samples "
              f"(persistence, the last input step as the forecast: {persistence / count:.4f})")


if __name__ == "__main__":
    main()
