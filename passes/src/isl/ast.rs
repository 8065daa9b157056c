//! isl's AST generation, which isl-rs does not wrap (no `isl_ast_build`): a schedule and
//! the context it runs in become a loop AST, returned as a plain Rust tree (`AstNode`,
//! `AstExpr`) that code generation walks without touching isl, plus isl's own C-like
//! text of it for printers and tests.
//!
//! Relies on isl's C API (declared below; the static isl linked by isl-rs exports it)
//! and on the node and expression type numbering of isl's `ast_type.h`, which isl-rs's
//! `ASTNodeType` gets wrong by one: the numbering is written out here instead.

use std::ffi::{c_char, c_int, c_long, c_void, CStr};

use super::construct::Tuple;
use super::ctx::{CtxRef, IslCtx};
use super::error::IslError;
use super::map::Map;
use super::object::{error_after_raw_call, release, unbounded};
use super::raw::{take_ctx_error, take_string, RawPtr};
use super::schedule::Schedule;
use super::set::Set;
use super::union_map::UnionMap;

extern "C" {
    fn isl_ast_build_from_context(set: RawPtr) -> RawPtr;
    fn isl_ast_build_set_before_each_for(
        build: RawPtr,
        callback: unsafe extern "C" fn(RawPtr, *mut c_void) -> RawPtr,
        user: *mut c_void,
    ) -> RawPtr;
    fn isl_ast_build_get_schedule(build: RawPtr) -> RawPtr;
    fn isl_map_flatten_range(map: RawPtr) -> RawPtr;
    fn isl_ast_build_get_ctx(build: RawPtr) -> RawPtr;
    fn isl_ast_node_get_annotation(node: RawPtr) -> RawPtr;
    fn isl_id_alloc(ctx: RawPtr, name: *const c_char, user: *mut c_void) -> RawPtr;
    fn isl_ast_build_node_from_schedule(build: RawPtr, schedule: RawPtr) -> RawPtr;
    fn isl_ast_build_free(build: RawPtr) -> RawPtr;
    fn isl_ast_build_expr_from_set(build: RawPtr, set: RawPtr) -> RawPtr;
    fn isl_ast_build_expr_from_pw_aff(build: RawPtr, pa: RawPtr) -> RawPtr;
    fn isl_set_dim_min(set: RawPtr, pos: c_int) -> RawPtr;
    fn isl_set_dim_max(set: RawPtr, pos: c_int) -> RawPtr;
    fn isl_pw_aff_free(pa: RawPtr) -> RawPtr;
    fn isl_pw_aff_involves_nan(pa: RawPtr) -> c_int;
    fn isl_pw_aff_to_str(pa: RawPtr) -> *mut c_char;

    fn isl_ast_node_free(node: RawPtr) -> RawPtr;
    fn isl_ast_node_get_type(node: RawPtr) -> c_int;
    fn isl_ast_node_to_C_str(node: RawPtr) -> *mut c_char;
    fn isl_ast_node_for_get_iterator(node: RawPtr) -> RawPtr;
    fn isl_ast_node_for_get_init(node: RawPtr) -> RawPtr;
    fn isl_ast_node_for_get_cond(node: RawPtr) -> RawPtr;
    fn isl_ast_node_for_get_inc(node: RawPtr) -> RawPtr;
    fn isl_ast_node_for_get_body(node: RawPtr) -> RawPtr;
    fn isl_ast_node_for_is_degenerate(node: RawPtr) -> c_int;
    fn isl_ast_node_if_get_cond(node: RawPtr) -> RawPtr;
    fn isl_ast_node_if_get_then_node(node: RawPtr) -> RawPtr;
    fn isl_ast_node_if_has_else_node(node: RawPtr) -> c_int;
    fn isl_ast_node_if_get_else_node(node: RawPtr) -> RawPtr;
    fn isl_ast_node_block_get_children(node: RawPtr) -> RawPtr;
    fn isl_ast_node_mark_get_node(node: RawPtr) -> RawPtr;
    fn isl_ast_node_user_get_expr(node: RawPtr) -> RawPtr;
    fn isl_ast_node_list_size(list: RawPtr) -> c_int;
    fn isl_ast_node_list_get_at(list: RawPtr, index: c_int) -> RawPtr;
    fn isl_ast_node_list_free(list: RawPtr) -> RawPtr;

    fn isl_ast_expr_free(expr: RawPtr) -> RawPtr;
    fn isl_ast_expr_get_type(expr: RawPtr) -> c_int;
    fn isl_ast_expr_op_get_type(expr: RawPtr) -> c_int;
    fn isl_ast_expr_op_get_n_arg(expr: RawPtr) -> c_int;
    fn isl_ast_expr_op_get_arg(expr: RawPtr, pos: c_int) -> RawPtr;
    fn isl_ast_expr_get_id(expr: RawPtr) -> RawPtr;
    fn isl_ast_expr_get_val(expr: RawPtr) -> RawPtr;

    fn isl_id_get_name(id: RawPtr) -> *const c_char;
    fn isl_id_free(id: RawPtr) -> RawPtr;
    fn isl_val_is_int(val: RawPtr) -> c_int;
    fn isl_val_get_num_si(val: RawPtr) -> c_long;
    fn isl_val_to_str(val: RawPtr) -> *mut c_char;
    fn isl_val_free(val: RawPtr) -> RawPtr;
}

