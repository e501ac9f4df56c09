//! Finding the patch blocks in a model's reply: markdown prose, fenced blocks, bare
//! patches, raw diffs.
//!
//! [`extract`] scans the reply once, top to bottom, and reports each block it finds with
//! its dialect, where it stands in the reply and how sure the dialect's own
//! [`Dialect::sniff`] is about it. Blocks never overlap and are reported in reply order:
//!
//! - a fenced block (```` ``` ```` or `~~~`, any fence length of three or more, any info
//!   string or none) whose content some dialect sniffs above 0; the best score wins (on a
//!   tie, the order of [`crate::dialects`]). When the content holds bare blocks (below),
//!   those are the blocks, with the fence's info string: a `*** Begin Patch` block in an
//!   `apply_patch <<'EOF'` heredoc leaves the heredoc lines out. A fence no dialect recognises (a shell
//!   snippet, example code, a JSON object that is not a bundle) is skipped, not an error.
//!   A fence tagged `markdown` or `md` is searched for blocks inside it. An unclosed fence
//!   runs to the end of the reply. A fence indented in a list item, whose lines all carry
//!   its indentation, is read without it ([`Block::content`]). A fence line more than 3
//!   spaces deeper than the opening one (in a YAML block scalar), or a diff's context line
//!   ` ``` ` followed only by diff lines up to the real close, is content, not the close;
//! - outside fences: a bare `*** Begin Patch` … `*** End Patch` block (AI-PATCH); a run of
//!   `>>> file:` blocks each closed by `<` (`ApplyDiff`); a raw git or unified diff (from a
//!   `diff --git` line, or a `--- ` line followed by a `+++ ` line, to the last line that
//!   belongs to it); a JSON object starting at the beginning of a line that sniffs as an
//!   Aptix bundle;
//! - when none of these is found, the whole reply as one block, if a dialect recognises it
//!   (a bare ap YAML plan, say), so a reply that is exactly one patch is one block.
//!
//! ```
//! let reply = "Here is the fix:\n\n```diff\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old\n+new\n```\n\nAnd run:\n\n```bash\ncargo test\n```\n";
//! let blocks = polypatch::extract(reply);
//! assert_eq!(blocks.len(), 1);
//! assert_eq!(blocks[0].dialect, "unified");
//! assert_eq!(blocks[0].fence.as_deref(), Some("diff"));
//! assert_eq!((blocks[0].lines.start, blocks[0].lines.end), (4, 8));
//! assert!(blocks[0].text.starts_with("--- a/x.txt\n"));
//! ```

use serde::Serialize;

use crate::{Dialect, LineRange, Span, dialects};

/// One patch block found in a reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Block<'a> {
    /// The dialect whose sniffer scored the block highest (`"ai-patch"`, `"unified"`, …).
    pub dialect: &'static str,
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
    #[serde(skip_serializing_if = "is_zero")]
    pub indent: usize,
}

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
/// [module documentation](self) for what counts as a block.
///
/// ```
/// let reply = "Run this first:\n\n```sh\ncargo test\n```\n\nthen apply:\n\n```diff\n\
///              --- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n```\n";
/// let blocks = polypatch::extract(reply);
/// assert_eq!(blocks.len(), 1); // the shell snippet is not a patch
/// assert_eq!((blocks[0].dialect, blocks[0].fence), ("unified", Some("diff")));
/// assert!(blocks[0].text.starts_with("--- a/a.txt"));
/// ```
pub fn extract(reply: &str) -> Vec<Block<'_>> {
    let lines = split_lines(reply);
    let mut blocks = Vec::new();
    scan(reply, &lines, 0, lines.len(), &mut blocks);
    if blocks.is_empty()
        && let Some((dialect, score)) = best(reply)
    {
        blocks.push(block(reply, Span::new(0, reply.len()), None, dialect, score));
    }
    blocks
}

