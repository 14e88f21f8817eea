#!/usr/bin/env bash
# Colour and the live progress line are for a person at a terminal: on one (run under script(1), which
# gives it a pseudo-terminal) both appear; NO_COLOR (https://no-color.org) takes the colour away and keeps
# the progress line; TERM=dumb and a pipe get neither.
# Usage: terminal_test.sh AMPBENCH_BINARY
set -euo pipefail
binary=$1
command -v script >/dev/null || { echo "no script(1) here to give ampbench a terminal"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cat > "$out/config.json" <<JSON
{"name": "tiny", "model": {"type": "mlp", "options": {"width": 16, "depth": 1}},
 "data": {"synthetic": {"train_samples": 64, "val_samples": 32, "shape": [3, 4, 4], "classes": 4}},
 "train": {"epochs": 2, "batch_size": 16}, "precision": {"modes": ["fp32", "bf16"]}, "device": "cpu",
 "output": {"dir": "$out/runs"}}
JSON
colour=$'\e\[[0-9;]*m'  # a colour (SGR) sequence
erase=$'\e\[K'          # the progress line redrawing itself
on_a_terminal() { script -qec "$binary --config $out/config.json" /dev/null > "$out/tty"; }

TERM=xterm on_a_terminal
grep -q "$colour" "$out/tty" || { echo "no colour on a terminal"; cat -v "$out/tty"; exit 1; }
grep -q "$erase" "$out/tty" || { echo "no progress line on a terminal"; cat -v "$out/tty"; exit 1; }

TERM=xterm NO_COLOR=1 on_a_terminal
grep -q "$colour" "$out/tty" && { echo "colour despite NO_COLOR"; cat -v "$out/tty"; exit 1; }
grep -q "$erase" "$out/tty" || { echo "NO_COLOR took the progress line away too"; cat -v "$out/tty"; exit 1; }

TERM=dumb on_a_terminal
grep -q "$colour\|$erase" "$out/tty" && { echo "colour or progress line on TERM=dumb"; cat -v "$out/tty"; exit 1; }

TERM=xterm "$binary" --config "$out/config.json" > "$out/pipe" 2>&1
grep -q "$colour\|$erase" "$out/pipe" && { echo "colour or progress line into a pipe"; cat -v "$out/pipe"; exit 1; }
echo "terminal: colour and progress on a terminal, none with NO_COLOR (colour), TERM=dumb or a pipe"
