#!/usr/bin/env bash
# scripts/compare_noise.py on a tiny config, one round: an A/A pair and the two A/B pairs, each with the
# verdict compare gave, in the CSV and in the table's counts.
# Usage: compare_noise_test.sh AMPBENCH_BINARY PYTHON
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
ampbench=$1 python=$2
cat > "$out/config.json" <<'JSON'
{"name": "noise-test", "model": {"type": "mlp", "options": {"width": 16, "depth": 1}},
 "data": {"synthetic": {"train_samples": 256, "val_samples": 16, "shape": [16], "classes": 4}},
 "train": {"epochs": 2, "batch_size": 16}, "precision": {"modes": ["fp32"]}, "repeats": 2, "device": "cpu"}
JSON
# Each report the script has ampbench write is checked against its schema as it is written.
AMPBENCH_UNDER_TEST=$ampbench VALIDATE_PYTHON=$python "$python" "$root/scripts/compare_noise.py" "$out/config.json" \
  --rounds 1 --ampbench "$root/tests/validating_ampbench.sh" --out "$out/results" > "$out/stdout" 2> "$out/stderr"
csv=$(ls "$out"/results/compare-noise-*.csv)
[[ $(wc -l < "$csv") -eq 4 ]] || { echo "expected 3 pairs:"; cat "$csv"; exit 1; }
for pair in "A/A" "A/B threads1" "A/B wider"; do
  grep -Eq "^1,$pair,[0-9.]+,[0-9.]+,-?[0-9.]+,(regression|within_noise|unjudged|ok)$" "$csv" ||
    { echo "no row for $pair:"; cat "$csv"; exit 1; }
  grep -Eq "^\| $pair \| 1 \| [-+][0-9.]+ % .* \| [01] \| [01] \| [01] \| [01] \|$" "$out/stdout" ||
    { echo "no count for $pair:"; cat "$out/stdout"; exit 1; }
done
grep -q "width 16 -> 17" "$out/stdout" || { echo "the wider variant is not 7.5 % wider:"; cat "$out/stdout"; exit 1; }
echo "compare_noise.py: three pairs judged and counted"
