//! Assembles what the other detection steps found into a `ScopSpec`: one statement per
//! block with accesses, its domain (loop bounds and block condition), textual
//! positions, access relations and assumptions, in isl notation.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;

use super::access::{Access, Accesses, Array};
use super::affine::{Affine, CmpOp, Cond, Names};
use super::control::{BlockConditions, LoopBounds};
use super::region::RegionShape;
use super::translate::{Assumed, Param};
use crate::llvm::{AliasResult, FunctionAnalyses, Loop};
use crate::model::spec::{
    AccessSpec, ArraySpec, Assumption, AssumptionKind, ScopSpec, StatementSpec,
};

pub struct Inputs<'a, 'f> {
    pub fa: &'a FunctionAnalyses<'f>,
    pub shape: &'a RegionShape<'f>,
    pub params: &'a [Param<'f>],
    pub bounds: &'a [(Loop<'f>, LoopBounds)],
    pub conditions: &'a BlockConditions<'f>,
    pub accesses: &'a Accesses<'f>,
}

/// What every statement of the spec is written with: the parameters' names, the
/// `[params] -> ` prefix of each isl set, and the loop bounds by loop.
struct Spelling<'a, 'f> {
    param_names: Vec<String>,
    prefix: String,
    bounds: HashMap<Loop<'f>, &'a LoopBounds>,
}

/// One statement being written: its name, counters and isl tuple.
struct StatementText<'a> {
    name: String,
    tuple: String,
    names: Names<'a>,
}

/// The region's `ScopSpec`, and the block of each of its statements, in order.
pub fn scop_spec<'f>(inputs: &Inputs<'_, 'f>) -> (ScopSpec, Vec<BasicBlock<'f>>) {
    let fa = inputs.fa;
    let function = fa.function().get_name().to_string_lossy().into_owned();
    let param_names: Vec<String> = inputs.params.iter().map(|p| p.name.clone()).collect();
    let spelling = Spelling {
        prefix: format!("[{}] -> ", param_names.join(", ")),
        param_names,
        bounds: inputs.bounds.iter().map(|(l, b)| (*l, b)).collect(),
    };
    let reduction_of = super::reduction::find(inputs.accesses);
    let by_block = accesses_by_statement(inputs.accesses);
    let mut statements = Vec::new();
    let mut assumptions = Vec::new();
    for (k, (block, indices)) in by_block.iter().enumerate() {
        let mut statement = statement_spec(inputs, &spelling, k, *block, indices, &mut assumptions);
        statement.reductions = reduction_of
            .get(block)
            .map(|arrays| {
                arrays
                    .iter()
                    .map(|a| inputs.accesses.arrays[*a].name.clone())
                    .collect()
            })
            .unwrap_or_default();
        statements.push(statement);
    }
    let statement_blocks = by_block.iter().map(|(b, _)| *b).collect();
    let spec = ScopSpec {
        name: format!(
            "{function}:{}",
            fa.block_name(inputs.shape.entry).trim_start_matches('%')
        ),
        function,
        location: inputs.shape.top.first().and_then(|l| fa.loop_location(*l)),
        context: context(inputs.params, &spelling.prefix),
        assumptions,
        arrays: array_specs(inputs.accesses, &spelling.param_names),
        params: spelling.param_names,
        statements,
        alias_groups: alias_groups(fa, inputs.accesses),
    };
    (spec, statement_blocks)
}

