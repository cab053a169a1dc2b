#!/usr/bin/env python3
"""Python-side checks for the end-to-end scripts (no jq needed).

    python3 tapcheck.py JSON_FILE|- [KEY=VALUE ...] < CHECKS

CHECKS is Python. It sees
  d            the parsed JSON_FILE (None for "-" or when it does not parse;
               then every check that touches it fails with the reason),
  v            the KEY=VALUE arguments (values parsed as JSON when they can be,
               else kept as strings),
  json, re, math,
  read_csv(path) -> (header list, rows as lists of ints; floats for
               decimals, None for empty fields),
  check(NAME, VALUE, DIAG=None)  one check on a computed value (kw is v).
  t(NAME, EXPR, DIAG=None)  one check: EXPR (a Python expression, as a string)
               is evaluated; the check passes when it is true. On failure the
               expression and, when given, the value of DIAG are reported.
  note(TEXT)   a diagnostic line that the shell side prints as a TAP comment.
Each check prints one line, "ok<TAB>NAME" or "fail<TAB>NAME<TAB>WHY"; the
shell function pyt (in each script) turns them into TAP lines with lib.sh's
ok/not_ok so that the numbering stays in one place.
"""
import json
import math
import re
import sys

ns = {"json": json, "math": math, "re": re}
args = sys.argv[1:]
d = None
load_error = None
if args and args[0] != "-":
    try:
        with open(args[0]) as f:
            d = json.load(f)
    except Exception as e:  # noqa: BLE001 - reported through every check
        load_error = "%s: %s" % (args[0], e)
v = {}
for a in args[1:]:
    key, _, val = a.partition("=")
    try:
        v[key] = json.loads(val)
    except ValueError:
        v[key] = val


def one_line(s):
    return " ".join(str(s).split())[:400]


def t(name, expr, diag=None):
    try:
        passed = bool(eval(expr, ns))
        why = "false: " + expr
        if not passed and diag is not None:
            why += " -- " + repr(eval(diag, ns))
    except Exception as e:  # noqa: BLE001 - a failing check, not a crash
        passed = False
        why = "%s: %s (%s)" % (type(e).__name__, e, expr)
        if load_error:
            why = load_error + "; " + why
    if passed:
        print("ok\t" + one_line(name))
    else:
        print("fail\t" + one_line(name) + "\t" + one_line(why))
    sys.stdout.flush()


def check(name, passed, diag=None):
    """One check on values already computed: passes when passed is true."""
    if passed:
        print("ok\t" + one_line(name))
    else:
        why = "false" if diag is None else "false -- " + repr(diag)
        if load_error:
            why = load_error + "; " + why
        print("fail\t" + one_line(name) + "\t" + one_line(why))
    sys.stdout.flush()


def note(text):
    print("note\t" + one_line(text))


def number(x):
    """A CSV field: an int, a float (ipc), or None when empty (not counted)."""
    if x == "":
        return None
    try:
        return int(x)
    except ValueError:
        return float(x)


def read_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",") if lines else []
    rows = [[number(x) for x in line.split(",")] for line in lines[1:]]
    return header, rows


ns.update({"d": d, "v": v, "kw": v, "t": t, "check": check, "note": note, "read_csv": read_csv})
exec(compile(sys.stdin.read(), "checks", "exec"), ns)
