#!/usr/bin/env bash
# The room units (cmake/RoomUnits.cmake) of a build folder name their sources by their path from the checkout's
# root, never by an absolute path (which would make a clone in another folder miss the compiler cache), and
# every source of src/ and models/ is compiled once: in one unit, or alone (compile_commands.json), or,
# for a flavour's stand-in (`*_none.cpp`, `*_cuda.cpp`), its twin is. A test file is compiled once at most
# (the Python parity tests are left out of a build without PyTorch-Python). The units of the rooms that
# include no LibTorch header (scripts/check_layers.py's TORCH_FREE_ROOMS) compile without its precompiled
# header.
# Usage: room_units_test.sh BUILD_DIR
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
python3 - "$root" "${1:?usage: room_units_test.sh BUILD_DIR}" <<'PY'
import collections, json, pathlib, sys

root, build = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]).resolve()
sys.path.insert(0, str(root / "scripts"))
from check_layers import TORCH_FREE_ROOMS
problems, compiled = [], collections.Counter()
units = sorted(build.glob("**/units/*/*.cpp"))
if not units:
    problems.append(f"no room units under {build}/units")
for unit in units:
    for line in unit.read_text().splitlines():
        if not line.startswith("#include"):
            continue
        path = line.split('"')[1]
        if pathlib.PurePath(path).is_absolute() or not (root / path).is_file():
            problems.append(f"{unit.relative_to(build)}: includes {path}, not a path from the checkout's root")
        compiled[path] += 1
commands = json.loads((build / "compile_commands.json").read_text())
for entry in commands:
    path = pathlib.Path(entry["file"])
    if path.parent.parent == build / "units":
        free, with_pch = path.stem in TORCH_FREE_ROOMS, "cmake_pch" in entry["command"]
        if free and with_pch:
            problems.append(f"{path.relative_to(build)}: a room free of LibTorch, compiled with its precompiled header")
        elif not free and not with_pch:
            problems.append(f"{path.relative_to(build)}: compiled without LibTorch's precompiled header, but not "
                            "held free of LibTorch (scripts/check_layers.py's TORCH_FREE_ROOMS)")
    if path.is_relative_to(root) and not path.is_relative_to(build):
        compiled[str(path.relative_to(root))] += 1
twin = {"_none.cpp": "_cuda.cpp", "_cuda.cpp": "_none.cpp"}
for source in sorted(p for folder in ("src", "models") for p in (root / folder).rglob("*.cpp")):
    name = str(source.relative_to(root))
    count = compiled[name]
    ending = next((e for e in twin if name.endswith(e)), None)
    if count == 0 and ending and compiled[name.removesuffix(ending) + twin[ending]] == 1:
        continue
    if count != 1:
        problems.append(f"{name}: compiled {count} times")
problems += [f"{name}: compiled {n} times" for name, n in sorted(compiled.items())
             if name.startswith("tests/") and n > 1]
print("\n".join(problems) or f"room_units_test: ok ({len(units)} units)")
sys.exit(1 if problems else 0)
PY
