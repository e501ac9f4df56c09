//! Finding the patch blocks in a model's reply: markdown prose, fenced blocks, bare
//! patches, raw diffs.
//!
//! [`extract`] scans the reply once, top to bottom, and reports each block it finds with
//! its dialect, where it stands in the reply and how sure the dialect's own
//! [`Dialect::sniff`] is about it. The dialects are the built-in ones
//! ([`crate::Dialects::builtin`]); [`crate::Dialects::extract`] uses those of a registry
//! (a user's own among them). Blocks never overlap and are reported in reply order:
//!
//! - a fenced block (```` ``` ```` or `~~~`, any fence length of three or more, any info
//!   string or none) whose content some dialect sniffs above 0; the best score wins (on a
//!   tie, the order of [`Dialects::global`](crate::Dialects::global)). When the content holds bare blocks (below),
//!   those are the blocks, with the fence's info string: a `*** Begin Patch` block in an
//!   `apply_patch <<'EOF'` heredoc leaves the heredoc lines out. A fence no dialect recognises (a shell
//!   snippet, example code, a JSON object that is not a bundle) is skipped, not an error.
//!   A fence tagged `markdown` or `md` is searched for blocks inside it (up to 8 such
//!   fences one inside the other; a deeper one is read as an ordinary fence). An unclosed fence
//!   runs to the end of the reply. A fence indented in a list item, whose lines all carry
//!   its indentation, is read without it ([`Block::content`]). A fence line more than 3
//!   spaces deeper than the opening one (in a YAML block scalar), or a diff's context line
//!   ` ``` ` followed only by diff lines up to the real close, is content, not the close;
//! - outside fences: a block each dialect says starts at a line and ends further on
//!   ([`Dialect::bare_block`], asked in the registry's order), that a dialect recognises.
//!   The built-in ones: a bare `*** Begin Patch` … `*** End Patch` block (AI-PATCH); a run
//!   of `>>> file:` blocks each closed by `<` (`ApplyDiff`); a raw git or unified diff
//!   (from a `diff --git` line, or a `--- ` line followed by a `+++ ` line, to the last line
//!   that belongs to it); a JSON object starting at the beginning of a line that sniffs as
//!   an Aptix bundle;
//! - when none of these is found, the whole reply as one block, if a dialect recognises it
//!   (a bare ap YAML plan, say), so a reply that is exactly one patch is one block.
//!
//! The work is linear in the reply's size: the lines are split once
//! ([`crate::engine::ReplyLines`]), the JSON brackets counted in one pass for every line
//! that starts with `{` ([`crate::engine::ReplyLines::json_end`]), a block's line
//! numbers found by a binary search, and a candidate no dialect recognises does not make
//! the scan read the candidates inside it again (see the notes on `Reader::scan`).
//!
//! ```
//! let reply = "Here is the fix:\n\n```diff\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n```\n\nAnd run:\n\n```bash\ncargo test\n```\n";
//! let blocks = polypatch::extract(reply);
//! assert_eq!(blocks.len(), 1);
//! assert_eq!(blocks[0].dialect.as_str(), "unified");
//! assert_eq!(blocks[0].fence.as_deref(), Some("diff"));
//! assert_eq!((blocks[0].lines.start, blocks[0].lines.end), (4, 8));
//! assert!(blocks[0].text.starts_with("--- a/x.txt\n"));
//! ```

#[cfg(feature = "serde")]
use serde::Serialize;

use crate::engine::ReplyLines;
use crate::{Dialect, Dialects};
use polypatch_core::{DialectName, LineRange, Span};

/// One patch block found in a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize))]
#[non_exhaustive]
pub struct Block<'a> {
    /// The dialect whose sniffer scored the block highest (`"ai-patch"`, `"unified"`, …).
    pub dialect: DialectName,
    /// The block's bytes in the reply: for a fenced block, the lines between the fences.
    pub span: Span,
    /// The lines of the block in the reply (1-based, inclusive).
    pub lines: LineRange,
    /// The fence's info string (`"diff"`, `"json"`, `""` for an untagged fence); `None`
    /// for a block outside fences.
    pub fence: Option<&'a str>,
    /// The block's text, `&reply[span.start..span.end]`.
    pub text: &'a str,
    /// The dialect's sniff score of the text, 1..=100.
    pub confidence: u8,
    /// The indentation of a fence inside a list item (`1. Fix it:` then an indented
    /// ```` ``` ````): every line of `text` starts with this many spaces (or is blank), and
    /// [`Block::content`] removes them. 0 otherwise.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "is_zero"))]
    pub indent: usize,
    /// The block is in a fence that never closes and the reply stops in the middle of a
    /// line, inside the block: the reply was cut off (an output limit), and the block's
    /// last line is half a line. [`crate::reply::plan_reply`] refuses such a block as
    /// [`ErrorKind::TRUNCATED`](polypatch_core::ErrorKind::TRUNCATED), whatever its dialect.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "std::ops::Not::not"))]
    pub cut_off: bool,
}

