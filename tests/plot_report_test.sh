#!/usr/bin/env bash
# scripts/plot_report.py draws its three figures from a report, a fourth from its profiles, and refuses a file
# that is not one.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
python=${1:?usage: plot_report_test.sh PYTHON (one with matplotlib)}
"$python" "$root/scripts/plot_report.py" "$root/tests/snapshots/report.json" --out "$out" >/dev/null
for name in loss epoch_time memory; do
  [[ $(head -c 4 "$out/$name.png" | od -An -c | tr -d ' ') == '211PNG' ]] || { echo "no PNG for $name"; exit 1; }
done
"$python" "$root/scripts/plot_report.py" "$root/tests/snapshots/report.json" --out "$out" --format svg >/dev/null
grep -q "<svg" "$out/memory.svg" || { echo "no SVG"; exit 1; }
ls "$out"/time_by_class.* >/dev/null 2>&1 && { echo "time_by_class drawn for a report without profiles"; exit 1; }
# A trial that ended early is drawn apart, under its own label, not as one of its mode's finished trials.
"$python" - "$root/tests/snapshots/report.json" "$out/diverged.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
trial = next(t for t in report["trials"] if t["mode"] == "fp16" and t["trial"] == 2)
trial["status"], trial["epochs"] = "diverged", trial["epochs"][:1]
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$root/scripts/plot_report.py" "$out/diverged.json" --out "$out/diverged" --format svg >/dev/null
for name in loss epoch_time; do
  grep -q "fp16 trial 2 (diverged)" "$out/diverged/$name.svg" || { echo "$name: the diverged trial is not labelled"; exit 1; }
done
grep -q "fp32 trial" "$out/diverged/loss.svg" && { echo "a finished trial is labelled as ended early"; exit 1; }
# Profiles: one bar per mode whose profile has figures (finished, or stopped after a profiled step), stacked
# by op class with the framework's overhead on top; none for a failed pass or one stopped before its steps.
"$python" - "$root/tests/snapshots/report.json" "$out/profiled.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
def profile(mode, scale, status="ok"):
    classes = [{"phase": phase, "class": name, "seconds": scale * seconds, "share": 0.0, "ratio_vs_fp32": scale}
               for phase, name, seconds in (("forward", "matmul_conv", 0.004), ("backward", "matmul_conv", 0.006),
                                            ("forward", "elementwise", 0.001), ("optimizer", "optimizer", 0.0005))]
    op = sum(c["seconds"] for c in classes)
    return {"mode": mode, "status": status, "steps": 10, "step_seconds": op + 0.002, "op_seconds": op,
            "overhead_seconds": 0.002, "classes": classes}
failed = {"mode": "fp16", "status": "failed", "detail": "injected error", "pass_seconds": 0.1}
stopped_early = {"mode": "tf32", "status": "stopped", "detail": "stopped by SIGTERM after 0 of 10 profiled steps",
                 "pass_seconds": 0.1}
report["profiles"] = [profile("fp32", 1.0), profile("bf16", 0.6, "stopped"), failed, stopped_early]
json.dump(report, open(sys.argv[2], "w"))
PY
"$python" "$root/scripts/plot_report.py" "$out/profiled.json" --out "$out/profiled" --format svg >/dev/null
for label in fp32 bf16 "framework overhead" matmul_conv; do
  grep -q ">$label</text>" "$out/profiled/time_by_class.svg" || { echo "time_by_class: no $label"; exit 1; }
done
grep -q ">fp16</text>" "$out/profiled/time_by_class.svg" && { echo "time_by_class: a failed profile has a bar"; exit 1; }
grep -q ">tf32</text>" "$out/profiled/time_by_class.svg" && { echo "time_by_class: an empty profile has a bar"; exit 1; }
# A file that is not a report, or no file at all: exit 2 and one line saying which.
refusal() {
  local rc=0
  "$python" "$root/scripts/plot_report.py" "$1" --out "$out" 2>"$out/err" >/dev/null || rc=$?
  [[ $rc == 2 ]] || { echo "$1: exit $rc, expected 2"; exit 1; }
  [[ $(wc -l <"$out/err") == 1 ]] && grep -q "$2" "$out/err" || { echo "$1: $(cat "$out/err")"; exit 1; }
}
refusal "$root/configs/resnet.json" "is not an ampbench report (no trials, summary, config)"
refusal "$out/missing.json" "cannot read $out/missing.json: No such file or directory"
echo "plot_report: 7 passed, 0 failed"
