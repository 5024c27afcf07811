#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws the training-loader benchmark as an SVG bar chart, from the JSON tools/gpu/loader-bench.sh
writes: per store, delivered GB/s of torch's DataLoader over TensorStore (the better of its worker
counts), ZarrLoader on the CPU (no copy) and ZarrLoader on the GPU. Standard library only.

    python3 scripts/loader-chart.py docs/data/loader-bench-h100-a791d1a.json docs/img/loader-bench.svg
"""
import json
import sys
from xml.sax.saxutils import escape

STORES = [("zstd", "zstd, one step a chunk"), ("sharded", "sharded, one channel an inner chunk"),
          ("blosc-v2", "v2 blosc lz4 (host-decoded)")]
SERIES = [("DataLoader + TensorStore", "#9e9e9e"), ("ZarrLoader cpu", "#64b5f6"), ("ZarrLoader cuda", "#1565c0")]


def rates(doc, store, batch="B4"):
    runs = doc["results"][store][batch]
    dataloader = max(v["throughput"]["gbps"] for k, v in runs.items() if k.startswith("ts") and "throughput" in v)
    return [dataloader, runs["zd-cpu"]["throughput"]["gbps"], runs["zd-cuda"]["throughput"]["gbps"]]


def svg(doc):
    width, left, bar, gap, group_gap = 760, 250, 18, 4, 22
    values = [(label, rates(doc, key)) for key, label in STORES if key in doc["results"]]
    top = max(max(v) for _, v in values)
    scale = (width - left - 90) / top
    height = 70 + len(values) * (3 * (bar + gap) + group_gap) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="12" y="24" font-size="16" font-weight="bold">Training batches delivered, GB/s ({escape(doc["meta"].get("gpu", "GPU"))})</text>',
           '<text x="12" y="44" fill="#555">ERA5-like [64, 16, 721, 1440] float32 written by TensorStore; windows 2+1 steps, batch 4, shuffled</text>']
    y = 64
    for label, vals in values:
        out.append(f'<text x="12" y="{y + 1.5 * (bar + gap) + 4}" font-weight="bold">{escape(label)}</text>')
        for (name, colour), v in zip(SERIES, vals):
            w = max(1.0, v * scale)
            out.append(f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{bar}" fill="{colour}"/>')
            out.append(f'<text x="{left + w + 6:.1f}" y="{y + bar - 4}">{v:.1f}</text>')
            y += bar + gap
        y += group_gap
    x = 12
    for name, colour in SERIES:
        out.append(f'<rect x="{x}" y="{y + 4}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{x + 18}" y="{y + 15}">{escape(name)}</text>')
        x += 30 + 8 * len(name)
    commit = doc["meta"].get("git_commit") or "?"
    out.append(f'<text x="{width - 12}" y="{y + 15}" text-anchor="end" fill="#777">commit {escape(str(commit)[:12])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    with open(sys.argv[2], "w") as f:
        f.write(svg(doc))


if __name__ == "__main__":
    main()
