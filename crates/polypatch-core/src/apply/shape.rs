//! How the new lines of an edit are written at a located block: kept lines as the file
//! has them, added lines indented to follow the file line by line, and, where the match
//! ignored blank lines, the file's own blank lines kept where the patch does not remove
//! them.
//!
//! The indentation rules, once:
//! - When every old line the patch shows (kept or removed) carries the file's
//!   indentation, the added lines are written exactly as the patch wrote them, whatever
//!   the tier (a typo or a look-alike somewhere in the block re-indents nothing).
//! - Otherwise each added line follows the old line it aligns with (in its change block,
//!   the removed line at the same position, else the nearest kept line): it gets that
//!   file line's indentation plus its own indentation beyond the patch's version of that
//!   line, written in that file line's characters (tabs where the file line has tabs,
//!   spaces where it has spaces). A block is never re-rendered in a "dominant" style.
//! - `ap` (§3.3): the file indentation of the target's first line is prepended to every
//!   content line (the content's own indentation written in that line's characters),
//!   unless the content's first line already carries exactly that indentation (content
//!   written with its absolute indentation).

use crate::ir::plan::Indent;
use crate::ir::tier::Tier;
use crate::locate::fold::{TAB_WIDTH, indent_width, is_blank};
use crate::locate::query::Found;
use crate::text::eol::{Eol, Newline};
use crate::text::lines::{Line, LineText, Lines};

/// How added lines are indented at one located block.
pub(crate) struct Shaper<'a> {
    mode: Indent,
    /// Every matched old line carries the file's indentation: lines as written.
    as_written: bool,
    /// The patch's and the file's indentation of the target's lines.
    map: IndentMap<'a>,
    /// The file's indentation of the target's first line.
    target_indent: String,
    /// `ap`: how the content is written (§3.3 and its lenient readings).
    frame: Frame,
}

/// How `ap` content is written, read from the patch (see [`Shaper::new`]).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Frame {
    /// Relative to the snippet's first line (§3.3): its file indentation is prepended,
    /// the content's own indentation following the file's characters and step as the
    /// snippet's lines show them.
    Relative,
    /// With the file's absolute indentation (its first line carries the snippet line's
    /// file indentation and no line is shallower): kept as written.
    Absolute,
    /// In the patch's own absolute frame, which the snippet shows: mapped to the file's
    /// like a diff's new lines.
    Patch,
}

impl<'a> Shaper<'a> {
    /// The shaper of new lines `new` at the match `found` of pattern `pat`.
    /// `after_opener`: the new lines go after a pattern whose last line opens a block
    /// (`ap`'s `INSERT_AFTER` a line ending with `{`, `:`, …): content no deeper than that
    /// line would not be inside the block, so it is not read as absolute there.
    pub(crate) fn new(
        lines: Lines<'a>,
        pat: &'a [LineText],
        found: &'a Found,
        mode: Indent,
        new: &[LineText],
        after_opener: bool,
    ) -> Self {
        let opener = after_opener
            .then(|| found.map.iter().rev().flatten().next().map(|&fi| indent_width(lines.text(fi)).0))
            .flatten();
        let target_indent = first_line_indent(lines, found);
        let snippet = pat.iter().find(|l| !is_blank(l)).map_or("", |l| leading(l));
        let content = new.iter().find(|l| !is_blank(l)).map_or("", |l| leading(l));
        let frame = if content.is_empty() {
            Frame::Relative
        } else if !snippet.is_empty() {
            Frame::Patch
        } else if content == target_indent
            && opener.is_none_or(|depth| indent_width(content).0 > depth)
            && new.iter().filter(|l| !is_blank(l)).all(|l| indent_width(l).0 >= indent_width(&target_indent).0)
        {
            Frame::Absolute
        } else {
            Frame::Relative
        };
        Shaper {
            mode,
            as_written: found.tier <= Tier::TrailingWhitespace || same_indentation(lines, pat, found),
            map: IndentMap::new(lines, pat, found),
            target_indent,
            frame,
        }
    }

