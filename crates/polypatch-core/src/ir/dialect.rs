//! The interface a patch dialect implements.

use std::fmt;

#[cfg(feature = "serde")]
use serde::Serialize;

use crate::dialect_name::DialectName;
use crate::ir::error_kind::ErrorKind;
use crate::ir::plan::EditPlan;
use crate::ir::reply_lines::ReplyLines;
use crate::ir::span::Span;
use crate::render::{FileDelta, RenderError, RenderOptions};
use crate::text::eol::LineBreaks;

/// A patch format that lowers into an [`EditPlan`].
///
/// Dialect crates implement this; core knows none of them. The facade crate registers
/// each behind a cargo feature of the same name, in its `Dialects` registry; a user's own
/// dialect joins them there. A dialect implements [`name`](Self::name),
/// [`sniff`](Self::sniff) and [`parse`](Self::parse); the rest have defaults that say
/// "this dialect has none", so a dialect implements only what it has: where its blocks
/// written bare in a chat reply end ([`bare_block`](Self::bare_block)), its fences' tags
/// ([`fence_tags`](Self::fence_tags)), writing ([`render`](Self::render)), instructions
/// for a model ([`prompt`](Self::prompt)) and a JSON Schema of its input
/// (`schema`, with the `serde` feature), and the other names users know it by
/// ([`aliases`](Self::aliases)) with a line on what it is ([`summary`](Self::summary)).
pub trait Dialect: Send + Sync {
    /// The dialect's stable name (`"ai-patch"`, `"unified"`, `"ap"`, …).
    fn name(&self) -> &'static str;

    /// How strongly `text` looks like this dialect: 0 = not at all, 100 = certain.
    /// Cheap: looks at markers only, never parses the whole text.
    fn sniff(&self, text: &str) -> u8;

    /// Parses `text` and lowers it into an [`EditPlan`].
    fn parse(&self, text: &str) -> Result<EditPlan, PatchError>;

