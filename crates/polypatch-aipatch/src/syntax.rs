//! Parse AI-PATCH text into a small syntax tree that keeps byte spans.
//!
//! The grammar is line-oriented, so the parser is a hand-written loop over lines. Every
//! span is a byte range into the text exactly as given: wrappers (a heredoc, a code
//! fence), a byte order mark and `\r` line endings are skipped by moving offsets, never by
//! rewriting the text.

use polypatch_core::{PatchError, Span};

use crate::error::{
    CONTENT_AFTER_END, DIALECT, EMPTY_HUNK, EMPTY_PATCH, EMPTY_UPDATE, INVALID_ADD_LINE, INVALID_DELETE_LINE,
    INVALID_HEADER, INVALID_HUNK_HEADER, INVALID_HUNK_LINE, INVALID_LINE_HINT, MISSING_BEGIN, MISSING_END,
    MISSING_PATH, error, quote,
};

const BEGIN_PATCH: &str = "*** Begin Patch";
const END_PATCH: &str = "*** End Patch";
const ADD_FILE: &str = "*** Add File:";
const DELETE_FILE: &str = "*** Delete File:";
const UPDATE_FILE: &str = "*** Update File:";
const MOVE_TO: &str = "*** Move to:";
const END_OF_FILE: &str = "*** End of File";

/// A parsed patch: its file operations in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Patch<'a> {
    /// The operations between `*** Begin Patch` and `*** End Patch`.
    pub ops: Vec<Op<'a>>,
    /// From `*** Begin Patch` through `*** End Patch`.
    pub span: Span,
}

/// One file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Op<'a> {
    /// `*** Add File: <path>` and its `+` lines.
    Add {
        /// The path as written (surrounding whitespace removed).
        path: &'a str,
        /// The file's lines, each without its `+`.
        lines: Vec<&'a str>,
        /// The header line.
        span: Span,
    },
    /// `*** Delete File: <path>`.
    Delete {
        /// The path as written.
        path: &'a str,
        /// The header line.
        span: Span,
    },
    /// `*** Update File: <path>`, an optional `*** Move to: <path>`, and hunks.
    Update {
        /// The path as written.
        path: &'a str,
        /// The destination of `*** Move to:`.
        move_to: Option<&'a str>,
        /// The hunks, at least one.
        hunks: Vec<Hunk<'a>>,
        /// The header line (through the `*** Move to:` line when there is one).
        span: Span,
    },
}

impl Op<'_> {
    /// The path the operation names.
    pub fn path(&self) -> &str {
        match self {
            Op::Add { path, .. } | Op::Delete { path, .. } | Op::Update { path, .. } => path,
        }
    }

    /// The span of the operation's header.
    pub fn span(&self) -> Span {
        match self {
            Op::Add { span, .. } | Op::Delete { span, .. } | Op::Update { span, .. } => *span,
        }
    }
}

/// One hunk of an update.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Hunk<'a> {
    /// How the hunk was introduced.
    pub header: HunkHeader<'a>,
    /// The body lines, in order. Never empty.
    pub lines: Vec<HunkLine<'a>>,
    /// The hunk ended with `*** End of File`: it must end at the file's last line.
    pub end_of_file: bool,
    /// From the `@@` line (or the first body line when it was omitted) through the last
    /// body line or the `*** End of File` line.
    pub span: Span,
}

/// How a hunk was introduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HunkHeader<'a> {
    /// `@@` alone, or no header at all (the first hunk of an update).
    None,
    /// `@@ :N`: the hunk is expected at 1-based line N.
    Hint(usize),
    /// `@@ <line>`: Codex's change context, a line the hunk comes after.
    Context(&'a str),
    /// `@@ -a,b +c,d @@`, a unified-diff hunk header a model wrote instead.
    Unified {
        /// `a`: the first line of the old side.
        old_start: usize,
        /// `b`, when written.
        old_len: Option<usize>,
        /// `c`: the first line of the new side.
        new_start: usize,
        /// `d`, when written.
        new_len: Option<usize>,
    },
}

/// One body line of a hunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct HunkLine<'a> {
    /// Context, removal or addition.
    pub kind: LineKind,
    /// The line without its prefix character.
    pub text: &'a str,
    /// The whole line in the patch, prefix included (empty for an empty line).
    pub span: Span,
}

/// What a hunk body line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LineKind {
    /// ` x` or an empty line: the line is in the file and stays.
    Context,
    /// `-x`: the line is in the file and goes.
    Remove,
    /// `+x`: the line is added.
    Add,
}

/// Parses AI-PATCH text into its syntax tree.
pub fn parse(text: &str) -> Result<Patch<'_>, PatchError> {
    let lines = split_lines(text);
    let (lo, hi) = unwrap(&lines);
    if lo >= hi {
        return Err(error(MISSING_BEGIN, "the patch is empty; it must start with `*** Begin Patch`", None));
    }
    let begin = lines[lo];
    if begin.trimmed() != BEGIN_PATCH {
        return Err(error(
            MISSING_BEGIN,
            format!("the patch must start with `{BEGIN_PATCH}`, found {}", quote(begin.trimmed())),
            Some(begin.trimmed_span()),
        ));
    }
    let last = hi - 1;
    if last == lo || lines[last].trimmed() != END_PATCH {
        if let Some(end) = (lo + 1..hi).rev().find(|&i| lines[i].trimmed() == END_PATCH) {
            return Err(after_end(&lines[end + 1..hi]));
        }
        // The last line is the text's own and has no line break: cut off mid-line.
        if last + 1 == lines.len()
            && let Some(e) = PatchError::truncated(DIALECT, text, &format!(", before `{END_PATCH}`"))
        {
            return Err(e);
        }
        return Err(error(
            MISSING_END,
            format!("the patch must end with `{END_PATCH}`; it may have been cut off"),
            Some(lines[last].trimmed_span()),
        ));
    }
    let span = Span::new(begin.trimmed_span().start, lines[last].trimmed_span().end);
    if lines[lo + 1..last].iter().all(Line::is_blank) {
        return Err(error(EMPTY_PATCH, "the patch has no file operation", Some(span)));
    }
    let mut parser = Parser { lines: &lines, end: last, pos: lo + 1 };
    let ops = parser.ops()?;
    Ok(Patch { ops, span })
}

