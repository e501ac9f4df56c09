//! Unified diff text → syntax tree with byte spans.
//!
//! The format is line-oriented, so the parser is a loop over lines; the small grammars
//! inside one line are read by hand (the hunk header, the `index` line: both are on the
//! hot path of a large diff) or with nom (quoted names, in `path`). Every
//! span is a byte range into the text exactly as given: a byte order mark and `\r` line
//! endings are skipped by moving offsets, never by rewriting the text.
//!
//! Lines that belong to no file section (mail headers, prose, markdown fences, `Index:`
//! and `====` lines, a `diff -ruN x y` command line, `Only in …`) are skipped.

use polypatch_core::{DEFAULT_MAX_BINARY_SIZE, ParseOptions, PatchError, Span};

#[cfg(not(feature = "git-binary"))]
use crate::error::UNSUPPORTED_BINARY;
use crate::error::{
    BINARY_TOO_LARGE, BINARY_TOTAL_TOO_LARGE, BINARY_WITHOUT_DATA, DIALECT, EMPTY_HUNK, EMPTY_SECTION,
    HUNK_OUTSIDE_FILE, INVALID_BINARY, INVALID_HEADER, INVALID_HUNK_HEADER, INVALID_MODE, INVALID_PATH,
    MISSING_NEW_HEADER, NO_DIFF, error, quote,
};
use crate::path::{self, PathName};

const DIFF_GIT: &str = "diff --git ";
const BINARY_PATCH: &str = "GIT binary patch";

/// A parsed diff: its file sections in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Patch<'a> {
    /// The file sections.
    pub files: Vec<FilePatch<'a>>,
}

/// One file section: a `diff --git` line with its extended headers, or a `---`/`+++`
/// pair; then hunks or a binary patch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FilePatch<'a> {
    /// The `diff --git` line, for a git section.
    pub git: Option<GitLine>,
    /// The extended headers after the `diff --git` line, in order.
    pub headers: Vec<ExtendedHeader>,
    /// The `--- name` line.
    pub old: Option<FileName>,
    /// The `+++ name` line.
    pub new: Option<FileName>,
    /// The hunks.
    pub hunks: Vec<Hunk<'a>>,
    /// The binary patch, if any.
    pub binary: Option<BinaryPatch>,
    /// From the section's first line through its last.
    pub span: Span,
}

impl FilePatch<'_> {
    /// A section that has read only its first line so far.
    fn empty(git: Option<GitLine>, span: Span) -> Self {
        FilePatch { git, headers: Vec::new(), old: None, new: None, hunks: Vec::new(), binary: None, span }
    }
}

/// A `diff --git a/x b/x` line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GitLine {
    /// The two names, unquoted; `None` when unquoted names with spaces cannot be split
    /// with certainty (the `---`/`+++` or rename/copy headers name the file then).
    pub names: Option<(String, String)>,
    /// The line.
    pub span: Span,
}

/// A `--- name` or `+++ name` line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileName {
    /// The name, unquoted, without a timestamp.
    pub name: PathName,
    /// A timestamp after the name is the Unix epoch (`diff -N`'s mark of a missing file).
    pub epoch: bool,
    /// The line.
    pub span: Span,
}

/// An extended header line of a git section.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtendedHeader {
    /// What it says.
    pub header: Header,
    /// The line.
    pub span: Span,
}

/// What an extended header says.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Header {
    /// `old mode <mode>`.
    OldMode(u32),
    /// `new mode <mode>`.
    NewMode(u32),
    /// `new file mode <mode>`.
    NewFileMode(u32),
    /// `deleted file mode <mode>`.
    DeletedFileMode(u32),
    /// `similarity index <n>%`.
    Similarity(u32),
    /// `dissimilarity index <n>%`.
    Dissimilarity(u32),
    /// `rename from <path>` (no `a/` prefix).
    RenameFrom(String),
    /// `rename to <path>`.
    RenameTo(String),
    /// `copy from <path>`.
    CopyFrom(String),
    /// `copy to <path>`.
    CopyTo(String),
    /// `index <old>..<new> [<mode>]`: blob ids in hex (abbreviated or full).
    Index {
        /// The id of the old content.
        old: String,
        /// The id of the new content.
        new: String,
        /// The mode, when unchanged.
        mode: Option<u32>,
    },
}

/// A hunk: `@@ -a,b +c,d @@ section` and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hunk<'a> {
    /// The line ranges, `None` for `@@ @@` or a bare `@@`.
    pub ranges: Option<HunkRanges>,
    /// The text after the closing `@@` (git's function context), trimmed.
    pub section: &'a str,
    /// The body lines, in order; never empty.
    pub lines: Vec<HunkLine<'a>>,
    /// The header's counts disagree with the body (or are missing): the body was read
    /// without them.
    pub recounted: bool,
    /// The header line.
    pub header_span: Span,
    /// From the header through the last body line.
    pub span: Span,
}

impl Hunk<'_> {
    /// The number of old-side (context and removed) lines in the body.
    pub fn old_len(&self) -> usize {
        self.lines.iter().filter(|l| l.kind != LineKind::Added).count()
    }

    /// The number of new-side (context and added) lines in the body.
    pub fn new_len(&self) -> usize {
        self.lines.iter().filter(|l| l.kind != LineKind::Removed).count()
    }
}

