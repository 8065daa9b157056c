//! Phis whose value an array element holds. LLVM hands a value stored to memory on
//! through phis instead of loading it again: GVN forwards a loop's last stored value
//! through an LCSSA phi to the statement after the loop (gesummv's `y[i] = alpha *
//! tmp[i] + beta * y[i]` reads the `y[i]` its loop stored), a loop that updates an
//! element in memory carries the value it stored in a header phi, starting from the
//! value stored before the loop (trisolv's `x[i] = b[i]; for j < i: x[i] -= L[i][j] *
//! x[j]`), and a phi after a loop that may not run merges the two (`x[i] /= L[i][i]`).
//! As scalars, these phis are written by every iteration of the loop nest and no loop
//! around them can be reordered. Here each is modelled as a read of the element where
//! it is used; its writes go (the stores already write the element), and so do the
//! reads of other scalars that only fed them.
//!
//! The mapping is exact when the phi's value is the element's contents where it is
//! used: every incoming value is the element's at the end of its incoming block (the
//! block stores it there and its statement writes the array nowhere else; or it is
//! such a phi of that block; or the block writes nothing of the array and its one
//! predecessor ends with the value in the element), the element is the same in every
//! iteration of a loop the phi heads, and the phi's other users are in its own block,
//! before its statement writes the array, or phis of the same kind. Code generation
//! loads the element where the statement uses the value (`codegen::emit`'s promoted
//! homes).
//!
//! Relies on: the accesses of `access` (scalars as zero-dimensional arrays with their
//! SSA value, memory accesses with their instruction) after `promoted`'s chains (their
//! phis are no longer scalars).

use std::collections::HashSet;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::values::{AsValueRef, InstructionOpcode, InstructionValue};

use super::access::{Access, Accesses};
use super::control::BlockConditions;
use super::promoted::{PromotedWrite, Promotion};
use super::translate::Translator;
use crate::llvm::ir::{
    accessed_value, as_instruction, phi_incoming, pointer_operand, predecessors, users,
};
use crate::model::spec::AccessKind;

/// How many blocks back an incoming value's element is looked for.
const MAX_STEPS: usize = 4;

/// Each promotion made, with the statements that write it (none: the stores are the
/// program's own).
type Made<'f> = Vec<(Promotion, Vec<(BasicBlock<'f>, PromotedWrite)>)>;

/// The phis among the region's scalars whose value an element holds, each turned into
/// a read of the element; the scalar accesses that only fed them go.
pub fn to_memory<'f>(
    tr: &Translator<'_, 'f>,
    conditions: &BlockConditions<'f>,
    accesses: &mut Accesses<'f>,
) -> Made<'f> {
    let search = Search {
        tr,
        conditions,
        accesses,
    };
    let found = search.phis_in_elements();
    if found.is_empty() {
        return Vec::new();
    }
    let fed = search.only_feeding(&found);
    // The elements first: the accesses' indices change below.
    let elements: Vec<(LLVMValueRef, usize, Access<'f>)> = found
        .iter()
        .map(|f| (f.phi, f.array, accesses.accesses[f.home].clone()))
        .collect();
    accesses
        .accesses
        .retain(|x| !fed.contains(&(x.array, x.block, x.kind == AccessKind::Read)));
    let mut out = Vec::new();
    for (phi, array, element) in elements {
        let Some(pointer) = element.inst.and_then(pointer_operand) else {
            continue;
        };
        accesses
            .accesses
            .retain(|x| x.array != array || x.kind == AccessKind::Read);
        for access in accesses.accesses.iter_mut().filter(|x| x.array == array) {
            access.array = element.array;
            access.subscripts = element.subscripts.clone();
            access.assumed = element.assumed.clone();
            access.in_bounds = element.in_bounds.clone();
            access.text = format!("{} (stored to memory, read from it)", access.text);
        }
        let array = match accesses.arrays[element.array].base {
            Some(base) => crate::llvm::source_terms::describe_value(tr.fa(), base),
            None => accesses.arrays[element.array].name.clone(),
        };
        out.push((
            Promotion {
                values: vec![phi],
                pointer,
                array,
            },
            Vec::new(),
        ));
    }
    accesses.dedupe();
    accesses.drop_unused_arrays();
    out
}

/// A scalar phi an element holds.
#[derive(Clone, Copy)]
struct Found {
    phi: LLVMValueRef,
    /// Its scalar array.
    array: usize,
    /// The element's store access.
    home: usize,
}

