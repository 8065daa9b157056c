//! Parallel loops on OpenMP threads (LLVM's OpenMP runtime, libomp), once emitted
//! (`fork`) and verified: each loop's blocks are moved into a function of their own by
//! LLVM's CodeExtractor (`FunctionAnalyses::extract_blocks`, robust with phis, debug
//! records and metadata), and the call left in their place goes to a dispatcher that
//! either forks a team (`__kmpc_fork_call`, what clang's `#pragma omp parallel` lowers
//! to) or, when the loop is too short to pay for a fork or the caller already runs on a
//! team's thread (`omp_in_parallel()`), runs every iteration itself. Each thread of a
//! team (the microtask) takes its share of the iterations by the site's `Schedule`, a
//! static schedule computed from `omp_get_thread_num()` and `omp_get_num_threads()`:
//! simpler than `__kmpc_for_static_init_8` (no source location or loop kind to
//! describe), and the shares depend on nothing but the trip and thread counts, so a
//! thread count always computes the same way. OMP_NUM_THREADS is libomp's.
//!
//! Relies on CodeExtractor finding no value of the loop used after it (else the loop
//! stays serial, in place). The outlined function and its two wrappers carry
//! `polyrust-outlined` (`llvm::link::OUTLINED_ATTRIBUTE`): the pass does not optimize
//! them again, it only runs its clean-up pipeline on them (`entry`).

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::FunctionValue;

use super::partials::{self, Partial};
use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::link::OUTLINED_ATTRIBUTE;
use crate::llvm::FunctionAnalyses;

/// A parallel loop emitted for threads, to be outlined once the region verifies.
pub struct ForkSite<'f> {
    /// The blocks to move: the fork's entry block and the loop's, all but its exit.
    pub(super) blocks: Vec<BasicBlock<'f>>,
    /// Placeholders: the first iteration (counted from 0) a thread runs, and the one
    /// after its last.
    pub(super) first: Value,
    pub(super) end: Value,
    /// The loop's trip count, in front of the loop.
    pub(super) trips: Value,
    /// Below this trip count the loop runs on the calling thread.
    pub(super) min_trips: i64,
    /// The loop's iterator in the loop AST, for the remark.
    pub iterator: String,
    /// How the threads share the iterations.
    pub(super) schedule: Schedule,
    /// The scalar reductions whose slots the loop updates, each thread in a partial of
    /// its own (`partials`).
    pub(super) partials: Vec<Partial>,
}

/// How the threads of a team share a forked loop's iterations. Any share but `Partials`
/// is exact: only the order of independent iterations changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One contiguous block of `ceil(trips / threads)` iterations per thread: for
    /// iterations of equal work whose thread pays once per share (a product's rows: one
    /// kernel call, one packing of B per thread).
    Blocks,
    /// Chunks of `ceil(trips / (threads * SERPENTINE_ROUNDS))` iterations dealt out back
    /// and forth (threads 0 to T-1, then T-1 to 0, ...), so iterations whose work rises
    /// or falls with the counter (a triangular nest) weigh the same on every thread; a
    /// tiled loop's iterations are whole tiles, so tiles stay whole.
    Serpentine,
    /// One contiguous block per thread, thread t's from `trips * sqrt(t / threads)`:
    /// iterations whose work grows linearly with the counter (the row blocks of a lower
    /// triangle) give every thread the same work in one share.
    Triangle,
    /// One contiguous block of `ceil(trips / threads)` iterations per thread, each
    /// updating private partials of the loop's scalar reductions, combined in thread
    /// order after the join (`partials`): the same bytes for a given thread count.
    Partials,
}

/// Rounds of chunks per thread in the serpentine schedule: enough that a triangular
/// nest's chunks differ little, few enough that a chunk is many iterations.
const SERPENTINE_ROUNDS: i64 = 8;

/// What became of the loops emitted for threads.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Forks {
    /// The iterators of the loops that now run on OpenMP threads, with the trip count
    /// from which they fork and how the threads share them.
    pub parallel: Vec<(String, i64, Schedule)>,
    /// Parallel loops kept on the calling thread, with why.
    pub serial: Vec<(String, String)>,
}

