//! Byte spans into patch text, and their rendering as line and column.

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

use crate::text::eol::LineBreaks;

/// A byte range `start..end` in the patch text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[non_exhaustive]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// The 1-based line and column (in characters) of the span's start in `source`, whose
    /// lines end with `\n` (a `\r` before it is part of the line break).
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        self.line_col_with(source, LineBreaks::LfOrCrLf)
    }

    /// The 1-based line and column of the span's start in `source`, its lines split as
    /// `breaks` says (YAML, like [`LineBreaks::Any`], also ends a line at a lone `\r`).
    pub fn line_col_with(&self, source: &str, breaks: LineBreaks) -> (usize, usize) {
        let start = floor_char_boundary(source, self.start.min(source.len()));
        let (line, line_start) = locate_line(source, start, breaks);
        let col = source[line_start..start].chars().count() + 1;
        (line, col)
    }

    /// Renders `message` with the span's line, the source line and a caret under it,
    /// like `toml_edit`: `at line 3, column 1` + the line + `^^^`.
    pub fn render(&self, source: &str, message: &str) -> String {
        self.render_with(source, message, LineBreaks::LfOrCrLf)
    }

    /// [`Span::render`] with `source`'s lines split as `breaks` says.
    pub fn render_with(&self, source: &str, message: &str, breaks: LineBreaks) -> String {
        let (line, col) = self.line_col_with(source, breaks);
        let start = floor_char_boundary(source, self.start.min(source.len()));
        let (_, line_start) = locate_line(source, start, breaks);
        let ends: &[char] = if breaks == LineBreaks::Any { &['\n', '\r'] } else { &['\n'] };
        let line_end = source[line_start..].find(ends).map_or(source.len(), |i| line_start + i);
        let text = source[line_start..line_end].trim_end_matches('\r');
        let end = floor_char_boundary(source, self.end.clamp(start, line_end));
        let width = source[start..end].chars().count().max(1);
        let gutter = line.to_string().len();
        // A long line (minified code, a one-line JSON bundle) is shown as a window around
        // the column, so that an error never prints megabytes.
        let (shown, offset) = window(text, col - 1);
        format!(
            "{message}\n{pad} --> line {line}, column {col}\n{pad} |\n{line} | {shown}\n{pad} | {caret_pad}{carets}",
            pad = " ".repeat(gutter),
            caret_pad = " ".repeat(offset),
            carets = "^".repeat(width.min(WINDOW_AFTER)),
        )
    }
}

/// The lines of a patch text as a dialect's parser reads them: each without its `\n` or
/// `\r\n` and with its span in `text`; a leading byte order mark is skipped, and a last
/// line without a terminator counts (an empty text has no line).
///
/// ```
/// use polypatch_core::{Span, spanned_lines};
///
/// let lines = spanned_lines("\u{feff}a\r\nb");
/// assert_eq!(lines, [("a", Span::new(3, 4)), ("b", Span::new(6, 7))]);
/// assert!(spanned_lines("").is_empty());
/// ```
pub fn spanned_lines(text: &str) -> Vec<(&str, Span)> {
    let bom = usize::from(text.starts_with('\u{feff}')) * '\u{feff}'.len_utf8();
    let breaks = memchr::memchr_iter(b'\n', &text.as_bytes()[bom..]);
    let mut out = Vec::with_capacity(breaks.clone().count() + 1);
    let mut push = |start: usize, end: usize| {
        let body = text[start..end].strip_suffix('\r').unwrap_or(&text[start..end]);
        out.push((body, Span::new(start, start + body.len())));
    };
    let mut start = bom;
    for end in breaks.map(|i| bom + i) {
        push(start, end);
        start = end + 1;
    }
    // The piece after the last `\n`, unless the text ends there.
    if start < text.len() {
        push(start, text.len());
    }
    out
}

