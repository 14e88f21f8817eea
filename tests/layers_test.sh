#!/usr/bin/env bash
# The layering check passes on the tree and fails, naming the file, when a lower layer includes a higher
# one: planted here in a copy of the tree.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$root/scripts/check_layers.py" "$root"
cp -r "$root/src" "$root/models" "$root/benchmarks" "$tmp/"
sed -i '0,/#include "amp\/precision_mode.h"/s//#include "amp\/precision_mode.h"\n#include "report\/report.h"/' \
  "$tmp/src/amp/peak_flops.h"
grep -q '"report/report.h"' "$tmp/src/amp/peak_flops.h" || { echo "could not plant the include"; exit 1; }
if out=$(python3 "$root/scripts/check_layers.py" "$tmp"); then
  echo "an upward include passed the check:"; echo "$out"; exit 1
fi
grep -q '^src/amp/peak_flops.h:[0-9]*: amp includes report/, a higher layer$' <<<"$out" || { echo "$out"; exit 1; }
echo "planted upward include caught: $(head -1 <<<"$out")"
