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
        let array = keep_in_element(accesses, &chain, &arrays);
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
        accesses.dedupe();
        accesses.drop_unused_arrays();
    }
    out
}

/// Turns the accesses of the chain's scalars (`arrays`) into accesses to its element,
/// dropping those that become identities; the element's array.
fn keep_in_element(accesses: &mut Accesses<'_>, chain: &Chain<'_>, arrays: &[usize]) -> usize {
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
    array
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
        let search = Search::new(tr, conditions, bounds, accesses, phi)?;
        let uses = search.follow()?;
        let element = search.element(&uses)?;
        if !search.undisturbed(&uses, &element) {
            return None;
        }
        search.chain(uses, element)
    }
}

/// A phi being looked at as the start of a chain, with its loop `L` (whose body is one
/// statement, S1) and the statement S0 in front of `L` where the chain starts.
struct Search<'a, 't, 'f> {
    tr: &'a Translator<'t, 'f>,
    conditions: &'a BlockConditions<'f>,
    bounds: Option<&'a [(Loop<'f>, LoopBounds)]>,
    accesses: &'a Accesses<'f>,
    phi: InstructionValue<'f>,
    l: Loop<'f>,
    parent: Option<Loop<'f>>,
    /// The block before `L` the phi's first value comes from, and that value.
    pre: BasicBlock<'f>,
    init: LLVMValueRef,
    /// The value the phi takes on the back edge.
    next: LLVMValueRef,
    s0: BasicBlock<'f>,
    s1: BasicBlock<'f>,
    ty: inkwell::llvm_sys::prelude::LLVMTypeRef,
    /// Depth of `L` in the region.
    depth: usize,
}

/// Where the chain's values are used outside the phi.
struct Uses<'f> {
    /// The phi, its back-edge value and that value's LCSSA copies.
    values: Vec<LLVMValueRef>,
    /// Stores of the chain after the loop (in S2), in program order.
    after: Vec<InstructionValue<'f>>,
    /// The statement after the loop, in the loop around L, that uses the chain.
    s2: Option<BasicBlock<'f>>,
    /// The store of the chain in the loop.
    in_loop_store: Option<InstructionValue<'f>>,
    /// Statements in later loops inside the loop around L that read the chain.
    readers: Vec<BasicBlock<'f>>,
}

