"""Random C programs in polyrust's domain, for differential testing.

`generate(seed)` returns a `Program`: the C source and the problem sizes to run it at.
The same seed always gives the same program (Python's `random.Random`, no other input).

A program is one `kernel` function (noinline) holding one to three loop nests, and a
`main` that reads the sizes n and m from argv, allocates and initialises every array,
calls the kernel and prints one checksum line per array. What varies:
  - arrays: 1-3 dimensions, double/float/int/long/unsigned, passed as restrict or plain
    pointers, VLA pointers `T (*A)[m + 4]`, linearized `A[i * (m + 4) + j]`, or global
    fixed-size arrays; plain pointers may be passed aliased (same buffer, or shifted);
  - loops: rectangular, offset, triangular, min/max bounds, reversed, stride 2;
  - statements: assignments, reductions into arrays and scalars, temporaries, affine
    guards; a minority of non-affine features (bounds and subscripts loaded from
    memory, products of iterators, guards on data);
  - strided programs (STRIDED_SHARE of them, a choice drawn from a random stream of
    their own, so that the other programs are those earlier versions of this file
    gave): most multi-dimensional arrays passed as pointers are indexed with run-time
    `int` row lengths `A[(i) * A_ld1 + (j)]` or `int`/`long` strides
    `A[(i) * A_s0 + (j) * A_s1]` (row- or column-major, the layout chosen in main from
    n and m), kernel parameters; half of them also sweep a whole buffer,
    `for (q = 0; q < e_n * e_m; q++)`, inside a loop; some call the kernel twice, the
    second time with the other layout of each view. Products of run-time values and
    loop counters keep such nests from being regions until profile-guided speculation
    fixes the values (the fuzzer's two-run option sets). These programs get a third
    input, placed first because the two-run sets profile the first input: sizes of 3
    to 12, which enter most nests.

Every program is free of undefined behaviour at the sizes it comes with, because -O0
and -O3 must print the same bytes:
  - array dimension d has extent p_d + 4 (p_d is n or m, or NMAX for globals), each
    loop iterator tied to one of n, m stays in [0, p), and subscripts are v + c
    (0 <= c <= 3), p - 1 - v + c, v / 2 + c, (v + w) / 2 + c, or constants below 4;
    strides and row lengths are those of the extents (any layout stays in the buffer),
    and a sweep's counter stays below the element count of its arrays;
  - integer values are masked (& 1023) where they are read, so no product or sum can
    overflow; reductions add values masked to & 255;
  - floating-point values start as multiples of 1/8 in [-1, 1]; products are of two
    masked-size reads at most, so nothing reaches inf or NaN; no float is converted
    to an integer type;
  - every element of every buffer (including the slack behind shifted aliases) is
    initialised before the kernel runs.
Checksum lines: `<array> fp h=<hash of the bytes> s=<sum> a=<sum of |x|> w=<weighted
sum>` for floating point, `<array> int h=<hash> s=<sum>` for integers. The runner
compares them byte for byte, or, for option sets that may reassociate floating point,
compares s and w within a tolerance derived from a.
"""

import random
from dataclasses import dataclass, field

NMAX = 40  # capacity of global arrays; sizes never exceed it
STRIDED_SHARE = 0.3  # share of programs with run-time row lengths and strides
FLOAT_TYPES = ("double", "float")
INT_TYPES = ("int", "long", "unsigned")


@dataclass
class Program:
    seed: int
    source: str
    inputs: list  # [(n, m), ...]: the sizes to run at


