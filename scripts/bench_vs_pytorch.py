#!/usr/bin/env python3
"""Runs ampbench and the same loop in PyTorch-Python (scripts/peer_pytorch.py) alternately on this machine,
the order flipped every round (A B, B A, ...), and compares them per mode: the samples/s ratio ampbench /
Python (median of the rounds' paired ratios, its 95 % bootstrap interval and range, and a verdict against
the goal), the AMP speed-up over fp32 that each measures, and the peak-memory ratio (CUDA only: on the CPU
Python has no allocator statistics). Writes the table, the environment and this command to
results/bench-vs-pytorch/, beside the raw per-round figures.

Usage: scripts/bench_vs_pytorch.py CONFIG [--rounds N] [--peer-malloc default|ampbench] [--out DIR]
                                   [--ampbench BINARY] [--goal RATIO] [--peer-module MODEL]
                                   [ampbench overrides such as --modes fp32,bf16]
An exported model's config needs --peer-module, the module it was exported from (peer_pytorch.py --module).
"""
import argparse
import atexit
import datetime
import json
import os
import platform
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOAL = 1.05  # by default, ampbench's samples/s at least this times the Python loop's


# With glibc's malloc, ampbench fixes its thresholds at start-up (src/measure/host_malloc.cpp); these are
# the same values as glibc tunables, for running the peer under them with --peer-malloc ampbench.
AMPBENCH_GLIBC_TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864"


def peer_environment(ampbench_report):
    """The peer's environment under ampbench's host malloc, as its report names it, and how the table says
    so: the library that replaced glibc's malloc (tcmalloc) preloaded, glibc's thresholds as tunables, or
    nothing where ampbench had the C library's default too. The caller's own settings are kept."""
    host_malloc = ampbench_report["environment"].get("host_malloc", "default")
    if host_malloc.startswith("/"):
        preload = " ".join(filter(None, [host_malloc.split(" ")[0], os.environ.get("LD_PRELOAD")]))
        return dict(os.environ, LD_PRELOAD=preload), " with ampbench's library preloaded"
    if host_malloc.startswith("glibc:"):
        tunables = ":".join(filter(None, [os.environ.get("GLIBC_TUNABLES"), AMPBENCH_GLIBC_TUNABLES]))
        return dict(os.environ, GLIBC_TUNABLES=tunables), " with ampbench's thresholds as glibc tunables"
    return None, ""


def refuse(problem):
    """Bad input: one line, exit 2, nothing run or written."""
    print(f"bench_vs_pytorch.py: {problem}", file=sys.stderr)
    sys.exit(2)


def run(command, env=None):
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"bench_vs_pytorch.py: {shlex.join(command)} failed:\n{done.stderr[-2000:]}")
    return done


def compared_epochs(ampbench_report):
    """Per mode, the epoch numbers ampbench compared (summary[].trials_compared): the same for the peer,
    which trains the same config."""
    return {s["mode"]: set(s["trials_compared"][0]["epochs"]) for s in ampbench_report["summary"]}


def throughputs(report, compared):
    """Per mode, from a report of either tool: the median trial's samples/s over the compared epochs, the
    largest peak, and the median step time over those epochs of every trial."""
    rates, steps = {}, {}
    for trial in report["trials"]:
        if trial["status"] != "ok" or trial["mode"] not in compared:
            continue
        epochs = [e for e in trial["epochs"] if e["epoch"] in compared[trial["mode"]]]
        rates.setdefault(trial["mode"], []).append(sum(e["timed_samples"] for e in epochs) /
                                                   sum(e["seconds"] for e in epochs))
        steps.setdefault(trial["mode"], []).extend(t for e in epochs for t in e["step_seconds"])
    return {s["mode"]: (statistics.median(rates[s["mode"]]), s.get("peak_bytes"), statistics.median(steps[s["mode"]]))
            for s in report["summary"] if s["mode"] in rates}


def bootstrap_median(values, confidence=0.95, resamples=2000):
    """Percentile bootstrap interval of the median (fixed seed: the same rounds give the same interval)."""
    rng = random.Random(0x5EED)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(resamples))
    tail = (1 - confidence) / 2
    return medians[int(tail * (resamples - 1))], medians[int((1 - tail) * (resamples - 1))]