    /// An added line; `aligned` is the index of the old (pattern) line it follows. A line
    /// kept as written shares the patch's text (no copy).
    pub(crate) fn line(&self, aligned: usize, text: &LineText) -> LineText {
        let own = leading(text);
        let with = |indent: String| LineText::from(format!("{indent}{}", &text[own.len()..]));
        match self.mode {
            Indent::AsWritten => text.clone(),
            Indent::FollowMatch if self.as_written || is_blank(text) => text.clone(),
            Indent::FollowMatch => with(self.map.follow(aligned, own)),
            Indent::ToTargetFirstLine if is_blank(text) => LineText::from(String::new()),
            Indent::ToTargetFirstLine => match self.frame {
                Frame::Absolute => text.clone(),
                Frame::Relative => with(self.relative(own)),
                // The snippet carries the file's indentation: the frames are one.
                Frame::Patch if self.as_written => text.clone(),
                Frame::Patch => with(self.map.follow(aligned, own)),
            },
            Indent::ShiftByFirstLine => {
                let patch = self.map.pat.iter().find(|l| !is_blank(l)).map_or(0, |l| indent_width(l).0);
                let delta = indent_width(&self.target_indent).0 as isize - patch as isize;
                LineText::from(shift(text, delta, self.target_indent.starts_with('\t')))
            }
        }
    }
}

impl Shaper<'_> {
    /// §3.3: the file indentation of the snippet's first line, then the content line's own
    /// indentation in the file's characters (that line's, or where it has none, those of
    /// the snippet's other lines in the file).
    fn relative(&self, own: &str) -> String {
        let base = &self.target_indent;
        // The snippet's lines carry the file's indentation: the content's own, as written.
        if self.as_written {
            return format!("{base}{own}");
        }
        let unit = indent_unit(base).or_else(|| self.map.file_unit());
        let (from, to) = (indent_width(base).0, indent_width(base).0 + indent_width(own).0);
        match unit {
            Some(tabs) if !own.is_empty() => format!("{base}{}", fill(from, to, tabs)),
            _ => format!("{base}{own}"),
        }
    }
}

/// How the patch's indentation of the target's lines maps to the file's.
struct IndentMap<'a> {
    lines: Lines<'a>,
    pat: &'a [LineText],
    found: &'a Found,
    /// File columns per patch column, as a fraction: learned from old lines at two
    /// depths (or at one, where the patch and the file use different characters).
    ratio: (usize, usize),
}

impl<'a> IndentMap<'a> {
    fn new(lines: Lines<'a>, pat: &'a [LineText], found: &'a Found) -> Self {
        let mut map = IndentMap { lines, pat, found, ratio: (1, 1) };
        let mut widths: Vec<(usize, usize)> =
            (0..pat.len()).filter_map(|i| map.pair(i)).map(|(p, f)| (indent_width(p).0, indent_width(f).0)).collect();
        widths.sort_unstable();
        widths.dedup();
        map.ratio = match (widths.first(), widths.last()) {
            (Some(&(p0, f0)), Some(&(p1, f1))) if p1 > p0 && f1 > f0 => (f1 - f0, p1 - p0),
            (Some(&(p, f)), _) if widths.len() == 1 && p > 0 && f > 0 && map.styles_differ() => (f, p),
            _ => (1, 1),
        };
        map
    }

    /// The patch's and the file's indentation of old line `i`, when it matched a
    /// non-blank file line.
    fn pair(&self, i: usize) -> Option<(&'a str, &'a str)> {
        let fi = self.found.map.get(i).copied().flatten()?;
        let (p, f) = (&self.pat[i], self.lines.text(fi));
        (!is_blank(p) && !is_blank(f)).then(|| (leading(p), leading(f)))
    }

    /// The indentation character of the target's file lines, when the indented ones all
    /// agree (tabs only, or spaces only); `None` in a file that mixes them there.
    fn file_unit(&self) -> Option<bool> {
        let mut units = (0..self.pat.len())
            .filter_map(|i| self.pair(i))
            .filter(|(_, f)| !f.is_empty())
            .map(|(_, f)| indent_unit(f));
        let first = units.next()??;
        units.all(|u| u == Some(first)).then_some(first)
    }

    /// Whether the patch indents with tabs where the file uses spaces, or the reverse.
    fn styles_differ(&self) -> bool {
        (0..self.pat.len())
            .filter_map(|i| self.pair(i))
            .any(|(p, f)| matches!((indent_unit(p), indent_unit(f)), (Some(a), Some(b)) if a != b))
    }

