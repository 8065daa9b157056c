//! The `-polyrust-*` options, each declared once: its name, what it holds, its default and
//! its help. The shim makes one LLVM `cl::opt` per declaration when the plugin is loaded
//! (`polyrust_option_declaration`), and hands back the parsed values in the same order;
//! each declaration's `read` puts its value where `RawOptions` keeps it.

use std::ffi::CStr;

use super::{RawOptions, TilingChoice};
use crate::llvm::abi::PrOptionChoice;

/// What an option holds, with its default.
#[derive(Clone, Copy, Debug)]
pub enum OptionKind {
    /// `-name` or `-name=false`.
    Flag(bool),
    /// An unsigned 64-bit integer (`<ulong>`).
    Uint64(u64),
    /// An unsigned 32-bit integer (`<uint>`).
    Uint(u32),
    /// A floating-point number (`<number>`).
    Number(f64),
    /// Text, shown as `<value_name>` in `--help`; `value_optional`: `-name` alone is
    /// accepted too.
    Text {
        value_name: &'static CStr,
        default: &'static CStr,
        value_optional: bool,
    },
    /// Comma-separated unsigned integers, none by default.
    UintList,
    /// One of `choices`, held as its index.
    Choice {
        choices: &'static [PrOptionChoice],
        default: usize,
    },
}

/// One option as the user meets it on the command line and in `--help`.
pub struct OptionDeclaration {
    /// Without the leading `-`.
    pub name: &'static CStr,
    pub help: &'static CStr,
    pub kind: OptionKind,
    /// Listed by `--help-hidden` only (options for polyrust's own tests and developers).
    pub hidden: bool,
    /// Puts the option's value where the raw options keep it.
    pub read: fn(&mut RawOptions, &GivenValue),
}

/// One option's value as LLVM parsed it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GivenValue {
    /// The option appeared on the command line.
    pub given: bool,
    /// Flags (0 or 1), integers, the choice's index.
    pub integer: u64,
    pub number: f64,
    pub text: String,
    pub list: Vec<u32>,
}

impl GivenValue {
    fn flag(&self) -> bool {
        self.integer != 0
    }

    /// The integer of a `Uint` option (LLVM parsed it as 32 bits).
    fn uint(&self) -> u32 {
        u32::try_from(self.integer).unwrap_or(u32::MAX)
    }

    /// What an option holds when the user does not give it.
    pub fn default_of(declaration: &OptionDeclaration) -> GivenValue {
        let mut value = GivenValue::default();
        match declaration.kind {
            OptionKind::Flag(on) => value.integer = u64::from(on),
            OptionKind::Uint64(n) => value.integer = n,
            OptionKind::Uint(n) => value.integer = u64::from(n),
            OptionKind::Number(x) => value.number = x,
            OptionKind::Text { default, .. } => value.text = default.to_string_lossy().into(),
            OptionKind::UintList => {}
            OptionKind::Choice { default, .. } => value.integer = default as u64,
        }
        value
    }
}

/// The choices of `-polyrust-tiling`, in the order of `TilingChoice`.
const TILING_CHOICES: &[PrOptionChoice] = &[
    PrOptionChoice {
        name: c"sica".as_ptr(),
        help: c"from the cache sizes and the SIMD width (SICA)".as_ptr(),
    },
    PrOptionChoice {
        name: c"fixed".as_ptr(),
        help: c"from -polyrust-tile-sizes".as_ptr(),
    },
    PrOptionChoice {
        name: c"none".as_ptr(),
        help: c"do not tile".as_ptr(),
    },
];

const fn text(value_name: &'static CStr, default: &'static CStr) -> OptionKind {
    OptionKind::Text {
        value_name,
        default,
        value_optional: false,
    }
}