/// The phi's entry in `found`.
fn find(found: &[Found], phi: LLVMValueRef) -> Option<&Found> {
    found.iter().find(|f| f.phi == phi)
}

struct Search<'a, 't, 'f> {
    tr: &'a Translator<'t, 'f>,
    conditions: &'a BlockConditions<'f>,
    accesses: &'a Accesses<'f>,
}

impl<'f> Search<'_, '_, 'f> {
    fn stmt(&self, b: BasicBlock<'f>) -> BasicBlock<'f> {
        self.conditions.statement_block(b)
    }

    /// The scalar phis an element holds, in the order of their arrays, the users of
    /// each checked.
    fn phis_in_elements(&self) -> Vec<Found> {
        let mut found = Vec::new();
        for (a, array) in self.accesses.arrays.iter().enumerate() {
            let Some(phi) = array.value.and_then(as_instruction) else {
                continue;
            };
            if !array.is_scalar || phi.get_opcode() != InstructionOpcode::Phi {
                continue;
            }
            if let Some(home) = self.phi_element(phi, &mut HashSet::new()) {
                found.push(Found {
                    phi: phi.as_value_ref(),
                    array: a,
                    home,
                });
            }
        }
        // A phi whose users need it as a scalar stays one; so, in turn, do the
        // phis it feeds.
        loop {
            let kept: Vec<LLVMValueRef> = found
                .iter()
                .filter(|f| !self.users_read_element(f.phi, f.home, &found))
                .map(|f| f.phi)
                .collect();
            if kept.is_empty() {
                return found;
            }
            found.retain(|f| !kept.contains(&f.phi));
        }
    }

    /// The element (a store access) whose contents `phi` always has, if it has.
    fn phi_element(
        &self,
        phi: InstructionValue<'f>,
        visiting: &mut HashSet<LLVMValueRef>,
    ) -> Option<usize> {
        if !visiting.insert(phi.as_value_ref()) {
            return None;
        }
        let block = phi.get_parent()?;
        let mut home: Option<usize> = None;
        for (value, from) in phi_incoming(phi) {
            let h = self.element_at_end(value, from, visiting, 0)?;
            match home {
                Some(x) if !same(&self.accesses.accesses[x], &self.accesses.accesses[h]) => {
                    return None
                }
                _ => home = Some(h),
            }
        }
        let home = home?;
        // The same element wherever the phi is: no counter of a loop the phi heads
        // (its next iteration) or of a deeper one.
        let (fa, shape) = (self.tr.fa(), self.tr.shape());
        let mut depth = shape.loops_around(fa, block).len();
        if fa
            .loop_for_block(block)
            .is_some_and(|l| l.header() == block)
        {
            depth = depth.checked_sub(1)?;
        }
        let x = &self.accesses.accesses[home];
        let invariant = x.extent.is_none()
            && x.subscripts
                .iter()
                .all(|s| s.max_counter().is_none_or(|c| c < depth));
        visiting.remove(&phi.as_value_ref());
        invariant.then_some(home)
    }

    /// The element whose contents are `value` at the end of `block`, if one is.
    fn element_at_end(
        &self,
        value: LLVMValueRef,
        block: BasicBlock<'f>,
        visiting: &mut HashSet<LLVMValueRef>,
        steps: usize,
    ) -> Option<usize> {
        if steps > MAX_STEPS || !self.tr.shape().contains_block(block) {
            return None;
        }
        let statement = self.stmt(block);
        let stored = block.get_instructions().find(|i| {
            i.get_opcode() == InstructionOpcode::Store && accessed_value(*i) == Some(value)
        });
        if let Some(store) = stored {
            let home = self.access_of(store)?;
            return (!self.writes_elsewhere(statement, home, Some(store))).then_some(home);
        }
        let home = match as_instruction(value) {
            Some(phi)
                if phi.get_opcode() == InstructionOpcode::Phi
                    && phi.get_parent() == Some(block) =>
            {
                self.phi_element(phi, visiting)?
            }
            _ => {
                let [pred] = predecessors(block)[..] else {
                    return None;
                };
                self.element_at_end(value, pred, visiting, steps + 1)?
            }
        };
        (!self.writes_elsewhere(statement, home, None)).then_some(home)
    }

    /// The store access of `store` (a must-write of one element).
    fn access_of(&self, store: InstructionValue<'f>) -> Option<usize> {
        self.accesses.accesses.iter().position(|x| {
            x.inst == Some(store) && x.kind == AccessKind::MustWrite && x.extent.is_none()
        })
    }

    /// Whether `statement` writes the array of `home` other than by `store`.
    fn writes_elsewhere(
        &self,
        statement: BasicBlock<'f>,
        home: usize,
        store: Option<InstructionValue<'f>>,
    ) -> bool {
        let array = self.accesses.accesses[home].array;
        self.accesses.accesses.iter().any(|x| {
            x.array == array && x.block == statement && x.kind != AccessKind::Read && {
                store.is_none() || x.inst != store
            }
        })
    }

    /// Whether every user of `phi` can read the element `home` instead: an
    /// instruction of the phi's own block before its statement writes the array
    /// (a store after the use only), or a phi of the same element.
    fn users_read_element(&self, phi: LLVMValueRef, home: usize, found: &[Found]) -> bool {
        let Some(inst) = as_instruction(phi) else {
            return false;
        };
        let Some(block) = inst.get_parent() else {
            return false;
        };
        let array = self.accesses.accesses[home].array;
        let statement = self.stmt(block);
        let ours = |x: &&Access<'f>| {
            x.array == array && x.block == statement && x.kind != AccessKind::Read
        };
        let writes: Vec<&Access<'f>> = self.accesses.accesses.iter().filter(ours).collect();
        users(&inst).iter().all(|user| {
            if user.get_opcode() == InstructionOpcode::Phi {
                return find(found, user.as_value_ref()).is_some_and(|f| {
                    same(
                        &self.accesses.accesses[f.home],
                        &self.accesses.accesses[home],
                    )
                });
            }
            user.get_parent() == Some(block)
                && writes.iter().all(|w| {
                    w.inst
                        .is_some_and(|st| st.get_parent() == Some(block) && comes_before(*user, st))
                })
        })
    }

