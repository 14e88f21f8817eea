#!/usr/bin/env python3
"""Fails when a source file includes a header of a higher layer, or of a room beside its own, when a room
holds more than 35 files (docs/ARCHITECTURE.md), or when LibTorch is included where results are plain data:
a header of the report layer or above, or any file of a room that compiles without LibTorch, that reaches
a LibTorch header through its includes (but the few light ones in LIGHT_TORCH_HEADERS).

The layers, lowest first: each may include its own headers and those of the layers below it. Rooms that
share a layer (run and compare; sweep and max_batch) stand side by side and include none of each other.
benchmarks/ are programs on the library and app/ (any layer but cli/); tests/ may include anything.

Usage: check_layers.py [ROOT]   (default: the repository this script is in)
"""
import pathlib
import re
import sys

LAYERS = [["util"], ["measure"], ["optim"], ["amp"], ["profile", "numerics"], ["data"], ["models"], ["config"], ["train"],
          ["passes"], ["report"], ["render"], ["exports"], ["run", "compare"], ["sweep", "max_batch"], ["app"], ["cli"]]
MAX_ROOM_FILES = 35  # a room past this splits along what it holds
RANK = {name: rank for rank, rooms in enumerate(LAYERS) for name in rooms}
SHOWN = " <- ".join(" | ".join(rooms) for rooms in LAYERS)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"', re.MULTILINE)
# Results are plain data from the report layer up: the headers of these layers include no LibTorch header.
PLAIN_HEADERS_FROM = "report"
# The rooms none of whose files includes LibTorch: CMakeLists.txt compiles them without its precompiled header.
TORCH_FREE_ROOMS = ["util", "report", "render", "exports", "compare", "app", "cli"]
# A scalar type, a device, their error type and TORCH_ARG's macro: small headers that plain data may hold.
LIGHT_TORCH_HEADERS = {"c10/core/ScalarType.h", "c10/core/Device.h", "c10/core/DeviceType.h", "c10/util/Exception.h",
                       "torch/arg.h"}
ANY_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"]([^">]+)[">]', re.MULTILINE)


def layer_of(root, path):
    """The layer a file belongs to, or 'program' for benchmarks/, or None for files no rule covers."""
    parts = path.relative_to(root).parts
    if parts[0] == "src" and len(parts) > 2 and parts[1] in RANK:
        return parts[1]
    if parts[0] == "models":
        return "models"
    if parts[0] == "benchmarks":
        return "program"
    return None


def violations(root):
    found = []
    for path in sorted(list(root.glob("src/**/*")) + list(root.glob("models/*")) + list(root.glob("benchmarks/*"))):
        if path.suffix not in (".h", ".cpp"):
            continue
        layer = layer_of(root, path)
        if layer is None:
            continue
        allowed = RANK["cli"] - 1 if layer == "program" else RANK[layer]
        for match in INCLUDE.finditer(path.read_text()):
            target = match.group(1)
            if target not in RANK or target == layer:
                continue
            line = path.read_text()[: match.start()].count("\n") + 1
            if RANK[target] > allowed:
                found.append(f"{path.relative_to(root)}:{line}: {layer} includes {target}/, a higher layer")
            elif layer != "program" and RANK[target] == RANK[layer]:
                found.append(f"{path.relative_to(root)}:{line}: {layer} includes {target}/, a room beside it")
    return found


def torch_path(root, path, seen):
    """The chain of includes from `path` to the first LibTorch header it reaches, or None."""
    if path in seen:
        return None
    seen.add(path)
    for name in ANY_INCLUDE.findall(path.read_text()):
        if name.split("/")[0] in ("torch", "ATen", "c10") and name not in LIGHT_TORCH_HEADERS:
            return [name]
        for base in (root / "src", root):
            if (base / name).is_file():
                chain = torch_path(root, base / name, seen)
                if chain:
                    return [name] + chain
                break
    return None


def torch_includes(root):
    """The files that must be plain data, or compile without LibTorch, and reach it."""
    found = []
    for path in sorted(list(root.glob("src/*/*.h")) + list(root.glob("src/*/*.cpp"))):
        room = path.parent.name
        plain_header = path.suffix == ".h" and RANK.get(room, -1) >= RANK[PLAIN_HEADERS_FROM]
        if room in TORCH_FREE_ROOMS or plain_header:
            chain = torch_path(root, path, set())
            if chain:
                found.append(f"{path.relative_to(root)}: reaches LibTorch: {' -> '.join(chain)}")
    return found


def crowded_rooms(root):
    """The rooms that hold more files than a newcomer can take in."""
    found = []
    for room in [root / "src" / name for rooms in LAYERS for name in rooms] + [root / "models"]:
        files = [p for p in room.glob("*") if p.suffix in (".h", ".cpp")] if room.is_dir() else []
        if len(files) > MAX_ROOM_FILES:
            found.append(f"{room.relative_to(root)}/: {len(files)} files, more than {MAX_ROOM_FILES}")
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = violations(root)
    crowded = crowded_rooms(root)
    torch = torch_includes(root)
    for line in crowded + torch + found:
        print(line)
    if found:
        print(f"{len(found)} upward or sideways include(s); the layers, lowest first: {SHOWN}")
        return 1
    if crowded or torch:
        return 1
    print(f"layers: no upward or sideways include, no LibTorch above passes/ ({SHOWN})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
