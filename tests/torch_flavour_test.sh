#!/usr/bin/env bash
# The set-up's LibTorch decisions (scripts/torch-flavour), on any machine: stand-ins for the NVIDIA
# driver's tool, for a CUDA toolkit (a wrapper script in front of a real nvcc) and for a CUDA build of torch
# take the place of the real ones.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [[ $1 == "$2" ]] || fail "$3: expected '$2', got '$1'"; }
flavour() { "$root/scripts/torch-flavour" "$@"; }

# The driver's tool: one that sees an H100 of compute capability 9.0, and one that fails as it does when
# no driver is loaded. Each test puts one of them first on PATH.
mkdir -p "$out/gpu" "$out/nogpu"
cat >"$out/gpu/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in
  -L) echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)" ;;
  *compute_cap*) echo "9.0" ;;
esac
EOF
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2\nexit 9\n' \
  >"$out/nogpu/nvidia-smi"
chmod +x "$out/gpu/nvidia-smi" "$out/nogpu/nvidia-smi"

expect_eq "$(PATH=$out/gpu:$PATH AMPBENCH_TORCH= flavour choose)" "cuda (the NVIDIA driver sees 1 GPU(s))" "a visible GPU"
expect_eq "$(PATH=$out/nogpu:$PATH AMPBENCH_TORCH= flavour choose)" "cpu (no NVIDIA GPU visible)" "no driver"
expect_eq "$(PATH=$out/gpu:$PATH AMPBENCH_TORCH=cpu flavour choose)" "cpu (AMPBENCH_TORCH=cpu)" "AMPBENCH_TORCH=cpu"
expect_eq "$(PATH=$out/nogpu:$PATH AMPBENCH_TORCH=cuda flavour choose)" "cuda (AMPBENCH_TORCH=cuda)" "AMPBENCH_TORCH=cuda"
status=0
AMPBENCH_TORCH=gpu flavour choose >/dev/null 2>"$out/err" || status=$?
expect_eq "$status" 2 "an unknown AMPBENCH_TORCH"
expect_eq "$(cat "$out/err")" "ampbench setup: AMPBENCH_TORCH must be cpu, cuda or auto, got 'gpu'" "its message"

# A CUDA toolkit whose real nvcc is a binary that reports CUDA 13.0, without libnvrtc; in front of it, the
# two-line wrapper script that some machines put on PATH.
mkdir -p "$out/cuda-13.0/bin" "$out/cuda-13.0/lib64" "$out/wrapper"
printf '#include <stdio.h>\nint main(void) { puts("Cuda compilation tools, release 13.0, V13.0.88"); return 0; }\n' \
  >"$out/nvcc.c"
cc -o "$out/cuda-13.0/bin/nvcc" "$out/nvcc.c"
printf '#!/bin/sh\nexec %s "$@"\n' "$out/cuda-13.0/bin/nvcc" >"$out/wrapper/nvcc"
chmod +x "$out/wrapper/nvcc"

# A Python whose torch is a CUDA build of a given version, with pip's libnvrtc beside it.
fake_torch() {  # VERSION -> a python executable
  local site=$out/site-$1
  mkdir -p "$site/torch" "$site/nvidia/cu13/lib"
  touch "$site/nvidia/cu13/lib/libnvrtc.so.13"
  cat >"$site/torch/__init__.py" <<EOF
class version:
    cuda = "$1" or None
class _C:
    @staticmethod
    def _cuda_getArchFlags():
        return "sm_80 sm_90"
EOF
  printf '#!/bin/sh\nPYTHONPATH=%s exec python3 "$@"\n' "$site" >"$out/python-$1"
  chmod +x "$out/python-$1"
  echo "$out/python-$1"
}
cuda13=$(fake_torch 13.0)
cuda12=$(fake_torch 12.8)
cpu=$(fake_torch "")

args() { env -u CUDA_HOME -u CUDA_PATH PATH="$1:$out/wrapper:$PATH" "$root/scripts/torch-flavour" cmake-args "$2"; }
expected="-DCMAKE_CUDA_COMPILER=$out/cuda-13.0/bin/nvcc
-DCUDA_TOOLKIT_ROOT_DIR=$out/cuda-13.0
-DTORCH_CUDA_ARCH_LIST=9.0
-DCUDA_nvrtc_LIBRARY=$out/site-13.0/nvidia/cu13/lib/libnvrtc.so.13"
expect_eq "$(args "$out/gpu" "$cuda13")" "$expected" "the wrapper followed, the GPU's architecture, pip's nvrtc"
expect_eq "$(args "$out/nogpu" "$cuda13" | grep ARCH)" "-DTORCH_CUDA_ARCH_LIST=8.0;9.0" "no GPU: torch's architectures"
expect_eq "$(CUDA_HOME=$out/cuda-13.0 PATH=$out/gpu:$PATH flavour cmake-args "$cuda13" | head -1)" \
  "-DCMAKE_CUDA_COMPILER=$out/cuda-13.0/bin/nvcc" "CUDA_HOME"
touch "$out/cuda-13.0/lib64/libnvrtc.so.13"
[[ $(args "$out/gpu" "$cuda13") == *nvrtc* ]] || fail "a versioned libnvrtc alone is not what CMake finds"
ln -s libnvrtc.so.13 "$out/cuda-13.0/lib64/libnvrtc.so"
[[ $(args "$out/gpu" "$cuda13") != *nvrtc* ]] || fail "a toolkit's own libnvrtc is used"
expect_eq "$(args "$out/gpu" "$cpu")" "" "a CPU torch needs no CUDA arguments"

