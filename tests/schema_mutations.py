#!/usr/bin/env python3
"""Mutates a valid ampbench report and says, with jsonschema, which mutants still match the schema: the
reference that tests/test_cli_schema.cpp holds ampbench's own schema check (src/util/json_schema.h) to.

Usage: schema_mutations.py SCHEMA DOCUMENT OUT COUNT SEED
Writes COUNT mutants of DOCUMENT into the folder OUT (0.json, 1.json, ...) and OUT/verdicts.json, a list of
{"file", "mutation", "valid"}. Each mutant changes one place of the document, drawn with SEED: its value
replaced by one of another type, sign or size, a key deleted or added, an array emptied or grown.
"""
import copy
import json
import pathlib
import random
import sys

import jsonschema

REPLACEMENTS = (-7, -0.5, 0, 1.5, 2**40, "16", "", None, True, False, {}, [], "\u001b[31m")


def places(document, pointer=()):
    """Every place in the document, as the keys and indices that lead to it."""
    yield pointer
    if isinstance(document, dict):
        for key, value in document.items():
            yield from places(value, pointer + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from places(value, pointer + (index,))


def at(document, pointer):
    for step in pointer:
        document = document[step]
    return document


def mutate(document, pointer, rng):
    """One change at `pointer`, and its description."""
    mutant = copy.deepcopy(document)
    target = at(mutant, pointer)
    parent = at(mutant, pointer[:-1]) if pointer else None
    choices = ["replace"]
    if isinstance(parent, dict):
        choices.append("delete")
    if isinstance(target, dict):
        choices.append("add")
    if isinstance(target, list):
        choices += ["empty", "grow"]
    choice = rng.choice(choices)
    where = "/" + "/".join(map(str, pointer))
    if choice == "replace":
        value = rng.choice(REPLACEMENTS)
        if parent is None:
            return value, f"{where} = {json.dumps(value)}"
        parent[pointer[-1]] = value
        return mutant, f"{where} = {json.dumps(value)}"
    if choice == "delete":
        del parent[pointer[-1]]
        return mutant, f"{where} deleted"
    if choice == "add":
        target["unexpected_key"] = 1
        return mutant, f"{where}/unexpected_key added"
    if choice == "empty":
        target.clear()
        return mutant, f"{where} emptied"
    target.append(copy.deepcopy(target[0]) if target else 1)
    return mutant, f"{where} grown"


def main(schema_path, document_path, out, count, seed):
    schema = json.loads(pathlib.Path(schema_path).read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    document = json.loads(pathlib.Path(document_path).read_text(encoding="utf-8"))
    if not validator.is_valid(document):
        sys.exit(f"{document_path} does not match {schema_path} to begin with")
    rng = random.Random(seed)
    all_places = list(places(document))
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    verdicts = []
    for i in range(count):
        mutant, mutation = mutate(document, rng.choice(all_places), rng)
        name = f"{i}.json"
        (out / name).write_text(json.dumps(mutant, allow_nan=False), encoding="utf-8")
        verdicts.append({"file": name, "mutation": mutation, "valid": validator.is_valid(mutant)})
    (out / "verdicts.json").write_text(json.dumps(verdicts, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
