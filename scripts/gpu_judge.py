#!/usr/bin/env python3
"""Judges the figures of ampbench runs on a GPU: fails on a figure that cannot be right.

Usage: gpu_judge.py RUN [RUN...] [--reversed RUN] [--speed] [--host-time]
  RUN            a run folder (or its report.json); every check that its report has data for is made
  --reversed R   R ran the same config with the modes in reverse order: its peaks must equal the first's
  --speed        also the precision switches' speed: tf32 faster than fp32, fp16 and bf16 faster still
  --host-time    accept a profile timed on the host (a rehearsal on the CPU)

Prints a line per check (PASS or FAIL, with the figure measured), exit 1 when any fails, 2 on bad input.
The checks are in docs/validation.md ("The GPU check").
"""
import argparse
import json
import re
import sys
from pathlib import Path

MIN_SIXTEEN_BIT_SHARE = 0.95
FLOPS_TOLERANCE = 0.10
STEP_SUM_RANGE = (0.97, 1.0)
STATIC_SLACK = (0.98, 1.10)
STATIC_SLACK_CUDA_BYTES = 64 * 2**20  # library workspaces (cuBLAS's come from the caching allocator)
SAME_PEAK_TOLERANCE = 0.02
# CUDA runtime and driver calls, CUPTI's overhead events, and device work: none is a host operator.
RUNTIME_NAME = re.compile(r"^(cuda[A-Z_]|cu[A-Z]|Memcpy|Memset|Instrumentation|Overhead|Runtime Triggered)")
WEIGHT_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
OPTIMIZER_SLOTS = {"adamw": 2, "adam": 2}


class Judge:
    def __init__(self):
        self.failed = 0

    def check(self, ok, name, measured):
        self.failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name}: {measured}")


def load(run):
    path = Path(run)
    if path.is_dir():
        path = path / "report.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as error:
        sys.exit(f"gpu_judge: cannot read {path}: {error}")


def modes_of(report):
    """Each mode's row of the recipe table, as the report records it (report.json's modes): what a mode
    runs in is read there, never copied here."""
    if "modes" not in report:
        sys.exit("gpu_judge: the report has no modes (schema 16 or later): rerun it with this ampbench")
    return {row["name"]: row for row in report["modes"]}


def low_precision(row):
    """Its matrix products run in 16 bits or fewer: under autocast, or with 16-bit weights (pure bf16)."""
    return row["autocast"] is not None or row["weights"] != "fp32"


def mixed_16bit(row):
    """fp16 and bf16: autocast in 16 bits, no float8 layers."""
    return row["autocast"] is not None and row["linear_recipe"] is None


def finished(trials):
    return [t for t in trials if t["status"] == "ok"]


def judge_trials(judge, report, name):
    lost = [f"{t['mode']} trial {t['trial']}: {t['status']} ({t['detail']})" for t in report["trials"]
            if t["status"] != "ok"]
    judge.check(not lost, f"{name} every trial finished", "; ".join(lost) or f"{len(report['trials'])} trials")


def judge_profiles(judge, report, name, host_time):
    rows = modes_of(report)
    for p in report["profiles"]:
        where = f"{name} {p['mode']} profile"
        if p["status"] != "ok":
            judge.check(False, where, f"status {p['status']}: {p['detail']}")
            continue
        judge.check(p["time_base"] == "device" or host_time, f"{where} time base", p["time_base"])
        judge.check(p["overhead_seconds"] >= 0, f"{where} framework overhead >= 0",
                    f"{p['overhead_seconds']:.6g} s of a {p['step_seconds']:.6g} s step")
        runtime = [op["name"] for op in p["top_ops"] if RUNTIME_NAME.match(op["name"])]
        judge.check(not runtime, f"{where} no runtime calls among ops", ", ".join(runtime) or "none")
        share = p["precision"]["low_precision_flop_share"]
        row = rows[p["mode"]]
        if low_precision(row):
            judge.check(share is not None and share >= MIN_SIXTEEN_BIT_SHARE,
                        f"{where} 16-bit or float8 FLOP share >= {MIN_SIXTEEN_BIT_SHARE}", share)
        else:
            judge.check(share in (None, 0), f"{where} 16-bit FLOP share 0", share)
        if row["linear_recipe"] is not None and not row["emulated"]:
            float8 = p["precision"]["float8_flop_share"]
            judge.check(bool(float8), f"{where} float8 FLOP share > 0", float8)
        judge_flops(judge, report, p, where)


def attention_flops_per_step(config):
    """The analytic count ampbench's profile uses: Q K^T and its product with V (4 B L^2 d a layer
    forward, twice that backward), the mask ignored."""
    model, data = config["model"], config["data"]
    if model["type"] != "gpt" or "synthetic_tokens" not in data:
        return None
    context = data["synthetic_tokens"]["context"]
    options = model["options"]
    batch = config["train"]["batch_size"]
    return 12.0 * options["n_layer"] * batch * context**2 * options["d_model"]


def judge_flops(judge, report, profile, where):
    """The profile's matrix FLOPs per step against the model's analytic count (every linear layer,
    convolution and attention product, forward and backward), and a gpt's attention alone where both its
    forward and backward ops are among the top ops (the top 20 by time need not hold them)."""
    per_sample = report.get("train_flops_per_sample")
    if per_sample:
        expected = per_sample * report["config"]["train"]["batch_size"]
        measured = profile["precision"]["matmul_flops"]
        error = abs(measured - expected) / expected
        judge.check(error <= FLOPS_TOLERANCE, f"{where} matrix FLOPs within 10 % of the analytic count",
                    f"{measured:.4g} per step against {expected:.4g} ({error:.1%} apart)")
    expected = attention_flops_per_step(report["config"])
    attention = [op for op in profile["top_ops"] if op["class"] == "attention"]
    if expected is None or {op["phase"] for op in attention} < {"forward", "backward"}:
        return
    measured = sum(op["matmul_flops"] for op in attention)
    error = abs(measured - expected) / expected
    judge.check(error <= FLOPS_TOLERANCE, f"{where} attention FLOPs within 10 % of the analytic count",
                f"{measured:.4g} per step against {expected:.4g} ({error:.1%} apart)")


