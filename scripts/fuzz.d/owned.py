#!/usr/bin/env python3
"""fuzz-owned: random programs whose kernels own temporaries (malloc'd and freed in the
kernel), for the transformations that change a temporary's storage: QUOV folding and
expression propagation. Each program is compiled with clang -O3 and with -O3 and
polyrust (as is, and with fixed tiles 4x4 and 3x5), run on a list of sizes, and its
output compared byte for byte; a difference or a failed build is a finding, kept with
its source in the output directory.

Programs (one kernel each, `generate(seed)`): time-expanded 1-D stencils U[t][i] with a
padded pitch, reading one or two earlier steps; DP tables reading rows back; a running
sum (a recurrence) read in the same loop or the next; 2-D pipelines of two or three
stencil stages over malloc'd images (clamped borders or shrinking interiors), also built
with -polyrust-exprprop=false so that their stages fuse instead. Types double, float,
long, int.

    scripts/fuzz-owned [--count N] [--seed S] [--out DIR] [--plugin SO]
"""

import argparse
import os
import random
import shutil
import subprocess
import sys

def generate(seed):
    R = random.Random(seed)
    ty = R.choice(["double", "float", "long", "int"])
    fmt = {"double": "%a", "float": "%a", "long": "%ld", "int": "%d"}[ty]
    cast = "(double)" if ty in ("double","float") else ""
    kind = R.choice(["stencil", "stencil2", "dp", "chain", "pipeline", "pipeline"])
    pad = R.choice([0, 0, 1, 3, 8])
    r = R.choice([1, 1, 2])
    lines = []
    P = lines.append
    P("#include <stdio.h>\n#include <stdlib.h>")
    coef = lambda: str(R.choice([1, 2, 3, -1])) if ty in ("int","long") else R.choice(["0.25", "0.5", "0.125", "1.5", "-0.75"])
    if kind in ("stencil", "stencil2"):
        two = kind == "stencil2"
        P(f"__attribute__((noinline)) void kernel(int n, int steps, const {ty} *in, {ty} *out) {{")
        P(f"  if (n < {2*r+1}) {{ for (int i = 0; i < n; i++) out[i] = in[i]; return; }}")
        P(f"  long w = n + {pad};")
        P(f"  {ty} *u = malloc(sizeof({ty}) * (size_t)(steps + 2) * (size_t)w);")
        P("  if (!u) return;")
        P(f"  for (int i = 0; i < n; i++) u[i] = in[i] {R.choice(['+', '-'])} {coef()};")
        if two:
            P(f"  for (int i = 0; i < n; i++) u[w + i] = in[i];")
        start = 1 if two else 0
        P(f"  for (int t = {start}; t < steps + {start}; t++) {{")
        for b in range(r):
            P(f"    u[(t + 1) * w + {b}] = u[t * w + {b}];")
            P(f"    u[(t + 1) * w + n - 1 - {b}] = u[t * w + n - 1 - {b}];")
        terms = []
        for o in range(-r, r + 1):
            if R.random() < 0.8 or o == 0:
                terms.append(f"{coef()} * u[t * w + i + ({o})]")
        if two and R.random() < 0.7:
            terms.append(f"{coef()} * u[(t - 1) * w + i]")
        P(f"    for (int i = {r}; i < n - {r}; i++)")
        P(f"      u[(t + 1) * w + i] = {' + '.join(terms)};")
        P("  }")
        back = R.choice([0, 0, 1]) if True else 0
        P(f"  for (int i = 0; i < n; i++) out[i] = u[(steps + {start} - {back}) * w + i] * {coef()};")
        P("  free(u);\n}")
    elif kind == "dp":
        P(f"__attribute__((noinline)) void kernel(int n, int steps, const {ty} *in, {ty} *out) {{")
        P(f"  int m = n; long w = m + 1 + {pad}; int rows = steps + 2;")
        P(f"  {ty} *d = malloc(sizeof({ty}) * (size_t)(rows + 1) * (size_t)w);")
        P("  if (!d) return;")
        P(f"  for (int j = 0; j <= m; j++) {{ d[j] = in[j] + {coef()}; d[w + j] = in[j] * {coef()}; }}")
        P("  for (int i = 2; i <= rows; i++) {")
        P(f"    d[i * w] = in[i % (n + 1)] + i;")
        terms = [f"d[(i - 1) * w + j]"]
        if R.random() < 0.7: terms.append("d[i * w + j - 1]")
        if R.random() < 0.7: terms.append("d[(i - 1) * w + j - 1]")
        if R.random() < 0.5: terms.append("d[(i - 2) * w + j]")
        op = R.choice(["min", "sum"])
        P("    for (int j = 1; j <= m; j++) {")
        if op == "min":
            P(f"      {ty} best = {terms[0]};")
            for t_ in terms[1:]:
                P(f"      best = {t_} < best ? {t_} : best;")
            P(f"      d[i * w + j] = best + in[j - 1];")
        else:
            P(f"      d[i * w + j] = ({' + '.join(terms)}) * {coef()};")
        P("    }\n  }")
        P(f"  for (int j = 0; j <= m; j++) out[j] = d[rows * w + j] * {coef()};")
        P("  free(d);\n}")
    elif kind == "pipeline":
        # h x w images, w = n + steps; stage s reads stage s - 1 (stage 0 reads in).
        stages = R.choice([2, 2, 3])
        clamped = R.random() < 0.5
        P("#define CL(v, hi) ((v) < 0 ? 0 : (v) > (hi) ? (hi) : (v))")
        P(f"__attribute__((noinline)) void kernel(int n, int steps, const {ty} *in, {ty} *out) {{")
        P("  int h = n, w = n + steps;")
        for k in range(stages - 1):
            P(f"  {ty} *t{k} = malloc(sizeof({ty}) * (size_t)h * (size_t)w + 1);")
        margin = 0
        for k in range(stages):
            src = "in" if k == 0 else f"t{k - 1}"
            dst = "out" if k == stages - 1 else f"t{k}"
            taps = set()
            vertical = R.random() < 0.6
            for _ in range(R.choice([2, 3, 3, 5])):
                d = R.choice([-2, -1, 0, 1, 2])
                taps.add((d, 0) if vertical else (0, d))
            taps.add((0, 0))
            reach = max(abs(a) + abs(b) for a, b in taps)
            if clamped:
                lo, hy, hx = "0", "h", "w"
                idx = lambda a, b: f"{src}[(long)CL(y + ({a}), h - 1) * w + CL(x + ({b}), w - 1)]"
            else:
                margin += reach
                lo, hy, hx = str(margin), f"h - {margin}", f"w - {margin}"
                idx = lambda a, b: f"{src}[(long)(y + ({a})) * w + x + ({b})]"
            terms = " + ".join(f"{coef()} * {idx(a, b)}" for a, b in sorted(taps))
            P(f"  for (int y = {lo}; y < {hy}; y++)")
            P(f"    for (int x = {lo}; x < {hx}; x++)")
            P(f"      {dst}[(long)y * w + x] = {terms};")
        for k in range(stages - 1):
            P(f"  free(t{k});")
        P("}")
    else:
        P(f"__attribute__((noinline)) void kernel(int n, int steps, const {ty} *in, {ty} *out) {{")
        P(f"  {ty} *a = malloc(sizeof({ty}) * (size_t)(n + 2));")
        P(f"  {ty} *s = malloc(sizeof({ty}) * (size_t)(n + 2));")
        P("  if (!a || !s) return;")
        P(f"  for (int i = 0; i < n; i++) a[i] = in[i] * {coef()};")
        P("  if (n > 0) { s[0] = a[0]; out[0] = s[0]; }")
        fused = R.random() < 0.6
        P("  for (int i = 1; i < n; i++) {")
        P(f"    s[i] = s[i - 1] {R.choice(['+','-'])} a[i];")
        if fused: P(f"    out[i] = s[i] * {coef()};")
        P("  }")
        if not fused: P(f"  for (int i = 1; i < n; i++) out[i] = s[i] * {coef()};")
        P("  free(a); free(s);\n}")
    P("int main(int argc, char **argv) {")
    P("  for (int k = 1; k + 1 < argc; k += 2) {")
    P("    int n = atoi(argv[k]), steps = atoi(argv[k + 1]);")
    # Pipelines read and write n x (n + steps) images.
    count = "(size_t)n * (size_t)(n + steps) + 8" if kind == "pipeline" else "(size_t)n + 8"
    P(f"    size_t count = {count};")
    P(f"    {ty} *in = malloc(sizeof({ty}) * count), *out = calloc(count, sizeof({ty}));")
    P(f"    for (size_t i = 0; i < count; i++) in[i] = ({ty})((i * 37 + {seed % 97}) % 23) {'/ 7.0' if cast else ''};")
    P("    kernel(n, steps, in, out);")
    P(f"    for (size_t i = 0; i + 7 < count; i++) printf(\"{fmt}\\n\", out[i]);")
    P("    free(in); free(out);\n  }\n  return 0;\n}")
    return "\n".join(lines), kind


