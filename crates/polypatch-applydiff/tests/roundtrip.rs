//! The round trip property of issue 11: random files and random line edits → `ApplyDiff`
//! blocks → parse and lower → `polypatch_core::apply` on an in-memory file set → exactly
//! the target bytes, computed directly from the edits.
//!
//! Every non-blank line of an original file is unique by construction (it ends in its
//! file and line number), every from block holds at least one such line that no other
//! block touches, and every new line is unique too, so each block matches exactly one
//! place at the exact tier, whatever the order the blocks apply in. The blocks are written in a random order (interleaving files and
//! shuffling the blocks of one file), the files are LF or CRLF with or without a final
//! newline, the patch text itself is LF or CRLF, and some blocks create new files from an
//! empty `--- from`, and some files are replaced whole by a `mode=replace` block (in
//! their own line terminator, without a final newline when they had none). Applying the
//! same patch again (exact matching only) changes nothing.

use std::fmt::Write as _;

use polypatch_applydiff::ApplyDiff;
use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, Status, Tier, apply};
use proptest::prelude::*;

/// One edit as generated, before it is placed in its file: `gap` unchanged lines after
/// the previous edit, then `removed` lines replaced by `new`; up to `before` and `after`
/// lines of context.
#[derive(Debug, Clone)]
struct RawEdit {
    gap: usize,
    removed: usize,
    new: Vec<String>,
    before: usize,
    after: usize,
}

/// An edit placed in its file: lines `start..end` become `new`, written with `before`
/// lines of context above and `after` below.
#[derive(Debug, Clone)]
struct Placed {
    start: usize,
    end: usize,
    new: Vec<String>,
    before: usize,
    after: usize,
}

#[derive(Debug, Clone)]
struct File {
    path: String,
    lines: Vec<String>,
    crlf: bool,
    final_newline: bool,
    edits: Vec<Placed>,
    /// A `mode=replace` block's lines instead of the edits.
    replace: Option<Vec<String>>,
}

impl File {
    fn eol(&self) -> &'static str {
        if self.crlf { "\r\n" } else { "\n" }
    }

    fn render(&self, lines: &[String]) -> String {
        if lines.is_empty() {
            return String::new();
        }
        let mut out = lines.join(self.eol());
        if self.final_newline {
            out.push_str(self.eol());
        }
        out
    }

    fn before(&self) -> String {
        self.render(&self.lines)
    }

    /// The file with every edit made.
    fn target(&self) -> String {
        // A replacement keeps the file's line terminator and missing final newline.
        self.render(&self.target_lines())
    }

    fn target_lines(&self) -> Vec<String> {
        if let Some(lines) = &self.replace {
            return lines.clone();
        }
        let mut out = Vec::new();
        let mut at = 0;
        for e in &self.edits {
            out.extend_from_slice(&self.lines[at..e.start]);
            out.extend(e.new.iter().cloned());
            at = e.end;
        }
        out.extend_from_slice(&self.lines[at..]);
        out
    }

    /// The from and to lines of edit `i`.
    fn block(&self, i: usize) -> (Vec<String>, Vec<String>) {
        let e = &self.edits[i];
        let above = &self.lines[e.start - e.before..e.start];
        let below = &self.lines[e.end..e.end + e.after];
        let from = [above, &self.lines[e.start..e.end], below].concat();
        let to = [above, e.new.as_slice(), below].concat();
        (from, to)
    }
}

/// Places the edits in a file of `n` lines; drops what does not fit, what would change
/// nothing, and an insertion with no line around it to anchor it.
fn place(n: usize, raw: &[RawEdit]) -> Vec<Placed> {
    let mut placed = Vec::new();
    let mut cursor = 0;
    for r in raw {
        let start = cursor + r.gap;
        if start + r.removed > n {
            break;
        }
        placed.push(Placed { start, end: start + r.removed, new: r.new.clone(), before: r.before, after: r.after });
        cursor = start + r.removed;
    }
    let bounds: Vec<(usize, usize)> = placed.iter().map(|p| (p.start, p.end)).collect();
    for (i, p) in placed.iter_mut().enumerate() {
        // Context comes only from lines no other edit touches.
        let free_above = p.start - if i == 0 { 0 } else { bounds[i - 1].1 };
        let free_below = bounds.get(i + 1).map_or(n, |b| b.0) - p.end;
        p.before = p.before.min(free_above);
        p.after = p.after.min(free_below);
        if p.start == p.end && p.before + p.after == 0 {
            if free_above > 0 {
                p.before = 1;
            } else if free_below > 0 {
                p.after = 1;
            }
        }
    }
    placed.retain(|p| p.end > p.start || (!p.new.is_empty() && p.before + p.after > 0));
    for (i, p) in placed.iter_mut().enumerate() {
        // New lines are unique too (and never blank): the core reports a block already
        // applied when the lines it adds already stand where it would add them, which a
        // new line equal to its neighbour (two blank lines, say) would make true.
        for (j, l) in p.new.iter_mut().enumerate() {
            let _ = write!(l, " #{i}.{j}");
        }
    }
    placed
}