impl<'f> ForkSite<'f> {
    /// The loop runs every iteration where it is: the placeholders become 0 and the
    /// trip count.
    pub(super) fn stay_serial(&self, b: &IrBuilder<'f>) {
        // SAFETY: both placeholders are instructions the emitter made, used only by
        // the loop's bounds.
        unsafe {
            c::LLVMReplaceAllUsesWith(self.first, b.const_i64(0));
            c::LLVMReplaceAllUsesWith(self.end, self.trips);
        }
        b.erase(self.first);
        b.erase(self.end);
    }
}

/// Outlines each site and makes it run on threads (see the module's comment); the
/// analyses no longer describe the function afterwards. A site CodeExtractor refuses
/// stays serial, in place.
pub fn outline<'f>(fa: &FunctionAnalyses<'f>, sites: Vec<ForkSite<'f>>, forks: &mut Forks) {
    let b = IrBuilder::new(fa.function());
    for site in sites {
        let Some(call) = fa.extract_blocks(&site.blocks, "polyrust.parallel") else {
            site.stay_serial(&b);
            forks.serial.push((
                site.iterator.clone(),
                "its code could not be moved into a function of its own".into(),
            ));
            continue;
        };
        match dispatch(&b, call, &site) {
            Ok(()) => forks
                .parallel
                .push((site.iterator.clone(), site.min_trips, site.schedule)),
            Err(why) => forks.serial.push((site.iterator.clone(), why.into())),
        }
    }
}

/// The parameters of the outlined function, in order, and the positions of the two
/// placeholders among them.
struct Outlined {
    function: Value,
    ty: LLVMTypeRef,
    params: Vec<LLVMTypeRef>,
    first: Option<usize>,
    end: Option<usize>,
    /// The scalar reductions with the positions of their slots among the parameters
    /// (the scalar's, then its companions').
    partials: Vec<(Partial, usize, Vec<usize>)>,
}

/// Replaces the call of the outlined loop by a call of its dispatcher, which takes the
/// same arguments and the trip count; why not when the placeholders or a reduction's
/// slot are not among the arguments (the call then runs every iteration).
fn dispatch(b: &IrBuilder<'_>, call: Value, site: &ForkSite<'_>) -> Result<(), &'static str> {
    // SAFETY: `call` is the call CodeExtractor just made, of a defined function.
    let (mut outlined, args) = unsafe {
        let function = c::LLVMGetCalledValue(call);
        let ty = c::LLVMGlobalGetValueType(function);
        let count = c::LLVMCountParamTypes(ty) as usize;
        let mut params = vec![std::ptr::null_mut(); count];
        c::LLVMGetParamTypes(ty, params.as_mut_ptr());
        let args: Vec<Value> = (0..count as u32)
            .map(|k| c::LLVMGetOperand(call, k))
            .collect();
        let first = args.iter().position(|a| *a == site.first);
        let end = args.iter().position(|a| *a == site.end);
        (
            Outlined {
                function,
                ty,
                params,
                first,
                end,
                partials: Vec::new(),
            },
            args,
        )
    };
    b.add_string_attribute(outlined.function, OUTLINED_ATTRIBUTE, "");
    if outlined.first.is_none() || outlined.end.is_none() {
        site.stay_serial(b);
        return Err("its bounds did not become parameters of the function it was moved into");
    }
    let position = |v: &Value| args.iter().position(|a| a == v);
    for partial in &site.partials {
        let Some(slot) = position(&partial.slot) else {
            site.stay_serial(b);
            return Err(
                "its reduction's scalar did not become a parameter of the function \
                        it was moved into",
            );
        };
        let companions: Vec<usize> = partial.companions.iter().filter_map(position).collect();
        // Each slot is a stack slot of the caller's, or a thread's own, that nothing
        // else in the loop points to: LLVM may then keep it in a register.
        for k in std::iter::once(slot).chain(companions.iter().copied()) {
            b.add_parameter_attribute(outlined.function, k as u32, "noalias");
        }
        outlined.partials.push((partial.clone(), slot, companions));
    }
    let microtask = microtask(b, &outlined, site.schedule);
    let dispatcher = dispatcher(b, &outlined, microtask, site.min_trips);
    let mut params = outlined.params.clone();
    params.push(b.i64_type());
    // SAFETY: a call of the dispatcher with the outlined call's arguments and the trip
    // count, in its place; the old call goes, then the placeholders nothing uses now.
    unsafe {
        let ty = c::LLVMFunctionType(b.void_type(), params.as_mut_ptr(), params.len() as u32, 0);
        // The placeholders mean nothing outside the loop: the dispatcher sets both.
        let mut with_trips = args;
        set_bounds(&mut with_trips, &outlined, b.const_i64(0), b.const_i64(0));
        with_trips.push(site.trips);
        b.position_before(inkwell::values::InstructionValue::new(call));
        let new = b.call(dispatcher, ty, &with_trips);
        di::LLVMInstructionSetDebugLoc(new, di::LLVMInstructionGetDebugLoc(call));
        b.erase(call);
        for placeholder in [site.first, site.end] {
            if c::LLVMGetFirstUse(placeholder).is_null() {
                b.erase(placeholder);
            }
        }
    }
    Ok(())
}

