//! Text → blocks, with byte spans into the patch text.
//!
//! The text is read line by line. Prose, fence lines and path lines outside blocks are
//! read only for the paths they give; a block runs from its SEARCH marker to its REPLACE
//! marker, and every line between them is the block's, fences included (a markdown file's
//! fences are content).

use polypatch_core::{PatchError, Span};

use crate::error::{
    DIALECT, INVALID_LINE_HINT, MISSING_DIVIDER, NO_BLOCKS, REPEATED_DIVIDER, STRAY_MARKER, UNCLOSED_BLOCK, error,
};

/// One SEARCH/REPLACE block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Block<'a> {
    /// The file, as the path line before the block (or before its fence) names it, without
    /// the `**`, backticks or colon around it; `None` when nothing names it (the caller
    /// does: [`ParseOptions::file`](polypatch_core::ParseOptions::file)).
    pub path: Option<&'a str>,
    /// Where the path is written, when it is.
    pub path_span: Option<Span>,
    /// Roo Code's `:start_line:N`: the 1-based line where the SEARCH text starts, a hint.
    pub start_line: Option<usize>,
    /// Roo Code's `:end_line:M`.
    pub end_line: Option<usize>,
    /// The lines to find (without line ends, a backslash before a marker removed).
    pub search: Vec<&'a str>,
    /// The lines that replace them.
    pub replace: Vec<&'a str>,
    /// From the SEARCH marker to the REPLACE marker, inclusive.
    pub span: Span,
    /// The SEARCH marker line.
    pub head: Span,
}

/// A parsed patch: its blocks in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Patch<'a> {
    /// The blocks, in the order written.
    pub blocks: Vec<Block<'a>>,
}

/// One line of the patch: its text without the line end (nor a `\r` before it), and the
/// span of that text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line<'a> {
    pub(crate) text: &'a str,
    pub(crate) span: Span,
}

pub(crate) fn lines(text: &str) -> Vec<Line<'_>> {
    polypatch_core::spanned_lines(text).into_iter().map(|(text, span)| Line { text, span }).collect()
}

/// A run of at least `least` characters `c` from the line's start, then optional
/// whitespace and `word`, then an optional `tail` character and trailing whitespace.
fn marker(line: &str, c: char, least: usize, word: &str, tail: char) -> bool {
    let t = line.trim_end();
    let run = t.len() - t.trim_start_matches(c).len();
    if run < least {
        return false;
    }
    let rest = t[run..].trim_start();
    let rest = rest.strip_suffix(tail).unwrap_or(rest);
    rest == word
}

/// `<<<<<<< SEARCH` (5 or more `<`), or Cline's `------- SEARCH` (3 or more `-`).
pub(crate) fn is_search(line: &str) -> bool {
    marker(line, '<', 5, "SEARCH", '>') || marker(line, '-', 3, "SEARCH", '>')
}

/// `=======` (5 or more), alone on its line from its start.
pub(crate) fn is_divider(line: &str) -> bool {
    let t = line.trim_end();
    t.len() >= 5 && t.bytes().all(|b| b == b'=')
}

/// `>>>>>>> REPLACE` (5 or more `>`), or Cline's `+++++++ REPLACE` (3 or more `+`).
pub(crate) fn is_replace(line: &str) -> bool {
    marker(line, '>', 5, "REPLACE", '<') || marker(line, '+', 3, "REPLACE", '<')
}

/// Roo Code's `-------` after the SEARCH marker (and its hint lines).
fn is_separator(line: &str) -> bool {
    let t = line.trim_end();
    t.len() >= 5 && t.bytes().all(|b| b == b'-')
}

/// A fence line: its character and width (3 or more backticks or tildes), and what follows.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    let c = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let width = t.len() - t.trim_start_matches(c).len();
    let info = t[width..].trim();
    (width >= 3 && !(c == '`' && info.contains('`'))).then_some((c, width, info))
}

