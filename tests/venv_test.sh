#!/usr/bin/env bash
# scripts/venv: clones at the same requirements share one venv outside them; a requirements change, or
# another python3, gets a venv of its own; AMPBENCH_VENV_CACHE=0 keeps it in the clone; a venv already in
# place is kept; a link to a removed venv is remade; venvs unused for 30 days go when a new one is made, each
# under its lock, and a use through an existing link counts.
# A stand-in python3 makes each "venv" (a bin/python) in an instant.
# shellcheck source=tests/preamble.sh
source "$(dirname "${BASH_SOURCE[0]}")/preamble.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }

stand_in_python() {
  mkdir -p "$1"
  cat >"$1/python3" <<EOF
#!/bin/sh
case "\$1" in
  --version) echo "Python $2" ;;
  -m) mkdir -p "\$3/bin" && printf '#!/bin/sh\n' >"\$3/bin/python" && chmod +x "\$3/bin/python" ;;
esac
EOF
  chmod +x "$1/python3"
}
stand_in_python "$out/python-a" 3.11.2
stand_in_python "$out/python-b" 3.12.1
clone() {
  mkdir -p "$out/$1/scripts"
  cp "$root/scripts/venv" "$out/$1/scripts/"
  echo "torch==${2:-2.13.0}" >"$out/$1/requirements.txt"
}
venv() { (cd "$out/$1" && PATH=$out/${3:-python-a}:$PATH AMPBENCH_VENV_CACHE=${2:-$out/cache} scripts/venv .venv); }
target() { readlink "$out/$1/.venv"; }

clone one && venv one 2>"$out/said"
[[ -L $out/one/.venv && -x $out/one/.venv/bin/python ]] || fail "the clone's .venv is not a link to a venv"
[[ $(target one) == "$out/cache/.venv-"* ]] || fail "the venv is not in the cache: $(target one)"
grep -q "making .venv in $out/cache/.venv-" "$out/said" || fail "making the venv was not said: $(cat "$out/said")"

clone two && venv two 2>"$out/said"
[[ $(target two) == "$(target one)" ]] || fail "a clone at the same requirements made another venv"
[[ ! -s $out/said ]] || fail "reusing the venv said: $(cat "$out/said")"

clone newer 2.14.1 && venv newer
[[ $(target newer) != "$(target one)" ]] || fail "a changed requirements file reused the old venv"
clone other-python && venv other-python "$out/cache" python-b
[[ $(target other-python) != "$(target one)" ]] || fail "another python3 reused the venv"

clone in-clone && venv in-clone 0
[[ -d $out/in-clone/.venv && ! -L $out/in-clone/.venv ]] || fail "AMPBENCH_VENV_CACHE=0 did not keep it in the clone"
venv in-clone
[[ ! -L $out/in-clone/.venv ]] || fail "a venv already in the clone was replaced"

rm -rf "$(target two)"
venv two
[[ -x $out/two/.venv/bin/python ]] || fail "a link to a removed venv was not remade"

# A venv whose last use was 40 days ago goes when a new one is made; one used today stays, through a link
# made 40 days ago too; one whose lock another set-up holds stays.
mkdir -p "$out/cache/.venv-stale/bin" "$out/cache/.venv-locked/bin"
touch -d '40 days ago' "$out/cache/.venv-stale.used" "$out/cache/.venv-locked.used" "$(target one).used"
venv one
exec 7>"$out/cache/.venv-locked.lock"
flock 7
clone newest 2.15.0 && venv newest
[[ ! -e $out/cache/.venv-stale && ! -e $out/cache/.venv-stale.used ]] || fail "a venv unused for 40 days was kept"
[[ -x $(target one)/bin/python ]] || fail "a venv in use through an old link was removed"
[[ -d $out/cache/.venv-locked ]] || fail "a venv was removed while another set-up held its lock"
exec 7>&-
echo "venv_test: ok"
