//! The region a transformation's choice is made for, as the choices that weigh code
//! against the IR see it: the function's analyses (source names, loop locations), the
//! isl context its model lives in, and the detected region (which temporaries the
//! function owns, what recomputing a value would clone).

use crate::detect::DetectedRegion;
use crate::isl::IslCtx;
use crate::llvm::FunctionAnalyses;

/// One detected region with what its transformations' choices consult.
#[derive(Clone, Copy)]
pub struct Subject<'a, 'f> {
    /// The analyses of the function the region is in.
    pub fa: &'a FunctionAnalyses<'f>,
    /// The isl context of the region's model, under the operation bound.
    pub ctx: &'a IslCtx,
    /// The region as detection found it.
    pub region: &'a DetectedRegion<'f>,
}

impl Subject<'_, '_> {
    /// The source name of one of the region's arrays (`tmp`, else the model's name).
    pub fn source_name(&self, array: &str) -> String {
        crate::codegen::propagate::source_name(self.fa, self.region, array)
    }
}