/// Every dialect compiled in with its sniff score of `text`, highest first (on a tie, in
/// the order of [`crate::dialects`]). Scores are 0 (not at all) to 100 (certain).
///
/// ```
/// let scores = polypatch::detect_all("*** Begin Patch\n*** Delete File: a\n*** End Patch\n");
/// assert_eq!(scores[0].0.name(), "ai-patch");
/// assert_eq!(scores[0].1, 95);
/// assert_eq!(scores.len(), polypatch::dialects().len());
/// ```
pub fn detect_all(text: &str) -> Vec<(&'static dyn Dialect, u8)> {
    let mut scores: Vec<_> = dialects().into_iter().map(|d| (d, d.sniff(text))).collect();
    scores.sort_by_key(|s| std::cmp::Reverse(s.1));
    scores
}

/// The best-scoring dialect of `text`, when one scores above 0.
fn best(text: &str) -> Option<(&'static str, u8)> {
    detect_all(text).first().filter(|(_, score)| *score > 0).map(|(d, score)| (d.name(), *score))
}

/// A line of the reply: its bytes without the line break (`start..end`), and where the
/// next line starts.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

fn split_lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let (end, next) = match text[start..].find('\n') {
            Some(i) => (start + i, start + i + 1),
            None => (text.len(), text.len()),
        };
        let end = if text[start..end].ends_with('\r') { end - 1 } else { end };
        out.push(Line { start, end, next });
        start = next;
    }
    out
}

fn block<'a>(reply: &'a str, span: Span, fence: Option<&'a str>, dialect: &'static str, score: u8) -> Block<'a> {
    // Bytes, not `&reply[..at]`: the block's last byte may be inside a character.
    let line_of = |at: usize| reply.as_bytes()[..at].split(|&b| b == b'\n').count();
    let start = line_of(span.start);
    let end = if span.end > span.start { line_of(span.end - 1) } else { start - 1 };
    Block {
        dialect,
        span,
        lines: LineRange::from_zero_based(start - 1, end),
        fence,
        text: &reply[span.start..span.end],
        confidence: score,
        indent: 0,
    }
}

/// Scans lines `from..to` of `reply` for blocks.
fn scan<'a>(reply: &'a str, lines: &[Line], from: usize, to: usize, out: &mut Vec<Block<'a>>) {
    let text = |i: usize| &reply[lines[i].start..lines[i].end];
    let span_of = |a: usize, b: usize| {
        // Lines a..b (exclusive); empty at the start of line a when a == b.
        let start = lines.get(a).map_or(reply.len(), |l| l.start);
        let end = if b > a { lines[b - 1].next } else { start };
        Span::new(start, end)
    };
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
            let indented =
                indent > 0 && content.split_inclusive('\n').all(|l| l.trim().is_empty() || leading_spaces(l) >= indent);
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
        let end = if line.trim() == "*** Begin Patch" {
            Some(((i + 1..to).find(|&j| text(j).trim() == "*** End Patch")).map_or(to, |j| j + 1))
        } else if line.trim_start().starts_with(">>> file:") {
            Some(applydiff_end(&text, i, to))
        } else if line.starts_with("diff --git ")
            || (line.starts_with("--- ") && i + 1 < to && text(i + 1).starts_with("+++ "))
        {
            Some(diff_end(&text, i, to))
        } else if line.starts_with('{') {
            json_end(reply, lines, i, to)
        } else {
            None
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

/// The blocks of lines `from..to` found without looking at fences inside them.
fn bare_blocks<'a>(reply: &'a str, lines: &[Line], from: usize, to: usize) -> Vec<Block<'a>> {
    let mut inner = Vec::new();
    scan(reply, lines, from, to, &mut inner);
    inner.retain(|b| b.fence.is_none());
    inner
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

/// One past the last line of a run of `>>> file:` blocks starting at line `i`: each block
/// ends with its `<` (or `<<<`) line after `--- to`; blocks separated only by blank lines
/// belong to the same run. An unclosed block runs to `to`.
fn applydiff_end<'a>(text: &impl Fn(usize) -> &'a str, i: usize, to: usize) -> usize {
    let mut j = i;
    loop {
        // j is a `>>> file:` line.
        let mut seen_to = false;
        let mut close = None;
        for k in j + 1..to {
            let line = text(k);
            if line.trim_end() == "--- to" {
                seen_to = true;
            } else if seen_to && matches!(line.trim_end(), "<" | "<<<") {
                close = Some(k);
                break;
            }
        }
        let Some(close) = close else { return to };
        let next = (close + 1..to).find(|&k| !text(k).trim().is_empty());
        match next {
            Some(k) if text(k).trim_start().starts_with(">>> file:") => j = k,
            _ => return close + 1,
        }
    }
}