    /// The file indentation for a new line indented `new` in the patch that follows old
    /// line `aligned`: the file's indentation of an old line the patch indents the same
    /// way (the nearest such); else the nearest matched old line's, moved by what the new
    /// line has beyond it, scaled by the learned ratio, in that line's characters.
    fn follow(&self, aligned: usize, new: &str) -> String {
        let n = self.pat.len();
        let around = |d: usize| {
            let before = aligned.checked_sub(d);
            let after = (d > 0).then(|| aligned + d).filter(|&i| i < n);
            before.into_iter().chain(after)
        };
        let order = || (0..n).flat_map(around);
        if let Some((_, f)) = order().filter_map(|i| self.pair(i)).find(|(p, _)| *p == new) {
            return f.to_string();
        }
        match order().find_map(|i| self.pair(i)) {
            Some((p, f)) => follow_indent(p, f, new, self.ratio),
            None => new.to_string(),
        }
    }
}

/// The indentation of a new line whose old line has `patch_old` in the patch and
/// `file_old` in the file: the file's, plus (or minus) what the new line has beyond the
/// patch's old line (times `ratio`, file columns per patch column), in the file line's
/// characters.
fn follow_indent(patch_old: &str, file_old: &str, new: &str, ratio: (usize, usize)) -> String {
    let (pw, fw, nw) = (indent_width(patch_old).0, indent_width(file_old).0, indent_width(new).0);
    let scaled = |d: usize| (d * ratio.0 + ratio.1 / 2) / ratio.1;
    let target = if nw >= pw { fw + scaled(nw - pw) } else { fw.saturating_sub(scaled(pw - nw)) };
    if target < fw {
        // Less indented than its old line: the file line's indentation, cut back.
        let mut out = String::new();
        for c in file_old.chars() {
            let mut next = out.clone();
            next.push(c);
            if indent_width(&next).0 > target {
                break;
            }
            out = next;
        }
        let missing = target - indent_width(&out).0;
        return out + &" ".repeat(missing);
    }
    let unit = indent_unit(file_old);
    match (unit, new.strip_prefix(patch_old)) {
        // The file line has no single style (or no indentation): what the patch adds, as
        // it wrote it.
        (None, Some(extra)) if ratio == (1, 1) => format!("{file_old}{extra}"),
        (None, _) => format!("{file_old}{}", " ".repeat(target - fw)),
        (Some(tabs), _) => format!("{file_old}{}", fill(fw, target, tabs)),
    }
}

/// `Some(true)` for an indentation of tabs only, `Some(false)` for spaces only, `None`
/// for none or a mix.
fn indent_unit(indent: &str) -> Option<bool> {
    if indent.is_empty() {
        None
    } else if indent.bytes().all(|b| b == b'\t') {
        Some(true)
    } else if indent.bytes().all(|b| b == b' ') {
        Some(false)
    } else {
        None
    }
}

/// Whitespace from column `from` to column `to`, in tabs (then spaces) or spaces.
fn fill(from: usize, to: usize, tabs: bool) -> String {
    if !tabs {
        return " ".repeat(to - from);
    }
    let mut out = String::new();
    let mut col = from;
    while col + (TAB_WIDTH - col % TAB_WIDTH) <= to {
        out.push('\t');
        col += TAB_WIDTH - col % TAB_WIDTH;
    }
    out + &" ".repeat(to - col)
}

/// The leading whitespace of a line.
fn leading(line: &str) -> &str {
    &line[..indent_width(line).1]
}

/// Whether every non-blank old line matched to a non-blank file line has the file line's
/// indentation, character for character.
fn same_indentation(lines: Lines<'_>, pat: &[LineText], found: &Found) -> bool {
    pat.iter().zip(&found.map).all(|(p, f)| match f {
        Some(fi) if !is_blank(p) && !is_blank(lines.text(*fi)) => leading(p) == leading(lines.text(*fi)),
        _ => true,
    })
}

/// `text` with its indentation widened (or narrowed) by `delta` columns; blank lines
/// become empty.
fn shift(text: &str, delta: isize, tabs: bool) -> String {
    if is_blank(text) {
        return String::new();
    }
    let (width, bytes) = indent_width(text);
    let new_width = (width as isize + delta).max(0) as usize;
    format!("{}{}", fill(0, new_width, tabs), &text[bytes..])
}

