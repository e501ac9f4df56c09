//! Syntax tree → [`EditPlan`].

use polypatch_core::{EditPlan, ParseOptions, PatchError};

use crate::syntax::Patch;

/// Lowers a parsed diff into an [`EditPlan`].
pub fn lower(patch: &Patch<'_>, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    let _ = (patch, options);
    todo!()
}