@dataclass
class Array:
    name: str
    elem: str
    params: list  # one of "n", "m" per dimension
    kind: str  # "ptr", "vla", "linear", "global"
    restrict: bool = False
    alias_of: "Array" = None  # passed as another array's buffer ...
    alias_offset: int = 0  # ... plus this many elements
    role: str = "data"  # "data", "bound" (values in [0, m]), "index" (values in [0, p))
    readonly: bool = False  # never written: guards on data and products read these
    # Strided programs only (kind "linear"): "ld", row lengths passed as `int A_ld<d>`
    # (A[(i) * A_ld1 + (j)]); "view", one stride per dimension passed as `stride_type
    # A_s<d>` (A[(i) * A_s0 + (j) * A_s1]), row- or column-major as `column_major` (a C
    # expression of n and m) says in main.
    strides: str = ""
    stride_type: str = "int"
    column_major: str = "0"

    def extent(self, p):
        return "(NMAX + 4)" if self.kind == "global" else f"({p} + 4)"

    def count_expr(self):
        return " * ".join(self.extent(p) for p in self.params)

    def stride_names(self):
        """The kernel parameters holding the run-time strides (none without strides)."""
        if self.strides == "ld":
            return [f"{self.name}_ld{d}" for d in range(1, len(self.params))]
        if self.strides == "view":
            return [f"{self.name}_s{d}" for d in range(len(self.params))]
        return []

    def stride_values(self, flipped=False):
        """What main passes for each of `stride_names`: extents, or for a view its
        row-major strides, or column-major ones when `column_major` is true at run time
        (false, with `flipped`, in the second call of a kernel called twice)."""
        extents = [self.extent(p) for p in self.params]
        if self.strides == "ld":
            return extents[1:]
        if self.strides != "view":
            return []
        row = [" * ".join(extents[d + 1:]) or "1" for d in range(len(extents))]
        col = [" * ".join(extents[:d]) or "1" for d in range(len(extents))]
        column_major = self.column_major
        if flipped:
            column_major = {"0": "call", "1": "!call"}.get(column_major, f"({column_major}) != call")
        if column_major in ("0", "1"):
            return col if column_major == "1" else row
        return [f"{column_major} ? {c} : {r}" for r, c in zip(row, col)]

    def stride_decl_type(self):
        return "int" if self.strides == "ld" else self.stride_type


@dataclass
class Loop:
    var: str
    param: str


@dataclass
class Scope:
    loops: list = field(default_factory=list)
    # (name, type) of temporaries computed in front of an inner loop, which its
    # statements may read (operand-tree forwarding recomputes them there)
    temps: list = field(default_factory=list)

    def vars_of(self, param):
        return [l.var for l in self.loops if l.param == param]


