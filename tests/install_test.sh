#!/usr/bin/env bash
# scripts/setup --install PREFIX puts ampbench on PATH: from another folder, with no venv or library path
# in its environment, the installed binary runs an installed config (one epoch of fp32, for time).
# Usage: install_test.sh BUILD_DIR TORCH_CHOICE PYTHON
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$1 choice=$2 python=$3
case $choice in
  cpu*) flavour=cpu ;;
  cuda*) flavour=cuda ;;
  *) echo "this build's LibTorch was given by hand ($choice): scripts/setup would not choose it"; exit 77 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
AMPBENCH_TORCH=$flavour AMPBENCH_BUILD_DIR=$build "$root/scripts/setup" --install "$tmp/prefix" >/dev/null 2>"$tmp/setup.err" ||
  { cat "$tmp/setup.err"; exit 1; }
[[ -x $tmp/prefix/bin/ampbench && -f $tmp/prefix/share/ampbench/configs/mlp.json ]] ||
  { echo "not installed:"; find "$tmp/prefix"; exit 1; }
mkdir "$tmp/elsewhere" && cd "$tmp/elsewhere"
env -i HOME="$tmp" PATH="$tmp/prefix/bin:/usr/bin:/bin" ampbench --version >"$tmp/version" ||
  { echo "the installed ampbench does not start without the build's environment"; exit 1; }
env -i HOME="$tmp" PATH="$tmp/prefix/bin:/usr/bin:/bin" \
  ampbench --config "$tmp/prefix/share/ampbench/configs/mlp.json" --epochs 1 --modes fp32 --device cpu -q \
  >"$tmp/run.out" 2>&1 || { echo "the installed ampbench failed:"; cat "$tmp/run.out"; exit 1; }
report=$(ls results/*/report.json)
grep -q '"status": "ok"' "$report" || { echo "no finished trial in $report"; exit 1; }
"$python" "$root/scripts/validate_report.py" "$report"
echo "installed into a prefix: ampbench ran $(basename "$(dirname "$report")") from another folder ($(head -1 "$tmp/version"))"