/// The path a line names when it stands alone before a block or a fence: the line
/// without `#` headings, `**`, backticks and a trailing colon around it, when what is left
/// looks like a path: no spaces and no code punctuation, not ending in `.`, and either a
/// `.` or `/` in it, or written in backticks or `**`, or (alone, without a colon or a `#`)
/// a name like `PKG-INFO`, `build_all`, `LICENSE` or `Makefile` (a `-` or `_`, all
/// capitals, or ending in `file`); a word (`python`, `Changes`, `Fix:`) is prose. Its span
/// within the line: (offset, length).
pub(crate) fn path_of(line: &str) -> Option<(usize, usize)> {
    let mut s = line.trim();
    let heading = s.starts_with('#');
    s = s.trim_start_matches('#').trim_start();
    let mut colon = false;
    if let Some(rest) = s.strip_suffix(':') {
        (s, colon) = (rest.trim_end(), true);
    }
    let mut wrapped = false;
    for wrap in ["**", "*", "`"] {
        if let Some(inner) = s.strip_prefix(wrap).and_then(|x| x.strip_suffix(wrap)) {
            (s, wrapped) = (inner.trim(), true);
        }
    }
    if let Some(rest) = s.strip_suffix(':') {
        (s, colon) = (rest, true);
    }
    // A bare name: `PKG-INFO`, `build_all`, `LICENSE`, `Makefile` (not `Changes`).
    let name = s.contains(['-', '_'])
        || (s.chars().any(|c| c.is_ascii_alphabetic()) && !s.chars().any(|c| c.is_ascii_lowercase()))
        || s.ends_with("file");
    let named = s.contains(['.', '/']) || wrapped || (!colon && !heading && name);
    let looks = !s.is_empty()
        && s.len() <= 4096
        && named
        && !s.ends_with('.')
        && !s.chars().any(|c| c.is_whitespace() || "`*()[]{}<>;,=\"'|?!$&^%@+".contains(c))
        && !s.starts_with("---")
        && !s.starts_with("...");
    looks.then(|| (s.as_ptr() as usize - line.as_ptr() as usize, s.len()))
}

fn path_in(line: Line<'_>) -> Option<(&str, Span)> {
    let (at, len) = path_of(line.text)?;
    let start = line.span.start + at;
    Some((&line.text[at..at + len], Span::new(start, start + len)))
}

/// The open fence the scan is in: its character and width.
struct Fence {
    c: char,
    width: usize,
}

/// Parses every block of `text`. Prose, fences and path lines around blocks give their
/// paths; nothing else outside blocks is read.
pub fn parse(text: &str) -> Result<Patch<'_>, PatchError> {
    let lines = lines(text);
    let mut blocks = Vec::new();
    let mut open: Option<Fence> = None;
    // The path the next block without a path line of its own is for: the fence's, or the
    // last block's in the same fence (or outside fences).
    let mut current: Option<(&str, Span)> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_search(line.text) {
            let named = (i > 0).then(|| lines[i - 1]).filter(|l| fence(l.text).is_none()).and_then(path_in);
            if named.is_some() {
                current = named;
            }
            let (block, next) = block(&lines, i, text, current)?;
            blocks.push(block);
            i = next;
            continue;
        }
        if let Some((c, width, info)) = fence(line.text) {
            match &open {
                Some(f) if c == f.c && line.text.trim().len() >= f.width && info.is_empty() => {
                    open = None;
                    current = None;
                }
                Some(_) => {}
                None => {
                    open = Some(Fence { c, width });
                    current = (i > 0).then(|| lines[i - 1]).and_then(path_in);
                }
            }
            i += 1;
            continue;
        }
        if is_divider(line.text) || is_replace(line.text) {
            return Err(error(
                STRAY_MARKER,
                format!(
                    "`{}` outside a block: a block is `<<<<<<< SEARCH`, the lines to find, `=======`, the new lines \
                     and `>>>>>>> REPLACE`",
                    line.text.trim()
                ),
                Some(line.span),
            ));
        }
        i += 1;
    }
    if blocks.is_empty() {
        let span = (!text.is_empty()).then(|| lines.first().map_or(Span::new(0, 0), |l| l.span));
        return Err(error(
            NO_BLOCKS,
            "no SEARCH/REPLACE block: write each change as the file's path on a line, then `<<<<<<< SEARCH`, the \
             lines to find, `=======`, the new lines and `>>>>>>> REPLACE`",
            span,
        ));
    }
    Ok(Patch { blocks })
}

/// A content line written with a backslash before a marker (`\=======`, Roo Code's
/// escape): the line without it.
fn unescape(line: &str) -> &str {
    match line.strip_prefix('\\') {
        Some(rest) if is_search(rest) || is_divider(rest) || is_replace(rest) || is_separator(rest) => rest,
        _ => line,
    }
}

/// A line hint `:start_line:N` or `:end_line:N`: which, and its number (`Err` for a
/// number that is not one from 1).
fn hint(line: &str) -> Option<(&'static str, Result<usize, ()>)> {
    let t = line.trim();
    let (name, rest) = if let Some(rest) = t.strip_prefix(":start_line:") {
        (":start_line:", rest)
    } else {
        (":end_line:", t.strip_prefix(":end_line:")?)
    };
    Some((name, rest.trim().parse::<usize>().ok().filter(|&n| n >= 1).ok_or(())))
}

