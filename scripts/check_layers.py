#!/usr/bin/env python3
"""Fails when a source file includes a header of a higher layer, or of a room beside its own
(docs/ARCHITECTURE.md).

The layers, lowest first: each may include its own headers and those of the layers below it. Rooms that
share a layer (run and compare; sweep and max_batch) stand side by side and include none of each other.
benchmarks/ are programs on the library and app/ (any layer but cli/); tests/ may include anything.

Usage: check_layers.py [ROOT]   (default: the repository this script is in)
"""
import pathlib
import re
import sys

LAYERS = [["util"], ["measure"], ["optim"], ["amp"], ["profile", "numerics"], ["data"], ["models"], ["config"], ["train"],
          ["report"], ["run", "compare"], ["sweep", "max_batch"], ["app"], ["cli"]]
RANK = {name: rank for rank, rooms in enumerate(LAYERS) for name in rooms}
SHOWN = " <- ".join(" | ".join(rooms) for rooms in LAYERS)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"', re.MULTILINE)


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


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    found = violations(root)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} upward or sideways include(s); the layers, lowest first: {SHOWN}")
        return 1
    print(f"layers: no upward or sideways include ({SHOWN})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