/// Whether the from lines of `p` in `lines` hold a non-blank line (so they occur once).
fn anchored(lines: &[String], p: &Placed) -> bool {
    lines[p.start - p.before..p.end + p.after].iter().any(|l| !l.is_empty())
}

/// A line's text: some indentation, a word, optionally a trailing space; `tag` makes it
/// unique. Never a marker of the format (it starts with a letter after its indentation).
fn line(tag: String) -> impl Strategy<Value = String> {
    (prop::sample::select(vec!["", "  ", "    ", "\t", "\t  "]), "[a-z][a-z(){};=é→ ]{0,10}", any::<bool>())
        .prop_map(move |(indent, word, space)| format!("{indent}{word} {tag}{}", if space { " " } else { "" }))
}

fn new_lines(tag: String) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(line(tag), 0..4)
}

/// The lines of a created file: blank lines allowed.
fn created_lines() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(prop_oneof![4 => line("created".into()), 1 => Just(String::new())], 0..4)
}

fn raw_edit(tag: String) -> impl Strategy<Value = RawEdit> {
    (0usize..5, 0usize..4, new_lines(tag), 0usize..4, 0usize..4)
        .prop_map(|(gap, removed, new, before, after)| RawEdit { gap, removed, new, before, after })
}

fn file(index: usize) -> impl Strategy<Value = File> {
    (1usize..30, any::<bool>(), prop::bool::weighted(0.8))
        .prop_flat_map(move |(n, crlf, final_newline)| {
            let lines: Vec<_> =
                (0..n).map(|k| prop_oneof![5 => line(format!("f{index}.{k}")), 1 => Just(String::new())]).collect();
            let edits = prop::collection::vec(raw_edit(format!("new{index}")), 1..6);
            let replace = prop::option::weighted(0.15, prop::collection::vec(line(format!("r{index}")), 0..5));
            (lines, edits, Just(crlf), Just(final_newline), replace)
        })
        .prop_map(move |(lines, raw, mut crlf, mut final_newline, replace)| {
            // `a\n` is one line with a final newline, never `a` and a blank line without;
            // and a file without any line end has no line terminator to keep (new lines
            // get `\n`).
            final_newline |= lines.last().is_some_and(String::is_empty);
            crlf &= lines.len() > 1 || final_newline;
            let mut edits = place(lines.len(), &raw);
            // A from block of blank lines only could match elsewhere; such an edit is left out.
            edits.retain(|p| anchored(&lines, p) && replace.is_none());
            File { path: format!("src/m{index}/file{index}.txt"), lines, crlf, final_newline, edits, replace }
        })
}

#[derive(Debug, Clone)]
struct Case {
    files: Vec<File>,
    /// Files created by an empty `--- from`: their lines.
    created: Vec<Vec<String>>,
    crlf_patch: bool,
    /// A sort key per block: the order blocks are written in.
    order: Vec<u32>,
    /// Per block: prose before it, its closer (`<` or `<<<`), and an option in its header.
    style: Vec<(bool, bool, u8)>,
}

fn case() -> impl Strategy<Value = Case> {
    let files = (1usize..4).prop_flat_map(|n| (0..n).map(file).collect::<Vec<_>>());
    let created = prop::collection::vec(created_lines(), 0..3);
    (
        files,
        created,
        any::<bool>(),
        prop::collection::vec(any::<u32>(), 24),
        prop::collection::vec(any::<(bool, bool, u8)>(), 24),
    )
        .prop_map(|(files, created, crlf_patch, order, style)| Case { files, created, crlf_patch, order, style })
}

/// One block to write: its path, from and to lines, and whether it is `mode=replace`.
type Block = (String, Vec<String>, Vec<String>, bool);

fn blocks(c: &Case) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    for f in &c.files {
        for i in 0..f.edits.len() {
            let (from, to) = f.block(i);
            out.push((f.path.clone(), from, to, false));
        }
        if let Some(lines) = &f.replace {
            out.push((f.path.clone(), Vec::new(), lines.clone(), true));
        }
    }
    for (i, lines) in c.created.iter().enumerate() {
        out.push((format!("new/c{i}.txt"), Vec::new(), lines.clone(), false));
    }
    let mut keyed: Vec<(u32, Block)> =
        out.into_iter().enumerate().map(|(i, b)| (c.order[i % c.order.len()], b)).collect();
    keyed.sort_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, b)| b).collect()
}

