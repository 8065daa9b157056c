//! From the loop AST to IR: loops, guards and i64 expressions, and each statement
//! instance as a copy of its block's instructions with the original loop counters
//! replaced by the values the AST gives them (a statement with a data-dependent branch
//! inside: a copy of each of its blocks, joining where the statement ends). Values that
//! cross statements live in stack slots (one per scalar of the model); values
//! ScalarEvolution can recompute (addresses, counters) are recomputed from the new
//! counters, and forwarded values (`detect::forward`) are recomputed by cloning their
//! instructions into each statement that reads them.

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMTypeRef;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::CodegenError;
use crate::detect::{ArrayIr, DetectedRegion, StatementIr, HANDLED};
use crate::isl::ast::{AstExpr, AstNode, AstOp};
use crate::llvm::builder::{IrBuilder, Value};
use crate::llvm::host::AccessGroup;
use crate::llvm::ir::{
    as_instruction, basic_value, is_annotation_intrinsic, phi_incoming, type_of,
};
use crate::llvm::FunctionAnalyses;
use crate::model::spec::StatementSpec;
use crate::model::AccessKind;
use crate::transform::exprprop::{consumer_counter_name, Counter};

/// A stack slot holding one scalar of the model.
#[derive(Clone, Copy)]
pub struct Slot {
    pub pointer: Value,
    pub ty: LLVMTypeRef,
}

pub struct Emitter<'a, 'f> {
    pub fa: &'a FunctionAnalyses<'f>,
    pub b: &'a IrBuilder<'f>,
    pub region: &'a DetectedRegion<'f>,
    /// AST iterators and parameters, by name, as i64 values.
    pub ids: HashMap<String, Value>,
    /// Stack slots of the scalars, by the IR value they stand for.
    pub slots: HashMap<Value, Slot>,
    /// Promoted scalars (see `detect::promoted`): the address of the element each
    /// lives in, as the original code computes it.
    pub homes: HashMap<Value, Value>,
    /// Loads hoisted in front of the region (invariant loads used as parameters).
    pub hoisted: HashMap<Value, Value>,
    /// Instructions recomputed in each statement that reads them (see
    /// `detect::forward`).
    pub forwarded: HashSet<Value>,
    /// Every block made, for clean-up if generation gives up.
    pub created: Vec<BasicBlock<'f>>,
    /// The loop the region sits in, which every new block belongs to.
    pub parent_loop: Option<crate::llvm::Loop<'f>>,
    /// The access groups of the parallel loops around the code being emitted: every
    /// memory access of a statement goes in all of them.
    pub groups: Vec<AccessGroup>,
    /// The alias scope of each access's array (see `AliasScopes`).
    pub scopes: super::AliasScopes,
    /// Loads of temporaries replaced by their producer's expression (see
    /// `propagate`).
    pub recomputed: HashMap<Value, super::propagate::Recomputation<'a, 'f>>,
    /// Folded temporaries (see `fold`): the plan, and each array's buffer once made.
    pub folds: super::fold::FoldPlan,
    pub storage: Vec<super::fold::Storage>,
    /// Parallel loops run on OpenMP threads (see `fork`), forked from this much work.
    pub threads: Option<u64>,
    /// The code being emitted is inside a loop emitted for threads (no fork nests).
    pub forking: bool,
    /// Statements whose data-dependent conditions a loop around the code being emitted
    /// tested already (see `hoist_guards`).
    pub tested: Vec<String>,
    /// The scalars' stack slots stored into so far, once per store emitted.
    pub slot_stores: std::cell::RefCell<Vec<Value>>,
    /// The scalar reductions whose updates the threads of a forked loop may split
    /// (`plan::reductions`): each thread then updates a partial of its own.
    pub reductions: Vec<crate::plan::reductions::ScalarReduction>,
    /// The loops emitted for threads, to outline once the region verifies.
    pub fork_sites: Vec<super::outline::ForkSite<'f>>,
    /// What became of the parallel loops meant for threads.
    pub forks: super::outline::Forks,
}

/// One instance of a statement with a branch inside, as it is being copied: the
/// statement, its counters' values and the copy of each of its blocks.
struct Instance<'s, 'f> {
    st: &'s StatementIr<'f>,
    counters: &'s [Value],
    copies: HashMap<BasicBlock<'f>, BasicBlock<'f>>,
}

