//! Matrix products written as a dot product per element of C,
//!
//! ```c
//! for (i < M) for (j < N) { double sum = 0; for (k < K) sum += A[i][k] * B[j][k]; C[i][j] += sum; }
//! ```
//!
//! recognised in a region's model and IR (`recognise`) and replaced by a call of the
//! packed product (`passes/kernels/products.c`, linked in by `codegen::product`): B
//! packed into panels of `NR` columns, A into panels of `MR` rows per block of `mc` rows
//! and `kc` steps of k, an `MR` x `NR` micro-kernel. Each element's sum starts at +0.0
//! and takes its products in k order, fused exactly where the loop's are (its
//! `llvm.fmuladd` on a target with FMA), and is added to C once, so the result has the bytes the loop gives: no
//! reassociation is needed.
//!
//! Also the nest that accumulates into C itself, `for (i) for (j) for (k) C[i][j] +=
//! A[i][k] * B[k][j]`, which LLVM compiles with C's element kept in a register across
//! k (`in_register`): there each sum starts at C's old element and is stored into C, a
//! variant of the same kernel. Relies on the model (box domains, access relations that
//! are functions of the counters) and on the region's IR for the arithmetic.
//!
//! And the product as BLAS's dgemm and PolyBench write it, `C[i][j] *= beta` (or `= 0`)
//! before `C[i][j] += alpha * A[i][k] * B[k][j]` in either loop order (`scaled`): the
//! kernel's third variant, whose sums start at C, C * beta or +0.0 and whose packed A
//! is alpha * A, the loop's own first product.
//!
//! On an x86-64 target without AVX2 (plain `clang -O3`, no `-march`), the kernel is
//! linked in for AVX2 and FMA all the same and called only when the CPU running the
//! program has both (`KernelTarget::CpuTest`, tested in the region's run-time check);
//! its steps are fused or not as the target's own `llvm.fmuladd` is, not as the CPU
//! could.

mod arithmetic;
pub mod batched;
mod in_register;
pub(crate) mod recognise;
mod scaled;
pub mod symmetric;
mod two_terms;
mod zeroed;

use crate::isl::ast::{AstExpr, AstOp};
use crate::transform::hardware::Hardware;

/// Rows of the micro-kernel (the kernel's `MR`).
pub const MICRO_ROWS: u64 = 6;
/// Columns of the micro-kernel in double precision (the kernel's `NR`: two vectors of
/// 4 doubles).
pub const MICRO_COLUMNS: u64 = 8;
/// The kernel's symbol.
pub const KERNEL: &str = "polyrust_product_f64";
/// The symbol of its variant whose sums start at C's elements and are stored into C.
pub const KERNEL_FROM_C: &str = "polyrust_product_from_c_f64";
/// The symbol of its variant whose sums start at C, C * beta or +0.0, with A scaled.
pub const KERNEL_SCALED: &str = "polyrust_product_scaled_f64";

/// The symbol of its variant with two products per step (syr2k).
pub const KERNEL_TWO_TERMS: &str = "polyrust_product_two_terms_f64";
/// The symbol of the dot-product kernel's variant with A scaled by alpha.
pub const KERNEL_ALPHA: &str = "polyrust_product_alpha_f64";
/// The symbol of the batched variant, written back into A (doitgen).
pub const KERNEL_BATCHED: &str = "polyrust_product_batched_f64";
/// The symbol of the symmetric variant (symm).
pub const KERNEL_SYMM: &str = "polyrust_product_symm_f64";

/// The element type of a product's matrices (all of A, B and C, and its sums): the
/// kernel is built once for each (`-DPOLYRUST_F32`), its symbols ending in `_f64` or
/// `_f32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// `double`.
    Double,
    /// `float`.
    Single,
}

impl Precision {
    /// The precision of elements of the model's type `name`, if a kernel is built for it.
    pub fn of(name: &str) -> Option<Precision> {
        match name {
            "double" => Some(Precision::Double),
            "float" => Some(Precision::Single),
            _ => None,
        }
    }

