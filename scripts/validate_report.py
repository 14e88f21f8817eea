#!/usr/bin/env python3
"""Validates ampbench reports against docs/report.schema.json (JSON Schema 2020-12, with jsonschema).

Usage: validate_report.py PATH [...]; a PATH is a report (a run folder's report.json or an --export-json
file) or a folder, searched for reports: report.json files, and JSON files that hold a schema_version and
trials. Prints each violation with its JSON path and exits 1 if any, or if a folder holds no report.
"""
import json
import pathlib
import sys

import jsonschema

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "docs" / "report.schema.json"


def is_report(path):
    if path.name == "report.json":
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


def violations(validator, path):
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    for error in validator.iter_errors(report):
        yield f"{path}: {error.json_path}: {error.message[:300]}"


def main(paths):
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    found = []
    for given in map(pathlib.Path, paths):
        reports = reports_in(given)
        if not reports:
            found.append(f"{given}: no ampbench report in this folder")
        found += [line for path in reports for line in violations(validator, path)]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
