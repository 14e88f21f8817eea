#!/usr/bin/env python3
"""Measures how often `ampbench compare` cries wolf and how often it catches a real slowdown, on this
machine: each round runs CONFIG twice (A, A') and once per B variant, in that order, and compares A with
A' (A/A: any speed regression is a false alarm) and A with each B (A/B: a speed regression is a
detection). B variants: `threads1` (--threads 1 against LibTorch's default) and `wider` (the model's
width raised by --wider-by, about that much more work per sample). Counts compare's speed verdicts at
its default limit, and writes the rounds and the totals, with the environment and this command, to
DIR/compare-noise-<UTC time>.{csv,md}.

Usage: scripts/compare_noise.py CONFIG [--rounds N] [--wider-by F] [--out DIR] [--ampbench BINARY]
"""
import argparse
import datetime
import json
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_report(ampbench, config_path, work, name, extra=()):
    out = work / f"{name}.json"
    subprocess.run([ampbench, "--config", str(config_path), "--out", str(work / "runs"), "-q",
                    "--export-json", str(out), *extra], check=True, stdout=subprocess.DEVNULL)
    return out


def speed_verdict(ampbench, base, new):
    """compare's speed verdict for the first mode (ok, regression, within_noise or unjudged), from its JSON."""
    result = subprocess.run([ampbench, "compare", str(base), str(new), "--force", "--export-json", "-"],
                            capture_output=True, text=True)
    if result.returncode not in (0, 3, 5):
        sys.exit(f"compare_noise: compare failed ({result.returncode}): {result.stderr.strip()}")
    comparison = json.loads(result.stdout)
    return comparison["modes"][0]["speed"]["verdict"], comparison


def median_trial_rate(report_path):
    """The median of the trials' samples/s, as ampbench's summary wrote them (summary[].trials_compared)."""
    report = json.loads(Path(report_path).read_text())
    rates = [t["samples_per_second"] for t in report["summary"][0]["trials_compared"]]
    return statistics.median(rates), report


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--wider-by", type=float, default=0.075)
    parser.add_argument("--out", default=str(ROOT / "results" / "compare-noise"))
    parser.add_argument("--ampbench", default=str(ROOT / "build" / "ampbench"))
    args = parser.parse_args()
    config = json.loads(Path(args.config).read_text())
    wider = json.loads(json.dumps(config))
    width = config["model"]["options"]["width"]
    wider["model"]["options"]["width"] = round(width * (1 + args.wider_by))
    rows, first_report = [], None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "wider.json").write_text(json.dumps(wider))
        for r in range(1, args.rounds + 1):
            a = run_report(args.ampbench, args.config, work, f"a{r}")
            a2 = run_report(args.ampbench, args.config, work, f"aa{r}")
            b1 = run_report(args.ampbench, args.config, work, f"t{r}", ["--threads", "1"])
            b2 = run_report(args.ampbench, work / "wider.json", work, f"w{r}")
            rate_a, report = median_trial_rate(a)
            first_report = first_report or report
            for kind, other in (("A/A", a2), ("A/B threads1", b1), ("A/B wider", b2)):
                verdict, _ = speed_verdict(args.ampbench, a, other)
                rate = median_trial_rate(other)[0]
                rows.append((r, kind, rate_a, rate, 1 - rate / rate_a, verdict))
                print(f"round {r} {kind}: {100 * (1 - rate / rate_a):+.1f}% -> {verdict}", file=sys.stderr)
    write_record(args, config, wider, rows, first_report)


def write_record(args, config, wider, rows, report):
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    base = out / f"compare-noise-{stamp}"
    with open(f"{base}.csv", "w") as f:
        f.write("round,pair,base_samples_per_second,new_samples_per_second,slowdown,verdict\n")
        for r, kind, ra, rb, slow, verdict in rows:
            f.write(f"{r},{kind},{ra:.2f},{rb:.2f},{slow:.5f},{verdict}\n")
    env = report["environment"]
    lines = [f"# compare-noise {stamp}", "",
             f"- Command: `{' '.join(shlex.quote(a) for a in ['scripts/compare_noise.py', *sys.argv[1:]])}`",
             f"- ampbench {env.get('ampbench_version')} ({env.get('git_commit')}), {env.get('cpu_model')}, "
             f"{env.get('torch_threads')} torch threads by default, LibTorch {env.get('libtorch_version')}, "
             f"{platform.node()}",
             f"- Config: {args.config}, repeats {config.get('repeats', 1)}; `wider`: width "
             f"{config['model']['options']['width']} -> {wider['model']['options']['width']}",
             "- compare's default limit: 7 % slowdown", "",
             "| pair | rounds | slowdown, median [min, max] | regression | within_noise | unjudged | ok |",
             "|---|---|---|---|---|---|---|"]
    for kind in ("A/A", "A/B threads1", "A/B wider"):
        picked = [row for row in rows if row[1] == kind]
        slows = [row[4] for row in picked]
        counts = {v: sum(1 for row in picked if row[5] == v) for v in ("regression", "within_noise", "unjudged", "ok")}
        lines.append(f"| {kind} | {len(picked)} | {100 * statistics.median(slows):+.1f} % "
                     f"[{100 * min(slows):+.1f}, {100 * max(slows):+.1f}] | {counts['regression']} | "
                     f"{counts['within_noise']} | {counts['unjudged']} | {counts['ok']} |")
    Path(f"{base}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
