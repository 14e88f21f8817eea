#!/usr/bin/env bash
# Colour and the live progress line are for a person at a terminal: on one (run under script(1), which
# gives it a pseudo-terminal) both appear; NO_COLOR (https://no-color.org) takes the colour away and keeps
# the progress line; TERM=dumb and a pipe get neither.
# Usage: terminal_test.sh AMPBENCH_BINARY PYTHON
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
# shellcheck source=tests/tiny_config.sh
source "$(dirname "${BASH_SOURCE[0]}")/tiny_config.sh"
binary=$1 python=$2
# util-linux's script(1) gives ampbench a pseudo-terminal; skipped where there is none that works.
script -qec true /dev/null </dev/null >/dev/null 2>&1 ||
  { echo "no util-linux script(1) and pseudo-terminal here to give ampbench a terminal"; exit 77; }
write_tiny_config "$out/config.json" "$out/runs"
colour=$'\e\[[0-9;]*m'  # a colour (SGR) sequence
erase=$'\e\[K'          # written by the progress line, at least when it is taken down: proof it was on
on_a_terminal() {
  timeout 120 script -qec "'$binary' --config '$out/config.json'" /dev/null </dev/null > "$out/tty" ||
    { echo "ampbench failed on a terminal (TERM=$TERM):"; cat -v "$out/tty"; exit 1; }
}

TERM=xterm on_a_terminal
grep -q "$colour" "$out/tty" || { echo "no colour on a terminal"; cat -v "$out/tty"; exit 1; }
grep -q "$erase" "$out/tty" || { echo "no progress line on a terminal"; cat -v "$out/tty"; exit 1; }

TERM=xterm NO_COLOR=1 on_a_terminal
grep -q "$colour" "$out/tty" && { echo "colour despite NO_COLOR"; cat -v "$out/tty"; exit 1; }
grep -q "$erase" "$out/tty" || { echo "NO_COLOR took the progress line away too"; cat -v "$out/tty"; exit 1; }

TERM=dumb on_a_terminal
grep -q "$colour\|$erase" "$out/tty" && { echo "colour or progress line on TERM=dumb"; cat -v "$out/tty"; exit 1; }

TERM=xterm "$binary" --config "$out/config.json" 2>&1 | cat > "$out/pipe"
grep -q "$colour\|$erase" "$out/pipe" && { echo "colour or progress line into a pipe"; cat -v "$out/pipe"; exit 1; }
"$python" "$(dirname "${BASH_SOURCE[0]}")/../scripts/validate_report.py" "$out/runs"
echo "terminal: colour and progress on a terminal, none with NO_COLOR (colour), TERM=dumb or a pipe"