fn patch(c: &Case, blocks: &[Block]) -> String {
    let nl = if c.crlf_patch { "\r\n" } else { "\n" };
    let mut out = String::new();
    for (i, (path, from, to, replace)) in blocks.iter().enumerate() {
        let (prose, long_close, option) = c.style[i % c.style.len()];
        if prose {
            let _ = write!(out, "Change {i} goes into `{path}`:{nl}{nl}");
        }
        let option = match option % 4 {
            _ if *replace => " | mode=replace",
            0 if !from.is_empty() => " | fuzz=0.9",
            1 => " | mode=patch",
            _ => "",
        };
        let _ = write!(out, ">>> file: {path}{option}{nl}--- from{nl}");
        for l in from {
            out.push_str(l);
            out.push_str(nl);
        }
        out.push_str("--- to");
        out.push_str(nl);
        for l in to {
            out.push_str(l);
            out.push_str(nl);
        }
        out.push_str(if long_close { "<<<" } else { "<" });
        out.push_str(nl);
    }
    out
}

fn created_content(lines: &[String]) -> String {
    lines.iter().fold(String::new(), |mut out, l| {
        out.push_str(l);
        out.push('\n');
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random files + random edits → ApplyDiff blocks → parse → apply == the target bytes,
    /// every block found exactly; an untouched file stays as it was; a re-run is a no-op.
    #[test]
    fn applydiff_round_trip(c in case()) {
        let blocks = blocks(&c);
        prop_assume!(!blocks.is_empty());
        let patch = patch(&c, &blocks);
        let plan = ApplyDiff.parse(&patch).map_err(|e| TestCaseError::fail(format!("{}\n{patch}", e.render(&patch))))?;
        let mut files = MemoryFileSet::new().with("other.txt", "untouched  \n");
        for f in &c.files {
            files.insert(f.path.clone(), f.before().into_bytes());
        }
        let report = apply(&plan, &mut files, &ApplyOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{}\n--- patch ---\n{patch}", e.report)))?;
        for f in &c.files {
            let want = f.target();
            prop_assert_eq!(
                files.get_str(&f.path), Some(want.as_str()),
                "\n--- patch ---\n{}--- file ---\n{:?}--- report ---\n{}", patch, f.before(), report
            );
        }
        for (i, lines) in c.created.iter().enumerate() {
            let want = created_content(lines);
            prop_assert_eq!(files.get_str(&format!("new/c{i}.txt")), Some(want.as_str()));
        }
        prop_assert_eq!(files.get_str("other.txt"), Some("untouched  \n"));
        for file in &report.files {
            for edit in &file.edits {
                prop_assert_eq!(edit.status, Status::Applied, "{}", report);
                prop_assert_eq!(edit.tier, Some(Tier::Exact), "{}", report);
            }
        }

        // A re-run (exact matching only) changes nothing: every block is recognized as
        // already applied (the lines it removed are gone and the lines it added stand in
        // their place). Exact only, because the generated lines differ from each other
        // in a digit or two: at the fuzzy tier, a block whose from lines are gone may
        // find a look-alike, and a block that only deletes, with context on one side,
        // leaves no evidence against it (the core applies it there). Left out: a block
        // that only deletes with no context or only blank lines around (nothing is left
        // to recognize it by), or that deletes blank lines (its from lines may stand
        // again: one of two blank lines deleted).
        let deletes_unrecognizably = |f: &File, i: usize| {
            let e = &f.edits[i];
            e.new.is_empty()
                && (f.block(i).1.iter().all(String::is_empty) || f.lines[e.start..e.end].iter().all(String::is_empty))
        };
        // Nor a file whose result ends in a blank line without a final newline: that
        // blank line is no line at all once written (`a\n` is one line).
        let loses_a_blank = |f: &File| !f.final_newline && f.target_lines().last().is_some_and(String::is_empty);
        if c.files.iter().any(|f| loses_a_blank(f) || (0..f.edits.len()).any(|i| deletes_unrecognizably(f, i))) {
            return Ok(());
        }
        let after = files.clone();
        let again = apply(&plan, &mut files, &ApplyOptions::default().strict(true))
            .map_err(|e| TestCaseError::fail(format!("re-run: {e}\n{}\n--- patch ---\n{patch}", e.report)))?;
        prop_assert_eq!(&files, &after, "a re-run changed the files:\n{}", again);
    }
}