/// The ranges of a hunk header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HunkRanges {
    /// `-a,b`.
    pub old: HunkRange,
    /// `+c,d`.
    pub new: HunkRange,
}

/// One side's range: its first line (1-based; 0 for an empty side at the start) and its
/// line count as the header gave it (1 when omitted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HunkRange {
    /// The first line.
    pub start: usize,
    /// The number of lines.
    pub count: usize,
}

/// A line of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HunkLine<'a> {
    /// Its kind.
    pub kind: LineKind,
    /// Its text after the prefix, without a trailing `\r` (kept before a `\ No newline`
    /// marker, where it is the file's last byte).
    pub text: &'a str,
    /// The line ended with `\r\n` in the patch: the file's line ends with CRLF.
    pub cr: bool,
    /// A `\ No newline at end of file` line follows: this line has no terminator.
    pub no_newline: bool,
    /// The line in the patch, prefix included.
    pub span: Span,
}

/// The kind of a hunk line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineKind {
    /// ` x`, or an empty line: in both sides.
    Context,
    /// `-x`: in the old side only.
    Removed,
    /// `+x`: in the new side only.
    Added,
}

/// A `GIT binary patch`: forward and (optional) reverse data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BinaryPatch {
    /// Old → new.
    pub forward: BinaryHunk,
    /// New → old.
    pub reverse: Option<BinaryHunk>,
    /// From the `GIT binary patch` line through the last data line.
    pub span: Span,
}

/// One block of a binary patch, inflated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BinaryHunk {
    /// `literal <size>`: the whole content.
    Literal(Vec<u8>),
    /// `delta <size>`: a git delta.
    Delta(Vec<u8>),
}

/// Parses a unified diff: every file section in `text`, skipping any text around them.
///
/// `GIT binary patch` data may expand to at most [`DEFAULT_MAX_BINARY_SIZE`] bytes a block
/// and [`DEFAULT_MAX_TOTAL_BINARY_SIZE`](polypatch_core::DEFAULT_MAX_TOTAL_BINARY_SIZE) in
/// all; see [`parse_with_limit`] for another limit.
pub fn parse(text: &str) -> Result<Patch<'_>, PatchError> {
    parse_with_limit(text, DEFAULT_MAX_BINARY_SIZE)
}

/// [`parse`], with the most bytes one `GIT binary patch` block may expand to: the size a
/// `literal` block announces, the result size in a `delta`'s header, and the inflated
/// data itself (inflating stops at the limit, so a lying header costs no more). A block
/// over it is an error of kind `binary_too_large`; blocks that expand to more than
/// [`DEFAULT_MAX_TOTAL_BINARY_SIZE`](polypatch_core::DEFAULT_MAX_TOTAL_BINARY_SIZE) together,
/// one of kind `binary_total_too_large`.
pub fn parse_with_limit(text: &str, max_binary_size: u64) -> Result<Patch<'_>, PatchError> {
    let mut files = Vec::new();
    for_each_section(text, &ParseOptions::default().max_binary_size(max_binary_size), |section| files.push(section))?;
    Ok(Patch { files })
}

/// [`parse_with_limit`] with the binary limits of `options`, handing each file section to
/// `each` as soon as it is read instead of keeping them all: a large diff's sections can
/// be used (and dropped) one at a time. The error is the one [`parse_with_limit`] gives,
/// found after `each` has seen the sections before it. Returns the warnings: one per
/// section skipped for [`ParseOptions::skip_binary_without_data`].
pub(crate) fn for_each_section<'a>(
    text: &'a str,
    options: &ParseOptions,
    mut each: impl FnMut(FilePatch<'a>),
) -> Result<Vec<String>, PatchError> {
    let mut parser = LineParser {
        lines: Lines::new(text),
        pos: 0,
        max_binary_size: options.max_binary_size,
        max_total_binary_size: options.max_total_binary_size,
        binary_expanded: options.binary_expanded_before,
        skip_binary_without_data: options.skip_binary_without_data,
        skipped: Vec::new(),
    };
    let mut any = false;
    while let Some(line) = parser.line() {
        let t = line.text;
        if t.starts_with(DIFF_GIT) {
            if let Some(section) = parser.git_section()? {
                each(section);
            }
            any = true;
        } else if parser.file_header_pair_at(parser.pos) {
            each(parser.plain_section()?);
            any = true;
        } else if looks_like_hunk_header(t) {
            return Err(error(
                HUNK_OUTSIDE_FILE,
                format!(
                    "hunk header {} outside a file section; start the file with `--- a/<path>` and `+++ b/<path>` lines",
                    quote(t)
                ),
                Some(line.span()),
            ));
        } else if let Some(names) = binary_files_differ(t) {
            parser.skip_binary(names, line)?;
            any = true;
        } else {
            // The text stops mid-line in what begins a hunk or a file after a diff: the
            // rest of the diff was cut off.
            if any
                && parser.pos + 1 == parser.lines.len()
                && ["@@ ", "diff --git "].iter().any(|head| head.starts_with(t))
                && let Some(e) = PatchError::truncated(DIALECT, text, ", where the next hunk or file begins")
            {
                return Err(e);
            }
            parser.pos += 1;
        }
    }
    if !any {
        return Err(error(
            NO_DIFF,
            "no diff found: expected `diff --git` lines, or `--- <old>` and `+++ <new>` lines followed by `@@` hunks",
            None,
        ));
    }
    Ok(parser.skipped)
}

