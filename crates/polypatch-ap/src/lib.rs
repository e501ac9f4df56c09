//! The 'ap' (AI-friendly Patch) YAML v2.0 dialect, lowered into polypatch's
//! [`EditPlan`]. (Being written.)

use polypatch_core::{Dialect, EditPlan, PatchError};

/// The dialect's name in errors and reports.
const DIALECT: &str = "ap";

/// The 'ap' YAML dialect (`"ap"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Ap;

impl Dialect for Ap {
    fn name(&self) -> &'static str {
        DIALECT
    }

    fn sniff(&self, text: &str) -> u8 {
        let _ = text;
        0
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        Err(PatchError::new(
            DIALECT,
            "unimplemented",
            format!("the ap dialect is not written yet ({} bytes)", text.len()),
            None,
        ))
    }
}