/// Whether a line belongs to a diff's headers (between files and hunks).
fn diff_header(line: &str) -> bool {
    const HEADERS: &[&str] = &[
        "diff ",
        "--- ",
        "+++ ",
        "@@",
        "index ",
        "old mode ",
        "new mode ",
        "deleted file mode ",
        "new file mode ",
        "similarity index ",
        "dissimilarity index ",
        "rename from ",
        "rename to ",
        "copy from ",
        "copy to ",
        "Binary files ",
        "GIT binary patch",
        "literal ",
        "delta ",
        "\\ ",
    ];
    HEADERS.iter().any(|h| line.starts_with(h))
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

/// A line of a git binary patch's base85 data: a length letter, then base85 characters.
fn base85_line(line: &str) -> bool {
    let mut chars = line.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && line.len() > 1
        && chars.all(|c| c.is_ascii_alphanumeric() || "!#$%&()*+-;<=>?@^_`{|}~".contains(c))
}

/// The old and new line counts of a `@@ -a,b +c,d @@` header, when it has them.
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let count = |r: &str| match r.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => r.parse::<usize>().ok().map(|_| 1),
    };
    Some((count(old)?, count(new)?))
}

/// One past the last line of the raw diff starting at line `i`. Lines that a diff holds
/// (headers, hunk lines, binary data, blank lines) continue it. When a hunk's counts are
/// met, or after a blank line, only a header continues it: so prose after the diff (a
/// `- item` list after a blank line, say) is not taken in. A hunk whose counts are not met
/// yet (or that has none), and hunk-like lines right after a hunk, are taken in: a diff cut
/// short would be a wrong edit, a diff that takes one line too many fails to parse or
/// locate.
fn diff_end<'a>(text: &impl Fn(usize) -> &'a str, i: usize, to: usize) -> usize {
    let mut last = i; // the last line that belongs to the diff
    let mut hunk: Option<Option<(usize, usize)>> = None; // in a hunk: the lines it has left, when counted
    let mut binary = false;
    let mut blank_run = false;
    for k in i + 1..to {
        let line = text(k);
        let open = hunk.is_some_and(|left| left.is_none_or(|(o, n)| o > 0 || n > 0));
        let starts_hunk = line.starts_with("@@") || line.starts_with("diff ");
        if open && !starts_hunk {
            if line.trim().is_empty() || line.starts_with([' ', '+', '-']) {
                if let Some(Some((o, n))) = hunk.as_mut() {
                    match line.as_bytes().first() {
                        Some(b'-') => *o = o.saturating_sub(1),
                        Some(b'+') => *n = n.saturating_sub(1),
                        _ => {
                            *o = o.saturating_sub(1);
                            *n = n.saturating_sub(1);
                        }
                    }
                }
                // Blank lines at the end of a hunk without counts are the reply's.
                if !line.trim().is_empty() || hunk.is_some_and(|left| left.is_some()) {
                    last = k;
                }
                continue;
            }
            if line.starts_with('\\') {
                last = k;
                continue;
            }
            break;
        }
        if diff_header(line) {
            if line.starts_with("@@") {
                hunk = Some(hunk_counts(line));
            } else if !line.starts_with("\\ ") {
                hunk = None;
            }
            binary = line.starts_with("GIT binary patch")
                || (binary && (line.starts_with("literal ") || line.starts_with("delta ")));
            last = k;
            blank_run = false;
        } else if line.trim().is_empty() {
            blank_run = true;
        } else if !blank_run && binary && base85_line(line) {
            last = k;
        } else if !blank_run && hunk.is_some() && line.starts_with([' ', '+', '-']) {
            // A hunk longer than its counts say: the lines right after it are still its own.
            last = k;
        } else {
            break;
        }
    }
    last + 1
}

