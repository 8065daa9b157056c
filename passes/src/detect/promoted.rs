//! Promoted scalars in their memory form. LLVM keeps an array element in a register
//! across a loop (LICM's promotion, GVN's load forwarding): the element is loaded
//! before the loop, carried through it in a phi and stored back in every iteration or
//! after the loop; or a scalar accumulator starts from a constant and is stored into an
//! element after its loop (`s = 0; for k: s += ...; C[i][j] = s`). As scalars, these
//! values are read and written by every iteration of the loop nest, and no loop around
//! them can be reordered. Here the values of such a chain (the phi, the value it takes
//! on the back edge, that value's copies after the loop) are modelled as accesses to
//! the element itself, so the dependences are per element and each element is still
//! updated in the same order: results stay bit-exact without any reassociation.
//!
//! The mapping is exact when, in every iteration of the loops around the chain, the
//! element holds the chain's value from the statement that starts it (`S0`, before the
//! loop) to the one that stores it back (the loop's own statement `S1`, or `S2` after
//! the loop), and nothing else touches the element in between. Code generation keeps
//! the chain in the element: it loads the element where the statement reads the value
//! and stores it where the statement writes it (see `codegen::emit`).
//!
//! Relies on: the accesses of `access` (scalars as zero-dimensional arrays with their
//! SSA value, memory accesses with their instruction), and statements that are one
//! block each or a block with the branches it absorbed.

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::access::{Access, Accesses};
use super::affine::{Affine, Atom};
use super::control::{BlockConditions, LoopBounds};
use super::translate::Translator;
use crate::llvm::ir::{
    accessed_value, as_instruction, basic_value, phi_incoming, pointer_operand, type_of, users,
};
use crate::llvm::Loop;
use crate::model::spec::AccessKind;

/// One chain of SSA values kept in an array element.
#[derive(Clone, Debug)]
pub struct Promotion {
    /// The phi in the loop header, the value it takes on the back edge, and that
    /// value's copies after the loop (LCSSA phis).
    pub values: Vec<LLVMValueRef>,
    /// The element's address, as the loads and stores of the chain compute it.
    pub pointer: LLVMValueRef,
    /// The array the element belongs to, in source terms (for remarks).
    pub array: String,
}

/// What a statement writes of a promoted chain: the value to store at the element's
/// address at the end of the statement (for a phi, its incoming value from the
/// statement's block).
#[derive(Clone, Copy, Debug)]
pub struct PromotedWrite {
    pub value: LLVMValueRef,
    pub pointer: LLVMValueRef,
}

