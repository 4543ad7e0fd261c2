#!/usr/bin/env python3
"""Check the Recount ingest schemas and the test corpus against each other.

    python3 scripts/validate_corpus.py                 # full check, exit 1 on any failure
    python3 scripts/validate_corpus.py --verdicts FILE # one verdict per NDJSON line ('-' = stdin)

Full check:
  * every schemas/*.schema.json is a valid draft 2020-12 schema (check_schema), has a
    `title`, an `$id` under https://recount.dev/schemas/, and a `description` on every
    property; the files equal what schemas/generate.py produces;
  * every `examples` entry anywhere in every schema validates against the subschema that
    carries it;
  * Tests/RecountTests/Fixtures/corpus/valid.ndjson: every line is valid;
  * invalid.ndjson: every line is invalid, and the reported error path equals the `path`
    recorded for that line in invalid.expect.json;
  * semantic_invalid.ndjson: every line passes the schema (the Swift decoder rejects it);
  * every *.expect.json has exactly one entry per line of its NDJSON file.
  Prints a summary per file and finally `N passed, M failed`.

--verdicts prints, per input line, `<line>\t<valid|invalid>\t<path>: <message>` (the third
column is empty for valid lines). Exit status 0 when the file could be read, 2 otherwise.

Validation semantics (mirror these in any other implementation):
  * Lines are UTF-8 JSON (RFC 8259). Not JSON: `NaN`/`Infinity` literals, duplicate object
    keys, lone UTF-16 surrogate escapes (`"\\ud800"`), invalid UTF-8. These are reported at
    path `$` (or at the duplicated key / the string holding the surrogate).
  * Envelopes are validated against schemas/envelope.schema.json with the `date-time`
    format asserted (rfc3339-validator if installed, else an equivalent stdlib check, so
    verdicts do not depend on the machine) and with ECMA-262 `pattern` semantics: `$`
    matches only at the very end (Python's `$` also matches before a trailing newline).
  * Error paths: `field`, `a.b`, `added[3].end`; a missing field is reported at its own
    path, an unknown field at its own path; `$` is the whole line. When several errors are
    found, the one with the deepest path is reported (first in schema order on ties).

Only the standard library, jsonschema (>= 4.18) and referencing are used; no network.
"""
import argparse
import calendar
import json
import re
import sys
from pathlib import Path

from jsonschema import Draft202012Validator, FormatChecker, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry
from referencing.jsonschema import DRAFT202012

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "schemas"
CORPUS_DIR = ROOT / "Tests" / "RecountTests" / "Fixtures" / "corpus"
BASE = "https://recount.dev/schemas/"
ENVELOPE_ID = BASE + "envelope.schema.json"


# ----------------------------------------------------------------------------------------
# Schema loading
# ----------------------------------------------------------------------------------------
def load_schemas():
    schemas = {}
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        with path.open(encoding="utf-8") as f:
            schemas[path.name] = json.load(f)
    registry = Registry().with_resources(
        (s.get("$id", BASE + name), DRAFT202012.create_resource(s)) for name, s in schemas.items()
    )
    return schemas, registry.crawl()


# ----------------------------------------------------------------------------------------
# Format checker: the draft 2020-12 one; date-time falls back to a stdlib check equivalent
# to rfc3339-validator when that package is missing.
# ----------------------------------------------------------------------------------------
_RFC3339 = re.compile(
    r"^(\d{4})-(0[1-9]|1[0-2])-(\d{2})T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?"
    r"(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)\Z", re.ASCII)


def _stdlib_date_time(instance):
    if not isinstance(instance, str):
        return True
    m = _RFC3339.match(instance.upper())
    if not m:
        return False
    year, month, day = (int(g) for g in m.groups())
    return year != 0 and 1 <= day <= calendar.monthrange(year, month)[1]


def make_format_checker():
    base = Draft202012Validator.FORMAT_CHECKER
    if "date-time" in base.checkers:
        return base, "rfc3339-validator"
    checker = FormatChecker(formats=())
    checker.checkers = dict(base.checkers)
    checker.checks("date-time")(_stdlib_date_time)
    return checker, "stdlib fallback"


# ----------------------------------------------------------------------------------------
# Validator: Draft 2020-12 with ECMA-262 `$`, and required / additionalProperties errors
# reported at the path of the missing / unknown field.
# ----------------------------------------------------------------------------------------
_pattern_cache = {}