    /// Other names users know this dialect by, lowercase (`codex` for AI-PATCH, `git` and
    /// `patch` for a unified diff): the facade's registry looks a dialect up by them, and
    /// by its name, case-insensitively, so a new dialect brings its own. Empty by default.
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// One line on what the dialect is (who writes it), for listings such as the CLI's
    /// `polypatch formats`. Empty by default.
    fn summary(&self) -> &'static str {
        ""
    }

    /// Parses `text` with options; dialects that take none ignore them.
    fn parse_with(&self, text: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        let _ = options;
        self.parse(text)
    }

    /// Where a block of this dialect written bare in a model's reply (outside a fence, or
    /// among other lines inside one) that starts at line `at` of `lines` ends: one past its
    /// last line, after `at` and at most `to` (the end of the lines looked at: the reply's,
    /// or a fence's content); `None` when no such block starts at line `at`. The default:
    /// the dialect has no bare blocks, only fenced ones and a whole reply that is one patch.
    ///
    /// Cheap for a line that starts none: `extract` asks every dialect, in the registry's
    /// order, at every line outside a fence; the first whose candidate some dialect's
    /// [`Dialect::sniff`] recognises gives the block, and the scan goes on after it. A
    /// candidate no dialect recognises is passed over a line at a time.
    ///
    /// `failed` keeps that scan linear in the reply's size: one past the last line of the
    /// furthest candidate of this dialect that no dialect recognised (`at` or less when
    /// there is none). A candidate that ends at or before it lies inside a text every
    /// sniffer scored 0 and is skipped without being sniffed (a sniffer scores a run of
    /// whole lines above 0 only for markers in those lines, so their run scores 0 too). A
    /// dialect whose candidates that start inside one of its own end where that one ends
    /// (a diff's `--- ` line inside a diff) returns `Some(failed)` for `at < failed`
    /// without reading on; one that ignores `failed` is as correct, but a reply of many
    /// nested candidates costs it time by the square of their size.
    ///
    /// ```
    /// use polypatch_core::{Dialect, EditPlan, ReplyLines};
    /// # use polypatch_core::PatchError;
    ///
    /// /// Blocks from a `BEGIN` line to an `END` line.
    /// struct Marked;
    /// impl Dialect for Marked {
    ///     fn name(&self) -> &'static str { "marked" }
    ///     fn sniff(&self, text: &str) -> u8 { if text.lines().any(|l| l == "BEGIN") { 90 } else { 0 } }
    ///     fn parse(&self, text: &str) -> Result<EditPlan, PatchError> { Ok(EditPlan::new("marked", Vec::new())) }
    ///     fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
    ///         (lines.line(at) == "BEGIN").then(|| (at + 1..to).find(|&j| lines.line(j) == "END").map_or(to, |j| j + 1))
    ///     }
    /// }
    /// let lines = ReplyLines::new("Hi\nBEGIN\nx\nEND\nBye\n");
    /// assert_eq!(Marked.bare_block(&lines, 1, lines.len(), 0), Some(4));
    /// assert_eq!(Marked.bare_block(&lines, 0, lines.len(), 0), None);
    /// ```
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, failed: usize) -> Option<usize> {
        let _ = (lines, at, to, failed);
        None
    }

    /// The info strings a model tags a fenced block of this dialect with (`diff` and
    /// `patch` for a unified diff), the one to write first; empty by default.
    ///
    /// Metadata for whoever writes a fence (a renderer wrapping its output for a chat, a
    /// prompt's example): `extract` does not read it, and no tag changes which dialect a
    /// block is. A fenced block is the dialect its content sniffs as, whatever its tag
    /// (models tag a diff `patch`, an AI-PATCH `diff`, anything `text`).
    fn fence_tags(&self) -> &'static [&'static str] {
        &[]
    }

    /// Writes `deltas` (one per changed file, in order) as a patch of this dialect.
    ///
    /// Called by the facade's `convert` with the changes a patch makes to the files,
    /// computed at whatever tier the source needed: the text must give back exactly the
    /// `after` bytes when applied at the exact tier, and change nothing on a re-run (the
    /// facade checks both by applying it in memory, and refuses the conversion otherwise).
    /// What the dialect cannot say exactly is refused up front with a
    /// [`RenderError::Inexpressible`] naming the operation and the file
    /// ([`render::text_only`](crate::render::text_only) and
    /// [`render::keeps_ends`](crate::render::keeps_ends) refuse what a text-only dialect
    /// cannot say). `options` carries the context asked for and the plain-form retry
    /// ([`RenderOptions::plain`]).
    ///
    /// The default refuses with [`RenderError::NotWritable`]: the dialect can be read but
    /// not written.
    fn render(&self, deltas: &[FileDelta], options: &RenderOptions) -> Result<String, RenderError> {
        let _ = (deltas, options);
        Err(RenderError::NotWritable { dialect: DialectName::new(self.name()) })
    }

    /// Instructions for a model on writing this dialect, as plain text: its shape, how to
    /// write an edit that applies (exact copies of the file's lines, enough context to be
    /// unique, no elisions, paths relative to the project root), what a failure report
    /// means, and a worked example (a file in a fenced block, then the patch that changes
    /// it). Returned by the facade's `prompt(name)` and the CLI's `prompt` command.
    ///
    /// The default is `None`: the dialect has no instructions to give.
    fn prompt(&self) -> Option<&'static str> {
        None
    }

    /// The JSON Schema (draft 2020-12) of this dialect's input, for a dialect written as
    /// JSON or YAML (the schema of the value the YAML reads as), for models' structured
    /// outputs and tool calling. Returned by the facade's `schema::format(name)` and the
    /// CLI's `schema` command; every object in it refuses fields it does not list.
    ///
    /// The default is `None`: the dialect is text, not a JSON value.
    #[cfg(feature = "serde")]
    #[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
    fn schema(&self) -> Option<serde_json::Value> {
        None
    }

    /// Every [`ErrorKind`] this dialect reports, each a `snake_case` code unique in the
    /// list; the dialect defines them (core defines only the kinds of no dialect, such as
    /// [`ErrorKind::TRUNCATED`]). Empty by default.
    fn error_kinds(&self) -> &'static [ErrorKind] {
        &[]
    }
}

/// The most bytes a binary patch may expand to unless [`ParseOptions::max_binary_size`]
/// says otherwise: 64 MiB.
pub const DEFAULT_MAX_BINARY_SIZE: u64 = 64 << 20;

