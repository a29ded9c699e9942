#!/usr/bin/python3
"""validate-json-schema.py [--strict] SCHEMA FILE... -- validate YAML or JSON
files against a JSON Schema (draft-07 or 2020-12).

Prints every error as "FILE: at PATH: MESSAGE" and exits 1 if any file is
invalid or unreadable, 2 on a usage error or an invalid schema.  Files
ending in .yaml/.yml are read as YAML with the YAML 1.2 core schema (as
editors read them: `yes` and `on` are strings, not booleans), and a
duplicate key is an error; other files as JSON, or as JSON lines (one
report per line, from `bpfspec run -i -o json`).

--strict treats every object schema that lists its "properties" and says
nothing about others as "additionalProperties": false, so a test can
catch fields a schema does not describe.

Needs Debian's python3-jsonschema and python3-yaml: run it with
/usr/bin/python3, not another python3 that may come first on PATH.
"""
import json
import re
import sys

import jsonschema
import yaml


class Yaml12Loader(yaml.SafeLoader):
    """SafeLoader with YAML 1.2 core-schema scalars and no duplicate keys."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int",
                           "tag:yaml.org,2002:float", "tag:yaml.org,2002:null",
                           "tag:yaml.org,2002:timestamp")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag, _rx, _first in (
        ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
        ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$",
         list("-+0123456789")),
        ("tag:yaml.org,2002:float",
         r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
         r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", list("-+.0123456789"))):
    Yaml12Loader.add_implicit_resolver(_tag, re.compile(_rx), _first)


def _int12(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    return int(text, 16) if text.startswith("0x") else int(text, 10)


def _mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, "duplicate key %r" % (key,), key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int12)
Yaml12Loader.add_constructor("tag:yaml.org,2002:map", _mapping)


def strict(schema):
    """Closes every object schema that lists its properties."""
    if isinstance(schema, dict):
        if schema.get("type") == "object" and "properties" in schema:
            schema.setdefault("additionalProperties", False)
        for v in schema.values():
            strict(v)
    elif isinstance(schema, list):
        for v in schema:
            strict(v)
    return schema


def documents(path):
    """The documents in PATH: one, or one per line of a JSON-lines file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith((".yaml", ".yml")):
        return [yaml.load(text, Loader=Yaml12Loader)]
    try:
        return [json.loads(text)]
    except json.JSONDecodeError as e:
        lines = [l for l in text.splitlines() if l.strip()]
        if e.msg != "Extra data" or len(lines) < 2:
            raise
        return [json.loads(l) for l in lines]


def where(error):
    path = "".join("[%d]" % p if isinstance(p, int) else ".%s" % p
                   for p in error.absolute_path)
    return path.lstrip(".") or "(top level)"


def message(error):
    """The error's message; for "not valid under any of the given schemas",
    with the reason of the closest alternative."""
    text = error.message
    if len(text) > 200:
        text = text[:160] + "..." + text[-37:]
    if error.context:
        # An alternative of the wrong type or value is not the one meant.
        meant = [c for c in error.context if c.validator not in ("type", "const")]
        best = jsonschema.exceptions.best_match(meant or error.context)
        at = "".join("[%d]" % p if isinstance(p, int) else ".%s" % p for p in best.relative_path)
        text += " (%s%s)" % (at + ": " if at else "", message(best))
    return text


def main(argv):
    args = argv[1:]
    be_strict = bool(args) and args[0] == "--strict"
    if be_strict:
        args = args[1:]
    if len(args) < 2:
        sys.stderr.write("usage: validate-json-schema.py [--strict] SCHEMA FILE...\n")
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            schema = json.load(f)
        if be_strict:
            schema = strict(schema)
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except (OSError, ValueError, jsonschema.exceptions.SchemaError) as e:
        sys.stderr.write("%s: invalid schema: %s\n" % (args[0], e))
        return 2
    validator = cls(schema)
    failed = 0
    for path in args[1:]:
        try:
            docs = documents(path)
        except (OSError, ValueError, yaml.YAMLError) as e:
            print("%s: cannot read: %s" % (path, str(e).replace("\n", " ")))
            failed += 1
            continue
        errors = []
        for i, doc in enumerate(docs):
            line = " line %d" % (i + 1) if len(docs) > 1 else ""
            for e in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.path))):
                errors.append("%s:%s at %s: %s" % (path, line, where(e), message(e)))
        for e in errors:
            print(e)
        if errors:
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
