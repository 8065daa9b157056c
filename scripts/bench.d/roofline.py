"""The roofline of scripts/bench --roofline (standard library only).

Measures this machine's one-core floating-point peak (a generated C kernel of independent
vector FMA chains, as wide as the host's -march=native allows) and its streaming bandwidth
(a STREAM-like triad on arrays far larger than the last-level cache); reads each kernel's
floating-point operations and compulsory memory traffic from polyrust's
print<polyrust-roofline> printer (the model's counts, for the kernel's sizes fixed at
compile time); and makes the table and the plot: per configuration GFLOP/s, the roofline
bound min(peak, AI x bandwidth) and the share of it reached (time at the bound / time).
"""

import math
import os
import re
import subprocess
from pathlib import Path
from xml.sax.saxutils import escape

CHAINS = 16  # independent FMA chains: more than FMA pipes x latency on current cores
PEAK_SLICE = 0.001  # seconds of one timed slice of the peak kernel: the best of many
PEAK_SLICES = 400  # short slices is the core's own rate even on a shared machine
TRIAD_MIN_BYTES = 64 << 20  # each triad array at least this, and 4x the last-level cache
TRIAD_CHUNK_BYTES = 4 << 20  # per array, the part of the triad timed at once

def peak_source(lanes, chains):
    """The peak kernel: `chains` independent vector FMA chains, each its own variable so
    they all stay in registers."""
    xs = [f"x{c}" for c in range(chains)]
    decl = "\n".join(f"    vd {x} = m + a * {c};" for c, x in enumerate(xs))
    body = "\n".join(f"        {x} = {x} * m + a;" for x in xs)
    return r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef double vd __attribute__((vector_size(LANES * 8)));
int main(int argc, char **argv)
{
    long iters = atol(argv[1]);
    int reps = atoi(argv[2]);
    vd m, a;
    for (int l = 0; l < LANES; l++) {
        m[l] = 1.0 - 1e-9 * argc;  /* not constants: nothing folds */
        a[l] = 1e-9 * argc;
    }
DECL
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < iters; i++) {
    BODY
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double t = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
        if (t < best)
            best = t;
    }
    vd v = SUM;
    double s = 0;
    for (int l = 0; l < LANES; l++)
        s += v[l];
    printf("%.9f %.17g\n", best, s);
    return 0;
}
""".replace("LANES", str(lanes)).replace("DECL", decl).replace("BODY", body).replace(
        "SUM", " + ".join(xs))


TRIAD_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv)
{
    long n = atol(argv[1]);
    int reps = atoi(argv[2]);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c)
        return 1;
    for (long i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = i % 7;
        c[i] = i % 5;
    }
    long chunk = atol(argv[3]);
    double best = 1e30, s = 3.0 / argc;
    for (int r = 0; r < reps; r++) {
        for (long lo = 0; lo + chunk <= n; lo += chunk) {
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            for (long i = lo; i < lo + chunk; i++)
                a[i] = b[i] + s * c[i];
            clock_gettime(CLOCK_MONOTONIC, &t1);
            double t = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
            if (t < best)
                best = t;
        }
        b[r % n] = a[(r * 7) % n];
    }
    printf("%.9f %.17g\n", best, a[n / 2]);
    return 0;
}
"""


class RooflineError(Exception):
    """The machine's figures could not be measured."""


def host_isa(clang):
    """(name, lanes of double, has FMA) for clang -march=native."""
    r = subprocess.run([clang, "-march=native", "-dM", "-E", "-x", "c", "/dev/null"],
                       capture_output=True, text=True, timeout=60)
    macros = set(re.findall(r"#define (\w+)", r.stdout))
    if "__AVX512F__" in macros:
        return "AVX-512 FMA (8 doubles)", 8, True
    if "__AVX2__" in macros and "__FMA__" in macros:
        return "AVX2 FMA (4 doubles)", 4, True
    if "__AVX__" in macros:
        return "AVX, no FMA (4 doubles)", 4, False
    return "SSE2, no FMA (2 doubles)", 2, False


