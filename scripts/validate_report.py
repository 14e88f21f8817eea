#!/usr/bin/env python3
"""Validates ampbench reports against docs/report.schema.json, sweep reports (sweep.json) against
docs/sweep.schema.json and --max-batch reports (max_batch.json) against docs/max_batch.schema.json (JSON
Schema 2020-12, with jsonschema).

Usage: validate_report.py PATH [...]; a PATH is a report (a run folder's report.json, an --export-json
file, a sweep.json or a max_batch.json) or a folder, searched for reports: report.json, sweep.json and
max_batch.json files, and JSON files
that hold a schema_version and trials. Prints each violation with its JSON path and exits 1 if any, or if a
folder holds no report.
"""
import json
import pathlib
import sys

import jsonschema

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
SCHEMA = DOCS / "report.schema.json"
SWEEP_SCHEMA = DOCS / "sweep.schema.json"
MAX_BATCH_SCHEMA = DOCS / "max_batch.schema.json"


def is_report(path):
    if path.name in ("report.json", "sweep.json", "max_batch.json"):
        return True
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(document, dict) and "schema_version" in document and "trials" in document


def reports_in(path):
    if not path.is_dir():
        return [path]
    return sorted(p for p in path.rglob("*.json") if p.is_file() and is_report(p))


def violations(validators, path):
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    kind = 0
    if isinstance(report, dict):
        kind = 1 if "sweep_schema_version" in report else 2 if "max_batch_schema_version" in report else 0
    for error in validators[kind].iter_errors(report):
        yield f"{path}: {error.json_path}: {error.message[:300]}"


def main(paths):
    validators = [jsonschema.Draft202012Validator(json.loads(schema.read_text(encoding="utf-8")))
                  for schema in (SCHEMA, SWEEP_SCHEMA, MAX_BATCH_SCHEMA)]
    found = []
    for given in map(pathlib.Path, paths):
        reports = reports_in(given)
        if not reports:
            found.append(f"{given}: no ampbench report in this folder")
        found += [line for path in reports for line in violations(validators, path)]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