/// A new internal function `ret name(params)` carrying the caller's target attributes
/// and `polyrust-outlined`, with a builder at the end of its entry block.
fn new_function<'m>(
    b: &IrBuilder<'_>,
    label: &str,
    params: &[LLVMTypeRef],
) -> (Value, IrBuilder<'m>) {
    let mut params = params.to_vec();
    // SAFETY: a function type of the builder's context; the function is the module's.
    let (function, fb) = unsafe {
        let ty = c::LLVMFunctionType(b.void_type(), params.as_mut_ptr(), params.len() as u32, 0);
        let function = b.internal_function(label, ty);
        let value = FunctionValue::new(function).expect("LLVM returns the function it added");
        (function, IrBuilder::new(value))
    };
    let caller = b.function_ref();
    for name in ["target-cpu", "target-features", "tune-cpu"] {
        if let Some(value) = crate::llvm::link::string_attribute(caller, name) {
            b.add_string_attribute(function, name, &value);
        }
    }
    b.add_string_attribute(function, OUTLINED_ATTRIBUTE, "");
    b.add_function_attribute(function, "nounwind", 0);
    let entry = fb.new_block("entry");
    fb.position_at_end(entry);
    (function, fb)
}

/// The arguments the outlined function gets from the shared struct `shared` (of type
/// `record`: its parameters, then the trip count), the placeholders' positions given
/// `first` and `end`; and the trip count.
fn unpack(
    fb: &IrBuilder<'_>,
    outlined: &Outlined,
    record: LLVMTypeRef,
    shared: Value,
) -> (Vec<Value>, Value) {
    let mut args = Vec::new();
    for (k, ty) in outlined.params.iter().enumerate() {
        let address = fb.field_address(record, shared, k as u32);
        args.push(fb.load(*ty, address, "polyrust.shared"));
    }
    let address = fb.field_address(record, shared, outlined.params.len() as u32);
    let trips = fb.load(fb.i64_type(), address, "polyrust.trips");
    (args, trips)
}

/// The type of the struct the dispatcher hands the threads: the outlined function's
/// parameters, the trip count, then the address of each reduction's partials.
fn record_type(b: &IrBuilder<'_>, outlined: &Outlined) -> LLVMTypeRef {
    let mut fields = outlined.params.clone();
    fields.push(b.i64_type());
    fields.extend(outlined.partials.iter().map(|_| b.ptr_type()));
    b.struct_type(&fields)
}