/// The chains of a region that can live in their element, each turned into accesses
/// to it. Statements' writes of the chains are returned per statement block.
pub fn to_memory<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    bounds: Option<&[(Loop<'f>, LoopBounds)]>,
    accesses: &mut Accesses<'f>,
) -> Vec<(Promotion, Vec<(BasicBlock<'f>, PromotedWrite)>)> {
    let mut out = Vec::new();
    let candidates: Vec<usize> = (0..accesses.arrays.len())
        .filter(|a| accesses.arrays[*a].is_scalar)
        .collect();
    let mut taken: HashSet<usize> = HashSet::new();
    for a in candidates {
        if taken.contains(&a) {
            continue;
        }
        let Some(phi) = accesses.arrays[a].value.and_then(as_instruction) else {
            continue;
        };
        if phi.get_opcode() != InstructionOpcode::Phi {
            continue;
        }
        let Some(chain) = Chain::find(tr, conditions, bounds, accesses, phi) else {
            continue;
        };
        let arrays: Vec<usize> = chain
            .values
            .iter()
            .filter_map(|v| {
                accesses
                    .arrays
                    .iter()
                    .position(|x| x.is_scalar && x.value == Some(*v))
            })
            .collect();
        if arrays.iter().any(|x| taken.contains(x)) {
            continue;
        }
        taken.extend(arrays.iter().copied());
        // The element's access, taken before the identities go (it may be one).
        let home = &accesses.accesses[chain.home];
        let (array, subscripts, assumed, in_bounds) = (
            home.array,
            home.subscripts.clone(),
            home.assumed.clone(),
            home.in_bounds.clone(),
        );
        let ids = &chain.identities;
        accesses.accesses.retain(|x| {
            let of_chain = arrays.contains(&x.array);
            let identity = x.inst.is_some_and(|i| ids.instructions.contains(&i))
                || (of_chain && x.kind != AccessKind::Read && ids.writes.contains(&x.block))
                || (of_chain && x.kind == AccessKind::Read && ids.reads.contains(&x.block));
            !identity
        });
        for access in accesses.accesses.iter_mut() {
            if arrays.contains(&access.array) {
                access.array = array;
                access.subscripts = subscripts.clone();
                access.assumed = assumed.clone();
                access.in_bounds = in_bounds.clone();
                access.text = format!("{} (promoted scalar, kept in memory)", access.text);
            }
        }
        out.push((
            Promotion {
                values: chain.values,
                pointer: chain.pointer,
                array: match accesses.arrays[array].base {
                    Some(base) => crate::llvm::source_terms::describe_value(tr.fa(), base),
                    None => accesses.arrays[array].name.clone(),
                },
            },
            chain.writes,
        ));
    }
    if !out.is_empty() {
        dedupe(accesses);
        drop_unused_arrays(accesses);
    }
    out
}

/// A chain found on the IR, with the memory access it lives in.
struct Chain<'f> {
    values: Vec<LLVMValueRef>,
    pointer: LLVMValueRef,
    /// Index in `accesses.accesses` of an access to the element (a load or store of
    /// the chain), whose subscripts the scalars take.
    home: usize,
    writes: Vec<(BasicBlock<'f>, PromotedWrite)>,
    /// Accesses that become identities in the memory form (`x = C[i][j]` before the
    /// loop, `C[i][j] = x` after it) and leave the model.
    identities: Identities<'f>,
}

#[derive(Default)]
struct Identities<'f> {
    /// Loads and stores of the element whose access goes.
    instructions: Vec<InstructionValue<'f>>,
    /// Statements whose write of the chain goes.
    writes: Vec<BasicBlock<'f>>,
    /// Statements whose read of the chain goes.
    reads: Vec<BasicBlock<'f>>,
}

impl<'f> Chain<'f> {
    fn find(
        tr: &Translator<'_, 'f>,
        conditions: &BlockConditions<'f>,
        bounds: Option<&[(Loop<'f>, LoopBounds)]>,
        accesses: &Accesses<'f>,
        phi: InstructionValue<'f>,
    ) -> Option<Chain<'f>> {
        let fa = tr.fa();
        let shape = tr.shape();
        let stmt = |b: BasicBlock<'f>| conditions.statement_block(b);
        let header = phi.get_parent()?;
        let l = fa.loop_for_block(header)?;
        if l.header() != header || !shape.contains_loop(l) || !l.subloops().is_empty() {
            return None;
        }
        // The loop's body is one statement, S1.
        let s1 = stmt(header);
        if l.blocks().iter().any(|b| stmt(*b) != s1) {
            return None;
        }
        let parent = l.parent();
        let [(a, from_a), (b, from_b)] = phi_incoming(phi)[..] else {
            return None;
        };
        let ((init, pre), (next, latch)) = if l.contains_block(from_b) && !l.contains_block(from_a)
        {
            ((a, from_a), (b, from_b))
        } else if l.contains_block(from_a) && !l.contains_block(from_b) {
            ((b, from_b), (a, from_a))
        } else {
            return None;
        };
        // S0, where the chain starts, sits in the loop around L, in the region.
        if !shape.contains_block(pre) || fa.loop_for_block(pre) != parent || stmt(latch) != s1 {
            return None;
        }
        let s0 = stmt(pre);
        let next_inst = as_instruction(next)?;
        if next_inst.get_parent().map(stmt) != Some(s1) {
            return None;
        }
        let ty = type_of(phi.as_value_ref());
        let depth = shape.loops_around(fa, header).len().checked_sub(1)?;

        // The phi is read in S1 only.
        if users(&phi)
            .iter()
            .any(|u| u.get_parent().map(stmt) != Some(s1))
        {
            return None;
        }
        // The back-edge value: used in S1, by LCSSA phis after the loop, and by stores
        // after the loop (in S2, in the loop around L).
        let mut values = vec![phi.as_value_ref(), next];
        let mut after: Vec<InstructionValue<'f>> = Vec::new();
        let mut s2: Option<BasicBlock<'f>> = None;
        let mut in_loop_store: Option<InstructionValue<'f>> = None;
        let mut readers: Vec<BasicBlock<'f>> = Vec::new();
        let mut pending = vec![next];
        while let Some(v) = pending.pop() {
            for user in users(&basic_value(v)) {
                let block = user.get_parent()?;
                if stmt(block) == s1 {
                    if user.get_opcode() == InstructionOpcode::Store
                        && user.as_value_ref() != phi.as_value_ref()
                        && accessed_value(user) == Some(v)
                    {
                        if in_loop_store.is_some() {
                            return None;
                        }
                        in_loop_store = Some(user);
                    }
                    continue;
                }
                if l.contains_block(block) || !shape.contains_block(block) {
                    return None;
                }
                if fa.loop_for_block(block) != parent {
                    // A statement in a later loop inside J reads the value (NPB's and
                    // Gram-Schmidt's `for i: A[i][j] -= Q[i][k] * d`).
                    if user.get_opcode() == InstructionOpcode::Phi
                        || !parent.is_some_and(|j| j.contains_block(block))
                    {
                        return None;
                    }
                    readers.push(stmt(block));
                    continue;
                }
                match s2 {
                    Some(s) if s != stmt(block) => return None,
                    _ => s2 = Some(stmt(block)),
                }
                if user.get_opcode() == InstructionOpcode::Phi {
                    // An LCSSA copy: every incoming value is the chain's.
                    if phi_incoming(user).iter().any(|(x, _)| *x != v) {
                        return None;
                    }
                    values.push(user.as_value_ref());
                    pending.push(user.as_value_ref());
                } else if user.get_opcode() == InstructionOpcode::Store
                    && accessed_value(user) == Some(v)
                {
                    after.push(user);
                }
            }
        }

        // The element: where the chain is loaded from and stored to, all one access.
        let init_load = as_instruction(init)
            .filter(|i| i.get_opcode() == InstructionOpcode::Load)
            .filter(|i| i.get_parent().map(stmt) == Some(s0));
        let access_of = |inst: InstructionValue<'f>| {
            accesses
                .accesses
                .iter()
                .position(|x| x.inst == Some(inst) && x.kind != AccessKind::MayWrite)
        };
        let mut homes: Vec<(InstructionValue<'f>, usize)> = Vec::new();
        for inst in init_load.iter().chain(in_loop_store.iter()) {
            homes.push((*inst, access_of(*inst)?));
        }
        // After the loop, the first store to the same element is the chain's (others
        // store the value elsewhere); without a load or a store in the loop, the
        // first store after it defines the element.
        let same = |x: &Access<'f>, y: &Access<'f>| {
            x.array == y.array && x.subscripts == y.subscripts && x.extent.is_none()
        };
        after.sort_by_key(|st| {
            let block = st.get_parent();
            block.map(|b| b.get_instructions().position(|i| i == *st))
        });
        let after_home = after.iter().find_map(|st| {
            let i = access_of(*st)?;
            match homes.first() {
                Some((_, h)) if !same(&accesses.accesses[*h], &accesses.accesses[i]) => None,
                _ => Some((*st, i)),
            }
        });
        // Or the element S2 overwrites with a value computed from the chain
        // (`cov[a][b] = s / d`): its old contents are dead from S0 on, so the chain may
        // live there until it is read.
        let first_use_in_s2 = s2.and_then(|s| first_use(s, &values));
        let mut overwritten = false;
        let after_home = match (after_home, s2, first_use_in_s2) {
            (Some(h), _, _) => Some(h),
            (None, Some(s2), Some(first)) => s2
                .get_instructions()
                .filter(|i| i.get_opcode() == InstructionOpcode::Store)
                .filter(|st| comes_before(first, *st))
                .find_map(|st| {
                    let i = access_of(st)?;
                    let x = &accesses.accesses[i];
                    let fits = x.kind == AccessKind::MustWrite
                        && accessed_value(st).map(type_of) == Some(ty)
                        && homes
                            .first()
                            .is_none_or(|(_, h)| same(&accesses.accesses[*h], x));
                    fits.then_some((st, i))
                })
                .inspect(|_| overwritten = true),
            _ => None,
        };
        if let Some(h) = after_home {
            homes.push(h);
        }
        let (_, home) = *homes.first()?;
        let home_access = &accesses.accesses[home];
        if homes
            .iter()
            .any(|(_, h)| !same(home_access, &accesses.accesses[*h]))
        {
            return None;
        }
        // Invariant in L: the same element in every iteration of the loop.
        if home_access
            .subscripts
            .iter()
            .any(|s| s.max_counter().is_some_and(|c| c >= depth))
        {
            return None;
        }
        if homes
            .iter()
            .any(|(inst, _)| accessed_value(*inst).map(type_of) != Some(ty))
        {
            return None;
        }
        let pointer = pointer_operand(homes.first()?.0)?;
        let stored_every_iteration = in_loop_store.is_some();
        let stored_after = after_home.is_some();
        if !stored_every_iteration && !stored_after {
            return None;
        }
        if stored_after && !stored_every_iteration {
            // S2 must run in every iteration where S0 does, else the element would keep
            // the loop's partial value where the original kept the old one.
            let store_block = after_home?.0.get_parent()?;
            if conditions.absorbed.contains_key(&store_block)
                || !fa.dominates(pre, store_block)
                || !fa.post_dominates(store_block, pre)
            {
                return None;
            }
        }
        // S0 may store the chain's starting value into the element itself (PolyBench's
        // `sum[p] = 0; for s: sum[p] += ...`, where `sum[p]` is stored in every
        // iteration): the element then holds the chain's value from S0 on.
        let init_store = match init_load {
            Some(_) => None,
            None => s0
                .get_instructions()
                .filter(|i| i.get_opcode() == InstructionOpcode::Store)
                .filter(|st| accessed_value(*st) == Some(init))
                .find(|st| {
                    access_of(*st).is_some_and(|i| {
                        let x = &accesses.accesses[i];
                        x.kind == AccessKind::MustWrite && same(home_access, x)
                    })
                }),
        };
        if init_load.is_none() && !stored_after && init_store.is_none() {
            // Starting from a value that is not the element's would overwrite the
            // element even when the loop does not run.
            return None;
        }

        // Nothing else touches the array between S0 and the chain's last statement,
        // except after the chain's value has been read in S2.
        let position = |b: BasicBlock<'f>| shape.position(b).unwrap_or(usize::MAX);
        // Readers in later loops load the element: it must hold the chain's value there,
        // which an overwriting S2 ends.
        if readers.iter().any(|r| {
            position(*r) <= position(s1)
                || (overwritten && s2.is_some_and(|s| position(*r) >= position(s)))
        }) {
            return None;
        }
        let last = readers
            .iter()
            .copied()
            .chain(s2)
            .chain([s1])
            .max_by_key(|b| position(*b))
            .unwrap_or(s1);
        let ours: HashSet<InstructionValue<'f>> = homes.iter().map(|(i, _)| *i).collect();
        let home_in_s2 = after_home.map(|(st, _)| st);
        for x in &accesses.accesses {
            if x.array != home_access.array || x.inst.is_some_and(|inst| ours.contains(&inst)) {
                continue;
            }
            let p = position(x.block);
            if p < position(s0) || p > position(last) {
                continue;
            }
            // A read in the loop of another element of the array (Cholesky's
            // `s -= A[i][k] * A[j][k]` for `k < j`, with `s` in `A[i][j]`) sees the
            // same contents in both forms.
            if x.block == s1
                && x.kind == AccessKind::Read
                && x.extent.is_none()
                && bounds.is_some_and(|b| never_same_element(&x.subscripts, home_access, b, l))
            {
                continue;
            }
            if x.block == s0 {
                if x.kind == AccessKind::Read || (x.inst.is_some() && x.inst == init_store) {
                    continue;
                }
                return None;
            }
            if Some(x.block) == s2 && x.block != s1 {
                // Without a store in S2, the original kept the element up to date in
                // the loop: memory is the same in both forms. With one, an access after
                // it sees the same; a write after the chain's first use (once the value
                // is in hand) changes nothing the chain needs; a read before the store
                // would see the chain where the original saw the old contents.
                let allowed = match (home_in_s2, x.inst) {
                    (None, _) => true,
                    (Some(home), Some(inst)) => {
                        comes_before(home, inst)
                            || (x.kind != AccessKind::Read
                                && first_use_in_s2.is_some_and(|f| comes_before(f, inst)))
                    }
                    (Some(_), None) => false,
                };
                if allowed {
                    continue;
                }
            }
            return None;
        }
        // In S1, the phi is read before the element is stored.
        if let Some(st) = in_loop_store {
            let first = first_use(s1, &[phi.as_value_ref()])?;
            if !comes_before(first, st) {
                return None;
            }
        }

        // Starting from the element's own contents, S0 has nothing to write, and its
        // load is not needed unless something else uses it; storing the chain back
        // after the loop writes what the element holds already.
        let mut identities = Identities::default();
        let mut writes = Vec::new();
        match init_load {
            Some(load) => {
                identities.writes.push(s0);
                if users(&load).len() == 1 {
                    identities.instructions.push(load);
                }
            }
            None => writes.push((
                s0,
                PromotedWrite {
                    value: phi.as_value_ref(),
                    pointer,
                },
            )),
        }
        if let (Some(s2), Some((store, _)), false) = (s2, after_home, overwritten) {
            identities.instructions.push(store);
            let only_stored_back = values.iter().all(|v| {
                users(&basic_value(*v)).iter().all(|u| {
                    u.get_parent().map(stmt) != Some(s2)
                        || u.get_opcode() == InstructionOpcode::Phi
                        || (u.get_opcode() == InstructionOpcode::Store
                            && pointer_operand(*u) == pointer_operand(store))
                })
            });
            if only_stored_back {
                identities.reads.push(s2);
            }
        }
        for v in &values {
            writes.push((s1, PromotedWrite { value: *v, pointer }));
        }
        writes.retain(|(block, w)| writes_scalar(accesses, *block, w.value));
        Some(Chain {
            values,
            pointer,
            home,
            writes,
            identities,
        })
    }
}

/// Whether subscripts `other` never reach the element of `home` in any iteration of
/// `inner` (the chain's loop) and the region's loops around it: in some dimension,
/// their difference stays at most -1 (or at least 1) once every counter is replaced by
/// its bound (0 below, the backedge-taken count above; the deeper counters first, as
/// their bounds may use the outer ones). Parameters may remain only where they cancel.
fn never_same_element<'f>(
    other: &[Affine],
    home: &Access<'f>,
    bounds: &[(Loop<'f>, LoopBounds)],
    inner: Loop<'f>,
) -> bool {
    if other.len() != home.subscripts.len() {
        return false;
    }
    // Upper bounds of the counters around the chain's loop (and of its own), by depth.
    let uppers: Vec<(usize, &Affine)> = bounds
        .iter()
        .filter(|(l, _)| l.contains_block(inner.header()))
        .filter(|(_, b)| b.assumed.is_empty())
        .map(|(_, b)| (b.depth, &b.upper))
        .collect();
    other.iter().zip(&home.subscripts).any(|(a, h)| {
        let Some(diff) = a.sub(h) else {
            return false;
        };
        let below = largest_value(&diff, &uppers).is_some_and(|m| m <= -1);
        below
            || diff
                .scale(-1)
                .and_then(|d| largest_value(&d, &uppers))
                .is_some_and(|m| m <= -1)
    })
}

/// The largest value `e` takes when every counter lies between 0 and its upper bound
/// in `uppers` (by depth), if that is a constant.
fn largest_value(e: &Affine, uppers: &[(usize, &Affine)]) -> Option<i128> {
    let mut e = e.clone();
    // Each step replaces the deepest counter by a bound over shallower ones.
    for _ in 0..=uppers.len() {
        if let Some(value) = e.as_constant() {
            return Some(value);
        }
        let deepest = e
            .terms
            .keys()
            .filter_map(|atom| match atom {
                Atom::Counter(depth) => Some(*depth),
                _ => None,
            })
            .max()?;
        let coefficient = e.terms.remove(&Atom::Counter(deepest))?;
        if coefficient > 0 {
            let (_, upper) = uppers.iter().find(|(depth, _)| *depth == deepest)?;
            if upper.max_counter().is_some_and(|c| c >= deepest) {
                return None;
            }
            e = e.add(&upper.scale(coefficient)?)?;
        }
    }
    e.as_constant()
}

/// Whether the statement of `block` writes the scalar `value` in the model.
fn writes_scalar(accesses: &Accesses<'_>, block: BasicBlock<'_>, value: LLVMValueRef) -> bool {
    accesses.accesses.iter().any(|x| {
        x.block == block
            && x.kind != AccessKind::Read
            && accesses.arrays[x.array].is_scalar
            && accesses.arrays[x.array].value == Some(value)
    })
}

/// The first instruction of the statement's block that uses one of `values`.
fn first_use<'f>(block: BasicBlock<'f>, values: &[LLVMValueRef]) -> Option<InstructionValue<'f>> {
    block.get_instructions().find(|inst| {
        (0..inst.get_num_operands())
            .any(|k| crate::llvm::ir::operand(*inst, k).is_some_and(|op| values.contains(&op)))
    })
}

/// Whether `a` comes before `b` in the block they share.
fn comes_before(a: InstructionValue<'_>, b: InstructionValue<'_>) -> bool {
    if a.get_parent() != b.get_parent() {
        return false;
    }
    let mut current = Some(a);
    while let Some(inst) = current {
        if inst == b {
            return inst != a;
        }
        current = inst.get_next_instruction();
    }
    false
}

/// Removes repeated accesses of a statement (a promoted scalar written twice, or read
/// where the element is also loaded).
pub(super) fn dedupe(accesses: &mut Accesses<'_>) {
    let mut seen = Vec::new();
    accesses.accesses.retain(|x| {
        if x.extent.is_some() {
            return true;
        }
        let key = (x.block, x.kind, x.array, x.subscripts.clone());
        if seen.contains(&key) {
            return false;
        }
        seen.push(key);
        true
    });
}

/// Removes arrays no access refers to any more, renumbering the accesses.
pub(super) fn drop_unused_arrays(accesses: &mut Accesses<'_>) {
    let used: HashSet<usize> = accesses.accesses.iter().map(|x| x.array).collect();
    let mut renumber = vec![usize::MAX; accesses.arrays.len()];
    let mut kept = 0;
    for (i, slot) in renumber.iter_mut().enumerate() {
        if used.contains(&i) {
            *slot = kept;
            kept += 1;
        }
    }
    let mut index = 0;
    accesses.arrays.retain(|_| {
        let keep = used.contains(&index);
        index += 1;
        keep
    });
    for x in accesses.accesses.iter_mut() {
        x.array = renumber[x.array];
    }
}