    /// The bytes of an element.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::Double => 8,
            Precision::Single => 4,
        }
    }

    /// Columns of the micro-kernel: two 256-bit vectors of elements.
    pub fn micro_columns(self) -> u64 {
        MICRO_COLUMNS * 8 / self.bytes()
    }

    /// The kernel `symbol` (one of the `KERNEL*` constants) for these elements.
    fn symbol(self, symbol: &'static str) -> &'static str {
        match (self, symbol) {
            (Precision::Double, _) => symbol,
            (Precision::Single, KERNEL) => "polyrust_product_f32",
            (Precision::Single, KERNEL_FROM_C) => "polyrust_product_from_c_f32",
            (Precision::Single, KERNEL_SCALED) => "polyrust_product_scaled_f32",
            (Precision::Single, KERNEL_ALPHA) => "polyrust_product_alpha_f32",
            (Precision::Single, KERNEL_BATCHED) => "polyrust_product_batched_f32",
            (Precision::Single, KERNEL_SYMM) => "polyrust_product_symm_f32",
            (Precision::Single, _) => "polyrust_product_two_terms_f32",
        }
    }
}

/// The one precision of the model's `arrays` (by name), all of one element type the
/// kernel is built for.
pub(crate) fn common_precision(
    scop: &crate::model::Scop,
    arrays: &[&str],
) -> Result<Precision, String> {
    let precision = |name: &&str| {
        scop.arrays
            .iter()
            .find(|a| a.name == *name)
            .and_then(|a| Precision::of(&a.element_type))
    };
    let found: Vec<Option<Precision>> = arrays.iter().map(precision).collect();
    match found.first() {
        Some(Some(first)) if found.iter().all(|p| *p == Some(*first)) => Ok(*first),
        _ => Err("the matrices are not all of doubles or all of floats".into()),
    }
}

/// A value of the function that a scaled product multiplies by (`alpha`, `beta`),
/// made before the region.
pub type Factor = crate::llvm::LLVMValueRef;

/// Where each element's sum is made while k runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accumulator {
    /// A scalar starting at +0.0, added to C's element after the k loop.
    Sum,
    /// The same, each step's A element multiplied by alpha first (`sum += alpha *
    /// A[i][k] * B[j][k]`, as darknet's gemm_nt writes it): the dot-product kernel's
    /// variant that packs alpha * A.
    ScaledSum(Factor),
    /// C's element itself, kept in a register across k: the sum starts at its old value
    /// and is stored back.
    C,
    /// C's element, updated in place (in memory or in a register), after C was scaled
    /// or set to zero and with A scaled: the kernel's scaled variant.
    Scaled(Scaling),
}

/// Where each element's sum starts in the scaled form, in the kernel's numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// C's old element.
    C,
    /// C's old element times beta (`C[i][j] *= beta` first).
    ScaledC(Factor),
    /// +0.0 (`C[i][j] = 0` first).
    Zero,
}

impl Start {
    /// The kernel's `start` argument.
    pub fn code(self) -> u64 {
        match self {
            Start::C => 0,
            Start::ScaledC(_) => 1,
            Start::Zero => 2,
        }
    }
}

/// How the scaled form starts its sums and scales A.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scaling {
    /// Where each sum starts.
    pub start: Start,
    /// What A's elements are multiplied by before B's (`alpha * A[i][k]`), if anything.
    pub alpha: Option<Factor>,
    /// Only C's lower triangle (`j <= i`) is the product's, as syrk writes it.
    pub lower: bool,
}

/// One operand of the product: its array in the model and its strides (in elements,
/// as expressions of the region's parameters) along the two counters it is indexed by.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// The array's name in the model.
    pub array: String,
    /// The name a remark gives it.
    pub shown: String,
    /// Stride along the operand's first counter (i for A and C, k for B).
    pub first_stride: AstExpr,
    /// Stride along its second counter (k for A, j for B and C).
    pub second_stride: AstExpr,
    /// Whether it is indexed by its counters in the other order (`B[k][j]` for B).
    pub swapped: bool,
}

/// The second product of a step that makes two, as syr2k writes it:
/// `C[i][j] + fma(B(k,j), A(i,k), B2(k,j) * A2(i,k))`, the first product (`Product::a`,
/// `Product::b`) fused where the loop's is, this one rounded.
#[derive(Clone, Debug, PartialEq)]
pub struct SecondProduct {
    /// A2, indexed by (i, k).
    pub a: Operand,
    /// B2, indexed by (k, j).
    pub b: Operand,
    /// Which of A, B, A2, B2 are multiplied by alpha (`Scaling::alpha`) first.
    pub scaled: [bool; 4],
}

