//! `Scop::build`: turns the strings of a `ScopSpec` into isl objects and checks that they
//! fit together.
//!
//! Input: a `ScopSpec` from detection (every set and map an isl string over
//! `spec.params`) and an `IslCtx` (call `start_region` on it first; everything here runs
//! under its operation bound). Output: a `Scop` whose objects all have exactly the
//! region's parameters, in `spec.params` order, and whose schedule reproduces program
//! order. Any string that does not parse or does not fit (wrong tuple name or arity,
//! unknown parameter or array, positions that do not form a loop tree) is a `ModelError`
//! naming the field and the text; nothing panics.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use crate::isl::{parse_map, parse_set, IslCtx, IslError, Map, Schedule, Set, UnionMap, UnionSet};

use super::error::ModelError;
use super::original_schedule;
use super::scop::{
    assumption_kind_name, is_isl_identifier, iterator_list, Access, AliasGroup, Array, Scop,
    ScopAssumption, Statement,
};
use super::spec::{AccessKind, ScopSpec};

impl Scop {
    /// Builds the model of `spec` in `ctx`. See the module documentation for what is
    /// checked.
    pub fn build(ctx: &IslCtx, spec: &ScopSpec) -> Result<Scop, ModelError> {
        let builder = Builder::new(ctx, spec)?;
        let scop = builder.build()?;
        scop.report_never_holding();
        Ok(scop)
    }
}

/// The parameter values (within `universe`, the parameter space) for which `set` holds
/// on the whole of `domain`: those where `domain - set` is empty. Not coalesced: the
/// assumed context is, once, after every statement's condition is in (coalescing each
/// took a third of the model's time on NPB's LU).
pub(super) fn holds_on_domain(universe: &Set, domain: &Set, set: Set) -> Result<Set, IslError> {
    let violated = domain.copy()?.subtract(set)?.params()?;
    universe.copy()?.subtract(violated)
}

/// `text` with only the parameters its body names: isl's reader takes about three
/// times as long for a map over NPB's 14 parameters as for one over none, and most
/// subscripts name none. The caller aligns the result to the region's parameters, so
/// the object is the same. Text of another shape is returned as it is.
fn used_params_only(text: &str) -> Cow<'_, str> {
    let Some((list, body)) = text
        .trim_start()
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
    else {
        return Cow::Borrowed(text);
    };
    let Some(body) = body.trim_start().strip_prefix("->") else {
        return Cow::Borrowed(text);
    };
    let named: HashSet<&str> = body
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| !word.is_empty())
        .collect();
    let params: Vec<&str> = list.split(',').map(str::trim).collect();
    let used: Vec<&str> = params
        .iter()
        .copied()
        .filter(|p| named.contains(p))
        .collect();
    if used.len() == params.len() {
        return Cow::Borrowed(text);
    }
    Cow::Owned(format!("[{}] ->{body}", used.join(", ")))
}

/// One isl set text for the conjunction of `texts`, sets of one shape
/// (`[params] -> { S0[i0, i1] : constraints }`, or `{ : constraints }` over the
/// parameters): the same parameters and tuple, each one disjunct without existential
/// variables. `None` when they are not all of that shape.
fn conjunction(texts: &[&str]) -> Option<String> {
    let mut head: Option<(&str, &str)> = None;
    let mut constraints = Vec::with_capacity(texts.len());
    for text in texts {
        let (params, body) = text.trim().split_once('{')?;
        let body = body.strip_suffix('}')?;
        let (tuple, condition) = match body.split_once(':') {
            Some((tuple, condition)) => (tuple.trim(), condition.trim()),
            None => (body.trim(), ""),
        };
        let simple = |s: &str| !s.contains(['{', '}', ';', ':']) && !s.contains("exists");
        if !simple(tuple) || !simple(condition) {
            return None;
        }
        match head {
            None => head = Some((params.trim(), tuple)),
            Some(h) if h == (params.trim(), tuple) => {}
            Some(_) => return None,
        }
        if !condition.is_empty() {
            constraints.push(format!("({condition})"));
        }
    }
    let (params, tuple) = head?;
    let tuple = if tuple.is_empty() {
        String::new()
    } else {
        format!("{tuple} ")
    };
    if constraints.is_empty() {
        return Some(format!("{params} {{ {tuple}}}"));
    }
    Some(format!(
        "{params} {{ {tuple}: {} }}",
        constraints.join(" and ")
    ))
}

