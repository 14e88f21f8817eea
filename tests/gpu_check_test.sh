#!/usr/bin/env bash
# scripts/gpu-check refuses bad input (options, a missing bundle, a bundle for another torch, a Python without
# torch, no toolkit to build with) in one line with exit 2, before it builds or writes anything: on a short
# loan of a GPU a typo must cost seconds, not a build.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
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
for args in "${cases[@]}"; do
  status=0
  # shellcheck disable=SC2086
  "$root/scripts/gpu-check" --out "$out/run" $args > /dev/null 2> "$out/err" || status=$?
  [[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/run ]] ||
    { echo "gpu-check $args: exit $status"; cat "$out/err"; exit 1; }
done
status=0
PYTHON=$out/no-python "$root/scripts/gpu-check" --out "$out/run" --deps "$out" > /dev/null 2> "$out/err" || status=$?
[[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/run ]] ||
  { echo "gpu-check without torch: exit $status"; cat "$out/err"; exit 1; }
# A CUDA build of torch without a matching nvcc (none at all here, or one of another major version).
printf '#!/usr/bin/env bash\n[[ "$*" == *version.cuda* ]] && echo 99.0\nexit 0\n' > "$out/cuda-python"
chmod +x "$out/cuda-python"
status=0
PYTHON=$out/cuda-python "$root/scripts/gpu-check" --out "$out/run" --deps "$out" > /dev/null 2> "$out/err" || status=$?
[[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/run ]] && grep -q "CUDA" "$out/err" ||
  { echo "gpu-check with a CUDA torch and no matching nvcc: exit $status"; cat "$out/err"; exit 1; }
# An nvcc on PATH that is a script running no nvcc.
mkdir -p "$out/bin" && printf '#!/usr/bin/env bash\nexit 1\n' > "$out/bin/nvcc" && chmod +x "$out/bin/nvcc"
status=0
PATH=$out/bin:$PATH PYTHON=$out/cuda-python "$root/scripts/gpu-check" --out "$out/run" --deps "$out" > /dev/null 2> "$out/err" || status=$?
[[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/run ]] && grep -q "runs no nvcc" "$out/err" ||
  { echo "gpu-check with an nvcc script that runs none: exit $status"; cat "$out/err"; exit 1; }
# A bundle built against another torch than the machine's.
printf '#!/usr/bin/env bash\n[[ "$*" == *__version__* ]] && echo 2.99.0+cu130\nexit 0\n' > "$out/other-torch"
chmod +x "$out/other-torch"
status=0
PYTHON=$out/other-torch "$root/scripts/gpu-check" --out "$out/run" --bundle "$out/bundle" > /dev/null 2> "$out/err" || status=$?
[[ $status == 2 && $(grep -c . "$out/err") == 1 && ! -e $out/run ]] && grep -q "built against torch 0.0.0" "$out/err" ||
  { echo "gpu-check with a bundle for another torch: exit $status"; cat "$out/err"; exit 1; }
echo "gpu-check: $((${#cases[@]} + 4)) passed, 0 failed"
