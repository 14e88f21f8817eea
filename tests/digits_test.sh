#!/usr/bin/env bash
# configs/digits.json as a user runs it: the data written by scripts/prepare_digits.py from the copy that
# scikit-learn ships, then every mode trained from five seeds. fp32 must reach 97 % validation accuracy
# (the config's promise: a model trained to a real accuracy), and each 16-bit mode gets its fidelity
# verdict over the five paired seeds with fp32's noise floor. Exit 77 (skipped) without scikit-learn.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
ampbench=$1 python=$2
if ! "$python" -c 'import sklearn' 2>/dev/null; then
  echo "skipped: $python has no scikit-learn (scripts/setup installs it)"
  exit 77
fi
cd "$out"
"$python" "$root/scripts/prepare_digits.py" data/digits
"$ampbench" --config "$root/configs/digits.json" --out out -q --export-json report.json >/dev/null
"$python" "$root/scripts/validate_report.py" report.json out
"$python" - <<'PY'
import json
report = json.load(open("report.json"))
summary = {s["mode"]: s for s in report["summary"]}
fp32 = summary["fp32"]["fidelity_detail"]
assert fp32["seeds"] == 5, fp32
assert fp32["val_accuracy_mean"] >= 0.97, f"fp32 reached {fp32['val_accuracy_mean']:.3f}, below 0.97"
assert fp32["noise_floor"] is not None and fp32["noise_floor"] > 0, fp32
for mode in ("fp16", "bf16"):
    s = summary[mode]
    assert s["fidelity_detail"]["paired_seeds"] == 5, s["fidelity_detail"]
    low, high = s["fidelity_detail"]["delta_interval_95"]
    assert s["fidelity"] == "pass", f"{mode}: {s['fidelity']} with interval [{low}, {high}]"
print(f"fp32 {fp32['val_accuracy_mean']:.3f} over 5 seeds, noise floor {fp32['noise_floor']:.4f}; "
      "fp16 and bf16 pass")
PY
