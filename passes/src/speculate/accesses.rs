//! Access instrumentation (`-polyrust-profile-generate -polyrust-instrument=accesses`):
//! every outermost loop nest of the function reports, at run time, each iteration of
//! each of its loops and each load and store inside it, with the iteration vector it
//! happens at, to `polyrust_rt` (the C ABI of `struct polyrust_rt_nest`, version 1).
//!
//! Input: a function in loop-simplified form (the shim runs LoopSimplify first), with
//! detection's verdict on each nest (the descriptor's `modelled`). Output: for each nest
//! whose loops all have a preheader and a single latch and whose control flow is
//! reducible: an i64 counter per loop (a header phi, 0 from the preheader, +1 on the
//! latch), a stack array of `max_depth` i64 in the entry block that each header stores
//! its counter into (slot depth - 1), `polyrust_rt_nest_enter(&nest)` in the outermost
//! preheader, `polyrust_rt_access(&nest, site, iv, 0)` at the start of each header and
//! `polyrust_rt_access(&nest, site, iv, address)` in front of each access. The nest is
//! tagged `INSTRUMENTED` and `HANDLED`: no later round models or rewrites it. What the
//! program computes is unchanged: the new code only reads values and writes the stack
//! array nothing else sees.
//!
//! A loop's event is one per execution of its header: in clang's -O2 and -O3 pipelines
//! loops are rotated by then and the header runs once per iteration; a loop that tests
//! its exit at the top (IR handed to `opt` as it is) reports one execution more than it
//! iterates, the one that leaves.
//!
//! Sites, in the descriptor's order: the nest's loops in preorder, then its accesses in
//! block layout order. Volatile and atomic loads and stores are recorded as any other;
//! atomic updates (`atomicrmw`, `cmpxchg`) are a load and a store of their address;
//! `memcpy`/`memmove`/`memset` of a constant length are a load of their source and a
//! store of their destination, each of that many bytes from their first byte. Memory
//! intrinsics of a length known only at run time, volatile ones and other calls that
//! touch memory are not recorded, which a remark says.

mod facts;
mod plain;

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use crate::detect::{Detection, HANDLED};
use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::ir::{
    as_instruction, called_function_name, is_annotation_intrinsic, is_constant_int,
    memory_transfer, operand, successors,
};
use crate::llvm::source_terms::{array_name, counter_name, split_location};
use crate::llvm::{FunctionAnalyses, LLVMValueRef, Loop, MemoryEffect, RemarkAt, RemarkKind};

use super::{
    identify_marked, instrument::source_file, module_hash, Positions, State, INSTRUMENTED,
};

/// `POLYRUST_RT_NEST_ABI_VERSION`: version 2 has the facts of [`facts`].
const NEST_ABI_VERSION: i64 = 2;
/// The runtime's entry points.
const NEST_ENTER: &str = "polyrust_rt_nest_enter";
const ACCESS: &str = "polyrust_rt_access";
/// The entry points of a nest with a plain copy (`plain`).
const NEST_BEGIN: &str = "polyrust_rt_nest_begin";
const NEST_NEXT: &str = "polyrust_rt_nest_next";
const NEST_PLAIN: &str = "polyrust_rt_nest_plain";
/// The runtime's bounds on one nest (`num_sites`, `max_depth`).
const MAX_SITES: usize = 4096;
const MAX_DEPTH: u32 = 16;
/// `memory(argmem: read, inaccessiblemem: readwrite)` as LLVM encodes `MemoryEffects`
/// (two bits per location: argument memory read = 1, inaccessible memory read and
/// written = 3 << 2); the lit test of the declarations checks the printed form.
const RUNTIME_MEMORY_EFFECTS: u64 = 1 | (3 << 2);
/// The descriptor's "no site" (`UINT32_MAX`).
const NO_SITE: u32 = u32::MAX;
/// Prefix of the runtime's own symbols: a module that defines them (the runtime built
/// with this plugin) must not call itself.
const RUNTIME_PREFIX: &str = "polyrust_rt_";

