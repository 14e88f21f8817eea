#!/usr/bin/env bash
# scripts/plot_sweep.py draws its three figures from a sweep report, one key or a grid, leaves out points
# that did not run and an emulated mode's throughput, and refuses a file that is not one.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
python=${1:?usage: plot_sweep_test.sh PYTHON (one with matplotlib)}
# A batch-size sweep of fp32, bf16 (with intervals) and an emulated mxfp8, its last point missing; and the
# same as a grid.
"$python" - "$out/sweep.json" "$out/grid.json" <<'PY'
import json, sys
def mode(name, rate, speedup, interval, emulated=False):
    return {"mode": name, "emulated": emulated, "trials": 2, "samples_per_second": rate,
            "samples_per_second_interval_95": None,
            "speedup_vs_fp32": speedup, "speedup_interval_95": interval, "peak_bytes": 2**20 * rate // 100,
            "activation_bytes": None, "fidelity": None, "trial_rates": [rate, rate]}
def point(index, batch, modes, status="finished"):
    return {"index": index, "settings": {"/train/batch_size": batch}, "batch_size": batch, "status": status,
            "run_folder": f"point-{index}" if modes else None, "modes": modes}
points = [point(1, 8, [mode("fp32", 100, 1.0, None), mode("bf16", 90, 0.9, [0.8, 0.95]),
                      mode("mxfp8", 2, None, None, True)]),
          point(2, 16, [mode("fp32", 180, 1.0, None), mode("bf16", 250, 1.39, [1.3, 1.5]),
                        mode("mxfp8", 3, None, None, True)]),
          point(3, 32, [], "missing")]
sweep = {"sweep_schema_version": 3, "name": "t", "complete": False, "shard": None,
         "axes": [{"key": "/train/batch_size", "values": [8, 16, 32]}], "not_finished": [3], "points": points,
         "speedup_shapes": [], "step_costs": [], "lines": []}
json.dump(sweep, open(sys.argv[1], "w"))
sweep["axes"].append({"key": "/model/options/width", "values": [64]})
for p in points:
    p["settings"]["/model/options/width"] = 64
json.dump(sweep, open(sys.argv[2], "w"))
PY
"$python" "$root/scripts/validate_report.py" "$out/sweep.json" >/dev/null  # the planted report is one ampbench could write
"$python" "$root/scripts/plot_sweep.py" "$out/sweep.json" --out "$out/png" >/dev/null
for name in throughput speedup memory; do
  [[ $(head -c 4 "$out/png/$name.png" | od -An -c | tr -d ' ') == '211PNG' ]] || { echo "no PNG for $name"; exit 1; }
done
"$python" "$root/scripts/plot_sweep.py" "$out/sweep.json" --out "$out/svg" --format svg >/dev/null
for label in "bf16" "bf16 95 %" "fp32" "/train/batch_size"; do
  grep -q ">$label</text>" "$out/svg/speedup.svg" || { echo "speedup: no $label"; exit 1; }
done
grep -q ">32</text>" "$out/svg/throughput.svg" || { echo "throughput: the swept values are not the ticks"; exit 1; }
grep -q ">fp32</text>" "$out/svg/throughput.svg" || { echo "throughput: no fp32"; exit 1; }
grep -q ">mxfp8</text>" "$out/svg/throughput.svg" && { echo "throughput: an emulated mode's samples/s drawn"; exit 1; }
grep -q ">mxfp8</text>" "$out/svg/memory.svg" || { echo "memory: no mxfp8"; exit 1; }
# A grid: each point is a tick named by its settings.
"$python" "$root/scripts/plot_sweep.py" "$out/grid.json" --out "$out/grid" --format svg >/dev/null
grep -q "/train/batch_size=16, /model/options/width=64" "$out/grid/memory.svg" || { echo "grid: no point ticks"; exit 1; }
# A file that is not a sweep report, or no file at all: exit 2 and one line saying which.
refusal() {
  local rc=0
  "$python" "$root/scripts/plot_sweep.py" "$1" --out "$out" 2>"$out/err" >/dev/null || rc=$?
  [[ $rc == 2 ]] || { echo "$1: exit $rc, expected 2"; exit 1; }
  [[ $(wc -l <"$out/err") == 1 ]] && grep -q "$2" "$out/err" || { echo "$1: $(cat "$out/err")"; exit 1; }
}
refusal "$root/tests/snapshots/report.json" "is not an ampbench sweep report (no sweep_schema_version)"
refusal "$out/missing.json" "cannot read $out/missing.json: No such file or directory"
echo "plot_sweep: 6 passed, 0 failed"
