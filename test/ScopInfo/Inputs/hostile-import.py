"""Writes hostile variants of an exported region for the import tests:
`hostile-import.py FILE OUT` reads FILE (a -polyrust-export JSON file) and writes, for
each case below, OUT/<case>/<same file name>: malformed files (empty, binary, deeply
nested, wrong top-level type) and well-formed ones that do not match the region."""
import json
import os
import sys

path, out = sys.argv[1], sys.argv[2]
with open(path) as f:
    original = json.load(f)
s1 = "[m] -> { S1[i0, i1] -> [0, %s, 1, %s, 0] }"


def edited(change):
    scop = json.loads(json.dumps(original))
    change(scop)
    return json.dumps(scop, indent=2)


def statement(k, key, value):
    return lambda scop: scop["statements"][k].__setitem__(key, value)


cases = {
    "empty": "",
    "binary": b"\xff\xfe\x00\x01garbage\x80",
    "deep": "[" * 100000 + "]" * 100000,
    "toplevel": "[1, 2, 3]",
    "huge-number": '{"name": 1e999999, "statements": 123456789012345678901234567890}',
    "other-region": edited(lambda scop: scop.__setitem__("name", "another_function:loop")),
    "too-few": edited(lambda scop: scop["statements"].pop()),
    "not-a-string": edited(statement(1, "schedule", 42)),
    "domain": edited(statement(1, "domain", "[m] -> { S1[i0, i1] : 0 <= i0 <= 62 and 0 <= i1 < m }")),
    "dimensions": edited(statement(1, "schedule", "[m] -> { S1[i0, i1] -> [0, i0, 1, i1] }")),
    "not-a-function": edited(statement(1, "schedule", "[m] -> { S1[i0, i1] -> [0, i0, 1, t, 0] : 0 <= t <= 1 }")),
    "partial": edited(statement(1, "schedule", "[m] -> { S1[i0, i1] -> [0, i0, 1, i1, 0] : i0 < 10 }")),
    "parameter": edited(statement(1, "schedule", "[m, q] -> { S1[i0, i1] -> [0, i0, 1, i1 + q, 0] }")),
    "illegal": edited(statement(1, "schedule", s1 % ("-i0", "i1"))),
    "huge-coefficient": edited(statement(1, "schedule", s1 % ("99999999999999999999999999 * i0", "i1"))),
}
name = os.path.basename(path)
for case, text in cases.items():
    os.makedirs(os.path.join(out, case), exist_ok=True)
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(os.path.join(out, case, name), mode) as f:
        f.write(text)
