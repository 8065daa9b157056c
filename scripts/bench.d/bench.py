#!/usr/bin/env python3
"""Benchmark runner behind scripts/bench (standard library only; see --help)."""

import argparse
import datetime
import hashlib
import json
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # keep scripts/bench.d free of __pycache__
import chart  # noqa: E402  (scripts/bench.d/chart.py)
import polybench  # noqa: E402  (scripts/bench.d/polybench.py)
import roofline  # noqa: E402  (scripts/bench.d/roofline.py)

REPO = Path(__file__).resolve().parents[2]
KERNEL_DIR = REPO / "test" / "kernels"
DEFAULT_PLUGIN = REPO / "target" / "release" / "libpolyrust.so"
PROG = os.environ.get("BENCH_PROG") or "scripts/bench"
BASE = "O3"
CONFIG_ORDER = ["O3", "polly", "polyrust", "gcc-graphite"]
CT_TOTAL = 1.5  # polyrust's compile-time target: total at most 1.5x of O3's ...
CT_FILE = 3.0  # ... and no single file above 3x
SLOW = 0.95  # a configuration is "slow" on a kernel below this speedup over O3
TINY = 0.01  # O3 medians below this many seconds are flagged as unreliable

DESCRIPTION = """\
Compares, on the kernel corpus of test/kernels, side by side in one run:
  O3            clang-22 -O3
  polly         clang-22 -O3 -mllvm -polly
  polyrust      clang-22 -O3 -fpass-plugin=target/release/libpolyrust.so
  gcc-graphite  gcc -O3 -floop-nest-optimize   (skipped, with a line saying why,
                if gcc cannot build and run a loop nest with it here)
every one with -lm (and -march=native with --native).

Per kernel: compiles every configuration --compile-runs times (median compile
wall time), runs each at a small test size and compares its stdout byte for byte
with O3's (a difference is WRONG: reported in the table, not timed, exit status
1), then runs the configurations interleaved (O3, polly, polyrust, gcc-graphite,
O3, ...) --runs times at the bench size, timing the kernel by the
`kernel-time:` line it prints on stderr. The stdout of every timed run is also
compared with O3's. Reports the median kernel time and the speedup over O3
(O3 median / median) per configuration, then per configuration the geometric
mean speedup and the number of kernels slower than 0.95x of O3.

The table goes to stdout, progress to stderr; results.md, results.json (every
raw time) and speedups.svg go to bench-results/<timestamp>/."""

EPILOG = """\
examples:
  scripts/bench                                   every kernel, 5 runs
  scripts/bench --kernels matmul_ptr,cov_matrix --runs 3 --size-scale 0.3
  scripts/bench --category stencil --configs polly,polyrust
  scripts/bench --dry-run
  scripts/bench --roofline --runs 3               the table with each kernel's roofline
  scripts/bench --roofline --polybench ~/PolyBenchC-4.2.1 --runs 3
  scripts/bench --compile-only a.c b.c --cflags "-I inc -DN=64" --runs 3

environment: CLANG (default clang-22), GCC (default gcc).
exit status: 0 all good; 1 a WRONG output or a failed build or run (after the
report); 2 bad usage or a missing tool; 130 interrupted (partial report)."""


class UsageError(Exception):
    """Bad input or a missing tool: printed as one message, exit status 2."""


# --------------------------------------------------------------------------- #
# Small helpers                                                                #
# --------------------------------------------------------------------------- #

