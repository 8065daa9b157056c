"""The option sets the differential runner compiles every program with: the one table.

Each set is compiled with clang-22 -O3 and the plugin; its flags are polyrust's own
options (passed with -mllvm to clang and as they are to opt). `compare` says how its
output is checked against the -O0 reference:
  "exact"     every byte (polyrust promises bit-exact results by default);
  "tolerant"  integer arrays exactly; floating-point arrays by their sums s and w,
              within 1e-4 * (1 + sum of magnitudes), hashes ignored: with
              -polyrust-allow-reassociation a reduction may legitimately be summed in
              another order and differ in the last bits.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionSet:
    name: str
    flags: tuple
    compare: str = "exact"


CODEGEN = ("-polyrust-codegen", "-polyrust-force-codegen")

OPTION_SETS = (
    # The plugin as users get it: analysis only, transformations off by default.
    OptionSet("plugin", ()),
    # Transformations on, where the cost model finds a better schedule.
    OptionSet("codegen", ("-polyrust-codegen",)),
    # Every modelled region regenerated, with its original schedule when the cost model
    # keeps it: exercises code generation and the run-time checks on every region.
    OptionSet("force", CODEGEN),
    OptionSet("tile-fixed", CODEGEN + ("-polyrust-tiling=fixed", "-polyrust-tile-sizes=4,8")),
    OptionSet("tile-none", CODEGEN + ("-polyrust-tiling=none",)),
    OptionSet("reassoc", CODEGEN + ("-polyrust-allow-reassociation",), compare="tolerant"),
    # TO ADD when they are implemented (issue 5 asks for them):
    #   - expression propagation and QUOV (their -polyrust-* switches, with CODEGEN);
    #   - the two-run speculation flow: compile with -polyrust-profile-generate, run on
    #     the program's first input, recompile with -polyrust-profile-use, run and compare
    #     on its other inputs. That needs a "profile" step in runner.py beside "flags".
)

# The set whose remarks measure acceptance (regions polyrust transformed).
ACCEPTANCE_SET = "force"
