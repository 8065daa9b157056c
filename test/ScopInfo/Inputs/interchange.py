"""Edits an exported region for the import tests: `interchange FILE` swaps the two
loops of statement S1; `corrupt FILE KIND` damages the file in one specific way."""
import json
import sys

mode, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    text = f.read()
if mode == "interchange":
    scop = json.loads(text)
    for st in scop["statements"]:
        if st["name"] == "S1":
            st["schedule"] = "[m] -> { S1[i0, i1] -> [0, i1, 1, i0, 0] }"
    text = json.dumps(scop, indent=2)
elif sys.argv[3] == "syntax":
    text = text[: len(text) // 2]
elif sys.argv[3] == "schedule":
    scop = json.loads(text)
    scop["statements"][1]["schedule"] = "[m] -> { S1[i0, i1] -> [i0 + }"
    text = json.dumps(scop, indent=2)
elif sys.argv[3] == "statement":
    scop = json.loads(text)
    scop["statements"][1]["name"] = "S7"
    text = json.dumps(scop, indent=2)
with open(path, "w") as f:
    f.write(text)
