# Sourced first by the shell tests: strict mode, $root (the repository) and $out, a scratch folder of the
# test's own that is removed when it exits.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
