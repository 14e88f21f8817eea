#!/usr/bin/env bash
# scripts/gpu-check refuses bad input (options, a missing bundle, a bundle for another torch, a Python without
# torch, no toolkit to build with) in one line with exit 2, before it builds or writes anything: on a short
# loan of a GPU a typo must cost seconds, not a build.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
mkdir -p "$out/bundle/bin" && touch "$out/bundle/bin/ampbench" "$out/bundle/bin/ampbench_tests"
chmod +x "$out/bundle/bin/"* && echo 0.0.0 > "$out/bundle/torch-version"
cases=(
  "--vs-pytorch 1"
  "--overhead x"
  "--bogus"
  "configs/mlp.json"
  "--device cpu"
  "--out"
  "--bundle $out/missing"
  "--bundle $out/bundle --deps $out"
  "--bundle $out/bundle --overhead 2"
)
# refused WHAT PATTERN [VAR=VALUE...] -- ARGS...: gpu-check, with those variables, exits 2 with one line
# that matches PATTERN, and writes nothing.
refused() {
  local what=$1 pattern=$2 status=0
  shift 2
  local vars=()
  while [[ $1 != -- ]]; do vars+=("$1"); shift; done
  shift
  env "${vars[@]}" "$root/scripts/gpu-check" --out "$out/run" "$@" > /dev/null 2> "$out/err" || status=$?
  [[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/run ]] && grep -q -- "$pattern" "$out/err" ||
    { echo "gpu-check $what: exit $status"; cat "$out/err"; exit 1; }
}
for args in "${cases[@]}"; do
  # shellcheck disable=SC2086
  refused "$args" "" -- $args
done
refused "without torch" "" PYTHON="$out/no-python" -- --deps "$out"
# A CUDA build of torch without a matching nvcc (none at all here, or one of another major version).
printf '#!/usr/bin/env bash\n[[ "$*" == *version.cuda* ]] && echo 99.0\nexit 0\n' > "$out/cuda-python"
chmod +x "$out/cuda-python"
refused "with a CUDA torch and no matching nvcc" "CUDA" PYTHON="$out/cuda-python" -- --deps "$out"
# An nvcc on PATH that is a script running no nvcc.
mkdir -p "$out/bin" && printf '#!/usr/bin/env bash\nexit 1\n' > "$out/bin/nvcc" && chmod +x "$out/bin/nvcc"
refused "with an nvcc script that runs none" "runs no nvcc" PATH="$out/bin:$PATH" PYTHON="$out/cuda-python" -- \
  --deps "$out"
# A bundle built against another torch than the machine's.
printf '#!/usr/bin/env bash\n[[ "$*" == *__version__* ]] && echo 2.99.0+cu130\nexit 0\n' > "$out/other-torch"
chmod +x "$out/other-torch"
refused "with a bundle for another torch" "built against torch 0.0.0" PYTHON="$out/other-torch" -- \
  --bundle "$out/bundle"
echo "gpu-check: $((${#cases[@]} + 4)) passed, 0 failed"
