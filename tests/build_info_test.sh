#!/usr/bin/env bash
# cmake/WriteBuildInfo.cmake names the commit, and marks it "-dirty" only when a file compiled into the
# binary has uncommitted changes: an edited README or results file leaves a benchmark's commit clean.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
cmake=${1:-cmake}
git() { command git -C "$out" -c user.name=test -c user.email=test@example.com "$@"; }
mkdir -p "$out/src" "$out/results"
echo "int main() {}" >"$out/src/main.cpp"
echo "# notes" >"$out/README.md"
echo "{}" >"$out/results/run.json"
git init -q && git add -A && git commit -qm init
commit=$(git rev-parse --short=12 HEAD)
recorded() {
  "$cmake" -DSOURCE_DIR="$out" -DOUTPUT="$out/build_info.cpp" -P "$root/cmake/WriteBuildInfo.cmake"
  sed -n 's/.*return "\(.*\)";.*/\1/p' "$out/build_info.cpp"
}
expect() {
  local got
  got=$(recorded)
  [[ $got == "$1" ]] || { echo "$2: recorded '$got', expected '$1'"; exit 1; }
}
expect "$commit" "clean tree"
echo "more" >>"$out/README.md"
echo "[]" >"$out/results/run.json"
expect "$commit" "README and results edited"
echo "// changed" >>"$out/src/main.cpp"
expect "$commit-dirty" "a source edited"
echo "build_info: 3 passed, 0 failed"