/// One line of the patch text: its text without `\n` or a trailing `\r`, and where it
/// starts.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    start: usize,
}

impl<'a> Line<'a> {
    fn span(&self) -> Span {
        Span::new(self.start, self.start + self.text.len())
    }

    fn trimmed(&self) -> &'a str {
        self.text.trim()
    }

    fn trimmed_span(&self) -> Span {
        let lead = self.text.len() - self.text.trim_start().len();
        let start = self.start + lead;
        Span::new(start, start + self.trimmed().len())
    }

    fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

fn split_lines(text: &str) -> Vec<Line<'_>> {
    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    let body = &text[bom..];
    // One line per `\n`, and the piece after the last one (empty after a final newline).
    let breaks = memchr::memchr_iter(b'\n', body.as_bytes());
    let mut lines = Vec::with_capacity(breaks.clone().count() + 1);
    let mut start = bom;
    for end in breaks.map(|at| bom + at).chain([text.len()]) {
        let piece = &text[start..end];
        lines.push(Line { text: piece.strip_suffix('\r').unwrap_or(piece), start });
        start = end + 1;
    }
    lines
}

fn unwrap(lines: &[Line<'_>]) -> (usize, usize) {
    let (mut lo, mut hi) = (0, lines.len());
    loop {
        while lo < hi && lines[lo].is_blank() {
            lo += 1;
        }
        while hi > lo && lines[hi - 1].is_blank() {
            hi -= 1;
        }
        if lo >= hi {
            return (lo, hi);
        }
        let first = lines[lo].trimmed();
        if let Some((mark, len)) = fence_opener(first) {
            lo += 1;
            if hi > lo && is_fence_closer(lines[hi - 1].trimmed(), mark, len) {
                hi -= 1;
            }
        } else if let Some(delimiter) = heredoc_delimiter(first) {
            lo += 1;
            if hi > lo && lines[hi - 1].trimmed() == delimiter {
                hi -= 1;
            }
        } else {
            return (lo, hi);
        }
    }
}

/// A markdown fence opener (```` ``` ````, ```` ```diff ````, `~~~`): its character and length.
fn fence_opener(line: &str) -> Option<(char, usize)> {
    let mark = line.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = line.chars().take_while(|&c| c == mark).count();
    let info = &line[len..];
    (len >= 3 && !(mark == '`' && info.contains('`'))).then_some((mark, len))
}

fn is_fence_closer(line: &str, mark: char, len: usize) -> bool {
    line.chars().all(|c| c == mark) && line.len() >= len
}

/// The delimiter of a heredoc opener line: `<<EOF`, `<<'EOF'`, `<<"EOF"`, optionally after
/// `apply_patch` or `applypatch`.
fn heredoc_delimiter(line: &str) -> Option<&str> {
    let mut rest = line;
    for command in ["apply_patch", "applypatch"] {
        if let Some(after) = line.strip_prefix(command)
            && after.starts_with(|c: char| c.is_whitespace() || c == '<')
        {
            rest = after.trim_start();
        }
    }
    let word = rest.strip_prefix("<<")?.trim_start();
    let delimiter = match word.chars().next()? {
        quote @ ('\'' | '"') => word[1..].strip_suffix(quote)?,
        _ => word,
    };
    let valid = !delimiter.is_empty() && delimiter.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(delimiter)
}

/// The error for text after `*** End Patch`; `rest` holds the lines after the marker and
/// at least one of them is not blank.
fn after_end(rest: &[Line<'_>]) -> PatchError {
    let line = rest.iter().find(|l| !l.is_blank()).expect("text after the end marker");
    error(
        CONTENT_AFTER_END,
        format!("text after `{END_PATCH}`: {}; a patch ends at its end marker", quote(line.trimmed())),
        Some(line.trimmed_span()),
    )
}

/// A line read as a header: `***` lines, after trimming.
enum Header<'a> {
    Add(&'a str),
    Delete(&'a str),
    Update(&'a str),
    MoveTo(&'a str),
    EndOfFile,
    BeginPatch,
    EndPatch,
    Unknown,
}

fn header(trimmed: &str) -> Option<Header<'_>> {
    if !trimmed.starts_with("***") {
        return None;
    }
    let header = if let Some(path) = trimmed.strip_prefix(ADD_FILE) {
        Header::Add(path.trim())
    } else if let Some(path) = trimmed.strip_prefix(DELETE_FILE) {
        Header::Delete(path.trim())
    } else if let Some(path) = trimmed.strip_prefix(UPDATE_FILE) {
        Header::Update(path.trim())
    } else if let Some(path) = trimmed.strip_prefix(MOVE_TO) {
        Header::MoveTo(path.trim())
    } else {
        match trimmed {
            END_OF_FILE => Header::EndOfFile,
            BEGIN_PATCH => Header::BeginPatch,
            END_PATCH => Header::EndPatch,
            _ => Header::Unknown,
        }
    };
    Some(header)
}

/// A hunk being read.
struct OpenHunk<'a> {
    header: HunkHeader<'a>,
    start: usize,
    end: usize,
    lines: Vec<HunkLine<'a>>,
    /// Empty lines not yet known to be context: they are context when a body line follows
    /// (or `*** End of File`), separators when the hunk ends.
    pending: Vec<Line<'a>>,
    /// The `@@` line (or the first body line), for errors.
    header_span: Span,
}

impl<'a> OpenHunk<'a> {
    fn new(header: HunkHeader<'a>, span: Span) -> Self {
        OpenHunk { header, start: span.start, end: span.end, lines: Vec::new(), pending: Vec::new(), header_span: span }
    }

    fn push(&mut self, kind: LineKind, text: &'a str, span: Span) {
        self.flush_pending();
        self.lines.push(HunkLine { kind, text, span });
        self.end = span.end;
    }

    /// The pending empty lines turn out to be blank context lines.
    fn flush_pending(&mut self) {
        for blank in self.pending.drain(..) {
            self.lines.push(HunkLine { kind: LineKind::Context, text: "", span: blank.span() });
        }
    }

    /// Ends the hunk; `end_of_file` is the `*** End of File` line that ends it, if any.
    fn close(mut self, end_of_file: Option<Span>) -> Result<Hunk<'a>, PatchError> {
        if let Some(marker) = end_of_file {
            self.flush_pending();
            self.end = marker.end;
        }
        // Only an `@@` hunk can be empty: an implicit one starts at a body line.
        if self.lines.is_empty() {
            return Err(error(
                EMPTY_HUNK,
                "the hunk has no lines; write its context (` `), removed (`-`) and added (`+`) lines",
                Some(self.header_span),
            ));
        }
        Ok(Hunk {
            header: self.header,
            lines: self.lines,
            end_of_file: end_of_file.is_some(),
            span: Span::new(self.start, self.end),
        })
    }
}

struct Parser<'s, 'a> {
    /// Every line of the text.
    lines: &'s [Line<'a>],
    /// The index of the final `*** End Patch` line.
    end: usize,
    pos: usize,
}

impl<'a> Parser<'_, 'a> {
    /// The current line, if it is before the final `*** End Patch`.
    fn line(&self) -> Option<Line<'a>> {
        (self.pos < self.end).then(|| self.lines[self.pos])
    }

    fn ops(&mut self) -> Result<Vec<Op<'a>>, PatchError> {
        let mut ops = Vec::new();
        while self.pos < self.end {
            if self.lines[self.pos].is_blank() {
                self.pos += 1;
            } else {
                ops.push(self.op()?);
            }
        }
        Ok(ops)
    }

    fn op(&mut self) -> Result<Op<'a>, PatchError> {
        let line = self.lines[self.pos];
        let span = line.trimmed_span();
        let expected = "expected `*** Add File: <path>`, `*** Delete File: <path>` or `*** Update File: <path>`";
        match header(line.trimmed()) {
            Some(Header::Add(path)) => {
                let path = require_path(path, ADD_FILE, span)?;
                self.pos += 1;
                let lines = self.add_body()?;
                Ok(Op::Add { path, lines, span })
            }
            Some(Header::Delete(path)) => {
                let path = require_path(path, DELETE_FILE, span)?;
                self.pos += 1;
                self.delete_body()?;
                Ok(Op::Delete { path, span })
            }
            Some(Header::Update(path)) => {
                let path = require_path(path, UPDATE_FILE, span)?;
                self.pos += 1;
                let mut span = span;
                let mut move_to = None;
                if let Some(next) = self.line()
                    && let Some(Header::MoveTo(to)) = header(next.trimmed())
                {
                    move_to = Some(require_path(to, MOVE_TO, next.trimmed_span())?);
                    span.end = next.trimmed_span().end;
                    self.pos += 1;
                }
                let hunks = self.hunks()?;
                if hunks.is_empty() {
                    return Err(error(
                        EMPTY_UPDATE,
                        format!("`{UPDATE_FILE} {path}` has no hunk; give at least one `@@` hunk of changes"),
                        Some(span),
                    ));
                }
                Ok(Op::Update { path, move_to, hunks, span })
            }
            Some(Header::EndPatch) => Err(after_end(&self.lines[self.pos + 1..=self.end])),
            Some(Header::MoveTo(_)) => Err(error(
                INVALID_HEADER,
                format!("`{MOVE_TO}` must directly follow its `{UPDATE_FILE}` line"),
                Some(span),
            )),
            Some(Header::EndOfFile) => {
                Err(error(INVALID_HEADER, format!("`{END_OF_FILE}` must end a hunk of `{UPDATE_FILE}`"), Some(span)))
            }
            Some(Header::BeginPatch) => {
                Err(error(INVALID_HEADER, format!("a second `{BEGIN_PATCH}` inside the patch; {expected}"), Some(span)))
            }
            Some(Header::Unknown) => Err(error(
                INVALID_HEADER,
                format!("{} is not a valid header; {expected}", quote(line.trimmed())),
                Some(span),
            )),
            None => Err(error(INVALID_HEADER, format!("{expected}, found {}", quote(line.trimmed())), Some(span))),
        }
    }

    /// The `+` lines after `*** Add File:`, up to the next `***` line.
    fn add_body(&mut self) -> Result<Vec<&'a str>, PatchError> {
        let mut lines = Vec::new();
        while let Some(line) = self.line() {
            if let Some(content) = line.text.strip_prefix('+') {
                lines.push(content);
            } else if line.trimmed().starts_with("***") {
                break;
            } else {
                return Err(error(
                    INVALID_ADD_LINE,
                    format!(
                        "every line of an added file starts with `+` (`+` alone for an empty line), found {}",
                        quote(line.text)
                    ),
                    Some(line.span()),
                ));
            }
            self.pos += 1;
        }
        Ok(lines)
    }

    /// Blank lines only, up to the next `***` line.
    fn delete_body(&mut self) -> Result<(), PatchError> {
        while let Some(line) = self.line() {
            if line.trimmed().starts_with("***") {
                break;
            }
            if !line.is_blank() {
                return Err(error(
                    INVALID_DELETE_LINE,
                    format!("`{DELETE_FILE}` takes no lines, found {}", quote(line.text)),
                    Some(line.span()),
                ));
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// The hunks of an update, up to the next file header (or the end of the patch).
    fn hunks(&mut self) -> Result<Vec<Hunk<'a>>, PatchError> {
        let mut hunks = Vec::new();
        let mut open: Option<OpenHunk<'a>> = None;
        while let Some(line) = self.line() {
            let kind = match line.text.as_bytes().first() {
                None => None,
                Some(b' ') => Some(LineKind::Context),
                Some(b'-') => Some(LineKind::Remove),
                Some(b'+') => Some(LineKind::Add),
                Some(_) => {
                    let trimmed = line.trimmed();
                    if trimmed.starts_with("@@") {
                        if let Some(hunk) = open.take() {
                            hunks.push(hunk.close(None)?);
                        }
                        open = Some(OpenHunk::new(hunk_header(line)?, line.trimmed_span()));
                        self.pos += 1;
                        continue;
                    }
                    if trimmed == END_OF_FILE {
                        let Some(hunk) = open.take() else {
                            return Err(error(
                                EMPTY_HUNK,
                                format!("`{END_OF_FILE}` with no hunk before it"),
                                Some(line.trimmed_span()),
                            ));
                        };
                        hunks.push(hunk.close(Some(line.trimmed_span()))?);
                        self.pos += 1;
                        continue;
                    }
                    if trimmed.starts_with("***") {
                        break;
                    }
                    return Err(error(
                        INVALID_HUNK_LINE,
                        format!(
                            "{} is not a hunk line; start each line with ` ` (context), `-` (remove) or `+` (add)",
                            quote(line.text)
                        ),
                        Some(line.span()),
                    ));
                }
            };
            let hunk = match &mut open {
                Some(hunk) => hunk,
                // Empty lines outside a hunk separate hunks (or the header from the first).
                None if kind.is_none() => {
                    self.pos += 1;
                    continue;
                }
                // The first hunk of an update may omit its `@@`.
                None if hunks.is_empty() => open.insert(OpenHunk::new(HunkHeader::None, line.span())),
                None => {
                    return Err(error(
                        INVALID_HUNK_LINE,
                        format!("a new hunk after `{END_OF_FILE}` must start with `@@`"),
                        Some(line.span()),
                    ));
                }
            };
            match kind {
                Some(kind) => hunk.push(kind, &line.text[1..], line.span()),
                None => hunk.pending.push(line),
            }
            self.pos += 1;
        }
        if let Some(hunk) = open {
            hunks.push(hunk.close(None)?);
        }
        Ok(hunks)
    }
}

fn require_path<'a>(path: &'a str, header: &str, span: Span) -> Result<&'a str, PatchError> {
    if path.is_empty() {
        return Err(error(MISSING_PATH, format!("`{header}` needs a path: `{header} <path>`"), Some(span)));
    }
    Ok(path)
}