impl<'a, 'f> Emitter<'a, 'f> {
    /// A new block, registered in LoopInfo and under `idom` in the dominator tree.
    pub fn block(&mut self, label: &str, idom: BasicBlock<'f>) -> BasicBlock<'f> {
        let block = self.b.new_block(label);
        self.created.push(block);
        if let Some(l) = self.parent_loop {
            self.fa.add_block_to_loop(block, l);
        }
        self.fa.add_block_to_dominators(block, idom);
        block
    }

    /// An i64 (or, for conditions, i1) value of an AST expression.
    pub fn expr(&self, e: &AstExpr) -> Result<Value, CodegenError> {
        self.expr_with(e, &HashMap::new())
    }

    /// `expr` with the names of `bound` (before the AST's own) given these values.
    fn expr_with(
        &self,
        e: &AstExpr,
        bound: &HashMap<String, Value>,
    ) -> Result<Value, CodegenError> {
        let b = self.b;
        Ok(match e {
            AstExpr::Int(k) => b.const_i64(*k),
            AstExpr::Id(name) => {
                *bound
                    .get(name)
                    .or_else(|| self.ids.get(name))
                    .ok_or_else(|| {
                        CodegenError::Unsupported(format!("unknown name {name} in the loop AST"))
                    })?
            }
            AstExpr::Op(op, args) => {
                let v: Vec<Value> = args
                    .iter()
                    .map(|a| self.expr_with(a, bound))
                    .collect::<Result<_, _>>()?;
                let arg = |i: usize| {
                    v.get(i).copied().ok_or_else(|| {
                        CodegenError::Unsupported(format!("{op:?} without operand {i}"))
                    })
                };
                match op {
                    AstOp::Add => b.binary(LLVMOpcode::LLVMAdd, arg(0)?, arg(1)?),
                    AstOp::Sub => b.binary(LLVMOpcode::LLVMSub, arg(0)?, arg(1)?),
                    AstOp::Mul => b.binary(LLVMOpcode::LLVMMul, arg(0)?, arg(1)?),
                    AstOp::Minus => b.neg(arg(0)?),
                    AstOp::Div | AstOp::PositiveDiv => {
                        b.binary(LLVMOpcode::LLVMSDiv, arg(0)?, arg(1)?)
                    }
                    AstOp::PositiveRem | AstOp::ZeroRem => {
                        b.binary(LLVMOpcode::LLVMSRem, arg(0)?, arg(1)?)
                    }
                    AstOp::FloorDiv => self.floor_div(arg(0)?, arg(1)?),
                    AstOp::Min | AstOp::Max => {
                        let predicate = if *op == AstOp::Min {
                            LLVMIntPredicate::LLVMIntSLT
                        } else {
                            LLVMIntPredicate::LLVMIntSGT
                        };
                        let mut acc = arg(0)?;
                        for x in &v[1..] {
                            let keep = b.icmp(predicate, acc, *x);
                            acc = b.select(keep, acc, *x);
                        }
                        acc
                    }
                    AstOp::Eq => b.icmp(LLVMIntPredicate::LLVMIntEQ, arg(0)?, arg(1)?),
                    AstOp::Le => b.icmp(LLVMIntPredicate::LLVMIntSLE, arg(0)?, arg(1)?),
                    AstOp::Lt => b.icmp(LLVMIntPredicate::LLVMIntSLT, arg(0)?, arg(1)?),
                    AstOp::Ge => b.icmp(LLVMIntPredicate::LLVMIntSGE, arg(0)?, arg(1)?),
                    AstOp::Gt => b.icmp(LLVMIntPredicate::LLVMIntSGT, arg(0)?, arg(1)?),
                    AstOp::And | AstOp::AndThen => b.binary(LLVMOpcode::LLVMAnd, arg(0)?, arg(1)?),
                    AstOp::Or | AstOp::OrElse => b.binary(LLVMOpcode::LLVMOr, arg(0)?, arg(1)?),
                    AstOp::Cond | AstOp::Select => b.select(arg(0)?, arg(1)?, arg(2)?),
                    AstOp::Call | AstOp::Access | AstOp::Member | AstOp::AddressOf => {
                        return Err(CodegenError::Unsupported(format!("{op:?} in the loop AST")))
                    }
                }
            }
        })
    }

    /// floor(a / d): truncating division, one less when the remainder is nonzero and
    /// its sign differs from the divisor's.
    fn floor_div(&self, a: Value, d: Value) -> Value {
        let b = self.b;
        let q = b.binary(LLVMOpcode::LLVMSDiv, a, d);
        let r = b.binary(LLVMOpcode::LLVMSRem, a, d);
        let zero = b.const_i64(0);
        let inexact = b.icmp(LLVMIntPredicate::LLVMIntNE, r, zero);
        let r_negative = b.icmp(LLVMIntPredicate::LLVMIntSLT, r, zero);
        let d_negative = b.icmp(LLVMIntPredicate::LLVMIntSLT, d, zero);
        let signs_differ = b.binary(LLVMOpcode::LLVMXor, r_negative, d_negative);
        let adjust = b.binary(LLVMOpcode::LLVMAnd, inexact, signs_differ);
        let q_minus_one = b.binary(LLVMOpcode::LLVMSub, q, b.const_i64(1));
        b.select(adjust, q_minus_one, q)
    }

    /// Emits a subtree of the AST at the builder's position.
    pub fn node(&mut self, node: &AstNode) -> Result<(), CodegenError> {
        match node {
            AstNode::Block(children) => {
                for child in children {
                    self.node(child)?;
                }
                Ok(())
            }
            AstNode::Mark(inner) => self.node(inner),
            AstNode::If {
                cond,
                then,
                otherwise,
            } => self.guard(cond, then, otherwise.as_deref()),
            AstNode::For {
                iterator,
                init,
                cond,
                inc,
                body,
                degenerate,
                parallel,
            } => {
                if *degenerate {
                    let start = self.expr(init)?;
                    let previous = self.ids.insert(iterator.clone(), start);
                    self.node(body)?;
                    self.restore(iterator, previous);
                    return Ok(());
                }
                if *parallel
                    && self.threads.is_some()
                    && !self.forking
                    && self.forked_loop(iterator, init, cond, inc, body)?
                {
                    return Ok(());
                }
                let start = self.expr(init)?;
                let Some(skips) = self.hoist_guards(iterator, start, cond, body)? else {
                    return self.counted_loop(iterator, start, None, cond, inc, body, *parallel);
                };
                let built = self.counted_loop(iterator, start, None, cond, inc, body, *parallel);
                self.tested.pop();
                built?;
                for skipped in skips.into_iter().rev() {
                    self.b.br(skipped);
                    self.b.position_at_end(skipped);
                }
                Ok(())
            }
            AstNode::User { statement, args } => self.statement(statement, args),
        }
    }

    /// `if (cond) then else otherwise`, joining in a merge block.
    fn guard(
        &mut self,
        cond: &AstExpr,
        then: &AstNode,
        otherwise: Option<&AstNode>,
    ) -> Result<(), CodegenError> {
        let c = self.condition(cond)?;
        let here = self.current()?;
        let then_block = self.block("polyrust.then", here);
        let merge = self.block("polyrust.merge", here);
        let else_block = match otherwise {
            Some(_) => self.block("polyrust.else", here),
            None => merge,
        };
        self.b.cond_br(c, then_block, else_block);
        self.b.position_at_end(then_block);
        self.node(then)?;
        self.b.br(merge);
        if let Some(otherwise) = otherwise {
            self.b.position_at_end(else_block);
            self.node(otherwise)?;
            self.b.br(merge);
        }
        self.b.position_at_end(merge);
        Ok(())
    }

    /// A loop whose counter `iterator` starts at `start` and steps by `inc` while `cond`
    /// holds (while it is below `end`, when given); a parallel one puts the accesses of
    /// its body in an access group of its own.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn counted_loop(
        &mut self,
        iterator: &str,
        start: Value,
        end: Option<Value>,
        cond: &AstExpr,
        inc: &AstExpr,
        body: &AstNode,
        parallel: bool,
    ) -> Result<(), CodegenError> {
        let before = self.current()?;
        let header = self.block("polyrust.loop", before);
        let body_block = self.block("polyrust.body", header);
        let exit = self.block("polyrust.exit", header);
        // Until the body is built the counter's back-edge value is a placeholder
        // nothing is known about: with only its start as incoming value,
        // ScalarEvolution takes the counter for that constant while the body's
        // values are recomputed from it (fuzz seed 3019: `smax(2, j)` folded to
        // 2, so every row read the same elements).
        // (The placeholder comes in from the header itself: ValueTracking reads
        // the terminator of each incoming block, and the header has one first.)
        let unknown = self.b.opaque_i64("polyrust.unknown");
        self.b.br(header);
        self.b.position_at_end(header);
        let iv = self.b.phi_i64(iterator);
        self.b.add_incoming(iv, start, before);
        self.b.add_incoming(iv, unknown, header);
        let previous = self.ids.insert(iterator.to_string(), iv);
        let c = match end {
            Some(end) => self.b.icmp(LLVMIntPredicate::LLVMIntSLT, iv, end),
            None => self.condition(cond)?,
        };
        self.b.cond_br(c, body_block, exit);
        self.b.position_at_end(body_block);
        let group = parallel.then(|| self.fa.new_access_group());
        self.groups.extend(group);
        let built = self.node(body);
        if group.is_some() {
            self.groups.pop();
        }
        built?;
        let step = self.expr(inc)?;
        let next = self.b.binary(LLVMOpcode::LLVMAdd, iv, step);
        let latch = self.current()?;
        let back_edge = self.b.br(header);
        if let Some(branch) = as_instruction(back_edge) {
            self.fa.tag_latch(branch, HANDLED, group);
        }
        self.b.set_operand(iv, 1, next);
        self.fa.replace_phi_incoming_block(header, header, latch);
        self.b.erase(unknown);
        self.b.position_at_end(exit);
        self.restore(iterator, previous);
        Ok(())
    }

