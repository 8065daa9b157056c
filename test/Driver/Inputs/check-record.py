"""Reads an optimization record (clang -fsave-optimization-record) as opt-viewer does and
prints one line per polyrust remark: kind, name, function, line and message. Fails when a
remark lacks a field opt-viewer reads (Pass, Name, DebugLoc, Function, Args)."""
import sys

import yaml


class Remark(dict):
    pass


def remark(kind):
    def construct(loader, node):
        fields = loader.construct_mapping(node, deep=True)
        fields["kind"] = kind
        return fields

    return construct


for kind in ("Passed", "Missed", "Analysis"):
    yaml.SafeLoader.add_constructor("!" + kind, remark(kind))

with open(sys.argv[1]) as f:
    remarks = [r for r in yaml.load_all(f, Loader=yaml.SafeLoader) if r]
for r in remarks:
    missing = [k for k in ("Pass", "Name", "DebugLoc", "Function", "Args") if k not in r]
    if missing:
        sys.exit(f"remark without {', '.join(missing)}: {r}")
    loc = r["DebugLoc"]
    if not all(k in loc for k in ("File", "Line", "Column")):
        sys.exit(f"incomplete DebugLoc: {r}")
    if not isinstance(r["Args"], list) or not all(isinstance(a, dict) for a in r["Args"]):
        sys.exit(f"Args is not a list of mappings: {r}")
    if r["Pass"] != "polyrust":
        continue
    message = "".join(str(v) for a in r["Args"] for v in a.values())
    print(f"{r['kind']} {r['Name']} {r['Function']}:{loc['Line']}: {message}")
print(f"{len(remarks)} remarks")
