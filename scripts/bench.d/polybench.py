"""PolyBench/C as the kernels of scripts/bench (--polybench DIR; standard library only).

A PolyBench/C 4.x tree (fetched by the user, never part of this repository) is run the
way its own documentation says: each benchmark compiled with utilities/polybench.c,
-DPOLYBENCH_TIME and a dataset size (LARGE by default), its time read from the one line
it prints. Correctness: each configuration is also built with -DPOLYBENCH_DUMP_ARRAYS at
the SMALL size, and its array dump (stderr) must equal O3's byte for byte. Makes the same
result records as bench.py's bench_kernel, so the tables and the roofline are shared.
"""

import statistics
import subprocess
import time
from pathlib import Path


def load(root):
    """The benchmarks under `root`: every <dir>/<name>/<name>.c (utilities left out)."""
    root = Path(root)
    util = root / "utilities"
    if not (util / "polybench.c").is_file():
        raise ValueError(f"{root} is not a PolyBench/C tree (no utilities/polybench.c)")
    kernels = []
    for src in sorted(root.rglob("*.c")):
        if util in src.parents or src.stem != src.parent.name:
            continue
        rel = src.parent.relative_to(root)
        kernels.append({"name": src.stem, "category": str(rel.parent), "src": src,
                        "description": "", "bench_size": 1, "test_sizes": [1],
                        "polybench": root})
    return kernels


def flags(kernel, dataset, dump=False):
    root = kernel["polybench"]
    return ["-I", str(root / "utilities"), "-I", str(kernel["src"].parent),
            f"-D{dataset}_DATASET", "-DPOLYBENCH_TIME",
            *(["-DPOLYBENCH_DUMP_ARRAYS"] if dump else []),
            str(kernel["src"]), str(root / "utilities" / "polybench.c")]


def count_flags(dataset):
    """Compile flags that make every loop bound a constant for the roofline's counts."""
    return [f"-D{dataset}_DATASET", "-DPOLYBENCH_USE_SCALAR_LB", "-fno-inline"]


def _compile(cmd, timeout):
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
        ok, err = r.returncode == 0, r.stderr
    except subprocess.TimeoutExpired:
        ok, err = False, f"compile timed out after {timeout:g} s"
    return ok, err, time.perf_counter() - t0


def _run(exe, timeout):
    """(stdout, stderr, seconds PolyBench printed or None, error or None)."""
    try:
        r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return "", "", None, f"timed out after {timeout:g} s"
    if r.returncode != 0:
        return r.stdout, r.stderr, None, f"exit status {r.returncode}"
    try:
        return r.stdout, r.stderr, float(r.stdout.split()[0]), None
    except (ValueError, IndexError):
        return r.stdout, r.stderr, None, "no time printed (built without -DPOLYBENCH_TIME?)"


def bench(kernel, tag, configs, args, work, progress):
    """One benchmark with every configuration; the record bench.py's tables read."""
    name = kernel["name"]
    active = [c for c in configs if c["status"] == "ok"]
    rec = {"name": name, "category": kernel["category"], "bench_size": args.dataset,
           "size": args.dataset, "check_size": "SMALL", "error": None,
           "configs": {c["name"]: {"status": "ok", "detail": "", "compile_times": [],
                                   "times": [], "median": None, "speedup": None,
                                   "compile_median": None} for c in active}}
    cres = rec["configs"]
    for cfg in active:
        cn = cfg["name"]
        for suffix, dataset, dump in [("", args.dataset, False), (".check", "SMALL", True)]:
            progress.step(f"{tag}: compile {cn}{suffix}")
            cmd = [*cfg["cmd"], *flags(kernel, dataset, dump), "-o",
                   str(work / f"{name}.{cn}{suffix}"), "-lm"]
            ok, err, dt = _compile(cmd, args.compile_timeout)
            if not ok:
                cres[cn].update(status="BUILD-FAIL", detail=err.strip()[:300])
                break
            if not suffix:
                cres[cn]["compile_times"].append(dt)
                cres[cn]["compile_median"] = dt
    if cres["O3"]["status"] != "ok":
        rec["error"] = f"clang -O3 cannot build it: {cres['O3']['detail']}"
        return rec
    ref = None
    for cfg in active:
        cn = cfg["name"]
        if cres[cn]["status"] != "ok":
            continue
        progress.step(f"{tag}: check {cn}")
        _, dump, _, err = _run(work / f"{name}.{cn}.check", args.check_timeout)
        if cn == "O3":
            ref = dump
        if err:
            cres[cn].update(status="FAIL", detail=err)
        elif dump != ref:
            cres[cn].update(status="WRONG", detail="the SMALL array dump differs from O3's")
    for r in range(1, args.runs + 1):
        for cfg in active:
            cn = cfg["name"]
            if cres[cn]["status"] != "ok":
                continue
            progress.step(f"{tag}: run {r}/{args.runs} {cn}")
            _, _, t, err = _run(work / f"{name}.{cn}", args.timeout)
            if err:
                cres[cn].update(status="FAIL", detail=err)
            else:
                cres[cn]["times"].append(t)
    if cres["O3"]["status"] != "ok":
        rec["error"] = f"the O3 build fails: {cres['O3']['detail']}"
        return rec
    base = statistics.median(cres["O3"]["times"])
    for c in cres.values():
        if c["status"] == "ok" and c["times"]:
            c["median"] = statistics.median(c["times"])
            c["speedup"] = base / c["median"] if c["median"] else None
    progress.line(f"{tag}: " + "  ".join(
        f"{cn} {c['median']:.4f}s" if c["median"] else f"{cn} {c['status']}"
        for cn, c in cres.items()))
    return rec
