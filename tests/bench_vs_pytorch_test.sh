#!/usr/bin/env bash
# scripts/bench_vs_pytorch.py on a tiny config: two rounds in flipped order, the peer under ampbench's host
# malloc, a table with an interval and a verdict per mode, the rounds' figures beside it, and one-line
# refusals of bad input (exit 2), the peer's included.
# Usage: bench_vs_pytorch_test.sh AMPBENCH_BINARY PYTHON (the one whose torch the build uses)
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
ampbench=$1 python=$2
cat > "$out/config.json" <<'JSON'
{"name": "bench-test", "model": {"type": "mlp", "options": {"width": 16, "depth": 1}},
 "data": {"synthetic": {"train_samples": 256, "val_samples": 16, "shape": [16], "classes": 4}},
 "train": {"epochs": 1, "batch_size": 16, "warmup_steps": 1}, "device": "cpu"}
JSON
# Each report the script has ampbench write is checked against its schema as it is written; its temporary
# work folder (in $out/tmp here, where PyTorch leaves its own caches) is gone when it ends.
mkdir "$out/tmp"
TMPDIR=$out/tmp AMPBENCH_UNDER_TEST=$ampbench VALIDATE_PYTHON=$python "$root/scripts/bench_vs_pytorch.py" \
  "$out/config.json" --rounds 2 --modes fp32,bf16 --ampbench "$root/tests/validating_ampbench.sh" \
  --python "$python" --peer-malloc ampbench --out "$out/results" > "$out/stdout" 2> "$out/stderr"
ls -d "$out"/tmp/bench-vs-pytorch-* 2>/dev/null && { echo "its work folder was left behind"; exit 1; }
grep "round" "$out/stderr" | awk '{print $NF}' | tr '\n' ' ' | grep -q "^ampbench PyTorch-Python PyTorch-Python ampbench " ||
  { echo "rounds not in flipped order:"; cat "$out/stderr"; exit 1; }
table=$(ls "$out"/results/config-*.md)
for mode in fp32 bf16; do
  grep -Eq "^\| $mode \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \[[0-9.]+, [0-9.]+\] \| [0-9.]+-[0-9.]+ \| (met|not met|undecided) \|" "$table" ||
    { echo "no row for $mode:"; cat "$table"; exit 1; }
done
# --peer-malloc ampbench: the peer ran under ampbench's allocator, as both reports name it.
grep -Eq "^- Host malloc: ampbench (/[^ ]*) \(replaces glibc's malloc\); Python \1 with ampbench's library preloaded$|^- Host malloc: ampbench glibc: .*; Python /[^ ]*/libc[.]so[^ ]* with ampbench's thresholds as glibc tunables$" "$table" ||
  { echo "the peer did not run under ampbench's host malloc:"; grep "Host malloc" "$table"; exit 1; }
python3 - "${table%.md}.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert len(report["rounds"]) == 2, report["rounds"]
for row in report["rows"]:
    low, high = row["ratio_ci95"]
    assert row["ratio_min"] <= low <= row["ratio_median"] <= high <= row["ratio_max"], row
PY
for bad in "$out/missing.json --rounds 2" "$out/config.json --rounds 1"; do
  status=0
  # shellcheck disable=SC2086
  "$root/scripts/bench_vs_pytorch.py" $bad --ampbench "$ampbench" --out "$out/results" 2> "$out/err" || status=$?
  [[ $status == 2 && $(grep -c . "$out/err") == 1 ]] || { echo "bad input ($bad): exit $status"; cat "$out/err"; exit 1; }
done
sed 's|"synthetic": {[^}]*}|"mnist": {"dir": "'"$out"'/no-mnist"}|' "$out/config.json" > "$out/mnist.json"
for bad in "$out/missing.json" "$out/mnist.json"; do
  status=0
  "$python" "$root/scripts/peer_pytorch.py" "$bad" --out "$out/peer.json" --ampbench "$ampbench" 2> "$out/err" ||
    status=$?
  [[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/peer.json ]] ||
    { echo "peer, bad input ($bad): exit $status"; cat "$out/err"; exit 1; }
done
# An exported model: the peer trains the module it was exported from (--module) from the archive's weights,
# and ends at ampbench's validation loss; without --module, or with another module, it refuses in one line.
cat > "$out/mine.py" <<'PY'
import torch.nn as nn
def make():
    return nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
def other():
    return nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 4))
PY
"$python" "$root/scripts/export_model.py" "$out/mine.py:make" --shape 16 --classes 4 --out "$out/exported" \
  > "$out/export.log" 2>&1 || { echo "export failed:"; cat "$out/export.log"; exit 1; }
sed 's|"model": {[^}]*}}|"model": {"type": "exported", "options": {"path": "'"$out"'/exported/make.pt2"}}|' \
  "$out/config.json" > "$out/exported.json"
"$ampbench" --config "$out/exported.json" --modes fp32 -q --out "$out/runs" --export-json "$out/ours.json" \
  > "$out/ours.log" 2>&1 || { echo "ampbench failed:"; cat "$out/ours.log"; exit 1; }
"$python" "$root/scripts/peer_pytorch.py" "$out/exported.json" --modes fp32 --module "$out/mine.py:make" \
  --out "$out/peer.json" --ampbench "$ampbench" 2> /dev/null
python3 - "$out/ours.json" "$out/peer.json" <<'PY'
import json, sys
ours, peer = (json.load(open(path))["summary"][0]["val_loss"] for path in sys.argv[1:])
assert abs(ours - peer) <= 1e-6 * abs(ours), (ours, peer)
PY
for module in "" "--module $out/mine.py:other"; do
  status=0
  # shellcheck disable=SC2086
  "$python" "$root/scripts/peer_pytorch.py" "$out/exported.json" --modes fp32 $module --out "$out/peer2.json" \
    --ampbench "$ampbench" 2> "$out/err" || status=$?
  [[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/peer2.json ]] ||
    { echo "peer, exported model, module '$module': exit $status"; cat "$out/err"; exit 1; }
done
echo "bench-vs-pytorch: 10 passed, 0 failed"