class Progress:
    """Progress on stderr: one overwritten line on a terminal, else one line per step."""

    def __init__(self):
        self.tty = sys.stderr.isatty()
        self.width = 0

    def step(self, text):
        if self.tty:
            pad = max(0, self.width - len(text))
            sys.stderr.write("\r" + text + " " * pad)
            self.width = len(text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def line(self, text):
        if self.tty and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            self.width = 0
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def median(values):
    return statistics.median(values) if values else None


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt_time(t):
    return "-" if t is None else f"{t:.4f}"


def fmt_speedup(s, mark=True, same=False):
    if s is None:
        return "-"
    return f"{s:.2f}x" + ("*" if mark and s < SLOW else "") + ("=" if same else "")


def first_lines(text, n=6):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    out = lines[:n]
    if len(lines) > n:
        out.append(f"... ({len(lines) - n} more lines)")
    return out


def first_difference(a, b):
    """One line describing where two outputs first differ."""
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: O3 `{x.strip()}` vs `{y.strip()}`"
    if len(la) != len(lb):
        return f"O3 prints {len(la)} lines, this configuration {len(lb)}"
    return "outputs differ in whitespace or line endings"


def capture(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return (r.stdout or r.stderr).strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def read_file(path):
    try:
        return Path(path).read_text(errors="replace")
    except OSError:
        return ""


# --------------------------------------------------------------------------- #
# polyrust's stage times (-ftime-report)                                       #
# --------------------------------------------------------------------------- #

STAGES = ["detect", "model", "deps", "schedule", "ast", "codegen"]
TR_ROW = re.compile(r"^\s*((?:[0-9.]+\s*\(\s*[0-9.]+%\)\s*)+)(\S.*?)\s*$")


def parse_stage_times(text):
    """Seconds per stage of the "polyrust stages" timer group that clang's -ftime-report
    prints on stderr: the User+System column when there is one, else the first number of
    the row. A stage that never ran is absent; {} when there is no such group."""
    times, lines, i = {}, text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() != "polyrust stages":
            i += 1
            continue
        col, i = 0, i + 1
        if i < len(lines) and lines[i].lstrip().startswith("==="):
            i += 1  # the rule under the title; the next one ends the group
        while i < len(lines) and not lines[i].lstrip().startswith("==="):
            line = lines[i]
            i += 1
            if "Name" in line and "---" in line:
                heads = [h.strip() for h in re.findall(r"-+\s*([^-]+?)\s*-+", line)]
                col = heads.index("User+System") if "User+System" in heads else 0
                continue
            m = TR_ROW.match(line)
            if not m or not m.group(2).startswith("polyrust: "):
                continue
            nums = re.findall(r"([0-9.]+)\s*\(", m.group(1))
            stage = m.group(2)[len("polyrust: "):].strip()
            try:
                times[stage] = times.get(stage, 0.0) + float(nums[min(col, len(nums) - 1)])
            except (ValueError, IndexError):
                pass
    return times


def stage_names(stage_dicts):
    """The known stages in pipeline order, then any other stage seen, sorted."""
    seen = set()
    for d in stage_dicts:
        seen.update(d or {})
    return [st for st in STAGES if st in seen] + sorted(seen - set(STAGES))


def stage_report(cmd, timeout):
    """Runs one extra (untimed) compile with -ftime-report; (stage times, error or None)."""
    try:
        r = subprocess.run([*cmd, "-ftime-report"], capture_output=True, text=True,
                           timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return {}, f"the -ftime-report compile timed out after {timeout:g} s"
    except OSError as e:
        return {}, str(e)
    if r.returncode != 0:
        return {}, " | ".join(first_lines(r.stderr, 2)) or f"exit status {r.returncode}"
    return parse_stage_times(r.stderr), None


def stage_table(names, stage_dicts, total_label="total"):
    """(headers, rows, footer) of the seconds per polyrust stage; stage_dicts[i] is None
    when there is nothing for names[i]."""
    stages = stage_names(stage_dicts)
    head = ["", *[f"{st} s" for st in stages], "stages s"]
    rows, sums = [], {st: 0.0 for st in stages}
    for name, d in zip(names, stage_dicts):
        if d is None:
            rows.append([name] + ["-"] * (len(stages) + 1))
            continue
        for st in stages:
            sums[st] += d.get(st, 0.0)
        rows.append([name, *[fmt_time(d.get(st)) for st in stages],
                     fmt_time(sum(d.values()))])
    foot = [[total_label, *[fmt_time(sums[st]) for st in stages], fmt_time(sum(sums.values()))]]
    return head, rows, foot, sums


# --------------------------------------------------------------------------- #
# Kernels                                                                      #
# --------------------------------------------------------------------------- #

META = re.compile(r"^//\s*(KERNEL|CATEGORY|SIZES|DESCRIPTION):\s*(.*?)\s*$")


def load_kernels():
    kernels = []
    for src in sorted(KERNEL_DIR.glob("*.c")):
        meta = {}
        for line in read_file(src).splitlines()[:20]:
            m = META.match(line)
            if m:
                meta[m.group(1)] = m.group(2)
        sizes = meta.get("SIZES", "")
        test = re.search(r"test=([0-9,]+)", sizes)
        bench = re.search(r"bench=([0-9]+)", sizes)
        if not (test and bench):
            print(f"{PROG}: warning: {src.relative_to(REPO)} has no usable "
                  f"`// SIZES: test=... bench=N` line; left out", file=sys.stderr)
            continue
        kernels.append({
            "name": meta.get("KERNEL") or src.stem,
            "category": meta.get("CATEGORY", "unknown"),
            "description": meta.get("DESCRIPTION", ""),
            "src": src,
            "test_sizes": [int(x) for x in test.group(1).split(",") if x],
            "bench_size": int(bench.group(1)),
        })
    if not kernels:
        raise UsageError(f"no kernels found in {KERNEL_DIR} "
                         "(is this a complete checkout of polyrust?)")
    return kernels


def columns(names, indent="  ", width=78):
    w = max(len(n) for n in names) + 2
    per = max(1, (width - len(indent)) // w)
    rows = [names[i:i + per] for i in range(0, len(names), per)]
    return "\n".join(indent + "".join(n.ljust(w) for n in r).rstrip() for r in rows)


def select_kernels(kernels, args):
    by_name = {k["name"]: k for k in kernels}
    chosen = kernels
    if args.kernels is not None:
        wanted = [w.strip() for w in args.kernels.split(",") if w.strip()]
        wanted = [w[:-2] if w.endswith(".c") else w for w in wanted]
        wanted = [os.path.basename(w) for w in wanted]
        unknown = [w for w in wanted if w not in by_name]
        if unknown:
            raise UsageError(
                f"unknown kernel{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}\n"
                f"the kernels are:\n{columns(sorted(by_name))}")
        if not wanted:
            raise UsageError("--kernels needs a comma-separated list of kernel names")
        seen = set()
        chosen = [by_name[w] for w in wanted if not (w in seen or seen.add(w))]
    if args.category is not None:
        cats = sorted({k["category"] for k in kernels})
        if args.category not in cats:
            raise UsageError(f"unknown category: {args.category}\n"
                             f"the categories are: {', '.join(cats)}")
        chosen = [k for k in chosen if k["category"] == args.category]
        if not chosen:
            raise UsageError(f"none of the chosen kernels is in category {args.category}")
    return chosen


def bench_size(kernel, scale):
    return max(1, int(round(kernel["bench_size"] * scale)))


def check_size(kernel, override):
    return override if override is not None else max(kernel["test_sizes"])


# --------------------------------------------------------------------------- #
# Configurations                                                               #
# --------------------------------------------------------------------------- #

PROBE_C = r"""
#include <stdio.h>
#include <math.h>
#define N 48
static double A[N][N], B[N][N], C[N][N];
int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            A[i][j] = (i + 2 * j) % 7 / 8.0;
            B[i][j] = (3 * i + j) % 5 / 4.0;
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                C[i][j] += A[i][k] * B[k][j];
    double s = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j];
    printf("probe %.17g %.17g\n", s, sqrt(s));
    return 0;
}
"""


def find_tool(env, default, fallback=None):
    value = os.environ.get(env)
    if value:
        path = shutil.which(value)
        if not path:
            raise UsageError(f"{env}={value}: no such program")
        return path
    path = shutil.which(default)
    if not path and fallback and os.access(fallback, os.X_OK):
        path = fallback
    return path


def make_configs(args):
    clang = find_tool("CLANG", "clang-22", "/usr/lib/llvm-22/bin/clang")
    if not clang:
        raise UsageError("clang-22 not found: run scripts/setup (it installs LLVM 22 and "
                         "clang 22), or set CLANG=/path/to/clang")
    plugin = Path(args.plugin).resolve() if args.plugin else DEFAULT_PLUGIN
    if not plugin.is_file():
        if args.plugin:
            raise UsageError(f"--plugin {args.plugin}: no such file")
        raise UsageError(f"the plugin is not built ({plugin.relative_to(REPO)} is missing): "
                         "run scripts/setup")
    gcc = find_tool("GCC", "gcc")
    native = ["-march=native"] if args.native else []
    specs = {
        "O3": [clang, "-O3", *native],
        "polly": [clang, "-O3", "-mllvm", "-polly", *native],
        "polyrust": [clang, "-O3", f"-fpass-plugin={plugin}", *native],
        "gcc-graphite": [gcc or "gcc", "-O3", "-floop-nest-optimize", *native],
    }
    wanted = CONFIG_ORDER
    if args.configs is not None:
        names = [c.strip() for c in args.configs.split(",") if c.strip()]
        unknown = [c for c in names if c not in specs]
        if unknown:
            raise UsageError(f"unknown configuration: {', '.join(unknown)}\n"
                             f"the configurations are: {', '.join(CONFIG_ORDER)}")
        wanted = [c for c in CONFIG_ORDER if c == BASE or c in names]
    configs = []
    for name in wanted:
        # "flags" is what the reports show; "cmd" what runs (the plugin copy, see main)
        cfg = {"name": name, "flags": specs[name], "cmd": list(specs[name]), "status": "ok",
               "reason": ""}
        if name == "gcc-graphite" and not gcc:
            cfg.update(status="skipped", reason="gcc not found")
        configs.append(cfg)
    return configs, clang, gcc, plugin


def compile_cmd(cfg, src, out, shown=False):
    return [*cfg["flags" if shown else "cmd"], str(src), "-o", str(out), "-lm"]


def snapshot_plugin(configs, plugin, work):
    """Copies the plugin into the work folder and points the polyrust configuration at the
    copy, so that a rebuild of target/ during a long run cannot mix two plugins."""
    copy = work / plugin.name
    try:
        shutil.copy2(plugin, copy)
    except OSError as e:
        raise UsageError(f"cannot copy the plugin {plugin}: {e}")
    for cfg in configs:
        if cfg["name"] == "polyrust":
            cfg["cmd"] = [copy_flag(a, plugin, copy) for a in cfg["cmd"]]
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()[:16]
    st = copy.stat()
    return (f"{plugin} ({st.st_size} bytes, built "
            f"{datetime.datetime.fromtimestamp(st.st_mtime):%Y-%m-%d %H:%M:%S}, sha256 "
            f"{digest}...; copied at the start and used throughout)")


def copy_flag(arg, plugin, copy):
    return f"-fpass-plugin={copy}" if arg == f"-fpass-plugin={plugin}" else arg


def probe_configs(configs, work):
    """Compile and run a small loop nest with every configuration; skip what fails."""
    src = work / "probe.c"
    src.write_text(PROBE_C)
    outputs = {}
    for cfg in configs:
        if cfg["status"] != "ok":
            continue
        exe = work / f"probe.{cfg['name']}"
        why = None
        try:
            r = subprocess.run(compile_cmd(cfg, src, exe), capture_output=True, text=True,
                               timeout=300)
            if r.returncode != 0:
                why = ("cannot compile a test loop nest: "
                       + (" | ".join(first_lines(r.stderr, 3))
                          or f"exit status {r.returncode}, no message"))
            else:
                r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
                if r.returncode != 0 or not r.stdout.startswith("probe "):
                    why = f"its test program fails (exit status {r.returncode})"
                else:
                    outputs[cfg["name"]] = r.stdout
        except (OSError, subprocess.SubprocessError) as e:
            why = f"cannot run: {e}"
        if why is None:
            continue
        if cfg["name"] == BASE:
            raise UsageError(f"clang -O3 {why}\nrun scripts/setup (it installs clang 22)")
        if cfg["name"] == "polyrust":
            raise UsageError(f"clang with the polyrust plugin {why}\n"
                             "the plugin may be stale or broken: run scripts/setup "
                             "(it rebuilds target/release/libpolyrust.so)")
        cfg.update(status="skipped", reason=why)
    return outputs


# --------------------------------------------------------------------------- #
# Running                                                                      #
# --------------------------------------------------------------------------- #

KTIME = re.compile(r"^kernel-time:\s*([0-9.eE+-]+)\s*$", re.M)


def timed_compile(cmd, timeout):
    """Runs one compile: (ok, stderr or why it failed, seconds)."""
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, errors="replace")
        ok, err = r.returncode == 0, r.stderr
    except subprocess.TimeoutExpired:
        ok, err = False, f"compile timed out after {timeout:g} s"
    except OSError as e:
        ok, err = False, str(e)
    return ok, err, time.perf_counter() - t0


def run_binary(exe, size, timeout):
    """Runs exe with argv[1] = size. Returns (stdout, kernel time or None, error or None)."""
    try:
        r = subprocess.run([str(exe), str(size)], capture_output=True, text=True,
                           timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return "", None, f"timed out after {timeout:g} s at n={size}"
    except OSError as e:
        return "", None, f"cannot run: {e}"
    if r.returncode != 0:
        what = (f"killed by signal {-r.returncode}" if r.returncode < 0
                else f"exit status {r.returncode}")
        msg = " | ".join(first_lines(r.stderr, 2))
        return r.stdout, None, f"{what} at n={size}" + (f": {msg}" if msg else "")
    times = KTIME.findall(r.stderr)
    if not times:
        return r.stdout, None, f"no `kernel-time:` line on stderr at n={size}"
    try:
        return r.stdout, sum(float(t) for t in times), None
    except ValueError:
        return r.stdout, None, f"unreadable kernel-time at n={size}: {times}"


def bench_kernel(kernel, k, nk, configs, args, work, progress):
    """Everything for one kernel; returns its result record."""
    name = kernel["name"]
    tag = f"[{k}/{nk}] {name}"
    active = [c for c in configs if c["status"] == "ok"]
    rec = {
        "name": name, "category": kernel["category"],
        "bench_size": kernel["bench_size"],
        "size": bench_size(kernel, args.size_scale),
        "check_size": check_size(kernel, args.check_size),
        "error": None,
        "configs": {c["name"]: {"status": "ok", "detail": "", "compile_times": [],
                                "times": [], "median": None, "speedup": None,
                                "compile_median": None} for c in active},
    }
    cres = rec["configs"]
    exe = {c["name"]: work / f"{name}.{c['name']}" for c in active}

    # 1. compile, each configuration --compile-runs times, interleaved
    for rep in range(1, args.compile_runs + 1):
        for cfg in active:
            cn = cfg["name"]
            if cres[cn]["status"] != "ok":
                continue
            progress.step(f"{tag}: compile {rep}/{args.compile_runs} {cn}")
            cmd = compile_cmd(cfg, kernel["src"], exe[cn])
            ok, err, dt = timed_compile(cmd, args.compile_timeout)
            if not ok:
                cres[cn]["status"] = "BUILD-FAIL"
                cres[cn]["detail"] = " | ".join(first_lines(err, 4)) or "compiler failed"
                progress.line(f"{tag}: {cn}: BUILD FAILED: {cres[cn]['detail']}")
                continue
            cres[cn]["compile_times"].append(dt)
    for cn, c in cres.items():
        c["compile_median"] = median(c["compile_times"]) if c["status"] == "ok" else None
    # polyrust's seconds per stage: one more compile, with -ftime-report, not in the times
    for cfg in active:
        if cfg["name"] == "polyrust" and cres["polyrust"]["status"] == "ok":
            progress.step(f"{tag}: compile -ftime-report polyrust")
            st, err = stage_report(compile_cmd(cfg, kernel["src"], work / f"{name}.tr"),
                                   args.compile_timeout)
            cres["polyrust"]["stage_times"] = None if err else st
            if err:
                progress.line(f"{tag}: polyrust: no stage times: {err}")
    if cres[BASE]["status"] != "ok":
        rec["error"] = f"clang -O3 cannot build it: {cres[BASE]['detail']}"
        return rec
    # a program byte-identical to O3's: any difference in time is noise
    base_bytes = exe[BASE].read_bytes()
    for cn, c in cres.items():
        if cn != BASE:
            c["same_binary_as_O3"] = c["status"] == "ok" and exe[cn].read_bytes() == base_bytes

    # 2. correctness at a small size: stdout byte-identical to O3's
    n = rec["check_size"]
    ref = None
    for cfg in active:
        cn = cfg["name"]
        if cres[cn]["status"] != "ok":
            continue
        progress.step(f"{tag}: check n={n} {cn}")
        out, _, err = run_binary(exe[cn], n, args.check_timeout)
        if cn == BASE:
            if err:
                rec["error"] = f"clang -O3 build fails at the check size: {err}"
                return rec
            ref = out
        elif err:
            cres[cn].update(status="FAIL", detail=err)
            progress.line(f"{tag}: {cn}: RUN FAILED: {err}")
        elif out != ref:
            cres[cn].update(status="WRONG",
                            detail=f"stdout differs from O3 at n={n}: {first_difference(ref, out)}")
            progress.line(f"{tag}: {cn}: WRONG OUTPUT at n={n}: {first_difference(ref, out)}")

    # 3. timed runs at the bench size, round-robin over the configurations
    n = rec["size"]
    ref = None
    for r in range(1, args.runs + 1):
        for cfg in active:
            cn = cfg["name"]
            if cres[cn]["status"] != "ok":
                continue
            progress.step(f"{tag}: run {r}/{args.runs} {cn} (n={n})")
            out, t, err = run_binary(exe[cn], n, args.timeout)
            if cn == BASE:
                if err:
                    rec["error"] = f"clang -O3 build fails at n={n}: {err}"
                    return rec
                if ref is None:
                    ref = out
                elif out != ref:
                    rec["error"] = f"the O3 build prints different stdout from run to run at n={n}"
                    return rec
            elif err:
                cres[cn].update(status="FAIL", detail=err)
                progress.line(f"{tag}: {cn}: RUN FAILED: {err}")
                continue
            elif out != ref:
                cres[cn].update(status="WRONG", detail=f"stdout differs from O3 at the bench "
                                f"size n={n} (run {r}): {first_difference(ref, out)}")
                progress.line(f"{tag}: {cn}: WRONG OUTPUT at n={n}: {first_difference(ref, out)}")
                continue
            cres[cn]["times"].append(t)

    base = median(cres[BASE]["times"])
    for cn, c in cres.items():
        if c["status"] == "ok":
            c["median"] = median(c["times"])
            if base is not None and c["median"]:
                c["speedup"] = base / c["median"]
    summary = "  ".join(
        f"{cn} {fmt_time(c['median'])}s" + (f" ({c['speedup']:.2f}x)" if cn != BASE and
                                             c["speedup"] else "")
        if c["status"] == "ok" else f"{cn} {c['status']}"
        for cn, c in cres.items())
    progress.line(f"{tag}: {summary}")
    return rec


# --------------------------------------------------------------------------- #
# Report                                                                       #
# --------------------------------------------------------------------------- #

def noise(rec):
    """Largest relative spread (max-min)/median of the timed runs over the configurations."""
    spreads = [(max(c["times"]) - min(c["times"])) / c["median"]
               for c in rec["configs"].values()
               if c["status"] == "ok" and len(c["times"]) > 1 and c["median"]]
    return max(spreads) if spreads else None


def summarize(results, configs):
    summary = {}
    for cfg in configs:
        cn = cfg["name"]
        if cfg["status"] != "ok":
            continue
        speedups, ratios, slow, bad, wrong = [], [], [], [], []
        for rec in results:
            c = rec["configs"].get(cn)
            if c is None or rec["error"]:
                continue
            if c["status"] != "ok":
                bad.append(f"{rec['name']} ({c['status']})")
            if c["status"] == "WRONG":
                wrong.append(rec["name"])
            if c["speedup"] is not None:
                speedups.append(c["speedup"])
                if c["speedup"] < SLOW:
                    slow.append(rec["name"])
            base_ct = rec["configs"][BASE]["compile_median"]
            if c["compile_median"] and base_ct:
                ratios.append(c["compile_median"] / base_ct)
        summary[cn] = {"geomean_speedup": geomean(speedups), "kernels_compared": len(speedups),
                       "slower_than_0.95": len(slow), "slow_kernels": slow,
                       "not_usable": bad, "wrong": wrong,
                       "same_binary_as_O3": sum(1 for rec in results if not rec["error"] and
                                                rec["configs"].get(cn, {}).get(
                                                    "same_binary_as_O3")),
                       "geomean_compile_ratio": geomean(ratios)}
    return summary


def cell_time(c):
    if c is None:
        return "-"
    return fmt_time(c["median"]) if c["status"] == "ok" else c["status"]


def tables(results, configs, summary):
    """(headers, rows, footer rows) of the run table and of the compile table."""
    active = [c["name"] for c in configs if c["status"] == "ok"]
    others = [cn for cn in active if cn != BASE]
    head = ["kernel", "n", f"{BASE} s"]
    for cn in others:
        head += [f"{cn} s", f"{cn} x"]
    head.append("noise")
    rows = []
    for rec in results:
        if rec["error"]:
            rows.append([rec["name"], str(rec["size"]), "ERROR"] + ["-"] * (2 * len(others))
                        + ["-"])
            continue
        cs = rec["configs"]
        base = cs[BASE]["median"]
        row = [rec["name"], str(rec["size"]),
               fmt_time(base) + ("?" if base is not None and base < TINY else "")]
        for cn in others:
            row += [cell_time(cs[cn]), fmt_speedup(cs[cn]["speedup"],
                                                   same=cs[cn].get("same_binary_as_O3"))]
        nz = noise(rec)
        row.append("-" if nz is None else f"{100 * nz:.0f}%")
        rows.append(row)
    foot = []
    if others:
        g = ["geomean", "", ""]
        s = [f"slower than {SLOW}x", "", ""]
        m = ["kernels compared", "", ""]
        w = ["WRONG / failed", "", ""]
        b = ["same binary as O3", "", ""]
        for cn in others:
            sm = summary[cn]
            g += ["", fmt_speedup(sm["geomean_speedup"], mark=False)]
            s += ["", str(sm["slower_than_0.95"])]
            m += ["", str(sm["kernels_compared"])]
            w += ["", f"{len(sm['wrong'])} / {len(sm['not_usable']) - len(sm['wrong'])}"]
            b += ["", str(sm["same_binary_as_O3"])]
        foot = [g + [""], s + [""], m + [""], w + [""], b + [""]]
    run_table = (head, rows, foot)

    chead = ["kernel"] + [f"{cn} s" for cn in active]
    crows = []
    for rec in results:
        row = [rec["name"]]
        for cn in active:
            c = rec["configs"].get(cn)
            if c is None:
                row.append("-")
            elif c["status"] == "BUILD-FAIL":
                row.append("BUILD-FAIL")
            else:
                row.append(fmt_time(c["compile_median"]))
        crows.append(row)
    cfoot = [["geomean vs O3"] + ["1.00x" if cn == BASE else
                                  fmt_speedup(summary[cn]["geomean_compile_ratio"], mark=False)
                                  for cn in active]]
    return run_table, (chead, crows, cfoot)


def render_text(table):
    head, rows, foot = table
    allrows = [head] + rows + foot
    widths = [max(len(r[i]) for r in allrows) for i in range(len(head))]

    def fmt(r):
        return "  ".join(r[i].ljust(widths[i]) if i == 0 else r[i].rjust(widths[i])
                         for i in range(len(r))).rstrip()
    rule = "-" * len(fmt(["x" * w for w in widths]))
    out = [fmt(head), rule] + [fmt(r) for r in rows]
    if foot:
        out += [rule] + [fmt(r) for r in foot]
    return "\n".join(out)


def render_md(table):
    head, rows, foot = table

    def esc(s):
        return s.replace("|", "\\|").replace("*", "\\*")
    out = ["| " + " | ".join(esc(h) for h in head) + " |",
           "|" + "|".join([":---"] + ["---:"] * (len(head) - 1)) + "|"]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    out += ["| " + " | ".join(f"**{esc(c)}**" if c else "" for c in r) + " |" for r in foot]
    return "\n".join(out)


def problems(results, configs):
    out = []
    for cfg in configs:
        if cfg["status"] != "ok":
            out.append(f"{cfg['name']}: configuration skipped: {cfg['reason']}")
    for rec in results:
        if rec["error"]:
            out.append(f"{rec['name']}: ERROR: {rec['error']}")
            continue
        for cn, c in rec["configs"].items():
            if c["status"] != "ok":
                out.append(f"{rec['name']}: {cn}: {c['status']}: {c['detail']}")
    return out


def is_failure(results):
    return any(rec["error"] or any(c["status"] != "ok" for c in rec["configs"].values())
               for rec in results)


def machine_info(clang, gcc, plugin_desc):
    cpu = "unknown"
    for line in read_file("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = ""
    m = re.search(r"MemTotal:\s*(\d+) kB", read_file("/proc/meminfo"))
    if m:
        mem = f"{int(m.group(1)) / 1048576:.1f} GiB"
    osname = ""
    m = re.search(r'^PRETTY_NAME="?([^"\n]*)', read_file("/etc/os-release"), re.M)
    if m:
        osname = m.group(1)
    commit = capture(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    if commit and capture(["git", "-C", str(REPO), "status", "--porcelain",
                           "--untracked-files=no"]):
        commit += " (with uncommitted changes)"
    return {
        "cpu": cpu, "cpus": os.cpu_count(), "memory": mem, "os": osname,
        "kernel": platform.release(), "hostname": platform.node(),
        "clang": capture([clang, "--version"]).splitlines()[0] if clang else "",
        "gcc": (capture([gcc, "--version"]).splitlines() or [""])[0] if gcc else "not found",
        "polyrust_commit": commit or "unknown", "plugin": plugin_desc,
        "python": platform.python_version(),
    }


def write_results(outdir, meta, results, configs, summary, run_t, comp_t, probs,
                  stage_t=None):
    outdir.mkdir(parents=True, exist_ok=True)
    active = [c for c in configs if c["status"] == "ok"]
    others = [c["name"] for c in active if c["name"] != BASE]
    mi = meta["machine"]
    md = [f"# polyrust benchmark, {meta['started']}", ""]
    md += ["Command (run in `" + meta["cwd"] + "`):", "", "```sh", meta["command"], "```", ""]
    if meta.get("interrupted"):
        md += [f"**Interrupted** after {len(results)} of {meta['kernels_planned']} kernels.", ""]
    md += ["## Speedup over clang -O3", "",
           f"Median `kernel-time` of {meta['runs']} interleaved runs per configuration at the "
           f"bench size (`// SIZES: bench=` x {meta['size_scale']:g}); `x` = O3 median / "
           f"median; `*` = slower than {SLOW}x of O3; `=` = the program is byte-identical "
           f"to O3's (any difference is noise); `noise` = the largest (max-min)/median "
           f"of a kernel's runs over the configurations; `?` = O3 time below {TINY} s "
           "(unreliable). WRONG: stdout differs from O3's (not timed); FAIL: crash, timeout "
           "or no kernel-time; BUILD-FAIL: the compiler failed.", "",
           render_md(run_t), ""]
    md += ["| configuration | geomean speedup | kernels compared | slower than 0.95x | "
           "WRONG | failed | same binary as O3 | geomean compile time vs O3 |",
           "|:---|---:|---:|---:|---:|---:|---:|---:|"]
    for cn in others:
        s = summary[cn]
        md.append(f"| {cn} | {fmt_speedup(s['geomean_speedup'], mark=False)} | "
                  f"{s['kernels_compared']} | {s['slower_than_0.95']} | {len(s['wrong'])} | "
                  f"{len(s['not_usable']) - len(s['wrong'])} | {s['same_binary_as_O3']} | "
                  f"{fmt_speedup(s['geomean_compile_ratio'], mark=False)} |")
    md += ["", "![speedups](speedups.svg)", ""]
    md += ["## Compile time", "",
           f"Median wall time of {meta['compile_runs']} compiles (seconds).", "",
           render_md(comp_t), ""]
    if stage_t:
        md += ["## polyrust stages", "",
               "Seconds per stage (User+System) from `-ftime-report` (the \"polyrust "
               "stages\" timer group) of one extra compile per kernel, not counted in the "
               "compile times above; `-` = no report.", "", render_md(stage_t), ""]
    md += ["## Configurations", ""]
    for cfg in configs:
        cmd = shlex.join(cfg["flags"] + ["KERNEL.c", "-o", "KERNEL", "-lm"])
        if cfg["status"] == "ok":
            md.append(f"- `{cfg['name']}`: `{cmd}`")
        else:
            md.append(f"- `{cfg['name']}`: skipped: {cfg['reason']}")
    md.append("")
    if probs:
        md += ["## Problems", ""] + [f"- {p}" for p in probs] + [""]
    md += ["## Machine", "",
           f"- CPU: {mi['cpu']} ({mi['cpus']} logical CPUs), memory {mi['memory']}",
           f"- OS: {mi['os']}, Linux {mi['kernel']}, host {mi['hostname']}",
           f"- clang: {mi['clang']}",
           f"- gcc: {mi['gcc']}",
           f"- polyrust: commit {mi['polyrust_commit']}",
           f"- plugin: {mi['plugin']}",
           f"- load average at start {meta['loadavg_start']}, at end {meta['loadavg_end']}",
           f"- started {meta['started']}, finished {meta['finished']} "
           f"({meta['elapsed_s']:.0f} s)", ""]
    (outdir / "results.md").write_text("\n".join(md))

    doc = dict(meta)
    doc["configurations"] = [{"name": c["name"], "command": c["flags"] + ["KERNEL.c", "-o",
                              "KERNEL", "-lm"], "status": c["status"], "reason": c["reason"]}
                             for c in configs]
    doc["kernels"] = [{**{k: v for k, v in rec.items() if k != "configs"},
                       "noise": noise(rec), "configs": rec["configs"]} for rec in results]
    doc["summary"] = summary
    doc["problems"] = probs
    (outdir / "results.json").write_text(json.dumps(doc, indent=2) + "\n")

    bars = [(rec["name"], {cn: (None if rec["error"] else rec["configs"][cn]["speedup"],
                                "ERROR" if rec["error"] else rec["configs"][cn]["status"])
                           for cn in others}) for rec in results]
    geo = {cn: summary[cn]["geomean_speedup"] for cn in others}
    subtitle = (f"{meta['started']}, {mi['cpu']}, median of {meta['runs']} runs, "
                f"sizes x {meta['size_scale']:g}" + (", -march=native" if meta["native"] else ""))
    (outdir / "speedups.svg").write_text(chart.speedup_svg(bars, others, geo, subtitle,
                                                           meta["command"]))


# --------------------------------------------------------------------------- #
# --roofline                                                                   #
# --------------------------------------------------------------------------- #

def measure_roofline(args, kernels, results, clang, plugin, work, progress):
    """The machine's peak and bandwidth, and each result's counts (rec["roofline"])."""
    try:
        machine = roofline.measure_machine(clang, work, progress)
        opt = roofline.find_opt(clang)
    except (roofline.RooflineError, OSError, subprocess.SubprocessError) as e:
        progress.line(f"{PROG}: no roofline: {e}")
        return None
    counter = roofline.printer_plugin(opt, [plugin, DEFAULT_PLUGIN])
    if counter is None:
        progress.line(f"{PROG}: no roofline: no plugin with print<polyrust-roofline> "
                      f"(build {DEFAULT_PLUGIN.relative_to(REPO)})")
        return None
    machine["counted_with"] = str(counter)
    by_name = {k["name"]: k for k in kernels}
    for rec in results:
        kernel = by_name[rec["name"]]
        progress.step(f"roofline: counting {rec['name']}")
        if args.polybench:
            rec["roofline"] = roofline.count_kernel(
                clang, opt, counter, kernel["src"],
                ["-I", str(kernel["polybench"] / "utilities"),
                 *polybench.count_flags(args.dataset)],
                lambda f: f.startswith("kernel_"))
        else:
            rec["roofline"] = roofline.count_kernel(
                clang, opt, counter, kernel["src"], [f"-DPR_FIXED_SIZE={rec['size']}"],
                lambda f: f != "main" and not f.startswith("pr_"))
    return machine


def report_roofline(results, configs, machine, meta):
    names = [c["name"] for c in configs if c["status"] == "ok"]
    roof_t, points = roofline.table(results, names, machine)
    meta["roofline_machine"] = machine
    print()
    print(f"Roofline: one core, peak {machine['peak_gflops']:.1f} GFLOP/s ({machine['isa']}, "
          f"{machine['chains']} independent chains), triad bandwidth "
          f"{machine['bandwidth_gbs']:.1f} GB/s (3 arrays of "
          f"{machine['triad_array_bytes'] >> 20} MiB, last-level cache "
          f"{machine['last_level_cache_bytes'] >> 20} MiB)")
    print("  GFLOP and MB (compulsory traffic: distinct elements read + written) from "
          "print<polyrust-roofline>; bound = min(peak, flop/B x bandwidth); % = time at "
          "the bound / median time; 'int': a kernel without floating-point operations, "
          "its integer operations on loaded values (add, compare, min/max) counted "
          "instead, against the same peak")
    print(render_text(roof_t))
    subtitle = (f"{meta['started']}, {meta['machine']['cpu']}, one core; "
                + ("PolyBench " + meta.get("dataset", "") if meta.get("dataset") else "corpus"))
    roof_t = (roof_t, roofline.svg(points, names, machine, subtitle))
    return roof_t


def write_roofline(outdir, roof_t, machine, meta):
    table, plot = roof_t
    (outdir / "roofline.svg").write_text(plot)
    md = ["", "## Roofline", "",
          f"One core: peak {machine['peak_gflops']:.1f} GFLOP/s ({machine['isa']}), triad "
          f"bandwidth {machine['bandwidth_gbs']:.1f} GB/s. GFLOP and MB (compulsory traffic: "
          "distinct elements read and written, times their size) are polyrust's counts "
          "from the model (`print<polyrust-roofline>`); bound = min(peak, flop/B x "
          "bandwidth); % = time at the bound / median time. A GFLOP figure marked `int` is "
          "a kernel without floating-point operations: its integer operations on loaded "
          "values (add, compare, min/max) are counted instead, against the same peak.",
          "", render_md(table), "",
          "![roofline](roofline.svg)", ""]
    with open(outdir / "results.md", "a") as f:
        f.write("\n".join(md))
    doc = json.loads((outdir / "results.json").read_text())
    doc["roofline_machine"] = machine
    (outdir / "results.json").write_text(json.dumps(doc, indent=2) + "\n")


# --------------------------------------------------------------------------- #
# --compile-only: compile times of any C files                                 #
# --------------------------------------------------------------------------- #

def compile_only_main(args, argv):
    started = datetime.datetime.now()
    t_start = time.time()
    try:
        cflags = shlex.split(args.cflags)
    except ValueError as e:
        raise UsageError(f"--cflags {args.cflags!r}: {e}")
    files = []
    for f in args.compile_only:
        path = Path(f).expanduser()
        if not path.is_file():
            raise UsageError(f"--compile-only {f}: no such file")
        files.append({"name": f, "src": path.resolve()})
    configs, clang, gcc, plugin = make_configs(args)
    outdir = results_dir(args, started)
    progress = Progress()

    def cmd_of(cfg, src, obj, shown=False):
        return [*cfg["flags" if shown else "cmd"], *cflags, "-c", str(src), "-o", str(obj)]

    with tempfile.TemporaryDirectory(prefix="polyrust-bench.") as tmp:
        work = Path(tmp)
        plugin_desc = snapshot_plugin(configs, plugin, work)
        probe_configs(configs, work)
        for cfg in configs:
            if cfg["status"] != "ok":
                progress.line(f"{PROG}: {cfg['name']}: SKIPPED: {cfg['reason']}")
        active = [c for c in configs if c["status"] == "ok"]
        if args.dry_run:
            print("dry run: nothing is compiled (the compilers were probed)")
            for cfg in configs:
                if cfg["status"] == "ok":
                    print(f"  {cfg['name']:<13} "
                          + shlex.join(cmd_of(cfg, "FILE.c", "FILE.o", shown=True)))
                else:
                    print(f"  {cfg['name']:<13} SKIPPED: {cfg['reason']}")
            print(f"{args.runs} compiles per configuration of: "
                  + ", ".join(f["name"] for f in files))
            return 0
        progress.line(f"{PROG}: compile only: {len(files)} files, configurations "
                      f"{', '.join(c['name'] for c in active)}, {args.runs} compiles each")
        loadavg_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
        interrupted = False
        for i, f in enumerate(files, 1):
            f["configs"] = {c["name"]: {"status": "ok", "detail": "", "compile_times": [],
                                        "compile_median": None, "ratio_to_O3": None}
                            for c in active}
        try:
            for i, f in enumerate(files, 1):
                tag = f"[{i}/{len(files)}] {f['name']}"
                cres = f["configs"]
                for rep in range(1, args.runs + 1):
                    for cfg in active:
                        cn = cfg["name"]
                        if cres[cn]["status"] != "ok":
                            continue
                        progress.step(f"{tag}: compile {rep}/{args.runs} {cn}")
                        cmd = cmd_of(cfg, f["src"], work / f"{i}.{cn}.o")
                        ok, err, dt = timed_compile(cmd, args.compile_timeout)
                        if not ok:
                            cres[cn]["status"] = "BUILD-FAIL"
                            cres[cn]["detail"] = " | ".join(first_lines(err, 4)) or "failed"
                            progress.line(f"{tag}: {cn}: BUILD FAILED: {cres[cn]['detail']}")
                            continue
                        cres[cn]["compile_times"].append(dt)
                for cn, c in cres.items():
                    if c["status"] == "ok":
                        c["compile_median"] = median(c["compile_times"])
                for cfg in active:
                    if cfg["name"] == "polyrust" and cres["polyrust"]["status"] == "ok":
                        progress.step(f"{tag}: compile -ftime-report polyrust")
                        st, err = stage_report(cmd_of(cfg, f["src"], work / f"{i}.tr.o"),
                                               args.compile_timeout)
                        cres["polyrust"]["stage_times"] = None if err else st
                        if err:
                            progress.line(f"{tag}: polyrust: no stage times: {err}")
                base = cres[BASE]["compile_median"]
                for cn, c in cres.items():
                    if base and c["compile_median"] is not None:
                        c["ratio_to_O3"] = c["compile_median"] / base
                f["done"] = True
                progress.line(f"{tag}: " + "  ".join(
                    f"{cn} {fmt_time(c['compile_median'])}s"
                    + (f" ({c['ratio_to_O3']:.2f}x)" if cn != BASE and c["ratio_to_O3"]
                       else "") if c["status"] == "ok" else f"{cn} {c['status']}"
                    for cn, c in cres.items()))
        except KeyboardInterrupt:
            interrupted = True
            progress.line(f"{PROG}: interrupted; reporting the files done")
    done = [f for f in files if f.get("done")]
    failed = [f for f in done if any(c["status"] != "ok" for c in f["configs"].values())]

    # the table: per file the median per configuration and its ratio to O3
    names = [c["name"] for c in active]
    others = [cn for cn in names if cn != BASE]
    head = ["file", f"{BASE} s"]
    for cn in others:
        head += [f"{cn} s", f"{cn} x"]
    rows = []
    for f in done:
        cs = f["configs"]
        row = [f["name"], fmt_time(cs[BASE]["compile_median"]) if cs[BASE]["status"] == "ok"
               else cs[BASE]["status"]]
        for cn in others:
            c = cs[cn]
            row += [fmt_time(c["compile_median"]) if c["status"] == "ok" else c["status"],
                    "-" if c["ratio_to_O3"] is None else f"{c['ratio_to_O3']:.2f}x"]
        rows.append(row)
    # totals over the files every configuration compiled
    complete = [f for f in done if all(c["compile_median"] is not None
                                       for c in f["configs"].values())]
    totals = {cn: sum(f["configs"][cn]["compile_median"] for f in complete) for cn in names}
    trow = [f"total ({len(complete)} file{'' if len(complete) == 1 else 's'})", fmt_time(totals[BASE] if complete else None)]
    for cn in others:
        ratio = totals[cn] / totals[BASE] if complete and totals[BASE] else None
        trow += [fmt_time(totals[cn] if complete else None),
                 "-" if ratio is None else f"{ratio:.2f}x"]
    comp_t = (head, rows, [trow])

    stage_t, stage_sums = None, None
    if "polyrust" in names:
        sh, srows, sfoot, stage_sums = stage_table(
            [f["name"] for f in done],
            [f["configs"]["polyrust"].get("stage_times") for f in done], "total")
        stage_t = (["file"] + sh[1:], srows, sfoot)

    # polyrust's compile-time target
    target = None
    if "polyrust" in names and complete and totals[BASE]:
        total_ratio = totals["polyrust"] / totals[BASE]
        worst = max(complete, key=lambda f: f["configs"]["polyrust"]["ratio_to_O3"] or 0)
        worst_ratio = worst["configs"]["polyrust"]["ratio_to_O3"] or 0
        above = [f["name"] for f in complete
                 if (f["configs"]["polyrust"]["ratio_to_O3"] or 0) > CT_FILE]
        target = {
            "total_ratio": total_ratio, "total_limit": CT_TOTAL,
            "total_ok": total_ratio <= CT_TOTAL,
            "worst_file": worst["name"], "worst_ratio": worst_ratio,
            "file_limit": CT_FILE, "files_above_limit": above, "files_ok": not above,
        }
    target_lines = []
    if target:
        target_lines = [
            f"polyrust total compile time {target['total_ratio']:.2f}x of O3 "
            f"(target at most {CT_TOTAL}x): "
            + ("MET" if target["total_ok"] else "NOT MET"),
            f"polyrust worst file {target['worst_ratio']:.2f}x of O3 ({target['worst_file']}; "
            f"target no file above {CT_FILE}x): "
            + ("MET" if target["files_ok"] else
               f"NOT MET ({len(target['files_above_limit'])} above: "
               + ", ".join(target["files_above_limit"]) + ")")]
    probs = [f"{cfg['name']}: configuration skipped: {cfg['reason']}"
             for cfg in configs if cfg["status"] != "ok"]
    for f in failed:
        for cn, c in f["configs"].items():
            if c["status"] != "ok":
                probs.append(f"{f['name']}: {cn}: {c['status']}: {c['detail']}")

    print(f"Compile time (-c, median of {args.runs} compiles, seconds) and ratio to O3"
          + (f"; extra flags: {shlex.join(cflags)}" if cflags else ""))
    print(render_text(comp_t))
    if stage_t:
        print()
        print("polyrust seconds per stage (-ftime-report of one extra compile, User+System)")
        print(render_text(stage_t))
    if target_lines:
        print()
        for ln in target_lines:
            print(ln)
    if probs:
        print()
        print("Problems:")
        for pr in probs:
            print(f"  {pr}")

    finished = datetime.datetime.now()
    meta = {
        "mode": "compile-only",
        "command": shlex.join([PROG] + argv), "argv": argv, "cwd": os.getcwd(),
        "started": started.strftime("%Y-%m-%d %H:%M:%S"),
        "finished": finished.strftime("%Y-%m-%d %H:%M:%S"),
        "elapsed_s": time.time() - t_start, "interrupted": interrupted,
        "runs": args.runs, "cflags": cflags, "native": args.native,
        "compile_timeout_s": args.compile_timeout, "loadavg_start": loadavg_start,
        "loadavg_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "machine": machine_info(clang, gcc, plugin_desc),
    }
    try:
        outdir.mkdir(parents=True, exist_ok=True)
        mi = meta["machine"]
        md = [f"# polyrust compile-time benchmark, {meta['started']}", "",
              "Command (run in `" + meta["cwd"] + "`):", "", "```sh", meta["command"], "```",
              "", "## Compile time", "",
              f"Median wall time of {args.runs} compiles (`-c`, seconds) and its ratio to "
              "O3's; the total is over the files every configuration compiled.", "",
              render_md(comp_t), ""]
        if stage_t:
            md += ["## polyrust stages", "",
                   "Seconds per stage (User+System) from `-ftime-report` of one extra "
                   "compile per file, not counted in the compile times above.", "",
                   render_md(stage_t), ""]
        if target_lines:
            md += ["## Target", ""] + [f"- {ln}" for ln in target_lines] + [""]
        md += ["## Configurations", ""]
        for cfg in configs:
            cmd = shlex.join(cmd_of(cfg, "FILE.c", "FILE.o", shown=True))
            md.append(f"- `{cfg['name']}`: `{cmd}`" if cfg["status"] == "ok"
                      else f"- `{cfg['name']}`: skipped: {cfg['reason']}")
        md.append("")
        if probs:
            md += ["## Problems", ""] + [f"- {p}" for p in probs] + [""]
        md += ["## Machine", "",
               f"- CPU: {mi['cpu']} ({mi['cpus']} logical CPUs), memory {mi['memory']}",
               f"- clang: {mi['clang']}", f"- gcc: {mi['gcc']}",
               f"- polyrust: commit {mi['polyrust_commit']}", f"- plugin: {mi['plugin']}",
               f"- load average at start {meta['loadavg_start']}, at end "
               f"{meta['loadavg_end']}", ""]
        (outdir / "results.md").write_text("\n".join(md))
        doc = dict(meta)
        doc["configurations"] = [{"name": c["name"],
                                  "command": cmd_of(c, "FILE.c", "FILE.o", shown=True),
                                  "status": c["status"], "reason": c["reason"]}
                                 for c in configs]
        doc["files"] = [{"name": f["name"], "path": str(f["src"]),
                         "configs": f["configs"]} for f in done]
        doc["totals_s"] = totals if complete else None
        doc["polyrust_stage_totals_s"] = stage_sums
        doc["target"] = target
        doc["problems"] = probs
        (outdir / "results.json").write_text(json.dumps(doc, indent=2) + "\n")
        print(f"\nresults: {outdir}/results.md, results.json")
    except OSError as e:
        print(f"{PROG}: cannot write the results to {outdir}: {e}", file=sys.stderr)
        return 1
    if interrupted:
        return 130
    return 1 if failed else 0


# --------------------------------------------------------------------------- #
# Main                                                                         #
# --------------------------------------------------------------------------- #

def positive_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    return v


def nonneg_int(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}")
    if v < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {v}")
    return v


def positive_float(text):
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}")
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return v


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernels", metavar="A,B,C",
                   help="only these kernels (names as in test/kernels, without .c)")
    p.add_argument("--category", metavar="CAT",
                   help="only kernels of this category (linear-algebra, stencil, "
                        "data-analysis, dynamic-programming, image, irregular)")
    p.add_argument("--configs", metavar="A,B",
                   help="only these configurations (O3 is always included, as the baseline)")
    p.add_argument("--runs", type=positive_int, default=5, metavar="N",
                   help="timed runs per configuration and kernel (default 5)")
    p.add_argument("--size-scale", type=positive_float, default=1.0, metavar="F",
                   help="multiply every bench size by F, e.g. 0.3 for a quick run "
                        "(default 1; sizes above a kernel's capacity make its runs fail)")
    p.add_argument("--native", action="store_true",
                   help="add -march=native to every configuration")
    p.add_argument("--compile-runs", type=positive_int, default=3, metavar="N",
                   help="compiles per configuration and kernel for the compile time (default 3)")
    p.add_argument("--check-size", type=nonneg_int, metavar="N",
                   help="size of the correctness check (default: each kernel's largest "
                        "test size)")
    p.add_argument("--timeout", type=positive_float, default=300, metavar="SEC",
                   help="limit per timed run (default 300 s)")
    p.add_argument("--plugin", metavar="PATH",
                   help="the polyrust plugin (default target/release/libpolyrust.so)")
    p.add_argument("--out", metavar="DIR",
                   help="parent folder of the results (default bench-results/ in the repository)")
    p.add_argument("--keep-binaries", action="store_true",
                   help="keep the compiled programs in <results>/bin")
    p.add_argument("--dry-run", action="store_true",
                   help="print what would run (compilers are probed), run nothing")
    p.add_argument("--compile-timeout", type=positive_float, default=600, metavar="SEC",
                   help="limit per compile (default 600 s)")
    p.add_argument("--compile-only", nargs="+", metavar="FILE.c",
                   help="compile-time mode for any C files (not corpus kernels): compiles "
                        "each with every configuration (-c, to an object) --runs times and "
                        "reports the median compile time, its ratio to O3 and polyrust's "
                        "seconds per stage, then the totals against polyrust's target "
                        f"(total at most {CT_TOTAL}x of O3, no file above {CT_FILE}x)")
    p.add_argument("--roofline", action="store_true",
                   help="also measure this machine's one-core FMA peak (a generated kernel "
                        "of independent vector FMA chains, -march=native) and its streaming "
                        "bandwidth (a triad on arrays far larger than the last-level "
                        "cache), count each kernel's floating-point operations and "
                        "compulsory memory traffic with polyrust's print<polyrust-roofline> "
                        "(at the bench size, fixed at compile time), and report per "
                        "configuration GFLOP/s, the bound min(peak, AI x bandwidth) and the "
                        "share of it reached, with roofline.svg")
    p.add_argument("--polybench", metavar="DIR",
                   help="run the benchmarks of a PolyBench/C 4.x tree (fetched by you) "
                        "instead of the kernel corpus: each built with "
                        "utilities/polybench.c and -DPOLYBENCH_TIME, checked against O3 by "
                        "its SMALL array dump")
    p.add_argument("--dataset", default="LARGE",
                   choices=["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"],
                   help="PolyBench dataset size for --polybench (default LARGE)")
    p.add_argument("--cflags", metavar="FLAGS", default="",
                   help="extra compiler flags for --compile-only, one quoted string, e.g. "
                        "--cflags \"-I dir -DX\" (a single flag: --cflags=-DX)")
    args = p.parse_args(argv)
    if args.compile_only is None and args.cflags:
        p.error("--cflags goes with --compile-only")
    if args.compile_only is not None and (args.kernels or args.category):
        p.error("--compile-only takes files, not --kernels or --category")
    args.check_timeout = 120
    return args


def results_dir(args, started):
    parent = Path(args.out).expanduser() if args.out else REPO / "bench-results"
    parent = parent if parent.is_absolute() else Path.cwd() / parent
    stamp = started.strftime("%Y%m%d-%H%M%S")
    outdir, i = parent / stamp, 1
    while outdir.exists():
        i += 1
        outdir = parent / f"{stamp}-{i}"
    return outdir


def dry_run(args, kernels, configs, outdir):
    print("dry run: nothing is compiled or run (the compilers were probed)")
    print("configurations (O3 is the baseline):")
    for cfg in configs:
        if cfg["status"] == "ok":
            print(f"  {cfg['name']:<13} "
                  + shlex.join(compile_cmd(cfg, "test/kernels/KERNEL.c", "BIN", shown=True)))
        else:
            print(f"  {cfg['name']:<13} SKIPPED: {cfg['reason']}")
    active = [c["name"] for c in configs if c["status"] == "ok"]
    print(f"per kernel: compile each configuration {args.compile_runs}x (median compile "
          f"time); run `BIN <check n>` with each and compare stdout with O3's; then "
          f"{args.runs} rounds of {', '.join(active)} running `BIN <bench n>`, "
          f"timeout {args.timeout:g} s per run")
    w = max(len(k["name"]) for k in kernels)
    print(f"kernels ({len(kernels)}):")
    for k in kernels:
        n = bench_size(k, args.size_scale)
        scaled = f" ({k['bench_size']} x {args.size_scale:g})" if args.size_scale != 1 else ""
        cn = check_size(k, args.check_size)
        print(f"  {k['name']:<{w}}  {k['category']:<19}  check n={cn:<5}  bench n={n}{scaled}")
    print(f"timed runs: {len(kernels) * len(active) * args.runs}; results would go to "
          f"{outdir}/")


def main(argv):
    args = parse_args(argv)
    if args.compile_only is not None:
        return compile_only_main(args, argv)
    started = datetime.datetime.now()
    t_start = time.time()
    if args.polybench:
        try:
            kernels = select_kernels(polybench.load(Path(args.polybench).expanduser()), args)
        except ValueError as e:
            raise UsageError(str(e))
    else:
        kernels = select_kernels(load_kernels(), args)
    configs, clang, gcc, plugin = make_configs(args)
    outdir = results_dir(args, started)
    progress = Progress()
    with tempfile.TemporaryDirectory(prefix="polyrust-bench.") as tmp:
        work = Path(tmp)
        plugin_desc = snapshot_plugin(configs, plugin, work)
        probe_configs(configs, work)
        for cfg in configs:
            if cfg["status"] != "ok":
                progress.line(f"{PROG}: {cfg['name']}: SKIPPED: {cfg['reason']}")
        if args.dry_run:
            dry_run(args, kernels, configs, outdir)
            return 0
        progress.line(f"{PROG}: {len(kernels)} kernels, configurations "
                      f"{', '.join(c['name'] for c in configs if c['status'] == 'ok')}, "
                      f"{args.runs} runs each; results in {outdir}/")
        loadavg_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
        results, interrupted = [], False
        try:
            for k, kernel in enumerate(kernels, 1):
                if args.polybench:
                    tag = f"[{k}/{len(kernels)}] {kernel['name']}"
                    results.append(polybench.bench(kernel, tag, configs, args, work, progress))
                else:
                    results.append(bench_kernel(kernel, k, len(kernels), configs, args, work,
                                                progress))
                if results[-1]["error"]:
                    progress.line(f"[{k}/{len(kernels)}] {kernel['name']}: ERROR: "
                                  f"{results[-1]['error']}")
        except KeyboardInterrupt:
            interrupted = True
            progress.line(f"{PROG}: interrupted; reporting the {len(results)} kernels done")
        machine = None
        if args.roofline and not interrupted:
            machine = measure_roofline(args, kernels, results, clang, plugin, work, progress)
        if args.keep_binaries:
            (outdir / "bin").mkdir(parents=True, exist_ok=True)
            for f in work.iterdir():
                if f.name != "probe.c" and not f.name.startswith("probe."):
                    shutil.copy2(f, outdir / "bin" / f.name)

    finished = datetime.datetime.now()
    summary = summarize(results, configs)
    run_t, comp_t = tables(results, configs, summary)
    probs = problems(results, configs)
    stage_t, stage_sums = None, None
    if any(c["name"] == "polyrust" and c["status"] == "ok" for c in configs):
        recs = [rec for rec in results if "polyrust" in rec["configs"]]
        head, rows, foot, stage_sums = stage_table(
            [rec["name"] for rec in recs],
            [rec["configs"]["polyrust"].get("stage_times") for rec in recs],
            "sum over the kernels")
        stage_t = (["kernel"] + head[1:], rows, foot)
    meta = {
        "command": shlex.join([PROG] + argv), "argv": argv, "cwd": os.getcwd(),
        "started": started.strftime("%Y-%m-%d %H:%M:%S"),
        "finished": finished.strftime("%Y-%m-%d %H:%M:%S"),
        "elapsed_s": time.time() - t_start, "interrupted": interrupted,
        "kernels_planned": len(kernels), "runs": args.runs, "size_scale": args.size_scale,
        "native": args.native, "compile_runs": args.compile_runs,
        "timeout_s": args.timeout, "loadavg_start": loadavg_start,
        "loadavg_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "machine": machine_info(clang, gcc, plugin_desc),
        "polyrust_stage_totals_s": stage_sums,
        "dataset": args.dataset if args.polybench else None,
    }

    print(f"Kernel time (median of {args.runs} runs, seconds) and speedup over O3 "
          f"(x = O3 median / median)")
    print(f"  * slower than {SLOW}x of O3   = program byte-identical to O3's (a difference "
          f"is noise)   ? O3 below {TINY} s")
    print(render_text(run_t))
    print()
    print(f"Compile time (median of {args.compile_runs} compiles, seconds)")
    print(render_text(comp_t))
    if stage_t:
        print()
        print("polyrust seconds per stage (-ftime-report of one extra compile, User+System)")
        print(render_text(stage_t))
    if probs:
        print()
        print("Problems:")
        for pr in probs:
            print(f"  {pr}")
    roof_t = None
    if machine:
        roof_t = report_roofline(results, configs, machine, meta)
    try:
        write_results(outdir, meta, results, configs, summary, run_t, comp_t, probs,
                      stage_t)
        if roof_t:
            write_roofline(outdir, roof_t, machine, meta)
        print(f"\nresults: {outdir}/results.md, results.json, speedups.svg"
              + (", roofline.svg" if roof_t else ""))
    except OSError as e:
        print(f"{PROG}: cannot write the results to {outdir}: {e}", file=sys.stderr)
        return 1
    if interrupted:
        return 130
    if is_failure(results):
        counts = {}
        for rec in results:
            for c in rec["configs"].values():
                if c["status"] != "ok":
                    counts[c["status"]] = counts.get(c["status"], 0) + 1
            if rec["error"]:
                counts["ERROR"] = counts.get("ERROR", 0) + 1
        print(f"{PROG}: FAILED: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + " (see Problems in the report)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        try:
            sys.stdout = None
        finally:
            os._exit(1)
    except Exception as e:  # an internal error: one message unless asked for the traceback
        if os.environ.get("BENCH_DEBUG"):
            raise
        print(f"{PROG}: internal error: {type(e).__name__}: {e} "
              "(BENCH_DEBUG=1 shows the traceback)", file=sys.stderr)
        sys.exit(3)