#[cfg(feature = "serde")]
#[allow(clippy::trivially_copy_pass_by_ref, reason = "serde's skip_serializing_if passes a reference")]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Block<'_> {
    /// The block as its dialect reads it: `text` without the fence's indentation.
    pub fn content(&self) -> std::borrow::Cow<'_, str> {
        dedent(self.text, self.indent)
    }
}

/// `text` with up to `indent` leading spaces removed from each line.
fn dedent(text: &str, indent: usize) -> std::borrow::Cow<'_, str> {
    if indent == 0 {
        return text.into();
    }
    text.split_inclusive('\n').map(|line| &line[leading_spaces(line).min(indent)..]).collect::<String>().into()
}

fn leading_spaces(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Every patch block in `reply`, in order; empty when the reply holds no patch. See the
/// [module documentation](self) for what counts as a block. [`Dialects::extract`] finds
/// the blocks of other dialects (a user's own).
///
/// ```
/// let reply = "Run this first:\n\n```sh\ncargo test\n```\n\nthen apply:\n\n```diff\n\
///              --- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n";
/// let blocks = polypatch::extract(reply);
/// assert_eq!(blocks.len(), 1); // the shell snippet is not a patch
/// assert_eq!((blocks[0].dialect.as_str(), blocks[0].fence), ("unified", Some("diff")));
/// assert!(blocks[0].text.starts_with("--- a/a.txt"));
/// ```
pub fn extract(reply: &str) -> Vec<Block<'_>> {
    extract_in(Dialects::global(), reply)
}

/// [`extract`] with the dialects of `dialects`.
pub(crate) fn extract_in<'a>(dialects: &Dialects, reply: &'a str) -> Vec<Block<'a>> {
    let reader = Reader { dialects, reply, lines: ReplyLines::new(reply) };
    let mut blocks = Vec::new();
    reader.scan(0, reader.lines.len(), Mode::Every, 0, &mut blocks);
    if blocks.is_empty()
        && let Some((dialect, score)) = reader.best(reply)
    {
        blocks.push(reader.block(Span::new(0, reply.len()), None, dialect, score));
    }
    mark_cut_off(reply, &mut blocks);
    charge(reader.lines.bytes_read());
    blocks
}

/// Sets [`Block::cut_off`] on the last block when it is fenced, the reply stops in the
/// middle of a line, and no fence line follows the block: its fence never closed, so the
/// reply was cut off inside it (in the block's last line, or in what would have come next
/// in the fence: another hunk, another block).
fn mark_cut_off(reply: &str, blocks: &mut [Block<'_>]) {
    if let Some(last) = blocks.last_mut()
        && last.fence.is_some()
        && crate::engine::cut_off_line(reply).is_some()
        && !reply[last.span.end..].lines().any(|line| {
            let line = line.trim();
            line.len() >= 3 && (line.bytes().all(|b| b == b'`') || line.bytes().all(|b| b == b'~'))
        })
    {
        last.cut_off = true;
    }
}

/// Every dialect compiled in with its sniff score of `text`, highest first (on a tie, in
/// the order of [`Dialects::global`](crate::Dialects::global)). Scores are 0 (not at all) to 100 (certain).
/// [`Dialects::detect_all`] scores with other dialects (a user's own).
///
/// ```
/// let scores = polypatch::extract::detect_all("*** Begin Patch\n*** Delete File: a\n*** End Patch\n");
/// assert_eq!(scores[0].0.name(), "ai-patch");
/// assert_eq!(scores[0].1, 95);
/// assert_eq!(scores.len(), polypatch::Dialects::global().len());
/// ```
pub fn detect_all(text: &str) -> Vec<(&'static dyn Dialect, u8)> {
    Dialects::global().detect_all(text)
}

/// How deep fences tagged `markdown` or `md` are searched inside one another; a deeper
/// one is read as an ordinary fence. Each level reads its lines once more: the bound keeps
/// a reply of nested unclosed fences linear in its size.
const MARKDOWN_DEPTH: usize = 8;

/// What a scan of some lines reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Every block: fenced ones and bare ones.
    Every,
    /// Bare blocks only (inside a fence): a fence inside is passed over, except one tagged
    /// `markdown`, which is searched.
    Bare,
}

/// The reply split into lines, and the dialects that look at them.
struct Reader<'d, 'a> {
    dialects: &'d Dialects,
    reply: &'a str,
    lines: ReplyLines<'a>,
}

