//! Text → blocks, with byte spans into the patch text.

use polypatch_core::{PatchError, Span};

use crate::error::{
    DIALECT, INVALID_FUZZ, INVALID_MODE, MISSING_FROM, MISSING_PATH, MISSING_TO, NO_BLOCKS, REPEATED_OPTION,
    REPLACE_WITH_FROM, STRAY_MARKER, UNCLOSED_BLOCK, UNKNOWN_OPTION, error,
};

/// What a block does to its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Mode {
    /// The `--- from` lines are located and replaced by the `--- to` lines.
    #[default]
    Patch,
    /// The `--- to` lines are the whole new file.
    Replace,
}

/// One `>>> file:` block.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Block<'a> {
    /// The path as written.
    pub path: &'a str,
    /// `mode=`.
    pub mode: Mode,
    /// `fuzz=`: the least fuzzy confidence accepted, when given.
    pub fuzz: Option<f64>,
    /// The lines between `--- from` and `--- to` (without line ends).
    pub from: Vec<&'a str>,
    /// The lines between `--- to` and the closing `<`.
    pub to: Vec<&'a str>,
    /// From the header to the closing line, inclusive.
    pub span: Span,
    /// The header line.
    pub header: Span,
}

/// A parsed patch: its blocks in order.
#[derive(Debug, Clone, PartialEq, Default)]
#[non_exhaustive]
pub struct Patch<'a> {
    /// The blocks, in the order written.
    pub blocks: Vec<Block<'a>>,
}

/// One line of the patch: its text without the line end (nor a `\r` before it), and the
/// span of that text.
#[derive(Debug, Clone, Copy)]
struct Line<'a> {
    text: &'a str,
    span: Span,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    polypatch_core::spanned_lines(text).into_iter().map(|(text, span)| Line { text, span }).collect()
}

const HEADER: &str = ">>> file:";

fn is_header(line: &str) -> bool {
    line.trim_start().starts_with(HEADER)
}

fn is_from(line: &str) -> bool {
    line.trim_end() == "--- from"
}

fn is_to(line: &str) -> bool {
    line.trim_end() == "--- to"
}

fn is_close(line: &str) -> bool {
    matches!(line.trim_end(), "<" | "<<<")
}

/// Parses every block of `text`. Prose between blocks is ignored.
pub fn parse(text: &str) -> Result<Patch<'_>, PatchError> {
    let lines = lines(text);
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_header(line.text) {
            let (block, next) = block(&lines, i, text)?;
            blocks.push(block);
            i = next;
            continue;
        }
        if is_from(line.text) || is_to(line.text) {
            return Err(error(
                STRAY_MARKER,
                format!(
                    "`{}` outside a block: a block starts with `>>> file: <path>` on the line before `--- from`",
                    line.text.trim_end()
                ),
                Some(line.span),
            ));
        }
        // The text stops mid-line in what begins the next block: the rest was cut off.
        if !blocks.is_empty()
            && i + 1 == lines.len()
            && HEADER.starts_with(line.text.trim_start())
            && let Some(e) = PatchError::truncated(DIALECT, text, ", where the next block begins")
        {
            return Err(e);
        }
        i += 1;
    }
    if blocks.is_empty() {
        let span = (!text.is_empty()).then(|| Span::new(0, text.len().min(text.find('\n').unwrap_or(text.len()))));
        return Err(error(
            NO_BLOCKS,
            "no `>>> file: <path>` block: write each change as `>>> file: <path>`, `--- from`, the old lines, \
             `--- to`, the new lines and a closing `<`",
            span,
        ));
    }
    Ok(Patch { blocks })
}

