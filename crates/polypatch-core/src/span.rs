//! Byte spans into patch text, and their rendering as line and column.

use serde::{Deserialize, Serialize};

use crate::ir::LineBreaks;

/// A byte range `start..end` in the patch text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
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
        format!(
            "{message}\n{pad} --> line {line}, column {col}\n{pad} |\n{line} | {text}\n{pad} | {caret_pad}{carets}",
            pad = " ".repeat(gutter),
            caret_pad = " ".repeat(col - 1),
            carets = "^".repeat(width),
        )
    }
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

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
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