/// One past the last line of the JSON object that starts at line `i` (its closing brace,
/// found by counting braces outside strings), when it closes before line `to`.
fn json_end(reply: &str, lines: &[Line], i: usize, to: usize) -> Option<usize> {
    let start = lines[i].start;
    let limit = lines.get(to).map_or(reply.len(), |l| l.start);
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (offset, b) in reply[start..limit].bytes().enumerate() {
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
                    return (i..to).find(|&k| lines[k].next > at).map(|k| k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(all(test, feature = "ai-patch", feature = "unified", feature = "ap", feature = "applydiff", feature = "aptix"))]
mod tests {
    use super::*;

    const AI: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n*** End Patch\n";
    const DIFF: &str = "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-two\n+dos\n keep\n";
    const BUNDLE: &str = "{\"root\": \".\", \"files\": [{\"path\": \"c.txt\", \"content\": \"tres\\n\"}]}\n";
    const AP: &str = "version: \"2.0\"\nchanges:\n  - file_path: d.txt\n    modifications:\n      - action: replace\n        target:\n          search: \"four\"\n        content: \"cuatro\"\n";
    const APPLYDIFF: &str = ">>> file: e.txt\n--- from\nfive\n--- to\ncinco\n<\n";

    fn dialects_of(reply: &str) -> Vec<&'static str> {
        extract(reply).iter().map(|b| b.dialect).collect()
    }

    #[test]
    fn a_bare_patch_is_exactly_one_block() {
        for (patch, dialect) in
            [(AI, "ai-patch"), (DIFF, "unified"), (BUNDLE, "aptix"), (AP, "ap"), (APPLYDIFF, "applydiff")]
        {
            let blocks = extract(patch);
            assert_eq!(blocks.len(), 1, "{patch}");
            assert_eq!(blocks[0].dialect, dialect);
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
            assert_eq!(blocks[0].dialect, dialect);
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
        assert_eq!((blocks[0].dialect, blocks[0].fence), ("ai-patch", Some("")));
        assert!(blocks[0].text.ends_with(AI), "{blocks:?}");
        // A markdown fence is searched for blocks inside it.
        let reply = format!("````markdown\nText\n```diff\n{DIFF}```\n````\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect, blocks[0].text, blocks[0].fence), ("unified", DIFF, Some("diff")));
    }

    #[test]
    fn a_fence_in_a_list_item_is_read_without_its_indentation() {
        let indented: String = DIFF.lines().flat_map(|l| ["   ", l, "\n"]).collect();
        let reply = format!("1. Fix b:\n\n   ```diff\n{indented}   ```\n2. Done.\n");
        let blocks = extract(&reply);
        assert_eq!(blocks.len(), 1);
        assert_eq!((blocks[0].dialect, blocks[0].indent, blocks[0].text), ("unified", 3, indented.as_str()));
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
        assert_eq!((blocks[0].dialect, blocks[0].text), ("ap", plan));
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
        assert_eq!((blocks[0].dialect, blocks[0].text, blocks[0].fence), ("ai-patch", AI, Some("bash")));
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
        assert_eq!((blocks[0].dialect, blocks[0].text), ("ai-patch", AI));
    }

    #[test]
    fn bare_blocks_after_prose_and_several_dialects() {
        let reply = format!(
            "First the rename:\n\n{AI}\nThen the diff:\n\n{DIFF}\nThen a block:\n\n{APPLYDIFF}\nAnd the bundle:\n\n```json\n{BUNDLE}```\nThat's all.\n"
        );
        let blocks = extract(&reply);
        assert_eq!(blocks.iter().map(|b| b.dialect).collect::<Vec<_>>(), ["ai-patch", "unified", "applydiff", "aptix"]);
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
        assert_eq!((blocks[0].dialect, blocks[0].text), ("aptix", BUNDLE));
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
        assert_eq!((blocks[0].dialect, blocks[0].text), ("applydiff", two.as_str()));
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
}
