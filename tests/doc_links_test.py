#!/usr/bin/env python3
"""Every relative link in README.md, docs/ and results/ names a file or folder the repository tracks: a
record that exists only on the machine that made it (an ignored folder, a file never added) is a dead link
in every clone.

Usage: doc_links_test.py SOURCE_DIR. Prints each dead link as FILE:LINE: TARGET and exits 1 if any.
"""
import os
import re
import subprocess
import sys

# [text](target) and [text]: target, the two forms the project's Markdown uses; an image is a link too.
INLINE = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)")
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#)", re.IGNORECASE)


def tracked_paths(root):
    files = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True,
                           text=True).stdout.split("\0")
    paths = set()
    for name in filter(None, files):
        parts = name.split("/")
        paths.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return paths


def link_targets(text):
    in_code = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        line = re.sub(r"`[^`]*`", "", line)  # a link inside inline code is text, not a link
        for match in INLINE.finditer(line):
            yield number, match.group(1)
        match = REFERENCE.match(line)
        if match:
            yield number, match.group(1)


def dead_links(root, tracked):
    pages = sorted(p for p in tracked if p.endswith(".md") and (p == "README.md" or p.startswith(("docs/",
                                                                                                 "results/"))))
    for page in pages:
        with open(os.path.join(root, page), encoding="utf-8") as f:
            text = f.read()
        for number, target in link_targets(text):
            if EXTERNAL.match(target):
                continue
            path = target.split("#", 1)[0]
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)).replace(os.sep, "/")
            if resolved not in tracked:
                yield f"{page}:{number}: {target}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    dead = list(dead_links(sys.argv[1], tracked_paths(sys.argv[1])))
    for line in dead:
        print(f"dead link (not a tracked file): {line}")
    print(f"doc_links_test.py: {len(dead)} dead link(s)")
    sys.exit(1 if dead else 0)


if __name__ == "__main__":
    main()
