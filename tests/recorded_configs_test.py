#!/usr/bin/env python3
"""Every report recorded under results/ still describes the experiment this ampbench would run.

For each results/**/report.json: `ampbench --dry-run` on its recorded config resolves to that config
exactly, and the config's fingerprint (util::fnv1a over the compact dump, less "output") is the recorded
environment.config_hash, which `compare` checks. A change to config parsing, defaults or the fingerprint
that would make a stored baseline another experiment fails here. Reports of schema version 1 predate
keys written since (peak_tflops) and are left out.

Usage: recorded_configs_test.py AMPBENCH_BINARY
"""
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# util::fnv1a's offset basis as the binary has it: a digit short of FNV's 14695981039346656037, kept so
# that every recorded config_hash stays valid.
OFFSET_BASIS = 1469598103934665603
PRIME = 1099511628211


def fingerprint(config):
    config = {key: value for key, value in config.items() if key != "output"}
    text = json.dumps(config, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
    value = OFFSET_BASIS
    for byte in text:
        value = ((value ^ byte) * PRIME) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def check(binary, path, scratch):
    report = json.load(open(os.path.join(ROOT, path)))
    config = report["config"]
    if fingerprint(config) != report["environment"]["config_hash"]:
        return f"{path}: the recorded config's fingerprint is not its config_hash"
    config_file = os.path.join(scratch, "config.json")
    json.dump(config, open(config_file, "w"))
    run = subprocess.run([binary, "--config", config_file, "--dry-run", "-q"], cwd=ROOT, capture_output=True,
                         text=True)
    if run.returncode != 0:
        return f"{path}: --dry-run exited {run.returncode}: {run.stderr.strip()}"
    resolved = json.loads(run.stdout)
    if resolved != config:
        keys = sorted(key for key in set(resolved) | set(config) if resolved.get(key) != config.get(key))
        return f"{path}: resolves to another config (differs in {', '.join(keys)})"
    return None


def main():
    binary = sys.argv[1]
    reports = sorted(glob.glob(os.path.join(ROOT, "results", "**", "report.json"), recursive=True))
    checked, failures = 0, []
    with tempfile.TemporaryDirectory() as scratch:
        for path in reports:
            if json.load(open(path)).get("schema_version", 0) < 2:
                continue
            checked += 1
            failure = check(binary, os.path.relpath(path, ROOT), scratch)
            if failure:
                failures.append(failure)
    for failure in failures:
        print(failure)
    if checked == 0:
        print("no recorded report to check under results/")
        return 1
    print(f"{checked - len(failures)} of {checked} recorded reports resolve to their config and hash")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