def judge_timing(judge, report, name):
    ratios = []
    for trial in finished(report["trials"]):
        for epoch in trial["epochs"]:
            if epoch["step_seconds"] and epoch["seconds"] > 0:
                ratios.append(sum(epoch["step_seconds"]) / epoch["seconds"])
    if not ratios:
        judge.check(False, f"{name} step times add up to the epoch", "no timed epoch")
        return
    low, high = STEP_SUM_RANGE
    judge.check(all(low <= r <= high + 1e-9 for r in ratios),
                f"{name} step times add up to the epoch ({low}-{high})",
                f"sum of steps / epoch from {min(ratios):.4f} to {max(ratios):.4f} over {len(ratios)} epochs")


def optimizer_slots(optimizer, row):
    """The parameter-sized tensors beside the weights and gradients: the optimizer's state, and a Kahan
    compensation buffer where the row rounds so."""
    kahan = 1 if row["update_rounding"] == "kahan" else 0
    kind = optimizer.get("type", "sgd")
    if kind in OPTIMIZER_SLOTS:
        return OPTIMIZER_SLOTS[kind] + kahan
    return (1 if optimizer.get("momentum", 0) else 0) + kahan


def judge_memory(judge, report, name):
    parameters = report.get("model_parameters")
    if parameters is None:
        judge.check(False, f"{name} static memory", "the report has no model_parameters (schema 8 or later)")
        return
    rows = modes_of(report)
    low, high = STATIC_SLACK
    slack = STATIC_SLACK_CUDA_BYTES if report["environment"]["device"].startswith("cuda") else 0
    summaries = {s["mode"]: s for s in report["summary"]}
    for mode, s in summaries.items():
        # Weights, gradients and optimizer state, each in the row's weight format.
        tensors = 2 + optimizer_slots(report["config"]["train"].get("optimizer", {}), rows[mode])
        size = WEIGHT_BYTES[rows[mode]["weights"]]
        expected = parameters * size * tensors
        static = s["static_bytes"]
        judge.check(static is not None and low * expected <= static <= high * expected + slack,
                    f"{name} {mode} static memory = parameters x {size} bytes x {tensors}",
                    f"{static} bytes against {expected}")
    fp32 = summaries.get("fp32")
    for mode in [m for m in summaries if rows[m]["autocast"] is not None]:
        if fp32 and fp32["activation_bytes"]:
            ours = summaries[mode]["activation_bytes"]
            judge.check(ours is not None and ours < fp32["activation_bytes"],
                        f"{name} {mode} activation peak below fp32's", f"{ours} against {fp32['activation_bytes']}")


def judge_tf32_flags(judge, report, name):
    on_cuda = report["environment"]["device"].startswith("cuda")
    rows = modes_of(report)
    wrong = [f"{t['mode']} trial {t['trial']}: {t['tf32']}" for t in finished(report["trials"])
             if t["tf32"] != (on_cuda and rows[t["mode"]]["tf32"])]
    judge.check(not wrong, f"{name} TF32 set only where the mode allows it", "; ".join(wrong) or "as each mode says")


def interval(summary, mode):
    s = summary.get(mode)
    return s and s["speedup_interval_95"]


def judge_speed(judge, report, name):
    summary = {s["mode"]: s for s in report["summary"]}
    rows = modes_of(report)
    tf32 = interval(summary, "tf32")
    judge.check(bool(tf32) and tf32[0] > 1.0, f"{name} tf32 faster than strict fp32",
                f"speed-up interval {tf32}" if tf32 else "no interval for tf32")
    for mode in [m for m in summary if mixed_16bit(rows[m])]:
        ours = interval(summary, mode)
        judge.check(bool(ours and tf32) and ours[0] > tf32[1], f"{name} {mode} faster than tf32",
                    f"speed-up interval {ours} against tf32's {tf32}")


def judge_same_peaks(judge, report, reversed_report, name):
    forward = {s["mode"]: s["peak_bytes"] for s in report["summary"]}
    backward = {s["mode"]: s["peak_bytes"] for s in reversed_report["summary"]}
    for mode in forward.keys() & backward.keys():
        a, b = forward[mode], backward[mode]
        apart = abs(a - b) / max(a, b, 1)
        judge.check(apart <= SAME_PEAK_TOLERANCE, f"{name} {mode} peak the same with the modes reversed",
                    f"{a} and {b} bytes ({apart:.1%} apart)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--reversed")
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--host-time", action="store_true")
    args = parser.parse_args()
    judge = Judge()
    for run in args.runs:
        report = load(run)
        name = report["config"]["name"]
        judge_trials(judge, report, name)
        judge_profiles(judge, report, name, args.host_time)
        judge_timing(judge, report, name)
        judge_memory(judge, report, name)
        judge_tf32_flags(judge, report, name)
        if args.speed:
            judge_speed(judge, report, name)
    if args.reversed:
        judge_same_peaks(judge, load(args.runs[0]), load(args.reversed), load(args.runs[0])["config"]["name"])
    print(f"gpu_judge: {judge.failed} check(s) failed" if judge.failed else "gpu_judge: every check passed")
    return 1 if judge.failed else 0


if __name__ == "__main__":
    sys.exit(main())