/// The most bytes all the binary data of one patch may expand to together unless
/// [`ParseOptions::max_total_binary_size`] says otherwise: 256 MiB, four files at the
/// per-file limit.
///
/// Each file's limit does not bound a patch: a diff of 15 MB held 40 `literal` sections
/// of 64 MiB each (2.7 GB inflated, twice that once the plan and the new contents held
/// it). An apply holds the plan's binary data and the contents it computes from it, about
/// twice this total at the peak: half a GiB, within what a laptop or a CI container gives
/// a tool. Binary patches that models write are small, and a `git diff --binary` of more
/// than 256 MiB is rare enough to ask for the limit to be raised.
pub const DEFAULT_MAX_TOTAL_BINARY_SIZE: u64 = 256 << 20;

/// Options of a parse that some dialects take.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Leading path components to strip from the paths of a diff (`patch -p N`); `None`:
    /// the dialect's default (for unified diffs, `a/` and `b/` when present).
    pub strip: Option<usize>,
    /// The most bytes a binary patch (a git `literal` or the result of a `delta`) may
    /// expand to; a patch that announces more, or inflates to more, is refused before
    /// anything is allocated for it. Default [`DEFAULT_MAX_BINARY_SIZE`] (64 MiB).
    pub max_binary_size: u64,
    /// The most bytes all of a patch's binary data may expand to together: every binary
    /// block's data (a `literal`'s content, a `delta`, a reverse block) and every delta's
    /// result, in every file of the patch (and of the patches parsed before it for the
    /// same apply, [`ParseOptions::binary_expanded_before`]). Checked as each block is
    /// read, before its data is decoded: a patch over it is refused (kind
    /// `binary_total_too_large`) without allocating more than this. Default
    /// [`DEFAULT_MAX_TOTAL_BINARY_SIZE`] (256 MiB).
    pub max_total_binary_size: u64,
    /// Bytes of binary data the plans parsed before this one for the same apply expanded
    /// to ([`EditPlan::binary_size`](crate::EditPlan::binary_size)): counted against
    /// [`ParseOptions::max_total_binary_size`], so that several patches applied as one
    /// transaction (a model's reply of several blocks, several patch files, an Aptix
    /// bundle's `gitPatch` entries) share one budget. Default 0.
    pub binary_expanded_before: u64,
    /// A diff section that says only `Binary files a/x and b/x differ` (a `git diff`
    /// made without `--binary`: the change has no data) is skipped, with a warning in the
    /// plan's [`warnings`](crate::EditPlan::warnings), and the rest of the diff applies, as
    /// GNU patch does. Off by default: such a diff is refused (kind
    /// `binary_without_data`), since applying it leaves that file as it was. The CLI's
    /// `--skip-binary-without-data`.
    pub skip_binary_without_data: bool,
    /// The file a patch that names none is for: SEARCH/REPLACE blocks passed as a tool
    /// call's `diff` beside its `path` (Cline's `replace_in_file`, Roo Code's `apply_diff`).
    /// Blocks that name their file keep it. `None` (the default): such a patch is refused.
    /// The CLI's `--file PATH`. Dialects whose patches always name their files ignore it.
    pub file: Option<String>,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            strip: None,
            max_binary_size: DEFAULT_MAX_BINARY_SIZE,
            max_total_binary_size: DEFAULT_MAX_TOTAL_BINARY_SIZE,
            binary_expanded_before: 0,
            skip_binary_without_data: false,
            file: None,
        }
    }
}

impl ParseOptions {
    /// Builder: binary patches may expand to at most `bytes`.
    #[must_use]
    pub fn max_binary_size(mut self, bytes: u64) -> Self {
        self.max_binary_size = bytes;
        self
    }

    /// Builder: a patch's binary data may expand to at most `bytes` in all
    /// ([`ParseOptions::max_total_binary_size`]).
    #[must_use]
    pub fn max_total_binary_size(mut self, bytes: u64) -> Self {
        self.max_total_binary_size = bytes;
        self
    }

    /// Builder: earlier plans of the same apply expanded to `bytes` of binary data
    /// ([`ParseOptions::binary_expanded_before`]).
    #[must_use]
    pub fn binary_expanded_before(mut self, bytes: u64) -> Self {
        self.binary_expanded_before = bytes;
        self
    }

    /// Builder: skip the sections of binary files without data
    /// ([`ParseOptions::skip_binary_without_data`]).
    #[must_use]
    pub fn skip_binary_without_data(mut self, yes: bool) -> Self {
        self.skip_binary_without_data = yes;
        self
    }