/// The block whose SEARCH marker is line `at`, for `path`, and the index of the line
/// after it.
fn block<'a>(
    lines: &[Line<'a>],
    at: usize,
    text: &str,
    path: Option<(&'a str, Span)>,
) -> Result<(Block<'a>, usize), PatchError> {
    let head = lines[at];
    let name = path.map_or(String::new(), |(p, _)| format!(" for `{p}`"));
    // The text ends inside this block, in the middle of a line: a reply cut off.
    let cut_off = || PatchError::truncated(DIALECT, text, &format!(", inside the block{name}"));
    let mut i = at + 1;
    let (mut start_line, mut end_line) = (None, None);
    while let Some((which, number)) = lines.get(i).and_then(|l| hint(l.text)) {
        let line = lines[i];
        let Ok(n) = number else {
            return Err(error(
                INVALID_LINE_HINT,
                format!("`{}` needs a line number from 1: `{which}12`", line.text.trim()),
                Some(line.span),
            ));
        };
        if which == ":start_line:" {
            start_line = Some(n);
        } else {
            end_line = Some(n);
        }
        i += 1;
    }
    if let (Some(start), Some(end)) = (start_line, end_line)
        && end < start
    {
        return Err(error(
            INVALID_LINE_HINT,
            format!("`:end_line:{end}` is before `:start_line:{start}`: the end line is the SEARCH text's last line"),
            Some(Span::new(lines[at + 1].span.start, lines[i - 1].span.end)),
        ));
    }
    let hinted = start_line.is_some() || end_line.is_some();
    // Roo Code's `-------` line after `<<<<<<< SEARCH` and its hints.
    let separator = (head.text.starts_with('<') && lines.get(i).is_some_and(|l| is_separator(l.text))).then(|| {
        i += 1;
        lines[i - 1].text
    });
    let mut search = Vec::new();
    loop {
        let Some(line) = lines.get(i) else {
            return Err(cut_off().unwrap_or_else(|| {
                error(MISSING_DIVIDER, format!("the block{name} ends before its `=======` line"), Some(head.span))
            }));
        };
        if is_divider(line.text) {
            break;
        }
        if is_replace(line.text) || is_search(line.text) {
            return Err(error(
                MISSING_DIVIDER,
                format!(
                    "the block{name} has no `=======` line before this one: the lines to find end with a line \
                     `=======`, then come the new lines"
                ),
                Some(line.span),
            ));
        }
        search.push(unescape(line.text));
        i += 1;
    }
    i += 1;
    let mut replace = Vec::new();
    loop {
        let Some(line) = lines.get(i) else {
            return Err(cut_off().unwrap_or_else(|| {
                error(
                    UNCLOSED_BLOCK,
                    format!("the block{name} is not closed: end it with a line `>>>>>>> REPLACE`"),
                    Some(head.span),
                )
            }));
        };
        if is_replace(line.text) {
            // A `-------` line that the REPLACE section opens with too, without hints, is
            // the file's (an underline), not Roo Code's separator.
            if let Some(sep) = separator.filter(|sep| !hinted && replace.first() == Some(sep)) {
                search.insert(0, sep);
            }
            let span = Span::new(head.span.start, line.span.end);
            let block = Block {
                path: path.map(|(p, _)| p),
                path_span: path.map(|(_, s)| s),
                start_line,
                end_line,
                search,
                replace,
                span,
                head: head.span,
            };
            return Ok((block, i + 1));
        }
        if is_divider(line.text) {
            return Err(error(
                REPEATED_DIVIDER,
                format!(
                    "the block{name} has a second `=======` line: one divides the lines to find from the new lines; \
                     a line of the file that looks like a marker is written with a backslash before it (`\\=======`)"
                ),
                Some(line.span),
            ));
        }
        if is_search(line.text) {
            return Err(error(
                UNCLOSED_BLOCK,
                format!("the block{name} is not closed before the next block: end it with a line `>>>>>>> REPLACE`"),
                Some(head.span),
            ));
        }
        replace.push(unescape(line.text));
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use polypatch_core::ErrorKind;

    use super::*;
    use crate::error::{EMPTY_BLOCK, MISSING_PATH, UNPAIRED_ELISION};

    fn err(text: &str) -> (ErrorKind, String, String) {
        let e = crate::parse(text).and_then(|p| crate::lower(&p, None)).unwrap_err();
        let shown = e.span.map(|s| text[s.start..s.end].to_string()).unwrap_or_default();
        (e.kind, shown, e.message)
    }

    #[test]
    fn aider_diff_layout_path_before_the_fence() {
        let text = "Here is the fix:\n\nsrc/calc.py\n```python\n<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======\ndef add(a, b):\n    return a + b\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n**b.txt**:\n```\n<<<<<<<<< SEARCH\n=======\nnew\n>>>>>>>>> REPLACE\n```\n";
        let patch = parse(text).unwrap();
        let got: Vec<(Option<&str>, Vec<&str>, Vec<&str>)> =
            patch.blocks.iter().map(|b| (b.path, b.search.clone(), b.replace.clone())).collect();
        assert_eq!(
            got,
            [
                (
                    Some("src/calc.py"),
                    vec!["def add(a, b):", "    return a - b"],
                    vec!["def add(a, b):", "    return a + b"]
                ),
                (Some("src/calc.py"), vec!["x = 1"], vec!["x = 2"]),
                (Some("b.txt"), vec![], vec!["new"]),
            ]
        );
        let a = &patch.blocks[0];
        assert_eq!(
            &text[a.span.start..a.span.end],
            &text[text.find("<<<<<<<").unwrap()..text.find(" REPLACE").unwrap() + 8]
        );
        assert_eq!(a.path_span.map(|s| &text[s.start..s.end]), Some("src/calc.py"));
        assert_eq!(patch.blocks[2].path_span.map(|s| &text[s.start..s.end]), Some("b.txt"));
    }

    #[test]
    fn aider_diff_fenced_layout_path_inside_the_fence() {
        let text = "```\n`lib/a.rs`\n<<<<<<< SEARCH\nfn a() {}\n=======\nfn b() {}\n>>>>>>> REPLACE\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE\n```\n";
        let patch = parse(text).unwrap();
        assert_eq!(patch.blocks.iter().map(|b| b.path).collect::<Vec<_>>(), [Some("lib/a.rs"), Some("lib/a.rs")]);
        assert_eq!(patch.blocks[0].search, ["fn a() {}"]);
    }

    #[test]
    fn cline_and_roo_markers_hints_and_escapes() {
        let text = "------- SEARCH\r\nold\r\n=======\r\nnew\r\n+++++++ REPLACE\r\n\r\n<<<<<<< SEARCH\n:start_line:12\n:end_line:13\n-------\n    if amount < 0:\n\\=======\n=======\n    if amount <= 0:\n\\>>>>>>> REPLACE\n>>>>>>> REPLACE\n";
        let patch = parse(text).unwrap();
        let [cline, roo] = patch.blocks.as_slice() else { panic!("{patch:?}") };
        assert_eq!((cline.path, cline.search.as_slice(), cline.replace.as_slice()), (None, &["old"][..], &["new"][..]));
        assert_eq!((roo.start_line, roo.end_line), (Some(12), Some(13)));
        assert_eq!(roo.search, ["    if amount < 0:", "======="]);
        assert_eq!(roo.replace, ["    if amount <= 0:", ">>>>>>> REPLACE"]);
    }

    #[test]
    fn a_dash_line_that_both_sections_open_with_is_content() {
        let text = "<<<<<<< SEARCH\n-------\nTitle\n=======\n-------\nNew title\n>>>>>>> REPLACE\n";
        let b = &parse(text).unwrap().blocks[0];
        assert_eq!(
            (b.search.as_slice(), b.replace.as_slice()),
            (&["-------", "Title"][..], &["-------", "New title"][..])
        );
        let text = "<<<<<<< SEARCH\n-------\nTitle\n=======\nNew title\n>>>>>>> REPLACE\n";
        assert_eq!(parse(text).unwrap().blocks[0].search, ["Title"]);
    }

    #[test]
    fn prose_is_not_a_path() {
        for before in [
            "Here is the fix:",
            "Done.",
            "Fix it",
            "foo.bar()",
            "## Changes",
            "...",
            "python",
            "Changes",
            "Changes:",
            "Fix:",
            "## NOTES",
        ] {
            let text = format!("{before}\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
            assert_eq!(parse(&text).unwrap().blocks[0].path, None, "{before}");
        }
        for (before, path) in [
            ("src/a.rs:", "src/a.rs"),
            ("**a.py**", "a.py"),
            ("# `x/y.md`", "x/y.md"),
            ("PKG-INFO", "PKG-INFO"),
            ("Makefile", "Makefile"),
            ("`justfile`", "justfile"),
        ] {
            let text = format!("{before}\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n");
            assert_eq!(parse(&text).unwrap().blocks[0].path, Some(path), "{before}");
        }
    }

    #[test]
    fn format_errors_name_the_line() {
        let block = |s: &str| format!("a.py\n{s}");
        let cases: Vec<(String, ErrorKind, &str, &str)> = vec![
            (
                "just prose\n".into(),
                NO_BLOCKS,
                "just prose",
                "no SEARCH/REPLACE block: write each change as the file's path on a line, then `<<<<<<< SEARCH`, the lines to find, `=======`, the new lines and `>>>>>>> REPLACE`",
            ),
            (
                String::new(),
                NO_BLOCKS,
                "",
                "no SEARCH/REPLACE block: write each change as the file's path on a line, then `<<<<<<< SEARCH`, the lines to find, `=======`, the new lines and `>>>>>>> REPLACE`",
            ),
            (
                "<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n".into(),
                MISSING_PATH,
                "<<<<<<< SEARCH",
                "the block names no file: write the file's path alone on the line before `<<<<<<< SEARCH` (or before the fence around the block), or name the file when applying (`--file PATH`)",
            ),
            (
                block("<<<<<<< SEARCH\n:start_line:0\na\n=======\nb\n>>>>>>> REPLACE\n"),
                INVALID_LINE_HINT,
                ":start_line:0",
                "`:start_line:0` needs a line number from 1: `:start_line:12`",
            ),
            (
                block("<<<<<<< SEARCH\n:start_line:9\n:end_line:3\n-------\na\n=======\nb\n>>>>>>> REPLACE\n"),
                INVALID_LINE_HINT,
                ":start_line:9\n:end_line:3",
                "`:end_line:3` is before `:start_line:9`: the end line is the SEARCH text's last line",
            ),
            (
                block("<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n"),
                MISSING_DIVIDER,
                ">>>>>>> REPLACE",
                "the block for `a.py` has no `=======` line before this one: the lines to find end with a line `=======`, then come the new lines",
            ),
            (
                block("<<<<<<< SEARCH\na\n"),
                MISSING_DIVIDER,
                "<<<<<<< SEARCH",
                "the block for `a.py` ends before its `=======` line",
            ),
            (
                block("<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n"),
                REPEATED_DIVIDER,
                "=======",
                "the block for `a.py` has a second `=======` line: one divides the lines to find from the new lines; a line of the file that looks like a marker is written with a backslash before it (`\\=======`)",
            ),
            (
                block("<<<<<<< SEARCH\na\n=======\nb\n"),
                UNCLOSED_BLOCK,
                "<<<<<<< SEARCH",
                "the block for `a.py` is not closed: end it with a line `>>>>>>> REPLACE`",
            ),
            (
                block("<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\n"),
                UNCLOSED_BLOCK,
                "<<<<<<< SEARCH",
                "the block for `a.py` is not closed before the next block: end it with a line `>>>>>>> REPLACE`",
            ),
            (
                block("<<<<<<< SEARCH\na\n=======\n    def f(se"),
                ErrorKind::TRUNCATED,
                "    def f(se",
                "the patch ends in the middle of a line at line 5, inside the block for `a.py`: the reply was probably cut off; ask for it again",
            ),
            (
                "prose\n=======\n".into(),
                STRAY_MARKER,
                "=======",
                "`=======` outside a block: a block is `<<<<<<< SEARCH`, the lines to find, `=======`, the new lines and `>>>>>>> REPLACE`",
            ),
            (
                block("<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n"),
                EMPTY_BLOCK,
                "<<<<<<< SEARCH",
                "block 1 (`a.py`) has nothing to find and nothing to write: drop it, or write the lines it changes",
            ),
            (
                block("<<<<<<< SEARCH\na\n...\nb\n=======\na\nb\n>>>>>>> REPLACE\n"),
                UNPAIRED_ELISION,
                "<<<<<<< SEARCH",
                "block 1 (`a.py`) has 1 `...` line(s) in SEARCH and 0 in REPLACE: `...` stands for unchanged lines only where both sections have it at the same places; write the lines out in full",
            ),
            (
                block("<<<<<<< SEARCH\n...\nb\n=======\nnew\n...\nb\n>>>>>>> REPLACE\n"),
                UNPAIRED_ELISION,
                "<<<<<<< SEARCH\n...\nb\n=======\nnew\n...\nb\n>>>>>>> REPLACE",
                "piece 1 of block 1 (`a.py`) (between its `...` lines) has lines to write but nothing to find: put the lines that stand there in SEARCH too",
            ),
        ];
        for (text, kind, shown, message) in cases {
            let (got_kind, got_shown, got_message) = err(&text);
            assert_eq!((got_kind, got_shown.as_str(), got_message.as_str()), (kind, shown, message), "{text:?}");
        }
    }
}
