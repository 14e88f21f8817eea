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
if "$python" "$root/scripts/plot_report.py" "$root/configs/resnet.json" --out "$out" 2>/dev/null; then
  echo "a config was accepted as a report"
  exit 1
fi
echo "plot_report: 3 passed, 0 failed"