/// The element the chain lives in, and the accesses to it that are the chain's.
struct Element<'f> {
    /// The load before the loop the chain starts from.
    init_load: Option<InstructionValue<'f>>,
    /// The chain's loads and stores with their access (index in `accesses.accesses`).
    homes: Vec<(InstructionValue<'f>, usize)>,
    home: usize,
    /// The chain's store after the loop.
    after_home: Option<(InstructionValue<'f>, usize)>,
    /// S2 overwrites the element with a value computed from the chain.
    overwritten: bool,
    first_use_in_s2: Option<InstructionValue<'f>>,
    /// S0's store of the chain's starting value into the element.
    init_store: Option<InstructionValue<'f>>,
    pointer: LLVMValueRef,
}

/// What the statement after the loop (S2) does with the chain.
struct AfterLoop<'f> {
    /// Its store of the chain to the element, with the store's access.
    home: Option<(InstructionValue<'f>, usize)>,
    /// The store overwrites the element with a value computed from the chain.
    overwritten: bool,
    first_use_in_s2: Option<InstructionValue<'f>>,
}

impl<'a, 't, 'f> Search<'a, 't, 'f> {
    /// The search from `phi`, if it is the phi of an innermost loop of the region whose
    /// body is one statement, entered from a statement in the loop around it, and read
    /// in its own loop only.
    fn new(
        tr: &'a Translator<'t, 'f>,
        conditions: &'a BlockConditions<'f>,
        bounds: Option<&'a [(Loop<'f>, LoopBounds)]>,
        accesses: &'a Accesses<'f>,
        phi: InstructionValue<'f>,
    ) -> Option<Self> {
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
        Some(Search {
            tr,
            conditions,
            bounds,
            accesses,
            phi,
            l,
            parent,
            pre,
            init,
            next,
            s0,
            s1,
            ty,
            depth,
        })
    }

    fn stmt(&self, b: BasicBlock<'f>) -> BasicBlock<'f> {
        self.conditions.statement_block(b)
    }

    /// The back-edge value: used in S1, by LCSSA phis after the loop, and by stores
    /// after the loop (in S2, in the loop around L).
    fn follow(&self) -> Option<Uses<'f>> {
        let (fa, shape, l) = (self.tr.fa(), self.tr.shape(), self.l);
        let mut uses = Uses {
            values: vec![self.phi.as_value_ref(), self.next],
            after: Vec::new(),
            s2: None,
            in_loop_store: None,
            readers: Vec::new(),
        };
        let mut pending = vec![self.next];
        while let Some(v) = pending.pop() {
            for user in users(&basic_value(v)) {
                let block = user.get_parent()?;
                if self.stmt(block) == self.s1 {
                    if user.get_opcode() == InstructionOpcode::Store
                        && user.as_value_ref() != self.phi.as_value_ref()
                        && accessed_value(user) == Some(v)
                    {
                        if uses.in_loop_store.is_some() {
                            return None;
                        }
                        uses.in_loop_store = Some(user);
                    }
                    continue;
                }
                if l.contains_block(block) || !shape.contains_block(block) {
                    return None;
                }
                if fa.loop_for_block(block) != self.parent {
                    // A statement in a later loop inside J reads the value (NPB's and
                    // Gram-Schmidt's `for i: A[i][j] -= Q[i][k] * d`).
                    if user.get_opcode() == InstructionOpcode::Phi
                        || !self.parent.is_some_and(|j| j.contains_block(block))
                    {
                        return None;
                    }
                    uses.readers.push(self.stmt(block));
                    continue;
                }
                match uses.s2 {
                    Some(s) if s != self.stmt(block) => return None,
                    _ => uses.s2 = Some(self.stmt(block)),
                }
                if user.get_opcode() == InstructionOpcode::Phi {
                    // An LCSSA copy: every incoming value is the chain's.
                    if phi_incoming(user).iter().any(|(x, _)| *x != v) {
                        return None;
                    }
                    uses.values.push(user.as_value_ref());
                    pending.push(user.as_value_ref());
                } else if user.get_opcode() == InstructionOpcode::Store
                    && accessed_value(user) == Some(v)
                {
                    uses.after.push(user);
                }
            }
        }
        uses.after.sort_by_key(|st| {
            let block = st.get_parent();
            block.map(|b| b.get_instructions().position(|i| i == *st))
        });
        Some(uses)
    }

    /// The access of a load or store of the region (not a may-write).
    fn access_of(&self, inst: InstructionValue<'f>) -> Option<usize> {
        self.accesses
            .accesses
            .iter()
            .position(|x| x.inst == Some(inst) && x.kind != AccessKind::MayWrite)
    }

    /// The element: where the chain is loaded from and stored to, all one access,
    /// the same in every iteration of L, holding values of the chain's type.
    fn element(&self, uses: &Uses<'f>) -> Option<Element<'f>> {
        let init_load = as_instruction(self.init)
            .filter(|i| i.get_opcode() == InstructionOpcode::Load)
            .filter(|i| i.get_parent().map(|b| self.stmt(b)) == Some(self.s0));
        let mut homes: Vec<(InstructionValue<'f>, usize)> = Vec::new();
        for inst in init_load.iter().chain(uses.in_loop_store.iter()) {
            homes.push((*inst, self.access_of(*inst)?));
        }
        let AfterLoop {
            home: after_home,
            overwritten,
            first_use_in_s2,
        } = self.after_home(uses, &homes);
        if let Some(h) = after_home {
            homes.push(h);
        }
        let (_, home) = *homes.first()?;
        let all = &self.accesses.accesses;
        let home_access = &all[home];
        if homes.iter().any(|(_, h)| !same(home_access, &all[*h])) {
            return None;
        }
        // Invariant in L: the same element in every iteration of the loop.
        if home_access
            .subscripts
            .iter()
            .any(|s| s.max_counter().is_some_and(|c| c >= self.depth))
        {
            return None;
        }
        if homes
            .iter()
            .any(|(inst, _)| accessed_value(*inst).map(type_of) != Some(self.ty))
        {
            return None;
        }
        let pointer = pointer_operand(homes.first()?.0)?;
        let mut element = Element {
            init_load,
            homes,
            home,
            after_home,
            overwritten,
            first_use_in_s2,
            init_store: None,
            pointer,
        };
        if !self.stored_back(uses, &element)? {
            return None;
        }
        element.init_store = self.init_store(&element);
        if init_load.is_none() && after_home.is_none() && element.init_store.is_none() {
            // Starting from a value that is not the element's would overwrite the
            // element even when the loop does not run.
            return None;
        }
        Some(element)
    }

    /// The chain's store after the loop, whether it overwrites the element with a
    /// value computed from the chain, and S2's first use of the chain.
    fn after_home(
        &self,
        uses: &Uses<'f>,
        homes: &[(InstructionValue<'f>, usize)],
    ) -> AfterLoop<'f> {
        let all = &self.accesses.accesses;
        // After the loop, the first store to the same element is the chain's (others
        // store the value elsewhere); without a load or a store in the loop, the
        // first store after it defines the element.
        let after_home = uses.after.iter().find_map(|st| {
            let i = self.access_of(*st)?;
            match homes.first() {
                Some((_, h)) if !same(&all[*h], &all[i]) => None,
                _ => Some((*st, i)),
            }
        });
        // Or the element S2 overwrites with a value computed from the chain
        // (`cov[a][b] = s / d`): its old contents are dead from S0 on, so the chain may
        // live there until it is read.
        let first_use_in_s2 = uses.s2.and_then(|s| first_use(s, &uses.values));
        let mut overwritten = false;
        let after_home = match (after_home, uses.s2, first_use_in_s2) {
            (Some(h), _, _) => Some(h),
            (None, Some(s2), Some(first)) => s2
                .get_instructions()
                .filter(|i| i.get_opcode() == InstructionOpcode::Store)
                .filter(|st| comes_before(first, *st))
                .find_map(|st| {
                    let i = self.access_of(st)?;
                    let x = &all[i];
                    let fits = x.kind == AccessKind::MustWrite
                        && accessed_value(st).map(type_of) == Some(self.ty)
                        && accessed_value(st).is_some_and(|v| computed_from(v, s2, &uses.values))
                        && homes.first().is_none_or(|(_, h)| same(&all[*h], x));
                    fits.then_some((st, i))
                })
                .inspect(|_| overwritten = true),
            _ => None,
        };
        AfterLoop {
            home: after_home,
            overwritten,
            first_use_in_s2,
        }
    }

    /// Whether the chain's value reaches the element: stored in every iteration, or
    /// after the loop by a statement that runs whenever S0 does (else the element
    /// would keep the loop's partial value where the original kept the old one).
    /// `None` where the store has no block.
    fn stored_back(&self, uses: &Uses<'f>, element: &Element<'f>) -> Option<bool> {
        let stored_every_iteration = uses.in_loop_store.is_some();
        let stored_after = element.after_home.is_some();
        if !stored_every_iteration && !stored_after {
            return Some(false);
        }
        if stored_after && !stored_every_iteration {
            let fa = self.tr.fa();
            let store_block = element.after_home?.0.get_parent()?;
            if self.conditions.absorbed.contains_key(&store_block)
                || self.conditions.guards.contains_key(&store_block)
                || !fa.dominates(self.pre, store_block)
                || !fa.post_dominates(store_block, self.pre)
            {
                return Some(false);
            }
        }
        Some(true)
    }

    /// S0 may store the chain's starting value into the element itself (PolyBench's
    /// `sum[p] = 0; for s: sum[p] += ...`, where `sum[p]` is stored in every
    /// iteration): the element then holds the chain's value from S0 on.
    fn init_store(&self, element: &Element<'f>) -> Option<InstructionValue<'f>> {
        if element.init_load.is_some() {
            return None;
        }
        let home_access = &self.accesses.accesses[element.home];
        self.s0
            .get_instructions()
            .filter(|i| i.get_opcode() == InstructionOpcode::Store)
            .filter(|st| accessed_value(*st) == Some(self.init))
            .find(|st| {
                self.access_of(*st).is_some_and(|i| {
                    let x = &self.accesses.accesses[i];
                    x.kind == AccessKind::MustWrite && same(home_access, x)
                })
            })
    }

    /// Whether nothing else touches the array between S0 and the chain's last
    /// statement, except after the chain's value has been read in S2; and, in S1, the
    /// phi is read before the element is stored.
    fn undisturbed(&self, uses: &Uses<'f>, element: &Element<'f>) -> bool {
        let shape = self.tr.shape();
        let position = |b: BasicBlock<'f>| shape.position(b).unwrap_or(usize::MAX);
        let (s1, s2) = (self.s1, uses.s2);
        // Readers in later loops load the element: it must hold the chain's value there,
        // which an overwriting S2 ends.
        if uses.readers.iter().any(|r| {
            position(*r) <= position(s1)
                || (element.overwritten && s2.is_some_and(|s| position(*r) >= position(s)))
        }) {
            return false;
        }
        let last = uses
            .readers
            .iter()
            .copied()
            .chain(s2)
            .chain([s1])
            .max_by_key(|b| position(*b))
            .unwrap_or(s1);
        let (from, to) = (position(self.s0), position(last));
        let home_access = &self.accesses.accesses[element.home];
        let ours: HashSet<InstructionValue<'f>> = element.homes.iter().map(|(i, _)| *i).collect();
        let others = self.accesses.accesses.iter().filter(|x| {
            x.array == home_access.array
                && !x.inst.is_some_and(|inst| ours.contains(&inst))
                && (from..=to).contains(&position(x.block))
        });
        for x in others {
            if !self.allowed_in_between(x, uses, element) {
                return false;
            }
        }
        // In S1, the phi is read before the element is stored.
        match uses.in_loop_store {
            Some(st) => {
                first_use(s1, &[self.phi.as_value_ref()]).is_some_and(|f| comes_before(f, st))
            }
            None => true,
        }
    }

    /// Whether `x`, another access to the chain's array between S0 and the chain's
    /// last statement, sees the same in both forms.
    fn allowed_in_between(&self, x: &Access<'f>, uses: &Uses<'f>, element: &Element<'f>) -> bool {
        let home_access = &self.accesses.accesses[element.home];
        // A read in the loop of another element of the array (Cholesky's
        // `s -= A[i][k] * A[j][k]` for `k < j`, with `s` in `A[i][j]`) sees the
        // same contents in both forms.
        if x.block == self.s1
            && x.kind == AccessKind::Read
            && x.extent.is_none()
            && self
                .bounds
                .is_some_and(|b| never_same_element(&x.subscripts, home_access, b, self.l))
        {
            return true;
        }
        if x.block == self.s0 {
            return x.kind == AccessKind::Read
                || (x.inst.is_some() && x.inst == element.init_store);
        }
        if Some(x.block) == uses.s2 && x.block != self.s1 {
            // Without a store in S2, the original kept the element up to date in
            // the loop: memory is the same in both forms. With one, an access after
            // it sees the same; a write after the chain's first use (once the value
            // is in hand) changes nothing the chain needs; a read before the store
            // would see the chain where the original saw the old contents.
            let home_in_s2 = element.after_home.map(|(st, _)| st);
            return match (home_in_s2, x.inst) {
                (None, _) => true,
                (Some(home), Some(inst)) => {
                    comes_before(home, inst)
                        || (x.kind != AccessKind::Read
                            && element
                                .first_use_in_s2
                                .is_some_and(|f| comes_before(f, inst)))
                }
                (Some(_), None) => false,
            };
        }
        false
    }

    /// The chain: starting from the element's own contents, S0 has nothing to write,
    /// and its load is not needed unless something else uses it; storing the chain
    /// back after the loop writes what the element holds already.
    fn chain(&self, uses: Uses<'f>, element: Element<'f>) -> Option<Chain<'f>> {
        let pointer = element.pointer;
        let mut identities = Identities::default();
        let mut writes = Vec::new();
        match element.init_load {
            Some(load) => {
                identities.writes.push(self.s0);
                if users(&load).len() == 1 {
                    identities.instructions.push(load);
                }
            }
            None => writes.push((
                self.s0,
                PromotedWrite {
                    value: self.phi.as_value_ref(),
                    pointer,
                },
            )),
        }
        if let (Some(s2), Some((store, _)), false) =
            (uses.s2, element.after_home, element.overwritten)
        {
            identities.instructions.push(store);
            let only_stored_back = uses.values.iter().all(|v| {
                users(&basic_value(*v)).iter().all(|u| {
                    u.get_parent().map(|b| self.stmt(b)) != Some(s2)
                        || u.get_opcode() == InstructionOpcode::Phi
                        || (u.get_opcode() == InstructionOpcode::Store
                            && pointer_operand(*u) == pointer_operand(store))
                })
            });
            if only_stored_back {
                identities.reads.push(s2);
            }
        }
        for v in &uses.values {
            writes.push((self.s1, PromotedWrite { value: *v, pointer }));
        }
        writes.retain(|(block, w)| writes_scalar(self.accesses, *block, w.value));
        Some(Chain {
            values: uses.values,
            pointer,
            home: element.home,
            writes,
            identities,
        })
    }
}

/// Whether two accesses are to the same element (not a range).
fn same(x: &Access<'_>, y: &Access<'_>) -> bool {
    x.array == y.array && x.subscripts == y.subscripts && x.extent.is_none()
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

/// Whether `value` is computed in `block` from one of `values`: only then does a store
/// of it overwrite an element with a value computed from the chain. A store of another
/// chain's value is not (gesummv's `tmp[i] = t` before `y[i] = alpha * t + beta * s`:
/// with LCSSA copies of both sums at the top of the block, the first store after `s`'s
/// copy is `tmp[i]`'s, where `s` must not live).
fn computed_from(value: LLVMValueRef, block: BasicBlock<'_>, values: &[LLVMValueRef]) -> bool {
    let mut pending = vec![value];
    let mut seen = HashSet::new();
    while let Some(v) = pending.pop() {
        if values.contains(&v) {
            return true;
        }
        let Some(inst) = as_instruction(v).filter(|i| i.get_parent() == Some(block)) else {
            continue;
        };
        if !seen.insert(v) {
            continue;
        }
        pending
            .extend((0..inst.get_num_operands()).filter_map(|k| crate::llvm::ir::operand(inst, k)));
    }
    false
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
