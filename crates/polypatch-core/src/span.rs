//! Byte spans into patch text, and their rendering as line and column.

use serde::{Deserialize, Serialize};

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

    /// The 1-based line and column (in characters) of the span's start in `source`.
    pub fn line_col(&self, source: &str) -> (usize, usize) {
        let start = self.start.min(source.len());
        let start = floor_char_boundary(source, start);
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = source[line_start..start].chars().count() + 1;
        (line, col)
    }

    /// Renders `message` with the span's line, the source line and a caret under it,
    /// like `toml_edit`: `at line 3, column 1` + the line + `^^^`.
    pub fn render(&self, source: &str, message: &str) -> String {
        let (line, col) = self.line_col(source);
        let start = floor_char_boundary(source, self.start.min(source.len()));
        let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = source[line_start..].find('\n').map_or(source.len(), |i| line_start + i);
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
    fn render_points_at_text() {
        let src = "*** Begin Patch\n*** Frob File: x\n";
        let at = src.find("*** Frob").unwrap();
        let out = Span::new(at, at + 8).render(src, "unknown header");
        assert!(out.contains("line 2, column 1"), "{out}");
        assert!(out.contains("2 | *** Frob File: x"), "{out}");
        assert!(out.ends_with("^^^^^^^^"), "{out}");
    }
}
