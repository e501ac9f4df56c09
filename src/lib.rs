//! polypatch turns the edit blocks that language models (and people) write into exact,
//! safe changes to files.
//!
//! Each patch dialect parses into one [`EditPlan`]; one matching engine locates every
//! edit, reporting how strictly it matched ([`Tier`]) and refusing ambiguous places; one
//! transaction applies the whole plan or nothing.
//!
//! ```
//! use polypatch::{apply, parse, ApplyOptions, MemoryFileSet};
//!
//! let patch = "*** Begin Patch\n*** Update File: hello.txt\n@@\n-Hello\n+Hello, world\n*** End Patch\n";
//! let mut files = MemoryFileSet::new().with("hello.txt", "Hello\n");
//! let plan = parse(patch, None).unwrap();
//! apply(&plan, &mut files, &ApplyOptions::default()).unwrap();
//! assert_eq!(files.get_str("hello.txt"), Some("Hello, world\n"));
//! ```
//!
//! Dialects are cargo features of the same name, all on by default: `ai-patch`,
//! `unified`, `ap`, `applydiff`, `aptix`.

pub use polypatch_core as core;
pub use polypatch_core::*;

#[cfg(feature = "ai-patch")]
pub use polypatch_aipatch as aipatch;
#[cfg(feature = "ap")]
pub use polypatch_ap as ap;
#[cfg(feature = "applydiff")]
pub use polypatch_applydiff as applydiff;
#[cfg(feature = "aptix")]
pub use polypatch_aptix as aptix;
#[cfg(feature = "unified")]
pub use polypatch_unified as unified;

pub mod convert;

/// Every dialect compiled in, in the order [`detect`] prefers them on a tie.
pub fn dialects() -> Vec<&'static dyn Dialect> {
    vec![
        #[cfg(feature = "ai-patch")]
        &polypatch_aipatch::AiPatch,
        #[cfg(feature = "unified")]
        &polypatch_unified::Unified,
        #[cfg(feature = "ap")]
        &polypatch_ap::Ap,
        #[cfg(feature = "applydiff")]
        &polypatch_applydiff::ApplyDiff,
        #[cfg(feature = "aptix")]
        &polypatch_aptix::Aptix,
    ]
}

/// The names of every dialect compiled in.
pub fn dialect_names() -> Vec<&'static str> {
    dialects().iter().map(|d| d.name()).collect()
}

/// The dialect called `name`, if compiled in.
pub fn dialect(name: &str) -> Option<&'static dyn Dialect> {
    dialects().into_iter().find(|d| d.name() == name)
}

/// The dialect `text` most looks like, if any looks like it at all.
pub fn detect(text: &str) -> Option<&'static dyn Dialect> {
    let mut best: Option<(&'static dyn Dialect, u8)> = None;
    for d in dialects() {
        let score = d.sniff(text);
        if score > 0 && best.is_none_or(|(_, b)| score > b) {
            best = Some((d, score));
        }
    }
    best.map(|(d, _)| d)
}

/// Parses `text` as the dialect named `format`, or as the detected dialect when `None`.
pub fn parse(text: &str, format: Option<&str>) -> Result<EditPlan, PatchError> {
    parse_with(text, format, &ParseOptions::default())
}

/// [`parse`] with options (e.g. a diff's strip level).
pub fn parse_with(text: &str, format: Option<&str>, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    let dialect = match format {
        Some(name) => dialect(name).ok_or_else(|| {
            PatchError::new(
                "polypatch",
                "unknown_format",
                format!("unknown format `{name}`; known formats: {}", dialect_names().join(", ")),
                None,
            )
        })?,
        None => detect(text).ok_or_else(|| {
            PatchError::new(
                "polypatch",
                "unknown_format",
                format!(
                    "the text does not look like any known patch format ({}); name one with --format",
                    dialect_names().join(", ")
                ),
                None,
            )
        })?,
    };
    dialect.parse_with(text, options)
}

#[cfg(all(feature = "ai-patch", feature = "unified", feature = "ap", feature = "applydiff", feature = "aptix"))]
#[doc(hidden)]
pub mod fuzzing;
