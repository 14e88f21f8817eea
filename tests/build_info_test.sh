#!/usr/bin/env bash
# cmake/WriteBuildInfo.cmake names the commit, and marks it "-dirty" only when a file compiled into the
# binary has uncommitted changes: an edited README or results file leaves a benchmark's commit clean.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cmake=${1:-cmake}
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
git() { command git -C "$repo" -c user.name=test -c user.email=test@example.com "$@"; }
mkdir -p "$repo/src" "$repo/results"
echo "int main() {}" >"$repo/src/main.cpp"
echo "# notes" >"$repo/README.md"
echo "{}" >"$repo/results/run.json"
git init -q && git add -A && git commit -qm init
commit=$(git rev-parse --short=12 HEAD)
recorded() {
  "$cmake" -DSOURCE_DIR="$repo" -DOUTPUT="$repo/build_info.cpp" -P "$root/cmake/WriteBuildInfo.cmake"
  sed -n 's/.*return "\(.*\)";.*/\1/p' "$repo/build_info.cpp"
}
expect() {
  local got
  got=$(recorded)
  [[ $got == "$1" ]] || { echo "$2: recorded '$got', expected '$1'"; exit 1; }
}
expect "$commit" "clean tree"
echo "more" >>"$repo/README.md"
echo "[]" >"$repo/results/run.json"
expect "$commit" "README and results edited"
echo "// changed" >>"$repo/src/main.cpp"
expect "$commit-dirty" "a source edited"
echo "build_info: 3 passed, 0 failed"