/// The indentation of the file line matched by the target's first non-blank line.
fn first_line_indent(lines: Lines<'_>, f: &Found) -> String {
    let first = f.map.iter().flatten().next().copied().unwrap_or(f.start);
    let first = (first..f.end.max(first + 1)).find(|&i| i < lines.len() && !is_blank(lines.text(i))).unwrap_or(first);
    lines.get(first).map_or(String::new(), |l| leading(l.text).to_string())
}

/// For each new line, the old line it follows: a kept line itself; an added line, the
/// removed line at its position in its change block (the last one when the block adds
/// more than it removes), or the nearest kept line before it (after it, at the start).
pub(crate) fn aligned_old(kept: &[Option<usize>], old_len: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(kept.len());
    let mut prev: Option<usize> = None;
    let mut j = 0;
    while j < kept.len() {
        if let Some(i) = kept[j] {
            out.push(i);
            prev = Some(i);
            j += 1;
            continue;
        }
        let block_end = (j..kept.len()).find(|&k| kept[k].is_some()).unwrap_or(kept.len());
        let next = kept.get(block_end).copied().flatten();
        let first_removed = prev.map_or(0, |p| p + 1);
        let removed_end = next.unwrap_or(old_len);
        for r in 0..block_end - j {
            let at = if first_removed < removed_end {
                (first_removed + r).min(removed_end - 1)
            } else {
                prev.or(next).unwrap_or(0)
            };
            out.push(at);
        }
        j = block_end;
    }
    out
}

/// One step of a replacement, in order: an old line kept or removed, or a new line added.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Keep(usize),
    Remove(usize),
    Add(usize),
}

/// The diff from old to new lines that `kept` describes, removed lines before added ones
/// in each change block.
fn ops(kept: &[Option<usize>], old_len: usize) -> Vec<Op> {
    let mut out = Vec::new();
    let mut next_old = 0;
    let mut pending_adds = Vec::new();
    for (j, k) in kept.iter().enumerate() {
        match k {
            Some(i) => {
                out.extend((next_old..*i).map(Op::Remove));
                out.append(&mut pending_adds);
                out.push(Op::Keep(*i));
                next_old = i + 1;
            }
            None => pending_adds.push(Op::Add(j)),
        }
    }
    out.extend((next_old..old_len).map(Op::Remove));
    out.append(&mut pending_adds);
    out
}

/// A replacement located with blank lines ignored ([`Tier::BlankLines`]), mapped back
/// onto the file: returns the file lines it replaces (`start..end`) and the lines that
/// take their place.
///
/// Between two old lines matched to the file, the patch's blank lines (kept or removed)
/// take the file's blank lines there in order; a blank line the patch shows and the file
/// lacks is not written, one the patch removes and the file lacks is already gone. The
/// file's blank lines the patch does not mention stay; lines the patch adds beside them
/// go after them when what is added ends with a blank line, before them when it starts
/// with one (the blank-line structure the patch shows is kept). What is added with blank
/// lines on both of its sides is the new side showing the blank lines the old side left
/// out: the file's blank lines are the first of its leading ones, not more of them. At the two ends, only
/// the blank lines the patch names are taken from the file. Where that leaves a choice
/// (added lines with no blank line of their own beside blank lines the patch does not
/// show; blank lines removed where the file has more of them, or kept and removed where
/// it has another number), the result is unclear: `Err` with the file lines
/// (`start..end`) of those blank lines.
pub(crate) fn blank_lines_replacement(
    lines: Lines<'_>,
    pat: &[LineText],
    found: &Found,
    kept: &[Option<usize>],
    mut added: impl FnMut(usize) -> Line,
) -> Result<(usize, usize, Vec<Line>), (usize, usize)> {
    let ops = ops(kept, pat.len());
    // The ops of old lines matched to file lines, with those lines, in order.
    let anchors: Vec<(usize, usize)> = (ops.iter().enumerate())
        .filter_map(|(k, op)| match op {
            Op::Keep(i) | Op::Remove(i) => found.map.get(*i).copied().flatten().map(|fi| (k, fi)),
            Op::Add(_) => None,
        })
        .collect();
    let (Some(&(first_op, first_line)), Some(&(_, last_line))) = (anchors.first(), anchors.last()) else {
        return Ok((found.start, found.end, Vec::new()));
    };
    let blank_run = |range: &mut dyn Iterator<Item = usize>| range.take_while(|&i| is_blank(lines.text(i))).count();
    let mut out = Vec::new();

    // Before the first anchor: the patch's blank lines take the file's nearest ones.
    let lead = &ops[..first_op];
    let above = blank_run(&mut (0..first_line).rev());
    let start = first_line - blank_ops(lead).min(above);
    removal_is_clear(lead, above, first_line - above..first_line)?;
    segment(&mut out, lines, lead, start..first_line, false, &mut added)?;
    let mut end = last_line + 1;
    for (k, &(op, fi)) in anchors.iter().enumerate() {
        if let Op::Keep(_) = ops[op] {
            out.push(lines.owned(fi));
        }
        if let Some(&(next_op, next_line)) = anchors.get(k + 1) {
            let between = &ops[op + 1..next_op];
            removal_is_clear(between, next_line - fi - 1, fi + 1..next_line)?;
            segment(&mut out, lines, between, fi + 1..next_line, true, &mut added)?;
        } else {
            // After the last anchor: only the blank lines the patch names.
            let tail = &ops[op + 1..];
            let below = blank_run(&mut (fi + 1..lines.len()));
            end = fi + 1 + blank_ops(tail).min(below);
            removal_is_clear(tail, below, fi + 1..fi + 1 + below)?;
            segment(&mut out, lines, tail, fi + 1..end, false, &mut added)?;
        }
    }
    Ok((start, end, out))
}