/// `void microtask(i32 *gtid, i32 *btid, ptr shared)`: what each thread of the team
/// runs: its share of the iterations by `schedule`.
fn microtask(b: &IrBuilder<'_>, outlined: &Outlined, schedule: Schedule) -> Value {
    let ptr = b.ptr_type();
    let (function, fb) = new_function(b, "polyrust.microtask", &[ptr, ptr, ptr]);
    // SAFETY: the function was just made with three parameters.
    let shared = unsafe { c::LLVMGetParam(function, 2) };
    let record = record_type(b, outlined);
    let (args, trips) = unpack(&fb, outlined, record, shared);
    let i32_type = fb.i32_type();
    let (thread_num, ty) = fb.function_of("omp_get_thread_num", i32_type, &[], false);
    let thread = fb.to_i64(fb.call(thread_num, ty, &[]));
    let (num_threads, ty) = fb.function_of("omp_get_num_threads", i32_type, &[], false);
    let threads = fb.to_i64(fb.call(num_threads, ty, &[]));
    let team = Team {
        thread,
        threads,
        trips,
    };
    match schedule {
        Schedule::Blocks => team.block(&fb, outlined, args),
        Schedule::Triangle => team.triangle_block(&fb, outlined, args),
        Schedule::Serpentine => team.serpentine(&fb, outlined, args),
        Schedule::Partials => team.partial_block(&fb, outlined, args, (record, shared)),
    }
    fb.ret_void();
    function
}

/// A thread of a team, in its microtask: its number, the team's size, the trip count.
struct Team {
    thread: Value,
    threads: Value,
    trips: Value,
}

fn min(fb: &IrBuilder<'_>, a: Value, x: Value) -> Value {
    let below = fb.icmp(LLVMIntPredicate::LLVMIntSLT, a, x);
    fb.select(below, a, x)
}

/// `ceil(a / b)` for `a >= 0`, `b > 0`.
fn ceil_div(fb: &IrBuilder<'_>, a: Value, b: Value) -> Value {
    let rounded = fb.binary(
        LLVMOpcode::LLVMSub,
        fb.binary(LLVMOpcode::LLVMAdd, a, b),
        fb.const_i64(1),
    );
    fb.binary(LLVMOpcode::LLVMSDiv, rounded, b)
}

impl Team {
    /// Calls the outlined loop on the iterations `first..end`.
    fn run(fb: &IrBuilder<'_>, outlined: &Outlined, args: &[Value], first: Value, end: Value) {
        let mut args = args.to_vec();
        set_bounds(&mut args, outlined, first, end);
        fb.call(outlined.function, outlined.ty, &args);
    }

    /// The thread's contiguous block of `ceil(trips / threads)` iterations.
    fn block(&self, fb: &IrBuilder<'_>, outlined: &Outlined, args: Vec<Value>) {
        let chunk = ceil_div(fb, self.trips, self.threads);
        let first = min(
            fb,
            fb.binary(LLVMOpcode::LLVMMul, self.thread, chunk),
            self.trips,
        );
        let end = min(fb, fb.binary(LLVMOpcode::LLVMAdd, first, chunk), self.trips);
        Self::run(fb, outlined, &args, first, end);
    }

    /// The thread's contiguous block (as `block`) on private slots for the reductions,
    /// starting from their identities; each partial then goes into the thread's element
    /// of its array (the record's fields after the trip count).
    fn partial_block(
        &self,
        fb: &IrBuilder<'_>,
        outlined: &Outlined,
        mut args: Vec<Value>,
        (record, shared): (LLVMTypeRef, Value),
    ) {
        let mut private = Vec::new();
        for (partial, slot, companions) in &outlined.partials {
            let unit = partials::identity(fb, partial.ty, partial.operator);
            for k in std::iter::once(slot).chain(companions) {
                let own = fb.alloca(partial.ty, "polyrust.private");
                fb.store(unit, own);
                args[*k] = own;
            }
            private.push((partial.ty, args[*slot]));
        }
        self.block(fb, outlined, args);
        let after_trips = outlined.params.len() as u32 + 1;
        for (j, (ty, own)) in private.into_iter().enumerate() {
            let field = fb.field_address(record, shared, after_trips + j as u32);
            let array = fb.load(fb.ptr_type(), field, "polyrust.partials");
            let value = fb.load(ty, own, "polyrust.partial");
            fb.store(value, fb.element_at(ty, array, self.thread));
        }
    }