impl<'a> Reader<'_, 'a> {
    /// The best-scoring dialect of `text`, when one scores above 0.
    fn best(&self, text: &str) -> Option<(&'static str, u8)> {
        charge(text.len());
        self.dialects.detect_all(text).first().filter(|(_, score)| *score > 0).map(|(d, score)| (d.name(), *score))
    }

    fn block(&self, span: Span, fence: Option<&'a str>, dialect: &'static str, score: u8) -> Block<'a> {
        let start = self.lines.line_at(span.start);
        // Its last byte may be inside a character: `line_at` reads no text.
        let end = if span.end > span.start { self.lines.line_at(span.end - 1) + 1 } else { start };
        Block {
            dialect: DialectName::new(dialect),
            span,
            lines: LineRange::from_zero_based(start, end),
            fence,
            text: &self.reply[span.start..span.end],
            confidence: score,
            indent: 0,
            cut_off: false,
        }
    }

    /// Scans lines `from..to` for blocks, inside `depth` markdown fences.
    ///
    /// Outside fences, each dialect in turn says whether a block of its own starts at the
    /// line and where it ends ([`Dialect::bare_block`]); the first such candidate that a
    /// dialect recognises ([`Dialect::sniff`] above 0) is a block, and the scan goes on
    /// after it. A candidate no dialect recognises is passed over a line at a time, so the
    /// candidates inside it are tried too; the ones inside a failed one of the same
    /// dialect are known to fail without reading them again. A sniffer scores a text above
    /// 0 only for lines it holds (or for a JSON text, the keys in it), so a run of whole
    /// lines inside a text that every dialect scores 0 scores 0 too (the test
    /// `skipped_candidates_fail_as_they_did` holds this against the scan without the
    /// shortcuts). Of the built-in dialects, two have candidates that can fail:
    /// - a `--- ` / `+++ ` pair whose diff has no `@@` line: a pair inside it ends where it
    ///   ends (the unified dialect says so without reading it again);
    /// - a `{` line whose JSON value no dialect recognises: a `{` line whose value closes
    ///   inside it. Two values cross (each ends inside the other's lines on one side only)
    ///   only where a string runs over a line break, which JSON does not allow; such a
    ///   value is read on its own.
    fn scan(&self, from: usize, to: usize, mode: Mode, depth: usize, out: &mut Vec<Block<'a>>) {
        // For each dialect, one past the last line of its furthest candidate no dialect
        // recognised.
        let mut failed = vec![from; self.dialects.len()];
        let mut i = from;
        'lines: while i < to {
            let line = self.lines.line(i);
            if let Some((fence_char, width, info)) = fence_open(line) {
                let text = |j: usize| self.lines.line(j);
                let close = fence_close(&text, i + 1, to, fence_char, width, leading_spaces(line));
                let inner_end = close.unwrap_or(to);
                let tag = info.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
                if matches!(tag.as_str(), "markdown" | "md") && depth < MARKDOWN_DEPTH {
                    self.scan(i + 1, inner_end, mode, depth + 1, out);
                } else if mode == Mode::Every {
                    self.fenced(i, inner_end, info, depth, out);
                }
                i = close.map_or(to, |j| j + 1);
                continue;
            }
            for (d, failed) in self.dialects.iter().zip(&mut failed) {
                let Some(end) = d.bare_block(&self.lines, i, to, *failed) else { continue };
                let end = end.min(to);
                // Inside a candidate of the same dialect that failed: it fails too.
                if end <= i || end <= *failed {
                    continue;
                }
                let span = self.lines.span(i, end);
                if let Some((dialect, score)) = self.best(&self.reply[span.start..span.end]) {
                    out.push(self.block(span, None, dialect, score));
                    i = end;
                    continue 'lines;
                }
                *failed = end;
            }
            i += 1;
        }
    }

    /// The fence opened at line `open` with `info`, its content up to line `inner_end`: its
    /// bare blocks, or the block it is.
    fn fenced(&self, open: usize, inner_end: usize, info: &'a str, depth: usize, out: &mut Vec<Block<'a>>) {
        let span = self.lines.span(open + 1, inner_end);
        let content = &self.reply[span.start..span.end];
        charge(content.len());
        // A fence in a list item: its lines carry the item's indentation.
        let indent = leading_spaces(self.lines.line(open));
        let indented =
            indent > 0 && content.split_inclusive('\n').all(|l| l.trim().is_empty() || leading_spaces(l) >= indent);
        let indent = if indented { indent } else { 0 };
        if indent == 0 {
            // Bare blocks inside the fence (an `apply_patch <<'EOF'` heredoc around a
            // `*** Begin Patch` block, prose inside the fence): those, not the lines
            // around them.
            let before = out.len();
            self.scan(open + 1, inner_end, Mode::Bare, depth, out);
            if out.len() > before {
                for block in &mut out[before..] {
                    block.fence = Some(info);
                }
                return;
            }
        }
        if let Some((dialect, score)) = self.best(&dedent(content, indent)) {
            out.push(Block { indent, ..self.block(span, Some(info), dialect, score) });
        }
    }
}

/// A fence opening line: its character, its width and its info string.
fn fence_open(line: &str) -> Option<(char, usize, &str)> {
    let trimmed = line.trim_start();
    let c = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let width = trimmed.len() - trimmed.trim_start_matches(c).len();
    let info = trimmed[width..].trim();
    // A backtick fence's info string holds no backtick (that would be inline code).
    (width >= 3 && !(c == '`' && info.contains('`'))).then_some((c, width, info))
}

