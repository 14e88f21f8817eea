#!/usr/bin/env python3
"""Draws an ampbench sweep.json as figures against the swept value: throughput per mode, the speed-up over
fp32 with its 95 % interval as a band, and peak memory per mode.

Usage: scripts/plot_sweep.py SWEEP.json [--out DIR] [--format png|svg]
Writes throughput.<fmt>, speedup.<fmt> and memory.<fmt> into DIR (default: the sweep's folder). With one
swept key its values are the x axis (numbers to scale); with several, each point is a tick named by its
settings. Points that did not run are left out, and so is an emulated mode's throughput.
Needs matplotlib (in the project's .venv: .venv/bin/python scripts/plot_sweep.py ...).
"""
import argparse
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

plt.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, and smaller than glyph outlines


def x_axis(sweep):
    """Each point's place on the x axis, and the axis's label and tick labels."""
    axes = sweep["axes"]
    one_number_key = len(axes) == 1 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                            for v in axes[0]["values"])
    if one_number_key:
        key = axes[0]["key"]
        return {p["index"]: p["settings"][key] for p in sweep["points"]}, key, None
    ticks = {p["index"]: i for i, p in enumerate(sweep["points"])}
    names = [", ".join(f"{k}={json.dumps(v)}" for k, v in p["settings"].items()) for p in sweep["points"]]
    return ticks, "point", names


def colours(sweep):
    """One colour per mode in every figure, in the order the modes first appear."""
    modes = []
    for point in sweep["points"]:
        modes += [m["mode"] for m in point["modes"] if m["mode"] not in modes]
    return {mode: f"C{i}" for i, mode in enumerate(modes)}


def series(sweep, figure):
    """Per mode, the (x, figure) pairs of the points where it ran, in sweep order."""
    x, _, _ = x_axis(sweep)
    out = {}
    for point in sweep["points"]:
        for mode in point["modes"]:
            value = figure(mode)
            if value is not None:
                out.setdefault(mode["mode"], []).append((x[point["index"]], value, mode))
    return out


def finish(ax, sweep, ylabel, title, path):
    _, label, names = x_axis(sweep)
    if names:
        ax.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=7)
    elif all(isinstance(v, int) and v > 0 for v in sweep["axes"][0]["values"]):
        ax.set_xscale("log", base=2)  # batch sizes and widths: doubling is the natural step
        values = sweep["axes"][0]["values"]
        ax.set_xticks(values, [str(v) for v in values])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set(xlabel=label, ylabel=ylabel, title=title)
    ax.legend()
    ax.figure.tight_layout()
    ax.figure.savefig(path)
    plt.close(ax.figure)


def with_interval(ax, points, colour, label, key, band):
    xs = [x for x, _, _ in points]
    ax.plot(xs, [y for _, y, _ in points], marker="o", color=colour, label=label)
    spans = [(x, m[key]) for x, _, m in points if m[key] is not None]
    if spans and band:
        ax.fill_between([x for x, _ in spans], [s[0] for _, s in spans], [s[1] for _, s in spans], color=colour,
                        alpha=0.2, label=f"{label} 95 %")
    elif spans:
        ax.vlines([x for x, _ in spans], [s[0] for _, s in spans], [s[1] for _, s in spans], color=colour)


def plot_throughput(sweep, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    colour = colours(sweep)
    # An emulated mode's samples/s are the emulation's, not its format's: not drawn (sweep 3 says which).
    rates = series(sweep, lambda m: None if m.get("emulated", False) else m["samples_per_second"])
    for mode, points in rates.items():
        with_interval(ax, points, colour[mode], mode, "samples_per_second_interval_95", band=False)
    finish(ax, sweep, "samples/s (median, 95 % interval)", "Throughput per mode", path)


def plot_speedup(sweep, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    modes = series(sweep, lambda m: m["speedup_vs_fp32"] if m["mode"] != "fp32" else None)
    colour = colours(sweep)
    for mode, points in modes.items():
        with_interval(ax, points, colour[mode], mode, "speedup_interval_95", band=True)
    ax.axhline(1.0, color="black", linestyle="--", linewidth=1, label="fp32")
    finish(ax, sweep, "speed-up over fp32", "Speed-up over fp32, with its 95 % interval", path)


def plot_memory(sweep, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    colour = colours(sweep)
    for mode, points in series(sweep, lambda m: m["peak_bytes"] / 2**20).items():
        ax.plot([x for x, _, _ in points], [y for _, y, _ in points], marker="o", color=colour[mode], label=mode)
    finish(ax, sweep, "peak memory (MiB)", "Peak memory per mode", path)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweep", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, help="output folder (default: the sweep's folder)")
    parser.add_argument("--format", choices=["png", "svg"], default="png")
    args = parser.parse_args(argv)
    try:
        sweep = json.loads(args.sweep.read_text())
    except OSError as error:
        print(f"plot_sweep: cannot read {args.sweep}: {error.strerror}", file=sys.stderr)
        return 2
    except ValueError as error:
        print(f"plot_sweep: {args.sweep} is not JSON: {error}", file=sys.stderr)
        return 2
    if not isinstance(sweep, dict) or "sweep_schema_version" not in sweep:
        print(f"plot_sweep: {args.sweep} is not an ampbench sweep report (no sweep_schema_version)", file=sys.stderr)
        return 2
    out = args.out or args.sweep.parent
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in (("throughput", plot_throughput), ("speedup", plot_speedup), ("memory", plot_memory)):
        path = out / f"{name}.{args.format}"
        draw(sweep, path)
        written.append(str(path))
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
