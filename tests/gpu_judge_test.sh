#!/usr/bin/env bash
# scripts/gpu_judge.py on a real CPU run of a tiny gpt with its profiled pass: every check passes (the
# profile timed on the host, as a CPU's is), and each planted wrong figure fails the check that concerns
# it; the speed and same-peak checks on planted summaries. scripts/gpu-bundle runs it as its rehearsal.
# Usage: gpu_judge_test.sh AMPBENCH_BINARY PYTHON
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
ampbench=$1 python=$2
cat > "$out/config.json" <<'JSON'
{"name": "judge-test", "model": {"type": "gpt", "options": {"n_layer": 2, "n_head": 2, "d_model": 32}},
 "data": {"synthetic_tokens": {"train_samples": 128, "val_samples": 32, "context": 32, "vocab": 64, "branching": 4}},
 "train": {"epochs": 2, "batch_size": 32, "optimizer": {"type": "adamw", "lr": 0.003}, "warmup_steps": 1},
 "precision": {"modes": ["fp32", "bf16"]}, "device": "cpu"}
JSON
"$ampbench" --config "$out/config.json" --out "$out/runs" --profile 2 -q > "$out/run.log" 2>&1 ||
  { echo "the run failed:"; cat "$out/run.log"; exit 1; }
report=$(ls "$out"/runs/*/report.json)
"$python" "$root/scripts/validate_report.py" "$report"
judge() { "$python" "$root/scripts/gpu_judge.py" "$@" > "$out/judge.txt" 2>&1; }
judge "$report" --host-time || { echo "the judge fails a sound CPU run:"; cat "$out/judge.txt"; exit 1; }
grep -q "^PASS judge-test fp32 profile matrix FLOPs" "$out/judge.txt" ||
  { echo "no FLOP check was made:"; cat "$out/judge.txt"; exit 1; }
judge "$report" || grep -q "^FAIL judge-test fp32 profile time base: host" "$out/judge.txt" ||
  { echo "a host-timed profile passed as a device one:"; cat "$out/judge.txt"; exit 1; }

# Each case: a Python expression that plants a wrong figure in the report `r`, and the check it must fail.
# The attention case takes 99 % of the analytic attention FLOPs (12 x layers x batch x context^2 x
# d_model) off the pass's matrix FLOPs, as counting attention with the wrong layout did.
cases=(
  "r['profiles'][0]['precision']['low_precision_flop_share'] = 0.5|fp32 profile 16-bit FLOP share 0"
  "r['profiles'][0]['overhead_seconds'] = -1e-3|fp32 profile framework overhead >= 0"
  "r['profiles'][0]['top_ops'][0]['name'] = 'cudaLaunchKernel'|fp32 profile no runtime calls among ops"
  "r['profiles'][0]['precision']['matmul_flops'] -= 0.99 * 12 * 2 * 32 * 32**2 * 32|fp32 profile matrix FLOPs"
  "r['summary'][0]['static_bytes'] *= 2|fp32 static memory"
  "r['trials'][0]['tf32'] = True|TF32 set only where the mode allows it"
  "r['trials'][1].update(status='failed', detail='CUDA error: operation not permitted when stream is capturing')|every trial finished"
  "r['trials'][0]['epochs'][0]['step_seconds'] = [s * 0.9 for s in r['trials'][0]['epochs'][0]['step_seconds']]|step times add up to the epoch"
)
for case in "${cases[@]}"; do
  plant=${case%%|*} check=${case#*|}
  "$python" - "$report" "$out/planted.json" "$plant" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
  if judge "$out/planted.json" --host-time || ! grep -q "^FAIL judge-test $check" "$out/judge.txt"; then
    echo "planted: $plant; expected a failed \"$check\":"; cat "$out/judge.txt"; exit 1
  fi
done
# The activation check where bf16 ran (a CPU without bf16 arithmetic skips the mode).
if grep -q "^PASS judge-test bf16 activation peak below fp32's" "$out/judge.txt"; then
  "$python" - "$report" "$out/planted.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = {x["mode"]: x for x in r["summary"]}
s["bf16"]["activation_bytes"] = s["fp32"]["activation_bytes"]
json.dump(r, open(sys.argv[2], "w"))
PY
  ! judge "$out/planted.json" --host-time && grep -q "^FAIL judge-test bf16 activation peak" "$out/judge.txt" ||
    { echo "a bf16 activation peak equal to fp32's passed:"; cat "$out/judge.txt"; exit 1; }
fi

# The TF32 check reads each mode's row from the report: on a GPU, a pure bf16 trial with TF32 on is right
# and one with it off is wrong (a judge that copied a list of modes had it backwards).
"$ampbench" --list-modes json > "$out/modes.json"
for tf32 in True False; do
  "$python" - "$report" "$out/planted.json" "$out/modes.json" "$tf32" <<'PY'
import copy, json, sys
r = json.load(open(sys.argv[1]))
rows = {m["name"]: m for m in json.load(open(sys.argv[3]))}
r["environment"]["device"] = "cuda:0"
r["modes"] = [rows[m] for m in ("fp32", "bf16", "bf16-pure")]
pure = copy.deepcopy(r["trials"][0])
pure.update(mode="bf16-pure", tf32=sys.argv[4] == "True")
r["trials"] = [dict(t, tf32=rows[t["mode"]]["tf32"]) for t in r["trials"]] + [pure]
json.dump(r, open(sys.argv[2], "w"))
PY
  judge "$out/planted.json" --host-time || true
  expected=$([[ $tf32 == True ]] && echo PASS || echo FAIL)
  grep -q "^$expected judge-test TF32 set only where the mode allows it" "$out/judge.txt" ||
    { echo "a GPU bf16-pure trial with tf32=$tf32 did not $expected:"; cat "$out/judge.txt"; exit 1; }
done

# Speed and peaks on planted summaries: intervals that decide, and ones that do not.
"$python" - "$report" "$out" "$out/modes.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["modes"] = [m for m in json.load(open(sys.argv[3])) if m["name"] in ("fp32", "tf32", "fp16", "bf16")]
r["summary"] = [{"mode": m, "speedup_interval_95": i, "peak_bytes": p, "static_bytes": None, "activation_bytes": None}
                for m, i, p in [("fp32", None, 1000), ("tf32", [1.4, 1.6], 900), ("fp16", [2.5, 2.9], 600),
                                ("bf16", [2.4, 2.8], 600)]]
r["trials"] = r["profiles"] = []
json.dump(r, open(f"{sys.argv[2]}/fast.json", "w"))
r["summary"][3]["speedup_interval_95"] = [1.5, 2.8]  # overlaps tf32's: not shown faster
json.dump(r, open(f"{sys.argv[2]}/undecided.json", "w"))
r["summary"][3]["peak_bytes"] = 700  # 15 % above the other run's peak
json.dump(r, open(f"{sys.argv[2]}/other-peaks.json", "w"))
PY
judge "$out/fast.json" --speed --reversed "$out/fast.json" || true  # the planted summaries lack memory figures
grep -q "^PASS judge-test bf16 faster than tf32" "$out/judge.txt" &&
  grep -q "^PASS judge-test bf16 peak the same with the modes reversed" "$out/judge.txt" ||
  { echo "sound speed-ups and peaks did not pass:"; cat "$out/judge.txt"; exit 1; }
! judge "$out/undecided.json" --speed && grep -q "^FAIL judge-test bf16 faster than tf32" "$out/judge.txt" ||
  { echo "an overlapping interval passed as faster:"; cat "$out/judge.txt"; exit 1; }
! judge "$out/fast.json" --reversed "$out/other-peaks.json" &&
  grep -q "^FAIL judge-test bf16 peak the same with the modes reversed" "$out/judge.txt" ||
  { echo "peaks 15 % apart passed:"; cat "$out/judge.txt"; exit 1; }
echo "gpu_judge.py: a sound run passes, $((${#cases[@]} + 4)) planted wrong figures fail"
