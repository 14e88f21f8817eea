# Sourced by the shell tests that run ampbench end to end: write_tiny_config FILE RUNS_DIR writes the
# tests' tiny experiment (tests/tiny_config.json: an MLP on the CPU, well under a second) in fp32 and
# bf16, into RUNS_DIR.
write_tiny_config() {
  python3 - "$(dirname "${BASH_SOURCE[0]}")/tiny_config.json" "$1" "$2" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config["precision"] = {"modes": ["fp32", "bf16"]}
config["output"] = {"dir": sys.argv[3]}
json.dump(config, open(sys.argv[2], "w"))
PY
}
