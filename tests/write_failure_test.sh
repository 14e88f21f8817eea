#!/usr/bin/env bash
# A report that cannot be written mid-run (here: the run folder replaced by a file after the run began)
# does not stop the run: every mode still trains, the summary is printed, the failure is warned about
# once when it happens and named at the end, no "reports:" line claims a folder, and the exit code is 1.
# Usage: write_failure_test.sh AMPBENCH_BINARY
set -euo pipefail
binary=$1
out=$(mktemp -d)
trap 'kill -CONT "${pid:-}" 2>/dev/null || true; rm -rf "$out"' EXIT
# Long enough (several hundred steps) that the run folder exists well before the first report is due.
cat > "$out/config.json" <<JSON
{"name": "tiny", "model": {"type": "mlp", "options": {"width": 64, "depth": 2}},
 "data": {"synthetic": {"train_samples": 4096, "val_samples": 32, "shape": [3, 8, 8], "classes": 4}},
 "train": {"epochs": 5, "batch_size": 16}, "precision": {"modes": ["fp32", "bf16"]}, "device": "cpu",
 "output": {"dir": "$out/runs"}}
JSON
"$binary" --config "$out/config.json" -q > "$out/stdout" 2> "$out/stderr" &
pid=$!
folder=
for _ in $(seq 2000); do
  folder=$(find "$out/runs" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -1 || true)
  [[ -n $folder ]] && break
  sleep 0.005
done
[[ -n $folder ]] || { echo "no run folder appeared"; exit 1; }
kill -STOP "$pid"
[[ -e $folder/report.json ]] && { echo "the first report came before the folder could be taken away"; exit 1; }
rm -rf "$folder" && touch "$folder"  # now a file: every later write into it fails, root or not
kill -CONT "$pid"
status=0
wait "$pid" || status=$?
[[ $status == 1 ]] || { echo "exit $status, expected 1"; cat "$out/stderr"; exit 1; }
for mode in fp32 bf16; do
  grep -Eq "^$mode +1 +[0-9.]+ s" "$out/stdout" || { echo "no summary row for $mode:"; cat "$out/stdout"; exit 1; }
done
grep -q "^reports:" "$out/stdout" && { echo "a reports: line for a folder that was not written"; exit 1; }
[[ $(grep -c "the run goes on" "$out/stderr") == 1 ]] || { echo "not warned once:"; cat "$out/stderr"; exit 1; }
tail -1 "$out/stderr" | grep -q "^error: .*$(basename "$folder")" ||
  { echo "the last line does not name the failed write:"; cat "$out/stderr"; exit 1; }
echo "write failure: every mode ran, summary printed, warned once, named at the end, exit 1"
