#!/usr/bin/env bash
# A report that cannot be written mid-run (here: the run folder replaced by a file while the run is
# stopped at a known step, before its first report) does not stop the run: every mode still trains, the
# summary is printed, the failure is warned about once when it happens and named at the end, no
# "reports:" line claims a folder, and the exit code is 1.
# Usage: write_failure_test.sh AMPBENCH_BINARY
set -euo pipefail
# shellcheck source=tests/tiny_config.sh
source "$(dirname "${BASH_SOURCE[0]}")/tiny_config.sh"
binary=$1
out=$(mktemp -d)
pid=
cleanup() {
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -CONT "$pid"
    kill -TERM "$pid"
    wait "$pid" || true
  fi
  rm -rf "$out"
}
trap cleanup EXIT
write_tiny_config "$out/config.json" "$out/runs"
# fp32's step 2 comes after the run folder is made and before the first report is written.
"$binary" --config "$out/config.json" -q --inject-fault sigstop:fp32:2 > "$out/stdout" 2> "$out/stderr" &
pid=$!
state=
for _ in $(seq 3000); do
  state=$(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null || true)
  [[ $state == T || -z $state ]] && break
  sleep 0.01
done
[[ $state == T ]] || { echo "ampbench did not stop at the planted step (state '$state')"; cat "$out/stderr"; exit 1; }
folder=$(find "$out/runs" -mindepth 1 -maxdepth 1 -type d)
[[ -d $folder && ! -e $folder/report.json ]] || { echo "no run folder, or a report already in it: '$folder'"; exit 1; }
rm -rf "$folder" && touch "$folder"  # now a file: every write into it fails, root or not
kill -CONT "$pid"
status=0
wait "$pid" || status=$?
pid=
[[ $status == 1 ]] || { echo "exit $status, expected 1"; cat "$out/stderr"; exit 1; }
for mode in fp32 bf16; do
  grep -Eq "^$mode +1 +[0-9.]+ s" "$out/stdout" || { echo "no summary row for $mode:"; cat "$out/stdout"; exit 1; }
done
grep -q "^reports:" "$out/stdout" && { echo "a reports: line for a folder that was not written"; exit 1; }
[[ $(grep -c "the run goes on" "$out/stderr") == 1 ]] || { echo "not warned once:"; cat "$out/stderr"; exit 1; }
tail -1 "$out/stderr" | grep -q "^error: cannot write $folder/" ||
  { echo "the last line does not name the failed write:"; cat "$out/stderr"; exit 1; }
echo "write failure: every mode ran, summary printed, warned once, named at the end, exit 1"