status=0
args "$out/gpu" "$cuda12" >/dev/null 2>"$out/err" || status=$?
expect_eq "$status" 2 "a CUDA version mismatch"
expect_eq "$(cat "$out/err")" \
  "ampbench setup: the CUDA toolkit in $out/cuda-13.0 is 13.0, torch was built with CUDA 12.8: their major versions must match" \
  "its one line"
status=0
CUDA_HOME=$out/nowhere PATH=$out/gpu:$PATH flavour cmake-args "$cuda13" >/dev/null 2>"$out/err" || status=$?
expect_eq "$status" 2 "a CUDA_HOME without nvcc"
expect_eq "$(cat "$out/err")" "ampbench setup: CUDA_HOME/CUDA_PATH is $out/nowhere, which has no bin/nvcc" "its one line"

# No toolkit on the machine (nothing on PATH, no standard folder): refused in one line until PyPI's
# packages lie beside torch; then pypi-toolkit adds the links nvcc.profile and CMake look for, and
# cmake-args builds against that tree.
bare_path=$out/bare
mkdir -p "$bare_path"
for tool in bash dirname basename readlink head grep sed sort paste mkdir ln; do
  ln -sf "$(command -v "$tool")" "$bare_path/$tool"
done
ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$bare_path/python3"  # not a shim that needs more
bare() { env -u CUDA_HOME -u CUDA_PATH AMPBENCH_CUDA_STANDARD_ROOT=$out/no-standard-folder PATH=$out/nogpu:$bare_path \
  "$root/scripts/torch-flavour" "$@"; }
status=0
bare toolkit "$cuda13" >/dev/null 2>"$out/err" || status=$?
expect_eq "$status:$(cat "$out/err")" "1:" "no toolkit at all: status 1, silent"
# Where it comes from then: PyPI, but only into a venv the set-up installed torch into (its marker file)
# and only for the CUDA major of requirements-cuda-toolkit.txt; a CPU torch needs none.
fake_venv() {  # PYTHON -> that python inside a venv the set-up made
  mkdir -p "$out/venv-$(basename "$1")/bin"
  touch "$out/venv-$(basename "$1")/.installed-requirements-cuda.txt"
  ln -sf "$1" "$out/venv-$(basename "$1")/bin/python"
  echo "$out/venv-$(basename "$1")/bin/python"
}
expect_eq "$(bare toolkit-source "$cpu")" none "a CPU torch needs no toolkit"
expect_eq "$(bare toolkit-source "$(fake_venv "$cuda13")")" pypi "the set-up's venv: from PyPI"
pypi_major=$(sed -n 's/^nvidia-cuda-nvcc==\([0-9]*\)\..*/\1/p' "$root/requirements-cuda-toolkit.txt")
for python in "$cuda13" "$(fake_venv "$cuda12")"; do
  status=0
  bare toolkit-source "$python" >/dev/null 2>"$out/err" || status=$?
  version=$("$python" -c 'import torch; print(torch.version.cuda)')
  expect_eq "$status:$(cat "$out/err")" \
    "2:ampbench setup: torch $python is a CUDA $version build and no CUDA toolkit is installed; the set-up installs only CUDA $pypi_major's, into the venvs it made: install CUDA ${version%%.*}'s toolkit or set CUDA_HOME" \
    "refused: a torch outside the set-up's venvs, or of another CUDA major"
done
status=0
bare cmake-args "$cuda13" >/dev/null 2>"$out/err" || status=$?
expect_eq "$status" 2 "no toolkit for cmake-args"
expect_eq "$(cat "$out/err")" \
  "ampbench setup: torch is a CUDA 13.0 build, and no CUDA toolkit is installed (set CUDA_HOME, or install CUDA 13's toolkit)" \
  "its one line"
pypi=$out/site-13.0/nvidia/cu13
status=0
bare pypi-toolkit "$cuda13" >/dev/null 2>"$out/err" || status=$?
expect_eq "$status:$(cat "$out/err")" \
  "2:ampbench setup: $cuda13 has no CUDA compiler from PyPI (requirements-cuda-toolkit.txt)" "no nvcc from PyPI yet"
mkdir -p "$pypi/bin" "$pypi/include"
cp "$out/cuda-13.0/bin/nvcc" "$pypi/bin/nvcc"
touch "$pypi/lib/libcudart.so.13" "$pypi/include/cuda_runtime.h"
touch "$out/site-13.0/nvidia/__init__.py"  # what makes nvidia importable as the real packages do
expect_eq "$(bare pypi-toolkit "$cuda13")" "$pypi" "pypi-toolkit prints the tree's root"
[[ -f $pypi/targets/x86_64-linux/include/cuda_runtime.h && -e $pypi/lib64/libcudart.so.13 ]] ||
  fail "nvcc.profile's targets/x86_64-linux and FindCUDA's lib64 lead to the tree's include and lib"
expect_eq "$(readlink "$pypi/lib/libcudart.so")" libcudart.so.13 "the unversioned libcudart.so"
expect_eq "$(bare toolkit "$cuda13")" "$pypi" "the PyPI tree is found once it is complete"
expect_eq "$(bare toolkit-source "$(fake_venv "$cuda13")")" installed "nothing more to install then"
expect_eq "$(bare cmake-args "$cuda13" | head -2)" "-DCMAKE_CUDA_COMPILER=$pypi/bin/nvcc
-DCUDA_TOOLKIT_ROOT_DIR=$pypi" "cmake-args uses it"
expect_eq "$(bare pypi-toolkit "$cuda13")" "$pypi" "pypi-toolkit again changes nothing"
echo "torch-flavour: every decision as expected"