SIZES = "0 0 1 1 2 3 3 0 5 2 8 4 17 3 33 5 40 1".split()
CONFIGS = [[], ["-mllvm", "-polyrust-tile-sizes=4,4"], ["-mllvm", "-polyrust-tile-sizes=3,5"]]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, timeout=120, **kw)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=60, help="seeds to try (default 60)")
    ap.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    ap.add_argument("--out", default="fuzz-owned-out", help="where findings go")
    ap.add_argument("--plugin", default=os.path.join(repo, "target/release/libpolyrust.so"))
    args = ap.parse_args()
    clang = os.environ.get("POLYRUST_CLANG", "/usr/lib/llvm-22/bin/clang")
    if not os.path.exists(args.plugin):
        sys.exit(f"fuzz-owned: no plugin {args.plugin}; run scripts/setup")
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "work")
    os.makedirs(work, exist_ok=True)
    findings = folded = fused = 0
    for seed in range(args.seed, args.seed + args.count):
        source, kind = generate(seed)
        src = os.path.join(work, f"p{seed}.c")
        with open(src, "w") as f:
            f.write(source)
        ref = os.path.join(work, "ref")
        if run([clang, "-O3", "-w", src, "-o", ref]).returncode != 0:
            print(f"seed {seed}: the reference does not build (generator bug)")
            continue
        expected = run([ref, *SIZES]).stdout
        configs = CONFIGS + ([["-mllvm", "-polyrust-exprprop=false"]] if kind == "pipeline" else [])
        for config in configs:
            exe = os.path.join(work, "polyrust")
            build = run([clang, "-O3", "-w", f"-fpass-plugin={args.plugin}", *config, src,
                         "-o", exe, "-Rpass=polyrust"], text=True)
            what = f"seed {seed} ({kind}, {' '.join(config) or 'default'})"
            if build.returncode != 0:
                findings += 1
                print(f"{what}: BUILD FAILED")
                shutil.copy(src, args.out)
                continue
            folded += "stored as" in build.stderr
            fused += "loop nests fused" in build.stderr
            if run([exe, *SIZES]).stdout != expected:
                findings += 1
                print(f"{what}: DIFFERENT OUTPUT")
                shutil.copy(src, args.out)
        print(f"fuzz-owned: seed {seed} done, {findings} findings", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    print(f"fuzz-owned: {args.count} seeds, {folded} builds with a folded temporary "
          f"({fused} with fused stages), {findings} findings")
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