impl SecondProduct {
    /// The kernel's `scaled` argument: bit 0 for A, 1 for B, 2 for A2, 3 for B2.
    pub fn scaled_bits(&self) -> u64 {
        self.scaled
            .iter()
            .enumerate()
            .map(|(bit, on)| u64::from(*on) << bit)
            .sum()
    }
}

/// The cache blocks of the packed product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocking {
    /// Rows of A per packed block (a multiple of `MICRO_ROWS`).
    pub mc: u64,
    /// Steps of k per packed block.
    pub kc: u64,
}

impl Blocking {
    /// Blocks sized for `hardware`'s caches: a packed panel of B over `kc` steps takes
    /// half of L1, the packed block of A (`mc` x `kc`) half of L2.
    pub fn for_caches(hardware: &Hardware, precision: Precision) -> Blocking {
        let element = precision.bytes();
        let columns = precision.micro_columns();
        let kc = (hardware.l1_bytes.value / 2 / (columns * element)).clamp(16, 1024);
        let kc = kc - kc % 8;
        let mc = (hardware.l2_bytes.value / 2 / (kc * element)).clamp(MICRO_ROWS, 1024);
        Blocking {
            mc: mc - mc % MICRO_ROWS,
            kc,
        }
    }
}

/// A recognised product `C(i,j) += sum over k of A(i,k) * B(k,j)`, one sum per element
/// in k order, with what its call needs.
#[derive(Clone, Debug, PartialEq)]
pub struct Product {
    /// A, indexed by (i, k).
    pub a: Operand,
    /// B, indexed by (k, j).
    pub b: Operand,
    /// C, indexed by (i, j).
    pub c: Operand,
    /// Trip counts of i, j and k, as expressions of the parameters (zero or less: none).
    pub trips: [AstExpr; 3],
    /// The cache blocks.
    pub blocking: Blocking,
    /// Each step of a sum is one fused multiply-add (the loop's `llvm.fmuladd` on a
    /// target with FMA); otherwise the product is rounded before it is added.
    pub fused: bool,
    /// Where the sums are made.
    pub accumulator: Accumulator,
    /// The second product of each step, when a step makes two (syr2k).
    pub second: Option<Box<SecondProduct>>,
    /// The element type of the matrices and sums.
    pub precision: Precision,
    /// Which instructions the kernel is built with, and whether the CPU is tested.
    pub target: KernelTarget,
    /// The batches of a batched product (doitgen), whose C is A written back.
    pub batch: Option<Box<batched::Batch>>,
    /// alpha and beta of a symmetric product (symm), A's lower triangle read.
    pub symmetric: Option<symmetric::Symmetric>,
}

/// The instructions of the linked-in kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelTarget {
    /// The calling function's own target (it has AVX2).
    Caller,
    /// AVX2 and FMA added to the caller's target, which lacks AVX2: the call is made
    /// only when the CPU running the program has both, the original loops otherwise.
    CpuTest,
}

impl KernelTarget {
    /// The features the kernel takes on top of the caller's (`target-features`).
    pub const CPU_TEST_FEATURES: &'static str = "+avx2,+fma";
}