class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.arrays = []
        self.nonaffine = self.rng.random() < 0.2
        # Half the programs use n alone, so that most subscripts follow loop iterators
        # (a dimension of extent m + 4 can only be indexed by iterators bounded by m).
        self.params = "n" if self.chance(0.5) else "nnm"
        self.scalar_count = 0
        self.var_count = 0
        # Strided programs: their own random stream, so that the main one (and every
        # program without the feature) stays what earlier versions of this file gave.
        self.strided_rng = random.Random(f"strided-{seed}")
        self.strided = self.strided_rng.random() < STRIDED_SHARE
        self.extent_params = []  # "n", "m": kernel parameters `int e_n = n + 4` (sweeps)
        self.calls = 1  # of the kernel: strided programs may call it twice, with other strides

    # ---- choices -------------------------------------------------------------

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return self.rng.choice(list(seq))

    def param(self):
        return self.pick(self.params)

    # ---- arrays --------------------------------------------------------------

    def make_arrays(self):
        rng = self.rng
        count = rng.randint(2, 5)
        for k in range(count):
            elem = self.pick(FLOAT_TYPES * 3 + INT_TYPES) if k else self.pick(FLOAT_TYPES + INT_TYPES)
            ndim = rng.choice((1, 2, 2, 2, 3)) if self.max_depth >= 2 else rng.choice((1, 1, 2))
            params = [self.param() for _ in range(ndim)]
            kind = self.pick(("ptr", "vla", "vla", "linear", "global")) if ndim > 1 else self.pick(("ptr", "ptr", "global"))
            # The first array is always written; others are read-only a third of the time.
            readonly = k > 0 and self.chance(0.35)
            array = Array(f"A{k}", elem, params, kind, restrict=self.chance(0.5), readonly=readonly)
            self.arrays.append(array)
        # Plain pointers of the same element type and shape may share a buffer (never a
        # read-only one: writes through the partner would change it).
        for array in self.arrays:
            if (array.kind == "global" or array.restrict or array.readonly
                    or any(b.alias_of is array for b in self.arrays) or not self.chance(0.3)):
                continue
            partners = [
                a for a in self.arrays
                if a is not array and a.alias_of is None and a.kind != "global" and not a.restrict
                and not a.readonly and a.elem == array.elem and a.params == array.params
                and a.kind == array.kind
            ]
            if partners:
                array.alias_of = self.pick(partners)
                array.alias_offset = self.pick((0, 0, 1, 3))
        if self.strided:
            self.give_strides()
        if self.nonaffine:
            self.arrays.append(Array("bnd", "int", ["n"], "ptr", restrict=True, role="bound"))
            for p in "nm":
                self.arrays.append(Array(f"idx{p}", "int", [p], "ptr", restrict=True, role="index"))

    def give_strides(self):
        """Strided programs: most multi-dimensional arrays passed as pointers are indexed
        with run-time row lengths or strides (products of a size and a loop counter, which
        only speculation turns into regions). Draws from `strided_rng` only."""
        rng = self.strided_rng
        for array in self.arrays:
            if array.kind == "global" or len(array.params) < 2 or rng.random() < 0.2:
                continue
            array.kind = "linear"
            array.strides = rng.choice(("ld", "view", "view"))
            array.stride_type = rng.choice(("int", "long"))
            array.column_major = rng.choice(("0", "0", "1", "n % 2", "(n + m) % 3 == 0"))

    def data_arrays(self, types=None):
        return [a for a in self.arrays if a.role == "data" and (types is None or a.elem in types)]

    def writable_arrays(self):
        return [a for a in self.data_arrays() if not a.readonly]

    def readonly_arrays(self, types=None):
        return [a for a in self.data_arrays(types) if a.readonly]

    # ---- subscripts and references ------------------------------------------

    def subscript(self, param, scope, preferred=None):
        vars_ = scope.vars_of(param)
        c = self.rng.randint(0, 3)
        if not vars_:
            return str(c)
        v = preferred or self.pick(vars_)
        form = self.rng.random()
        if form < 0.75:
            return f"{v} + {c}" if c else v
        if form < 0.82:
            return f"{param} - 1 - {v} + {c}"
        if form < 0.87:
            return f"{v} / 2 + {c}"
        if form < 0.92 and len(vars_) > 1:
            return f"({v} + {self.pick(vars_)}) / 2 + {c}"
        if self.nonaffine and form < 0.95:
            return f"idx{param}[{v}] + {c}"
        if self.nonaffine:
            w = self.pick(vars_)
            return f"({v} * {w}) % ({param} + 1)"
        return v

    def ref(self, array, scope):
        # Distinct iterators for distinct dimensions where possible (A[i][k], not
        # A[i][i]), innermost first, so that nests have bands worth tiling.
        unused = [l.var for l in reversed(scope.loops)]
        subs = []
        for p in array.params:
            mine = [v for v in unused if v in scope.vars_of(p)]
            preferred = None
            if mine and self.chance(0.85):
                preferred = self.pick(mine[:2])
                unused.remove(preferred)
            subs.append(self.subscript(p, scope, preferred))
        if array.kind in ("vla", "global", "ptr") and (array.kind != "ptr" or len(subs) == 1):
            return array.name + "".join(f"[{s}]" for s in subs)
        if array.strides == "view":
            return f"{array.name}[" + " + ".join(
                f"({s}) * {t}" for s, t in zip(subs, array.stride_names())) + "]"
        if array.strides == "ld":
            flat = f"({subs[0]})"
            for s, ld in zip(subs[1:], array.stride_names()):
                flat = f"{flat} * {ld} + ({s})"
            return f"{array.name}[{flat}]"
        # Linearized: row-major with the extents of the trailing dimensions.
        flat = f"({subs[0]})"
        for s, p in zip(subs[1:], array.params[1:]):
            flat = f"({flat} * {array.extent(p)} + ({s}))"
        return f"{array.name}[{flat}]"

    # ---- expressions ---------------------------------------------------------

    def leaf(self, ty, scope, readonly_only=False):
        """One operand of type ty: a read (masked for integers), a constant, an iterator or
        a temporary of an outer loop."""
        temps = [name for name, t in scope.temps if t == ty]
        if temps and self.chance(0.3):
            return self.pick(temps)
        r = self.rng.random()
        if ty in INT_TYPES:
            sources = self.data_arrays(INT_TYPES)
            if sources and r < 0.7:
                return f"(({ty}){self.ref(self.pick(sources), scope)} & 1023)"
            if scope.loops and r < 0.85:
                return f"({ty}){self.pick(scope.loops).var}"
            return str(self.rng.randint(1, 9))
        sources = self.data_arrays()
        if sources and r < 0.7:
            a = self.pick(sources)
            text = self.ref(a, scope)
            return f"({ty}){text}" if a.elem != ty else text
        if scope.loops and r < 0.85:
            return f"({ty}){self.pick(scope.loops).var}"
        return self.pick(("0.5", "0.25", "1.5", "2.0", "-0.75"))

    def expr(self, ty, scope):
        a, b = self.leaf(ty, scope), self.leaf(ty, scope)
        if ty in INT_TYPES:
            op = self.pick(("+", "-", "^", "|", "*", "+"))
            e = f"{a} {op} {b}"
            if self.chance(0.4):
                e = f"({e}) + {self.leaf(ty, scope)}"
            return e
        op = self.pick(("+", "-", "*", "+"))
        if op == "*" and self.chance(0.7):
            # Keep most products bounded (a read-only factor in [-1, 1], or a constant),
            # so recurrences grow slowly; the runner skips programs whose -O0 run still
            # reaches inf or NaN.
            factors = self.readonly_arrays(FLOAT_TYPES)
            if factors:
                f = self.pick(factors)
                b = self.ref(f, scope) if f.elem == ty else f"({ty}){self.ref(f, scope)}"
            else:
                b = self.pick(("0.5", "0.25", "-0.75"))
        e = f"{a} {op} {b}"
        r = self.rng.random()
        if r < 0.3:
            e = f"({e}) * 0.5 + {self.leaf(ty, scope)}"
        elif r < 0.4 and self.nonaffine:
            e = f"sqrt(fabs({e}))" if ty == "double" else f"sqrtf(fabsf({e}))"
        return e

    # ---- statements ----------------------------------------------------------

    def target(self):
        """An array to write, never an auxiliary (bound, index) one."""
        return self.pick(self.writable_arrays())

    def statement(self, scope, indent):
        pad = "  " * indent
        a = self.target()
        ty = a.elem
        lhs = self.ref(a, scope)
        r = self.rng.random()
        if r < 0.55:
            line = f"{pad}{lhs} = {self.expr(ty, scope)};"
        elif r < 0.85:
            e = self.expr(ty, scope)
            if ty in INT_TYPES:
                e = f"({e}) & 255"
            line = f"{pad}{lhs} += {e};"
        else:
            # A temporary used by two writes.
            t = f"t{self.var_count}"
            self.var_count += 1
            b = self.target()
            e2 = f"({b.elem}){t} * 0.5" if b.elem in FLOAT_TYPES else f"(({b.elem}){t} & 1023)"
            if ty in FLOAT_TYPES and b.elem in INT_TYPES:
                e2 = self.leaf(b.elem, scope)  # no float-to-integer conversions
            line = (f"{pad}{ty} {t} = {self.expr(ty, scope)};\n"
                    f"{pad}{lhs} = {t} + {self.leaf(ty, scope)};\n"
                    f"{pad}{self.ref(b, scope)} = {e2};")
        if self.chance(0.25):
            line = f"{pad}if ({self.condition(scope)}) {{\n{self.indent(line)}\n{pad}}}"
        return line

    def indent(self, text):
        return "\n".join("  " + l for l in text.split("\n"))

    def condition(self, scope):
        vs = scope.loops
        r = self.rng.random()
        if self.nonaffine and r < 0.3:
            readonly = self.readonly_arrays()
            if readonly:
                return f"{self.ref(self.pick(readonly), scope)} > 0"
        if len(vs) >= 2 and r < 0.5:
            x, y = self.rng.sample(vs, 2)
            return self.pick((f"{x.var} > {y.var}", f"{x.var} + {y.var} < {x.param}",
                              f"{x.var} != {y.var} && {x.var} > 1"))
        v = self.pick(vs)
        return self.pick((f"{v.var} % 2 == 0", f"{v.var} > 2", f"{v.var} < {v.param} - 1",
                          f"{v.var} != 3 || {v.var} == {v.param}"))

    # ---- loops ---------------------------------------------------------------

    def loop_header(self, var, param, scope):
        same = scope.vars_of(param)
        r = self.rng.random()
        if self.nonaffine and r < 0.1 and param == "m" and scope.vars_of("n"):
            return f"for (int {var} = 0; {var} < bnd[{self.pick(scope.vars_of('n'))}]; {var}++)"
        if self.nonaffine and r < 0.15 and same:
            w = self.pick(same)
            return f"for (int {var} = 0; {var} < ({w} * {w}) % ({param} + 1); {var}++)"
        if r < 0.35:
            return f"for (int {var} = 0; {var} < {param}; {var}++)"
        if r < 0.45:
            a, b = self.rng.randint(0, 2), self.rng.randint(1, 2)
            return f"for (int {var} = {a}; {var} < {param} - {b}; {var}++)"
        if r < 0.6 and same:
            w = self.pick(same)
            return self.pick((f"for (int {var} = 0; {var} <= {w}; {var}++)",
                              f"for (int {var} = {w}; {var} < {param}; {var}++)",
                              f"for (int {var} = {w} + 1; {var} < {param}; {var}++)"))
        if r < 0.7 and same:
            w = self.pick(same)
            return (f"for (int {var} = MAX(0, {w} - 2); {var} < MIN({param}, {w} + 3); {var}++)")
        if r < 0.78:
            return f"for (int {var} = {param} - 1; {var} >= {self.rng.randint(0, 1)}; {var}--)"
        if r < 0.85:
            return f"for (int {var} = {self.rng.randint(0, 1)}; {var} < {param}; {var} += 2)"
        if r < 0.92:
            return f"for (int {var} = 0; {var} < MIN(n, m); {var}++)"
        return f"for (int {var} = 0; {var} < {param}; {var}++)"

    def nest(self, depth, scope, indent, level=0):
        pad = "  " * indent
        var = "ijk"[level]
        param = self.param()
        header = self.loop_header(var, param, scope)
        inner = Scope(scope.loops + [Loop(var, param)], list(scope.temps))
        body = []
        if level + 1 < depth:
            if self.chance(0.3):
                body.append(self.statement(inner, indent + 1))
            nested = inner
            if self.chance(0.25):
                # A value computed once per iteration and read by the loop inside (LLVM
                # keeps it in a register: a scalar, or a forwarded value).
                types = sorted({a.elem for a in self.data_arrays()})
                if types:
                    ty = self.pick(types)
                    name = f"h{self.var_count}"
                    self.var_count += 1
                    body.append(f"{pad}  {ty} {name} = {self.expr(ty, inner)};")
                    nested = Scope(inner.loops, inner.temps + [(name, ty)])
            body.append(self.nest(depth, nested, indent + 1, level + 1))
            if self.chance(0.2):
                body.append(self.statement(inner, indent + 1))
        else:
            for _ in range(self.rng.randint(1, 3)):
                body.append(self.statement(inner, indent + 1))
        return f"{pad}{header} {{\n" + "\n".join(body) + f"\n{pad}}}"

    def perfect_nest(self, depth, indent):
        """A perfect nest with rectangular bounds: the shape tiling and interchange need."""
        scope, text = Scope(), ""
        for level in range(depth):
            var, param = "ijk"[level], self.param()
            low, high = self.pick((0, 0, 1)), self.pick(("", "", " - 1"))
            text += "  " * (indent + level) + f"for (int {var} = {low}; {var} < {param}{high}; {var}++)\n"
            scope = Scope(scope.loops + [Loop(var, param)])
        body = [self.statement(scope, indent + depth) for _ in range(self.rng.randint(1, 2))]
        pad = "  " * (indent + depth - 1)
        return text.rstrip("\n") + " {\n" + "\n".join(body) + f"\n{pad}}}"

    def scalar_reduction(self, depth, indent):
        """s = 0; a nest adding to s; s stored into an array element."""
        pad = "  " * indent
        out = self.target()
        ty = out.elem
        s = f"s{self.scalar_count}"
        self.scalar_count += 1
        scope = Scope()
        loops, body_scope = [], scope
        for level in range(depth):
            var, param = "ijk"[level], self.param()
            loops.append(self.loop_header(var, param, body_scope))
            body_scope = Scope(body_scope.loops + [Loop(var, param)])
        e = self.expr(ty, body_scope)
        if ty in INT_TYPES:
            e = f"({e}) & 255"
        text = f"{pad}{ty} {s} = 0;\n"
        for level, header in enumerate(loops):
            text += "  " * (indent + level) + header + "\n"
        text += "  " * (indent + depth) + f"{s} += {e};\n"
        text += f"{pad}{self.ref(out, Scope())} = {s};"
        return text

    def sweep(self, indent):
        """Strided programs: a nest over the whole buffer of a multi-dimensional array,
        `for (q = 0; q < e_n * e_m; q++)` with the extents passed as `int` parameters (a
        bound that is a product of sizes), inside a short loop; or "" when no array fits.
        Draws from `strided_rng` only."""
        rng = self.strided_rng
        flat = ("linear", "ptr")  # indexed by one subscript (not VLAs, not globals)
        targets = [a for a in self.writable_arrays() if a.kind in flat and len(a.params) > 1]
        if not targets:
            return ""
        x = rng.choice(targets)
        # Read from an array with at least as many elements (the same extents), never a
        # float into an integer.
        sources = [a for a in self.data_arrays() if a.kind in flat and a.params == x.params
                   and (x.elem in FLOAT_TYPES or a.elem in INT_TYPES)]
        y = rng.choice(sources)
        for p in x.params:
            if p not in self.extent_params:
                self.extent_params.append(p)
        bound = " * ".join(f"e_{p}" for p in x.params)
        read = f"{y.name}[q]" if y.elem == x.elem else f"({x.elem}){y.name}[q]"
        if x.elem in INT_TYPES:
            body = f"{x.name}[q] = ({x.name}[q] & 1023) + ({read} & 255);"
        else:
            body = f"{x.name}[q] = {x.name}[q] * 0.5 + {read};"
        pad = "  " * indent
        # (A constant trip count would let LLVM unroll the loop away before polyrust.)
        outer = rng.choice(("n", "m", "n + 1"))
        return (f"{pad}for (int r = 0; r < {outer}; r++)\n{pad}  for (int q = 0; q < {bound}; q++)\n"
                f"{pad}    {body}")

    # ---- the whole program ---------------------------------------------------

    def program(self):
        rng = self.rng
        n_nests = rng.randint(1, 3)
        depths = [rng.choice((1, 2, 2, 3, 3)) for _ in range(n_nests)]
        self.max_depth = max(depths)
        self.make_arrays()
        parts = []
        for d in depths:
            r = self.rng.random()
            if r < 0.15:
                parts.append(self.scalar_reduction(d, 1))
            elif r < 0.5 and d >= 2:
                parts.append(self.perfect_nest(d, 1))
            else:
                parts.append(self.nest(d, Scope(), 1))
        if self.strided and self.strided_rng.random() < 0.5:
            parts.append(self.sweep(1))
        kernel_body = "\n".join(p for p in parts if p)
        big = 40 if self.max_depth < 3 else 24
        inputs = [(rng.randint(0, 6), rng.randint(0, 6)), (rng.randint(9, big), rng.randint(9, big))]
        if self.strided:
            # First a size that enters most nests: the two-run option set profiles the
            # first input, and the others then take the specialized code or the original.
            inputs.insert(0, (self.strided_rng.randint(3, 12), self.strided_rng.randint(3, 12)))
            # A second call with the other layout of every view: a profiled nest then
            # sees two tuples of strides (two specialized versions).
            if any(a.strides == "view" for a in self.arrays) and self.strided_rng.random() < 0.4:
                self.calls = 2
        source = self.render(kernel_body) + inputs_comment(inputs)
        return Program(self.seed, source, inputs)

    def param_decl(self, a):
        q = " restrict" if a.restrict else ""
        if a.kind == "vla" and len(a.params) > 1:
            inner = "".join(f"[{a.extent(p)}]" for p in a.params[1:])
            return f"{a.elem} (*{q} {a.name}){inner}"
        strides = "".join(f", {a.stride_decl_type()} {s}" for s in a.stride_names())
        return f"{a.elem} *{q} {a.name}{strides}"

    def render(self, body):
        params = [a for a in self.arrays if a.kind != "global"]
        globals_ = [a for a in self.arrays if a.kind == "global"]
        out = [PRELUDE.replace("@SEED@", str(self.seed))]
        for a in globals_:
            dims = "".join("[NMAX + 4]" for _ in a.params)
            out.append(f"static {a.elem} {a.name}{dims};")
        sig = ", ".join(["int n", "int m"] + [f"int e_{p}" for p in self.extent_params]
                        + [self.param_decl(a) for a in params])
        out.append(f"\nstatic __attribute__((noinline)) void kernel({sig}) {{\n{body}\n}}\n")
        out.append(MAIN_HEAD)
        buffers = [a for a in params if a.alias_of is None]
        for a in buffers:
            # Slack of 4 elements behind every buffer: room for shifted aliases.
            out.append(f"  long c_{a.name} = {a.count_expr()} + 4;")
            out.append(f"  {a.elem} *b_{a.name} = fz_alloc(c_{a.name}, sizeof({a.elem}));")
            if a.role == "data":
                out.append(f"  fz_init_{a.elem}(b_{a.name}, c_{a.name}, {self.arrays.index(a) + 1});")
            else:
                p = "m" if a.role == "bound" else a.params[0]
                limit = f"{p} + 1" if a.role == "bound" else p
                out.append(f"  for (long q = 0; q < c_{a.name}; q++)")
                out.append(f"    b_{a.name}[q] = {limit} ? (int)(fz_hash(q, {self.arrays.index(a) + 1}) % (unsigned)({limit})) : 0;")
        for a in globals_:
            out.append(f"  fz_init_{a.elem}(&{a.name}{'[0]' * len(a.params)}, {a.count_expr()}, "
                       f"{self.arrays.index(a) + 1});")
        args = ["n", "m"]
        for p in self.extent_params:
            out.append(f"  int e_{p} = {p} + 4;")
            args.append(f"e_{p}")
        pad = "  "
        if self.calls == 2:
            out.append("  for (int call = 0; call < 2; call++) {")
            pad = "    "
        for a in params:
            base = a.alias_of or a
            ptr = f"b_{base.name} + {a.alias_offset}" if a.alias_of else f"b_{a.name}"
            if a.kind == "vla" and len(a.params) > 1:
                inner = "".join(f"[{a.extent(p)}]" for p in a.params[1:])
                ptr = f"({a.elem} (*){inner})({ptr})"
            args.append(ptr)
            for name, value in zip(a.stride_names(), a.stride_values(flipped=self.calls == 2)):
                out.append(f"{pad}{a.stride_decl_type()} {name} = {value};")
                args.append(name)
        out.append(f"{pad}kernel({', '.join(args)});")
        if self.calls == 2:
            out.append("  }")
        for a in buffers:
            out.append(f"  fz_check_{a.elem}(\"{a.name}\", b_{a.name}, c_{a.name});")
        for a in globals_:
            out.append(f"  fz_check_{a.elem}(\"{a.name}\", &{a.name}{'[0]' * len(a.params)}, "
                       f"{a.count_expr()});")
        out.append("  return 0;\n}")
        return "\n".join(out) + "\n"


