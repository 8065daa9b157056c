//! `Schedule`: an isl schedule tree (domain, band, sequence and filter nodes), built from
//! leaves, bands and sequences, and printed in isl's block-style YAML.
//!
//! Relies on isl building a band from a union map through a `multi_union_pw_aff`, which
//! needs the map to be a function whose images all lie in one space.

use super::error::IslError;
use super::object::{isl_object, unbounded};
use super::raw;
use super::union_map::UnionMap;
use super::union_set::UnionSet;

/// `ISL_YAML_STYLE_BLOCK` from isl's `printer.h`.
const ISL_YAML_STYLE_BLOCK: i32 = 0;

isl_object!(
    /// An isl schedule tree.
    Schedule,
    isl_rs::Schedule,
    isl_schedule_to_str
);

impl Schedule {
    /// A schedule that executes `domain` with no order imposed: a domain node and a leaf.
    pub fn from_domain(domain: UnionSet) -> Result<Schedule, IslError> {
        Schedule::wrap(
            &domain.ctx,
            "creating a schedule from a domain",
            isl_rs::Schedule::from_domain(domain.inner),
        )
    }

    /// Puts a band right below the domain node; `partial` maps every statement instance
    /// of the domain to its band coordinates (one space for all images, e.g.
    /// `{ S0[i0, i1] -> [i1]; S1[i0, i1, i2] -> [i1] }`).
    pub fn insert_band(self, partial: UnionMap) -> Result<Schedule, IslError> {
        let multi = isl_rs::MultiUnionPwAff::from_union_map(partial.inner).map_err(|error| {
            IslError::from_lib("turning a schedule map into band coordinates", error)
        })?;
        if multi.ptr == 0 {
            return Err(IslError::no_result(
                "turning a schedule map into band coordinates",
            ));
        }
        Schedule::wrap(
            &self.ctx,
            "inserting a band into a schedule",
            self.inner.insert_partial_schedule(multi),
        )
    }

    /// Runs all of `self`, then all of `next` (their domains must be disjoint).
    pub fn sequence(self, next: Schedule) -> Result<Schedule, IslError> {
        Schedule::wrap(
            &self.ctx,
            "sequencing two schedules",
            self.inner.sequence(next.inner),
        )
    }

    /// The flattened schedule: each statement instance to its time stamp, all time
    /// stamps padded with zeros to the same length.
    pub fn get_map(&self) -> Result<UnionMap, IslError> {
        UnionMap::wrap(
            &self.ctx,
            "flattening a schedule tree",
            self.inner.get_map(),
        )
    }

    /// The statement instances the schedule runs.
    pub fn get_domain(&self) -> Result<UnionSet, IslError> {
        UnionSet::wrap(
            &self.ctx,
            "reading a schedule's domain",
            self.inner.get_domain(),
        )
    }

    /// The tree in isl's block-style YAML, one node per line group, as Polly prints it.
    pub fn to_block_yaml(&self) -> Result<String, IslError> {
        let operation = "printing a schedule tree";
        let ctx = &self.ctx.ctx;
        // Printing is bounded by the tree's size: it runs outside the operation bound.
        let text = unbounded(ctx, || -> Result<Option<String>, IslError> {
            let printer = isl_rs::Printer::to_str(ctx)
                .and_then(|p| p.set_yaml_style(ISL_YAML_STYLE_BLOCK))
                .and_then(|p| p.print_schedule(&self.inner))
                .map_err(|error| IslError::from_lib(operation, error))?;
            if printer.ptr == 0 {
                return Err(IslError::no_result(operation));
            }
            // SAFETY: `printer` is a live string printer; isl_printer_get_str returns a
            // copy of its buffer that we own and free in take_string.
            Ok(unsafe { raw::take_string(raw::isl_printer_get_str(printer.ptr)) })
        })?;
        match text {
            Some(text) => Ok(text),
            None => Err(super::object::error_after_raw_call(operation, ctx.ptr)),
        }
    }
}
