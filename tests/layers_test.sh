#!/usr/bin/env bash
# The layering check passes on the tree and fails, naming the file, when a lower layer includes a higher
# one, a room includes the room beside it, or LibTorch is reached where results are plain data (a header of
# the report layer or above) or by a room that compiles without it: each planted here in a copy of the tree.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
python3 "$root/scripts/check_layers.py" "$root"

# Plants `#include "INCLUDE"` after FILE's first include of ANCHOR in a fresh copy; the check must fail
# with EXPECTED as one of its lines.
expect_caught() {
  local file=$1 anchor=$2 include=$3 expected=$4
  rm -rf "$out"/*
  cp -r "$root/src" "$root/models" "$root/benchmarks" "$out/"
  sed -i "0,/#include \"${anchor//\//\\/}\"/s//#include \"${anchor//\//\\/}\"\n#include \"${include//\//\\/}\"/" "$out/$file"
  grep -q "\"$include\"" "$out/$file" || { echo "could not plant the include in $file"; exit 1; }
  local found
  if found=$(python3 "$root/scripts/check_layers.py" "$out"); then
    echo "a planted include passed the check:"; echo "$found"; exit 1
  fi
  grep -qE "^$expected\$" <<<"$found" || { echo "$found"; exit 1; }
  echo "planted include caught: $(head -1 <<<"$found")"
}

expect_caught src/amp/peak_flops.h amp/precision_mode.h report/report.h \
  'src/amp/peak_flops.h:[0-9]+: amp includes report/, a higher layer'
expect_caught src/sweep/sweep_config.cpp sweep/sweep_config.h max_batch/batch_search.h \
  'src/sweep/sweep_config.cpp:[0-9]+: sweep includes max_batch/, a room beside it'
expect_caught src/sweep/sweep_render.h sweep/sweep_report.h train/trainer_options.h \
  'src/sweep/sweep_render.h: reaches LibTorch: train/trainer_options.h -> amp/grad_scaler.h -> torch/torch.h'
expect_caught src/compare/compare.cpp compare/compare_reader.h models/network.h \
  'src/compare/compare.cpp: reaches LibTorch: models/network.h -> torch/torch.h'

# A room that grows past 35 files fails the check, naming it.
rm -rf "$out"/*
cp -r "$root/src" "$root/models" "$root/benchmarks" "$out/"
for i in $(seq 1 36); do touch "$out/src/util/planted_$i.h"; done
if found=$(python3 "$root/scripts/check_layers.py" "$out"); then
  echo "a crowded room passed the check:"; echo "$found"; exit 1
fi
grep -qE '^src/util/: [0-9]+ files, more than 35$' <<<"$found" || { echo "$found"; exit 1; }
echo "crowded room caught: $(head -1 <<<"$found")"