def build(clang, src_text, name, work, defines):
    src = work / f"{name}.c"
    src.write_text(src_text)
    exe = work / name
    cmd = [clang, "-O3", "-march=native", "-ffp-contract=fast",
           *[f"-D{k}={v}" for k, v in defines.items()], str(src), "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RooflineError(f"cannot build the {name} kernel: {r.stderr.strip()[:300]}")
    return exe


def run_seconds(cmd, timeout=300):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RooflineError(f"{Path(str(cmd[0])).name} failed (exit status {r.returncode})")
    return float(r.stdout.split()[0])


def last_level_cache_bytes():
    best = 0
    for index in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*"):
        try:
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        m = re.match(r"(\d+)([KMG]?)", size)
        if m:
            best = max(best, int(m.group(1)) * {"": 1, "K": 1 << 10, "M": 1 << 20,
                                                 "G": 1 << 30}[m.group(2)])
    return best or 32 << 20


def measure_machine(clang, work, progress):
    """{'isa', 'peak_gflops', 'bandwidth_gbs', ...}: the best of several runs each."""
    isa, lanes, fma = host_isa(clang)
    progress.step(f"roofline: measuring the {isa} peak")
    peak_exe = build(clang, peak_source(lanes, CHAINS), "peak", work, {})
    probe = 1_000_000
    t = max(run_seconds([peak_exe, probe, 3]), 1e-5)
    iters = max(1000, int(probe * PEAK_SLICE / t))
    flops_per_iter = CHAINS * lanes * 2  # x * m + a: two operations, fused or not
    peak = flops_per_iter * iters / run_seconds([peak_exe, iters, PEAK_SLICES])
    llc = last_level_cache_bytes()
    n = max(TRIAD_MIN_BYTES, 4 * llc) // 8
    progress.step(f"roofline: measuring the triad bandwidth (3 arrays of {n * 8 >> 20} MiB)")
    triad_exe = build(clang, TRIAD_C, "triad", work, {})
    # The best chunk: each chunk's data comes from memory (the arrays are far larger than
    # the cache), and a short chunk is timed while the core is not shared.
    chunk = TRIAD_CHUNK_BYTES // 8
    best = run_seconds([triad_exe, n, 5, chunk])
    return {"isa": isa, "lanes": lanes, "fma": fma, "chains": CHAINS,
            "peak_gflops": peak / 1e9, "bandwidth_gbs": 3 * 8 * chunk / best / 1e9,
            "triad_array_bytes": n * 8, "last_level_cache_bytes": llc}


# --------------------------------------------------------------------------- #
# Counts from print<polyrust-roofline>                                         #
# --------------------------------------------------------------------------- #

ROW = re.compile(r"^roofline (\S+): (?:flops (\d+) read-bytes (\d+) written-bytes (\d+)"
                 r"(?: int-ops (\d+))?|not counted: (.*))$")


def parse_counts(text, wanted):
    """Sums the regions of the functions `wanted(name)` accepts: {'flops', 'bytes',
    'regions'} or {'error': why} when one of them is not counted or there is none."""
    function, total, regions = None, [0, 0, 0, 0], 0
    for line in text.splitlines():
        m = re.match(r"^polyrust-roofline: function '(.*)'$", line)
        if m:
            function = m.group(1)
            continue
        m = ROW.match(line)
        if not m or function is None or not wanted(function):
            continue
        if m.group(6):
            return {"error": f"{m.group(1)} in {function}: {m.group(6)}"}
        regions += 1
        for i in range(4):
            total[i] += int(m.group(2 + i) or 0)
    if not regions:
        return {"error": "no region modelled in the kernel's functions"}
    return {"flops": total[0], "read_bytes": total[1], "written_bytes": total[2],
            "int_ops": total[3], "bytes": total[1] + total[2], "regions": regions}


def operations(counts):
    """(the operations the compute roof counts, whether they are integer ones): the
    floating-point operations, or, for a kernel with none (shortest paths, dynamic
    programming on ints), its integer operations on loaded values (add, compare,
    min/max), held against the same measured peak."""
    if counts["flops"] or not counts.get("int_ops"):
        return counts["flops"], False
    return counts["int_ops"], True


def count_kernel(clang, opt, plugin, src, flags, wanted, timeout=600):
    """The counts of one program, compiled with `flags` (which fix its sizes): the IR
    polyrust sees at -O3 (before vectorization and unrolling), with the fixed sizes
    propagated into the kernel's arguments."""
    ir = [clang, "-O3", "-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops",
          *flags, "-S", "-emit-llvm", "-o", "-", str(src)]
    fold = [opt, "-passes=ipsccp,function(instcombine,simplifycfg)", "-S"]
    printer = [opt, f"-load-pass-plugin={plugin}", "-passes=print<polyrust-roofline>",
               "-disable-output"]
    try:
        text = subprocess.run(ir, capture_output=True, text=True, timeout=timeout, check=True)
        folded = subprocess.run(fold, input=text.stdout, capture_output=True, text=True,
                                timeout=timeout, check=True)
        printed = subprocess.run(printer, input=folded.stdout, capture_output=True, text=True,
                                 timeout=timeout)
    except subprocess.CalledProcessError as e:
        return {"error": f"cannot make the IR: {(e.stderr or '').strip()[:200]}"}
    except (OSError, subprocess.SubprocessError) as e:
        return {"error": str(e)}
    if printed.returncode != 0:
        return {"error": f"the printer failed: {printed.stderr.strip()[:200]}"}
    return parse_counts(printed.stderr, wanted)


def printer_plugin(opt, candidates):
    """The first plugin that knows print<polyrust-roofline> (a baseline plugin may not)."""
    for plugin in candidates:
        if not plugin or not Path(plugin).is_file():
            continue
        r = subprocess.run([opt, f"-load-pass-plugin={plugin}",
                            "-passes=print<polyrust-roofline>", "-disable-output"],
                           input="", capture_output=True, text=True, timeout=60)
        if r.returncode == 0:
            return plugin
    return None


def find_opt(clang):
    here = Path(os.path.realpath(clang)).parent
    for name in ["opt", "opt-22"]:
        if (here / name).is_file():
            return str(here / name)
    raise RooflineError(f"no LLVM opt beside {clang}")


# --------------------------------------------------------------------------- #
# Table and plot                                                               #
# --------------------------------------------------------------------------- #

def bound(counts, machine):
    """(seconds at the roofline, which roof: 'memory' or 'compute')."""
    t_mem = counts["bytes"] / (machine["bandwidth_gbs"] * 1e9)
    t_cpu = operations(counts)[0] / (machine["peak_gflops"] * 1e9)
    return (t_mem, "memory") if t_mem >= t_cpu else (t_cpu, "compute")


def table(results, configs, machine):
    """(headers, rows, footer) of the roofline table, and the plot's points."""
    head = ["kernel", "GFLOP", "MB", "flop/B", "bound GF/s", "roof"]
    for cn in configs:
        head += [f"{cn} GF/s", f"{cn} %"]
    rows, points, shares = [], [], {cn: [] for cn in configs}
    for rec in results:
        counts = rec.get("roofline") or {"error": "not counted"}
        if "error" in counts or rec["error"]:
            why = rec["error"] and "ERROR" or counts.get("error", "")
            rows.append([rec["name"], "-", "-", "-", "-", "-"] + ["-"] * (2 * len(configs))
                        + [f"({why[:70]})"])
            continue
        t_bound, roof = bound(counts, machine)
        ops, integer = operations(counts)
        gflop = ops / 1e9
        ai = ops / counts["bytes"] if counts["bytes"] else math.inf
        bound_gf = gflop / t_bound if ops else None
        row = [rec["name"], f"{gflop:.3f}" + (" int" if integer else ""),
               f"{counts['bytes'] / 1e6:.1f}",
               "inf" if ai == math.inf else f"{ai:.2f}",
               "-" if bound_gf is None else f"{bound_gf:.2f}", roof]
        for cn in configs:
            c = rec["configs"].get(cn)
            t = c and c["status"] == "ok" and c["median"]
            if not t:
                row += ["-", c["status"] if c else "-"]
                continue
            share = t_bound / t
            shares[cn].append(share)
            row += ["-" if not ops else f"{gflop / t:.2f}", f"{100 * share:.0f}%"]
            if ops and counts["bytes"]:
                points.append((rec["name"], cn, ai, gflop / t))
        rows.append(row + [""])
    head.append("")
    foot = [["median share", "", "", "", "", ""]
            + sum([["", f"{100 * sorted(s)[len(s) // 2]:.0f}%" if s else "-"]
                   for s in shares.values()], []) + [""]]
    return (head, rows, foot), points


def svg(points, configs, machine, subtitle):
    """A log-log roofline plot: the two roofs, one point per kernel and configuration."""
    colors = {"O3": "#555555", "polly": "#4c72b0", "polyrust": "#dd8452",
              "gcc-graphite": "#55a868"}
    W, H, L, R, T, B = 900, 560, 80, 30, 80, 60
    peak, bw = machine["peak_gflops"], machine["bandwidth_gbs"]
    ais = [p[2] for p in points] or [1.0]
    perf = [p[3] for p in points] or [1.0]
    x0 = 10 ** math.floor(math.log10(min(ais + [peak / bw]) / 2))
    x1 = 10 ** math.ceil(math.log10(max(ais + [peak / bw]) * 2))
    y0 = 10 ** math.floor(math.log10(min(perf + [bw * x0]) / 2))
    y1 = 10 ** math.ceil(math.log10(peak * 2))

    def X(v):
        return L + (math.log10(v) - math.log10(x0)) / (math.log10(x1) - math.log10(x0)) * (W - L - R)

    def Y(v):
        return H - B - (math.log10(v) - math.log10(y0)) / (math.log10(y1) - math.log10(y0)) * (H - T - B)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="DejaVu Sans, Arial, sans-serif">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{L}" y="26" font-size="17" font-weight="bold">Roofline: GFLOP/s against '
           f'arithmetic intensity (flop per byte of compulsory traffic)</text>',
           f'<text x="{L}" y="46" font-size="12" fill="#555">{escape(subtitle)}</text>']
    # grid and axes
    d = x0
    while d <= x1 * 1.001:
        out.append(f'<line x1="{X(d):.1f}" y1="{T}" x2="{X(d):.1f}" y2="{H - B}" stroke="#eee"/>')
        out.append(f'<text x="{X(d):.1f}" y="{H - B + 16}" font-size="11" '
                   f'text-anchor="middle">{d:g}</text>')
        d *= 10
    d = y0
    while d <= y1 * 1.001:
        out.append(f'<line x1="{L}" y1="{Y(d):.1f}" x2="{W - R}" y2="{Y(d):.1f}" stroke="#eee"/>')
        out.append(f'<text x="{L - 6}" y="{Y(d) + 4:.1f}" font-size="11" '
                   f'text-anchor="end">{d:g}</text>')
        d *= 10
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 18}" font-size="12" text-anchor="middle">'
               'flop / byte</text>')
    out.append(f'<text x="18" y="{(T + H - B) / 2}" font-size="12" text-anchor="middle" '
               f'transform="rotate(-90 18 {(T + H - B) / 2})">GFLOP/s</text>')
    # the roofs
    knee = peak / bw
    out.append(f'<polyline fill="none" stroke="#c44e52" stroke-width="2" points="'
               f'{X(x0):.1f},{Y(bw * x0):.1f} {X(knee):.1f},{Y(peak):.1f} '
               f'{X(x1):.1f},{Y(peak):.1f}"/>')
    out.append(f'<text x="{X(x1) - 4:.1f}" y="{Y(peak) - 6:.1f}" font-size="11" '
               f'text-anchor="end" fill="#c44e52">peak {peak:.1f} GFLOP/s '
               f'({escape(machine["isa"])})</text>')
    out.append(f'<text x="{X(x0) + 6:.1f}" y="{Y(bw * x0) - 8:.1f}" font-size="11" '
               f'fill="#c44e52">triad {bw:.1f} GB/s</text>')
    for name, cn, ai, gf in points:
        color = colors.get(cn, "#8172b3")
        out.append(f'<circle cx="{X(ai):.1f}" cy="{Y(gf):.1f}" r="4" fill="{color}" '
                   f'fill-opacity="0.8"><title>{escape(name)} {escape(cn)}: {gf:.2f} GFLOP/s, '
                   f'{ai:.2f} flop/B</title></circle>')
        if cn == "polyrust":
            out.append(f'<text x="{X(ai) + 6:.1f}" y="{Y(gf) + 3:.1f}" font-size="9" '
                       f'fill="#444">{escape(name)}</text>')
    lx = L
    for cn in configs:
        out.append(f'<circle cx="{lx + 6}" cy="62" r="5" fill="{colors.get(cn, "#8172b3")}"/>')
        out.append(f'<text x="{lx + 16}" y="66" font-size="12">{escape(cn)}</text>')
        lx += 30 + 8 * len(cn)
    out.append("</svg>")
    return "\n".join(out) + "\n"