    /// The thread's contiguous block from `cut(thread)` to `cut(thread + 1)`, `cut(t) =
    /// trips * sqrt(t / threads)` truncated: the first `cut(t)` iterations of linearly
    /// growing work hold `t / threads` of the work. Rounding is monotone and `cut(threads)`
    /// is exactly `trips`, so the blocks cover every iteration once.
    fn triangle_block(&self, fb: &IrBuilder<'_>, outlined: &Outlined, args: Vec<Value>) {
        let trips = fb.signed_to_f64(self.trips);
        let threads = fb.signed_to_f64(self.threads);
        let cut = |t: Value| {
            let share = fb.binary(LLVMOpcode::LLVMFDiv, fb.signed_to_f64(t), threads);
            let root = fb.sqrt_f64(share);
            let at = fb.f64_to_i64(fb.binary(LLVMOpcode::LLVMFMul, trips, root));
            min(fb, at, self.trips)
        };
        let next = fb.binary(LLVMOpcode::LLVMAdd, self.thread, fb.const_i64(1));
        let (first, end) = (cut(self.thread), cut(next));
        Self::run(fb, outlined, &args, first, end);
    }

    /// The thread's chunks of the serpentine schedule: in round r, chunk `r * threads +
    /// thread` (r even) or `r * threads + threads - 1 - thread` (r odd), until a chunk
    /// starts past the last iteration (every later one does too).
    fn serpentine(&self, fb: &IrBuilder<'_>, outlined: &Outlined, args: Vec<Value>) {
        let per_round = fb.binary(
            LLVMOpcode::LLVMMul,
            self.threads,
            fb.const_i64(SERPENTINE_ROUNDS),
        );
        let chunk = ceil_div(fb, self.trips, per_round);
        let last = fb.binary(LLVMOpcode::LLVMSub, self.threads, fb.const_i64(1));
        let back = fb.binary(LLVMOpcode::LLVMSub, last, self.thread);
        let Some(entry) = fb.current_block() else {
            return;
        };
        let (head, body, done) = (
            fb.new_block("polyrust.round"),
            fb.new_block("polyrust.chunk"),
            fb.new_block("polyrust.rounds.end"),
        );
        fb.br(head);
        fb.position_at_end(head);
        let round = fb.phi_i64("polyrust.round");
        fb.add_incoming(round, fb.const_i64(0), entry);
        let odd = fb.binary(LLVMOpcode::LLVMAnd, round, fb.const_i64(1));
        let odd = fb.icmp(LLVMIntPredicate::LLVMIntNE, odd, fb.const_i64(0));
        let place = fb.select(odd, back, self.thread);
        let index = fb.binary(
            LLVMOpcode::LLVMAdd,
            fb.binary(LLVMOpcode::LLVMMul, round, self.threads),
            place,
        );
        let first = fb.binary(LLVMOpcode::LLVMMul, index, chunk);
        let more = fb.icmp(LLVMIntPredicate::LLVMIntSLT, first, self.trips);
        fb.cond_br(more, body, done);
        fb.position_at_end(body);
        let end = min(fb, fb.binary(LLVMOpcode::LLVMAdd, first, chunk), self.trips);
        Self::run(fb, outlined, &args, first, end);
        let next = fb.binary(LLVMOpcode::LLVMAdd, round, fb.const_i64(1));
        fb.add_incoming(round, next, body);
        fb.br(head);
        fb.position_at_end(done);
    }
}

fn set_bounds(args: &mut [Value], outlined: &Outlined, first: Value, end: Value) {
    if let Some(k) = outlined.first {
        args[k] = first;
    }
    if let Some(k) = outlined.end {
        args[k] = end;
    }
}