/// The accesses of each statement (by its block, in order of first access).
fn accesses_by_statement<'f>(accesses: &Accesses<'f>) -> Vec<(BasicBlock<'f>, Vec<usize>)> {
    let mut by_block: Vec<(BasicBlock<'f>, Vec<usize>)> = Vec::new();
    for (i, access) in accesses.accesses.iter().enumerate() {
        match by_block.iter_mut().find(|(b, _)| *b == access.block) {
            Some((_, list)) => list.push(i),
            None => by_block.push((access.block, vec![i])),
        }
    }
    by_block
}

/// Statement `S{k}` of `block` with the accesses `indices`; the assumptions it makes
/// are added to `assumptions` (each once). Its reductions are left empty.
fn statement_spec<'f>(
    inputs: &Inputs<'_, 'f>,
    spelling: &Spelling<'_, 'f>,
    k: usize,
    block: BasicBlock<'f>,
    indices: &[usize],
    assumptions: &mut Vec<Assumption>,
) -> StatementSpec {
    let fa = inputs.fa;
    let name = format!("S{k}");
    let loops = inputs.shape.loops_around(fa, block);
    let counters: Vec<String> = (0..loops.len()).map(|d| format!("i{d}")).collect();
    let text = StatementText {
        tuple: format!("{name}[{}]", counters.join(", ")),
        name,
        names: Names {
            counters: &counters,
            params: &spelling.param_names,
        },
    };
    let (mut domain, mut assumed) = loop_domain(spelling, &loops);
    domain = domain.and(
        inputs
            .conditions
            .conds
            .get(&block)
            .cloned()
            .unwrap_or(Cond::True),
    );
    condition_assumptions(inputs.conditions, spelling, &text, block, assumptions);
    let mut access_specs = Vec::new();
    for i in indices {
        let access = &inputs.accesses.accesses[*i];
        let array = &inputs.accesses.arrays[access.array];
        let subs: Vec<String> = access
            .subscripts
            .iter()
            .map(|s| s.to_isl(&text.names))
            .collect();
        access_specs.push(AccessSpec {
            kind: access.kind,
            array: array.name.clone(),
            relation: relation(spelling, &text, access, array, &subs),
            instruction: access.text.clone(),
            location: access.inst.and_then(|i| fa.instruction_location(i)),
        });
        assumed.extend(access_assumptions(fa, &text, access, array, &subs));
    }
    for (kind, a) in assumed {
        push_once(
            assumptions,
            Assumption {
                kind,
                set: format!(
                    "{}{{ {} : {} }}",
                    spelling.prefix,
                    text.tuple,
                    a.cond.to_isl(&text.names)
                ),
                statement: Some(text.name.clone()),
                reason: a.reason,
            },
        );
    }
    StatementSpec {
        name: text.name.clone(),
        block: fa.block_name(block),
        domain: format!(
            "{}{{ {} : {} }}",
            spelling.prefix,
            text.tuple,
            domain.to_isl(&text.names)
        ),
        textual_positions: inputs.shape.textual_positions(fa, block),
        accesses: access_specs,
        reductions: Vec::new(),
    }
}

/// The assumptions of the condition of `block`. They involve only parameters (see
/// `block_conditions`): checked as such, not on the domain the condition itself shapes.
fn condition_assumptions(
    conditions: &BlockConditions<'_>,
    spelling: &Spelling<'_, '_>,
    text: &StatementText<'_>,
    block: BasicBlock<'_>,
    assumptions: &mut Vec<Assumption>,
) {
    for a in conditions.assumed.get(&block).into_iter().flatten() {
        push_once(
            assumptions,
            Assumption {
                kind: AssumptionKind::NoWrap,
                set: format!("{}{{ : {} }}", spelling.prefix, a.cond.to_isl(&text.names)),
                statement: None,
                reason: a.reason.clone(),
            },
        );
    }
}

fn push_once(assumptions: &mut Vec<Assumption>, assumption: Assumption) {
    if !assumptions.contains(&assumption) {
        assumptions.push(assumption);
    }
}