/// `POLYRUST_RT_SITE_*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SiteKind {
    Load = 0,
    Store = 1,
    Loop = 2,
}

/// Where a site's call goes and what address it reports.
#[derive(Clone, Copy)]
enum Placement<'f> {
    /// At the start of the loop's header, address 0.
    Header(Loop<'f>),
    /// In front of the instruction, with the address `pointer`.
    Before(InstructionValue<'f>, LLVMValueRef),
}

/// One entry of the descriptor's `sites`.
struct Site<'f> {
    kind: SiteKind,
    depth: u32,
    size: u32,
    line: u32,
    column: u32,
    /// The innermost loop around the site (for a loop, its parent), as a site index.
    parent: u32,
    name: String,
    placement: Placement<'f>,
}

/// A nest ready to be instrumented: its loops (preorder) and sites.
struct NestPlan<'f> {
    root: Loop<'f>,
    loops: Vec<Loop<'f>>,
    sites: Vec<Site<'f>>,
    max_depth: u32,
    /// What the nest does to memory that no site records, for a remark.
    unrecorded: Vec<String>,
}

/// Instruments every outermost loop nest of the function not instrumented yet (see the
/// module's doc); says what it did, and why a nest was left alone, in remarks. Returns
/// whether the IR changed.
pub fn instrument_accesses(
    fa: &FunctionAnalyses<'_>,
    state: &State,
    detection: &Detection<'_>,
    profile_path: &str,
) -> bool {
    let function = fa.function().get_name().to_string_lossy().into_owned();
    if function.starts_with(RUNTIME_PREFIX) {
        return false;
    }
    // Once per function: it reads the source file.
    let module = module_hash(fa);
    let mut changed = false;
    for root in fa.top_level_loops() {
        if root.has_tag(INSTRUMENTED) {
            continue;
        }
        let at = RemarkAt::loop_start(root);
        let outcome = plan(fa, root).and_then(|plan| {
            let modelled = detection.regions.iter().any(|r| r.top.contains(&root));
            let accesses: Vec<facts::AccessSite> = plan
                .sites
                .iter()
                .enumerate()
                .filter_map(|(index, site)| match site.placement {
                    Placement::Before(inst, _) => Some((inst, index)),
                    Placement::Header(_) => None,
                })
                .collect();
            let facts = facts::loop_facts(fa, &plan.loops, &accesses);
            let id = emit(
                fa,
                &state.positions,
                &plan,
                &facts,
                modelled,
                profile_path,
                &module,
            )?;
            Ok((plan, id))
        });
        match outcome {
            Ok((plan, id)) => {
                changed = true;
                let loops = plan.loops.len();
                let accesses = plan.sites.len() - loops;
                fa.remark(
                    RemarkKind::Analysis,
                    "AccessesInstrumented",
                    at,
                    &format!(
                        "loop nest instrumented: its {loops} loop{} and {accesses} memory \
                         access{} report their iteration vectors (nest {id})",
                        plural(loops),
                        if accesses == 1 { "" } else { "es" }
                    ),
                );
                if !plan.unrecorded.is_empty() {
                    fa.remark(
                        RemarkKind::Analysis,
                        "AccessesNotRecorded",
                        at,
                        &format!(
                            "accesses of the loop nest not recorded: {}",
                            plan.unrecorded.join(", ")
                        ),
                    );
                }
            }
            Err(why) => fa.remark(
                RemarkKind::Missed,
                "NotInstrumented",
                at,
                &format!("loop nest not instrumented for accesses: {why}"),
            ),
        }
    }
    changed
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The sites of the nest at `root`, or why it cannot be instrumented.
fn plan<'f>(fa: &FunctionAnalyses<'f>, root: Loop<'f>) -> Result<NestPlan<'f>, String> {
    let loops = root.preorder();
    let depth_of = |l: Loop<'f>| l.depth().saturating_sub(root.depth()) + 1;
    let mut max_depth = 0;
    for l in &loops {
        let what = || crate::llvm::source_terms::describe_loop(fa, *l);
        if l.preheader().is_none() {
            return Err(format!(
                "the {} has no single block in front of it to start its counter in",
                what()
            ));
        }
        if l.latch().is_none() {
            return Err(format!(
                "the {} has no single block that starts its next iteration",
                what()
            ));
        }
        if first_insertion_point(l.header()).is_none() {
            return Err(format!(
                "the {} starts with an exception handler, where no call can go",
                what()
            ));
        }
        max_depth = max_depth.max(depth_of(*l));
    }
    if max_depth > MAX_DEPTH {
        return Err(format!(
            "it is {max_depth} loops deep, more than the runtime records ({MAX_DEPTH})"
        ));
    }
    if let Some(block) = irreducible_entry(fa, root) {
        return Err(format!(
            "its control flow is irreducible (a cycle entered other than through its \
             first block, at {})",
            crate::llvm::source_terms::describe_block(fa, block)
        ));
    }
    let header_site: HashMap<usize, u32> = loops
        .iter()
        .enumerate()
        .map(|(i, l)| (l.header().as_mut_ptr() as usize, i as u32))
        .collect();
    let site_of = |l: Option<Loop<'f>>| {
        l.filter(|l| root.contains_block(l.header()))
            .and_then(|l| {
                header_site
                    .get(&(l.header().as_mut_ptr() as usize))
                    .copied()
            })
            .unwrap_or(NO_SITE)
    };
    let mut sites: Vec<Site<'f>> = loops
        .iter()
        .map(|l| {
            let (line, column) = location(fa.loop_location(*l));
            Site {
                kind: SiteKind::Loop,
                depth: depth_of(*l),
                size: 0,
                line,
                column,
                parent: site_of(l.parent()),
                name: counter_name(fa, *l).unwrap_or_default(),
                placement: Placement::Header(*l),
            }
        })
        .collect();
    let mut unrecorded = Vec::new();
    for block in fa.function().get_basic_blocks() {
        if !root.contains_block(block) {
            continue;
        }
        let innermost = fa.loop_for_block(block);
        let depth = innermost.map_or(1, depth_of);
        let parent = site_of(innermost);
        for inst in block.get_instructions() {
            let mut add = |kind: SiteKind, pointer: LLVMValueRef, bytes: Option<u64>| {
                // Looked up for accesses only: most instructions are none.
                let (line, column) = location(fa.instruction_location(inst));
                sites.push(Site {
                    kind,
                    depth,
                    size: bytes.map_or(0, |b| u32::try_from(b).unwrap_or(u32::MAX)),
                    line,
                    column,
                    parent,
                    name: site_array_name(fa, pointer),
                    placement: Placement::Before(inst, pointer),
                })
            };
            let value_size = |v: Option<LLVMValueRef>| v.and_then(|v| fa.value_store_size(v));
            match inst.get_opcode() {
                InstructionOpcode::Load => {
                    if let Some(p) = operand(inst, 0) {
                        add(SiteKind::Load, p, fa.value_store_size(inst.as_value_ref()));
                    }
                }
                InstructionOpcode::Store => {
                    if let Some(p) = operand(inst, 1) {
                        add(SiteKind::Store, p, value_size(operand(inst, 0)));
                    }
                }
                // Read, then written: the runtime sees both.
                InstructionOpcode::AtomicRMW => {
                    if let Some(p) = operand(inst, 0) {
                        let bytes = fa.value_store_size(inst.as_value_ref());
                        add(SiteKind::Load, p, bytes);
                        add(SiteKind::Store, p, bytes);
                    }
                }
                InstructionOpcode::AtomicCmpXchg => {
                    if let Some(p) = operand(inst, 0) {
                        let bytes = value_size(operand(inst, 1));
                        add(SiteKind::Load, p, bytes);
                        add(SiteKind::Store, p, bytes);
                    }
                }
                InstructionOpcode::Call | InstructionOpcode::Invoke => {
                    if is_annotation_intrinsic(inst) {
                        continue;
                    }
                    match memory_transfer(inst) {
                        Some((dst, src, length)) => {
                            match is_constant_int(length).filter(|n| *n > 0) {
                                Some(n) => {
                                    if let Some(src) = src {
                                        add(SiteKind::Load, src, Some(n as u64));
                                    }
                                    add(SiteKind::Store, dst, Some(n as u64));
                                }
                                None => note(
                                    &mut unrecorded,
                                    format!(
                                        "{} (its length is known only at run time)",
                                        crate::llvm::source_terms::access_text(fa, inst)
                                    ),
                                ),
                            }
                        }
                        None if fa.call_memory_effect(inst) != MemoryEffect::None => note(
                            &mut unrecorded,
                            match called_function_name(inst) {
                                Some(name) => format!("call to {name}"),
                                None => "indirect call".into(),
                            },
                        ),
                        None => {}
                    }
                }
                _ => {}
            }
        }
    }
    if sites.len() > MAX_SITES {
        return Err(format!(
            "it has {} loops and accesses, more than the runtime records ({MAX_SITES})",
            sites.len()
        ));
    }
    Ok(NestPlan {
        root,
        loops,
        sites,
        max_depth,
        unrecorded,
    })
}

