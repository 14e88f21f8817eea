#!/usr/bin/env bash
# scripts/plot_report.py draws its three figures from a report, and refuses a file that is not one.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
python=$root/.venv/bin/python
[[ -x $python ]] || python=python3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$python" "$root/scripts/plot_report.py" "$root/tests/snapshots/report.json" --out "$out" >/dev/null
for name in loss epoch_time memory; do
  [[ $(head -c 4 "$out/$name.png" | od -An -c | tr -d ' ') == '211PNG' ]] || { echo "no PNG for $name"; exit 1; }
done
"$python" "$root/scripts/plot_report.py" "$root/tests/snapshots/report.json" --out "$out" --format svg >/dev/null
grep -q "<svg" "$out/memory.svg" || { echo "no SVG"; exit 1; }
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
# A file that is not a report, or no file at all: exit 2 and one line saying which.
refusal() {
  local rc=0
  "$python" "$root/scripts/plot_report.py" "$1" --out "$out" 2>"$out/err" >/dev/null || rc=$?
  [[ $rc == 2 ]] || { echo "$1: exit $rc, expected 2"; exit 1; }
  [[ $(wc -l <"$out/err") == 1 ]] && grep -q "$2" "$out/err" || { echo "$1: $(cat "$out/err")"; exit 1; }
}
refusal "$root/configs/resnet.json" "is not an ampbench report (no trials, summary, config)"
refusal "$out/missing.json" "cannot read $out/missing.json: No such file or directory"
echo "plot_report: 5 passed, 0 failed"