def inputs_comment(inputs):
    """The line that tells `scripts/fuzz --check` which sizes to run a program at."""
    return "// inputs (N M): " + ", ".join(" ".join(map(str, i)) for i in inputs) + "\n"


def parse_inputs_comment(text):
    """The inputs of an `inputs_comment` line in text, or None."""
    for line in text.split("\n"):
        if line.startswith("// inputs (N M):"):
            return [tuple(int(x) for x in item.split()) for item in line.split(":", 1)[1].split(",")]
    return None


def generate(seed):
    return Generator(seed).program()


PRELUDE = r"""// polyrust fuzz program, seed @SEED@ (scripts/fuzz.d/generate.py)
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define NMAX 40
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static uint32_t fz_hash(long k, uint32_t salt) {
  uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ULL ^ (uint64_t)salt * 0xC2B2AE3D27D4EB4FULL;
  x ^= x >> 29; x *= 0xBF58476D1CE4E5B9ULL; x ^= x >> 32;
  return (uint32_t)x;
}
static void *fz_alloc(long count, size_t size) {
  void *p = calloc((size_t)count, size);
  if (!p) { fprintf(stderr, "out of memory\n"); exit(3); }
  return p;
}
static void fz_init_double(double *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (double)((int)(fz_hash(k, s) % 17u) - 8) / 8.0; }
static void fz_init_float(float *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (float)((int)(fz_hash(k, s) % 17u) - 8) / 8.0f; }
static void fz_init_int(int *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (int)(fz_hash(k, s) % 1024u) - 512; }
static void fz_init_long(long *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = (long)(fz_hash(k, s) % 1024u) - 512; }
static void fz_init_unsigned(unsigned *a, long c, uint32_t s) { for (long k = 0; k < c; k++) a[k] = fz_hash(k, s) % 1024u; }
static uint64_t fz_mix(uint64_t h, uint64_t bits) { return (h ^ bits) * 1099511628211ULL; }
static void fz_check_double(const char *name, const double *a, long c) {
  uint64_t h = 1469598103934665603ULL; double s = 0, abs_sum = 0, w = 0;
  for (long k = 0; k < c; k++) { uint64_t b; memcpy(&b, &a[k], 8); h = fz_mix(h, b); s += a[k]; abs_sum += fabs(a[k]); w += (double)(k % 7 + 1) * a[k]; }
  printf("%s fp h=%016llx s=%.17g a=%.17g w=%.17g\n", name, (unsigned long long)h, s, abs_sum, w);
}
static void fz_check_float(const char *name, const float *a, long c) {
  uint64_t h = 1469598103934665603ULL; double s = 0, abs_sum = 0, w = 0;
  for (long k = 0; k < c; k++) { uint32_t b; memcpy(&b, &a[k], 4); h = fz_mix(h, b); s += a[k]; abs_sum += fabs(a[k]); w += (double)(k % 7 + 1) * a[k]; }
  printf("%s fp h=%016llx s=%.17g a=%.17g w=%.17g\n", name, (unsigned long long)h, s, abs_sum, w);
}
#define FZ_CHECK_INT(T)                                                              \
  static void fz_check_##T(const char *name, const T *a, long c) {                   \
    uint64_t h = 1469598103934665603ULL; long long s = 0;                            \
    for (long k = 0; k < c; k++) { h = fz_mix(h, (uint64_t)a[k]); s += (long long)a[k]; } \
    printf("%s int h=%016llx s=%lld\n", name, (unsigned long long)h, s);             \
  }
FZ_CHECK_INT(int)
FZ_CHECK_INT(long)
FZ_CHECK_INT(unsigned)
"""

MAIN_HEAD = r"""int main(int argc, char **argv) {
  if (argc != 3) { fprintf(stderr, "usage: %s N M (0 <= N, M <= %d)\n", argv[0], NMAX); return 2; }
  int n = atoi(argv[1]), m = atoi(argv[2]);
  if (n < 0 || m < 0 || n > NMAX || m > NMAX) { fprintf(stderr, "sizes out of range\n"); return 2; }"""
