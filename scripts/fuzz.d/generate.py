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
    to 12, which enter most nests;
  - stencil programs (STENCIL_SHARE of them, again a choice drawn from a stream of their
    own, `is_stencil`; neither strided nor drawn from the main stream): a kernel that
    is one time loop `for (t = 0; t < T; t++)` (T a constant of 1 to 13, or a kernel
    parameter main computes from n and m, 0 to 13) around 1-3 sweeps over grids of 1,
    2 or 3 dimensions passed as pointers (plain, restrict, VLA `T (*A)[e_m]`,
    linearized; extents mostly kernel parameters `e_m` = m + 4, which LLVM delinearizes,
    sometimes `(m + 4)`, which it does not), the shapes of real codes: Jacobi with a
    copy-back or relaxation sweep, two sweeps A -> B and B -> A, in-place Gauss-Seidel
    updates (red-black among them), chains of three grids, FDTD-like updates of each
    grid from the others; each sweep a nest writing v + c and reading neighbours
    v + c' (stars, boxes, upwind, row-only, wider), with its own extents, sometimes a
    scalar temporary (read by a second write), a scalar carried along the row (the left
    neighbour), an accumulation, an affine guard (on t too), a read-only coefficient
    grid, a boundary plane copied each step, a residual summed into R[t % 4]. Grids
    are all one element type; sizes go up to STENCIL_LIMIT (main's bound instead of
    NMAX), 1-D inputs often beyond a strip of 512 elements.

Every program is free of undefined behaviour at the sizes it comes with, because -O0
and -O3 must print the same bytes:
  - array dimension d has extent p_d + 4 (p_d is n or m, or NMAX for globals; e_n and
    e_m are n + 4 and m + 4), each
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
STENCIL_SHARE = 0.2  # share of time-iterated stencil programs
# Stencil programs: the space dimensions' sizes per number of dimensions, the largest n
# and m main accepts (1-D arrays beyond a 512-element strip), the kernel's time steps
# when they are a parameter (main computes them from n and m; m alone in 1-D programs,
# where it sizes nothing).
STENCIL_SPACES = {1: (("n",),), 2: (("n", "m"), ("n", "n"), ("m", "n")),
                  3: (("n", "n", "m"), ("n", "m", "m"), ("n", "n", "n"))}