/// Whether the blank lines a segment removes are clear: removing every blank line it
/// shows where the file has no more than that (the rest are gone already), or removing
/// some where the file has exactly as many as the patch shows.
fn removal_is_clear(segment: &[Op], file_blanks: usize, at: std::ops::Range<usize>) -> Result<(), (usize, usize)> {
    let removes = segment.iter().any(|op| matches!(op, Op::Remove(_)));
    let keeps = segment.iter().any(|op| matches!(op, Op::Keep(_)));
    let shown = blank_ops(segment);
    let unclear = removes && (file_blanks > shown || (keeps && file_blanks != shown));
    if unclear { Err((at.start, at.end)) } else { Ok(()) }
}

/// How many of a segment's ops are old (blank) lines.
fn blank_ops(segment: &[Op]) -> usize {
    segment.iter().filter(|op| !matches!(op, Op::Add(_))).count()
}

/// Writes one segment between anchors: its blank old lines take the file's blank lines
/// `file_blanks` in order; the file's blank lines left over (`extras`, between anchors
/// only) stay, after what the segment adds when that ends with a blank line, before it
/// when it starts with one. Lines added beside left-over blank lines without a blank line
/// of their own could go on either side: `Err`.
fn segment(
    out: &mut Vec<Line>,
    lines: Lines<'_>,
    ops: &[Op],
    file_blanks: std::ops::Range<usize>,
    extras: bool,
    added: &mut impl FnMut(usize) -> Line,
) -> Result<(), (usize, usize)> {
    let all = file_blanks.clone();
    // Blank lines shown on both sides of added lines, in another number than the file
    // has: which of them the file lacks (or has more of) decides where the lines go.
    let add_at: Vec<usize> = (0..ops.len()).filter(|&k| matches!(ops[k], Op::Add(_))).collect();
    if let (Some(&first), Some(&last)) = (add_at.first(), add_at.last()) {
        let shown_before = ops[..first].iter().any(|op| !matches!(op, Op::Add(_)));
        let shown_after = ops[first..].iter().any(|op| !matches!(op, Op::Add(_))) || last + 1 < ops.len();
        if shown_before && shown_after && blank_ops(ops) != file_blanks.len() {
            return Err((file_blanks.start, file_blanks.end));
        }
    }
    let mut blanks = file_blanks;
    let mut piece = Vec::new();
    for op in ops {
        match op {
            Op::Keep(_) => piece.extend(blanks.next().map(|fi| lines.owned(fi))),
            Op::Remove(_) => {
                blanks.next();
            }
            Op::Add(j) => piece.push(added(*j)),
        }
    }
    let left: Vec<Line> = if extras { blanks.map(|fi| lines.owned(fi)).collect() } else { Vec::new() };
    let adds = ops.iter().any(|op| matches!(op, Op::Add(_)));
    if left.is_empty() || !adds {
        out.extend(piece);
        out.extend(left);
        return Ok(());
    }
    let only_adds = ops.iter().all(|op| matches!(op, Op::Add(_)));
    let blank = |l: Option<&Line>| l.is_some_and(|l| is_blank(&l.text));
    match (only_adds, blank(piece.first()), blank(piece.last())) {
        // Blank lines on both sides of what is added: the new side shows the blank lines
        // here that the old side left out, so the file's are the first of them (a second
        // copy would add a blank line above the addition and drop one below it).
        (true, true, true) => {
            let own = piece.iter().take_while(|l| is_blank(&l.text)).count().min(left.len());
            out.extend(left);
            out.extend(piece.into_iter().skip(own));
        }
        (true, _, true) => {
            out.extend(left);
            out.extend(piece);
        }
        (true, true, false) => {
            out.extend(piece);
            out.extend(left);
        }
        _ => return Err((all.start, all.end)),
    }
    Ok(())
}

