#!/usr/bin/env bash
# build/instrumentation_overhead on the tiny MLP, two short rounds: the lines naming the commit, machine
# and host malloc, then a row per mode with its interval and verdict; bad input refused in one line
# with exit 2.
# Usage: instrumentation_overhead_test.sh INSTRUMENTATION_OVERHEAD_BINARY
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
binary=$1
"$binary" --config "$root/benchmarks/tiny-mlp.json" --rounds 2 --train-samples 128 > "$out/table" 2> "$out/stderr" ||
  { echo "failed:"; cat "$out/stderr"; exit 1; }
grep -Eq "^- ampbench ([0-9a-f]{7,}(-dirty)?|unknown) \([A-Za-z]+ build, .+\); LibTorch [0-9]" "$out/table" &&
  grep -Eq "^- Machine: cpu \(.+\), [0-9]+ cores; torch threads: [0-9]+; host malloc: .+$" "$out/table" ||
  { echo "no environment lines:"; cat "$out/table"; exit 1; }
for mode in fp32 fp16 bf16; do
  grep -Eq "^\| $mode \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| [-+][0-9.]+% \[[-+][0-9.]+%, [-+][0-9.]+%\] \| .* \| (met|not met|undecided: the interval spans 1%) \|$" "$out/table" ||
    { echo "no row for $mode:"; cat "$out/table"; exit 1; }
done
for bad in "--config $out/missing.json" "--config $root/benchmarks/tiny-mlp.json --rounds 1"; do
  status=0
  # shellcheck disable=SC2086
  "$binary" $bad > "$out/stdout" 2> "$out/err" || status=$?
  [[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -s "$out/stdout" ]] ||
    { echo "bad input ($bad): exit $status"; cat "$out/err"; exit 1; }
done
echo "instrumentation_overhead: environment lines, a row per mode, bad input refused"