/// The bounds of the counters of `loops`, with what their translation assumed.
fn loop_domain(
    spelling: &Spelling<'_, '_>,
    loops: &[Loop<'_>],
) -> (Cond, Vec<(AssumptionKind, Assumed)>) {
    let mut domain = Cond::True;
    let mut assumed = Vec::new();
    for l in loops {
        if let Some(b) = spelling.bounds.get(l) {
            let counter = Affine::counter(b.depth);
            domain = domain
                .and(Cond::Cmp(counter.clone(), CmpOp::Ge, Affine::constant(0)))
                .and(Cond::Cmp(counter, CmpOp::Le, b.upper.clone()));
            assumed.extend(
                b.assumed
                    .iter()
                    .cloned()
                    .map(|a| (AssumptionKind::NoWrap, a)),
            );
        }
    }
    (domain, assumed)
}

/// The access relation of `access`, whose subscripts are `subs` in isl notation.
fn relation(
    spelling: &Spelling<'_, '_>,
    text: &StatementText<'_>,
    access: &Access<'_>,
    array: &Array,
    subs: &[String],
) -> String {
    let (prefix, tuple, names) = (&spelling.prefix, &text.tuple, &text.names);
    match (&access.extent, subs.split_last()) {
        // Whole rows: every element of `rows` rows from the subscript's row on.
        (Some(extent), Some((_, [.., row]))) if let Some(rows) = &access.rows => {
            let mut dims: Vec<String> = subs[..subs.len() - 2].to_vec();
            dims.push("r".into());
            dims.push("o".into());
            format!(
                "{prefix}{{ {tuple} -> {}[{}] : {row} <= r < {row} + {} and 0 <= o < {} }}",
                array.name,
                dims.join(", "),
                rows.to_isl(names),
                extent.to_isl(names)
            )
        }
        // A memcpy/memset range: every element of the innermost dimension from
        // the subscript on.
        (Some(extent), Some((start, outer))) => {
            let mut dims: Vec<String> = outer.to_vec();
            dims.push("o".into());
            format!(
                "{prefix}{{ {tuple} -> {}[{}] : {start} <= o < {start} + {} }}",
                array.name,
                dims.join(", "),
                extent.to_isl(names)
            )
        }
        _ => format!(
            "{prefix}{{ {tuple} -> {}[{}] }}",
            array.name,
            subs.join(", ")
        ),
    }
}

/// What `access` assumes: that its subscripts do not wrap, and that they lie in
/// their dimensions.
fn access_assumptions(
    fa: &FunctionAnalyses<'_>,
    text: &StatementText<'_>,
    access: &Access<'_>,
    array: &Array,
    subs: &[String],
) -> Vec<(AssumptionKind, Assumed)> {
    let mut assumed: Vec<(AssumptionKind, Assumed)> = access
        .assumed
        .iter()
        .cloned()
        .map(|a| (AssumptionKind::NoWrap, a))
        .collect();
    // Named down to the subscript and the source line, so that an assumption
    // that fails (or makes a region useless) points at the access behind it.
    let location = access
        .inst
        .and_then(|i| fa.instruction_location(i))
        .map(|l| format!(" at {l}"))
        .unwrap_or_default();
    for b in &access.in_bounds {
        let subscript = subs.get(b.dimension).map(String::as_str).unwrap_or("?");
        let size = b.size.to_isl(&text.names);
        let what = if b.range_end {
            format!("range from {subscript} ends by {size}")
        } else {
            format!("0 <= {subscript} < {size}")
        };
        assumed.push((
            AssumptionKind::InBounds,
            Assumed {
                cond: b.cond.clone(),
                reason: format!(
                    "subscript of {} within its dimension: {what} in {}[{}]{location}",
                    array.name,
                    array.name,
                    subs.join(", ")
                ),
            },
        ));
    }
    assumed
}

/// The parameters' context: each lies in the range of its type.
fn context(params: &[Param<'_>], prefix: &str) -> String {
    let context = params
        .iter()
        .map(|p| {
            let bits = p.bits.clamp(1, 127);
            format!(
                "{} <= {} <= {}",
                -(1i128 << (bits - 1)),
                p.name,
                (1i128 << (bits - 1)) - 1
            )
        })
        .collect::<Vec<_>>();
    if context.is_empty() {
        format!("{prefix}{{ : }}")
    } else {
        format!("{prefix}{{ : {} }}", context.join(" and "))
    }
}

fn array_specs(accesses: &Accesses<'_>, param_names: &[String]) -> Vec<ArraySpec> {
    accesses
        .arrays
        .iter()
        .map(|a| ArraySpec {
            name: a.name.clone(),
            element_type: a.element_type.clone(),
            element_size: a.element_size as u32,
            inner_sizes: a
                .inner_sizes
                .iter()
                .map(|s| {
                    s.to_isl(&Names {
                        counters: &[],
                        params: param_names,
                    })
                })
                .collect(),
            is_scalar: a.is_scalar,
        })
        .collect()
}

/// Arrays that may overlap, one of them written: each group needs a run-time check.
fn alias_groups(fa: &FunctionAnalyses<'_>, accesses: &Accesses<'_>) -> Vec<Vec<String>> {
    let arrays: Vec<_> = accesses
        .arrays
        .iter()
        .filter(|a| a.base.is_some())
        .collect();
    let mut group: Vec<usize> = (0..arrays.len()).collect();
    fn find(group: &mut [usize], i: usize) -> usize {
        let mut r = i;
        while group[r] != r {
            r = group[r];
        }
        group[i] = r;
        r
    }
    for i in 0..arrays.len() {
        for j in i + 1..arrays.len() {
            if !(arrays[i].written || arrays[j].written) {
                continue;
            }
            let (Some(a), Some(b)) = (arrays[i].base, arrays[j].base) else {
                continue;
            };
            let (va, vb) = (
                crate::llvm::ir::basic_value(a),
                crate::llvm::ir::basic_value(b),
            );
            if fa.alias(&va, None, &vb, None) != AliasResult::NoAlias {
                let (ri, rj) = (find(&mut group, i), find(&mut group, j));
                group[ri] = rj;
            }
        }
    }
    let mut groups: Vec<Vec<String>> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for (i, array) in arrays.iter().enumerate() {
        let r = find(&mut group, i);
        match roots.iter().position(|x| *x == r) {
            Some(k) => groups[k].push(array.name.clone()),
            None => {
                roots.push(r);
                groups.push(vec![array.name.clone()]);
            }
        }
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Loads used as parameters were proven invariant (no write of the region may alias
/// them); the proof is recorded so the model and the printers show what it rests on.
pub fn record_invariant_loads<'f>(
    fa: &FunctionAnalyses<'f>,
    spec: &mut ScopSpec,
    loads: &[inkwell::values::InstructionValue<'f>],
) {
    let prefix = format!("[{}] -> ", spec.params.join(", "));
    for load in loads {
        let assumption = Assumption {
            kind: AssumptionKind::InvariantLoad,
            set: format!("{prefix}{{ : }}"),
            statement: None,
            reason: format!(
                "{} is loaded once: no write of the region may alias it",
                fa.operand_name(load)
            ),
        };
        if !spec.assumptions.contains(&assumption) {
            spec.assumptions.push(assumption);
        }
    }
}