def ecma_regex(pattern):
    """Compile an ECMA-262 pattern for Python: an unescaped `$` outside a class -> `\\Z`."""
    rx = _pattern_cache.get(pattern)
    if rx is None:
        out, i, in_class = [], 0, False
        while i < len(pattern):
            c = pattern[i]
            if c == "\\":
                out.append(pattern[i:i + 2])
                i += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
            elif c == "$":
                c = r"\Z"
            out.append(c)
            i += 1
        rx = _pattern_cache[pattern] = re.compile("".join(out))
    return rx


def _pattern(validator, patrn, instance, schema):
    if validator.is_type(instance, "string") and not ecma_regex(patrn).search(instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _required(validator, required, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for prop in required:
        if prop not in instance:
            yield ValidationError(f"{prop!r} is a required property", path=[prop])


def _additional_properties(validator, aP, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    props = schema.get("properties", {})
    patterns = [ecma_regex(p) for p in schema.get("patternProperties", {})]
    extras = [k for k in instance if k not in props and not any(p.search(k) for p in patterns)]
    for extra in extras:
        if aP is False:
            yield ValidationError(f"unknown field {extra!r}", path=[extra])
        elif isinstance(aP, dict):
            yield from validator.descend(instance[extra], aP, path=extra)


# `version=` registers the class for the draft 2020-12 meta-schema URI in this process:
# jsonschema picks the validator class of a `$ref` target from its `$schema`, so without the
# registration the overrides would be lost behind every `$ref`.
def _properties(validator, properties, instance, schema):
    # Like the stock keyword, but a `false` property schema reports at the property's path
    # (jsonschema's descend() drops the path for boolean-false subschemas).
    if not validator.is_type(instance, "object"):
        return
    for prop, sub in properties.items():
        if prop not in instance:
            continue
        if sub is False:
            yield ValidationError(f"{prop!r} is not allowed", validator="false",
                                  validator_value=False, path=[prop], schema_path=[prop])
        else:
            yield from validator.descend(instance[prop], sub, path=prop, schema_path=prop)


RecountValidator = validators.extend(
    Draft202012Validator,
    validators={"pattern": _pattern, "required": _required, "properties": _properties,
                "additionalProperties": _additional_properties},
    version="draft2020-12-recount",
)


# ----------------------------------------------------------------------------------------
# Strict JSON parsing
# ----------------------------------------------------------------------------------------
class LineError(Exception):
    def __init__(self, path, message):
        super().__init__(message)
        self.path, self.message = path, message


class _Obj(dict):
    __slots__ = ("dups",)


def _pairs(pairs):
    d = _Obj()
    d.dups = []
    for k, v in pairs:
        if k in d:
            d.dups.append(k)
        d[k] = v
    return d


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON value")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _scan(value, path):
    """Find duplicate keys and lone surrogates; raise LineError at the first one."""
    if isinstance(value, dict):
        for k in getattr(value, "dups", ()):
            raise LineError(path + [k], "duplicate key")
        for k, v in value.items():
            if _SURROGATE.search(k):
                raise LineError(path + [k], "key contains a lone UTF-16 surrogate")
            _scan(v, path + [k])
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _scan(v, path + [i])
    elif isinstance(value, str) and _SURROGATE.search(value):
        raise LineError(path, "contains a lone UTF-16 surrogate")


def parse_line(raw):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise LineError([], f"invalid UTF-8 at byte {e.start}")
    if not text.strip():
        raise LineError([], "empty line")
    try:
        value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_no_constant)
    except ValueError as e:
        raise LineError([], f"invalid JSON: {e}")
    _scan(value, [])
    return value


# ----------------------------------------------------------------------------------------
# Error reporting
# ----------------------------------------------------------------------------------------
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def render_path(path):
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        elif _IDENT.match(p):
            out += ("." if out else "") + p
        else:
            out += "[" + json.dumps(p) + "]"
    return out or "$"


def _short(value):
    s = json.dumps(value, ensure_ascii=True)
    return s if len(s) <= 60 else s[:57] + "..."


def describe(error):
    v, vv = error.validator, error.validator_value
    if v is None or v == "false":  # a `false` subschema
        if "then" in error.schema_path:
            return "is not allowed for this sample type"
        return "is not allowed here"
    if v == "required":
        return "is required"
    if v == "additionalProperties":
        return "is not an allowed field"
    if v == "type" and not error.absolute_path:
        return "an envelope must be a JSON object"
    if v == "type":
        return f"must be of type {vv if isinstance(vv, str) else ' or '.join(vv)}"
    if v == "const":
        return f"must be {_short(vv)}"
    if v == "enum":
        got = _short(error.instance)
        if len(vv) <= 8:
            return f"{got} is not one of " + ", ".join(str(x) for x in vv)
        return f"{got} is not an accepted value"
    if v == "pattern":
        if isinstance(error.schema, dict) and error.schema.get("format") == "date-time":
            return f"{_short(error.instance)} is not a valid RFC 3339 date-time"
        if error.instance == "*" and "*" not in vv:
            return '"*" is only allowed on config.* kinds'
        return f"{_short(error.instance)} does not match {vv}"
    if v == "format":
        return f"{_short(error.instance)} is not a valid RFC 3339 {vv}"
    if v == "anyOf":
        return f"{_short(error.instance)} matches none of the accepted forms"
    if v in ("minItems", "maxItems"):
        return f"must have {'at least' if v == 'minItems' else 'at most'} {vv} item{'s' * (vv != 1)}"
    if v in ("minLength", "maxLength"):
        return (f"must be {'at least' if v == 'minLength' else 'at most'} {vv} "
                f"character{'s' * (vv != 1)}")
    if v in ("minimum", "maximum"):
        return f"must be {'>=' if v == 'minimum' else '<='} {vv}"
    if v in ("minProperties", "maxProperties"):
        return "must have exactly one of upsertion, deletion"
    return error.message


class Checker:
    def __init__(self):
        self.schemas, self.registry = load_schemas()
        self.format_checker, self.format_source = make_format_checker()
        self.envelope = self.validator_for({"$ref": ENVELOPE_ID})

    def validator_for(self, schema):
        return RecountValidator(schema, registry=self.registry,
                                format_checker=self.format_checker)

    def verdict(self, raw):
        """(True, None, None) or (False, path, message) for one raw NDJSON line."""
        try:
            value = parse_line(raw)
        except LineError as e:
            return False, render_path(e.path), e.message
        errors = list(self.envelope.iter_errors(value))
        if not errors:
            return True, None, None
        best = errors[0]
        for e in errors[1:]:
            if len(e.absolute_path) > len(best.absolute_path):
                best = e
        return False, render_path(best.absolute_path), describe(best)


# ----------------------------------------------------------------------------------------
# Full check
# ----------------------------------------------------------------------------------------
SUBSCHEMA_MAPS = ("properties", "$defs", "patternProperties", "dependentSchemas")
SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains",
                 "propertyNames", "unevaluatedItems", "unevaluatedProperties")


def walk(schema, pointer=""):
    """Yield (json-pointer, subschema) for every subschema position."""
    if not isinstance(schema, dict):
        return
    yield pointer, schema
    esc = lambda k: str(k).replace("~", "~0").replace("/", "~1")  # noqa: E731
    for kw in SUBSCHEMA_MAPS:
        for k, sub in schema.get(kw, {}).items():
            yield from walk(sub, f"{pointer}/{esc(kw)}/{esc(k)}")
    for kw in SUBSCHEMA_LISTS:
        for i, sub in enumerate(schema.get(kw, [])):
            yield from walk(sub, f"{pointer}/{esc(kw)}/{i}")
    for kw in SUBSCHEMA_ONE:
        if kw in schema:
            yield from walk(schema[kw], f"{pointer}/{esc(kw)}")


class Tally:
    def __init__(self):
        self.passed = self.failed = 0

    def ok(self, cond, what):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"  FAIL {what}")
        return cond