/// Whether `line` closes a fence of `width` characters `c` opened at indentation `indent`:
/// at least as wide, nothing after it, and indented at most 3 spaces more than the opening
/// (a fence line deeper than that is content: a YAML block scalar quoting markdown, say).
fn fence_closes(line: &str, c: char, width: usize, indent: usize) -> bool {
    if leading_spaces(line) > indent + 3 {
        return false;
    }
    let trimmed = line.trim();
    let run = trimmed.len() - trimmed.trim_start_matches(c).len();
    run >= width && run == trimmed.len()
}

/// The line that closes the fence opened at `indent` before line `from`, if any before `to`.
/// A diff's context line ` ``` ` (a markdown file's fence, one space deeper than ours) is
/// content, not the close, when only lines that can stand in a hunk lie between it and a
/// fence at our depth. One pass: such a line waits until prose (it closed) or a fence at
/// our depth (it was content).
fn fence_close<'a>(
    text: &impl Fn(usize) -> &'a str,
    from: usize,
    to: usize,
    c: char,
    width: usize,
    indent: usize,
) -> Option<usize> {
    let mut pending = None;
    for j in from..to {
        let line = text(j);
        if fence_closes(line, c, width, indent) {
            if leading_spaces(line) != indent + 1 {
                return Some(j);
            }
            pending = pending.or(Some(j));
        } else if pending.is_some() && !hunk_line(line.get(indent..).unwrap_or("")) {
            return pending;
        }
    }
    pending
}

/// A line that can stand in a hunk (or between hunks) of a diff or an AI-PATCH.
fn hunk_line(line: &str) -> bool {
    line.trim().is_empty()
        || line.starts_with([' ', '+', '-', '\\'])
        || line.starts_with("@@")
        || line.starts_with("***")
}

// Work done by `extract`: bytes looked at, counted in tests (which bound it by the reply's
// size) and nowhere else.
#[cfg(test)]
thread_local! {
    static WORK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg_attr(not(test), allow(unused_variables, clippy::missing_const_for_fn))]
fn charge(bytes: usize) {
    #[cfg(test)]
    WORK.with(|work| work.set(work.get() + bytes));
}

#[cfg(all(test, feature = "ai-patch", feature = "unified", feature = "ap", feature = "applydiff", feature = "aptix"))]
mod tests {
    use super::*;

    /// The scan as it was before issue 25 (one pass from each candidate, a recursion per
    /// nested fence, line numbers counted from the start for each block): the reference the
    /// linear scan is checked against.
    mod reference {
        use super::super::{Block, Span, charge, dedent, fence_close, fence_open, leading_spaces};
        use crate::engine::ReplyLines;
        use polypatch_core::LineRange;

