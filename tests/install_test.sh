#!/usr/bin/env bash
# scripts/setup --install PREFIX puts ampbench on PATH: from another folder, with no venv or library path
# in its environment, the installed binary runs an installed config (one epoch of fp32, for time).
# Usage: install_test.sh BUILD_DIR TORCH_CHOICE PYTHON
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
build=$1 choice=$2 python=$3
case $choice in
  cpu*) flavour=cpu ;;
  cuda*) flavour=cuda ;;
  *) echo "this build's LibTorch was given by hand ($choice): scripts/setup would not choose it"; exit 77 ;;
esac
AMPBENCH_TORCH=$flavour AMPBENCH_BUILD_DIR=$build "$root/scripts/setup" --install "$out/prefix" >/dev/null 2>"$out/setup.err" ||
  { cat "$out/setup.err"; exit 1; }
[[ -x $out/prefix/bin/ampbench && -f $out/prefix/share/ampbench/configs/mlp.json ]] ||
  { echo "not installed:"; find "$out/prefix"; exit 1; }
mkdir "$out/elsewhere" && cd "$out/elsewhere"
env -i HOME="$out" PATH="$out/prefix/bin:/usr/bin:/bin" ampbench --version >"$out/version" ||
  { echo "the installed ampbench does not start without the build's environment"; exit 1; }
env -i HOME="$out" PATH="$out/prefix/bin:/usr/bin:/bin" \
  ampbench --config "$out/prefix/share/ampbench/configs/mlp.json" --epochs 1 --modes fp32 --device cpu -q \
  >"$out/run.out" 2>&1 || { echo "the installed ampbench failed:"; cat "$out/run.out"; exit 1; }
report=$(ls results/*/report.json)
grep -q '"status": "ok"' "$report" || { echo "no finished trial in $report"; exit 1; }
"$python" "$root/scripts/validate_report.py" "$report"
echo "installed into a prefix: ampbench ran $(basename "$(dirname "$report")") from another folder ($(head -1 "$out/version"))"