/// The memory access sites of the nest at `root` as instrumentation numbers them (site
/// index, instruction, address, bytes): what the second compile matches a profile's
/// sites with.
pub(super) fn access_sites<'f>(
    fa: &FunctionAnalyses<'f>,
    root: Loop<'f>,
) -> Result<Vec<(usize, InstructionValue<'f>, LLVMValueRef, u32)>, String> {
    Ok(plan(fa, root)?
        .sites
        .iter()
        .enumerate()
        .filter_map(|(index, site)| match site.placement {
            Placement::Before(inst, pointer) => Some((index, inst, pointer, site.size)),
            Placement::Header(_) => None,
        })
        .collect())
}

/// Adds `what` to the things a remark says are not recorded, once.
fn note(unrecorded: &mut Vec<String>, what: String) {
    if !unrecorded.contains(&what) {
        unrecorded.push(what);
    }
}

/// Line and column of a `file:line:col` location, 0 when unknown.
fn location(text: Option<String>) -> (u32, u32) {
    text.as_deref()
        .and_then(split_location)
        .map_or((0, 0), |(_, line, column)| (line, column))
}

/// The first instruction of `block` that code may be put in front of: after its phis;
/// `None` if the block is an exception handler's (its first instruction must stay).
fn first_insertion_point(block: BasicBlock<'_>) -> Option<InstructionValue<'_>> {
    let first = block
        .get_instructions()
        .find(|i| i.get_opcode() != InstructionOpcode::Phi)?;
    match first.get_opcode() {
        InstructionOpcode::LandingPad
        | InstructionOpcode::CatchPad
        | InstructionOpcode::CleanupPad
        | InstructionOpcode::CatchSwitch => None,
        _ => Some(first),
    }
}

/// A block of the nest where a cycle is entered other than through a loop header (the
/// target of a retreating edge that does not dominate its source), if any: such a
/// cycle is no loop of LoopInfo, and its accesses would repeat iteration vectors.
fn irreducible_entry<'f>(fa: &FunctionAnalyses<'f>, root: Loop<'f>) -> Option<BasicBlock<'f>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        OnPath,
        Done,
    }
    let mut state: HashMap<BasicBlock<'f>, State> = HashMap::new();
    // Depth-first, iteratively: (block, successors not yet looked at).
    let mut stack = vec![(root.header(), successors(root.header()))];
    state.insert(root.header(), State::OnPath);
    while let Some((block, pending)) = stack.last_mut() {
        let block = *block;
        let Some(next) = pending.pop() else {
            state.insert(block, State::Done);
            stack.pop();
            continue;
        };
        if !root.contains_block(next) {
            continue;
        }
        match state.get(&next) {
            Some(State::OnPath) if !fa.dominates(next, block) => return Some(next),
            Some(_) => {}
            None => {
                state.insert(next, State::OnPath);
                stack.push((next, successors(next)));
            }
        }
    }
    None
}