/// How strongly `text` looks like a unified diff (0–100): 90 for a `diff --git` line, 80
/// for `---`, `+++` and `@@` lines, 50 for a `@@ -a,b +c,d @@` line alone, else 0.
pub(crate) fn sniff(text: &str) -> u8 {
    // Every score needs a `diff --git ` or an `@@` line: a text without those strings
    // scores 0, found without reading it line by line.
    let git = text.contains(DIFF_GIT);
    if !git && !text.contains("@@") {
        return 0;
    }
    scan(text, git)
}

/// [`sniff`] line by line, every line read: what the tests hold `sniff` to.
#[cfg(test)]
pub(crate) fn sniff_lines(text: &str) -> u8 {
    scan(text, true)
}

/// `sniff_lines` (what the tests call); without `may_be_git`, the text holds no
/// `diff --git ` at all, so the score is known as soon as a `---`, a `+++` and an `@@`
/// line were seen (the rest of a long diff is not read).
fn scan(text: &str, may_be_git: bool) -> u8 {
    let (mut old, mut new, mut hunk, mut numbered) = (false, false, false, false);
    for line in text.lines() {
        if line.starts_with(DIFF_GIT) {
            return 90;
        }
        old |= line.starts_with("--- ");
        new |= line.starts_with("+++ ");
        if line.starts_with("@@") {
            hunk = true;
            numbered |= matches!(parse_hunk_header(line), Ok(HunkHeader { ranges: Some(_), .. }));
        }
        if old && new && hunk && !may_be_git {
            return 80;
        }
    }
    if old && new && hunk {
        80
    } else if numbered {
        50
    } else {
        0
    }
}

fn looks_like_hunk_header(t: &str) -> bool {
    t == "@@" || t.starts_with("@@ -") || t.starts_with("@@ @@") || t.starts_with("@@@")
}

/// `Binary files X and Y differ`: the `X and Y` part.
fn binary_files_differ(t: &str) -> Option<&str> {
    t.strip_prefix("Binary files ")?.strip_suffix(" differ")
}

fn binary_without_data(names: &str, span: Span) -> PatchError {
    error(
        BINARY_WITHOUT_DATA,
        format!(
            "binary files {} differ, but the diff has no data for them; regenerate the diff with `git diff \
             --binary`, or apply the rest and leave that file as it is (`--skip-binary-without-data`, \
             `ParseOptions::skip_binary_without_data`)",
            match names.split_once(" and ") {
                Some((old, new)) => format!("{} and {}", quote(old), quote(new)),
                None => quote(names),
            }
        ),
        Some(span),
    )
}

/// One line of the text: without `\n` and a trailing `\r`, and where it starts.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    /// The line with its `\r`, if it had one.
    raw: &'a str,
    cr: bool,
    start: usize,
}

impl Line<'_> {
    fn span(&self) -> Span {
        Span::new(self.start, self.start + self.text.len())
    }

    /// The span of the line's text from byte `at`.
    fn span_from(&self, at: usize) -> Span {
        Span::new(self.start + at.min(self.text.len()), self.start + self.text.len())
    }

    fn end(&self) -> usize {
        self.start + self.text.len()
    }
}

/// The lines of a text, found with one `memchr` pass: only where each starts is stored,
/// and a [`Line`] is made when asked for.
struct Lines<'a> {
    text: &'a str,
    /// Where each line starts, then one past the `\n` of the last (as if it had one).
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// A byte order mark at the start is skipped; no line for the empty piece after a
    /// final newline; no lines at all for an empty text (or a mark alone).
    fn new(text: &'a str) -> Self {
        let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
        let body = &text[bom..];
        let body = body.strip_suffix('\n').unwrap_or(body);
        if body.is_empty() && bom == text.len() {
            return Lines { text, starts: Vec::new() };
        }
        // One pass: the capacity is a guess (diff lines are rarely shorter than 32 bytes
        // on average), not a count, which would read the text twice.
        let mut starts = Vec::with_capacity(body.len() / 32 + 2);
        starts.push(bom);
        for at in memchr::memchr_iter(b'\n', body.as_bytes()) {
            starts.push(bom + at + 1);
        }
        starts.push(bom + body.len() + 1);
        Lines { text, starts }
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    fn get(&self, i: usize) -> Option<Line<'a>> {
        let (&start, &next) = (self.starts.get(i)?, self.starts.get(i + 1)?);
        // Both ends are at a line's start or its `\n`, so always on character boundaries.
        let raw = &self.text[start..next - 1];
        let stripped = raw.strip_suffix('\r');
        Some(Line { text: stripped.unwrap_or(raw), raw, cr: stripped.is_some(), start })
    }

    /// Line `i`, which the caller knows exists.
    fn at(&self, i: usize) -> Line<'a> {
        self.get(i).expect("a line the parser has seen")
    }
}

/// A hunk's body lines as they are read.
struct Body<'a> {
    lines: Vec<HunkLine<'a>>,
    /// The last line pushed, until a `\` line follows it.
    previous: Option<Line<'a>>,
}

