#!/usr/bin/env python3
"""Draws an ampbench report.json as figures: loss curves per mode, epoch time per mode, peak-memory bars,
and where a profiled step's time went.

Usage: scripts/plot_report.py REPORT.json [--out DIR] [--format png|svg]
Writes loss.<fmt>, epoch_time.<fmt> and memory.<fmt> into DIR (default: the report's folder), and
time_by_class.<fmt> when the report has a profile that ran ("profiles", status ok, or stopped after a
profiled step).
Needs matplotlib (in the project's .venv: .venv/bin/python scripts/plot_report.py ...).
"""
import argparse
import json
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.fonttype"] = "none"  # SVG text stays text: searchable, and smaller than glyph outlines

# Op classes of a profile, stacked in this order from the bottom; the framework's overhead goes on top.
CLASSES = ("matmul_conv", "attention", "normalization", "elementwise", "reduction_loss", "cast", "optimizer",
           "data_movement", "other")


def by_mode(report):
    """Trials grouped by mode, in the order the modes first ran."""
    modes = {}
    for trial in report["trials"]:
        modes.setdefault(trial["mode"], []).append(trial)
    return modes


def colours(report):
    """One colour per mode in every figure, in the order the modes first ran (finished or not)."""
    return {mode: f"C{i}" for i, mode in enumerate(by_mode(report))}


def labelled(mode, trials):
    """Each trial with its legend label: one entry for the mode's finished trials, however many, and one
    for each trial that ended early (diverged, failed, oom, interrupted), whose epochs are dotted: the
    summary leaves them out, so the figure must not pass them off as the mode's."""
    first_ok = next((t for t in trials if t["status"] == "ok"), None)
    for trial in trials:
        if trial["status"] == "ok":
            yield trial, mode if trial is first_ok else None
        elif trial["epochs"]:
            yield trial, f"{mode} trial {trial['trial']} ({trial['status']})"


def plot_losses(report, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    colour = colours(report)
    for mode, trials in by_mode(report).items():
        for trial, label in labelled(mode, trials):
            epochs = [e["epoch"] for e in trial["epochs"]]
            ok = trial["status"] == "ok"
            ax.plot(epochs, [e["val_loss"] for e in trial["epochs"]], marker="o", color=colour[mode],
                    linestyle="-" if ok else ":", label=label and f"{label} val")
            # Hollow markers, so a run of one epoch still shows its training loss.
            ax.plot(epochs, [e["train_loss"] for e in trial["epochs"]], linestyle="--" if ok else ":", marker="o",
                    markerfacecolor="none", color=colour[mode], label=label and f"{label} train")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set(xlabel="epoch", ylabel="loss", title=f"{report['config']['name']}: loss per mode")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_epoch_times(report, path):
    fig, ax = plt.subplots(figsize=(7, 4))
    colour = colours(report)
    for mode, trials in by_mode(report).items():
        for trial, label in labelled(mode, trials):
            ax.plot([e["epoch"] for e in trial["epochs"]], [e["seconds"] for e in trial["epochs"]], marker="o",
                    linestyle="-" if trial["status"] == "ok" else ":", label=label, color=colour[mode])
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.set(xlabel="epoch", ylabel="seconds (timed steps)", title="epoch time per mode, every trial")
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def plot_memory(report, path):
    summary = report["summary"]
    modes = [s["mode"] for s in summary]
    mib = [s["peak_bytes"] / 2**20 for s in summary]
    fig, ax = plt.subplots(figsize=(6, 4))
    bars = ax.bar(modes, mib, color=[colours(report)[mode] for mode in modes])
    for bar, s in zip(bars, summary):
        ratio = s.get("memory_ratio_vs_fp32")
        if ratio is not None:
            ax.annotate(f"{ratio:.2f}x", (bar.get_x() + bar.get_width() / 2, bar.get_height()), ha="center", va="bottom")
    # A skipped trial measured nothing (memory null): name the probe of one that ran.
    probe = next((t["memory"]["probe"] for t in report["trials"] if t["memory"]), "?")
    ax.set(ylabel="MiB above the staged data", title=f"peak memory per mode ({probe})")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def ok_profiles(report):
    """The profiles with figures (finished, or stopped after a profiled step), in the order the modes were
    profiled; none when the report has no profiles."""
    return [p for p in report.get("profiles", []) if p["status"] != "failed" and "steps" in p]


def class_seconds(profile):
    """A profile's seconds per op class, summed over the phases (forward, backward, optimizer, other)."""
    seconds = dict.fromkeys(CLASSES, 0.0)
    for entry in profile["classes"]:
        seconds[entry["class"]] += entry["seconds"]
    return seconds


def plot_time_by_class(report, path):
    profiles = ok_profiles(report)
    per_class = [class_seconds(p) for p in profiles]
    segments = [(name, [s[name] for s in per_class]) for name in CLASSES]
    segments.append(("framework overhead", [p["overhead_seconds"] for p in profiles]))
    fig, ax = plt.subplots(figsize=(8, 4))
    bottom = [0.0] * len(profiles)
    for i, (name, seconds) in enumerate(segments):  # colour by place in the list: the same in every bar
        ms = [s * 1000 for s in seconds]
        ax.bar([p["mode"] for p in profiles], ms, bottom=bottom, label=name, color=f"C{i}")
        bottom = [b + m for b, m in zip(bottom, ms)]
    handles, labels = ax.get_legend_handles_labels()
    ax.legend(handles[::-1], labels[::-1], loc="upper left", bbox_to_anchor=(1, 1))  # top of the stack first
    ax.set(ylabel="ms per profiled step", title="Where the time went (profiled steps)")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=pathlib.Path)
    parser.add_argument("--out", type=pathlib.Path, help="output folder (default: the report's folder)")
    parser.add_argument("--format", choices=["png", "svg"], default="png")
    args = parser.parse_args(argv)
    try:
        text = args.report.read_text()
    except OSError as error:
        print(f"plot_report: cannot read {args.report}: {error.strerror}", file=sys.stderr)
        return 2
    try:
        report = json.loads(text)
    except ValueError as error:
        print(f"plot_report: {args.report} is not JSON: {error}", file=sys.stderr)
        return 2
    missing = [key for key in ("trials", "summary", "config") if not isinstance(report, dict) or key not in report]
    if missing:
        print(f"plot_report: {args.report} is not an ampbench report (no {', '.join(missing)})", file=sys.stderr)
        return 2
    out = args.out or args.report.parent
    out.mkdir(parents=True, exist_ok=True)
    written = []
    figures = [("loss", plot_losses), ("epoch_time", plot_epoch_times), ("memory", plot_memory)]
    if ok_profiles(report):
        figures.append(("time_by_class", plot_time_by_class))
    for name, draw in figures:
        path = out / f"{name}.{args.format}"
        draw(report, path)
        written.append(str(path))
    print("\n".join(written))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