impl Product {
    /// What the remark says was done.
    pub fn description(&self) -> String {
        if let Some(batch) = &self.batch {
            return self.batched_description(batch);
        }
        if self.symmetric.is_some() {
            return self.symmetric_description();
        }
        let subscripts = |op: &Operand, first: &str, second: &str| {
            if op.swapped {
                format!("{}[{second}][{first}]", op.shown)
            } else {
                format!("{}[{first}][{second}]", op.shown)
            }
        };
        let transposed = match (self.a.swapped, self.b.swapped, &self.second) {
            (_, _, Some(_)) => "two products per step, ",
            (false, true, None) => "B transposed, ",
            (true, true, None) => "A and B transposed, ",
            (false, false, None) => "",
            (true, false, None) => "A transposed, ",
        };
        let form = match self.accumulator {
            Accumulator::Sum | Accumulator::ScaledSum(_) => {
                format!("{transposed}a dot product per element")
            }
            Accumulator::C => format!("{transposed}C kept in a register across k"),
            Accumulator::Scaled(scaling) => {
                let start = match scaling.start {
                    Start::C => "C updated in place",
                    Start::ScaledC(_) => "beta-scaled C",
                    Start::Zero => "C set to 0 first",
                };
                let triangle = if scaling.lower {
                    "lower triangle of C, "
                } else {
                    ""
                };
                format!("{transposed}{triangle}{start}")
            }
        };
        let alpha = match self.accumulator {
            Accumulator::Scaled(Scaling { alpha: Some(_), .. }) => "alpha * ",
            Accumulator::ScaledSum(_) => "alpha * ",
            _ => "",
        };
        let terms = match &self.second {
            None => format!(
                "{alpha}{} * {}",
                subscripts(&self.a, "i", "k"),
                subscripts(&self.b, "k", "j")
            ),
            Some(second) => {
                let scaled = |on: bool| if on { "alpha * " } else { "" };
                let [a, b, a2, b2] = second.scaled.map(scaled);
                format!(
                    "{b}{} * {a}{} + {b2}{} * {a2}{}",
                    subscripts(&self.b, "k", "j"),
                    subscripts(&self.a, "i", "k"),
                    subscripts(&second.b, "k", "j"),
                    subscripts(&second.a, "i", "k")
                )
            }
        };
        let steps = if self.fused {
            ""
        } else {
            " (products rounded before they are added, as written)"
        };
        let cpu = match self.target {
            KernelTarget::Caller => "",
            KernelTarget::CpuTest => ", needs AVX2 and FMA at run time, original loops otherwise",
        };
        format!(
            "matrix product {} += {terms} ({form}): packed, blocks {} x {}, micro-kernel {} x {}{steps}, \
             bit-exact{cpu}",
            subscripts(&self.c, "i", "j"),
            self.blocking.mc,
            self.blocking.kc,
            MICRO_ROWS,
            self.precision.micro_columns()
        )
    }

    /// What the remark says of a batched product.
    fn batched_description(&self, batch: &batched::Batch) -> String {
        let steps = if self.fused {
            ""
        } else {
            " (products rounded before they are added, as written)"
        };
        let cpu = match self.target {
            KernelTarget::Caller => "",
            KernelTarget::CpuTest => ", needs AVX2 and FMA at run time, original loops otherwise",
        };
        let (a, b, sum) = (&self.a.shown, &self.b.shown, &batch.sum_shown);
        format!(
            "batched matrix product {a}[r][q][p] = {sum}[p] = sum over s of {a}[r][q][s] * {b}[s][p] \
             (a product per r, written back into {a}): packed, blocks {} x {}, micro-kernel {} x {}{steps}, \
             bit-exact{cpu}",
            self.blocking.mc,
            self.blocking.kc,
            MICRO_ROWS,
            self.precision.micro_columns()
        )
    }

    /// What the remark says of a symmetric product.
    fn symmetric_description(&self) -> String {
        let steps = if self.fused {
            ""
        } else {
            " (products rounded before they are added, as written)"
        };
        let cpu = match self.target {
            KernelTarget::Caller => "",
            KernelTarget::CpuTest => ", needs AVX2 and FMA at run time, original loops otherwise",
        };
        let (a, b, c) = (&self.a.shown, &self.b.shown, &self.c.shown);
        format!(
            "symmetric matrix product {c}[i][j] = beta * {c}[i][j] + alpha * sum over k of {a}[i][k] * {b}[k][j] \
             ({a} symmetric, its lower triangle read: the rows' sums below the diagonal, then the \
             updates from above it, each element's in the loop's order): packed, blocks {} x {}, \
             micro-kernel {} x {}{steps}, bit-exact{cpu}",
            self.blocking.mc,
            self.blocking.kc,
            MICRO_ROWS,
            self.precision.micro_columns()
        )
    }