/// Adds the counters, the stack array and the calls of `plan`; returns the nest's id.
fn emit<'f>(
    fa: &FunctionAnalyses<'f>,
    positions: &Positions,
    plan: &NestPlan<'f>,
    facts: &[facts::Fact],
    modelled: bool,
    profile_path: &str,
    module: &str,
) -> Result<String, String> {
    let entry = fa
        .function()
        .get_first_basic_block()
        .and_then(|b| b.get_first_instruction())
        .ok_or("the function has no entry block")?;
    // Everything that can fail is looked up before the IR changes.
    if plan
        .sites
        .iter()
        .any(|site| site.depth == 0 || site.depth > plan.max_depth)
    {
        return Err("a site lies outside the nest's loops".into());
    }
    let mut placed = Vec::with_capacity(plan.loops.len());
    for l in &plan.loops {
        let header = l.header();
        let first = header
            .get_first_instruction()
            .ok_or("a loop header has no instructions")?;
        let insertion = first_insertion_point(header).ok_or("a loop header has no room")?;
        let preheader = l.preheader().ok_or("a loop has no preheader")?;
        let latch = l.latch().ok_or("a loop has no single latch")?;
        let latch_end = latch
            .get_terminator()
            .ok_or("a loop latch has no terminator")?;
        placed.push((first, insertion, preheader, latch, latch_end));
    }
    let enter_at = plan
        .root
        .preheader()
        .and_then(|p| p.get_terminator())
        .ok_or("the block in front of the loop nest has no terminator")?;
    let b = IrBuilder::new(fa.function());
    let (id, line) = identify_marked(fa, positions, plan.root, &[], "accesses;");
    let nest = descriptor(
        fa,
        &b,
        plan,
        facts,
        &Identity {
            id: &id,
            line,
            modelled,
            profile_path,
            module,
        },
    );
    let (access, access_ty, plain_calls) = declare_runtime(fa, &b);
    let (i32_type, i64_type) = (b.i32_type(), b.i64_type());
    // Tagged before the copy is made: the copy's loops carry the same loop IDs.
    plan.root.tag(INSTRUMENTED);
    plan.root.tag(HANDLED);
    let plain_copy = plain::admits(plan.root).then(|| plain::copy(fa, &b, plan.root));
    b.position_before(entry);
    let iv = b.alloca(
        b.array_type(i64_type, u64::from(plan.max_depth)),
        "polyrust.iv",
    );
    let slots: Vec<Value> = (0..u64::from(plan.max_depth))
        .map(|d| b.element_address(i64_type, iv, d))
        .collect();

    if plain_copy.is_none() {
        let (enter, enter_ty) = b.void_function_of(NEST_ENTER, &[b.ptr_type()]);
        declare_runtime_effects(&b, enter);
        b.position_before(enter_at);
        b.locate_call(b.call(enter, enter_ty, &[nest]));
    }

    let mut counters = Vec::with_capacity(plan.loops.len());
    for &(first, _, preheader, latch, latch_end) in &placed {
        b.position_before(first);
        let counter = b.phi_i64("polyrust.iter");
        b.position_before(latch_end);
        let next = b.binary(LLVMOpcode::LLVMAdd, counter, b.const_i64(1));
        // One entry per edge: a block may branch to the header more than once (a
        // switch with several cases there).
        let header = first.get_parent();
        for (from, value) in [(preheader, b.const_i64(0)), (latch, next)] {
            let edges = successors(from)
                .into_iter()
                .filter(|s| Some(*s) == header)
                .count();
            for _ in 0..edges {
                b.add_incoming(counter, value, from);
            }
        }
        counters.push(counter);
    }
    for (index, site) in plan.sites.iter().enumerate() {
        let site_index = b.const_int(i32_type, index as i64);
        match site.placement {
            Placement::Header(l) => {
                let Some(k) = plan.loops.iter().position(|x| *x == l) else {
                    continue;
                };
                let insertion = placed[k].1;
                // In range: checked above.
                let Some(slot) = slots.get(site.depth as usize - 1).copied() else {
                    continue;
                };
                b.position_before(insertion);
                b.store(counters[k], slot);
                b.locate_call(b.call(access, access_ty, &[nest, site_index, iv, b.const_i64(0)]));
            }
            Placement::Before(inst, pointer) => {
                b.position_before(inst);
                let address = b.ptr_to_int(pointer);
                b.locate_call(b.call(access, access_ty, &[nest, site_index, iv, address]));
            }
        }
    }
    if let Some(copy) = &plain_copy {
        plain::wire(fa, &b, (plan.root, copy), nest, &plain_calls)
            .ok_or("the plain copy of the nest could not be connected")?;
    }
    Ok(id)
}

