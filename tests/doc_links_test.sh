#!/usr/bin/env bash
# Every relative link in the tree's README.md, docs/ and results/ names a tracked file; and the check fails,
# naming page, line and link, when a page links a record that is on disk but was never committed (planted
# in a repository of its own).
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
python3 "$root/tests/doc_links_test.py" "$root"

git -C "$out" init -q
mkdir -p "$out/docs" "$out/results/record"
printf '# A page\n\nSee [the table](../results/record/README.md) and [the front page](../README.md#usage).\n' \
  >"$out/docs/page.md"
printf '# Front\n\n[A page](docs/page.md), [elsewhere](https://example.org/x.md), `[code](nowhere.md)`\n' \
  >"$out/README.md"
echo "| a | b |" >"$out/results/record/README.md"
git -C "$out" add README.md docs/page.md
if found=$(python3 "$root/tests/doc_links_test.py" "$out"); then
  echo "a link to an untracked record passed the check:"; echo "$found"; exit 1
fi
grep -qx 'dead link (not a tracked file): docs/page.md:3: ../results/record/README.md' <<<"$found" ||
  { echo "$found"; exit 1; }
[[ $(grep -c '^dead link' <<<"$found") == 1 ]] || { echo "$found"; exit 1; }
git -C "$out" add results/record/README.md
python3 "$root/tests/doc_links_test.py" "$out"
echo "a link to an untracked record is caught, and passes once the record is committed"