    /// The symbol of the kernel the product calls.
    pub fn kernel(&self) -> &'static str {
        let symbol = match (self.accumulator, &self.second) {
            _ if self.batch.is_some() => KERNEL_BATCHED,
            _ if self.symmetric.is_some() => KERNEL_SYMM,
            (_, Some(_)) => KERNEL_TWO_TERMS,
            (Accumulator::Sum, None) => KERNEL,
            (Accumulator::ScaledSum(_), None) => KERNEL_ALPHA,
            (Accumulator::C, None) => KERNEL_FROM_C,
            (Accumulator::Scaled(_), None) => KERNEL_SCALED,
        };
        self.precision.symbol(symbol)
    }

    /// The call as a printer shows it.
    pub fn call_text(&self) -> String {
        let [m, n, k] = &self.trips;
        let operand = |op: &Operand| {
            format!(
                "{}, {}, {}",
                op.array,
                show(&op.first_stride),
                show(&op.second_stride)
            )
        };
        let cpu = match self.target {
            KernelTarget::Caller => "",
            KernelTarget::CpuTest => " if the CPU has AVX2 and FMA",
        };
        if self.symmetric.is_some() {
            return format!(
                "{}(M = {}, N = {}, A = {}, B = {}, C = {}, mc = {}, kc = {}, fused = {}, alpha, beta){cpu}\n",
                self.kernel(),
                show(m),
                show(n),
                operand(&self.a),
                operand(&self.b),
                operand(&self.c),
                self.blocking.mc,
                self.blocking.kc,
                u8::from(self.fused)
            );
        }
        let scaling = match (self.accumulator, &self.second) {
            (Accumulator::Scaled(s), None) => format!(
                ", start = {}, scale A = {}, lower = {}",
                s.start.code(),
                u8::from(s.alpha.is_some()),
                u8::from(s.lower),
            ),
            (Accumulator::Scaled(s), Some(second)) => format!(
                ", start = {}, scaled = {}, lower = {}",
                s.start.code(),
                second.scaled_bits(),
                u8::from(s.lower),
            ),
            (Accumulator::ScaledSum(_), None) => ", scale A = 1".into(),
            _ => String::new(),
        };
        let second = match &self.second {
            Some(second) => format!(", A2 = {}, B2 = {}", operand(&second.a), operand(&second.b)),
            None => String::new(),
        };
        let (m, scaling) = match &self.batch {
            Some(batch) => (
                format!(
                    "{} batches of {} every {}",
                    show(&batch.batches),
                    show(m),
                    show(&batch.batch_stride)
                ),
                format!(", sum = {}", batch.sum),
            ),
            None => (show(m), scaling),
        };
        format!(
            "{}(M = {}, N = {}, K = {}, A = {}, B = {}{second}, C = {}, mc = {}, kc = {}, fused = {}{scaling}){cpu}\n",
            self.kernel(),
            m,
            show(n),
            show(k),
            operand(&self.a),
            operand(&self.b),
            operand(&self.c),
            self.blocking.mc,
            self.blocking.kc,
            u8::from(self.fused)
        )
    }
}

/// An expression of the parameters as C writes it.
fn show(e: &AstExpr) -> String {
    match e {
        AstExpr::Int(v) => v.to_string(),
        AstExpr::Id(name) => name.clone(),
        AstExpr::Op(op, args) => {
            let symbol = match op {
                AstOp::Add => " + ",
                AstOp::Sub => " - ",
                AstOp::Mul => " * ",
                _ => return format!("{e:?}"),
            };
            let parts: Vec<String> = args.iter().map(show).collect();
            format!("({})", parts.join(symbol))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::hardware::{Sourced, ValueSource};

    fn hardware(l1: u64, l2: u64) -> Hardware {
        let sourced = |value| Sourced {
            value,
            source: ValueSource::Option,
        };
        Hardware {
            l1_bytes: sourced(l1),
            l2_bytes: sourced(l2),
            simd_bits: Sourced {
                value: 256,
                source: ValueSource::Option,
            },
            vector_registers: Sourced {
                value: 16,
                source: ValueSource::Option,
            },
        }
    }

    #[test]
    fn blocks_fill_half_of_l1_with_b_and_half_of_l2_with_a() {
        // 32 KiB L1: 16 KiB of B's panel is 256 steps of 8 doubles; 512 KiB L2: 256 KiB
        // of A over 256 steps is 128 rows, 126 in whole micro-kernel rows.
        let blocks = Blocking::for_caches(&hardware(32 << 10, 512 << 10), Precision::Double);
        assert_eq!(blocks, Blocking { mc: 126, kc: 256 });
    }

    #[test]
    fn float_blocks_fill_the_same_bytes_with_twice_the_columns() {
        // 16 KiB of B's panel is 256 steps of 16 floats; 256 KiB of A over 256 steps of
        // floats is 256 rows, 252 in whole micro-kernel rows.
        let blocks = Blocking::for_caches(&hardware(32 << 10, 512 << 10), Precision::Single);
        assert_eq!(blocks, Blocking { mc: 252, kc: 256 });
    }

    #[test]
    fn blocks_stay_whole_micro_kernels_for_tiny_caches() {
        let blocks = Blocking::for_caches(&hardware(1024, 4096), Precision::Single);
        assert!(blocks.kc.is_multiple_of(8));
        assert!(blocks.mc >= MICRO_ROWS && blocks.mc.is_multiple_of(MICRO_ROWS));
    }
}