    fn restore(&mut self, name: &str, previous: Option<Value>) {
        match previous {
            Some(v) => {
                self.ids.insert(name.to_string(), v);
            }
            None => {
                self.ids.remove(name);
            }
        }
    }

    pub(super) fn current(&self) -> Result<BasicBlock<'f>, CodegenError> {
        self.b
            .current_block()
            .ok_or_else(|| CodegenError::Unsupported("builder has no block".into()))
    }

    /// An i1 condition: comparisons are already i1, an integer is compared with 0.
    pub fn condition(&self, e: &AstExpr) -> Result<Value, CodegenError> {
        let v = self.expr(e)?;
        // SAFETY: reading the type of a value we just built.
        let bits = unsafe {
            inkwell::llvm_sys::core::LLVMGetIntTypeWidth(inkwell::llvm_sys::core::LLVMTypeOf(v))
        };
        Ok(if bits == 1 {
            v
        } else {
            self.b
                .icmp(LLVMIntPredicate::LLVMIntNE, v, self.b.const_i64(0))
        })
    }

    /// One statement instance: its blocks' instructions, with the loop counters set to
    /// `args`. A statement with a data-dependent branch inside gets a copy of each of
    /// its blocks and branches, all joining in one new block where the statement ends.
    fn statement(&mut self, name: &str, args: &[AstExpr]) -> Result<(), CodegenError> {
        let region = self.region;
        let st = region
            .ir
            .statements
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| CodegenError::Unsupported(format!("unknown statement {name}")))?;
        let spec = region
            .spec
            .statements
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| CodegenError::Unsupported(format!("unknown statement {name}")))?;
        let counters: Vec<Value> = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<_, _>>()?;
        if st.blocks.is_empty() {
            return Err(CodegenError::Unsupported(format!(
                "statement {name} has no block"
            )));
        }
        let skipped = if self.tested.contains(&st.name) {
            None
        } else {
            self.open_guards(st, &counters)?
        };
        // Expansions go before a placeholder terminator, removed at the end.
        let start = self.current()?;
        let placeholder = self.placeholder()?;
        let mut local: HashMap<Value, Value> = HashMap::new();
        let branches = st.blocks.len() > 1;
        // Under a branch, what the blocks take from outside the statement is read once,
        // up front, where every copy of them sees it.
        if branches {
            self.read_from_outside(st, &counters, placeholder, &mut local)?;
        }
        let (instance, end) = self.instance_blocks(st, &counters, start);
        let placeholder = self.copy_blocks(&instance, placeholder, end, &mut local)?;
        self.write_scalars(spec, &instance, placeholder, &mut local)?;
        self.b.erase(placeholder.as_value_ref());
        self.b.position_at_end(end);
        if let Some(skipped) = skipped {
            self.b.br(skipped);
            self.b.position_at_end(skipped);
        }
        Ok(())
    }

    /// When every statement instance in the loop of `iterator` (from `start` while
    /// `cond`; its `body`, without guards of the AST) is of one statement under
    /// data-dependent branches, whose conditions read counters the loop gives the same
    /// value to in all of them: the conditions tested once, in front of the loop, once
    /// it is known to run (so that they read only elements the original reads), and
    /// the loop then emitted where they hold (the builder is left there, the statement
    /// marked tested). Returns the blocks to go on from, innermost test last.
    fn hoist_guards(
        &mut self,
        iterator: &str,
        start: Value,
        cond: &AstExpr,
        body: &AstNode,
    ) -> Result<Option<Vec<BasicBlock<'f>>>, CodegenError> {
        let mut calls = Vec::new();
        let mut inner = vec![iterator.to_string()];
        if !statement_calls(body, &mut calls, &mut inner) {
            return Ok(None);
        }
        let Some((name, args)) = calls.first().copied() else {
            return Ok(None);
        };
        let Some(st) = self.region.ir.statements.iter().find(|s| s.name == *name) else {
            return Ok(None);
        };
        if st.guards.is_empty() || self.tested.contains(&st.name) || args.len() < st.guard_depth {
            return Ok(None);
        }
        let outer = &args[..st.guard_depth];
        let same = calls
            .iter()
            .all(|(n, a)| *n == name && a.get(..st.guard_depth) == Some(outer));
        if !same || outer.iter().any(|e| mentions(e, &inner)) {
            return Ok(None);
        }
        let counters: Vec<Value> = outer
            .iter()
            .map(|a| self.expr(a))
            .collect::<Result<_, _>>()?;
        let previous = self.ids.insert(iterator.to_string(), start);
        let runs = self.condition(cond);
        self.restore(iterator, previous);
        let here = self.current()?;
        let entered = self.block("polyrust.entered", here);
        let not_entered = self.block("polyrust.not.entered", here);
        self.b.cond_br(runs?, entered, not_entered);
        self.b.position_at_end(entered);
        let mut skips = vec![not_entered];
        skips.extend(self.open_guards(st, &counters)?);
        self.tested.push(st.name.clone());
        Ok(Some(skips))
    }

    /// For a statement under data-dependent branches around loops (`detect::guarded`):
    /// their conditions, recomputed for this instance, and a branch to a new block
    /// where the instance runs (the builder is left there) or to the block returned,
    /// where the code goes on. `None` (and nothing emitted) for other statements.
    fn open_guards(
        &mut self,
        st: &StatementIr<'f>,
        counters: &[Value],
    ) -> Result<Option<BasicBlock<'f>>, CodegenError> {
        if st.guards.is_empty() {
            return Ok(None);
        }
        let start = self.current()?;
        let placeholder = self.placeholder()?;
        let mut local: HashMap<Value, Value> = HashMap::new();
        let mut runs: Option<Value> = None;
        for guard in &st.guards {
            let condition = guard
                .branch
                .get_terminator()
                .and_then(|t| crate::llvm::ir::operand(t, 0))
                .ok_or_else(|| CodegenError::Unsupported("a guard without condition".into()))?;
            let mut holds = self.value(condition, st, counters, placeholder, &mut local)?;
            if !guard.taken {
                let all_ones = self.b.const_int(type_of(holds), -1);
                holds = self.b.binary(LLVMOpcode::LLVMXor, holds, all_ones);
            }
            runs = Some(match runs {
                Some(r) => self.b.binary(LLVMOpcode::LLVMAnd, r, holds),
                None => holds,
            });
        }
        let runs = runs.ok_or_else(|| CodegenError::Unsupported("no guard".into()))?;
        let body = self.block("polyrust.guarded", start);
        let skipped = self.block("polyrust.unguarded", start);
        self.b.cond_br(runs, body, skipped);
        self.b.erase(placeholder.as_value_ref());
        self.b.position_at_end(body);
        Ok(Some(skipped))
    }

    /// The values the blocks of a statement with a branch inside take from outside the
    /// statement, mapped to the new code before `placeholder` (the phis of its first
    /// block excepted: they are read whole, from their slots).
    fn read_from_outside(
        &self,
        st: &StatementIr<'f>,
        counters: &[Value],
        placeholder: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<(), CodegenError> {
        for block in &st.blocks {
            for inst in block.get_instructions() {
                let read_whole =
                    inst.get_opcode() == InstructionOpcode::Phi && *block == st.blocks[0];
                if read_whole || is_annotation_intrinsic(inst) {
                    continue;
                }
                for index in 0..inst.get_num_operands() {
                    let Some(op) = crate::llvm::ir::operand(inst, index) else {
                        continue;
                    };
                    let inside = as_instruction(op)
                        .and_then(|i| i.get_parent())
                        .is_some_and(|b| st.blocks.contains(&b));
                    if !inside {
                        self.value(op, st, counters, placeholder, local)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The blocks of one instance of `st`: its first block is copied into `start`, each
    /// block under its branch into a new block; the block the instance ends in (a new
    /// join block when the statement branches).
    fn instance_blocks<'s>(
        &mut self,
        st: &'s StatementIr<'f>,
        counters: &'s [Value],
        start: BasicBlock<'f>,
    ) -> (Instance<'s, 'f>, BasicBlock<'f>) {
        let mut instance = Instance {
            st,
            counters,
            copies: HashMap::from([(st.blocks[0], start)]),
        };
        for block in &st.blocks[1..] {
            let copy = self.block("polyrust.branch", start);
            instance.copies.insert(*block, copy);
        }
        let end = if st.blocks.len() == 1 {
            start
        } else {
            self.block("polyrust.join", start)
        };
        (instance, end)
    }

    /// Copies the instructions of each block of the instance (before `placeholder` in
    /// the first block), and the branches between them; the placeholder where the
    /// instance ends, in `end`.
    fn copy_blocks(
        &self,
        instance: &Instance<'_, 'f>,
        mut placeholder: InstructionValue<'f>,
        end: BasicBlock<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<InstructionValue<'f>, CodegenError> {
        let Instance {
            st,
            counters,
            copies,
        } = instance;
        let first = st.blocks[0];
        let branches = st.blocks.len() > 1;
        for block in &st.blocks {
            if *block != first {
                self.b.position_at_end(copies[block]);
                placeholder = self.placeholder()?;
            }
            for inst in block.get_instructions() {
                if inst.is_terminator() {
                    if branches {
                        self.branch(inst, instance, placeholder, local, end)?;
                    }
                    break;
                }
                let v = inst.as_value_ref();
                if inst.get_opcode() == InstructionOpcode::Phi {
                    let mapped = if *block == first {
                        self.value(v, st, counters, placeholder, local)?
                    } else {
                        self.merge(inst, instance, placeholder, local)?
                    };
                    local.insert(v, mapped);
                    continue;
                }
                if is_annotation_intrinsic(inst) {
                    continue;
                }
                if let Some(recomputation) = self.recomputed.get(&v) {
                    let value = self.recompute(recomputation, counters, placeholder)?;
                    local.insert(v, value);
                    continue;
                }
                let clone = self.copy(inst, st, counters, placeholder, local)?;
                local.insert(v, clone);
            }
            if branches {
                self.b.erase(placeholder.as_value_ref());
            }
        }
        if branches {
            self.b.position_at_end(end);
            placeholder = self.placeholder()?;
        }
        Ok(placeholder)
    }

    /// The instance's scalar writes, before `placeholder`: the statement's own values,
    /// and the values it hands to phis of the blocks it branches to; to a stack slot,
    /// or for a promoted scalar to its element.
    fn write_scalars(
        &self,
        spec: &StatementSpec,
        instance: &Instance<'_, 'f>,
        placeholder: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<(), CodegenError> {
        let Instance { st, counters, .. } = instance;
        let mut writes: Vec<(Value, Value)> = Vec::new();
        for access in spec.accesses.iter().filter(|a| a.kind != AccessKind::Read) {
            let Some(ArrayIr::Scalar { value }) = self
                .region
                .ir
                .arrays
                .iter()
                .find(|(n, _)| *n == access.array)
                .map(|(_, ir)| *ir)
            else {
                continue;
            };
            if let Some(slot) = self.slots.get(&value) {
                writes.push((value, slot.pointer));
            }
        }
        let mut homes = HashMap::new();
        for write in &st.promoted_writes {
            let pointer = self.value(write.pointer, st, counters, placeholder, local)?;
            homes.insert(pointer, write.pointer);
            writes.push((write.value, pointer));
        }
        // Values handed to phis first (they become phis of `end`), then the stores.
        let mut stores = Vec::new();
        for (value, pointer) in writes {
            let written = if st.blocks.len() == 1 {
                let written = self.written(value, st.blocks[0], &st.name)?;
                self.value(written, st, counters, placeholder, local)?
            } else {
                self.written_at_join(value, instance, placeholder, local)?
            };
            stores.push((written, pointer));
        }
        for (written, pointer) in stores {
            if !homes.contains_key(&pointer) {
                self.slot_stores.borrow_mut().push(pointer);
            }
            let store = self.b.store(written, pointer);
            // A promoted scalar's element is memory like any other access.
            if let (Some(store), Some(home)) = (as_instruction(store), homes.get(&pointer)) {
                self.tag_access(store, self.scopes.of_address(self.fa, *home));
            }
        }
        Ok(())
    }

    /// The value a producer stores into a temporary, computed again from its operands
    /// for the consumer instance with counters `counters` (expression propagation): the
    /// producer's instructions cloned one by one (floating-point results stay
    /// bit-exact), its counters the consumer's shifted, its own recomputed loads
    /// recomputed in turn.
    fn recompute(
        &self,
        recomputation: &super::propagate::Recomputation<'a, 'f>,
        counters: &[Value],
        before: InstructionValue<'f>,
    ) -> Result<Value, CodegenError> {
        let st = recomputation.producer;
        let mut shifted: Vec<Value> = Vec::with_capacity(recomputation.counters.len());
        let mut bound: Option<HashMap<String, Value>> = None;
        for producer_counter in &recomputation.counters {
            let (follows, constant) = match producer_counter {
                Counter::Shifted { follows, plus } => (*follows, plus),
                Counter::Piecewise(e) => {
                    // The consumer's counters by the names the expression gives them.
                    let bound = bound.get_or_insert_with(|| {
                        counters
                            .iter()
                            .enumerate()
                            .map(|(k, v)| (consumer_counter_name(k), *v))
                            .collect()
                    });
                    shifted.push(self.expr_with(e, bound)?);
                    continue;
                }
            };
            let value = match follows {
                Some(k) => {
                    let counter = *counters.get(k).ok_or_else(|| {
                        CodegenError::Unsupported(format!(
                            "{} recomputed with fewer counters than it follows",
                            st.name
                        ))
                    })?;
                    if *constant == 0 {
                        counter
                    } else {
                        self.b
                            .binary(LLVMOpcode::LLVMAdd, counter, self.b.const_i64(*constant))
                    }
                }
                None => self.b.const_i64(*constant),
            };
            shifted.push(value);
        }
        let [block] = st.blocks.as_slice() else {
            return Err(CodegenError::Unsupported(format!(
                "{} has a branch inside",
                st.name
            )));
        };
        let mut local: HashMap<Value, Value> = HashMap::new();
        for inst in block.get_instructions() {
            if inst.is_terminator() {
                break;
            }
            let v = inst.as_value_ref();
            if inst.get_opcode() == InstructionOpcode::Store || is_annotation_intrinsic(inst) {
                continue;
            }
            let mapped = if inst.get_opcode() == InstructionOpcode::Phi {
                self.value(v, st, &shifted, before, &mut local)?
            } else if let Some(inner) = self.recomputed.get(&v) {
                self.recompute(inner, &shifted, before)?
            } else {
                self.copy(inst, st, &shifted, before, &mut local)?
            };
            local.insert(v, mapped);
        }
        match local.get(&recomputation.stored) {
            Some(value) => Ok(*value),
            None => self.value(recomputation.stored, st, &shifted, before, &mut local),
        }
    }

    /// Puts a new memory access in the access groups of the parallel loops around it,
    /// and in the alias scope of its array (see `AliasScopes`).
    fn tag_access(
        &self,
        access: InstructionValue<'f>,
        scope: Option<&(
            crate::llvm::host::AliasScope,
            Vec<crate::llvm::host::AliasScope>,
        )>,
    ) {
        for group in &self.groups {
            self.fa.add_access_group(access, *group);
        }
        if let Some((scope, others)) = scope {
            self.fa.add_alias_scopes(access, *scope, others);
        }
    }

    /// An `unreachable` at the builder's position, with the builder before it.
    fn placeholder(&self) -> Result<InstructionValue<'f>, CodegenError> {
        let placeholder = as_instruction(self.b.unreachable())
            .ok_or_else(|| CodegenError::Unsupported("placeholder is not an instruction".into()))?;
        self.b.position_before(placeholder);
        Ok(placeholder)
    }

    /// A copy of one instruction of a statement, its operands mapped to the new code.
    fn copy(
        &self,
        inst: InstructionValue<'f>,
        st: &StatementIr<'f>,
        counters: &[Value],
        before: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<Value, CodegenError> {
        let mut failure: Option<CodegenError> = None;
        // A folded array's access goes to its folded cell.
        let folded = match self.folds.accesses.get(&inst.as_value_ref()) {
            Some((array, subscripts)) => {
                let pointer = crate::llvm::ir::pointer_operand(inst);
                Some((pointer, self.folded_address(*array, subscripts, counters)?))
            }
            None => None,
        };
        let clone = self.b.clone_with(inst, |op| {
            if failure.is_some() {
                return op;
            }
            if let Some((Some(pointer), address)) = folded {
                if op == pointer {
                    return address;
                }
            }
            match self.value(op, st, counters, before, local) {
                Ok(mapped) => mapped,
                Err(e) => {
                    failure = Some(e);
                    op
                }
            }
        });
        if let Some(e) = failure.take() {
            return Err(e);
        }
        // Loads and stores only: calls may touch memory the model does not hold
        // (errno, for libm), and a loop with one access outside its group is not
        // taken as parallel by the vectorizer, which is the safe outcome.
        if matches!(
            inst.get_opcode(),
            InstructionOpcode::Load | InstructionOpcode::Store
        ) {
            if let Some(cloned) = as_instruction(clone) {
                let scope = self.scopes.of_access(inst.as_value_ref());
                self.tag_access(cloned, scope);
            }
        }
        Ok(clone)
    }

    /// `c mod g`, never negative.
    fn modulo(&self, c: Value, g: i64) -> Value {
        let b = self.b;
        let g = b.const_i64(g);
        let q = self.floor_div(c, g);
        b.binary(LLVMOpcode::LLVMSub, c, b.binary(LLVMOpcode::LLVMMul, q, g))
    }

    /// The address of the folded cell of the element at `subscripts` (expressions of the
    /// statement's counters) in folded array `array` (see `fold`).
    fn folded_address(
        &self,
        array: usize,
        subscripts: &[AstExpr],
        counters: &[Value],
    ) -> Result<Value, CodegenError> {
        let b = self.b;
        let (Some(plan), Some(storage)) = (self.folds.arrays.get(array), self.storage.get(array))
        else {
            return Err(CodegenError::Unsupported(
                "a folded array without storage".into(),
            ));
        };
        let locals: HashMap<String, Value> = counters
            .iter()
            .enumerate()
            .map(|(k, v)| (format!("{}{k}", super::fold::COUNTER_PREFIX), *v))
            .collect();
        let mut offset = b.const_i64(0);
        for (k, (dim, subscript)) in plan.dims.iter().zip(subscripts).enumerate() {
            let position = match dim {
                super::fold::FoldedDim::Modulo(1) => continue,
                super::fold::FoldedDim::Modulo(g) => {
                    let c = self.expr_with(subscript, &locals)?;
                    self.modulo(c, *g)
                }
                super::fold::FoldedDim::Split { copies, boundary } => {
                    let c = self.expr_with(subscript, &locals)?;
                    let at_boundary =
                        b.icmp(LLVMIntPredicate::LLVMIntEQ, c, b.const_i64(*boundary));
                    let rotating = self.modulo(c, *copies);
                    b.select(at_boundary, b.const_i64(*copies), rotating)
                }
                super::fold::FoldedDim::Keep { .. } => {
                    let c = self.expr_with(subscript, &locals)?;
                    let low = storage.low.get(k).copied().flatten().ok_or_else(|| {
                        CodegenError::Unsupported("a kept dimension without its start".into())
                    })?;
                    b.binary(LLVMOpcode::LLVMSub, c, low)
                }
            };
            let stride = *storage.stride.get(k).ok_or_else(|| {
                CodegenError::Unsupported("a folded dimension without its stride".into())
            })?;
            offset = b.binary(
                LLVMOpcode::LLVMAdd,
                offset,
                b.binary(LLVMOpcode::LLVMMul, position, stride),
            );
        }
        let bytes = b.binary(
            LLVMOpcode::LLVMMul,
            offset,
            b.const_i64(i64::from(plan.element_size)),
        );
        Ok(b.byte_address(storage.buffer, bytes))
    }

    /// The copy of a branch inside a statement: to the copies of the statement's
    /// blocks, and to `end` where the original leaves the statement.
    fn branch(
        &self,
        term: InstructionValue<'f>,
        instance: &Instance<'_, 'f>,
        before: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
        end: BasicBlock<'f>,
    ) -> Result<(), CodegenError> {
        let Instance {
            st,
            counters,
            copies,
        } = instance;
        let targets: Vec<BasicBlock<'f>> = crate::llvm::ir::successors(
            term.get_parent()
                .ok_or_else(|| CodegenError::Unsupported("a branch outside blocks".into()))?,
        )
        .into_iter()
        .map(|s| copies.get(&s).copied().unwrap_or(end))
        .collect();
        match targets.as_slice() {
            [to] => {
                self.b.br(*to);
            }
            [then, otherwise] => {
                let condition = crate::llvm::ir::operand(term, 0).ok_or_else(|| {
                    CodegenError::Unsupported("a conditional branch without condition".into())
                })?;
                let condition = self.value(condition, st, counters, before, local)?;
                self.b.cond_br(condition, *then, *otherwise);
            }
            _ => {
                return Err(CodegenError::Unsupported(format!(
                    "a branch to {} blocks inside statement {}",
                    targets.len(),
                    st.name
                )))
            }
        }
        Ok(())
    }

    /// The copy of a phi of a block under a statement's branch: the same choice
    /// between the copies of its incoming blocks.
    fn merge(
        &self,
        phi: InstructionValue<'f>,
        instance: &Instance<'_, 'f>,
        before: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<Value, CodegenError> {
        let Instance {
            st,
            counters,
            copies,
        } = instance;
        let incoming = phi_incoming(phi)
            .into_iter()
            .map(|(v, from)| {
                let copy = copies.get(&from).copied().ok_or_else(|| {
                    CodegenError::Unsupported(format!(
                        "statement {} is entered from outside its branch",
                        st.name
                    ))
                })?;
                Ok((self.value(v, st, counters, before, local)?, copy))
            })
            .collect::<Result<Vec<_>, CodegenError>>()?;
        Ok(self.phi_of(type_of(phi.as_value_ref()), incoming))
    }

    /// A new phi choosing each value from its block, at the builder's position.
    fn phi_of(&self, ty: LLVMTypeRef, incoming: Vec<(Value, BasicBlock<'f>)>) -> Value {
        let phi = self.b.phi(ty, "polyrust.merge");
        for (v, from) in incoming {
            self.b.add_incoming(phi, v, from);
        }
        phi
    }

    /// What a statement with a branch inside hands to a scalar, in its join block: for
    /// a phi of the block after the statement, a phi over the statement's edges into
    /// it; for a value of the statement's first block, its copy.
    fn written_at_join(
        &self,
        value: Value,
        instance: &Instance<'_, 'f>,
        before: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<Value, CodegenError> {
        let Instance {
            st,
            counters,
            copies,
        } = instance;
        let Some(phi) = as_instruction(value).filter(|i| {
            i.get_opcode() == InstructionOpcode::Phi
                && i.get_parent().is_some_and(|b| !st.blocks.contains(&b))
        }) else {
            return self.value(value, st, counters, before, local);
        };
        let incoming: Vec<(Value, BasicBlock<'f>)> = phi_incoming(phi)
            .into_iter()
            .filter_map(|(v, from)| copies.get(&from).map(|copy| (v, *copy)))
            .collect();
        if incoming.is_empty() {
            return Err(CodegenError::Unsupported(format!(
                "{} writes a phi it does not reach",
                st.name
            )));
        }
        // A value from before the statement is read where the statement starts, which
        // every edge into the join sees.
        let start = copies
            .get(&st.blocks[0])
            .and_then(|b| b.get_terminator())
            .ok_or_else(|| CodegenError::Unsupported("statement copy without branch".into()))?;
        let mapped = incoming
            .into_iter()
            .map(|(v, from)| {
                let inside = as_instruction(v)
                    .and_then(|i| i.get_parent())
                    .is_some_and(|b| st.blocks.contains(&b));
                let at = if inside { before } else { start };
                Ok((self.value(v, st, counters, at, local)?, from))
            })
            .collect::<Result<Vec<_>, CodegenError>>()?;
        // Phis come first in their block; the placeholder may follow other code.
        let join = before
            .get_parent()
            .ok_or_else(|| CodegenError::Unsupported("placeholder outside blocks".into()))?;
        match join.get_first_instruction() {
            Some(first) => self.b.position_before(first),
            None => self.b.position_at_end(join),
        }
        let copy = self.phi_of(type_of(value), mapped);
        self.b.position_before(before);
        Ok(copy)
    }

    /// The value a statement hands to a scalar: for a phi, its incoming value from
    /// the statement's block (its own block too, for a loop-carried value).
    fn written(
        &self,
        value: Value,
        block: BasicBlock<'f>,
        name: &str,
    ) -> Result<Value, CodegenError> {
        match as_instruction(value) {
            Some(phi) if phi.get_opcode() == InstructionOpcode::Phi => phi_incoming(phi)
                .into_iter()
                .find(|(_, from)| *from == block)
                .map(|(v, _)| v)
                .ok_or_else(|| {
                    CodegenError::Unsupported(format!("{name} writes a phi it does not reach"))
                }),
            _ => Ok(value),
        }
    }

    /// The value an operand of a statement's instruction has in the new code.
    fn value(
        &self,
        op: Value,
        st: &StatementIr<'f>,
        counters: &[Value],
        before: InstructionValue<'f>,
        local: &mut HashMap<Value, Value>,
    ) -> Result<Value, CodegenError> {
        if let Some(v) = local.get(&op) {
            return Ok(*v);
        }
        // A value speculated on is its constant in the new code (the check compared
        // it), so that a unit stride reads as one and the accesses vectorize.
        if let Some((_, constant)) = self.region.ir.speculated.iter().find(|(v, _)| *v == op) {
            return Ok(self.b.const_int(type_of(op), *constant));
        }
        let Some(inst) = as_instruction(op) else {
            return Ok(op);
        };
        let Some(def_block) = inst.get_parent() else {
            return Ok(op);
        };
        if !self.region.ir.blocks.contains(&def_block) {
            return Ok(op);
        }
        if let Some(v) = self.hoisted.get(&op) {
            return Ok(*v);
        }
        if self.forwarded.contains(&op) {
            // Recomputed where it is read: its loads read arrays the region never
            // writes, and its operands map like the statement's own.
            let clone = self.copy(inst, st, counters, before, local)?;
            local.insert(op, clone);
            return Ok(clone);
        }
        let mapped = if let Some(pointer) = self.homes.get(&op).copied() {
            // A promoted scalar holds the element's contents: read it where the
            // statement first needs it.
            let address = self.value(pointer, st, counters, before, local)?;
            let load = self.b.load(type_of(op), address, "polyrust.promoted");
            if let Some(load) = as_instruction(load) {
                self.tag_access(load, self.scopes.of_address(self.fa, pointer));
            }
            load
        } else if let Some(slot) = self.slots.get(&op) {
            self.b.load(slot.ty, slot.pointer, "polyrust.scalar")
        } else {
            let scope = self.fa.loop_for_block(def_block);
            let value = basic_value(op);
            if !self.fa.is_scevable(&value) {
                return Err(CodegenError::Unsupported(format!(
                    "{} crosses statements without a scalar slot",
                    self.fa.raw_operand_name(op)
                )));
            }
            let mut scev = self.fa.scev_at_scope(self.fa.scev(&value), scope);
            if !self.region.ir.speculated.is_empty() {
                scev = self.fa.scev_substitute(scev, &self.region.ir.speculated);
            }
            let n = st.loops.len().min(counters.len());
            self.fa
                .expand_with_counters(scev, &st.loops[..n], &counters[..n], type_of(op), before)
                .ok_or_else(|| {
                    CodegenError::Unsupported(format!(
                        "cannot recompute {}",
                        self.fa.raw_operand_name(op)
                    ))
                })?
        };
        local.insert(op, mapped);
        Ok(mapped)
    }
}

/// The statement calls in `node` (name and arguments), and the iterators of the loops
/// in it added to `iterators`; false if `node` holds a guard of the AST (an `if`),
/// whose instances may not run at all.
fn statement_calls<'n>(
    node: &'n AstNode,
    calls: &mut Vec<(&'n String, &'n [AstExpr])>,
    iterators: &mut Vec<String>,
) -> bool {
    match node {
        AstNode::Block(children) => children
            .iter()
            .all(|child| statement_calls(child, calls, iterators)),
        AstNode::Mark(inner) => statement_calls(inner, calls, iterators),
        AstNode::If { .. } => false,
        AstNode::For { iterator, body, .. } => {
            iterators.push(iterator.clone());
            statement_calls(body, calls, iterators)
        }
        AstNode::User { statement, args } => {
            calls.push((statement, args.as_slice()));
            true
        }
    }
}

/// Whether `e` reads one of `names`.
fn mentions(e: &AstExpr, names: &[String]) -> bool {
    match e {
        AstExpr::Int(_) => false,
        AstExpr::Id(name) => names.contains(name),
        AstExpr::Op(_, args) => args.iter().any(|a| mentions(a, names)),
    }
}