/// The block whose header is line `at`, and the index of the line after it.
fn block<'a>(lines: &[Line<'a>], at: usize, text: &str) -> Result<(Block<'a>, usize), PatchError> {
    let head = lines[at];
    let (path, mode, fuzz) = header(head)?;
    let end = Span::new(text.len(), text.len());
    // The text ends inside this block, in the middle of a line: a reply cut off.
    let cut_off = || PatchError::truncated(DIALECT, text, &format!(", inside the block for `{path}`"));
    if !lines.get(at + 1).is_some_and(|l| is_from(l.text)) {
        if at + 1 == lines.len()
            && let Some(e) = cut_off()
        {
            return Err(e);
        }
        let span = lines.get(at + 1).map_or(end, |l| l.span);
        return Err(error(
            MISSING_FROM,
            format!("the block for `{path}` needs `--- from` on the line after its header"),
            Some(span),
        ));
    }
    let mut i = at + 2;
    let mut old = Vec::new();
    loop {
        let Some(line) = lines.get(i) else {
            return Err(cut_off().unwrap_or_else(|| {
                error(MISSING_TO, format!("the block for `{path}` ends before its `--- to` line"), Some(end))
            }));
        };
        if is_to(line.text) {
            break;
        }
        if is_header(line.text) || is_close(line.text) {
            return Err(error(
                MISSING_TO,
                format!("the block for `{path}` has no `--- to` line before this one"),
                Some(line.span),
            ));
        }
        old.push(line.text);
        i += 1;
    }
    i += 1;
    let mut new = Vec::new();
    loop {
        let Some(line) = lines.get(i) else {
            return Err(cut_off().unwrap_or_else(|| {
                error(
                    UNCLOSED_BLOCK,
                    format!("the block for `{path}` is not closed: end it with a line holding only `<`"),
                    Some(head.span),
                )
            }));
        };
        if is_close(line.text) {
            if mode == Mode::Replace && !old.is_empty() {
                return Err(error(
                    REPLACE_WITH_FROM,
                    format!(
                        "the `mode=replace` block for `{path}` has `--- from` lines: a replace block gives the whole \
                         new file after `--- to` and leaves `--- from` empty; to change only some lines, drop \
                         `mode=replace`"
                    ),
                    Some(head.span),
                ));
            }
            let span = Span::new(head.span.start, line.span.end);
            let block = Block { path, mode, fuzz, from: old, to: new, span, header: head.span };
            return Ok((block, i + 1));
        }
        if is_header(line.text) {
            return Err(error(
                UNCLOSED_BLOCK,
                format!(
                    "the block for `{path}` is not closed before the next block: end it with a line holding only `<`"
                ),
                Some(head.span),
            ));
        }
        new.push(line.text);
        i += 1;
    }
}