/// The declarations of `polyrust_rt_access` (with its type) and of the entry points
/// of a nest with a plain copy, with what they do said to LLVM; and what calling the
/// runtime changes about the instrumented function.
fn declare_runtime<'f>(
    fa: &FunctionAnalyses<'f>,
    b: &IrBuilder<'f>,
) -> (Value, LLVMTypeRef, plain::PlainCalls) {
    let (i32_type, i64_type, ptr) = (b.i32_type(), b.i64_type(), b.ptr_type());
    let (access, access_ty) = b.void_function_of(ACCESS, &[ptr, i32_type, ptr, i64_type]);
    let calls = plain::PlainCalls {
        begin: b.function_of(NEST_BEGIN, i32_type, &[ptr], false),
        next: b.function_of(NEST_NEXT, i32_type, &[ptr], false),
        plain: b.void_function_of(NEST_PLAIN, &[ptr]),
    };
    for function in [access, calls.begin.0, calls.next.0, calls.plain.0] {
        declare_runtime_effects(b, function);
    }
    // The function now calls the runtime, which may synchronize and free memory: what
    // LLVM inferred about it before is no longer true.
    let instrumented = fa.function().as_value_ref();
    for attribute in ["memory", "nosync", "nofree"] {
        b.remove_function_attribute(instrumented, attribute);
    }
    // The addresses of its pointer arguments now reach the runtime.
    b.remove_parameter_attribute(instrumented, "captures");
    (access, access_ty, calls)
}