    /// Builder: the file a patch that names none is for ([`ParseOptions::file`]).
    #[must_use]
    pub fn file(mut self, path: impl Into<String>) -> Self {
        self.file = Some(path.into());
        self
    }

    /// Builder: strip `n` leading path components.
    #[must_use]
    pub fn strip(mut self, n: usize) -> Self {
        self.strip = Some(n);
        self
    }
}

/// A malformed patch: what is wrong and where.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize))]
#[non_exhaustive]
pub struct PatchError {
    /// The dialect that rejected the text.
    pub dialect: DialectName,
    /// Why the text was refused: a stable, machine-readable kind.
    pub kind: ErrorKind,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// Where in the patch text.
    pub span: Option<Span>,
    /// How the patch text is split into lines, for the line numbers of `span`: `\n` (the
    /// default), or also a lone `\r` for a dialect that reads it so (YAML).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub line_breaks: LineBreaks,
    /// The 1-based line and column where `span` starts in the patch text, with the span
    /// they were computed for ([`PatchError::with_source`]): `Display` names them while the
    /// span is still that one.
    #[cfg_attr(feature = "serde", serde(skip))]
    position: Option<(Span, usize, usize)>,
}

impl PatchError {
    /// A new error.
    pub fn new(
        dialect: impl Into<DialectName>,
        kind: ErrorKind,
        message: impl Into<String>,
        span: Option<Span>,
    ) -> Self {
        PatchError {
            dialect: dialect.into(),
            kind,
            message: message.into(),
            span,
            line_breaks: LineBreaks::LfOrCrLf,
            position: None,
        }
    }

    /// Builder: the error is about `source`, the patch text its span points into (call it
    /// after [`PatchError::with_line_breaks`]). Its `Display` then says where the span
    /// starts as a line and column (`(at line 3, column 1)`) rather than as a byte offset
    /// (`(at byte 22)`). Every built-in dialect's [`Dialect::parse`] and
    /// [`Dialect::parse_with`] return errors that know their source; an error whose
    /// span is moved afterwards (into a whole reply's bytes, say) needs it again.
    ///
    /// ```
    /// use polypatch_core::{ErrorKind, PatchError, Span};
    ///
    /// let text = "one\ntwo\n";
    /// let err = PatchError::new("mine", ErrorKind::new("bad_line"), "`two` is not allowed", Some(Span::new(4, 7)));
    /// assert_eq!(err.to_string(), "malformed mine patch: `two` is not allowed (at byte 4)");
    /// let err = err.with_source(text);
    /// assert_eq!(err.to_string(), "malformed mine patch: `two` is not allowed (at line 2, column 1)");
    /// ```
    #[must_use]
    pub fn with_source(mut self, source: &str) -> Self {
        self.position = self.span.map(|span| {
            let (line, column) = span.line_col_with(source, self.line_breaks);
            (span, line, column)
        });
        self
    }

    /// A [`ErrorKind::TRUNCATED`] error of `dialect`: `text` ends in the middle of a line
    /// (see [`cut_off_line`]), and `detail` (empty, or starting with `, `) says what the
    /// text stops inside. `None` when `text` ends with a line break.
    ///
    /// ```
    /// use polypatch_core::{ErrorKind, PatchError};
    ///
    /// let e = PatchError::truncated("unified", "@@ -1,2 +1,2 @@\n-a\n+b", "").unwrap();
    /// assert_eq!(e.kind, ErrorKind::TRUNCATED);
    /// assert_eq!(
    ///     e.message,
    ///     "the patch ends in the middle of a line at line 3: the reply was probably cut off; ask for it again"
    /// );
    /// assert!(PatchError::truncated("unified", "-a\n+b\n", "").is_none());
    /// ```
    pub fn truncated(dialect: impl Into<DialectName>, text: &str, detail: &str) -> Option<Self> {
        let (line, span) = cut_off_line(text)?;
        Some(PatchError::new(
            dialect,
            ErrorKind::TRUNCATED,
            format!(
                "the patch ends in the middle of a line at line {line}{detail}: the reply was probably cut off; ask \
                 for it again"
            ),
            Some(span),
        )
        .with_source(text))
    }

    /// Builder: the patch text's lines end as `breaks` says.
    #[must_use]
    pub fn with_line_breaks(mut self, breaks: LineBreaks) -> Self {
        self.line_breaks = breaks;
        self
    }