/// The state shared while building one region: the spec, the context and the parameter
/// set every object is aligned to.
struct Builder<'a> {
    ctx: &'a IslCtx,
    spec: &'a ScopSpec,
    /// The universe parameter set `[params] -> { : }`, the model for alignment.
    params: Set,
}

impl<'a> Builder<'a> {
    fn new(ctx: &'a IslCtx, spec: &'a ScopSpec) -> Result<Builder<'a>, ModelError> {
        let shown = format!("[{}]", spec.params.join(", "));
        let invalid = |problem: String| ModelError::Invalid {
            region: spec.name.clone(),
            field: "parameters".into(),
            text: shown.clone(),
            problem,
        };
        let mut seen = HashSet::new();
        for name in &spec.params {
            if !is_isl_identifier(name) {
                return Err(invalid(format!(
                    "parameter '{name}' is not an isl identifier (letters, digits, '_', not \
                     starting with a digit)"
                )));
            }
            if !seen.insert(name.as_str()) {
                return Err(invalid(format!("parameter '{name}' is listed twice")));
            }
        }
        let text = format!("{shown} -> {{ : }}");
        let params = parse_set(ctx, &text, "parameter list").map_err(|error| ModelError::Isl {
            region: spec.name.clone(),
            field: "parameters".into(),
            error,
        })?;
        let names = params.param_names().map_err(|error| ModelError::Isl {
            region: spec.name.clone(),
            field: "parameters".into(),
            error,
        })?;
        if names != spec.params {
            return Err(invalid(format!(
                "isl reads these names as {names:?}; parameters must be distinct isl \
                 identifiers (letters, digits, '_', not starting with a digit)"
            )));
        }
        Ok(Builder { ctx, spec, params })
    }

    fn isl_error(&self, field: &str) -> impl Fn(IslError) -> ModelError + '_ {
        let field = field.to_string();
        move |error| ModelError::Isl {
            region: self.spec.name.clone(),
            field: field.clone(),
            error,
        }
    }

    fn invalid(&self, field: &str, text: &str, problem: impl Into<String>) -> ModelError {
        ModelError::Invalid {
            region: self.spec.name.clone(),
            field: field.to_string(),
            text: text.to_string(),
            problem: problem.into(),
        }
    }

    /// Checks that `names` are parameters of the region.
    fn check_params(&self, names: &[String], field: &str, text: &str) -> Result<(), ModelError> {
        for name in names {
            if !self.spec.params.contains(name) {
                return Err(self.invalid(
                    field,
                    text,
                    format!(
                        "uses parameter '{name}', which is not a parameter of the region \
                         (parameters: [{}])",
                        self.spec.params.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Parses a set, checks its parameters and aligns them to the region's.
    fn set(&self, text: &str, field: &str) -> Result<Set, ModelError> {
        // A text that does not read is read again as given, for the error to quote it.
        let set = parse_set(self.ctx, &used_params_only(text), field)
            .or_else(|_| parse_set(self.ctx, text, field))
            .map_err(self.isl_error(field))?;
        let names = set.param_names().map_err(self.isl_error(field))?;
        self.check_params(&names, field, text)?;
        set.align_params(&self.params)
            .map_err(self.isl_error(field))
    }

    /// Parses a map, checks its parameters and aligns them to the region's.
    fn map(&self, text: &str, field: &str) -> Result<Map, ModelError> {
        let map = parse_map(self.ctx, &used_params_only(text), field)
            .or_else(|_| parse_map(self.ctx, text, field))
            .map_err(self.isl_error(field))?;
        let names = map.param_names().map_err(self.isl_error(field))?;
        self.check_params(&names, field, text)?;
        map.align_params(&self.params)
            .map_err(self.isl_error(field))
    }

    /// A set over the parameters only (context, assumption).
    fn params_set(&self, text: &str, field: &str) -> Result<Set, ModelError> {
        let set = self.set(text, field)?;
        if !set.is_params().map_err(self.isl_error(field))? {
            return Err(self.invalid(
                field,
                text,
                "expected a set over the parameters only, like '[n] -> { : n > 0 }'",
            ));
        }
        Ok(set)
    }

    fn build(self) -> Result<Scop, ModelError> {
        let spec = self.spec;
        let context = self.params_set(&spec.context, "context")?;
        let arrays = self.arrays()?;
        let alias_groups = self.alias_groups(&arrays)?;
        let statements = self.statements(&arrays)?;
        let schedule = self.original_schedule(&statements)?;
        let (assumptions, assumed_context) = self.assumptions(&context, &statements)?;
        let (domains, reads, must_writes, may_writes) = self.unions(&statements)?;
        Ok(Scop {
            name: spec.name.clone(),
            function: spec.function.clone(),
            location: spec.location.clone(),
            params: spec.params.clone(),
            context,
            assumed_context,
            assumptions,
            arrays,
            alias_groups,
            statements,
            domains,
            schedule,
            reads,
            must_writes,
            may_writes,
            conditions: std::iter::repeat_with(Default::default)
                .take(spec.assumptions.len())
                .collect(),
        })
    }

    fn assumptions(
        &self,
        context: &Set,
        statements: &[Statement],
    ) -> Result<(Vec<ScopAssumption>, Set), ModelError> {
        let field = "assumed context";
        let mut assumptions: Vec<ScopAssumption> = Vec::with_capacity(self.spec.assumptions.len());
        // Detection states the same assumption once per access (a subscript of `u` in
        // bounds, for each of 20 reads): each distinct one is read once.
        let mut seen: HashMap<(Option<&str>, &str), usize> = HashMap::new();
        // The distinct assumptions (their indices in the spec) per statement, `None` for
        // those over the parameters, in order of first appearance.
        let mut groups: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
        for (k, assumption) in self.spec.assumptions.iter().enumerate() {
            let owner = assumption.statement.as_deref();
            let key = (owner, assumption.set.as_str());
            let repeats = seen.get(&key).copied();
            if repeats.is_none() {
                seen.insert(key, assumptions.len());
                match groups.iter_mut().find(|(o, _)| *o == owner) {
                    Some((_, members)) => members.push(k),
                    None => groups.push((owner, vec![k])),
                }
            }
            assumptions.push(ScopAssumption {
                kind: assumption.kind,
                statement: assumption.statement.clone(),
                text: assumption.set.clone(),
                set: Default::default(),
                reason: assumption.reason.clone(),
                repeats,
            });
        }
        // Per statement, the parameter values for which all its assumptions hold on its
        // whole domain, computed once (what each one alone requires is asked only to
        // explain a refusal).
        let mut assumed = context.copy().map_err(self.isl_error(field))?;
        for (owner, members) in groups {
            let all = self.assumption_group(owner, &members, statements)?;
            let condition = match owner.and_then(|name| statements.iter().find(|s| s.name == name))
            {
                Some(statement) => holds_on_domain(&self.params, &statement.domain, all),
                None => Ok(all),
            }
            .map_err(self.isl_error(field))?;
            assumed = assumed
                .intersect(condition)
                .map_err(self.isl_error(field))?;
        }
        let assumed = assumed.coalesce().map_err(self.isl_error(field))?;
        Ok((assumptions, assumed))
    }

    /// The conjunction of the assumptions `members` (indices in the spec) over the
    /// statement `owner` (`None`: over the parameters), checked. Read as one set where
    /// their texts allow it: isl's reader costs a tenth of a millisecond or more per
    /// set on regions with many parameters, and NPB's regions state thousands of
    /// assumptions. Otherwise, or when that set does not read, one by one, so that an
    /// error names the assumption at fault.
    fn assumption_group(
        &self,
        owner: Option<&str>,
        members: &[usize],
        statements: &[Statement],
    ) -> Result<Set, ModelError> {
        let checked = |text: &str, field: &str| match owner {
            None => self.params_set(text, field),
            Some(statement) => self.statement_assumption(text, statement, statements, field),
        };
        let texts: Vec<&str> = members
            .iter()
            .map(|k| self.spec.assumptions[*k].set.as_str())
            .collect();
        if members.len() > 1 {
            if let Some(all) = conjunction(&texts) {
                if let Ok(set) = checked(&all, "assumptions") {
                    return Ok(set);
                }
            }
        }
        let mut all: Option<Set> = None;
        for (k, text) in members.iter().zip(&texts) {
            let kind = assumption_kind_name(self.spec.assumptions[*k].kind);
            let name = format!("assumption {k} ({kind})");
            let set = checked(text, &name)?;
            all = Some(match all {
                None => set,
                Some(all) => all.intersect(set).map_err(self.isl_error(&name))?,
            });
        }
        all.ok_or_else(|| self.invalid("assumptions", "", "an empty group of assumptions"))
    }

    /// An assumption's set over a statement's iteration space, checked to be one.
    fn statement_assumption(
        &self,
        text: &str,
        statement: &str,
        statements: &[Statement],
        field: &str,
    ) -> Result<Set, ModelError> {
        let Some(owner) = statements.iter().find(|s| s.name == statement) else {
            return Err(self.invalid(
                field,
                statement,
                "the assumption names a statement that is not in the region",
            ));
        };
        let set = self.set(text, field)?;
        let dims = set.n_dims().map_err(self.isl_error(field))?;
        if set.tuple_name().as_deref() != Some(statement) || dims != owner.depth() {
            return Err(self.invalid(
                field,
                text,
                format!(
                    "expected a set over the iteration space of {statement}, like \
                     '{{ {statement}[{}] : ... }}'",
                    iterator_list(owner.depth())
                ),
            ));
        }
        Ok(set)
    }

    fn arrays(&self) -> Result<Vec<Array>, ModelError> {
        let mut arrays: Vec<Array> = Vec::with_capacity(self.spec.arrays.len());
        for spec in &self.spec.arrays {
            let field = format!("array {}", spec.name);
            if !is_isl_identifier(&spec.name) {
                return Err(self.invalid(
                    "array name",
                    &spec.name,
                    "expected an isl identifier (letters, digits, '_', not starting with a digit)",
                ));
            }
            if arrays.iter().any(|a| a.name == spec.name) {
                return Err(self.invalid("array name", &spec.name, "two arrays have this name"));
            }
            if spec.element_size == 0 {
                return Err(self.invalid(
                    &field,
                    &spec.element_size.to_string(),
                    "element size is 0 bytes; expected the size of the element type",
                ));
            }
            if spec.is_scalar && !spec.inner_sizes.is_empty() {
                return Err(self.invalid(
                    &field,
                    &spec.inner_sizes.join(", "),
                    "a scalar has no dimensions, but inner sizes are given",
                ));
            }
            let mut inner_size_values = Vec::with_capacity(spec.inner_sizes.len());
            for (k, size) in spec.inner_sizes.iter().enumerate() {
                let field = format!("size {} of array {}", k + 1, spec.name);
                inner_size_values.push(self.size_value(size, &field)?);
            }
            arrays.push(Array {
                name: spec.name.clone(),
                element_type: spec.element_type.clone(),
                element_size: spec.element_size,
                inner_sizes: spec.inner_sizes.clone(),
                inner_size_values,
                is_scalar: spec.is_scalar,
            });
        }
        Ok(arrays)
    }

    /// An inner array size as a one-point set over the parameters; the size must be an
    /// affine expression of them.
    fn size_value(&self, size: &str, field: &str) -> Result<Set, ModelError> {
        let expected = "expected an affine expression over the parameters, like 'm' or '100'";
        if size.trim().is_empty() {
            return Err(self.invalid(field, size, expected));
        }
        let text = format!("[{}] -> {{ [({size})] }}", self.spec.params.join(", "));
        match parse_set(self.ctx, &text, field) {
            Ok(set) => {
                let single = set.is_singleton().map_err(self.isl_error(field))?;
                let dims = set.n_dims().map_err(self.isl_error(field))?;
                if single && dims == 1 {
                    Ok(set)
                } else {
                    Err(self.invalid(field, size, expected))
                }
            }
            Err(IslError::Parse { message, .. }) => {
                Err(self.invalid(field, size, format!("{expected} ({message})")))
            }
            Err(error) => Err(self.isl_error(field)(error)),
        }
    }

    fn alias_groups(&self, arrays: &[Array]) -> Result<Vec<AliasGroup>, ModelError> {
        let mut groups = Vec::with_capacity(self.spec.alias_groups.len());
        for (k, group) in self.spec.alias_groups.iter().enumerate() {
            let field = format!("alias group {k}");
            let text = format!("{{ {} }}", group.join(", "));
            let mut seen = HashSet::new();
            for name in group {
                if !arrays.iter().any(|a| &a.name == name) {
                    return Err(self.invalid(
                        &field,
                        &text,
                        format!("array '{name}' is not one of the region's arrays"),
                    ));
                }
                if !seen.insert(name) {
                    return Err(self.invalid(&field, &text, format!("'{name}' is listed twice")));
                }
            }
            groups.push(AliasGroup {
                arrays: group.clone(),
            });
        }
        Ok(groups)
    }

    fn statements(&self, arrays: &[Array]) -> Result<Vec<Statement>, ModelError> {
        if self.spec.statements.is_empty() {
            return Err(self.invalid("statements", "", "a region needs at least one statement"));
        }
        // Time stamps have 2d+1 coordinates for the deepest statement; the others are
        // padded with zeros.
        let width = original_schedule::flat_width(
            self.spec
                .statements
                .iter()
                .map(|s| s.textual_positions.as_slice()),
        );
        let ranks: HashMap<&str, usize> =
            arrays.iter().map(|a| (a.name.as_str(), a.rank())).collect();
        let mut names = HashSet::new();
        let mut statements = Vec::with_capacity(self.spec.statements.len());
        for spec in &self.spec.statements {
            if !names.insert(spec.name.as_str()) {
                return Err(self.invalid(
                    "statement name",
                    &spec.name,
                    "two statements have this name",
                ));
            }
            let field = format!("domain of statement {}", spec.name);
            let domain = self.set(&spec.domain, &field)?;
            if domain.tuple_name().as_deref() != Some(spec.name.as_str()) {
                let found = domain
                    .tuple_name()
                    .unwrap_or_else(|| "an unnamed tuple".into());
                return Err(self.invalid(
                    &field,
                    &spec.domain,
                    format!(
                        "the set is named '{found}' but the statement is '{0}'; expected a set \
                         like '{{ {0}[i0] : ... }}'",
                        spec.name
                    ),
                ));
            }
            if spec.textual_positions.is_empty() {
                return Err(self.invalid(
                    &format!("textual positions of statement {}", spec.name),
                    "[]",
                    "expected d+1 positions for a statement inside d loops",
                ));
            }
            let depth = spec.textual_positions.len() - 1;
            let dims = domain.n_dims().map_err(self.isl_error(&field))?;
            if dims != depth {
                return Err(self.invalid(
                    &field,
                    &spec.domain,
                    format!(
                        "the domain has {dims} dimensions but the textual positions {:?} place \
                         the statement inside {depth} loops (d loops: d dimensions, d+1 positions)",
                        spec.textual_positions
                    ),
                ));
            }
            let mut accesses: Vec<Access> = Vec::with_capacity(spec.accesses.len());
            for (k, access) in spec.accesses.iter().enumerate() {
                let field = format!("access {k} of statement {}", spec.name);
                // A read and a write of one element (and a promoted scalar's accesses)
                // repeat a relation: it is parsed once (`accesses[j]` is access `j`).
                let earlier = spec.accesses[..k]
                    .iter()
                    .position(|a| a.relation == access.relation)
                    .and_then(|j| accesses.get(j));
                let relation = match earlier {
                    Some(a) => a.relation.copy().map_err(self.isl_error(&field))?,
                    None => self.map(&access.relation, &field)?,
                };
                if relation.domain_name().as_deref() != Some(spec.name.as_str())
                    || relation.n_in().map_err(self.isl_error(&field))? != dims
                {
                    return Err(self.invalid(
                        &field,
                        &access.relation,
                        format!(
                            "expected a relation from the statement's instances, {}[{}] -> ...",
                            spec.name,
                            iterator_list(dims)
                        ),
                    ));
                }
                let Some(&rank) = ranks.get(access.array.as_str()) else {
                    return Err(self.invalid(
                        &field,
                        &access.array,
                        "the access names an array that is not among the region's arrays",
                    ));
                };
                if relation.range_name().as_deref() != Some(access.array.as_str())
                    || relation.n_out().map_err(self.isl_error(&field))? != rank
                {
                    return Err(self.invalid(
                        &field,
                        &access.relation,
                        format!(
                            "expected a relation to array {0} with {rank} subscripts, like \
                             '{{ {1}[...] -> {0}[{2}] }}'",
                            access.array,
                            spec.name,
                            vec!["..."; rank].join(", ")
                        ),
                    ));
                }
                accesses.push(Access {
                    kind: access.kind,
                    array: access.array.clone(),
                    relation,
                    instruction: access.instruction.clone(),
                    location: access.location.clone(),
                });
            }
            let schedule = original_schedule::flat_schedule(
                self.ctx,
                &spec.name,
                &spec.textual_positions,
                width,
                &self.params,
            )
            .map_err(self.isl_error(&format!("original schedule of statement {}", spec.name)))?;
            statements.push(Statement {
                name: spec.name.clone(),
                block: spec.block.clone(),
                domain,
                textual_positions: spec.textual_positions.clone(),
                schedule,
                accesses,
                reductions: spec.reductions.clone(),
            });
        }
        Ok(statements)
    }

    /// Checks that the textual positions form a loop tree in program order and builds
    /// the schedule tree from them.
    fn original_schedule(&self, statements: &[Statement]) -> Result<Schedule, ModelError> {
        let placements = original_schedule::placements(statements);
        if let Err(conflict) = original_schedule::check_positions(&placements) {
            let first = &placements[conflict.first];
            let second = &placements[conflict.second];
            let text = format!(
                "{} at {:?}, {} at {:?}",
                first.name, first.positions, second.name, second.positions
            );
            return Err(self.invalid("textual positions", &text, conflict.problem));
        }
        original_schedule::schedule_tree(&placements, &self.params)
            .map_err(self.isl_error("original schedule"))
    }

    /// The union of the domains and the three access unions.
    #[allow(clippy::type_complexity)]
    fn unions(
        &self,
        statements: &[Statement],
    ) -> Result<(UnionSet, UnionMap, UnionMap, UnionMap), ModelError> {
        let err = self.isl_error("access relations");
        let mut domains = UnionSet::empty(self.ctx).map_err(&err)?;
        let (mut reads, mut must_writes, mut may_writes) = (Vec::new(), Vec::new(), Vec::new());
        for statement in statements {
            domains = domains
                .add_set(statement.domain.copy().map_err(&err)?)
                .map_err(&err)?;
            for access in &statement.accesses {
                let restricted = access
                    .relation
                    .copy()
                    .and_then(|r| r.intersect_domain(statement.domain.copy()?))
                    .map_err(&err)?;
                match access.kind {
                    AccessKind::Read => reads.push(restricted),
                    AccessKind::MustWrite => must_writes.push(restricted),
                    AccessKind::MayWrite => may_writes.push(restricted),
                }
            }
        }
        let union = |maps: Vec<Map>| -> Result<UnionMap, IslError> {
            let mut union = UnionMap::empty(self.ctx)?;
            for map in maps {
                union = union.add_map(map)?;
            }
            union.align_params(&self.params)
        };
        Ok((
            domains.align_params(&self.params).map_err(&err)?,
            union(reads).map_err(&err)?,
            union(must_writes).map_err(&err)?,
            union(may_writes).map_err(&err)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::{conjunction, used_params_only};

    #[test]
    fn parameters_the_body_does_not_name_are_dropped_before_reading() {
        assert_eq!(
            used_params_only("[n, m, p_7] -> { S0[i0, i1] -> A[i0 + m, 1] }"),
            "[m] -> { S0[i0, i1] -> A[i0 + m, 1] }"
        );
        assert_eq!(
            used_params_only("[n, m] -> { S0[i0] -> A[i0] }"),
            "[] -> { S0[i0] -> A[i0] }"
        );
        // Unchanged: every parameter named, no parameter list, another shape.
        for text in [
            "[n] -> { S0[i0] : i0 < n }",
            "{ S0[i0] -> A[i0] }",
            "[n] { S0[i0] }",
        ] {
            assert_eq!(used_params_only(text), text);
        }
    }

    #[test]
    fn sets_of_one_shape_are_conjoined_in_one_text() {
        assert_eq!(
            conjunction(&[
                "[n] -> { S0[i0, i1] : 0 <= i1 < 25 }",
                "[n] -> { S0[i0, i1] : i0 < n or i1 > 3 }",
                "[n] -> { S0[i0, i1] }",
            ])
            .as_deref(),
            Some("[n] -> { S0[i0, i1] : (0 <= i1 < 25) and (i0 < n or i1 > 3) }")
        );
        assert_eq!(
            conjunction(&["[n] -> { : n <= 10 }", "[n] -> { : 0 < n }"]).as_deref(),
            Some("[n] -> { : (n <= 10) and (0 < n) }")
        );
    }

    #[test]
    fn sets_of_other_shapes_are_not_conjoined() {
        for texts in [
            // Different parameters, tuples, several disjuncts, existential variables.
            ["[n] -> { S0[i0] : i0 < n }", "[m] -> { S0[i0] : i0 < m }"],
            ["{ S0[i0] : i0 < 5 }", "{ S1[i0] : i0 < 5 }"],
            [
                "{ S0[i0] : i0 < 5 }",
                "{ S0[i0] : i0 < 5; S0[i0] : i0 > 9 }",
            ],
            ["{ S0[i0] : i0 < 5 }", "{ S0[i0] : exists (e: i0 = 2e) }"],
            ["{ S0[i0] : i0 < 5 }", "S0[i0]"],
        ] {
            assert_eq!(conjunction(&texts), None, "{texts:?}");
        }
    }
}