/// The terminator of new line `j`: the patch's, when it says, else `near`'s.
pub(crate) fn line_end(ends: Option<&Vec<Newline>>, j: usize, near: Eol) -> Eol {
    ends.and_then(|e| e.get(j)).map_or(near, |&n| Eol::from(n))
}

/// The terminator for a new line written in place of, or next to, file line `near`: that
/// line's own, so each region of a file that mixes `\n` and `\r\n` keeps its ending; for
/// a line without one (the file's last), the line's before it, the region it ends; `usual`
/// (the file's most frequent) when there is no such line or neither has one.
pub(crate) fn neighbour_eol(lines: Lines<'_>, near: Option<usize>, usual: Eol) -> Eol {
    let Some(i) = near else { return usual };
    let eol = |k: usize| lines.get(k).map(|l| l.eol).filter(|&e| e != Eol::None);
    eol(i).or_else(|| i.checked_sub(1).and_then(eol)).unwrap_or(usual)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_indent_keeps_the_file_lines_characters() {
        // The patch shifted everything by 4 spaces; the file's continuation line has a tab.
        let one = (1, 1);
        assert_eq!(follow_indent("    \t", "\t", "    \t", one), "\t");
        // Aligned with an unindented key line: what the patch adds beyond it, as written.
        assert_eq!(follow_indent("    ", "", "    \t", one), "\t");
        // The patch wrote spaces for a tab file: the added depth in tabs.
        assert_eq!(follow_indent("    ", "\t", "        ", one), "\t\t");
        // The patch wrote tabs for a space file.
        assert_eq!(follow_indent("\t", "    ", "\t\t", one), "        ");
        // A shallower new line cuts the file's indentation back.
        assert_eq!(follow_indent("        ", "\t\t", "    ", one), "\t");
        assert_eq!(follow_indent("  ", "    ", "", one), "  ");
        // Mixed indentation in the file line: kept, the patch's extra appended.
        assert_eq!(follow_indent("  ", "\t  ", "    ", one), "\t    ");
        // A tab in the patch stands for a 2-space step in the file.
        assert_eq!(follow_indent("\t", "  ", "\t\t\t", (1, 2)), "      ");
    }

    #[test]
    fn aligned_old_pairs_added_lines_with_removed_ones() {
        // keep 0, remove 1 2, add two, keep 3; then a pure insertion after 3.
        let kept = [Some(0), None, None, Some(3), None];
        assert_eq!(aligned_old(&kept, 4), [0, 1, 2, 3, 3]);
        // More added than removed: the extra ones follow the last removed line.
        assert_eq!(aligned_old(&[Some(0), None, None, None, Some(2)], 3), [0, 1, 1, 1, 2]);
        // An insertion at the very start follows the first kept line.
        assert_eq!(aligned_old(&[None, Some(0)], 1), [0, 0]);
    }

    #[test]
    fn ops_put_removed_lines_before_added_ones() {
        assert_eq!(
            ops(&[Some(0), None, Some(2)], 4),
            [Op::Keep(0), Op::Remove(1), Op::Add(1), Op::Keep(2), Op::Remove(3)]
        );
    }
}