/// Reads an `@@` line (its trimmed text starts with `@@`).
fn hunk_header(line: Line<'_>) -> Result<HunkHeader<'_>, PatchError> {
    let text = line.text.trim_start();
    let rest = &text[2..];
    let inner = rest.trim();
    let inner_start = line.start + (line.text.len() - text.len()) + 2 + (rest.len() - rest.trim_start().len());
    let inner_span = Span::new(inner_start, inner_start + inner.len());
    if inner.is_empty() || inner == "@@" {
        return Ok(HunkHeader::None);
    }
    if let Some(number) = inner.strip_prefix(':') {
        return match number.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(HunkHeader::Hint(n)),
            _ => Err(error(
                INVALID_LINE_HINT,
                format!("a line hint is `@@ :N` with N a line number from 1, found `@@ {inner}`"),
                Some(inner_span),
            )),
        };
    }
    if let Some(header) = unified_header(inner) {
        return Ok(header);
    }
    match rest.strip_prefix([' ', '\t']) {
        Some(context) => Ok(HunkHeader::Context(context)),
        None => Err(error(
            INVALID_HUNK_HEADER,
            format!("{} is not a hunk header; write `@@`, `@@ :N` or `@@ <a line above the change>`", quote(text)),
            Some(line.trimmed_span()),
        )),
    }
}

