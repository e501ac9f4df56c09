//! The round trip property of issue 4: a random file and a random edit → an 'ap' patch
//! (literal block scalars) → parse and lower → `polypatch_core::apply` on an in-memory
//! file set → exactly the target, computed directly from the spec's rules (§3.2
//! locating; §3.3: the file indentation of the snippet's first line prepended to every
//! content line, or content written with that absolute indentation kept as written;
//! blank-line inclusion; §3.5 trailing whitespace: none is generated).

use std::fmt::Write as _;

use polypatch_ap::Ap;
use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, Status, apply};
use proptest::prelude::*;

/// A line of the file or of the content: its indentation in spaces and its text (no
/// leading or trailing whitespace; empty for a blank line).
#[derive(Debug, Clone)]
struct Line {
    indent: usize,
    text: String,
}

impl Line {
    fn is_blank(&self) -> bool {
        self.text.is_empty()
    }

    fn render(&self) -> String {
        if self.is_blank() { String::new() } else { format!("{}{}", " ".repeat(self.indent), self.text) }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Replace,
    InsertAfter,
    InsertBefore,
    Delete,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Replace => "REPLACE",
            Kind::InsertAfter => "INSERT_AFTER",
            Kind::InsertBefore => "INSERT_BEFORE",
            Kind::Delete => "DELETE",
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    file: Vec<Line>,
    /// The edited block `[start, end)`: starts and ends with a non-blank line.
    start: usize,
    end: usize,
    kind: Kind,
    /// The new lines, relative to the first (which is unindented).
    content: Vec<Line>,
    /// Write the snippet with the file's absolute indentation (`|2`).
    absolute: bool,
    /// Write the content with the file's absolute indentation: shifted by the snippet's
    /// first line's (independent of how the snippet is written).
    content_absolute: bool,
    /// Locate with `start_snippet`/`end_snippet` (REPLACE and DELETE, blocks of 2+ lines).
    range: bool,
    /// A unique non-blank line before the block, as `anchor`.
    anchor: Option<usize>,
    leading: usize,
    trailing: usize,
}

/// Text for a line: unique by its `tag`, with YAML- and code-like punctuation. It never
/// ends by opening a block (`{`, `[`, `(`, `:`): after such a line, content at the line's
/// own depth is read as one level deeper (see the fixtures `insert_after_opener_*`).
fn text(tag: String) -> impl Strategy<Value = String> {
    "[a-z0-9_().,:;\"'#{}=+*/<>!?-]{0,12}( [a-z0-9_():#=\"'-]{1,8}){0,2}".prop_map(move |tail| {
        let mut t = format!("{tag}{tail}");
        while t.ends_with(['{', '[', '(', ':', ' ']) {
            t.pop();
        }
        t
    })
}

fn file_lines() -> impl Strategy<Value = Vec<Line>> {
    prop::collection::vec((0usize..4, any::<bool>(), 0usize..8), 2..30).prop_flat_map(|shape| {
        let lines: Vec<_> = shape
            .into_iter()
            .enumerate()
            .map(|(i, (level, half, blank))| {
                let indent = level * 4 + if half { 2 } else { 0 };
                // About one line in eight is blank.
                let is_blank = blank == 0 && i > 0;
                text(format!("l{i}")).prop_map(move |t| Line { indent, text: if is_blank { String::new() } else { t } })
            })
            .collect();
        lines
    })
}

fn content_lines(min: usize) -> impl Strategy<Value = Vec<Line>> {
    prop::collection::vec((0usize..3, 0usize..6), min..5).prop_flat_map(|shape| {
        let n = shape.len();
        shape
            .into_iter()
            .enumerate()
            .map(move |(j, (level, blank))| {
                let is_blank = blank == 0 && j > 0 && j + 1 < n;
                // Written as §2.4 asks: the first line without indentation.
                let indent = if j == 0 { 0 } else { level * 4 };
                text(format!("new{j}"))
                    .prop_map(move |t| Line { indent, text: if is_blank { String::new() } else { t } })
            })
            .collect::<Vec<_>>()
    })
}

fn case() -> impl Strategy<Value = Case> {
    (
        file_lines(),
        prop::sample::select(vec![Kind::Replace, Kind::InsertAfter, Kind::InsertBefore, Kind::Delete]),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        (any::<bool>(), any::<bool>(), any::<bool>()),
        any::<prop::sample::Index>(),
        0usize..3,
        0usize..3,
    )
        .prop_flat_map(
            |(file, kind, a, b, (absolute, content_absolute, range), anchor_pick, leading, trailing)| {
                let non_blank: Vec<usize> = (0..file.len()).filter(|&i| !file[i].is_blank()).collect();
                let mut s = non_blank[a.index(non_blank.len())];
                let mut e = non_blank[b.index(non_blank.len())];
                if s > e {
                    std::mem::swap(&mut s, &mut e);
                }
                // Point changes stay short, ranges may be longer.
                if !range && e - s > 3 {
                    e = non_blank.iter().copied().filter(|&i| i >= s && i <= s + 3).max().unwrap_or(s);
                }
                let before: Vec<usize> = non_blank.iter().copied().filter(|&i| i < s).collect();
                let anchor = if before.is_empty() || anchor_pick.index(3) != 0 {
                    None
                } else {
                    Some(before[anchor_pick.index(before.len())])
                };
                let min = usize::from(kind != Kind::Replace);
                let range = range && matches!(kind, Kind::Replace | Kind::Delete) && e > s;
                content_lines(min).prop_map(move |content| Case {
                    file: file.clone(),
                    start: s,
                    end: e + 1,
                    kind,
                    content: if kind == Kind::Delete { Vec::new() } else { content },
                    absolute,
                    content_absolute,
                    range,
                    anchor,
                    leading,
                    trailing,
                })
            },
        )
}

/// A literal block scalar under a key at column 8; `|2` when its first non-blank line is
/// indented.
fn block(key: &str, lines: &[String]) -> String {
    if lines.is_empty() {
        return format!("        {key}: \"\"\n");
    }
    let indented = lines.iter().find(|l| !l.is_empty()).is_some_and(|l| l.starts_with(' '));
    let mut out = format!("        {key}: |{}\n", if indented { "2" } else { "" });
    for l in lines {
        if l.is_empty() {
            out.push('\n');
        } else {
            out.push_str("          ");
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// Snippet lines as the patch writes them: with the file's indentation (absolute), or
/// relative to the first line (which is then unindented).
fn snippet_lines(lines: &[Line], absolute: bool) -> Vec<String> {
    let base = lines.iter().find(|l| !l.is_blank()).map_or(0, |l| l.indent);
    lines
        .iter()
        .map(|l| {
            if l.is_blank() {
                String::new()
            } else if absolute {
                l.render()
            } else {
                format!("{}{}", " ".repeat(l.indent.saturating_sub(base)), l.text)
            }
        })
        .collect()
}

fn content_as_written(c: &Case) -> Vec<String> {
    let shift = if c.content_absolute { c.file[c.start].indent } else { 0 };
    c.content.iter().map(|l| Line { indent: l.indent + shift, text: l.text.clone() }.render()).collect()
}

fn patch(c: &Case) -> String {
    let mut m = format!("      - action: {}\n", c.kind.name());
    if let Some(a) = c.anchor {
        m += &block("anchor", &[c.file[a].text.clone()]);
    }
    let block_lines = &c.file[c.start..c.end];
    if c.range {
        m += &block("start_snippet", &snippet_lines(&block_lines[..1], c.absolute));
        m += &block("end_snippet", &snippet_lines(&block_lines[block_lines.len() - 1..], c.absolute));
    } else {
        m += &block("snippet", &snippet_lines(block_lines, c.absolute));
    }
    if c.kind != Kind::Delete {
        m += &block("content", &content_as_written(c));
    }
    if c.leading > 0 {
        writeln!(m, "        include_leading_blank_lines: {}", c.leading).unwrap();
    }
    if c.trailing > 0 {
        writeln!(m, "        include_trailing_blank_lines: {}", c.trailing).unwrap();
    }
    format!("# a generated patch\nversion: \"2.0\"\nchanges:\n  - file_path: src/file.txt\n    modifications:\n{m}")
}

/// The target, from the spec's rules.
fn target(c: &Case) -> String {
    let lines: Vec<String> = c.file.iter().map(Line::render).collect();
    // Blank-line inclusion widens the located block.
    let (mut s, mut e) = (c.start, c.end);
    for _ in 0..c.leading {
        if s > 0 && lines[s - 1].is_empty() {
            s -= 1;
        }
    }
    for _ in 0..c.trailing {
        if e < lines.len() && lines[e].is_empty() {
            e += 1;
        }
    }
    // §3.3: the snippet's first line's indentation prepended to every content line; the
    // content written with that absolute indentation is kept as written, which is the
    // same text.
    let first = &c.file[c.start];
    let new: Vec<String> = c
        .content
        .iter()
        .map(|l| {
            if l.is_blank() {
                String::new()
            } else {
                format!("{}{}{}", " ".repeat(first.indent), " ".repeat(l.indent), l.text)
            }
        })
        .collect();
    let mut out: Vec<String> = Vec::new();
    match c.kind {
        Kind::Replace => {
            out.extend_from_slice(&lines[..s]);
            out.extend(new);
            out.extend_from_slice(&lines[e..]);
        }
        Kind::Delete => {
            out.extend_from_slice(&lines[..s]);
            out.extend_from_slice(&lines[e..]);
        }
        Kind::InsertAfter => {
            out.extend_from_slice(&lines[..e]);
            out.extend(new);
            out.extend_from_slice(&lines[e..]);
        }
        Kind::InsertBefore => {
            out.extend_from_slice(&lines[..s]);
            out.extend(new);
            out.extend_from_slice(&lines[s..]);
        }
    }
    out.iter().fold(String::new(), |mut acc, l| {
        acc.push_str(l);
        acc.push('\n');
        acc
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random file + random edit → ap → parse → apply == target; and applying it again
    /// changes nothing and reports the modification as already applied.
    #[test]
    fn ap_round_trip(c in case()) {
        let before: String = c.file.iter().map(|l| l.render() + "\n").collect();
        let patch = patch(&c);
        let want = target(&c);
        let plan = Ap.parse(&patch).map_err(|e| TestCaseError::fail(format!("{}\n{patch}", e.render(&patch))))?;
        let mut files = MemoryFileSet::new().with("src/file.txt", before.clone()).with("other.txt", "untouched  \n");
        let report = apply(&plan, &mut files, &ApplyOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{}\n--- patch ---\n{patch}--- file ---\n{before}", e.report)))?;
        prop_assert_eq!(
            files.get_str("src/file.txt"), Some(want.as_str()),
            "\n--- patch ---\n{}--- file ---\n{}--- report ---\n{}", patch, before, report
        );
        prop_assert_eq!(files.get_str("other.txt"), Some("untouched  \n"));
        prop_assert_eq!(report.files[0].edits[0].status, Status::Applied);

        // §3.1: applying it again changes nothing. (A REPLACE with empty content leaves
        // nothing to recognize it by: the spec's own rule, "content already at the target",
        // cannot hold without a target.)
        if c.kind == Kind::Replace && c.content.is_empty() {
            return Ok(());
        }
        let again = apply(&plan, &mut files, &ApplyOptions::default())
            .map_err(|e| TestCaseError::fail(format!("re-run: {e}\n{}\n--- patch ---\n{patch}--- file ---\n{want}", e.report)))?;
        prop_assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied, "\n--- patch ---\n{}--- file ---\n{}", patch, want);
        prop_assert_eq!(files.get_str("src/file.txt"), Some(want.as_str()));
    }
}