def check_schemas(chk, tally):
    for name, schema in chk.schemas.items():
        p0, f0 = tally.passed, tally.failed
        try:
            Draft202012Validator.check_schema(schema)
            tally.ok(True, "")
        except Exception as e:  # SchemaError
            tally.ok(False, f"{name}: not a valid draft 2020-12 schema: {e}")
        tally.ok(schema.get("$id") == BASE + name, f"{name}: $id must be {BASE + name}")
        tally.ok(bool(schema.get("title")), f"{name}: missing title")
        undocumented = [f"{ptr}/properties/{k}" for ptr, sub in walk(schema)
                        for k, prop in sub.get("properties", {}).items()
                        if isinstance(prop, dict) and "description" not in prop
                        and not ptr.split("/")[-1] in ("if",)
                        and "/if" not in ptr]
        tally.ok(not undocumented, f"{name}: properties without description: {undocumented}")
        n_examples = 0
        for ptr, sub in walk(schema):
            for i, example in enumerate(sub.get("examples", [])):
                n_examples += 1
                errs = list(chk.validator_for({"$ref": schema["$id"] + "#" + ptr})
                            .iter_errors(example))
                tally.ok(not errs, f"{name}#{ptr}/examples/{i}: "
                         + "; ".join(f"{render_path(e.absolute_path)}: {describe(e)}"
                                     for e in errs[:3]))
        tally.ok(n_examples > 0, f"{name}: no examples")
        print(f"schemas/{name}: {tally.passed - p0} passed, {tally.failed - f0} failed "
              f"({n_examples} examples)")
    generator = SCHEMA_DIR / "generate.py"
    if generator.exists():  # the committed JSON must be what generate.py produces
        import importlib.util
        spec = importlib.util.spec_from_file_location("recount_schema_generate", generator)
        gen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(gen)
        produced = gen.all_schemas()
        stale = sorted(n for n, s in produced.items() if chk.schemas.get(n) != s)
        stale += sorted(set(chk.schemas) - set(produced))
        tally.ok(not stale, f"schemas out of date with generate.py: {stale} "
                            "(run python3 schemas/generate.py)")
    kinds = chk.schemas["envelope.schema.json"]["properties"]["kind"]["enum"]
    covered = {ex.get("kind") for ex in chk.schemas["envelope.schema.json"].get("examples", [])}
    tally.ok(set(kinds) <= covered, f"envelope.schema.json: kinds without an example: "
                                    f"{sorted(set(kinds) - covered)}")