/// `-a[,b] +c[,d]`, alone or followed by ` @@` and anything.
fn unified_header(inner: &str) -> Option<HunkHeader<'_>> {
    let (old_start, old_len, rest) = range(inner.strip_prefix('-')?)?;
    let after = rest.trim_start();
    if after.len() == rest.len() {
        return None;
    }
    let (new_start, new_len, rest) = range(after.strip_prefix('+')?)?;
    let after = rest.trim_start();
    let ends = after.is_empty() || (after.len() < rest.len() && after.starts_with("@@"));
    ends.then_some(HunkHeader::Unified { old_start, old_len, new_start, new_len })
}

/// `N` or `N,M` at the start of `text`, and what follows.
fn range(text: &str) -> Option<(usize, Option<usize>, &str)> {
    let (start, rest) = number(text)?;
    match rest.strip_prefix(',') {
        Some(rest) => {
            let (len, rest) = number(rest)?;
            Some((start, Some(len), rest))
        }
        None => Some((start, None, rest)),
    }
}

fn number(text: &str) -> Option<(usize, &str)> {
    let digits = text.len() - text.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    Some((text[..digits].parse().ok()?, &text[digits..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{
        CONTENT_AFTER_END, EMPTY_HUNK, EMPTY_PATCH, EMPTY_UPDATE, INVALID_ADD_LINE, INVALID_DELETE_LINE,
        INVALID_HEADER, INVALID_HUNK_HEADER, INVALID_HUNK_LINE, INVALID_LINE_HINT, MISSING_BEGIN, MISSING_END,
        MISSING_PATH,
    };
    use polypatch_core::ErrorKind;

    #[test]
    fn lines_match_a_split_on_newlines() {
        const PIECES: &[&str] = &["", "\n", "\r\n", "\r", "a", "\u{feff}", "\u{feff}x\n", "é\r", "\n\n"];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    let text = format!("{a}{b}{c}");
                    let bom = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
                    let mut start = bom;
                    let expected: Vec<(&str, usize)> = text[bom..]
                        .split('\n')
                        .map(|piece| {
                            let line = (piece.strip_suffix('\r').unwrap_or(piece), start);
                            start += piece.len() + 1;
                            line
                        })
                        .collect();
                    let got: Vec<(&str, usize)> = split_lines(&text).iter().map(|l| (l.text, l.start)).collect();
                    assert_eq!(got, expected, "{text:?}");
                }
            }
        }
    }

    /// The span of the only occurrence of `needle` in `text`.
    fn at(text: &str, needle: &str) -> Span {
        let start = text.find(needle).expect("needle in text");
        assert_eq!(text.matches(needle).count(), 1, "{needle:?} occurs once");
        Span::new(start, start + needle.len())
    }

    /// The error's kind and the text its span covers.
    fn fail(text: &str) -> (ErrorKind, Option<&str>) {
        let err = parse(text).expect_err("the patch is malformed");
        assert_eq!(err.dialect, "ai-patch");
        (err.kind, err.span.map(|s| &text[s.start..s.end]))
    }

    fn hunks<'p, 'a>(patch: &'p Patch<'a>) -> &'p [Hunk<'a>] {
        match patch.ops.as_slice() {
            [Op::Update { hunks, .. }] => hunks.as_slice(),
            other => panic!("expected one update, got {other:?}"),
        }
    }

    /// `(kind, text)` of every line of every hunk.
    fn bodies<'a>(patch: &Patch<'a>) -> Vec<Vec<(LineKind, &'a str)>> {
        hunks(patch).iter().map(|h| h.lines.iter().map(|l| (l.kind, l.text)).collect()).collect()
    }

    fn update(body: &str) -> String {
        format!("*** Begin Patch\n*** Update File: f.txt\n{body}*** End Patch\n")
    }

    use LineKind::{Add, Context, Remove};

    #[test]
    fn add_file_lines_without_plus() {
        let text = "*** Begin Patch\n*** Add File: dir/a.txt\n+one\n+\n+  two\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(
            patch.ops,
            [Op::Add { path: "dir/a.txt", lines: vec!["one", "", "  two"], span: at(text, "*** Add File: dir/a.txt") }]
        );
        assert_eq!(patch.span, Span::new(0, text.len() - 1));
    }

    #[test]
    fn add_file_with_no_lines_is_empty() {
        let text = "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch";
        assert_eq!(
            parse(text).unwrap().ops,
            [Op::Add { path: "empty.txt", lines: vec![], span: at(text, "*** Add File: empty.txt") }]
        );
    }

    #[test]
    fn add_file_rejects_a_line_without_plus() {
        let text = "*** Begin Patch\n*** Add File: a\n+one\ntwo\n+three\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_ADD_LINE, Some("two")));
        // An empty line could be content that lost its `+`: rejected, pointing at it.
        let text = "*** Begin Patch\n*** Add File: a\n+one\n\n+three\n*** End Patch\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.kind, INVALID_ADD_LINE);
        let blank = text.find("\n\n").unwrap() + 1;
        assert_eq!(err.span, Some(Span::new(blank, blank)));
        // A context line where a `+` line belongs.
        let text = "*** Begin Patch\n*** Add File: a\n+one\n two\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_ADD_LINE, Some(" two")));
    }

    #[test]
    fn delete_file_has_no_body() {
        let text = "*** Begin Patch\n*** Delete File: old.txt\n\n*** End Patch\n";
        assert_eq!(
            parse(text).unwrap().ops,
            [Op::Delete { path: "old.txt", span: at(text, "*** Delete File: old.txt") }]
        );
        let text = "*** Begin Patch\n*** Delete File: old.txt\n-gone\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_DELETE_LINE, Some("-gone")));
    }

    #[test]
    fn update_with_move_to() {
        let text = "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n*** End Patch\n";
        let patch = parse(text).unwrap();
        let [Op::Update { path, move_to, hunks, span }] = patch.ops.as_slice() else { panic!("{:?}", patch.ops) };
        assert_eq!((*path, *move_to), ("old/name.txt", Some("renamed/dir/name.txt")));
        assert_eq!(&text[span.start..span.end], "*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt");
        assert_eq!(hunks.len(), 1);
    }

    #[test]
    fn move_to_must_follow_its_update_header() {
        let text = "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Move to: b\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HEADER, Some("*** Move to: b")));
        let text = "*** Begin Patch\n*** Move to: b\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HEADER, Some("*** Move to: b")));
    }

    #[test]
    fn update_without_hunk_is_empty_update() {
        // Codex scenario 008.
        let text = "*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n";
        assert_eq!(fail(text), (EMPTY_UPDATE, Some("*** Update File: foo.txt")));
        // Blank lines are no hunk, and a move alone is still an empty update.
        let text =
            "*** Begin Patch\n*** Update File: foo.txt\n*** Move to: bar.txt\n\n\n*** Delete File: x\n*** End Patch\n";
        assert_eq!(fail(text), (EMPTY_UPDATE, Some("*** Update File: foo.txt\n*** Move to: bar.txt")));
    }

    #[test]
    fn unknown_headers_are_invalid() {
        // Codex scenario 013.
        let text = "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.kind, INVALID_HEADER);
        assert_eq!(&text[err.span.unwrap().start..err.span.unwrap().end], "*** Frobnicate File: foo");
        assert!(err.message.contains("`*** Frobnicate File: foo`"), "{}", err.message);
        // Case matters, as in Codex.
        let text = "*** Begin Patch\n*** add file: a\n+x\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HEADER, Some("*** add file: a")));
        // A body line where a header belongs.
        let text = "*** Begin Patch\n@@\n-x\n+y\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HEADER, Some("@@")));
        // A second begin marker.
        let text = "*** Begin Patch\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HEADER, Some("*** Begin Patch")));
        // `*** End of File` outside an update's hunk.
        let text = "*** Begin Patch\n*** Add File: a\n+x\n*** End of File\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HEADER, Some("*** End of File")));
    }

    #[test]
    fn headers_need_a_path() {
        for header in ["*** Add File:", "*** Delete File:  ", "*** Update File:\t"] {
            let text = format!("*** Begin Patch\n{header}\n*** End Patch\n");
            assert_eq!(fail(&text), (MISSING_PATH, Some(header.trim_end())), "{header}");
        }
        let text = "*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n-x\n*** End Patch\n";
        assert_eq!(fail(text), (MISSING_PATH, Some("*** Move to:")));
    }

    #[test]
    fn headers_may_be_padded() {
        // Codex scenario 017.
        let text = "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.ops[0].path(), "foo.txt");
        assert_eq!(patch.ops[0].span(), at(text, "*** Update File: foo.txt"));
        let text = "*** Begin Patch\n\t*** Delete File:   a b.txt \t\n *** Add File: c\n+x\n*** Update File: d \n  *** Move to: e  \n-y\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.ops.iter().map(Op::path).collect::<Vec<_>>(), ["a b.txt", "c", "d"]);
        assert!(matches!(patch.ops[2], Op::Update { move_to: Some("e"), .. }));
    }

    #[test]
    fn patch_markers_may_be_padded() {
        // Codex scenarios 018 and 020.
        for text in [
            " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n",
            "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n",
            "\t*** Begin Patch\t\n*** Update File: file.txt\n@@\n-one\n+two\n\t*** End Patch\t\n",
        ] {
            let patch = parse(text).unwrap();
            assert_eq!(bodies(&patch), [vec![(Remove, "one"), (Add, "two")]], "{text:?}");
            assert_eq!(&text[patch.span.start..patch.span.end], text.trim());
        }
    }

    #[test]
    fn missing_begin() {
        let text = "Here is the patch:\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n";
        assert_eq!(fail(text), (MISSING_BEGIN, Some("Here is the patch:")));
        let text = "*** Update File: a\n@@\n-x\n+y\n*** End Patch\n";
        assert_eq!(fail(text), (MISSING_BEGIN, Some("*** Update File: a")));
        assert_eq!(fail(""), (MISSING_BEGIN, None));
        assert_eq!(fail(" \n\t\n"), (MISSING_BEGIN, None));
    }

    #[test]
    fn missing_end_rejects_a_truncated_patch() {
        let text = "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n";
        assert_eq!(fail(text), (MISSING_END, Some("+y")));
        assert_eq!(fail("*** Begin Patch\n"), (MISSING_END, Some("*** Begin Patch")));
        // Cut off mid-line (issue 26, point 2): the text stops inside a line.
        let text = "*** Begin Patch\n*** Add File: a\n+x\n*** End Pat";
        assert_eq!(fail(text), (ErrorKind::TRUNCATED, Some("*** End Pat")));
        let text = "*** Begin Patch\n*** Update File: a\n@@\n x\n+    def database_backwards(self, app_l";
        assert_eq!(fail(text), (ErrorKind::TRUNCATED, Some("+    def database_backwards(self, app_l")));
        assert_eq!(
            parse(text).unwrap_err().message,
            "the patch ends in the middle of a line at line 5, before `*** End Patch`: the reply was probably cut \
             off; ask for it again"
        );
        // A blank tail is no half line.
        assert_eq!(fail("*** Begin Patch\n*** Add File: a\n+x\n  "), (MISSING_END, Some("+x")));
    }

    #[test]
    fn text_after_end_is_rejected() {
        let text = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\nThat should do it.\n";
        assert_eq!(fail(text), (CONTENT_AFTER_END, Some("That should do it.")));
        // Two patches in one text.
        let text =
            "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Begin Patch\n*** Delete File: b\n*** End Patch\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.kind, CONTENT_AFTER_END);
        assert_eq!(err.span.unwrap().start, text.rfind("*** Begin Patch").unwrap());
        // A doubled end marker.
        let text = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** End Patch\n";
        let err = parse(text).unwrap_err();
        assert_eq!(err.kind, CONTENT_AFTER_END);
        assert_eq!(err.span.unwrap(), Span::new(text.rfind("***").unwrap(), text.len() - 1));
        // An end marker ending a hunk early.
        let text = "*** Begin Patch\n*** Update File: a\n-x\n*** End Patch\n+y\n*** End Patch\n";
        assert_eq!(fail(text), (CONTENT_AFTER_END, Some("+y")));
    }

    #[test]
    fn empty_patch() {
        // Codex scenario 005.
        let text = "*** Begin Patch\n*** End Patch\n";
        assert_eq!(fail(text), (EMPTY_PATCH, Some("*** Begin Patch\n*** End Patch")));
        let text = "\n*** Begin Patch\n\n  \n*** End Patch\n\n";
        assert_eq!(fail(text), (EMPTY_PATCH, Some("*** Begin Patch\n\n  \n*** End Patch")));
    }

    const INNER: &str = "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch";

    /// `wrapped` parses to the same tree as [`INNER`], at shifted offsets.
    fn assert_unwraps(wrapped: &str) {
        let patch = parse(wrapped).unwrap_or_else(|e| panic!("{wrapped:?}: {e}"));
        assert_eq!(bodies(&patch), [vec![(Remove, "x"), (Add, "y")]], "{wrapped:?}");
        assert_eq!(patch.ops[0].span(), at(wrapped, "*** Update File: a.py"), "{wrapped:?}");
        assert_eq!(hunks(&patch)[0].span, at(wrapped, "@@\n-x\n+y"), "{wrapped:?}");
    }

    #[test]
    fn heredoc_wrappers() {
        for opener in [
            "apply_patch <<'EOF'",
            "apply_patch <<EOF",
            "apply_patch <<\"EOF\"",
            "<<'EOF'",
            "<<EOF",
            "applypatch << 'EOF'",
        ] {
            assert_unwraps(&format!("{opener}\n{INNER}\nEOF\n"));
        }
        assert_unwraps(&format!("apply_patch <<'PATCH'\n{INNER}\nPATCH"));
        // A missing terminator is tolerated: the end marker says the patch is whole.
        assert_unwraps(&format!("apply_patch <<'EOF'\n{INNER}\n"));
        // A terminator that does not match the opener is not one.
        let text = format!("apply_patch <<'EOF'\n{INNER}\nEND\n");
        assert_eq!(fail(&text), (CONTENT_AFTER_END, Some("END")));
        // Not a heredoc opener.
        let text = format!("cat <<'EOF'\n{INNER}\nEOF\n");
        assert_eq!(fail(&text), (MISSING_BEGIN, Some("cat <<'EOF'")));
        let text = format!("apply_patch <<'EOF\n{INNER}\nEOF\n");
        assert_eq!(fail(&text), (MISSING_BEGIN, Some("apply_patch <<'EOF")));
    }

    #[test]
    fn markdown_fence_wrappers() {
        assert_unwraps(&format!("```\n{INNER}\n```\n"));
        assert_unwraps(&format!("\n\n```diff\n{INNER}\n```\n\n"));
        assert_unwraps(&format!("~~~~ patch\n{INNER}\n~~~~~\n"));
        assert_unwraps(&format!("```bash\napply_patch <<'EOF'\n{INNER}\nEOF\n```\n"));
        assert_unwraps(&format!("apply_patch <<'EOF'\n```\n{INNER}\n```\nEOF\n"));
        // A closing fence shorter than the opener does not close it.
        let text = format!("````\n{INNER}\n```\n");
        assert_eq!(fail(&text), (CONTENT_AFTER_END, Some("```")));
    }

    #[test]
    fn leading_and_trailing_blank_lines() {
        assert_unwraps(&format!("\n \n\t\n{INNER}\n\n   \n"));
    }

    #[test]
    fn crlf_patch_text() {
        let lf = "*** Begin Patch\n*** Add File: a\n+one\n*** Update File: b\n@@ fn main() {\n-x\n\n+y\n*** End of File\n*** End Patch\n";
        let crlf = lf.replace('\n', "\r\n");
        let (lf_patch, crlf_patch) = (parse(lf).unwrap(), parse(&crlf).unwrap());
        assert_eq!(crlf_patch.ops[0], Op::Add { path: "a", lines: vec!["one"], span: at(&crlf, "*** Add File: a") });
        let Op::Update { hunks, .. } = &crlf_patch.ops[1] else { panic!() };
        assert_eq!(hunks[0].header, HunkHeader::Context("fn main() {"));
        assert_eq!(
            hunks[0].lines.iter().map(|l| (l.kind, l.text)).collect::<Vec<_>>(),
            [(Remove, "x"), (Context, ""), (Add, "y")]
        );
        assert_eq!(hunks[0].span, at(&crlf, "@@ fn main() {\r\n-x\r\n\r\n+y\r\n*** End of File"));
        // Every line's span leaves the `\r` out.
        for line in &hunks[0].lines {
            assert!(!crlf[line.span.start..line.span.end].contains('\r'));
        }
        let Op::Update { hunks: lf_hunks, .. } = &lf_patch.ops[1] else { panic!() };
        assert_eq!(lf_hunks[0].lines.iter().map(|l| l.text).collect::<Vec<_>>(), ["x", "", "y"]);
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let text = "\u{feff}*** Begin Patch\n*** Delete File: a\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.ops, [Op::Delete { path: "a", span: at(text, "*** Delete File: a") }]);
        assert_eq!(patch.span.start, 3);
    }

    fn header_of(line: &str) -> HunkHeader<'_> {
        let text = Line { text: line, start: 0 };
        hunk_header(text).unwrap()
    }

    #[test]
    fn hunk_header_forms() {
        assert_eq!(header_of("@@"), HunkHeader::None);
        assert_eq!(header_of("  @@  "), HunkHeader::None);
        assert_eq!(header_of("@@ @@"), HunkHeader::None);
        assert_eq!(header_of("@@ :12"), HunkHeader::Hint(12));
        assert_eq!(header_of("@@ : 7 "), HunkHeader::Hint(7));
        assert_eq!(header_of("@@:3"), HunkHeader::Hint(3));
        assert_eq!(
            header_of("@@ -12,7 +12,8 @@ fn main() {"),
            HunkHeader::Unified { old_start: 12, old_len: Some(7), new_start: 12, new_len: Some(8) }
        );
        assert_eq!(
            header_of("@@ -3 +4 @@"),
            HunkHeader::Unified { old_start: 3, old_len: None, new_start: 4, new_len: None }
        );
        assert_eq!(
            header_of("@@ -5,0 +6,2"),
            HunkHeader::Unified { old_start: 5, old_len: Some(0), new_start: 6, new_len: Some(2) }
        );
        assert_eq!(header_of("@@ def foo():"), HunkHeader::Context("def foo():"));
        // Kept verbatim after the one separating space: indentation and trailing spaces.
        assert_eq!(header_of("@@     def foo(self):  "), HunkHeader::Context("    def foo(self):  "));
        assert_eq!(header_of("@@\tclass A:"), HunkHeader::Context("class A:"));
        // Almost unified headers are context lines.
        assert_eq!(header_of("@@ -1,2 foo"), HunkHeader::Context("-1,2 foo"));
        assert_eq!(header_of("@@ -1,2 +3,4 trailing"), HunkHeader::Context("-1,2 +3,4 trailing"));
        assert_eq!(header_of("@@ -x +y @@"), HunkHeader::Context("-x +y @@"));
    }

    #[test]
    fn invalid_line_hints() {
        for (header, bad) in
            [("@@ :0", ":0"), ("@@ :abc", ":abc"), ("@@ :", ":"), ("@@ :-3", ":-3"), ("@@ :12 @@", ":12 @@")]
        {
            let text = update(&format!("{header}\n-x\n"));
            assert_eq!(fail(&text), (INVALID_LINE_HINT, Some(bad)), "{header}");
        }
    }

    #[test]
    fn invalid_hunk_header() {
        let text = update("@@foo\n-x\n");
        assert_eq!(fail(&text), (INVALID_HUNK_HEADER, Some("@@foo")));
    }

    #[test]
    fn hunk_lines_and_spans() {
        let text = update("@@ :3\n keep\n-old\n+new\n\n \n");
        let patch = parse(&text).unwrap();
        let hunk = &hunks(&patch)[0];
        assert_eq!(hunk.header, HunkHeader::Hint(3));
        assert!(!hunk.end_of_file);
        let lines: Vec<_> = hunk.lines.iter().map(|l| (l.kind, l.text, &text[l.span.start..l.span.end])).collect();
        // The empty line is context because a body line (` `, an explicit blank) follows.
        assert_eq!(
            lines,
            [
                (Context, "keep", " keep"),
                (Remove, "old", "-old"),
                (Add, "new", "+new"),
                (Context, "", ""),
                (Context, "", " ")
            ]
        );
        assert_eq!(hunk.span, at(&text, "@@ :3\n keep\n-old\n+new\n\n "));
    }

    #[test]
    fn first_hunk_may_omit_its_header() {
        let text = update(" a\n-b\n+c\n@@\n-d\n");
        let patch = parse(&text).unwrap();
        assert_eq!(bodies(&patch), [vec![(Context, "a"), (Remove, "b"), (Add, "c")], vec![(Remove, "d")]]);
        assert_eq!(hunks(&patch)[0].header, HunkHeader::None);
        assert_eq!(hunks(&patch)[0].span, at(&text, " a\n-b\n+c"));
        assert_eq!(hunks(&patch)[1].span, at(&text, "@@\n-d"));
    }

    #[test]
    fn end_of_file_marker() {
        // Codex scenario 022.
        let text = "*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n";
        let patch = parse(text).unwrap();
        let hunk = &hunks(&patch)[0];
        assert!(hunk.end_of_file);
        assert_eq!(hunk.span, at(text, "@@\n first\n-second\n+second updated\n*** End of File"));
        // Blank lines before the marker are the end of the file: they stay context.
        let text = update("@@\n-x\n\n\n*** End of File\n@@ :1\n+top\n");
        let patch = parse(&text).unwrap();
        assert_eq!(bodies(&patch), [vec![(Remove, "x"), (Context, ""), (Context, "")], vec![(Add, "top")]]);
        assert_eq!(hunks(&patch).iter().map(|h| h.end_of_file).collect::<Vec<_>>(), [true, false]);
    }

    #[test]
    fn after_end_of_file_a_hunk_needs_its_header() {
        let text = update("@@\n-x\n*** End of File\n+y\n");
        assert_eq!(fail(&text), (INVALID_HUNK_LINE, Some("+y")));
        // Blank lines after the marker are fine.
        let text = update("@@\n-x\n*** End of File\n\n@@\n-y\n");
        assert_eq!(bodies(&parse(&text).unwrap()), [vec![(Remove, "x")], vec![(Remove, "y")]]);
    }

    #[test]
    fn blank_lines_around_hunks_separate() {
        // Before the first hunk, at the end of a hunk, before the next header.
        let text = "*** Begin Patch\n*** Update File: a\n\n-x\n+y\n\n\n@@\n\n-z\n\n*** Delete File: b\n*** End Patch\n";
        let patch = parse(text).unwrap();
        let Op::Update { hunks, .. } = &patch.ops[0] else { panic!() };
        let bodies: Vec<Vec<_>> = hunks.iter().map(|h| h.lines.iter().map(|l| (l.kind, l.text)).collect()).collect();
        // The blank line right after an `@@` is context: it sits between the header and a body line.
        assert_eq!(bodies, [vec![(Remove, "x"), (Add, "y")], vec![(Context, ""), (Remove, "z")]]);
        assert_eq!(hunks[0].span, at(text, "-x\n+y"));
        assert_eq!(hunks[1].span, at(text, "@@\n\n-z"));
        // Blank lines before `*** End Patch`.
        let text = update("@@\n-x\n\n\n");
        assert_eq!(bodies_of(&text), [vec![(Remove, "x")]]);
    }

    fn bodies_of(text: &str) -> Vec<Vec<(LineKind, &str)>> {
        bodies(&parse(text).unwrap())
    }

    #[test]
    fn invalid_hunk_lines() {
        assert_eq!(fail(&update("@@\n-x\n\tindented\n")), (INVALID_HUNK_LINE, Some("\tindented")));
        assert_eq!(fail(&update("@@\n-x\nno prefix\n+y\n")), (INVALID_HUNK_LINE, Some("no prefix")));
        assert_eq!(fail(&update("no prefix\n")), (INVALID_HUNK_LINE, Some("no prefix")));
        let err = parse(&update("@@\n-x\n# comment\n")).unwrap_err();
        assert!(err.message.contains("`# comment` is not a hunk line"), "{}", err.message);
    }

    #[test]
    fn empty_hunks() {
        assert_eq!(fail(&update("@@\n@@\n-x\n")), (EMPTY_HUNK, Some("@@")));
        assert_eq!(fail(&update("-x\n@@ :3\n")), (EMPTY_HUNK, Some("@@ :3")));
        assert_eq!(fail(&update("-x\n@@ :3\n\n\n")), (EMPTY_HUNK, Some("@@ :3")));
        assert_eq!(fail(&update("@@ ctx\n*** End of File\n")), (EMPTY_HUNK, Some("@@ ctx")));
        assert_eq!(fail(&update("*** End of File\n")), (EMPTY_HUNK, Some("*** End of File")));
        let text = "*** Begin Patch\n*** Update File: a\n@@\n*** Delete File: b\n*** End Patch\n";
        assert_eq!(fail(text), (EMPTY_HUNK, Some("@@")));
    }

    #[test]
    fn a_header_ends_the_hunk() {
        let text = "*** Begin Patch\n*** Update File: a\n-x\n+y\n*** Add File: b\n+new\n*** Update File: c\n@@\n+z\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.ops.iter().map(Op::path).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert!(matches!(&patch.ops[1], Op::Add { lines, .. } if lines == &["new"]));
    }

    #[test]
    fn a_context_line_may_read_like_a_header() {
        // The file being edited documents this very format: ` ***` is context.
        let text = update("@@\n *** Update File: x\n-*** End of File\n+*** End Patch\n *** End of File\n");
        assert_eq!(
            bodies_of(&text),
            [vec![
                (Context, "*** Update File: x"),
                (Remove, "*** End of File"),
                (Add, "*** End Patch"),
                (Context, "*** End of File")
            ]]
        );
    }

    #[test]
    fn several_operations_in_order() {
        // Codex scenario 002.
        let text = "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(
            patch.ops[..2],
            [
                Op::Add {
                    path: "nested/new.txt",
                    lines: vec!["created"],
                    span: at(text, "*** Add File: nested/new.txt")
                },
                Op::Delete { path: "delete.txt", span: at(text, "*** Delete File: delete.txt") },
            ]
        );
        let Op::Update { path, move_to: None, hunks, span } = &patch.ops[2] else { panic!() };
        assert_eq!((*path, *span), ("modify.txt", at(text, "*** Update File: modify.txt")));
        assert_eq!(
            hunks,
            &[Hunk {
                header: HunkHeader::None,
                lines: vec![
                    HunkLine { kind: Remove, text: "line2", span: at(text, "-line2") },
                    HunkLine { kind: Add, text: "changed", span: at(text, "+changed") },
                ],
                end_of_file: false,
                span: at(text, "@@\n-line2\n+changed"),
            }]
        );
    }

    #[test]
    fn unicode_text_is_kept() {
        // Codex scenario 019.
        let text =
            "*** Begin Patch\n*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch\n";
        assert_eq!(bodies_of(text), [vec![(Context, "line1"), (Remove, "naïve café"), (Add, "naïve café ✅")]]);
        let text = "*** Begin Patch\n*** Update File: foo.txt\n@@\n-x\n£ y\n*** End Patch\n";
        assert_eq!(fail(text), (INVALID_HUNK_LINE, Some("£ y")));
    }

    #[test]
    fn paths_pass_through_as_written() {
        let text = "*** Begin Patch\n*** Delete File: /abs/path/x.ts\n*** Delete File: ../up.txt\n*** Delete File: a\\b.txt\n*** End Patch\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.ops.iter().map(Op::path).collect::<Vec<_>>(), ["/abs/path/x.ts", "../up.txt", "a\\b.txt"]);
    }
}