/// Deepest nesting of AST nodes or expressions accepted (guards the recursion).
const MAX_DEPTH: u32 = 256;

/// An operation of an AST expression (isl's `isl_ast_expr_op_type`, same order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AstOp {
    And,
    AndThen,
    Or,
    OrElse,
    Max,
    Min,
    Minus,
    Add,
    Sub,
    Mul,
    /// Exact division.
    Div,
    /// Division rounding towards negative infinity.
    FloorDiv,
    /// Division of a non-negative dividend.
    PositiveDiv,
    /// Remainder of a non-negative dividend.
    PositiveRem,
    /// Remainder only compared against zero.
    ZeroRem,
    Cond,
    Select,
    Eq,
    Le,
    Lt,
    Ge,
    Gt,
    Call,
    Access,
    Member,
    AddressOf,
}

const OPS: [AstOp; 26] = [
    AstOp::And,
    AstOp::AndThen,
    AstOp::Or,
    AstOp::OrElse,
    AstOp::Max,
    AstOp::Min,
    AstOp::Minus,
    AstOp::Add,
    AstOp::Sub,
    AstOp::Mul,
    AstOp::Div,
    AstOp::FloorDiv,
    AstOp::PositiveDiv,
    AstOp::PositiveRem,
    AstOp::ZeroRem,
    AstOp::Cond,
    AstOp::Select,
    AstOp::Eq,
    AstOp::Le,
    AstOp::Lt,
    AstOp::Ge,
    AstOp::Gt,
    AstOp::Call,
    AstOp::Access,
    AstOp::Member,
    AstOp::AddressOf,
];

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AstExpr {
    Int(i64),
    /// A loop iterator or a parameter.
    Id(String),
    Op(AstOp, Vec<AstExpr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum AstNode {
    /// `for (iterator = init; cond; iterator += inc) body`.
    For {
        iterator: String,
        init: AstExpr,
        cond: AstExpr,
        inc: AstExpr,
        body: Box<AstNode>,
        /// Runs exactly once (isl prints it as an assignment, not a loop).
        degenerate: bool,
        /// Proven free of loop-carried dependences (only when the AST was generated
        /// with dependences to check against): its iterations may run in any order.
        parallel: bool,
    },
    If {
        cond: AstExpr,
        then: Box<AstNode>,
        otherwise: Option<Box<AstNode>>,
    },
    Block(Vec<AstNode>),
    Mark(Box<AstNode>),
    /// One instance of a statement: its name and the values of its iterators.
    User {
        statement: String,
        args: Vec<AstExpr>,
    },
}

/// A generated loop AST.
#[derive(Clone, Debug)]
pub struct Ast {
    pub(crate) root: AstNode,
    /// isl's C-like rendering, for printers and tests.
    pub text: String,
}

/// Turns sets and piecewise expressions over the parameters into AST expressions that
/// hold under a context (for run-time checks: conditions on the parameters, bounds of
/// the addresses an array is accessed at).
pub(crate) struct ExprBuilder {
    build: RawPtr,
    ctx: RawPtr,
}

impl AstNode {
    /// Whether a loop of the tree is parallel (a degenerate one runs once: it does not
    /// count).
    pub fn has_parallel_loop(&self) -> bool {
        match self {
            AstNode::Block(children) => children.iter().any(AstNode::has_parallel_loop),
            AstNode::Mark(inner) => inner.has_parallel_loop(),
            AstNode::If {
                then, otherwise, ..
            } => {
                then.has_parallel_loop()
                    || otherwise.as_deref().is_some_and(Self::has_parallel_loop)
            }
            AstNode::For {
                body,
                degenerate,
                parallel,
                ..
            } => (*parallel && !*degenerate) || body.has_parallel_loop(),
            AstNode::User { .. } => false,
        }
    }
}

impl ExprBuilder {
    pub fn new(context: &Set) -> Result<ExprBuilder, IslError> {
        let ctx = context.ctx_ptr();
        let context = context.copy()?;
        // SAFETY: isl takes the copy; the build is freed in Drop.
        let build = unsafe { isl_ast_build_from_context(release(context.inner)) };
        if build == 0 {
            return Err(error_after_raw_call("starting an AST build", ctx));
        }
        Ok(ExprBuilder { build, ctx })
    }

    /// A condition that is true exactly for the parameter values in `set`.
    pub fn condition(&self, set: &Set) -> Result<AstExpr, IslError> {
        const OPERATION: &str = "building a run-time condition";
        let set = set.copy()?;
        // SAFETY: isl takes the copy and keeps the build; the expression is read and
        // freed once.
        unsafe {
            let expr = isl_ast_build_expr_from_set(self.build, release(set.inner));
            if expr == 0 {
                return Err(error_after_raw_call(OPERATION, self.ctx));
            }
            owned_expr(expr, 0).map_err(|message| IslError::Other {
                context: OPERATION.into(),
                message,
            })
        }
    }

    /// The least and greatest value of the only dimension of `set`, as expressions of
    /// the parameters; `None` when either is unbounded.
    pub fn bounds(&self, set: &Set) -> Result<Option<(AstExpr, AstExpr)>, IslError> {
        let min = self.bound(set, true)?;
        let max = self.bound(set, false)?;
        Ok(min.zip(max))
    }

    fn bound(&self, set: &Set, minimum: bool) -> Result<Option<AstExpr>, IslError> {
        const OPERATION: &str = "bounding an array's accessed range";
        let set = set.copy()?;
        // SAFETY: isl takes the copy; the piecewise expression is freed once.
        unsafe {
            let raw = release(set.inner);
            let pa = if minimum {
                isl_set_dim_min(raw, 0)
            } else {
                isl_set_dim_max(raw, 0)
            };
            if pa == 0 {
                let error = error_after_raw_call(OPERATION, self.ctx);
                // isl reports an unbounded range as an error: that is an answer here.
                return if error.to_string().contains("unbounded") {
                    Ok(None)
                } else {
                    Err(error)
                };
            }
            let unbounded = isl_pw_aff_involves_nan(pa) != 0
                || take_string(isl_pw_aff_to_str(pa)).is_some_and(|t| t.contains("infty"));
            if unbounded {
                isl_pw_aff_free(pa);
                return Ok(None);
            }
            let expr = isl_ast_build_expr_from_pw_aff(self.build, pa);
            if expr == 0 {
                return Err(error_after_raw_call(OPERATION, self.ctx));
            }
            owned_expr(expr, 0)
                .map(Some)
                .map_err(|message| IslError::Other {
                    context: OPERATION.into(),
                    message,
                })
        }
    }
}

/// Each output dimension of the single-valued `map` as an AST expression of its domain
/// dimensions, named `names`, and the parameters (a source map's producer counters, an
/// access's subscripts); `None` when a dimension is unbounded.
pub(crate) fn function_expressions(
    map: &Map,
    names: &[String],
) -> Result<Option<Vec<AstExpr>>, IslError> {
    let images = map.copy()?.images_over_domain_params(names)?;
    let builder = ExprBuilder::new(&images.copy()?.params()?)?;
    let mut out = Vec::new();
    for d in 0..images.n_dims()? {
        match builder.bounds(&images.copy()?.project_onto(d)?)? {
            Some((least, _)) => out.push(least),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

impl Drop for ExprBuilder {
    fn drop(&mut self) {
        // SAFETY: the build is ours and freed once.
        unsafe {
            isl_ast_build_free(self.build);
        }
    }
}

/// Generates the loop AST that runs `schedule`, knowing `context` holds for the
/// parameters.
pub fn generate(context: &Set, schedule: &Schedule) -> Result<Ast, IslError> {
    generate_checking_parallelism(context, schedule, None)
}

/// Annotation names of the loops `before_each_for` decides on.
const PARALLEL: &CStr = c"polyrust.parallel";
const SERIAL: &CStr = c"polyrust.serial";

/// What `before_each_for` needs: the dependences, and the context's handle for the
/// objects it makes.
struct ParallelCheck<'a> {
    dependences: &'a UnionMap,
    ctx: &'a CtxRef,
}

/// As `generate`, and when `dependences` (instance to instance, every kind) are given,
/// each loop is marked `parallel` if no dependence is carried by it: no pair of
/// dependent instances runs in the same iteration of the outer loops and different
/// iterations of this one.
pub(crate) fn generate_checking_parallelism(
    context: &Set,
    schedule: &Schedule,
    dependences: Option<&UnionMap>,
) -> Result<Ast, IslError> {
    const OPERATION: &str = "generating the loop AST";
    let context = context.copy()?;
    let schedule = schedule.copy()?;
    let ctx = context.ctx_ptr();
    let check = dependences.map(|dependences| ParallelCheck {
        dependences,
        ctx: &schedule.ctx,
    });
    // SAFETY: both copies are ours; isl takes them, and every object isl gives back is
    // freed below exactly once. `check` outlives the build, the only user of its
    // address.
    unsafe {
        let mut build = isl_ast_build_from_context(release(context.inner));
        if build == 0 {
            return Err(error_after_raw_call(OPERATION, ctx));
        }
        if let Some(check) = &check {
            let user = check as *const ParallelCheck<'_> as *mut c_void;
            build = isl_ast_build_set_before_each_for(build, before_each_for, user);
            if build == 0 {
                return Err(error_after_raw_call(OPERATION, ctx));
            }
        }
        let node = isl_ast_build_node_from_schedule(build, release(schedule.inner));
        isl_ast_build_free(build);
        if node == 0 {
            return Err(error_after_raw_call(OPERATION, ctx));
        }
        let text = unbounded_text(node, ctx);
        let root = read_node(node, 0);
        isl_ast_node_free(node);
        Ok(Ast {
            root: root.map_err(|e| IslError::Other {
                context: OPERATION.into(),
                message: e,
            })?,
            text,
        })
    }
}

/// isl calls this before it makes each `for`: the annotation says whether the loop is
/// parallel. Any failure (an isl error, the operation bound) makes it serial.
unsafe extern "C" fn before_each_for(build: RawPtr, user: *mut c_void) -> RawPtr {
    // SAFETY: `user` is the `ParallelCheck` `generate_checking_parallelism` keeps alive
    // while isl builds.
    let check = &*(user as *const ParallelCheck<'_>);
    let ctx = isl_ast_build_get_ctx(build);
    let parallel = match carries_nothing(check, build) {
        Ok(parallel) => parallel,
        Err(_) => {
            take_ctx_error(ctx);
            false
        }
    };
    let name = if parallel { PARALLEL } else { SERIAL };
    isl_id_alloc(ctx, name.as_ptr(), std::ptr::null_mut())
}

/// Whether the innermost dimension of the build's schedule carries no dependence.
///
/// The check is a subset test, so that a schedule in a shape it does not expect (isl
/// nests the innermost band's space: `[[] -> [i, j, k]]`, flattened here) can only make
/// a loop serial: every dependent pair must either differ in an outer dimension or run
/// in the same iteration of this one.
unsafe fn carries_nothing(check: &ParallelCheck<'_>, build: RawPtr) -> Result<bool, IslError> {
    let raw = isl_ast_build_get_schedule(build);
    if raw == 0 {
        return Err(IslError::no_result("reading the schedule of a loop"));
    }
    let nested = UnionMap::adopt(check.ctx, raw);
    let mut schedule = UnionMap::empty(&IslCtx::from_ref(check.ctx))?;
    for map in nested.maps()? {
        let flat = isl_map_flatten_range(release(map.inner));
        if flat == 0 {
            return Err(IslError::no_result("flattening the schedule of a loop"));
        }
        schedule = schedule.add_map(Map::adopt(check.ctx, flat))?;
    }
    let maps = schedule.maps()?;
    let Some(first) = maps.first() else {
        return Ok(false);
    };
    let (name, dims) = (first.range_name(), first.n_out()?);
    let Some(last) = dims.checked_sub(1) else {
        return Ok(false);
    };
    // `{ [t] -> [u] : u0 != t0 or .. or u(last - 1) != t(last - 1) or u(last) = t(last) }`.
    let ctx = IslCtx::from_ref(check.ctx);
    let universe = || {
        Map::universe_between(
            &ctx,
            &[],
            &Tuple::counters(name.as_deref(), "t", dims),
            &Tuple::counters(name.as_deref(), "u", dims),
        )
    };
    let mut allowed = universe()?.equate(last)?;
    for k in 0..last {
        let differ = universe()?
            .order(k, false)?
            .union(universe()?.order(k, true)?)?;
        allowed = differ.union(allowed)?;
    }
    let allowed = allowed.to_union_map()?;
    let pairs = check
        .dependences
        .copy()?
        .apply_domain(schedule.copy()?)?
        .apply_range(schedule)?;
    pairs.is_subset(&allowed)
}

/// isl's C-like text of a live node, printed outside the operation bound.
fn unbounded_text(node: RawPtr, ctx: RawPtr) -> String {
    // A borrowed view of the context for the bound setters: it must not free it.
    let context = isl_rs::Context {
        ptr: ctx,
        should_free_on_drop: false,
    };
    // SAFETY: `node` is live; the string is ours and take_string frees it.
    unbounded(&context, || unsafe {
        take_string(isl_ast_node_to_C_str(node))
    })
    .unwrap_or_default()
}

/// Reads an AST node (kept, not freed).
///
/// # Safety
/// `node` is a live isl_ast_node.
unsafe fn read_node(node: RawPtr, depth: u32) -> Result<AstNode, String> {
    if depth > MAX_DEPTH {
        return Err("loop AST too deeply nested".into());
    }
    // isl's isl_ast_node_type: for = 1, if, block, mark, user.
    match isl_ast_node_get_type(node) {
        1 => {
            let iterator = owned_expr(isl_ast_node_for_get_iterator(node), depth)?;
            let AstExpr::Id(iterator) = iterator else {
                return Err("loop iterator is not an identifier".into());
            };
            let annotation = isl_ast_node_get_annotation(node);
            let parallel = annotation != 0 && {
                let name = isl_id_get_name(annotation);
                !name.is_null() && CStr::from_ptr(name) == PARALLEL
            };
            if annotation != 0 {
                isl_id_free(annotation);
            }
            Ok(AstNode::For {
                parallel,
                iterator,
                init: owned_expr(isl_ast_node_for_get_init(node), depth)?,
                cond: owned_expr(isl_ast_node_for_get_cond(node), depth)?,
                inc: owned_expr(isl_ast_node_for_get_inc(node), depth)?,
                body: Box::new(owned_node(isl_ast_node_for_get_body(node), depth)?),
                degenerate: isl_ast_node_for_is_degenerate(node) == 1,
            })
        }
        2 => Ok(AstNode::If {
            cond: owned_expr(isl_ast_node_if_get_cond(node), depth)?,
            then: Box::new(owned_node(isl_ast_node_if_get_then_node(node), depth)?),
            otherwise: if isl_ast_node_if_has_else_node(node) == 1 {
                Some(Box::new(owned_node(
                    isl_ast_node_if_get_else_node(node),
                    depth,
                )?))
            } else {
                None
            },
        }),
        3 => {
            let list = isl_ast_node_block_get_children(node);
            if list == 0 {
                return Err("block without children".into());
            }
            let mut children = Vec::new();
            let mut outcome = Ok(());
            for i in 0..isl_ast_node_list_size(list).max(0) {
                match owned_node(isl_ast_node_list_get_at(list, i), depth) {
                    Ok(child) => children.push(child),
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
            isl_ast_node_list_free(list);
            outcome.map(|_| AstNode::Block(children))
        }
        4 => Ok(AstNode::Mark(Box::new(owned_node(
            isl_ast_node_mark_get_node(node),
            depth,
        )?))),
        5 => {
            let call = owned_expr(isl_ast_node_user_get_expr(node), depth)?;
            match call {
                AstExpr::Op(AstOp::Call, mut args) if !args.is_empty() => {
                    let AstExpr::Id(statement) = args.remove(0) else {
                        return Err("statement call without a name".into());
                    };
                    Ok(AstNode::User { statement, args })
                }
                _ => Err("user node is not a statement call".into()),
            }
        }
        kind => Err(format!("unknown AST node type {kind}")),
    }
}

/// Reads and frees a node isl gave us.
unsafe fn owned_node(node: RawPtr, depth: u32) -> Result<AstNode, String> {
    if node == 0 {
        return Err("missing AST node".into());
    }
    let read = read_node(node, depth + 1);
    isl_ast_node_free(node);
    read
}

/// Reads and frees an expression isl gave us.
unsafe fn owned_expr(expr: RawPtr, depth: u32) -> Result<AstExpr, String> {
    if expr == 0 {
        return Err("missing AST expression".into());
    }
    let read = read_expr(expr, depth + 1);
    isl_ast_expr_free(expr);
    read
}

unsafe fn read_expr(expr: RawPtr, depth: u32) -> Result<AstExpr, String> {
    if depth > MAX_DEPTH {
        return Err("AST expression too deeply nested".into());
    }
    // isl's isl_ast_expr_type: op = 0, id, int.
    match isl_ast_expr_get_type(expr) {
        0 => {
            let kind = isl_ast_expr_op_get_type(expr);
            let op = usize::try_from(kind)
                .ok()
                .and_then(|k| OPS.get(k).copied())
                .ok_or_else(|| format!("unknown AST operation {kind}"))?;
            let mut args = Vec::new();
            for i in 0..isl_ast_expr_op_get_n_arg(expr).max(0) {
                args.push(owned_expr(isl_ast_expr_op_get_arg(expr, i), depth)?);
            }
            Ok(AstExpr::Op(op, args))
        }
        1 => {
            let id = isl_ast_expr_get_id(expr);
            if id == 0 {
                return Err("identifier without id".into());
            }
            let name = isl_id_get_name(id);
            let text = if name.is_null() {
                None
            } else {
                Some(
                    std::ffi::CStr::from_ptr(name)
                        .to_string_lossy()
                        .into_owned(),
                )
            };
            isl_id_free(id);
            text.map(AstExpr::Id)
                .ok_or_else(|| "unnamed identifier".into())
        }
        2 => {
            let val = isl_ast_expr_get_val(expr);
            if val == 0 {
                return Err("integer without value".into());
            }
            let result = if isl_val_is_int(val) == 1 {
                // isl_val_get_num_si truncates silently: compare with the exact text.
                let small = isl_val_get_num_si(val) as i64;
                let exact = take_string(isl_val_to_str(val));
                if exact.as_deref() == Some(small.to_string().as_str()) {
                    Ok(AstExpr::Int(small))
                } else {
                    Err(format!(
                        "integer {} does not fit in 64 bits",
                        exact.unwrap_or_default()
                    ))
                }
            } else {
                Err("non-integer value in the AST".into())
            };
            isl_val_free(val);
            result
        }
        kind => Err(format!("unknown AST expression type {kind}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isl::{parse_set, parse_union_map, parse_union_set, IslCtx};

    /// The `parallel` flags of the loops of a perfect nest, outermost first.
    fn parallel_flags(node: &AstNode) -> Vec<bool> {
        match node {
            AstNode::For { parallel, body, .. } => {
                let mut flags = vec![*parallel];
                flags.extend(parallel_flags(body));
                flags
            }
            AstNode::Mark(inner) => parallel_flags(inner),
            _ => Vec::new(),
        }
    }

    fn matmul_flags(schedule: &str, deps: Option<&str>) -> Vec<bool> {
        let ctx = IslCtx::new(None).unwrap();
        let domain =
            parse_union_set(&ctx, "[n] -> { S[i, j, k] : 0 <= i, j, k < n }", "d").unwrap();
        let band = parse_union_map(&ctx, schedule, "schedule").unwrap();
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(band)
            .unwrap();
        let context = parse_set(&ctx, "[n] -> { : n > 0 }", "c").unwrap();
        let deps = deps.map(|d| parse_union_map(&ctx, d, "deps").unwrap());
        let ast = generate_checking_parallelism(&context, &schedule, deps.as_ref()).unwrap();
        parallel_flags(&ast.root)
    }

    /// C[i][j] += A[i][k] * B[k][j]: k carries the dependence.
    const MATMUL_DEPS: &str =
        "[n] -> { S[i, j, k] -> S[i, j, k + 1] : 0 <= i, j < n and 0 <= k < n - 1 }";

    #[test]
    fn loops_that_carry_no_dependence_are_parallel() {
        assert_eq!(
            matmul_flags("[n] -> { S[i, j, k] -> [i, j, k] }", Some(MATMUL_DEPS)),
            [true, true, false]
        );
        // Once k is outermost it carries the dependence; i and j inside it do not.
        assert_eq!(
            matmul_flags("[n] -> { S[i, j, k] -> [k, i, j] }", Some(MATMUL_DEPS)),
            [false, true, true]
        );
        // A dependence carried by an outer loop leaves the inner ones parallel.
        assert_eq!(
            matmul_flags(
                "[n] -> { S[i, j, k] -> [i, j, k] }",
                Some("[n] -> { S[i, j, k] -> S[i + 1, j, k'] : 0 <= i < n - 1 and 0 <= j, k, k' < n }")
            ),
            [false, true, true]
        );
    }

    #[test]
    fn without_dependences_to_check_no_loop_is_parallel() {
        assert_eq!(
            matmul_flags("[n] -> { S[i, j, k] -> [i, j, k] }", None),
            [false, false, false]
        );
    }

    fn ast_of(domain: &str, schedule: &str, context: &str) -> Ast {
        let ctx = IslCtx::new(None).unwrap();
        let domain = parse_union_set(&ctx, domain, "domain").unwrap();
        let band = parse_union_map(&ctx, schedule, "schedule").unwrap();
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(band)
            .unwrap();
        let context = parse_set(&ctx, context, "context").unwrap();
        generate(&context, &schedule).unwrap()
    }

    #[test]
    fn two_deep_band_becomes_two_nested_loops_around_one_statement() {
        let ast = ast_of(
            "[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n }",
            "[n] -> { S[i, j] -> [i, j] }",
            "[n] -> { : n > 0 }",
        );
        let AstNode::For {
            iterator,
            init,
            body,
            ..
        } = &ast.root
        else {
            panic!("{:?}", ast.root);
        };
        assert_eq!(iterator, "c0");
        assert_eq!(init, &AstExpr::Int(0));
        let AstNode::For { body: inner, .. } = body.as_ref() else {
            panic!("{body:?}");
        };
        assert_eq!(
            inner.as_ref(),
            &AstNode::User {
                statement: "S".into(),
                args: vec![AstExpr::Id("c0".into()), AstExpr::Id("c1".into())]
            }
        );
        assert!(
            ast.text.contains("for (int c0 = 0; c0 < n; c0 += 1)"),
            "{}",
            ast.text
        );
    }

    #[test]
    fn interchange_swaps_the_loops_and_the_statement_arguments() {
        let ast = ast_of(
            "[n, m] -> { S[i, j] : 0 <= i < n and 0 <= j < m }",
            "[n, m] -> { S[i, j] -> [j, i] }",
            "[n, m] -> { : n > 0 and m > 0 }",
        );
        assert!(ast.text.contains("c0 < m"), "{}", ast.text);
        assert!(ast.text.contains("S(c1, c0)"), "{}", ast.text);
    }

    #[test]
    fn tiled_schedule_needs_floor_division_and_min() {
        let ast = ast_of(
            "[n] -> { S[i] : 0 <= i < n }",
            "[n] -> { S[i] -> [floor(i/32), i] }",
            "[n] -> { : n > 0 }",
        );
        let text = &ast.text;
        assert!(text.contains("min("), "{text}");
        fn has_op(node: &AstNode, op: AstOp) -> bool {
            fn in_expr(e: &AstExpr, op: AstOp) -> bool {
                match e {
                    AstExpr::Op(o, args) => *o == op || args.iter().any(|a| in_expr(a, op)),
                    _ => false,
                }
            }
            match node {
                AstNode::For {
                    init,
                    cond,
                    inc,
                    body,
                    ..
                } => in_expr(init, op) || in_expr(cond, op) || in_expr(inc, op) || has_op(body, op),
                AstNode::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    in_expr(cond, op)
                        || has_op(then, op)
                        || otherwise.as_ref().is_some_and(|o| has_op(o, op))
                }
                AstNode::Block(children) => children.iter().any(|c| has_op(c, op)),
                AstNode::Mark(inner) => has_op(inner, op),
                AstNode::User { args, .. } => args.iter().any(|a| in_expr(a, op)),
            }
        }
        assert!(has_op(&ast.root, AstOp::Min), "{:?}", ast.root);
    }

    #[test]
    fn two_statements_in_sequence_give_a_block() {
        let ctx = IslCtx::new(None).unwrap();
        let domain = parse_union_set(
            &ctx,
            "[n] -> { S[i] : 0 <= i < n; T[i] : 0 <= i < n }",
            "domain",
        )
        .unwrap();
        let band = parse_union_map(
            &ctx,
            "[n] -> { S[i] -> [0, i]; T[i] -> [1, i] }",
            "schedule",
        )
        .unwrap();
        let schedule = Schedule::from_domain(domain)
            .unwrap()
            .insert_band(band)
            .unwrap();
        let context = parse_set(&ctx, "[n] -> { : n > 0 }", "context").unwrap();
        let ast = generate(&context, &schedule).unwrap();
        assert!(
            matches!(ast.root, AstNode::Block(ref c) if c.len() == 2),
            "{:?}",
            ast.root
        );
    }

    #[test]
    fn parameter_condition_becomes_a_comparison() {
        let ctx = IslCtx::new(None).unwrap();
        let context = parse_set(&ctx, "[n, m] -> { : }", "context").unwrap();
        let builder = ExprBuilder::new(&context).unwrap();
        let set = parse_set(&ctx, "[n, m] -> { : n <= 512 and m >= 0 }", "check").unwrap();
        let expr = builder.condition(&set).unwrap();
        assert!(
            matches!(expr, AstExpr::Op(AstOp::And | AstOp::AndThen, _)),
            "{expr:?}"
        );
    }

    #[test]
    fn bounds_of_an_accessed_range_are_parameter_expressions() {
        let ctx = IslCtx::new(None).unwrap();
        let context = parse_set(&ctx, "[n] -> { : n > 0 }", "context").unwrap();
        let builder = ExprBuilder::new(&context).unwrap();
        let range = parse_set(&ctx, "[n] -> { [x] : 2 <= x < n + 5 }", "range").unwrap();
        let (low, high) = builder.bounds(&range).unwrap().unwrap();
        assert_eq!(low, AstExpr::Int(2));
        assert!(matches!(high, AstExpr::Op(AstOp::Add, _)), "{high:?}");
        let open = parse_set(&ctx, "[n] -> { [x] : x >= n }", "range").unwrap();
        assert!(builder.bounds(&open).unwrap().is_none());
    }

    #[test]
    fn empty_domain_gives_an_empty_block() {
        let ast = ast_of(
            "[n] -> { S[i] : 0 <= i < n and n < 0 }",
            "[n] -> { S[i] -> [i] }",
            "[n] -> { : }",
        );
        assert_eq!(ast.root, AstNode::Block(vec![]));
    }
}
