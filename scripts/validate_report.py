#!/usr/bin/env python3
"""Validates report.json files against docs/report.schema.json (JSON Schema 2020-12, with jsonschema).

Usage: validate_report.py REPORT.json [...]; prints each violation with its JSON path and exits 1 if any.
"""
import json
import pathlib
import sys

import jsonschema

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "docs" / "report.schema.json"


def violations(validator, path):
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    for error in validator.iter_errors(report):
        yield f"{path}: {error.json_path}: {error.message[:300]}"


def main(paths):
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    found = [line for path in paths for line in violations(validator, path)]
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
