"""The option sets the differential runner compiles every program with: the one table.

Each set is compiled with clang-22 -O3 and the plugin; its flags are polyrust's own
options (passed with -mllvm to clang and as they are to opt). `compare` says how its
output is checked against the -O0 reference:
  "exact"     every byte (polyrust promises bit-exact results by default);
  "tolerant"  integer arrays exactly; floating-point arrays by their sums s and w,
              within 1e-4 * (1 + sum of magnitudes), hashes ignored: with
              -polyrust-allow-reassociation a reduction may legitimately be summed in
              another order and differ in the last bits.
A `two_run` set is the profile-guided speculation flow instead of one compile: its flags
plus -polyrust-profile-generate, linked with the runtime (libpolyrust_rt.a) and run on
the program's first input, which writes the profile; then its flags plus
-polyrust-profile-use of that profile (and with `instrument_specialized`
-polyrust-profile-generate again, linked with the runtime), run on every input
(runner.py, `check_two_run`).
opt gets its flags plus -polyrust-profile-generate (instrumentation on any IR).
`cflags` are clang options of a set's compile (and link), `env` the environment its
program runs in.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionSet:
    name: str
    flags: tuple
    compare: str = "exact"
    two_run: bool = False
    instrument_specialized: bool = False  # two-run: the second compile also instruments
    cflags: tuple = ()
    env: tuple = ()  # (name, value) pairs


CODEGEN = ("-polyrust-codegen", "-polyrust-force-codegen")

OPTION_SETS = (
    # The plugin as users get it: transformations on where the cost model accepts a
    # new schedule.
    OptionSet("plugin", ()),
    # Analysis only: detection, model and remarks, the IR untouched.
    OptionSet("analysis", ("-polyrust-codegen=false",)),
    # Every modelled region regenerated, with its original schedule when the cost model
    # keeps it: exercises code generation and the run-time checks on every region.
    OptionSet("force", CODEGEN),
    OptionSet("tile-fixed", CODEGEN + ("-polyrust-tiling=fixed", "-polyrust-tile-sizes=4,8")),
    OptionSet("tile-none", CODEGEN + ("-polyrust-tiling=none",)),
    OptionSet("reassoc", CODEGEN + ("-polyrust-allow-reassociation",), compare="tolerant"),
    # Parallel loops on OpenMP threads (-fopenmp; forced for opt, which sees no module
    # flag), every one forking from two iterations on, run on two threads.
    OptionSet("openmp", CODEGEN + ("-polyrust-parallel=true", "-polyrust-parallel-min-work=0"),
              cflags=("-fopenmp",), env=(("OMP_NUM_THREADS", "2"),)),
    # With reassociation, as users get it (no forced code: regions the cost model keeps
    # get new code in their original order for their parallel loops): loops that only
    # add into a scalar run on the two threads too, each into a partial of its own
    # (sums compared with a tolerance).
    OptionSet("openmp-reassoc", ("-polyrust-parallel=true", "-polyrust-parallel-min-work=0",
                                 "-polyrust-allow-reassociation"),
              compare="tolerant", cflags=("-fopenmp",), env=(("OMP_NUM_THREADS", "2"),)),
    # Profile-guided speculation (two compiles, a profiling run between them): nests
    # whose products of run-time sizes or strides and loop counters keep them from
    # being regions are instrumented, then specialized for the profiled values behind
    # a check that sends other values to the original loops. With CODEGEN every
    # specialized region is regenerated, so the specialized code runs where the
    # values match, and the original loops where they do not.
    OptionSet("two-run", CODEGEN, two_run=True),
    # The same with both profile options in the second compile: the specialized build is
    # instrumented too (its run-time checks record whether they passed), as users check
    # how often the specialized code runs.
    OptionSet("two-run-instrumented", CODEGEN, two_run=True, instrument_specialized=True),
    # TO ADD when they are implemented (issue 5 asks for them): expression propagation
    # and QUOV (their -polyrust-* switches, with CODEGEN).
)

# The set whose remarks measure acceptance (regions polyrust transformed).
ACCEPTANCE_SET = "force"