impl<'a> Body<'a> {
    fn new(capacity: usize) -> Self {
        Body { lines: Vec::with_capacity(capacity), previous: None }
    }

    /// Adds the body line `line`: a ` `, `-`, `+` or empty line, or a `\` marker.
    fn push(&mut self, line: Line<'a>) {
        let (kind, text) = match line.text.as_bytes().first() {
            None => (LineKind::Context, ""),
            Some(b' ') => (LineKind::Context, &line.text[1..]),
            Some(b'-') => (LineKind::Removed, &line.text[1..]),
            Some(b'+') => (LineKind::Added, &line.text[1..]),
            _ => {
                // `\ No newline at end of file` (in any language): the line before has no
                // terminator, so a `\r` it ended with is its last byte, not half a CRLF.
                if let (Some(last), Some(raw)) = (self.lines.last_mut(), self.previous.take())
                    && !last.no_newline
                {
                    last.no_newline = true;
                    if last.cr {
                        // An empty line stands for a context line without its prefix.
                        last.text = if raw.text.is_empty() { raw.raw } else { raw.raw.get(1..).unwrap_or("") };
                        last.cr = false;
                    }
                }
                return;
            }
        };
        self.previous = Some(line);
        self.lines.push(HunkLine { kind, text, cr: line.cr, no_newline: false, span: line.span() });
    }
}

struct LineParser<'a> {
    lines: Lines<'a>,
    pos: usize,
    /// The most bytes a binary block may expand to.
    max_binary_size: u64,
    /// The most bytes every binary block together may expand to.
    max_total_binary_size: u64,
    /// The bytes binary blocks expanded to so far (with the patches parsed before).
    binary_expanded: u64,
    /// [`ParseOptions::skip_binary_without_data`].
    skip_binary_without_data: bool,
    /// A warning per section skipped for it.
    skipped: Vec<String>,
}

impl<'a> LineParser<'a> {
    /// At a `Binary files X and Y differ` line (`names`: `X and Y`): refused, or with
    /// [`ParseOptions::skip_binary_without_data`] passed over with a warning.
    fn skip_binary(&mut self, names: &str, line: Line<'a>) -> Result<(), PatchError> {
        if !self.skip_binary_without_data {
            return Err(binary_without_data(names, line.span()));
        }
        let (old, new) = names.split_once(" and ").unwrap_or((names, names));
        let file = if new == "/dev/null" { old } else { new };
        let file = file.strip_prefix("b/").or_else(|| file.strip_prefix("a/")).unwrap_or(file);
        self.skipped.push(format!(
            "skipped {}: the diff says only that the binary files differ, with no data (made without `git diff \
             --binary`); that file is left as it is",
            quote(file)
        ));
        self.pos += 1;
        Ok(())
    }