        pub(super) fn extract(reply: &str) -> Vec<Block<'_>> {
            let lines = ReplyLines::new(reply);
            let mut blocks = Vec::new();
            scan(reply, &lines, 0, lines.len(), &mut blocks);
            if blocks.is_empty()
                && let Some((dialect, score)) = best(reply)
            {
                blocks.push(block(reply, Span::new(0, reply.len()), None, dialect, score));
            }
            super::super::mark_cut_off(reply, &mut blocks);
            charge(lines.bytes_read());
            blocks
        }
        fn best(text: &str) -> Option<(&'static str, u8)> {
            charge(text.len());
            crate::extract::detect_all(text)
                .first()
                .filter(|(_, score)| *score > 0)
                .map(|(d, score)| (d.name(), *score))
        }
        fn block<'a>(
            reply: &'a str,
            span: Span,
            fence: Option<&'a str>,
            dialect: &'static str,
            score: u8,
        ) -> Block<'a> {
            // Bytes, not `&reply[..at]`: the block's last byte may be inside a character.
            let line_of = |at: usize| {
                charge(at);
                reply.as_bytes()[..at].split(|&b| b == b'\n').count()
            };
            let start = line_of(span.start);
            let end = if span.end > span.start { line_of(span.end - 1) } else { start - 1 };
            Block {
                dialect: polypatch_core::DialectName::new(dialect),
                span,
                lines: LineRange::from_zero_based(start - 1, end),
                fence,
                text: &reply[span.start..span.end],
                confidence: score,
                indent: 0,
                cut_off: false,
            }
        }
        /// The scan before issue 25, where the dialects' `bare_block` stands for the ends
        /// it found itself (`*** End Patch`, `applydiff_end`, `diff_end`), asked without
        /// the note of a failed candidate; a `{` line is counted from that line.
        fn scan<'a>(reply: &'a str, lines: &ReplyLines<'a>, from: usize, to: usize, out: &mut Vec<Block<'a>>) {
            let text = |i: usize| lines.line(i);
            let span_of = |a: usize, b: usize| lines.span(a, b);
            let mut i = from;
            while i < to {
                let line = text(i);
                if let Some((fence_char, width, info)) = fence_open(line) {
                    let close = fence_close(&text, i + 1, to, fence_char, width, leading_spaces(line));
                    let inner_end = close.unwrap_or(to);
                    let tag = info.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
                    let span = span_of(i + 1, inner_end);
                    let content = &reply[span.start..span.end];
                    // A fence in a list item: its lines carry the item's indentation.
                    let indent = leading_spaces(line);
                    let indented = indent > 0
                        && content.split_inclusive('\n').all(|l| l.trim().is_empty() || leading_spaces(l) >= indent);
                    let indent = if indented { indent } else { 0 };
                    if matches!(tag.as_str(), "markdown" | "md") {
                        scan(reply, lines, i + 1, inner_end, out);
                    } else if let inner = bare_blocks(reply, lines, i + 1, inner_end)
                        && indent == 0
                        && !inner.is_empty()
                    {
                        // Bare blocks inside the fence (an `apply_patch <<'EOF'` heredoc around a
                        // `*** Begin Patch` block, prose inside the fence): those, not the lines
                        // around them.
                        out.extend(inner.into_iter().map(|b| Block { fence: Some(info), ..b }));
                    } else if let Some((dialect, score)) = best(&dedent(content, indent)) {
                        out.push(Block { indent, ..block(reply, span, Some(info), dialect, score) });
                    }
                    i = close.map_or(to, |j| j + 1);
                    continue;
                }
                let end = if line.starts_with('{') {
                    json_end(lines, i, to)
                } else {
                    crate::Dialects::global().iter().find_map(|d| d.bare_block(lines, i, to, 0))
                };
                match end {
                    Some(end) => {
                        let span = span_of(i, end);
                        let content = &reply[span.start..span.end];
                        match best(content) {
                            Some((dialect, score)) => {
                                out.push(block(reply, span, None, dialect, score));
                                i = end;
                            }
                            None => i += 1,
                        }
                    }
                    None => i += 1,
                }
            }
        }
        fn bare_blocks<'a>(reply: &'a str, lines: &ReplyLines<'a>, from: usize, to: usize) -> Vec<Block<'a>> {
            let mut inner = Vec::new();
            scan(reply, lines, from, to, &mut inner);
            inner.retain(|b| b.fence.is_none());
            inner
        }
        pub(super) fn json_end(lines: &ReplyLines<'_>, i: usize, to: usize) -> Option<usize> {
            let reply = lines.text();
            let start = lines.span(i, i + 1).start;
            let limit = lines.span(to, to).start;
            let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
            for (offset, b) in reply[start..limit].bytes().enumerate() {
                charge(1);
                if in_string {
                    match b {
                        _ if escaped => escaped = false,
                        b'\\' => escaped = true,
                        b'"' => in_string = false,
                        _ => {}
                    }
                    continue;
                }
                match b {
                    b'"' => in_string = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            let at = start + offset;
                            return (i..to).find(|&k| lines.span(k, k + 1).end > at).map(|k| k + 1);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
    }

    const AI: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n";
    const DIFF: &str = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-two\n+dos\n keep\n";
    const BUNDLE: &str = "{\"root\": \".\", \"files\": [{\"path\": \"c.txt\", \"content\": \"tres\\n\"}]}\n";
    const AP: &str = "version: \"2.0\"\nchanges:\n  - file_path: d.txt\n    modifications:\n      - action: replace\n        target:\n          search: \"four\"\n        content: \"cuatro\"\n";
    const APPLYDIFF: &str = ">>> file: e.txt\n--- from\nfive\n--- to\ncinco\n<\n";

    fn dialects_of(reply: &str) -> Vec<String> {
        extract(reply).iter().map(|b| b.dialect.to_string()).collect()
    }

    #[test]
    fn a_bare_patch_is_exactly_one_block() {
        for (patch, dialect) in
            [(AI, "ai-patch"), (DIFF, "unified"), (BUNDLE, "aptix"), (AP, "ap"), (APPLYDIFF, "applydiff")]
        {
            let blocks = extract(patch);
            assert_eq!(blocks.len(), 1, "{patch}");
            assert_eq!(blocks[0].dialect.as_str(), dialect);
            assert_eq!(blocks[0].text, patch, "{dialect}");
            assert_eq!(blocks[0].span, Span::new(0, patch.len()));
            assert_eq!(blocks[0].fence, None);
            assert!(blocks[0].confidence > 0);
        }
    }

    #[test]
    fn fenced_blocks_of_every_tag_with_prose_around() {
        for (tag, patch, dialect) in [
            ("diff", DIFF, "unified"),
            ("patch", AI, "ai-patch"),
            ("json", BUNDLE, "aptix"),
            ("yaml", AP, "ap"),
            ("yml", AP, "ap"),
            ("text", APPLYDIFF, "applydiff"),
            ("applydiff", APPLYDIFF, "applydiff"),
            ("", DIFF, "unified"),
            ("whatever", AI, "ai-patch"),
        ] {
            let reply = format!("Sure, here it is:\n\n```{tag}\n{patch}```\n\nHope that helps.\n");
            let blocks = extract(&reply);
            assert_eq!(blocks.len(), 1, "{reply}");
            assert_eq!(blocks[0].dialect.as_str(), dialect);
            assert_eq!(blocks[0].fence, Some(tag));
            assert_eq!(blocks[0].text, patch);
            assert_eq!(blocks[0].lines.start, 4);
            assert_eq!(blocks[0].lines.end, 3 + patch.lines().count());
            assert_eq!(&reply[blocks[0].span.start..blocks[0].span.end], patch);
        }
    }

    #[test]
    fn tildes_longer_fences_and_nested_fences() {
        let reply = format!("~~~~diff\n{DIFF}~~~~\n");
        assert_eq!(extract(&reply)[0].text, DIFF);
        // A shorter fence inside a longer one does not close it.
        let reply = format!("`````\n```\nnot a close\n{AI}`````\nafter\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].fence), ("ai-patch", Some("")));
        assert!(blocks[0].text.ends_with(AI), "{blocks:?}");
        // A markdown fence is searched for blocks inside it.
        let reply = format!("````markdown\nText\n```diff\n{DIFF}```\n````\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text, blocks[0].fence), ("unified", DIFF, Some("diff")));
    }

    #[test]
    fn a_fence_in_a_list_item_is_read_without_its_indentation() {
        let indented: String = DIFF.lines().flat_map(|l| ["   ", l, "\n"]).collect();
        let reply = format!("1. Fix b:\n\n   ```diff\n{indented}   ```\n2. Done.\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].indent, blocks[0].text), ("unified", 3, indented.as_str()));
        assert_eq!(blocks[0].content(), DIFF);
        // Content that does not carry the fence's indentation is taken as it is.
        let reply = format!("  ```diff\n{DIFF}  ```\n");
        let blocks = extract(&reply);
        assert_eq!((blocks[0].indent, blocks[0].content().as_ref()), (0, DIFF));
    }

    #[test]
    fn a_deeper_fence_line_is_content() {
        let plan = "version: \"2.0\"\nchanges:\n  - file_path: README.md\n    modifications:\n      - action: REPLACE\n        snippet: |\n          ```\n          make\n          ```\n        content: |\n          ```\n          make all\n          ```\n";
        let reply = format!("```yaml\n{plan}```\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text), ("ap", plan));
    }

    #[test]
    fn a_diff_of_a_markdown_file_keeps_its_context_fences() {
        let diff = "--- a/README.md\n+++ b/README.md\n@@ -1,4 +1,4 @@\n ```\n-make\n+make all\n ```\n";
        let reply = format!("Docs:\n```diff\n{diff}```\nDone.\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, diff);
        // In a list item, one space deeper than the item's fence.
        let indented: String = diff.lines().flat_map(|l| ["   ", l, "\n"]).collect();
        let reply = format!("1. Docs:\n   ```diff\n{indented}   ```\n2. Done.\n");
        assert_eq!(extract(&reply)[0].content(), diff);
        // A fence one space deep that prose follows does close.
        let reply = format!("```diff\n{DIFF} ```\nThen some prose.\n```\n");
        assert_eq!(extract(&reply)[0].text, DIFF);
    }

    #[test]
    fn a_heredoc_around_a_begin_patch_is_left_out() {
        let reply = format!("Run:\n```bash\napply_patch <<'EOF'\n{AI}EOF\n```\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text, blocks[0].fence), ("ai-patch", AI, Some("bash")));
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let reply = format!("Here:\n```diff\n{DIFF}");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, DIFF);
    }

    #[test]
    fn fences_that_are_not_patches_are_ignored() {
        let reply = format!(
            "Run this:\n```bash\ncargo test --all\ngit status\n```\nExample:\n```python\ndef f():\n    return {{'a': 1}}\n```\n```json\n{{\"name\": \"x\", \"version\": 2}}\n```\nThe patch:\n```diff\n{DIFF}```\n"
        );
        assert_eq!(dialects_of(&reply), ["unified"]);
        assert_eq!(extract("Nothing to see.\n```sh\nls\n```\n"), Vec::new());
        assert_eq!(extract(""), Vec::new());
    }

    #[test]
    fn a_begin_patch_inside_a_diff_fence_is_one_block() {
        let reply = format!("```diff\n{AI}```\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text), ("ai-patch", AI));
    }

    #[test]
    fn bare_blocks_after_prose_and_several_dialects() {
        let reply = format!(
            "First the rename:\n\n{AI}\nThen the diff:\n\n{DIFF}\nThen a block:\n\n{APPLYDIFF}\nAnd the bundle:\n\n```json\n{BUNDLE}```\nThat's all.\n"
        );
        let blocks = extract(&reply);
        assert_eq!(
            blocks.iter().map(|b| b.dialect.as_str()).collect::<Vec<_>>(),
            ["ai-patch", "unified", "applydiff", "aptix"]
        );
        assert_eq!(blocks.iter().map(|b| b.text).collect::<Vec<_>>(), [AI, DIFF, APPLYDIFF, BUNDLE]);
        assert_eq!((blocks[0].lines.start, blocks[0].lines.end), (3, 8));
        for pair in blocks.windows(2) {
            assert!(pair[0].span.end <= pair[1].span.start);
        }
    }

    #[test]
    fn a_bare_bundle_in_prose() {
        let reply = format!("The bundle:\n{BUNDLE}Done.\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text), ("aptix", BUNDLE));
    }

    #[test]
    fn a_raw_diff_stops_before_the_prose_after_it() {
        let reply = format!("Patch:\n{DIFF}\n- fixed the greeting\n- kept the rest\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, DIFF);
        // Counts met, but a hunk-like line right after: taken in (a model that miscounted
        // its hunk must not lose a line; one line too many fails to parse or locate).
        let reply = format!("{DIFF}- a bullet\n");
        assert_eq!(extract(&reply)[0].text, reply);
        // Two files, a blank line between them: one diff.
        let second = "diff --git a/c b/c\n--- a/c\n+++ b/c\n@@ -1 +1 @@\n-x\n+y\n";
        let reply = format!("{DIFF}\n{second}\nThanks\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, format!("{DIFF}\n{second}"));
        // A hunk whose counts are not met takes its blank lines (blank context).
        let short = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n";
        assert_eq!(extract(&format!("{short}\nbye\n"))[0].text, short);
    }

    #[test]
    fn a_bare_applydiff_run_is_one_block() {
        let two = format!("{APPLYDIFF}\n>>> file: f.txt\n--- from\nsix\n--- to\nseis\n<\n");
        let reply = format!("Edits:\n{two}\nDone.\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text), ("applydiff", two.as_str()));
    }

    #[test]
    fn crlf_replies_keep_their_bytes() {
        let reply = "Fix:\r\n```diff\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n```\r\nbye\r\n";
        let blocks = extract(reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, "--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n");
        assert_eq!((blocks[0].lines.start, blocks[0].lines.end), (3, 7));
        let bare = AI.replace('\n', "\r\n");
        let reply = format!("Here:\r\n{bare}Bye\r\n");
        assert_eq!(extract(&reply)[0].text, bare);
    }

    #[test]
    fn an_unclosed_begin_patch_runs_to_the_end() {
        let reply = "Here:\n*** Begin Patch\n*** Delete File: a\n";
        let blocks = extract(reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].text, "*** Begin Patch\n*** Delete File: a\n");
    }

    #[test]
    fn detect_all_orders_by_score() {
        let scores = detect_all(DIFF);
        assert_eq!(scores[0].0.name(), "unified");
        assert!(scores[0].1 > scores[1].1);
        assert!(scores.windows(2).all(|w| w[0].1 >= w[1].1));
        assert!(detect_all("hello").iter().all(|(_, s)| *s == 0));
    }

    #[test]
    fn a_brace_line_in_a_string_of_a_value_that_is_no_patch_is_tried_on_its_own() {
        // The first value's string runs over its line break, so its count closes on line 2
        // (no patch); counted from line 2, the second value closes on line 3 (a bundle).
        let second = "{\"y\": \"}\n\", \"root\": \".\", \"files\": [{\"path\": \"a\", \"content\": \"x\"}]}\n";
        let reply = format!("{{\"note\": \"x\n{second}Done.\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        assert_eq!((blocks[0].dialect.as_str(), blocks[0].text), ("aptix", second));
        assert_eq!((blocks[0].lines.start, blocks[0].lines.end), (2, 3));
        assert_eq!(blocks, reference::extract(&reply));
    }

    /// Lines replies are made of in the property tests: fences, every dialect's markers,
    /// JSON brackets and strings, diff headers and hunk lines, prose.
    const PIECES: &[&str] = &[
        "```",
        "```diff",
        "````",
        "```md",
        "````markdown",
        "~~~",
        "   ```",
        " ```",
        "```bash",
        "",
        "*** Begin Patch",
        "*** End Patch",
        "*** Update File: a",
        "@@",
        "@@ -1 +1 @@",
        "@@ -1,2 +1,2 @@",
        "-a",
        "+b",
        " c",
        "--- a/x",
        "+++ b/x",
        "diff --git a/x b/x",
        "index 1..2",
        "GIT binary patch",
        "literal 5",
        "zcmb",
        ">>> file: x",
        "--- from",
        "--- to",
        "<",
        "{",
        "}",
        "[",
        "]",
        "{\"a\": \"b",
        "\"}",
        "\\\"\"",
        "{\"k\": [1, {",
        "{\"root\": \".\", \"files\": [{\"path\": \"a\", \"content\": \"x\"}]}",
        "\"path\": \"a\", \"files\": [",
        "version: \"2.0\"",
        "changes:",
        "  - file_path: a",
        "    modifications:",
        "Hello",
        "- item",
        "é",
    ];

    /// The pieces of the candidates that can fail, and of the lines inside them.
    const FAILING: &[&str] = &[
        "--- a/x",
        "+++ b/x",
        "index 1..2",
        "",
        "GIT binary patch",
        "literal 5",
        "zcmb",
        "@@ -1 +1 @@",
        "-a",
        "+b",
        "{",
        "}",
        "[",
        "]",
        "{\"a\": \"b",
        "\"}",
        "\\\"\"",
        "{\"k\": [1, {",
        "\"path\": \"a\", \"files\": [",
        "```",
        "Hello",
        "diff --git a/x b/x",
        "*** Update File: a",
        "version: \"2.0\"",
    ];

    fn reply_of(pieces: &[&str], crlf: bool, last_break: bool) -> String {
        let lines = pieces;
        let mut reply = lines.join(if crlf { "\r\n" } else { "\n" });
        if last_break && !reply.is_empty() {
            reply.push('\n');
        }
        reply
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2_000))]

        /// The linear scan finds exactly the blocks the scan before issue 25 found.
        #[test]
        fn the_scan_finds_what_the_reference_finds(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..40),
            crlf: bool,
            last_break: bool,
        ) {
            let reply = reply_of(&pieces, crlf, last_break);
            proptest::prop_assert_eq!(extract(&reply), reference::extract(&reply), "{:?}", reply);
        }

        /// The same, on replies made mostly of the candidates that can fail: `---`/`+++`
        /// pairs and `{` lines, with what stands inside them.
        #[test]
        fn skipped_candidates_fail_as_they_did(
            pieces in proptest::collection::vec(proptest::sample::select(FAILING), 0..40),
            crlf: bool,
            last_break: bool,
        ) {
            let reply = reply_of(&pieces, crlf, last_break);
            proptest::prop_assert_eq!(extract(&reply), reference::extract(&reply), "{:?}", reply);
        }

        /// The one pass over the JSON brackets finds, for every line that starts with `{`
        /// and every end, the close a count from that line finds.
        #[test]
        fn json_closes_agree_with_a_count_from_each_line(
            reply in "[{}\\[\\]\"\\\\\na ]{0,120}",
            cut in 0usize..40,
        ) {
            let lines = ReplyLines::new(&reply);
            let to = lines.len().saturating_sub(cut % 3 * cut / 2);
            for i in 0..to {
                if reply[lines.span(i, i + 1).start..].starts_with('{') {
                    proptest::prop_assert_eq!(
                        lines.json_end(i, to),
                        reference::json_end(&lines, i, to),
                        "line {} to {} of {:?}", i, to, reply
                    );
                }
            }
        }
    }

    /// Replies that took the scan time by the square of their size, `n` times a piece (with
    /// a head and a tail): many blocks (their line numbers counted from the start), `{`
    /// lines that never close (a count to the end from each), nested unclosed fences (a
    /// recursion over the rest from each), `---`/`+++` pairs without a hunk (a diff to the
    /// end from each), objects nested in one that is no patch (each read again).
    fn pathological(n: usize) -> Vec<(&'static str, String)> {
        let repeat = |piece: &str| piece.repeat(n);
        vec![
            ("fenced diffs", repeat(&format!("Then:\n\n```diff\n{DIFF}```\n\n"))),
            ("bare diffs", repeat("diff --git a/x b/x\nprose\n")),
            ("unclosed braces", repeat("{\n")),
            ("unclosed brace lines", repeat("{ \"a\": [1, 2,\n")),
            ("fences with info", repeat("```a\n")),
            ("markdown fences", repeat("```md\n")),
            ("a fence of unclosed braces", format!("```text\n{}", repeat("{ x\n"))),
            ("diff headers", repeat("--- a/x\n+++ b/x\n")),
            ("nested objects", format!("{}{}", repeat("{\"a\":\n"), repeat("}\n"))),
            ("nested arrays in prose", format!("Data:\n{}{}Done.\n", repeat("[\n{\n"), repeat("}\n]\n"))),
        ]
    }

    fn work(f: impl FnOnce()) -> usize {
        WORK.with(|work| work.set(0));
        f();
        WORK.with(std::cell::Cell::get)
    }

    /// The scan reads each byte of a reply a bounded number of times, whatever its shape
    /// (issue 25, point 8: an 812 KB reply took 19 s); the scan before took work by the
    /// square of the size on each of these replies.
    #[test]
    fn the_scan_is_linear_in_the_reply() {
        const BOUND: usize = 40;
        for (name, reply) in pathological(400) {
            let ours = work(|| drop(extract(&reply)));
            assert!(ours <= BOUND * reply.len(), "{name}: {ours} for {} bytes", reply.len());
            // The reference recurses once per nested fence.
            let (before, same) = std::thread::scope(|scope| {
                let run = || (work(|| drop(reference::extract(&reply))), reference::extract(&reply) == extract(&reply));
                std::thread::Builder::new().stack_size(256 << 20).spawn_scoped(scope, run).unwrap().join().unwrap()
            });
            assert!(before > BOUND * reply.len(), "{name}: the reference took {before} for {} bytes", reply.len());
            assert!(same, "{name}: not the reference's blocks");
        }
    }
}