/// What the runtime does, said to LLVM: it reads what its arguments point to and its
/// own state, never unwinds. Without this, every call would clobber all memory and the
/// optimizer would keep far fewer values in registers than it does in the program
/// without instrumentation. Only for declarations: a body in the module (a stand-in
/// for the runtime, in tests) says for itself what it does.
fn declare_runtime_effects(b: &IrBuilder<'_>, function: Value) {
    if b.is_declaration(function) {
        b.add_function_attribute(function, "nounwind", 0);
        b.add_function_attribute(function, "memory", RUNTIME_MEMORY_EFFECTS);
    }
}

/// What the descriptor says of the nest besides its sites.
#[derive(Clone, Copy)]
struct Identity<'a> {
    id: &'a str,
    line: u32,
    /// Detection accepted the nest (as part of a region).
    modelled: bool,
    profile_path: &'a str,
    module: &'a str,
}

/// The private constant `struct polyrust_rt_nest` of `plan`, with its sites.
fn descriptor(
    fa: &FunctionAnalyses<'_>,
    b: &IrBuilder<'_>,
    plan: &NestPlan<'_>,
    facts: &[facts::Fact],
    identity: &Identity<'_>,
) -> Value {
    let Identity {
        id,
        line,
        modelled,
        profile_path,
        module,
    } = *identity;
    let i32_type = b.i32_type();
    let int = |v: u32| b.const_int(i32_type, i64::from(v));
    // One string per distinct name: a nest reads the same arrays many times.
    let mut names: HashMap<&str, Value> = HashMap::new();
    let sites: Vec<Value> = plan
        .sites
        .iter()
        .map(|site| {
            let name = *names
                .entry(site.name.as_str())
                .or_insert_with(|| b.global_string(&site.name, "polyrust.site.name"));
            b.const_struct(&[
                int(site.kind as u32),
                int(site.depth),
                int(site.size),
                int(site.line),
                int(site.column),
                int(site.parent),
                name,
            ])
        })
        .collect();
    // `struct polyrust_rt_site`: six u32 and a pointer (literal struct types are
    // uniqued, so this is the type of every site above).
    let site_type =
        b.type_of(b.const_struct(&[int(0), int(0), int(0), int(0), int(0), int(0), b.null_ptr()]));
    let sites = b.private_constant(b.const_array(site_type, &sites), "polyrust.sites");
    let facts_array = fact_array(b, facts, &mut names);
    let function = fa.function().get_name().to_string_lossy().into_owned();
    let default_path = if profile_path.is_empty() {
        b.null_ptr()
    } else {
        b.global_string(profile_path, "polyrust.profile")
    };
    let nest = b.const_struct(&[
        b.const_int(i32_type, NEST_ABI_VERSION),
        int(plan.sites.len() as u32),
        int(plan.max_depth),
        int(line),
        b.global_string(id, "polyrust.id"),
        b.global_string(&function, "polyrust.function"),
        b.global_string(&source_file(fa, Some(plan.root)), "polyrust.file"),
        b.global_string(module, "polyrust.module"),
        sites,
        default_path,
        int(u32::from(modelled)),
        int(facts.len() as u32),
        facts_array,
    ]);
    b.private_constant(nest, "polyrust.nest")
}