    fn line(&self) -> Option<Line<'a>> {
        self.lines.get(self.pos)
    }

    fn text_at(&self, i: usize) -> Option<&'a str> {
        self.lines.get(i).map(|l| l.text)
    }

    /// A `--- x` line followed by a `+++ y` line starts a section.
    fn file_header_pair_at(&self, i: usize) -> bool {
        self.text_at(i).is_some_and(|t| t.starts_with("--- "))
            && self.text_at(i + 1).is_some_and(|t| t.starts_with("+++ "))
    }

    /// The section at a `diff --git` line; `None` when it was skipped
    /// ([`LineParser::skip_binary`]).
    fn git_section(&mut self) -> Result<Option<FilePatch<'a>>, PatchError> {
        let first = self.lines.at(self.pos);
        let names = path::parse_git_names(&first.text[DIFF_GIT.len()..]).map_err(|e| {
            error(INVALID_PATH, format!("bad name in `diff --git` line: {}", e.message), Some(first.span()))
        })?;
        let mut section = FilePatch::empty(Some(GitLine { names, span: first.span() }), first.span());
        self.pos += 1;
        while let Some(line) = self.line() {
            match extended_header(line)? {
                Some(header) => {
                    section.headers.push(ExtendedHeader { header, span: line.span() });
                    section.span.end = line.end();
                    self.pos += 1;
                }
                None => break,
            }
        }
        if let Some(line) = self.line() {
            if line.text.starts_with("--- ") {
                if !self.text_at(self.pos + 1).is_some_and(|t| t.starts_with("+++ ")) {
                    return Err(error(
                        MISSING_NEW_HEADER,
                        format!("{} must be followed by a `+++ <new name>` line", quote(line.text)),
                        Some(line.span()),
                    ));
                }
                self.file_names(&mut section)?;
            } else if line.text == BINARY_PATCH {
                // For messages only: the new name as git writes it, without its `b/`.
                let name = section
                    .git
                    .as_ref()
                    .and_then(|g| g.names.as_ref())
                    .map(|(_, new)| new.strip_prefix("b/").unwrap_or(new).to_string());
                section.binary = Some(self.binary(name.as_deref())?);
                section.span.end = section.binary.as_ref().map_or(section.span.end, |b| b.span.end);
            } else if let Some(names) = binary_files_differ(line.text) {
                self.skip_binary(names, line)?;
                return Ok(None);
            }
        }
        self.hunks(&mut section)?;
        if section.headers.is_empty() && section.old.is_none() && section.hunks.is_empty() && section.binary.is_none() {
            return Err(error(
                EMPTY_SECTION,
                "the `diff --git` line is followed by no header, hunk or binary data",
                Some(first.span()),
            ));
        }
        Ok(Some(section))
    }

    fn plain_section(&mut self) -> Result<FilePatch<'a>, PatchError> {
        let first = self.lines.at(self.pos);
        let mut section = FilePatch::empty(None, first.span());
        self.file_names(&mut section)?;
        self.hunks(&mut section)?;
        if section.hunks.is_empty() {
            return Err(error(
                EMPTY_SECTION,
                "the `---`/`+++` lines are followed by no `@@` hunk",
                Some(Span::new(first.start, section.span.end)),
            ));
        }
        Ok(section)
    }

    /// Reads the `---` and `+++` lines at the current position.
    fn file_names(&mut self, section: &mut FilePatch<'a>) -> Result<(), PatchError> {
        let read = |line: Line<'a>| -> Result<FileName, PatchError> {
            let (name, epoch) = path::parse_name(&line.text[4..])
                .map_err(|e| error(INVALID_PATH, e.message, Some(line.span_from(4))))?;
            Ok(FileName { name, epoch, span: line.span() })
        };
        let old = self.lines.at(self.pos);
        let new = self.lines.at(self.pos + 1);
        section.old = Some(read(old)?);
        section.new = Some(read(new)?);
        section.span.end = new.end();
        self.pos += 2;
        Ok(())
    }

    /// Reads the hunks at the current position: `@@` lines (blank lines between them are
    /// skipped) and their bodies.
    fn hunks(&mut self, section: &mut FilePatch<'a>) -> Result<(), PatchError> {
        loop {
            let mut next = self.pos;
            while self.text_at(next).is_some_and(|t| t.trim().is_empty()) {
                next += 1;
            }
            let Some(t) = self.text_at(next) else { return Ok(()) };
            if !t.starts_with("@@") {
                return Ok(());
            }
            self.pos = next;
            let hunk = self.hunk()?;
            section.span.end = hunk.span.end;
            section.hunks.push(hunk);
        }
    }

    fn hunk(&mut self) -> Result<Hunk<'a>, PatchError> {
        let header_line = self.lines.at(self.pos);
        let header = parse_hunk_header(header_line.text)
            .map_err(|message| error(INVALID_HUNK_HEADER, message, Some(header_line.span())))?;
        let body_start = self.pos + 1;
        // The body is read by the header's counts, its lines kept as they are read: when
        // the counts fit (the usual case), that one pass is all. Otherwise it is read again
        // without them.
        let mut body =
            Body::new(header.ranges.map_or(0, |r| {
                r.old.count.saturating_add(r.new.count).min(self.lines.len().saturating_sub(body_start))
            }));
        let counted = header.ranges.and_then(|r| self.counted_body(body_start, r, &mut body));
        let (end, recounted) = match counted {
            // Read to the end of both counts: the body has exactly the lines they say.
            Some(end) if self.ends_body(end) => (end, false),
            _ => {
                let end = self.greedy_end(body_start);
                body = Body::new(end - body_start);
                for i in body_start..end {
                    body.push(self.lines.at(i));
                }
                (end, true)
            }
        };
        let lines = body.lines;
        self.pos = end;
        let span_end = if end > body_start { self.lines.at(end - 1).end() } else { header_line.end() };
        let span = Span::new(header_line.start, span_end);
        if lines.is_empty() {
            return Err(error(
                EMPTY_HUNK,
                "the hunk has no lines; write its context (` `), removed (`-`) and added (`+`) lines",
                Some(header_line.span()),
            ));
        }
        let mut hunk = Hunk {
            ranges: header.ranges,
            section: header.section,
            lines,
            recounted: true,
            header_span: header_line.span(),
            span,
        };
        hunk.recounted =
            recounted && header.ranges.is_none_or(|r| r.old.count != hunk.old_len() || r.new.count != hunk.new_len());
        if let Some(r) = header.ranges
            && end == self.lines.len()
            && (hunk.old_len() < r.old.count || hunk.new_len() < r.new.count)
            && !self.lines.at(end - 1).text.starts_with('\\')
        {
            // Shorter than its header and stopped mid-line: a reply cut off, not a count a
            // model got wrong (a complete diff's last line ends with a line break, or has
            // a `\ No newline at end of file` line after it).
            let detail = format!(
                ", inside a hunk its header {} counts {} old and {} new lines for (the text has {} and {})",
                quote(header_line.text),
                r.old.count,
                r.new.count,
                hunk.old_len(),
                hunk.new_len()
            );
            if let Some(e) = PatchError::truncated(DIALECT, self.lines.text, &detail) {
                return Err(e);
            }
        }
        Ok(hunk)
    }

    /// Reads the body by the header's counts into `body`: where it ends, if they fit the
    /// text.
    fn counted_body(&self, start: usize, ranges: HunkRanges, body: &mut Body<'a>) -> Option<usize> {
        let (mut old, mut new) = (ranges.old.count, ranges.new.count);
        let mut i = start;
        while old > 0 || new > 0 {
            let line = self.lines.get(i)?;
            let t = line.text;
            if t.starts_with("@@") || t.starts_with(DIFF_GIT) || (t.starts_with("--- ") && self.next_section_at(i)) {
                return None;
            }
            match t.as_bytes().first() {
                None | Some(b' ') => {
                    old = old.checked_sub(1)?;
                    new = new.checked_sub(1)?;
                }
                Some(b'-') => old = old.checked_sub(1)?,
                Some(b'+') => new = new.checked_sub(1)?,
                Some(b'\\') => {}
                _ => return None,
            }
            body.push(line);
            i += 1;
        }
        while let Some(line) = self.lines.get(i).filter(|l| l.text.starts_with('\\')) {
            body.push(line);
            i += 1;
        }
        Some(i)
    }

    /// A `--- x` / `+++ y` pair followed by a hunk header: the next file, even where a
    /// count would read `--- x` as a removed line.
    fn next_section_at(&self, i: usize) -> bool {
        self.file_header_pair_at(i) && self.text_at(i + 2).is_some_and(|t| t.starts_with("@@"))
    }

    /// The counted body ends at line `i`: the text ends there or a line that cannot be in
    /// a hunk starts there.
    fn ends_body(&self, i: usize) -> bool {
        !self.continues_hunk(i)
    }

    /// Whether line `i` reads as a hunk body line (an empty line is one).
    fn continues_hunk(&self, i: usize) -> bool {
        let Some(t) = self.text_at(i) else { return false };
        if self.file_header_pair_at(i) || self.signature_at(i) {
            return false;
        }
        matches!(t.as_bytes().first(), None | Some(b' ' | b'+' | b'-' | b'\\'))
    }

    /// A mail signature separator (`-- ` then a non-hunk line, as `git format-patch`
    /// writes before the version): not a removed line.
    fn signature_at(&self, i: usize) -> bool {
        self.text_at(i) == Some("-- ")
            && self.text_at(i + 1).is_none_or(|t| !matches!(t.as_bytes().first(), Some(b' ' | b'+' | b'-')))
    }

    /// Where the body ends when read without counts: every line that reads as a body line;
    /// empty lines only when more body lines follow.
    fn greedy_end(&self, start: usize) -> usize {
        let mut i = start;
        let mut end = start;
        while let Some(t) = self.text_at(i) {
            if t.is_empty() {
                i += 1;
                continue;
            }
            if !self.continues_hunk(i) {
                break;
            }
            i += 1;
            end = i;
        }
        end
    }

    fn binary(&mut self, name: Option<&str>) -> Result<BinaryPatch, PatchError> {
        let start = self.lines.at(self.pos).start;
        self.pos += 1;
        let forward = self.binary_block(name)?.ok_or_else(|| {
            let at = self.line().map_or(Span::new(start, start + BINARY_PATCH.len()), |l| l.span());
            error(INVALID_BINARY, "`GIT binary patch` must be followed by `literal <size>` or `delta <size>`", Some(at))
        })?;
        let reverse = self.binary_block(name)?;
        let end = self.lines.at(self.pos - 1).end();
        Ok(BinaryPatch { forward, reverse, span: Span::new(start, end) })
    }

    /// A `literal <size>` / `delta <size>` block at the current position and the empty
    /// line after it.
    fn binary_block(&mut self, name: Option<&str>) -> Result<Option<BinaryHunk>, PatchError> {
        let Some(head) = self.line() else { return Ok(None) };
        let (is_literal, size) = if let Some(size) = head.text.strip_prefix("literal ") {
            (true, size)
        } else if let Some(size) = head.text.strip_prefix("delta ") {
            (false, size)
        } else {
            return Ok(None);
        };
        let size: usize = size
            .trim()
            .parse()
            .map_err(|_| error(INVALID_BINARY, format!("bad size in {}", quote(head.text)), Some(head.span())))?;
        let too_large = |what: &str, size: u64| {
            let file = name.map_or(String::new(), |n| format!(" for `{n}`"));
            error(
                BINARY_TOO_LARGE,
                format!(
                    "the binary patch{file} {what} {size} bytes, more than the limit of {} bytes; if the file is meant to be that large, raise the binary size limit",
                    self.max_binary_size
                ),
                Some(head.span()),
            )
        };
        // Each block counts against the whole patch's limit too, before it is decoded: the
        // data of many blocks under the per-file limit is held at once.
        let total_too_large = |what: &str, size: u64, reached: u64| {
            let file = name.map_or(String::new(), |n| format!(" for `{n}`"));
            error(
                BINARY_TOTAL_TOO_LARGE,
                format!(
                    "the binary data of the patch reaches {reached} bytes with the binary patch{file}, which {what} {size} \
                     bytes: more than the limit of {} bytes for all the binary data of a patch; if it is meant to be \
                     that large, raise the limit with `--max-total-binary-size BYTES` \
                     (`ParseOptions::max_total_binary_size`)",
                    self.max_total_binary_size
                ),
                Some(head.span()),
            )
        };
        let what = if is_literal { "announces" } else { "announces a delta of" };
        if size as u64 > self.max_binary_size {
            return Err(too_large(what, size as u64));
        }
        let reached = self.binary_expanded.saturating_add(size as u64);
        if reached > self.max_total_binary_size {
            return Err(total_too_large(what, size as u64, reached));
        }
        self.pos += 1;
        let first = self.pos;
        while self.text_at(self.pos).is_some_and(|t| !t.is_empty()) {
            self.pos += 1;
        }
        let data = self.block_data(first, size, head, name)?;
        if is_literal {
            self.binary_expanded = reached;
        } else {
            // The delta's own header announces the size of its result: the file written.
            let (_, result) = polypatch_core::binary::delta_sizes(&data)
                .map_err(|e| error(INVALID_BINARY, format!("bad binary delta: {e}"), Some(head.span())))?;
            if result as u64 > self.max_binary_size {
                return Err(too_large("makes a file of", result as u64));
            }
            // The file it makes is computed when the plan is applied: counted now.
            let with_result = reached.saturating_add(result as u64);
            if with_result > self.max_total_binary_size {
                return Err(total_too_large("makes a file of", result as u64, with_result));
            }
            self.binary_expanded = with_result;
        }
        if self.pos < self.lines.len() {
            // The empty line that ends the block.
            self.pos += 1;
        }
        Ok(Some(if is_literal { BinaryHunk::Literal(data) } else { BinaryHunk::Delta(data) }))
    }

    /// The inflated data of the block whose data lines run from `first` to the current
    /// position, announced as `size` bytes on the line `head`.
    #[cfg(feature = "git-binary")]
    fn block_data(&self, first: usize, size: usize, head: Line<'_>, _: Option<&str>) -> Result<Vec<u8>, PatchError> {
        let data_lines: Vec<&str> = (first..self.pos).map(|i| self.lines.at(i).text).collect();
        crate::binary::decode(&data_lines, size).map_err(|e| {
            let at =
                self.lines.get(first + e.line).filter(|_| e.line < data_lines.len()).map_or(head.span(), |l| l.span());
            error(INVALID_BINARY, format!("bad binary data: {}", e.message), Some(at))
        })
    }

    /// Without the `git-binary` feature, the data (zlib) cannot be read: refused.
    #[cfg(not(feature = "git-binary"))]
    #[allow(clippy::unused_self, reason = "the feature's version reads the lines")]
    fn block_data(&self, _: usize, _: usize, head: Line<'_>, name: Option<&str>) -> Result<Vec<u8>, PatchError> {
        let patch =
            name.map_or_else(|| "a `GIT binary patch`".to_owned(), |n| format!("the `GIT binary patch` of `{n}`"));
        Err(error(
            UNSUPPORTED_BINARY,
            format!(
                "{patch} cannot be read: this build of polypatch lacks the `git-binary` feature (the zlib its data \
                 is compressed with); build polypatch with that feature (on by default; the polypatch command has \
                 it), or send the file whole"
            ),
            Some(head.span()),
        ))
    }
}