/// The byte offset of 1-based `line` and `column` (a byte column, as a JSON parser such as
/// `serde_json` reports an error's place) in `text`, clamped to the text and moved back to
/// a char boundary. Lines end at `\n`.
///
/// ```
/// use polypatch_core::offset_at;
///
/// assert_eq!(offset_at("{\n  \"a\": x\n}", 2, 8), 9);
/// assert_eq!(offset_at("é", 1, 2), 0); // inside `é`: its start
/// assert_eq!(offset_at("ab", 5, 1), 2);
/// ```
pub fn offset_at(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let mut at = (start + column.saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The 1-based number of the line that holds byte `at` of `source`, and the byte where
/// that line starts: `\n` and `\r\n` end a line, and with [`LineBreaks::Any`] a lone `\r`
/// too (the split [`crate::TextFile`] makes of a file).
pub fn locate_line(source: &str, at: usize, breaks: LineBreaks) -> (usize, usize) {
    let bytes = source.as_bytes();
    let at = at.min(bytes.len());
    let (mut line, mut start) = (1, 0);
    for i in memchr::memchr2_iter(b'\n', b'\r', &bytes[..at]) {
        let lone_cr = bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
        if bytes[i] == b'\n' || (lone_cr && breaks == LineBreaks::Any) {
            line += 1;
            start = i + 1;
        }
    }
    (line, start)
}

/// Characters shown before and after the column of an error on a long line.
const WINDOW_BEFORE: usize = 60;
const WINDOW_AFTER: usize = 100;

/// `text` as shown for an error at character `col`: whole when short, else the
/// characters around `col` with `…` for what is left out; and the column in what is shown.
fn window(text: &str, col: usize) -> (std::borrow::Cow<'_, str>, usize) {
    let total = text.chars().count();
    if total <= WINDOW_BEFORE + WINDOW_AFTER {
        return (std::borrow::Cow::Borrowed(text), col);
    }
    let from = col.saturating_sub(WINDOW_BEFORE);
    let to = (col + WINDOW_AFTER).min(total);
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.extend(text.chars().skip(from).take(to - from));
    if to < total {
        shown.push('…');
    }
    (std::borrow::Cow::Owned(shown), col - from + usize::from(from > 0))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_column() {
        let line = format!("{}X{}", "a".repeat(5_000), "b".repeat(5_000));
        let at = 5_000;
        let shown = Span::new(at, at + 1).render_with(&line, "bad", LineBreaks::Any);
        assert!(shown.len() < 400, "{} bytes", shown.len());
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[1], "  --> line 1, column 5001");
        let text = lines[3].strip_prefix("1 | ").unwrap();
        let caret = lines[4].strip_prefix("  | ").unwrap();
        assert!(text.starts_with('…') && text.ends_with('…'), "{text}");
        // The caret stands under the X.
        assert_eq!(text.chars().nth(caret.chars().count() - 1), Some('X'), "{text}\n{caret}");
        // A short line is shown whole.
        let shown = Span::new(2, 3).render_with("abXd", "bad", LineBreaks::Any);
        assert!(shown.ends_with("1 | abXd\n  |   ^"), "{shown}");
    }

    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let src = "ab\ncdé f\n";
        let at = src.find('f').unwrap();
        assert_eq!(Span::new(at, at + 1).line_col(src), (2, 5));
    }

    #[test]
    fn lone_cr_ends_a_line_only_where_the_text_is_split_so() {
        let src = "one\rtwo\r\nthree\nfour\rfive";
        let at = src.find("five").unwrap();
        assert_eq!(Span::new(at, at + 4).line_col_with(src, LineBreaks::Any), (5, 1));
        assert_eq!(Span::new(at, at + 4).line_col(src), (3, 6));
        let two = src.find("two").unwrap();
        assert_eq!(Span::new(two, two + 3).line_col_with(src, LineBreaks::Any), (2, 1));
        let out = Span::new(at, at + 4).render_with(src, "here", LineBreaks::Any);
        assert!(out.contains("line 5, column 1\n"), "{out}");
        assert!(out.contains("5 | five\n"), "{out}");
        // The line of a `\r\n`'s `\r` is the line it ends.
        let cr = src.find("\r\n").unwrap();
        assert_eq!(Span::new(cr, cr + 1).line_col_with(src, LineBreaks::Any), (2, 4));
    }

    #[test]
    fn render_points_at_text() {
        let src = "*** Begin Patch\n*** Frob File: x\n";
        let at = src.find("*** Frob").unwrap();
        let out = Span::new(at, at + 8).render(src, "unknown header");
        assert!(out.contains("line 2, column 1"), "{out}");
        assert!(out.contains("2 | *** Frob File: x"), "{out}");
        assert!(out.ends_with("^^^^^^^^"), "{out}");
    }
}
