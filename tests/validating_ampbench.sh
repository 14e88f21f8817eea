#!/usr/bin/env bash
# ampbench with ARGS, then every report that run wrote checked against docs/report.schema.json: its
# --export-json file and the run folder it made under its --out (not earlier runs' folders there). For tests
# that run ampbench through a script or a ctest command line, so that each report a test makes is checked.
# Usage: AMPBENCH_UNDER_TEST=BINARY VALIDATE_PYTHON=PYTHON validating_ampbench.sh ARGS...
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export_json= out=
previous=
for arg in "$@"; do
  case $previous in
    --export-json) export_json=$arg ;;
    --out) out=$arg ;;
  esac
  previous=$arg
done
run_folders() { [[ -n $out && -d $out ]] && find "$out" -mindepth 1 -maxdepth 1 -type d | sort; }
before=$(run_folders)
"${AMPBENCH_UNDER_TEST:?}" "$@"
status=$?
reports=()
[[ -n $export_json && $export_json != - && -f $export_json ]] && reports+=("$export_json")
while read -r folder; do
  [[ -n $folder && -f $folder/report.json ]] && reports+=("$folder/report.json")
done < <(comm -13 <(echo "$before") <(run_folders))
if ((${#reports[@]})) && ! "${VALIDATE_PYTHON:?}" "$root/scripts/validate_report.py" "${reports[@]}" >&2; then
  echo "validating_ampbench.sh: a report of 'ampbench $*' does not match its schema" >&2
  exit 1
fi
exit "$status"