    /// The 1-based line and column of the span's start in `source`.
    pub fn line_col(&self, source: &str) -> Option<(usize, usize)> {
        self.span.map(|span| span.line_col_with(source, self.line_breaks))
    }

    /// The error with the offending line of `source` and a caret under the span.
    pub fn render(&self, source: &str) -> String {
        let head = format!("malformed {} patch: {}", self.dialect, self.message);
        match self.span {
            Some(span) => span.render_with(source, &head, self.line_breaks),
            None => head,
        }
    }
}

/// A piece of a patch quoted for an error message, as every dialect quotes: in backticks,
/// on one line (a line break shown as `⏎`, the last ones dropped), cut to 60 characters
/// with `…`.
///
/// ```
/// assert_eq!(polypatch_core::quote("fn main() {"), "`fn main() {`");
/// assert_eq!(polypatch_core::quote("a\nb\n"), "`a⏎b`");
/// assert_eq!(polypatch_core::quote(&"x".repeat(70)), format!("`{}…`", "x".repeat(60)));
/// ```
pub fn quote(text: &str) -> String {
    const MAX: usize = 60;
    let one_line = text.trim_end_matches(['\n', '\r']).replace('\n', "⏎");
    if one_line.chars().count() <= MAX {
        format!("`{one_line}`")
    } else {
        let head: String = one_line.chars().take(MAX).collect();
        format!("`{head}…`")
    }
}

/// A file's content from its lines (without their line breaks): each ended by `\n`.
///
/// ```
/// assert_eq!(polypatch_core::join_lines(&["a", "b"]), "a\nb\n");
/// assert_eq!(polypatch_core::join_lines(&[]), "");
/// ```
pub fn join_lines(lines: &[&str]) -> String {
    let mut content = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        content.push_str(line);
        content.push('\n');
    }
    content
}

/// Where `text` stops in the middle of a line: the 1-based number of its last line and
/// that line's bytes, when the text does not end with a line break and its last line is
/// not blank. A model's reply cut off by an output limit ends so; a complete patch may
/// too (a tool call's argument often has no final line break), so this alone is no
/// evidence: each dialect asks it only where its patch cannot end (inside a hunk its
/// header says is longer, before an end marker).
///
/// ```
/// use polypatch_core::{Span, cut_off_line};
///
/// assert_eq!(cut_off_line("a\nb\n+def f(se"), Some((3, Span::new(4, 13))));
/// assert_eq!(cut_off_line("a\nb\n"), None);
/// assert_eq!(cut_off_line("a\n  "), None); // a blank tail is no half line
/// ```
pub fn cut_off_line(text: &str) -> Option<(usize, Span)> {
    let start = memchr::memrchr(b'\n', text.as_bytes()).map_or(0, |at| at + 1);
    if text[start..].trim().is_empty() {
        return None;
    }
    let line = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    Some((line, Span::new(start, text.len())))
}

impl fmt::Display for PatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed {} patch: {}", self.dialect, self.message)?;
        match (self.span, self.position) {
            (Some(span), Some((at, line, column))) if at == span => write!(f, " (at line {line}, column {column})"),
            (Some(span), _) => write!(f, " (at byte {})", span.start),
            (None, _) => Ok(()),
        }
    }
}

impl std::error::Error for PatchError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Side;

    /// A dialect that implements only what it must.
    struct ReadOnly;

    impl Dialect for ReadOnly {
        fn name(&self) -> &'static str {
            "read-only"
        }

        fn sniff(&self, _: &str) -> u8 {
            0
        }

        fn parse(&self, _: &str) -> Result<EditPlan, PatchError> {
            Ok(EditPlan::new("read-only", Vec::new()))
        }
    }

    #[test]
    fn a_dialect_without_a_renderer_prompt_or_schema_says_so() {
        let delta = FileDelta::new("a.txt", None, Some(Side::new(b"a\n".to_vec(), None)));
        let err = ReadOnly.render(&[delta], &RenderOptions::default()).unwrap_err();
        assert_eq!(err, RenderError::NotWritable { dialect: "read-only".into() });
        assert_eq!(err.operation(), None);
        assert_eq!(
            err.to_string(),
            "read-only cannot be written, only read; convert to `unified`, which says every change"
        );
        assert_eq!(ReadOnly.prompt(), None);
        #[cfg(feature = "serde")]
        assert_eq!(ReadOnly.schema(), None);
    }
}
