//! Builders of hand-written `ScopSpec`s for the tests of the model and of the stages
//! after it (dependences, scheduling), so every test writes a region the same way.

use super::spec::{AccessKind, AccessSpec, ArraySpec, StatementSpec};

/// An access whose IR instruction text is `instruction`.
pub(crate) fn access_at(
    kind: AccessKind,
    array: &str,
    relation: &str,
    instruction: &str,
) -> AccessSpec {
    AccessSpec {
        kind,
        array: array.into(),
        relation: relation.into(),
        instruction: instruction.into(),
        location: None,
    }
}

pub(crate) fn access(kind: AccessKind, array: &str, relation: &str) -> AccessSpec {
    access_at(kind, array, relation, "")
}

pub(crate) fn read(array: &str, relation: &str) -> AccessSpec {
    access(AccessKind::Read, array, relation)
}

pub(crate) fn write(array: &str, relation: &str) -> AccessSpec {
    access(AccessKind::MustWrite, array, relation)
}

pub(crate) fn may_write(array: &str, relation: &str) -> AccessSpec {
    access(AccessKind::MayWrite, array, relation)
}

/// A statement of block `%<name>.block`.
pub(crate) fn statement(
    name: &str,
    domain: &str,
    positions: &[u32],
    accesses: Vec<AccessSpec>,
) -> StatementSpec {
    StatementSpec {
        name: name.into(),
        block: format!("%{}.block", name.to_lowercase()),
        domain: domain.into(),
        textual_positions: positions.to_vec(),
        accesses,
        reductions: Vec::new(),
    }
}

/// An array of doubles with these inner dimension sizes.
pub(crate) fn array(name: &str, inner_sizes: &[&str]) -> ArraySpec {
    ArraySpec {
        name: name.into(),
        element_type: "double".into(),
        element_size: 8,
        inner_sizes: inner_sizes.iter().map(|s| s.to_string()).collect(),
        is_scalar: false,
    }
}

/// A scalar double (an SSA value crossing statements).
pub(crate) fn scalar(name: &str) -> ArraySpec {
    ArraySpec {
        is_scalar: true,
        ..array(name, &[])
    }
}