def read_lines(path):
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def check_corpus(chk, tally, name, expect_valid, check_paths):
    path = CORPUS_DIR / name
    expect_path = path.with_name(name.replace(".ndjson", ".expect.json"))
    p0, f0 = tally.passed, tally.failed
    if not tally.ok(path.exists(), f"{path} missing"):
        return
    lines = read_lines(path)
    expected = {}
    if tally.ok(expect_path.exists(), f"{expect_path.name} missing"):
        doc = json.loads(expect_path.read_text(encoding="utf-8"))
        entries = doc.get("lines", [])
        expected = {e["line"]: e for e in entries}
        tally.ok(sorted(expected) == list(range(1, len(lines) + 1)) and len(entries) == len(lines),
                 f"{expect_path.name}: needs exactly one entry per line 1..{len(lines)}")
        for e in entries:
            tally.ok(isinstance(e.get("reason"), str) and e["reason"],
                     f"{expect_path.name} line {e.get('line')}: missing reason")
    for n, raw in enumerate(lines, 1):
        valid, epath, msg = chk.verdict(raw)
        if expect_valid:
            tally.ok(valid, f"{name}:{n}: expected valid, got {epath}: {msg}")
        else:
            if tally.ok(not valid, f"{name}:{n}: expected invalid, schema accepts it "
                                   f"({expected.get(n, {}).get('reason', '?')})") and check_paths:
                want = expected.get(n, {}).get("path")
                tally.ok(want == epath, f"{name}:{n}: error at {epath} ({msg}); "
                                        f"expect.json says {want}")
    print(f"{name}: {len(lines)} lines, {tally.passed - p0} passed, {tally.failed - f0} failed")


def full_check():
    chk = Checker()
    tally = Tally()
    print(f"date-time format check: {chk.format_source}")
    check_schemas(chk, tally)
    check_corpus(chk, tally, "valid.ndjson", True, False)
    check_corpus(chk, tally, "invalid.ndjson", False, True)
    check_corpus(chk, tally, "semantic_invalid.ndjson", True, False)
    print(f"{tally.passed} passed, {tally.failed} failed")
    return 1 if tally.failed else 0


def verdicts(file):
    chk = Checker()
    try:
        data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as e:
        print(f"cannot read {file}: {e}", file=sys.stderr)
        return 2
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    out = sys.stdout
    try:
        for n, raw in enumerate(lines, 1):
            valid, path, msg = chk.verdict(raw)
            detail = "" if valid else f"{path}: {msg}".replace("\t", " ").replace("\n", " ")
            out.write(f"{n}\t{'valid' if valid else 'invalid'}\t{detail}\n")
        out.flush()
    except BrokenPipeError:
        sys.stderr.close()
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--verdicts", metavar="FILE.ndjson",
                    help="print `<line>\\t<valid|invalid>\\t<path: message>` per line")
    args = ap.parse_args()
    sys.exit(verdicts(args.verdicts) if args.verdicts else full_check())


if __name__ == "__main__":
    main()