    /// The scalar reads and writes that only fed the phis `found` (as their incoming
    /// values), as (array, statement, is a read): a statement whose block hands a
    /// value to such a phi and uses it nowhere else no longer reads it; a value whose
    /// only users outside its statement are such phis is no longer written.
    fn only_feeding(&self, found: &[Found]) -> HashSet<(usize, BasicBlock<'f>, bool)> {
        let mut fed = HashSet::new();
        for (a, array) in self.accesses.arrays.iter().enumerate() {
            let Some(value) = array.value else {
                continue;
            };
            if !array.is_scalar || find(found, value).is_some() {
                continue;
            }
            let Some(def) = as_instruction(value).and_then(|i| i.get_parent()) else {
                continue;
            };
            let home = self.stmt(def);
            let uses = users(&basic(value));
            let feeds = |u: &InstructionValue<'f>| {
                u.get_opcode() == InstructionOpcode::Phi && find(found, u.as_value_ref()).is_some()
            };
            for x in self.accesses.accesses.iter().filter(|x| x.array == a) {
                let needed = if x.kind == AccessKind::Read {
                    uses.iter().any(|u| {
                        !feeds(u) && u.get_parent().map(|b| self.stmt(b)) == Some(x.block)
                            || u.get_opcode() == InstructionOpcode::Phi
                                && !feeds(u)
                                && phi_incoming(*u)
                                    .iter()
                                    .any(|(v, from)| *v == value && self.stmt(*from) == x.block)
                    })
                } else {
                    x.block != home
                        || uses.iter().any(|u| {
                            !feeds(u) && u.get_parent().map(|b| self.stmt(b)) != Some(home)
                        })
                };
                if !needed {
                    fed.insert((a, x.block, x.kind == AccessKind::Read));
                }
            }
        }
        fed
    }
}

fn basic<'f>(value: LLVMValueRef) -> inkwell::values::BasicValueEnum<'f> {
    crate::llvm::ir::basic_value(value)
}

/// Whether two accesses are to the same element (not a range).
fn same(x: &Access<'_>, y: &Access<'_>) -> bool {
    x.array == y.array && x.subscripts == y.subscripts && x.extent.is_none()
}

/// Whether `a` comes before `b` in the block they share.
fn comes_before(a: InstructionValue<'_>, b: InstructionValue<'_>) -> bool {
    if a.get_parent() != b.get_parent() || a == b {
        return false;
    }
    let mut current = a.get_next_instruction();
    while let Some(inst) = current {
        if inst == b {
            return true;
        }
        current = inst.get_next_instruction();
    }
    false
}