/// Every `-polyrust-*` option, in the order the shim registers them.
pub const DECLARATIONS: &[OptionDeclaration] = &[
    OptionDeclaration {
        name: c"polyrust-enable",
        help: c"Run polyrust automatically in the -O2/-O3 pipeline, before the vectorizer \
                (default: true when the plugin is loaded)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.enable = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-max-operations",
        help: c"Upper bound on isl operations per region; a region that needs more is left \
                unchanged with a remark (0 = only the ceiling of 200000000; default: 2000000)",
        kind: OptionKind::Uint64(2_000_000),
        hidden: false,
        read: |raw, v| raw.max_operations = v.integer,
    },
    OptionDeclaration {
        name: c"polyrust-tiling",
        help: c"How tile sizes are chosen (default: sica)",
        kind: OptionKind::Choice {
            choices: TILING_CHOICES,
            default: TilingChoice::Sica as usize,
        },
        hidden: false,
        read: |raw, v| {
            raw.tiling = if v.given {
                TilingChoice::from_index(v.integer)
            } else {
                None
            }
        },
    },
    OptionDeclaration {
        name: c"polyrust-tile-sizes",
        help: c"Comma-separated tile sizes, outermost loop first, for -polyrust-tiling=fixed \
                (default: 32 for every loop)",
        kind: OptionKind::UintList,
        hidden: false,
        read: |raw, v| raw.tile_sizes = v.list.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-sica-rho",
        help: c"Share of the L1 data cache SICA tiles fill, in (0, 1] (default: 0.9)",
        kind: OptionKind::Number(0.9),
        hidden: false,
        read: |raw, v| raw.sica_rho = v.number,
    },
    OptionDeclaration {
        name: c"polyrust-export",
        help: c"Write the polyhedral model of every region as JSON into this directory",
        kind: text(c"dir", c""),
        hidden: false,
        read: |raw, v| raw.export_dir = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-import",
        help: c"Read region schedules from JSON files in this directory (as written by \
                -polyrust-export, with the schedules edited)",
        kind: text(c"dir", c""),
        hidden: false,
        read: |raw, v| raw.import_dir = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-l1-cache",
        help: c"L1 data cache size for SICA tile sizes, e.g. 32K (default: the host's when \
                compiling for it, else the target's, else 32K)",
        kind: text(c"size", c""),
        hidden: false,
        read: |raw, v| raw.l1_cache = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-l2-cache",
        help: c"L2 cache size for SICA tile sizes, e.g. 1M (default: the host's when \
                compiling for it, else the target's, else 256K)",
        kind: text(c"size", c""),
        hidden: false,
        read: |raw, v| raw.l2_cache = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-simd-width",
        help: c"SIMD register width in bits for SICA tile sizes (default: the target's, \
                else 128)",
        kind: OptionKind::Uint(0),
        hidden: false,
        read: |raw, v| raw.simd_width = v.uint(),
    },
    OptionDeclaration {
        name: c"polyrust-codegen",
        help: c"Replace regions for which the cost model accepts a new schedule by code \
                generated from it, behind a run-time check (default: true; false keeps \
                polyrust to analysis and remarks)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.codegen = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-force-codegen",
        help: c"Generate code for every modelled region, even with its original schedule \
                (for testing code generation)",
        kind: OptionKind::Flag(false),
        hidden: true,
        read: |raw, v| raw.force_codegen = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-time-tiling",
        help: c"Tile the time loop of iterated stencils together with their row loops, \
                skewed, when a time step's data does not stay in cache (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.time_tiling = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-register-tiling",
        help: c"Unroll and jam the point loops of a tiled band around its innermost loop, \
                so that values loaded there are reused from registers (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.register_tiling = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-exprprop",
        help: c"Recompute a temporary's values where they are read, when the function owns \
                it and nothing after the region reads it, so that its stores and its \
                memory go (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.exprprop = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-quov",
        help: c"Store a temporary the function owns folded to the cells the new schedule \
                needs live at once (U[t][i] in U[t mod 2][i], a value read at once in one \
                cell), checked against the schedule; its full memory is not touched \
                (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.quov = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-fusion",
        help: c"Fuse the loop nests of a pipeline into one loop over rows, each stage a few \
                rows behind the one it reads, where that lets a temporary the function owns \
                be stored in those rows only (needs -polyrust-quov) (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.fusion = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-products",
        help: c"Replace a matrix product written as a dot product per element \
                (sum += A[i][k] * B[j][k]; C[i][j] += sum), accumulated into C or scaled \
                (C[i][j] *= beta; C[i][j] += alpha * A[i][k] * B[k][j]) by a packed product with a \
                register micro-kernel, bit-exact with the loop, on x86-64 targets (without \
                AVX2 in the target: behind a run-time test of the CPU's AVX2 and FMA) \
                (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.products = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-closures",
        help: c"Replace the in-place all-pairs shortest-path nest on ints \
                (for k, i, j: A[i][j] = min(A[i][j], A[i][k] + A[k][j]), Floyd-Warshall) by a \
                kernel blocked over k with its rows, behind a run-time check per block of \
                steps that no negative cycle changes the result (the loops' own order from \
                a block that fails it), on x86-64 targets (without AVX2 in the target: \
                behind a run-time test of the CPU's AVX2 and FMA) (default: true)",
        kind: OptionKind::Flag(true),
        hidden: false,
        read: |raw, v| raw.closures = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-allow-reassociation",
        help: c"Let schedules reorder the updates of reductions (s += x), and OpenMP \
                threads split a loop that adds into a scalar (partials combined in thread \
                order): floating-point results may then differ in their last bits \
                (default: false)",
        kind: OptionKind::Flag(false),
        hidden: false,
        read: |raw, v| raw.allow_reassociation = v.flag(),
    },
    OptionDeclaration {
        name: c"polyrust-profile-generate",
        help: c"Instrument the loop nests polyrust could optimize only under assumptions a \
                run-time check settles, and the run-time checks of optimized code (how \
                often each passed); the program (linked with -lpolyrust_rt) writes a \
                profile at exit, to this path (default: default.polyprof.json, or \
                $POLYRUST_PROFILE_FILE; %p is the process id)",
        kind: OptionKind::Text {
            value_name: c"path",
            default: c"",
            value_optional: true,
        },
        hidden: false,
        read: |raw, v| raw.profile_generate = v.given.then(|| v.text.clone()),
    },
    OptionDeclaration {
        name: c"polyrust-instrument",
        help: c"What -polyrust-profile-generate records: 'values' (the values speculation \
                needs, and how often run-time checks pass) or 'accesses' (every outermost \
                loop nest of every function gets loop counters and reports each iteration \
                and each load and store with its iteration vector and address, for the \
                folding analysis; those nests are not optimized in that compile) \
                (default: values)",
        kind: text(c"values|accesses", c"values"),
        hidden: false,
        read: |raw, v| raw.instrument = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-parallel",
        help: c"Run the outermost loop of each band that carries no dependence on OpenMP \
                threads (LLVM's libomp, static schedule, OMP_NUM_THREADS threads), serially \
                when it is too short to pay for the threads or is called from inside a \
                parallel region: 'auto' when compiled with -fopenmp, 'true' always (then link \
                with -fopenmp or -lomp), 'false' never. Loops that update a reduction stay \
                serial (default: auto)",
        kind: text(c"auto|true|false", c"auto"),
        hidden: false,
        read: |raw, v| raw.parallel = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-parallel-min-work",
        help: c"A parallel loop forks OpenMP threads when its trip count times 64 per loop \
                nested in it reaches this many statement instances, else it runs on the \
                calling thread; 0: whenever it has two iterations (default: 32768)",
        kind: OptionKind::Uint64(32768),
        hidden: true,
        read: |raw, v| raw.parallel_min_work = v.integer,
    },
    OptionDeclaration {
        name: c"polyrust-profile-use",
        help: c"Specialize loop nests on the values a profile of -polyrust-profile-generate \
                recorded, behind run-time checks, and leave alone code whose check mostly \
                failed in the profiled run",
        kind: text(c"path", c""),
        hidden: false,
        read: |raw, v| raw.profile_use = v.text.clone(),
    },
    OptionDeclaration {
        name: c"polyrust-debug-remarks",
        help: c"Remarks also quote the LLVM IR and ScalarEvolution expressions they speak \
                of (for polyrust's developers)",
        kind: OptionKind::Flag(false),
        hidden: true,
        read: |raw, v| raw.debug_remarks = v.flag(),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_names_are_unique_and_prefixed() {
        for (k, declaration) in DECLARATIONS.iter().enumerate() {
            let name = declaration.name.to_str().unwrap_or_default();
            assert!(name.starts_with("polyrust-"), "{name}");
            assert!(
                DECLARATIONS[k + 1..]
                    .iter()
                    .all(|d| d.name != declaration.name),
                "{name} is declared twice"
            );
        }
    }

    #[test]
    fn help_texts_say_the_declared_defaults_of_numbers() {
        for declaration in DECLARATIONS {
            let help = declaration.help.to_string_lossy();
            let said = match declaration.kind {
                OptionKind::Uint64(n) => format!("default: {n}"),
                OptionKind::Number(x) => format!("default: {x}"),
                _ => continue,
            };
            assert!(help.contains(&said), "{help}");
        }
    }
}
