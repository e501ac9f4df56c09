//! Unified diffs for polypatch: git's `diff --git` output (extended headers, renames,
//! copies, modes, binary patches) and plain `diff -u` output, parsed with byte spans,
//! lowered into polypatch's [`EditPlan`], and generated from before/after contents.

mod error;
mod lower;
mod path;
mod syntax;

pub mod binary;
pub mod generate;

use polypatch_core::{Dialect, EditPlan, ParseOptions, PatchError};

pub use error::kind;
pub use lower::lower;
pub use syntax::{BinaryHunk, BinaryPatch, FilePatch, Hunk, HunkLine, LineKind, Patch, parse};

/// The unified diff dialect (`"unified"`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Unified;

impl Dialect for Unified {
    fn name(&self) -> &'static str {
        error::DIALECT
    }

    fn sniff(&self, text: &str) -> u8 {
        syntax::sniff(text)
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        self.parse_with(text, &ParseOptions::default())
    }

    fn parse_with(&self, text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        lower(&parse(text)?, options)
    }
}
