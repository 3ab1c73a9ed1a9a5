#!/usr/bin/env python3
"""Draws the seed reports' plots from the data files beside them.

For each DIR/<cpu>-<backend>.csv (series, bytes, cycles_per_byte): DIR/<same
stem>-cpb.svg, seal cycles per byte against message size, one line per
scheme, as 000 and 004 tabulate them. For DIR/bounds.csv (scheme, bytes,
messages_log2, advantage_log2): DIR/bounds-advantage.svg, the advantage bound
against the number of messages under one key, one line per scheme and message
size, with the 2^-32 limit drawn across.

Usage: seeds_plot.py DIR (scripts/seeds.sh runs it). Needs matplotlib."""
import csv
import pathlib
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

# Reproducible files: no date, fixed ids, so a rerun on equal data changes nothing.
plt.rcParams["svg.hashsalt"] = "gcmsiv-seeds"
METADATA = {"Date": None, "Creator": "scripts/seeds_plot.py"}


def cycles_per_byte(path):
    series = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            series[row["series"]].append((int(row["bytes"]), float(row["cycles_per_byte"])))
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, points in series.items():
        points.sort()
        style = "-" if name in ("RFC 8452", "AES-GCM") else "--"
        ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", markersize=3, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("seal, cycles per byte")
    ax.set_title(f"{path.stem}: seal, AES-128, empty AAD", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    out = path.with_name(path.stem + "-cpb.svg")
    fig.tight_layout()
    fig.savefig(out, metadata=METADATA)
    plt.close(fig)
    print(f"seeds_plot.py: wrote {out}")


def bounds(path):
    lines = defaultdict(list)
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["scheme"], row["bytes"])
            lines[key].append((float(row["messages_log2"]), float(row["advantage_log2"])))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    for (scheme, size), points in lines.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], label=f"{scheme}, {size}")
    ax.axhline(-32, color="black", linewidth=0.8, linestyle=":")
    ax.text(1, -31, "2^-32", fontsize=8)
    ax.set_xlabel("log2 of the messages sealed under one key")
    ax.set_ylabel("log2 of the advantage bound")
    ax.set_ylim(-100, 1)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    out = path.with_name("bounds-advantage.svg")
    fig.tight_layout()
    fig.savefig(out, metadata=METADATA)
    plt.close(fig)
    print(f"seeds_plot.py: wrote {out}")


def main():
    folder = pathlib.Path(sys.argv[1])
    for path in sorted(folder.glob("*.csv")):
        if path.name == "bounds.csv":
            bounds(path)
        else:
            cycles_per_byte(path)


if __name__ == "__main__":
    main()
