//! The AI-PATCH dialect (placeholder while the parser is written).
use polypatch_core::{Dialect, EditPlan, PatchError};

/// The AI-PATCH dialect.
#[derive(Debug, Clone, Copy, Default)]
pub struct AiPatch;

impl Dialect for AiPatch {
    fn name(&self) -> &'static str {
        "ai-patch"
    }
    fn sniff(&self, text: &str) -> u8 {
        if text.contains("*** Begin Patch") { 95 } else { 0 }
    }
    fn parse(&self, _text: &str) -> Result<EditPlan, PatchError> {
        todo!()
    }
}