/// An extended header line, `None` when the line is not one.
fn extended_header(line: Line<'_>) -> Result<Option<Header>, PatchError> {
    let t = line.text;
    let mode = |prefix: &str| -> Result<u32, PatchError> {
        let value = &t[prefix.len()..];
        let mode = path::parse_mode(value).ok_or_else(|| {
            error(
                INVALID_MODE,
                format!("{} is not an octal file mode", quote(value)),
                Some(line.span_from(prefix.len())),
            )
        })?;
        match mode & 0o170_000 {
            0o100_000 | 0o120_000 | 0o160_000 => Ok(mode),
            _ => Err(error(
                INVALID_MODE,
                format!(
                    "mode {value} is not a regular file (100644, 100755), a symbolic link (120000) or a submodule (160000)"
                ),
                Some(line.span_from(prefix.len())),
            )),
        }
    };
    let name = |prefix: &str| -> Result<String, PatchError> {
        match path::parse_name(&t[prefix.len()..]) {
            Ok((PathName::Path(p), _)) => Ok(p),
            Ok((PathName::DevNull, _)) => Ok(path::DEV_NULL.to_owned()),
            Err(e) => Err(error(INVALID_PATH, e.message, Some(line.span_from(prefix.len())))),
        }
    };
    let percent = |prefix: &str| -> Result<u32, PatchError> {
        let value = &t[prefix.len()..];
        value.trim().strip_suffix('%').and_then(|n| n.parse().ok()).ok_or_else(|| {
            error(INVALID_HEADER, format!("{} is not a percentage", quote(value)), Some(line.span_from(prefix.len())))
        })
    };
    let header = if t.starts_with("old mode ") {
        Header::OldMode(mode("old mode ")?)
    } else if t.starts_with("new mode ") {
        Header::NewMode(mode("new mode ")?)
    } else if t.starts_with("new file mode ") {
        Header::NewFileMode(mode("new file mode ")?)
    } else if t.starts_with("deleted file mode ") {
        Header::DeletedFileMode(mode("deleted file mode ")?)
    } else if t.starts_with("similarity index ") {
        Header::Similarity(percent("similarity index ")?)
    } else if t.starts_with("dissimilarity index ") {
        Header::Dissimilarity(percent("dissimilarity index ")?)
    } else if t.starts_with("rename from ") {
        Header::RenameFrom(name("rename from ")?)
    } else if t.starts_with("rename old ") {
        Header::RenameFrom(name("rename old ")?)
    } else if t.starts_with("rename to ") {
        Header::RenameTo(name("rename to ")?)
    } else if t.starts_with("rename new ") {
        Header::RenameTo(name("rename new ")?)
    } else if t.starts_with("copy from ") {
        Header::CopyFrom(name("copy from ")?)
    } else if t.starts_with("copy to ") {
        Header::CopyTo(name("copy to ")?)
    } else if let Some(value) = t.strip_prefix("index ") {
        match index_ids(value) {
            Some((old, new, mode_text)) => {
                let mode = match mode_text {
                    Some(m) => Some(path::parse_mode(m).ok_or_else(|| {
                        error(INVALID_MODE, format!("{} is not an octal file mode", quote(m)), Some(line.span()))
                    })?),
                    None => None,
                };
                Header::Index { old: old.to_ascii_lowercase(), new: new.to_ascii_lowercase(), mode }
            }
            _ => {
                return Err(error(
                    INVALID_HEADER,
                    format!("{} is not `index <old id>..<new id> [<mode>]`", quote(t)),
                    Some(line.span()),
                ));
            }
        }
    } else {
        return Ok(None);
    };
    Ok(Some(header))
}