/// `>>> file: <path> [| key=value]…`
fn header(line: Line<'_>) -> Result<(&str, Mode, Option<f64>), PatchError> {
    let lead = line.text.len() - line.text.trim_start().len();
    let rest_start = lead + HEADER.len();
    let rest = &line.text[rest_start..];
    let at = |s: &str| {
        // The span of `s`, a slice of `rest`.
        let offset = line.span.start + rest_start + (s.as_ptr() as usize - rest.as_ptr() as usize);
        Span::new(offset, offset + s.len())
    };
    let mut parts = rest.split('|');
    let path = parts.next().unwrap_or_default().trim();
    if path.is_empty() {
        return Err(error(MISSING_PATH, "`>>> file:` needs a path: `>>> file: src/main.rs`", Some(line.span)));
    }
    let (mut mode, mut fuzz) = (None, None);
    for part in parts {
        let option = part.trim();
        let span = at(option);
        let Some((key, value)) = option.split_once('=') else {
            return Err(error(
                UNKNOWN_OPTION,
                format!("`{option}` is not an option: write `mode=patch`, `mode=replace` or `fuzz=0.85`"),
                Some(span),
            ));
        };
        match key.trim() {
            "mode" => {
                if mode.is_some() {
                    return Err(error(REPEATED_OPTION, "`mode` is given twice", Some(span)));
                }
                mode = Some(match value.trim() {
                    "patch" => Mode::Patch,
                    "replace" => Mode::Replace,
                    other => {
                        return Err(error(
                            INVALID_MODE,
                            format!("`mode={other}` is not a mode: write `mode=patch` or `mode=replace`"),
                            Some(span),
                        ));
                    }
                });
            }
            "fuzz" => {
                if fuzz.is_some() {
                    return Err(error(REPEATED_OPTION, "`fuzz` is given twice", Some(span)));
                }
                let value = value.trim();
                match value.parse::<f64>() {
                    Ok(f) if (0.0..=1.0).contains(&f) => fuzz = Some(f),
                    _ => {
                        return Err(error(
                            INVALID_FUZZ,
                            format!("`fuzz={value}` must be a number from 0 to 1, such as `fuzz=0.85`"),
                            Some(span),
                        ));
                    }
                }
            }
            other => {
                return Err(error(
                    UNKNOWN_OPTION,
                    format!("`{other}` is not an option: the options are `mode` and `fuzz`"),
                    Some(span),
                ));
            }
        }
    }
    Ok((path, mode.unwrap_or_default(), fuzz))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{
        INVALID_FUZZ, INVALID_MODE, MISSING_FROM, MISSING_PATH, MISSING_TO, NO_BLOCKS, REPEATED_OPTION,
        REPLACE_WITH_FROM, STRAY_MARKER, UNCLOSED_BLOCK, UNKNOWN_OPTION,
    };
    use polypatch_core::ErrorKind;

    /// `lines` as it was first written: a search for `\n` from each line's start.
    fn lines_by_find(text: &str) -> Vec<(&str, Span)> {
        let mut out = Vec::new();
        let mut start = usize::from(text.starts_with('\u{feff}')) * '\u{feff}'.len_utf8();
        while start < text.len() {
            let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
            let body = text[start..end].strip_suffix('\r').unwrap_or(&text[start..end]);
            out.push((body, Span::new(start, start + body.len())));
            start = end + 1;
        }
        out
    }

    #[test]
    fn lines_match_the_search_from_each_line() {
        const PIECES: &[&str] = &["", "\n", "\r\n", "\r", "a", "\u{feff}", "\u{feff}x\n", "é\r", "\n\n"];
        for a in PIECES {
            for b in PIECES {
                for c in PIECES {
                    let text = format!("{a}{b}{c}");
                    let got: Vec<(&str, Span)> = lines(&text).iter().map(|l| (l.text, l.span)).collect();
                    assert_eq!(got, lines_by_find(&text), "{text:?}");
                }
            }
        }
    }

    fn err(text: &str) -> (ErrorKind, String) {
        let e = parse(text).unwrap_err();
        let shown = e.span.map(|s| text[s.start..s.end].to_string()).unwrap_or_default();
        (e.kind, shown)
    }

    #[test]
    fn blocks_with_prose_around_them() {
        let text = "Here is the fix:\n\n>>> file: src/a.py | fuzz=0.9\n--- from\ndef f():\n    return 1\n--- to\ndef f():\n    return 2\n<\nAnd a new file:\r\n>>> file: b.txt|mode=replace\r\n--- from\r\n--- to\r\nall\r\n<<<\r\nDone.\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.blocks.len(), 2);
        let a = &patch.blocks[0];
        assert_eq!((a.path, a.mode, a.fuzz), ("src/a.py", Mode::Patch, Some(0.9)));
        assert_eq!(a.from, ["def f():", "    return 1"]);
        assert_eq!(a.to, ["def f():", "    return 2"]);
        assert_eq!(&text[a.span.start..a.span.end], &text[text.find(">>>").unwrap()..=text.find("<\n").unwrap()]);
        assert_eq!(&text[a.header.start..a.header.end], ">>> file: src/a.py | fuzz=0.9");
        let b = &patch.blocks[1];
        assert_eq!((b.path, b.mode, b.fuzz), ("b.txt", Mode::Replace, None));
        assert!(b.from.is_empty());
        assert_eq!(b.to, ["all"]);
    }

    #[test]
    fn options_in_any_order_and_empty_sections() {
        let patch = parse(">>> file: x | fuzz=1 | mode=patch\n--- from\n--- to\nnew\n<\n").unwrap();
        let x = &patch.blocks[0];
        assert_eq!((x.mode, x.fuzz), (Mode::Patch, Some(1.0)));
        assert!(x.from.is_empty());
        assert_eq!(x.to, ["new"]);
        let patch = parse("\u{feff}>>> file: y\n--- from\nold\n--- to\n<\n").unwrap();
        assert_eq!(patch.blocks[0].from, ["old"]);
        assert!(patch.blocks[0].to.is_empty());
    }

    #[test]
    fn format_errors_name_the_line() {
        let cases: &[(&str, ErrorKind, &str)] = &[
            ("just prose\n", NO_BLOCKS, "just prose"),
            ("", NO_BLOCKS, ""),
            (">>> file:   \n--- from\n--- to\n<\n", MISSING_PATH, ">>> file:   "),
            (">>> file: a | color=red\n--- from\n--- to\n<\n", UNKNOWN_OPTION, "color=red"),
            (">>> file: a | strict\n--- from\n--- to\n<\n", UNKNOWN_OPTION, "strict"),
            (">>> file: a | mode=patch | mode=replace\n--- from\n--- to\n<\n", REPEATED_OPTION, "mode=replace"),
            (">>> file: a | mode=merge\n--- from\n--- to\n<\n", INVALID_MODE, "mode=merge"),
            (">>> file: a | fuzz=1.5\n--- from\n--- to\n<\n", INVALID_FUZZ, "fuzz=1.5"),
            (">>> file: a | fuzz=high\n--- from\n--- to\n<\n", INVALID_FUZZ, "fuzz=high"),
            (">>> file: a\nold\n--- to\n<\n", MISSING_FROM, "old"),
            (">>> file: a\n--- from\nold\n<\n", MISSING_TO, "<"),
            (">>> file: a\n--- from\nold\n", MISSING_TO, ""),
            (">>> file: a\n--- from\nold\n--- to\nnew\n", UNCLOSED_BLOCK, ">>> file: a"),
            (
                ">>> file: a\n--- from\nold\n--- to\nnew\n>>> file: b\n--- from\n--- to\n<\n",
                UNCLOSED_BLOCK,
                ">>> file: a",
            ),
            ("text\n--- from\nold\n--- to\nnew\n<\n", STRAY_MARKER, "--- from"),
            // Cut off mid-line (issue 26, point 2): inside `--- to`, `--- from`, the header.
            (">>> file: a\n--- from\nold\n--- to\n    def f(se", ErrorKind::TRUNCATED, "    def f(se"),
            (">>> file: a\n--- from\nold\n--- t", ErrorKind::TRUNCATED, "--- t"),
            (">>> file: src/ma", ErrorKind::TRUNCATED, ">>> file: src/ma"),
            // Cut where the next block begins, after a complete one.
            (">>> file: a\n--- from\nold\n--- to\nnew\n<\n>>> fi", ErrorKind::TRUNCATED, ">>> fi"),
            // A blank tail is no half line.
            (">>> file: a\n--- from\nold\n--- to\nnew\n  ", UNCLOSED_BLOCK, ">>> file: a"),
            (
                ">>> file: a | mode=replace\n--- from\nold\n--- to\nnew\n<\n",
                REPLACE_WITH_FROM,
                ">>> file: a | mode=replace",
            ),
        ];
        for (text, want_kind, want_span) in cases {
            let (got_kind, got_span) = err(text);
            assert_eq!((&got_kind, got_span.as_str()), (want_kind, *want_span), "{text:?}");
        }
    }

    #[test]
    fn an_error_reports_line_and_column() {
        let text = "intro\n>>> file: a | fuzz=2\n--- from\n--- to\n<\n";
        let e = parse(text).unwrap_err();
        assert_eq!(e.span.unwrap().line_col(text), (2, 15));
    }
}