/// `void dispatcher(params..., i64 trips)`: runs every iteration on the calling thread
/// when `trips < min_trips` or the caller already runs on a team's thread; otherwise
/// forks a team that runs `microtask` on the arguments.
fn dispatcher(b: &IrBuilder<'_>, outlined: &Outlined, microtask: Value, min_trips: i64) -> Value {
    let mut params = outlined.params.clone();
    params.push(b.i64_type());
    let (function, fb) = new_function(b, "polyrust.dispatch", &params);
    // SAFETY: the function was just made with these parameters.
    let mut args: Vec<Value> = (0..params.len() as u32)
        .map(|k| unsafe { c::LLVMGetParam(function, k) })
        .collect();
    let Some(trips) = args.pop() else {
        return function;
    };
    let short = fb.icmp(LLVMIntPredicate::LLVMIntSLT, trips, fb.const_i64(min_trips));
    let (in_parallel, ty) = fb.function_of("omp_in_parallel", fb.i32_type(), &[], false);
    let nested = fb.icmp(
        LLVMIntPredicate::LLVMIntNE,
        fb.call(in_parallel, ty, &[]),
        fb.const_int(fb.i32_type(), 0),
    );
    let serial = fb.binary(LLVMOpcode::LLVMOr, short, nested);
    let here = fb.new_block("polyrust.serial");
    let fork = fb.new_block("polyrust.fork");
    fb.cond_br(serial, here, fork);
    fb.position_at_end(here);
    let mut whole = args.clone();
    set_bounds(&mut whole, outlined, fb.const_i64(0), trips);
    fb.call(outlined.function, outlined.ty, &whole);
    fb.ret_void();
    fb.position_at_end(fork);
    let record = record_type(b, outlined);
    let shared = fb.alloca(record, "polyrust.shared");
    let slots: Vec<Partial> = outlined.partials.iter().map(|p| p.0.clone()).collect();
    // One partial per thread the team can have; no call when there is none to make.
    let count = if slots.is_empty() {
        fb.const_i64(0)
    } else {
        let (max_threads, ty) = fb.function_of("omp_get_max_threads", fb.i32_type(), &[], false);
        fb.to_i64(fb.call(max_threads, ty, &[]))
    };
    let arrays = partials::make_arrays(&fb, &slots, count);
    for (k, value) in args
        .iter()
        .chain(std::iter::once(&trips))
        .chain(&arrays)
        .enumerate()
    {
        fb.store(*value, fb.field_address(record, shared, k as u32));
    }
    let ptr = fb.ptr_type();
    let (fork_call, ty) = fb.function_of(
        "__kmpc_fork_call",
        fb.void_type(),
        &[ptr, fb.i32_type(), ptr],
        true,
    );
    let location = source_location(&fb);
    fb.call(
        fork_call,
        ty,
        &[location, fb.const_int(fb.i32_type(), 1), microtask, shared],
    );
    let updated: Vec<(Partial, Value, Vec<Value>)> = outlined
        .partials
        .iter()
        .map(|(p, slot, companions)| {
            let companions = companions.iter().map(|k| args[*k]).collect();
            (p.clone(), args[*slot], companions)
        })
        .collect();
    partials::combine_arrays(&fb, &updated, &arrays, count);
    fb.ret_void();
    function
}

/// The `ident_t` libomp takes with each call (`{ 0, KMP_IDENT_KMPC, 0, 0, ";unknown;unknown;0;0;;" }`),
/// one per module.
fn source_location(b: &IrBuilder<'_>) -> Value {
    const NAME: &str = "polyrust.omp.location";
    if let Some(existing) = b.named_global(NAME) {
        return existing;
    }
    let text = b.global_string(";unknown;unknown;0;0;;", "polyrust.omp.source");
    let i32_type = b.i32_type();
    let fields = [
        b.const_int(i32_type, 0),
        b.const_int(i32_type, 2),
        b.const_int(i32_type, 0),
        b.const_int(i32_type, 22),
        text,
    ];
    b.private_constant(b.const_struct(&fields), NAME)
}