/// A hunk header, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct HunkHeader<'a> {
    ranges: Option<HunkRanges>,
    section: &'a str,
}

/// The ASCII digits at the start of `input` and the rest; `None` without one.
fn digits(input: &str) -> Option<(&str, &str)> {
    let n = input.bytes().take_while(u8::is_ascii_digit).count();
    (n > 0).then(|| input.split_at(n))
}

/// A decimal number at the start of `input` and the rest; `None` without a digit, or
/// when it does not fit a `usize`.
fn number(input: &str) -> Option<(usize, &str)> {
    let (digits, rest) = digits(input)?;
    let value = digits.bytes().try_fold(0usize, |n, d| n.checked_mul(10)?.checked_add(usize::from(d - b'0')))?;
    Some((value, rest))
}

/// Spaces and tabs at the start of `input` skipped.
fn skip_blanks(input: &str) -> &str {
    input.trim_start_matches([' ', '\t'])
}

/// `a[,b]`: a `,` not followed by a number is left unread.
fn range(input: &str) -> Option<(HunkRange, &str)> {
    let (start, rest) = number(input)?;
    let (count, rest) = rest.strip_prefix(',').and_then(number).unwrap_or((1, rest));
    Some((HunkRange { start, count }, rest))
}

/// `-a[,b] +c[,d]` (spaces or tabs between) and the rest.
fn ranges(input: &str) -> Option<(HunkRanges, &str)> {
    let (old, rest) = range(input.strip_prefix('-')?)?;
    let after = skip_blanks(rest);
    if after.len() == rest.len() {
        return None;
    }
    let (new, rest) = range(after.strip_prefix('+')?)?;
    Some((HunkRanges { old, new }, rest))
}