def verdict(low, high, goal):
    if low >= goal:
        return "met"
    if high < goal:
        return "not met"
    return "undecided"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--peer-malloc", choices=["default", "ampbench"], default="default",
                        help="the peer's host malloc: a Python user's default (glibc's, dynamic thresholds), or "
                             "ampbench's (tcmalloc preloaded, or glibc's fixed thresholds), to tell the "
                             "harness's own cost from host memory handling")
    parser.add_argument("--out", default=str(ROOT / "results" / "bench-vs-pytorch"),
                        help="where the table and the rounds go (default: results/bench-vs-pytorch)")
    parser.add_argument("--ampbench", help="an ampbench binary to run as is (default: scripts/ampbench, which "
                                           "sets up and builds first)")
    parser.add_argument("--python", help="the Python whose torch runs the peer; give the one the ampbench build "
                                          "uses (default: .venv's, else python3)")
    parser.add_argument("--goal", type=float, default=GOAL, help="the ratio ampbench / Python to reach (default 1.05)")
    parser.add_argument("--peer-module", help="for an exported model's config: the module it was exported from, "
                                              "as scripts/export_model.py's MODEL names it, which the peer trains")
    args, overrides = parser.parse_known_args()
    if not Path(args.config).is_file():
        refuse(f"config {args.config}: no such file")
    if args.rounds < 2:
        refuse(f"--rounds {args.rounds}: at least 2 rounds are needed for an interval")
    # Both tools run from the repository root: paths given relative to the caller's folder are resolved.
    config = str(Path(args.config).resolve())
    binary = str(Path(args.ampbench).resolve()) if args.ampbench and Path(args.ampbench).exists() else args.ampbench
    ampbench = [binary] if binary else [str(ROOT / "scripts" / "ampbench")]
    peer_resolver = ["--ampbench", binary] if binary else []
    peer_module = ["--module", args.peer_module] if args.peer_module else []
    venv_python = ROOT / ".venv" / "bin" / "python"
    python = args.python or (str(venv_python) if venv_python.exists() else "python3")
    work = Path(tempfile.mkdtemp(prefix="bench-vs-pytorch-"))
    # The rounds' reports are read into the record written under --out; the work folder goes, failed runs too.
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    rounds = []
    peer_env, peer_malloc_note = None, ""
    for r in range(1, args.rounds + 1):
        def run_ampbench():
            print(f"bench_vs_pytorch.py: round {r}/{args.rounds}: ampbench", file=sys.stderr)
            run([*ampbench, "--config", config, "-q", "--out", str(work / "runs"),
                 "--export-json", str(work / f"ampbench-{r}.json"), *overrides])

        def run_python():
            print(f"bench_vs_pytorch.py: round {r}/{args.rounds}: PyTorch-Python", file=sys.stderr)
            run([python, str(ROOT / "scripts" / "peer_pytorch.py"), config, "--out",
                 str(work / f"python-{r}.json"), *peer_resolver, *peer_module, *overrides], env=peer_env)

        # Flipping the order each round keeps drift and warm caches from favouring either side.
        for side in (run_ampbench, run_python) if r % 2 == 1 else (run_python, run_ampbench):
            side()
            if r == 1 and side is run_ampbench and args.peer_malloc == "ampbench":
                peer_env, peer_malloc_note = peer_environment(json.loads((work / "ampbench-1.json").read_text()))
        a = json.loads((work / f"ampbench-{r}.json").read_text())
        b = json.loads((work / f"python-{r}.json").read_text())
        compared = compared_epochs(a)
        rounds.append({"ampbench": throughputs(a, compared), "python": throughputs(b, compared)})
    environment, python_environment = a["environment"], b["environment"]

    modes = [m for m in rounds[0]["ampbench"] if m in rounds[0]["python"]]
    rows = []
    for mode in modes:
        ratios = [x["ampbench"][mode][0] / x["python"][mode][0] for x in rounds]

        def speedup(tool):
            if "fp32" not in rounds[0][tool]:
                return None
            return statistics.median(x[tool][mode][0] / x[tool]["fp32"][0] for x in rounds)

        peaks = [(x["ampbench"][mode][1], x["python"][mode][1]) for x in rounds]
        memory = (statistics.median(p[0] / p[1] for p in peaks) if all(p[1] for p in peaks) else None)
        low, high = bootstrap_median(ratios)
        # Steps are many short samples per run: their median shrugs off the bursts of a shared machine that
        # inflate an epoch's total, so it is the steadier view of the same comparison.
        step_ratios = [x["python"][mode][2] / x["ampbench"][mode][2] for x in rounds]
        step_low, step_high = bootstrap_median(step_ratios)
        rows.append({"mode": mode,
                     "ampbench_samples_per_second": statistics.median(x["ampbench"][mode][0] for x in rounds),
                     "python_samples_per_second": statistics.median(x["python"][mode][0] for x in rounds),
                     "ratio_median": statistics.median(ratios), "ratio_ci95": [low, high],
                     "ratio_min": min(ratios), "ratio_max": max(ratios), "verdict": verdict(low, high, args.goal),
                     "median_step_ratio": statistics.median(step_ratios), "median_step_ratio_ci95": [step_low, step_high],
                     "median_step_verdict": verdict(step_low, step_high, args.goal),
                     "ampbench_speedup_vs_fp32": speedup("ampbench"), "python_speedup_vs_fp32": speedup("python"),
                     "peak_memory_ratio": memory})

    def cell(value, pattern):
        return "-" if value is None else pattern % value

    peer_module_option = ["--peer-module", args.peer_module] if args.peer_module else []
    command = "scripts/bench_vs_pytorch.py " + shlex.join([args.config, "--rounds", str(args.rounds),
                                                        "--peer-malloc", args.peer_malloc, "--goal", f"{args.goal:g}",
                                                        *peer_module_option, *overrides])
    stamp = datetime.datetime.now(datetime.timezone.utc)
    lines = [f"# ampbench vs PyTorch-Python: {Path(args.config).name}", "",
             f"- Command: `{command}`, {stamp:%Y-%m-%d %H:%M} UTC, ampbench {environment['git_commit']}",
             f"- Machine: {environment['device']} ({environment['device_name']}), {os.cpu_count()} cores, "
             f"{cpu_model()}; LibTorch {environment['libtorch_version']}; the same torch in Python",
             f"- Host malloc: ampbench {environment.get('host_malloc', 'default')}; Python "
             f"{python_environment.get('host_malloc', 'unknown')}{peer_malloc_note}",
             f"- {args.rounds} rounds, ampbench and Python in each, the order flipped every round; samples/s is each "
             "run's median trial over the epochs ampbench compared (its report's trials_compared); the ratio is "
             "the median of the rounds' ratios with its 95 % bootstrap interval; the goal is met when the whole "
             f"interval is at or above {args.goal:g}, not met when it is all below; the median-step ratio is "
             "Python's median step time over ampbench's, judged the same way", "",
             f"| mode | ampbench samples/s | Python samples/s | ratio [95% CI] | range | goal >= {args.goal:g} | "
             "median-step ratio [95% CI] | by median step | AMP speed-up ampbench | AMP speed-up Python | "
             "peak memory ratio |",
             "|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|"]
    for row in rows:
        lines.append(
            f"| {row['mode']} | {row['ampbench_samples_per_second']:.1f} | {row['python_samples_per_second']:.1f} | "
            f"{row['ratio_median']:.3f} [{row['ratio_ci95'][0]:.3f}, {row['ratio_ci95'][1]:.3f}] | "
            f"{row['ratio_min']:.3f}-{row['ratio_max']:.3f} | {row['verdict']} | "
            f"{row['median_step_ratio']:.3f} [{row['median_step_ratio_ci95'][0]:.3f}, "
            f"{row['median_step_ratio_ci95'][1]:.3f}] | {row['median_step_verdict']} | "
            f"{cell(row['ampbench_speedup_vs_fp32'], '%.2fx')} | {cell(row['python_speedup_vs_fp32'], '%.2fx')} | "
            f"{cell(row['peak_memory_ratio'], '%.3f')} |")
    table = "\n".join(lines) + "\n"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    suffix = "-peer-malloc-ampbench" if args.peer_malloc == "ampbench" else ""
    name = f"{Path(args.config).stem}{suffix}-{stamp:%Y%m%d-%H%M%S}"
    (out / f"{name}.md").write_text(table)
    (out / f"{name}.json").write_text(json.dumps({"command": command, "rounds": rounds, "rows": rows}, indent=2) + "\n")
    print(table)
    print(f"written: {out / name}.md", file=sys.stderr)


if __name__ == "__main__":
    main()