/// The private constant array of `struct polyrust_rt_fact` of `facts` (a null pointer
/// without any), with strings shared through `names`.
fn fact_array<'n>(
    b: &IrBuilder<'_>,
    facts: &'n [facts::Fact],
    names: &mut HashMap<&'n str, Value>,
) -> Value {
    if facts.is_empty() {
        return b.null_ptr();
    }
    let i32_type = b.i32_type();
    let mut text = |s: &'n str| {
        *names
            .entry(s)
            .or_insert_with(|| b.global_string(s, "polyrust.site.name"))
    };
    let facts: Vec<Value> = facts
        .iter()
        .map(|fact| {
            let operation = text(fact.operation);
            let name = text(fact.name.as_str());
            let (load, store) = fact.update.map_or((NO_SITE, NO_SITE), |(load, store)| {
                (load as u32, store as u32)
            });
            b.const_struct(&[
                b.const_int(i32_type, fact.kind as i64),
                b.const_int(i32_type, fact.loop_index as i64),
                b.const_int(i32_type, i64::from(load)),
                b.const_int(i32_type, i64::from(store)),
                operation,
                name,
            ])
        })
        .collect();
    let fact_type = b.type_of(facts[0]);
    b.private_constant(b.const_array(fact_type, &facts), "polyrust.facts")
}

/// The name a site is reported under: its array's own (`A` for `A[i][j]`), else, for an
/// address into a row loaded from a named array of pointers (`w[k][j]` with rows
/// allocated one at a time), that array's name and `[]` (`w[]`); empty when unknown.
fn site_array_name(fa: &FunctionAnalyses<'_>, pointer: LLVMValueRef) -> String {
    if let Some(name) = array_name(fa, pointer) {
        return name;
    }
    let mut base = pointer;
    // Bounded like `array_name`'s walk: GEPs of GEPs do not nest without end.
    for _ in 0..16 {
        match as_instruction(base) {
            Some(gep) if gep.get_opcode() == InstructionOpcode::GetElementPtr => {
                match operand(gep, 0) {
                    Some(next) => base = next,
                    None => break,
                }
            }
            _ => break,
        }
    }
    as_instruction(base)
        .filter(|load| load.get_opcode() == InstructionOpcode::Load)
        .and_then(|load| operand(load, 0))
        .and_then(|rows| array_name(fa, rows))
        .map(|name| format!("{name}[]"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::location;

    #[test]
    fn location_reads_line_and_column_or_gives_zeros() {
        assert_eq!(location(Some("dir/k.c:12:7".into())), (12, 7));
        assert_eq!(location(Some("C:/src/k.c:3:1".into())), (3, 1));
        assert_eq!(location(Some("k.c".into())), (0, 0));
        assert_eq!(location(None), (0, 0));
    }
}