/// `<old>..<new>[ <mode>]` after `index `: hex ids, and the mode's digits (a blank
/// without digits after it is left unread); `None` unless only blanks follow.
fn index_ids(value: &str) -> Option<(&str, &str, Option<&str>)> {
    fn hex(s: &str) -> Option<(&str, &str)> {
        let n = s.bytes().take_while(u8::is_ascii_hexdigit).count();
        (n > 0).then(|| s.split_at(n))
    }
    let (old, rest) = hex(value)?;
    let (new, rest) = hex(rest.strip_prefix("..")?)?;
    let after = skip_blanks(rest);
    let (mode, rest) = match digits(after) {
        Some((mode, after_mode)) if after.len() < rest.len() => (Some(mode), after_mode),
        _ => (None, rest),
    };
    rest.trim().is_empty().then_some((old, new, mode))
}

/// Reads `@@ -a,b +c,d @@ section`, `@@ @@`, `@@` and `@@ text` (a header without
/// numbers). A missing closing `@@` after the ranges is tolerated.
fn parse_hunk_header(t: &str) -> Result<HunkHeader<'_>, String> {
    let rest = t.strip_prefix("@@").ok_or_else(|| format!("{} is not a hunk header", quote(t)))?;
    if rest.starts_with('@') {
        return Err(format!("{} is a combined diff's hunk header (`@@@`), which is not supported", quote(t)));
    }
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return Err(format!("{} is not a hunk header; expected `@@ -a,b +c,d @@`", quote(t)));
    }
    let rest = rest.trim_start();
    if rest.starts_with('-') {
        let Some((ranges, after)) = ranges(rest) else {
            return Err(format!("{} is not a hunk header; expected `@@ -a,b +c,d @@` with line numbers", quote(t)));
        };
        let after = skip_blanks(after);
        let section = match after.strip_prefix("@@") {
            Some(section) => section.trim(),
            None if after.is_empty() => "",
            None => return Err(format!("{} is not a hunk header; expected `@@` after the line ranges", quote(t))),
        };
        return Ok(HunkHeader { ranges: Some(ranges), section });
    }
    let section = rest.strip_prefix("@@").unwrap_or(rest).trim();
    Ok(HunkHeader { ranges: None, section })
}

#[cfg(test)]
mod tests;