STENCIL_LIMIT = {1: 6000, 2: 200, 3: 48}
STENCIL_STEPS = {1: ("m", "m % 14", "(n + m) % 14"),
                 2: ("(n + m) % 14", "n % 11 + 3", "m % 14", "13 - m % 6"),
                 3: ("(n + m) % 14", "n % 11 + 3", "m % 14", "13 - m % 6")}
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
    # Stencil programs: the kernel writes the extents of dimensions but the first as its
    # parameters `e_n`, `e_m` (which main sets to n + 4, m + 4).
    named_extents: bool = False

    def extent(self, p, in_kernel=True):
        if self.kind == "global":
            return "(NMAX + 4)"
        return f"e_{p}" if self.named_extents and in_kernel else f"({p} + 4)"

    def count_expr(self):
        return " * ".join(self.extent(p, in_kernel=False) for p in self.params)

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
        # Stencil programs: their own random stream too; they are neither strided nor
        # drawn from the main stream.
        self.stencil_rng = random.Random(f"stencil-{seed}")
        self.stencil = self.stencil_rng.random() < STENCIL_SHARE
        self.kernel_params = []  # (name, value computed in main) of `int` kernel parameters
        self.size_limit = None  # main's bound on n and m, when not NMAX

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
        return self.format_ref(array, subs)

    def format_ref(self, array, subs):
        """array's element at subscripts subs (C expressions), as its kind writes it."""
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

    # ---- stencil programs ----------------------------------------------------

    def stencil_program(self):
        """A time-iterated stencil: `for (t = 0; t < T; t++)` around 1-3 sweeps over
        grids of 1-3 dimensions (see the module doc). Draws from `stencil_rng` only."""
        rng = self.rng = self.stencil_rng  # (chance, pick and the helpers below use self.rng)
        self.nonaffine = self.strided = False
        dims = rng.choice((1, 1, 2, 2, 2, 3))
        space = list(rng.choice(STENCIL_SPACES[dims]))
        # Mostly extents passed as parameters: LLVM delinearizes `A[i * e_m + j]` with
        # row length e_m, but `A[i * (m + 4) + j]` with m (and a subscript 4 * i + j).
        self.named_extents = rng.random() < 0.9
        elem = rng.choice(("double",) * 5 + ("float",) * 2 + INT_TYPES)
        shape = rng.choice(("jacobi", "jacobi", "pingpong", "pingpong", "inplace", "redblack", "chain",
                            "mixed"))
        count = {"jacobi": 2, "pingpong": 2, "inplace": rng.randint(1, 2), "redblack": 1, "chain": 3,
                 "mixed": 3}[shape]
        grids = [self.grid(name, elem, space) for name in "ABC"[:count]]
        coefficients = self.grid("K", elem, space, readonly=True) if rng.random() < 0.25 else None
        # Plain pointers may share a buffer (the run-time alias checks' business).
        plain = [g for g in grids if not g.restrict]
        if len(plain) >= 2 and rng.random() < 0.25 and plain[0].kind == plain[1].kind:
            plain[1].alias_of = plain[0]
            plain[1].alias_offset = rng.choice((0, 1, 3))
        a, b, c = (grids + [None, None])[:3]
        sweeps = []
        if shape == "jacobi":
            sweeps = [(b, [a], None), (a, [b], rng.choice(("copy", "copy", "relax")))]
        elif shape == "pingpong":
            sweeps = [(b, [a], None), (a, [b], None)]
        elif shape == "inplace":
            sweeps = [(g, [g] + ([h for h in grids if h is not g] if rng.random() < 0.3 else []), None)
                      for g in grids]
        elif shape == "redblack":
            sweeps = [(a, [a], "red"), (a, [a], "black")]
        elif shape == "chain":
            sweeps = [(b, [a], None), (c, [b], None), (a, [c], rng.choice((None, "copy")))]
        else:
            # FDTD-like: each grid updated from its own value and its neighbours' in others.
            for x in rng.sample(grids, 3):
                others = [g for g in grids if g is not x]
                sweeps.append((x, rng.sample(others, rng.randint(1, 2)), rng.choice(("update", "accumulate",
                                                                                      None))))
        parts = []
        for x, sources, form in sweeps:
            if coefficients is not None and form is None and rng.random() < 0.5:
                form = "coefficient"
            parts.append(self.stencil_sweep(x, sources, form, grids, coefficients, 2))
            if len(space) > 1 and rng.random() < 0.12:
                parts.append(self.boundary_sweep(x, 2))
        if dims == 1 and rng.random() < 0.06:
            g = rng.choice(grids)
            parts.insert(rng.randint(0, len(parts)), f"    {self.format_ref(g, ['0'])} = {self.format_ref(g, ['2'])};")
        if rng.random() < 0.08:
            parts.append(self.residual(rng.choice(grids), 2))
        # (LLVM unrolls a time loop of a constant trip count away before polyrust sees it.)
        if rng.random() < 0.3:
            steps = str(rng.choice((1, 2, 3, 4, 5, 7, 8, 9, 9, 10, 11, 12, 13, 13)))
        else:
            self.kernel_params.append(("T", rng.choice(STENCIL_STEPS[dims])))
            steps = "T"
        time = (f"for (int t = 1; t <= {steps}; t++)" if rng.random() < 0.15
                else f"for (int t = 0; t < {steps}; t++)")
        kernel_body = f"  {time} {{\n" + "\n".join(parts) + "\n  }"
        self.size_limit = STENCIL_LIMIT[dims]
        if dims == 1:
            inputs = [(rng.randint(0, 6), rng.randint(0, 13)), (rng.randint(9, 40), rng.randint(0, 13))]
            if rng.random() < 0.6:
                inputs.append((rng.choice((rng.randint(500, 1100), rng.randint(1100, 5999))), rng.randint(0, 13)))
        else:
            mid, large = (40, (41, 150)) if dims == 2 else (24, (25, 40))
            inputs = [(rng.randint(0, 6), rng.randint(0, 6)), (rng.randint(9, mid), rng.randint(9, mid))]
            if rng.random() < 0.5:
                inputs.append((rng.randint(*large), rng.randint(*large)))
        source = self.render(kernel_body) + inputs_comment(inputs)
        return Program(self.seed, source, inputs)

    def grid(self, name, elem, space, readonly=False):
        """A grid of the stencil, passed as a pointer (linearized when plain), a VLA pointer
        or a linearized pointer; added to the program's arrays."""
        rng = self.rng
        kind = "ptr" if len(space) == 1 else rng.choice(("ptr", "vla", "vla", "vla", "linear"))
        array = Array(name, elem, list(space), kind, restrict=rng.random() < 0.5, readonly=readonly)
        if len(space) > 1 and self.named_extents:
            array.named_extents = True
            for p in space[1:]:
                if p not in self.extent_params:
                    self.extent_params.append(p)
        self.arrays.append(array)
        return array

    def neighbours(self, center):
        """Offsets around center, one tuple per read, every coordinate in [0, 3]."""
        rng = self.rng
        dims = len(center)
        pattern = rng.choice(("star", "star", "star", "hollow", "box", "upwind", "row", "columns", "wide"))
        if pattern == "box" and dims > 2:
            pattern = "star"
        if pattern == "columns" and dims == 1:
            pattern = "star"
        points = [tuple(center)]
        axes = {"row": [dims - 1], "columns": range(dims - 1)}.get(pattern, range(dims))
        for d in axes:
            for step in ((-1,) if pattern == "upwind" else (-1, 1, 2) if pattern == "wide" else (-1, 1)):
                p = list(center)
                p[d] += step
                points.append(tuple(p))
        if pattern == "box":
            points = [tuple(center[d] + o[d] for d in range(dims))
                      for o in ([(x,) for x in (-1, 0, 1)] if dims == 1 else
                                [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1)])]
        if pattern == "hollow" and len(points) > 2:
            points = points[1:]
        points = [p for p in points if all(0 <= x <= 3 for x in p)]
        if len(points) > 2 and rng.random() < 0.3:
            points = rng.sample(points, rng.randint(2, len(points)))
        return points

    def at(self, array, variables, offsets, mask=True):
        """array's element at variables + offsets; integers masked (& 1023) when read."""
        text = self.format_ref(array, [f"{v} + {c}" if c else v for v, c in zip(variables, offsets)])
        return f"({text} & 1023)" if mask and array.elem in INT_TYPES else text

    def combine(self, ty, reads, center=None):
        """A stencil's value from its reads (already masked for integers): weighted means,
        a diffusion step around center, or weights; bounded by the largest read (and a
        few times that for diffusion), so repeated steps cannot overflow."""
        rng = self.rng
        k = len(reads)
        if ty in INT_TYPES:
            form = rng.random()
            if form < 0.5:
                return f"({' + '.join(reads)}) / {k}"
            if form < 0.7 and k >= 2:
                return f"(({reads[0]} ^ {reads[1]}) + {' + '.join(reads[2:]) or '1'}) >> 1"
            if form < 0.85 and k >= 2:
                return f"({reads[0]} * {reads[1]}) >> 10"
            return f"({' + '.join(reads)}) & 1023"
        form = rng.random()
        if center is not None and k > 1 and form < 0.3:
            others = [r for r in reads if r != center]
            return f"{center} + 0.125 * ({' + '.join(others)} - {float(len(others))} * {center})"
        if form < 0.75:
            w = rng.choice([w for w in (0.5, 0.25, 0.2, 0.125, 0.1, 0.0625) if w * k <= 1])
            signs = [" + "] * (k - 1)
            if k > 2 and rng.random() < 0.2:
                signs[rng.randrange(k - 1)] = " - "
            text = reads[0] + "".join(s + r for s, r in zip(signs, reads[1:]))
            return f"{w} * ({text})"
        weights = [rng.choice(("0.5", "0.25", "0.125", "-0.25")) for _ in reads]
        return " + ".join(f"{w} * {r}" for w, r in zip(weights, reads))

    def stencil_sweep(self, x, sources, form, grids, coefficients, indent):
        """One sweep: a nest over x's dimensions writing x around a center from the
        neighbours of each source; form None (a stencil), "copy", "relax", "update"
        (FDTD-like: x minus a difference of a source's neighbours), "accumulate", "red"
        or "black" (Gauss-Seidel on one parity), "coefficient" (a stencil times the
        coefficients' element)."""
        rng = self.rng
        ty = x.elem
        dims = len(x.params)
        variables = list("ijk"[:dims])
        center = [rng.choice((1, 1, 1, 2)) for _ in range(dims)]
        headers, forward = [], []
        for v, p in zip(variables, x.params):
            low, high = rng.choice(((0, p), (0, p), (0, p), (1, f"{p} - 1"), (0, f"{p} - 1"), (1, p), (2, p),
                                    (0, f"{p} - 2")))
            if rng.random() < 0.06:
                headers.append(f"for (int {v} = {high} - 1; {v} >= {low}; {v}--)")
                forward.append(None)
            else:
                headers.append(f"for (int {v} = {low}; {v} < {high}; {v}++)")
                forward.append(low)
        lhs = self.at(x, variables, center, mask=False)
        pre, body = [], []
        y = sources[0]
        rolling = (form in (None, "coefficient") and forward[-1] is not None and 1 <= center[-1] <= 2
                   and rng.random() < (0.15 if dims > 1 else 0.05))
        if rolling:
            # A scalar carried along the row: the left neighbour, read one iteration before.
            left, right = f"l{self.var_count}", f"r{self.var_count}"
            self.var_count += 1
            start = center[:-1] + [None]
            first = self.format_ref(y, [f"{v} + {c}" if c else v for v, c in zip(variables[:-1], center[:-1])]
                                    + [str(forward[-1] + center[-1] - 1)])
            mask = (lambda r: f"({r} & 1023)") if ty in INT_TYPES else (lambda r: r)
            pre.append(f"{ty} {left} = {mask(first)};")
            right_at = list(center)
            right_at[-1] += 1
            body.append(f"{ty} {right} = {self.at(y, variables, right_at)};")
            mid = self.at(y, variables, center)
            value = self.combine(ty, [left, mid, right] + [self.at(s, variables, center) for s in sources[1:]])
            statement = f"{lhs} = {value};"
            del start
        else:
            reads = []
            for s in sources:
                reads += [self.at(s, variables, p) for p in self.neighbours(center)]
            own = self.at(x, variables, center)
            if form == "copy":
                value = self.at(y, variables, center)
            elif form == "relax":
                value = (f"({own} + {self.at(y, variables, center)}) >> 1" if ty in INT_TYPES
                         else f"0.5 * {own} + 0.5 * {self.at(y, variables, center)}")
            elif form == "update" and len(reads) >= 2:
                value = (f"{own} - ({reads[0]} - {reads[1]}) / 2" if ty in INT_TYPES
                         else f"{own} - 0.5 * ({reads[0]} - {reads[1]})")
            else:
                value = self.combine(ty, reads, self.at(y, variables, center) if y is not x or rng.random() < 0.5
                                     else None)
            if form == "coefficient":
                k = self.at(coefficients, variables, center)
                value = f"({k} & 3) * ({value})" if ty in INT_TYPES else f"{k} * ({value})"
            if rng.random() < 0.08:
                value = f"({value}) + (t & 7)" if ty in INT_TYPES else f"{value} + 0.0625 * t"

            def assign(value):
                if form != "accumulate":
                    return f"{lhs} = {value};"
                return f"{lhs} += ({value}) & 255;" if ty in INT_TYPES else f"{lhs} += 0.25 * ({value});"
            statement = assign(value)
            if rng.random() < 0.12:
                # A temporary, sometimes read by a second write in the same iteration.
                temp = f"s{self.var_count}"
                self.var_count += 1
                statement = assign(temp)
                body.append(f"{ty} {temp} = {value};")
                others = [g for g in grids if g is not x]
                if others and rng.random() < 0.5:
                    z = rng.choice(others)
                    at_z = self.at(z, variables, center)
                    z_value = f"(({temp} & 1023) + {at_z}) >> 1" if ty in INT_TYPES else f"0.5 * {temp} + 0.5 * {at_z}"
                    statement += f"\n{self.at(z, variables, center, mask=False)} = {z_value};"
        guard = None
        if form in ("red", "black"):
            guard = f"({' + '.join(variables)} + t) % 2 == {0 if form == 'red' else 1}"
        elif rng.random() < 0.15:
            v = rng.choice(variables)
            p = x.params[variables.index(v)]
            choices = [f"{v} % 2 == 0", f"{v} > 2", f"{v} < {p} - 2", f"{v} > t", "t % 3 != 1"]
            if dims > 1:
                w = rng.choice([u for u in variables if u != v])
                choices += [f"{v} > {w}", f"{v} + {w} < {p}"]
            guard = rng.choice(choices)
        if guard:
            statement = f"if ({guard}) {{\n" + "\n".join("  " + l for l in statement.split("\n")) + "\n}"
        body.append(statement)
        if rolling:
            body.append(f"{left} = {self.at(y, variables, center)};")
        # The nest, innermost loop last; `pre` in front of the innermost loop.
        text = ""
        for level, header in enumerate(headers):
            pad = "  " * (indent + level)
            if level == dims - 1:
                text += "".join(f"{pad}{line}\n" for line in pre)
            text += f"{pad}{header} {{\n"
        inner = "  " * (indent + dims)
        text += "".join(inner + line + "\n" for b in body for line in b.split("\n"))
        for level in reversed(range(dims)):
            text += "  " * (indent + level) + "}" + ("\n" if level else "")
        return text

    def boundary_sweep(self, x, indent):
        """A boundary condition: one plane of x (a constant subscript) copied from a
        neighbouring plane, over x's other dimensions."""
        rng = self.rng
        dims = len(x.params)
        pinned = rng.randrange(dims)
        to, source = rng.sample(range(4), 2)
        variables = [v for d, v in enumerate("ijk"[:dims]) if d != pinned]
        subs_w, subs_r, headers = [], [], []
        names = iter(variables)
        for d in range(dims):
            if d == pinned:
                subs_w.append(str(to))
                subs_r.append(str(source))
                continue
            v = next(names)
            c = rng.choice((0, 1, 1))
            subs_w.append(f"{v} + {c}" if c else v)
            subs_r.append(f"{v} + {c}" if c else v)
            headers.append(f"for (int {v} = 0; {v} < {x.params[d]}; {v}++)")
        text = ""
        for level, header in enumerate(headers):
            text += "  " * (indent + level) + header + "\n"
        return text + "  " * (indent + len(headers)) + \
            f"{self.format_ref(x, subs_w)} = {self.format_ref(x, subs_r)};"

    def residual(self, x, indent):
        """A sum over x (a residual) stored each time step into R[t % 4]."""
        rng = self.rng
        r = self.grid("R", x.elem, ["n"])
        dims = len(x.params)
        variables = list("ijk"[:dims])
        s = f"s{self.var_count}"
        self.var_count += 1
        pad = "  " * indent
        text = f"{pad}{x.elem} {s} = 0;\n"
        for level, (v, p) in enumerate(zip(variables, x.params)):
            text += "  " * (indent + level) + f"for (int {v} = 0; {v} < {p}; {v}++)\n"
        read = self.at(x, variables, [rng.randint(0, 3) for _ in variables], mask=False)
        text += "  " * (indent + dims) + (f"{s} += {read} & 255;\n" if x.elem in INT_TYPES else f"{s} += {read};\n")
        return text + f"{pad}{self.format_ref(r, ['t % 4'])} = {s};"

    # ---- the whole program ---------------------------------------------------

    def program(self):
        if self.stencil:
            return self.stencil_program()
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
                        + [f"int {name}" for name, _ in self.kernel_params]
                        + [self.param_decl(a) for a in params])
        out.append(f"\nstatic __attribute__((noinline)) void kernel({sig}) {{\n{body}\n}}\n")
        out.append(MAIN_HEAD if self.size_limit is None else MAIN_HEAD.replace("NMAX", str(self.size_limit)))
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
        for name, value in self.kernel_params:
            out.append(f"  int {name} = {value};")
            args.append(name)
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


def is_stencil(seed):
    """Whether seed's program is a time-iterated stencil (cheaply: its stream's first draw)."""
    return random.Random(f"stencil-{seed}").random() < STENCIL_SHARE


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
