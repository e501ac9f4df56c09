//! A [`Target::Sketch`](crate::Target::Sketch) resolved against the file: a lazy edit's
//! segment (the new content of a region, its unchanged lines shown, the rest of the file
//! stood for by markers) becomes the old side, the alignment and the place that
//! [`apply_at`](crate::apply::write::apply_at) writes like any replacement.
//!
//! The segment's head (its first lines the file holds) and tail (its last ones) are
//! located by the engine ([`decide::locate`]) at the tiers that compare whole lines
//! (exact, trailing whitespace, one indentation shift), each at one place; the
//! file lines between them are the old side, aligned with the segment's lines between
//! them. Every reading that is not the only one is refused, naming the line to add.

use crate::apply::miss::miss_failure;
use crate::apply::report::{Failure, FailureKind, LineRange, MAX_EXCERPT_CHARS, clip_line, list_places};
use crate::apply::write::Overrides;
use crate::decide;
use crate::ir::plan::Occurrence;
use crate::ir::tier::{Tier, TierSet};
use crate::locate::fold::{indent_width, is_blank, trim};
use crate::locate::fuzzy::distance::similarity;
use crate::locate::index::LineHashes;
use crate::locate::query::{Found, Miss, Query};
use crate::text::lines::{LineText, Lines};

/// Whether the segment is the snippet's first (last) with no marker before (after) it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ends {
    pub at_start: bool,
    pub at_end: bool,
}

/// A segment resolved: the old side (the file's region in the segment's indentation),
/// for each new line the old line it keeps, the place, and notes for the report.
pub(crate) struct Resolved {
    pub pat: Vec<LineText>,
    pub kept: Vec<Option<usize>>,
    pub found: Found,
    pub notes: Vec<String>,
}

/// A new line this similar to the file line beside it may be that line changed, or a
/// copy of it with a mistake: the reading is unclear.
const LIKE: f64 = 0.75;

/// The tiers a segment's lines are located at: whole lines compared, blank lines counted.
const SKETCH_TIERS: TierSet = TierSet::only(Tier::Exact).with(Tier::TrailingWhitespace).with(Tier::Indentation);

struct Finder<'a> {
    lines: Lines<'a>,
    hashes: &'a LineHashes,
    tiers: TierSet,
    ov: Overrides<'a>,
}

impl<'a> Finder<'a> {
    fn query<'q>(&'q self, pat: &'q [LineText], lo: usize, hi: usize) -> Query<'q> {
        Query {
            pat,
            lo,
            hi,
            hint: None,
            at_eof: false,
            occurrence: Occurrence::Unique,
            ignore_blank: false,
            threshold: 1.0,
            base: self.tiers.iter().next().unwrap_or(Tier::Exact),
            positional: false,
            prefix: false,
            changed: &[],
            index: Some(self.hashes),
            effort: self.ov.effort,
        }
    }

    /// The one place of `pat` in `lo..hi`.
    fn find(&self, pat: &[LineText], lo: usize, hi: usize) -> Result<Found, Miss> {
        if hi <= lo || hi - lo < pat.len() {
            return Err(Miss::NotFound);
        }
        let q = self.query(pat, lo, hi);
        decide::locate(self.lines, &q, self.tiers).map(|mut f| f.swap_remove(0))
    }

    fn text(&self, i: usize) -> &'a str {
        self.lines.text(i)
    }
}

fn places(list: &[(usize, usize)]) -> String {
    let ranges: Vec<LineRange> = list.iter().map(|&(s, e)| LineRange::from_zero_based(s, e)).collect();
    list_places(&ranges, ranges.len())
}

fn quoted(line: &str) -> String {
    format!("`{}`", clip_line(trim(line), MAX_EXCERPT_CHARS))
}

fn unclear(message: String, next_step: String, at: &[(usize, usize)]) -> Failure {
    let mut failure = Failure::new(FailureKind::Ambiguous, message, next_step);
    failure.set_candidates(at.iter().map(|&(s, e)| LineRange::from_zero_based(s, e)).collect());
    failure
}

/// Whether `new` (a line the segment adds) resembles the file line `file` without being
/// it: the line changed, or a copy of it with a mistake; or one starts with the other
/// (saying 8 letters or digits): the line split in two, or two joined; or the words of one
/// (saying 8 letters or digits) stand in the other in order: words added to the line.
fn resembles(new: &str, file: &str) -> bool {
    let (a, b) = (trim(new), trim(file));
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !a.is_empty()
        && !b.is_empty()
        && a != b
        && (similarity(a, b).is_some_and(|s| s >= LIKE)
            || long.starts_with(short) && distinctive(short)
            || distinctive(short) && words_within(short, long))
}

/// Whether the words of `short` (split at whitespace) stand in `long` in the same order,
/// with other words among them (`- run: pip install tox` in `- run: python -Im pip
/// install tox`): a line with words added.
fn words_within(short: &str, long: &str) -> bool {
    let mut words = long.split_whitespace();
    short.split_whitespace().all(|w| words.any(|l| l == w))
}

/// Resolves the segment `seg` (the new lines of a [`Target::Sketch`](crate::Target::Sketch)
/// edit) against `lines`, searching from line `lo`.
// The segment's indices (`h`, `i`, `k`, `t`, `n`: first and last non-blank line, head
// start and length, count) are the words of the description above; longer names hid it.
#[allow(clippy::too_many_arguments, clippy::many_single_char_names)]
pub(crate) fn resolve(
    lines: Lines<'_>,
    hashes: &LineHashes,
    seg: &[LineText],
    lo: usize,
    tiers: TierSet,
    ends: Ends,
    ov: Overrides<'_>,
) -> Result<Resolved, Failure> {
    let tiers = tiers.intersect(SKETCH_TIERS).with(Tier::Exact);
    let fd = Finder { lines, hashes, tiers, ov };
    let len = lines.len();
    let n = seg.len();
    let Some(h) = seg.iter().position(|l| !is_blank(l)) else {
        return Err(Failure::new(
            FailureKind::InvalidPlan,
            "the segment between two markers has only blank lines",
            "drop the blank lines, or put the lines that stand around them in the snippet",
        ));
    };
    let t = seg.iter().rposition(|l| !is_blank(l)).expect("a non-blank line");
    let mut notes = Vec::new();
    // An empty (new) file and a snippet without markers: the snippet is its content.
    if len == 0 && ends.at_start && ends.at_end {
        let found = Found { start: 0, end: 0, map: Vec::new(), tier: Tier::Exact, confidence: 1.0 };
        return Ok(Resolved { pat: Vec::new(), kept: vec![None; n], found, notes });
    }

    // A segment between two markers that the file holds whole (it writes and removes
    // nothing: a landmark, such as the `}` or `)]` closing a block whose inside a marker
    // keeps) changes nothing wherever it stands: at its first place after the segment
    // before, the next segments are looked for in the most lines (a later place would
    // only rule some out). Unless its first or last line stands at a place where the rest
    // of it does not follow or lead (there it would change the file: a second reading).
    // The snippet's last (first) segment with no marker after (before) it stands so at
    // the file's end (start) only: there the snippet puts it.
    if !(ends.at_start && ends.at_end) {
        let whole = places_of(&fd, seg, lo, len);
        let ends_follow = |j: usize| {
            places_of(&fd, &seg[j..=j], lo, len).iter().all(|&p| p >= j && whole.binary_search(&(p - j)).is_ok())
        };
        let place = if ends.at_end {
            whole.last().copied().filter(|&p| p + n == len)
        } else if ends.at_start {
            whole.first().copied().filter(|&p| p == 0)
        } else {
            whole.first().copied().filter(|_| ends_follow(h) && ends_follow(t))
        };
        if let Some(p) = place
            && let Ok(f) = fd.find(seg, p, p + n)
        {
            let found = Found {
                start: p,
                end: p + n,
                map: (p..p + n).map(Some).collect(),
                tier: f.tier,
                confidence: f.confidence,
            };
            return Ok(Resolved { pat: seg.to_vec(), kept: (0..n).map(Some).collect(), found, notes });
        }
    }

    // The head: the first line the file holds, grown until its run stands at one place.
    let at_file_start = ends.at_start && lo == 0 && fd.find(&seg[h..=h], 0, 1).is_ok();
    let mut i = h;
    // The head is the last of its places before a later line that stands at one place.
    let mut pivoted: Option<usize> = None;
    let (mut k, mut head, grown) = loop {
        if i > t {
            let q = fd.query(&seg[h..=t], lo, len);
            let mut failure = miss_failure(lines, &q, Miss::NotFound, "segment's lines");
            failure.message = format!(
                "none of the segment's lines is in the file{} (first line: {})",
                if lo > 0 { format!(" after line {lo}") } else { String::new() },
                quoted(&seg[h])
            );
            failure.next_step = "re-read the file: copy the unchanged lines around each change exactly as they are \
                                 now, and keep the segments in file order"
                .to_string();
            return Err(failure);
        }
        if is_blank(&seg[i]) {
            i += 1;
            continue;
        }
        let hi = if at_file_start && i == h { 1 } else { len };
        match fd.find(&seg[i..=i], lo, hi) {
            Ok(f) => break (1, f, false),
            Err(Miss::NotFound) => i += 1,
            Err(Miss::Ambiguous(_, mut at, _)) => {
                let mut k = 1;
                let f = loop {
                    let stuck = i + k > t || matches!(fd.find(&seg[i..=i + k], lo, len), Err(Miss::NotFound));
                    if stuck {
                        // At several places however far it is grown: the last of them before
                        // a later line of the segment that stands at one place (checked
                        // below to remove nothing), else refused.
                        let Some((f, p)) = before_pivot(&fd, seg, (i, k, i + k, t), (lo, len), &at) else {
                            return Err(head_unclear(seg, h, i, &at));
                        };
                        pivoted = Some(p);
                        break f;
                    }
                    match fd.find(&seg[i..=i + k], lo, len) {
                        Ok(f) => break f,
                        Err(Miss::Ambiguous(_, more, _)) => {
                            at = more;
                            k += 1;
                        }
                        Err(Miss::NotFound) => unreachable!("checked above"),
                    }
                };
                break (if pivoted.is_some() { k } else { k + 1 }, f, true);
            }
        }
    };
    // Grown while the next lines follow it in the file.
    while i + k < n && head.start + k < len {
        match fd.find(&seg[i..=i + k], head.start, head.start + k + 1) {
            Ok(f) => {
                head = f;
                k += 1;
            }
            Err(_) => break,
        }
    }
    // A head of punctuation and short words only (`}`, `/// ```, `---`: fewer than 3
    // letters and digits in all) places nothing by itself: such lines stand in many files.
    // It stands where it is when a later line the segment keeps says enough (checked
    // below, with the lines between explained).
    let weak_head = pivoted.is_none() && says(&seg[i..i + k]) < 3;
    let weak_head_failure = || {
        unclear(
            format!(
                "the segment's first lines the file holds, {}, say too little to place it (line {} of the file)",
                quoted(&seg[i]),
                head.start + 1
            ),
            format!("add the line above {} to the snippet, as the file has it", quoted(&seg[i])),
            &[(head.start, head.end)],
        )
    };
    let starts_file = ends.at_start && lo == 0 && head.start == 0;
    if i > h && !starts_file && ends.at_start && lo == 0 {
        let first = quoted(&seg[h]);
        return Err(unclear(
            format!(
                "the snippet starts, with no marker before it, with new lines ({first}) above {}, which is line {} \
                 of the file, not its first: it is unclear whether they replace the lines above it or go above it, \
                 those lines kept",
                quoted(&seg[i]),
                head.start + 1
            ),
            "start the snippet with a marker line (`... existing code ...` in a comment) if the lines above are \
             kept, or with the file's first line"
                .to_string(),
            &[(0, head.start)],
        ));
    }
    if i > h && !starts_file {
        // New lines after a marker: they go right before the head, when that is the only
        // reading.
        let first = quoted(&seg[h]);
        if grown {
            return Err(unclear(
                format!(
                    "the segment starts with new lines ({first}) and the line after them, {}, stands at several \
                     places: it is unclear which one they go before",
                    quoted(&seg[i])
                ),
                format!("add the line above {first} to the snippet, as the file has it"),
                &[(head.start, head.end)],
            ));
        }
        let news: Vec<&LineText> = seg[h..i].iter().filter(|l| !is_blank(l)).collect();
        let from = head.start.saturating_sub(news.len() + NEAR).max(lo);
        if let Some((new, fi)) = like_neighbour(&fd, &news, &(from..head.start).rev().collect::<Vec<_>>()) {
            return Err(changed_or_new(&fd, new, fi, "above", &seg[i]));
        }
        // Almost a line further away: above (where the marker keeps it), or below the head
        // (the segment may belong there, its head being a copy).
        let far = from.saturating_sub(FAR).max(lo)..from;
        let below = head.end..(head.end + FAR).min(len);
        if let Some(fi) = news.first().and_then(|new| copy_with_mistake(&fd, new, far.rev().chain(below))) {
            return Err(if fi < head.start {
                changed_or_new(&fd, news[0], fi, "above", &seg[i])
            } else {
                elsewhere(&fd, news[0], fi)
            });
        }
    }
    let head_end = i + k; // segment index after the head

    // The tail: the last line after the head that the file holds, after the head's place.
    let mut tail: Option<(usize, usize, Found)> = None; // (first index, end index, place)
    // The tail is the nearest of several places (not one place).
    let mut nearest = false;
    // The tail is a run grown backwards until it stood at one place.
    let mut tail_grown = false;
    if head_end <= t {
        let mut j = t;
        let at_file_end = ends.at_end && fd.find(&seg[t..=t], len.saturating_sub(1), len).is_ok();
        while j >= head_end {
            if is_blank(&seg[j]) {
                j -= 1;
                continue;
            }
            // The file's last line, when the head has not taken it (a one-line file whose
            // line is the head: the snippet's last line is new, not that line again).
            let lo_t = if at_file_end && j == t { (len - 1).max(head.end) } else { head.end };
            match fd.find(&seg[j..=j], lo_t, len) {
                Ok(f) => {
                    tail = Some((j, j + 1, f));
                    break;
                }
                Err(Miss::NotFound) => {
                    if j == 0 {
                        break;
                    }
                    j -= 1;
                }
                Err(Miss::Ambiguous(_, mut at, _)) => {
                    // Grown backwards until one place; else the nearest place of the
                    // longest run (the deletion guard below still applies).
                    let mut a = j;
                    let mut found = None;
                    while a > head_end {
                        match fd.find(&seg[a - 1..=j], head.end, len) {
                            Ok(f) => {
                                found = Some((a - 1, f));
                                break;
                            }
                            Err(Miss::Ambiguous(_, more, _)) => {
                                at = more;
                                a -= 1;
                            }
                            Err(Miss::NotFound) => break,
                        }
                    }
                    if let Some((a, f)) = found {
                        tail = Some((a, j + 1, f));
                        tail_grown = true;
                    } else {
                        // The nearest place after the segment's last earlier line that
                        // stands at one place (a pivot: the run's lines keep their order
                        // with it), else after the head: a `};` below a rewritten body
                        // is the one after the body's kept lines, not an earlier one. The
                        // pivot stands no further below the head than the segment's lines
                        // between them reach (give or take two): else it is a copy of a
                        // new line elsewhere, and lines between would be removed.
                        let pivot = (head_end..a)
                            .rev()
                            .filter(|&q| alphanumerics(&seg[q]) >= 3)
                            .find_map(|q| fd.find(&seg[q..=q], head.end, len).ok().map(|f| (q, f)))
                            .filter(|(q, f)| f.start - head.end <= q - head_end + 2)
                            .map(|(_, f)| f.end);
                        let (s, e) = pivot.and_then(|p| at.iter().copied().find(|&(s, _)| s >= p)).unwrap_or(at[0]);
                        let near = Found {
                            start: s,
                            end: e,
                            map: (s..e).map(Some).collect(),
                            tier: Tier::Exact,
                            confidence: 1.0,
                        };
                        let f = fd.find(&seg[a..=j], s, e).unwrap_or(near);
                        tail = Some((a, j + 1, f));
                        nearest = true;
                    }
                    break;
                }
            }
        }
    }
    // The tail grown backwards while the lines before it stand before it in the file.
    if let Some(t) = &mut tail {
        grow_back(&fd, seg, head_end, head.end, t);
    }
    // The tail stands at the head's indentation shift: a snippet indented as a whole by some
    // columns is not also indented as the file at its end (a `}` that stands at the
    // snippet's own indentation further on is another `}`).
    // A head that stands nowhere as written but at a shift (the snippet indented as a
    // whole) and a tail found at another (as written, say: a `}` of a block nested deeper):
    // the tail is looked for again among the places of its lines at the head's shift, and
    // one there places it. (A head found as written and a tail at a shift stay refused: the
    // head may be a copy nested deeper of the lines the snippet re-indented.)
    let head_shift = Shift::of(seg[i].as_str(), fd.text(head.start)).delta;
    let off_shift = |tail: &Option<(usize, usize, Found)>| {
        tail.as_ref().is_some_and(|(_, b, f)| Shift::of(seg[b - 1].as_str(), fd.text(f.end - 1)).delta != head_shift)
    };
    if head_shift != 0
        && off_shift(&tail)
        && fd.tiers.contains(Tier::Indentation)
        && let Some((mut at_shift, several)) = tail_at_shift(&fd, seg, (head_end, t), head.end, head_shift)
    {
        grow_back(&fd, seg, head_end, head.end, &mut at_shift);
        tail = Some(at_shift);
        tail_grown = false;
        nearest = several;
    }
    if let Some((_, b, f)) = &tail {
        let tail_shift = Shift::of(seg[b - 1].as_str(), fd.text(f.end - 1)).delta;
        if head_shift != tail_shift {
            return Err(unclear(
                format!(
                    "the segment's first lines the file holds, {}, stand {} line {} of the file, and its last \
                     ones, {}, {} line {}: it is unclear which lines of the file it shows",
                    quoted(&seg[i]),
                    shifted(head_shift),
                    head.start + 1,
                    quoted(&seg[b - 1]),
                    shifted(tail_shift),
                    f.end
                ),
                "copy the unchanged lines with the file's indentation".to_string(),
                &[(head.start, head.end), (f.start, f.end)],
            ));
        }
    }
    let explained = |m: &Middle| m.removed <= m.added + 2 || m.gaps_explained;
    let (mid_end, after, region_end) = match &tail {
        Some((a, b, f)) => (*a, *b, f.end),
        None => (head_end, head_end, head.end),
    };
    // New lines after the last line placed, before a marker.
    let last_placed = tail.as_ref().map_or(head_end - 1, |(_, b, _)| b - 1);
    let ends_file = ends.at_end && region_end == len;
    if last_placed < t && !ends_file && ends.at_end {
        let last = quoted(&seg[t]);
        return Err(unclear(
            format!(
                "the snippet ends, with no marker after it, with new lines ({last}) below {}, which is line {} of \
                 the file, not its last: it is unclear whether they replace the lines below it or go below it, \
                 those lines kept",
                quoted(&seg[last_placed]),
                region_end
            ),
            "end the snippet with a marker line (`... existing code ...` in a comment) if the lines below are \
             kept, or with the file's last line"
                .to_string(),
            &[(region_end, len)],
        ));
    }
    if last_placed < t && !ends_file {
        let news: Vec<&LineText> = seg[last_placed + 1..].iter().filter(|l| !is_blank(l)).collect();
        let to = (region_end + news.len() + NEAR).min(len);
        if let Some((new, fi)) = like_neighbour(&fd, &news, &(region_end..to).collect::<Vec<_>>()) {
            return Err(changed_or_new(&fd, new, fi, "below", &seg[last_placed]));
        }
        let before_head = (head.start.saturating_sub(FAR).max(lo)..head.start).rev();
        if let Some((new, fi)) = news.last().and_then(|new| {
            copy_with_mistake(&fd, new, (to..(to + FAR).min(len)).chain(before_head)).map(|fi| (*new, fi))
        }) {
            let above = (i..=last_placed).rev().find(|&j| !is_blank(&seg[j])).unwrap_or(i);
            return Err(if fi >= region_end {
                changed_or_new(&fd, new, fi, "below", &seg[above])
            } else {
                elsewhere(&fd, new, fi)
            });
        }
    }

    // A head found as written that also stands at an indentation shift elsewhere, where
    // more of the segment's lines stand (whatever their indentation): the snippet may be
    // indented as a whole and belong there, the lines found as written being a copy nested
    // deeper (or shallower). One reading of two.
    if fd.tiers.contains(Tier::Indentation) && head_shift == 0 {
        let trimmed = Finder { tiers: TierSet::only(Tier::Indentation), ..fd };
        let shifted_places: Vec<(usize, isize)> = places_of(&trimmed, &seg[i..i + k], lo, len)
            .into_iter()
            .map(|p| (p, Shift::of(seg[i].as_str(), fd.text(p)).delta))
            .filter(|&(p, delta)| p != head.start && delta != 0)
            .collect();
        if !shifted_places.is_empty() {
            let shown: Vec<&str> = seg.iter().filter(|l| !is_blank(l)).map(|l| l.trim()).collect();
            // How many of the segment's lines stand among the file's from `p` on.
            let lines_of = |p: usize| -> usize {
                let window: std::collections::HashSet<&str> =
                    (p..(p + n + NEAR).min(len)).map(|fi| fd.text(fi).trim()).collect();
                shown.iter().filter(|l| window.contains(*l)).count()
            };
            let here = lines_of(head.start);
            if let Some(&(p, delta)) = shifted_places.iter().find(|&&(p, _)| lines_of(p) > here) {
                return Err(unclear(
                    format!(
                        "the segment's first lines, {}, stand as written at line {} and {} line {}, where more of \
                         the segment's lines stand: it is unclear whether the snippet is indented as the file or \
                         shifted as a whole",
                        quoted(&seg[i]),
                        head.start + 1,
                        shifted(delta),
                        p + 1
                    ),
                    "copy the unchanged lines with the file's indentation".to_string(),
                    &[(head.start, head.end), (p, p + k)],
                ));
            }
        }
    }
    // New lines at the segment's edges (before its head, after its last line placed) that
    // say enough: the lines the two checks below compare with file lines.
    let edge_news: Vec<&LineText> =
        seg[h..i].iter().chain(seg[last_placed + 1..].iter()).filter(|l| !is_blank(l) && distinctive(l)).collect();
    // A head grown until its run stood at one place: at another place of its first line,
    // a new line at the segment's edge may be the line the file has there (changed, or
    // copied with a mistake), the lines the head was grown through being new there. A new
    // edge line like a file line within the segment's reach of such a place: refused.
    if grown {
        for p in places_of(&fd, &seg[i..=i], lo, len).into_iter().filter(|&p| p != head.start) {
            let near: Vec<usize> = (p.saturating_sub(NEAR)..(p + n + NEAR).min(len)).collect();
            if let Some((new, fi)) = like_neighbour(&fd, &edge_news, &near) {
                return Err(unclear(
                    format!(
                        "the segment's first line, {}, stands at line {} too, and there its new line {} resembles \
                         line {} of the file, {}: it is unclear where the segment goes",
                        quoted(&seg[i]),
                        p + 1,
                        quoted(new),
                        fi + 1,
                        quoted(fd.text(fi))
                    ),
                    "copy the unchanged lines around each change exactly as the file has them".to_string(),
                    &[(head.start, head.end), (p, p + 1)],
                ));
            }
        }
    }
    // The lines between head and tail, aligned.
    let mid_file_end = tail.as_ref().map_or(head.end, |(_, _, f)| f.start);
    let mid = middle(
        &fd,
        seg,
        &Shift::of(seg[i].as_str(), fd.text(head.start)),
        (head_end, mid_end),
        (head.end, mid_file_end),
    );
    // Per segment line, whether the file holds it where the segment goes (head, kept middle
    // line, tail): the others are new.
    let mut placed = vec![false; n];
    for j in (i..head_end)
        .chain(tail.as_ref().map_or(0..0, |(a, b, _)| *a..*b))
        .chain(mid.file_kept.iter().flatten().copied())
    {
        placed[j] = true;
    }
    if weak_head && !(explained(&mid) && (head_end..n).any(|j| placed[j] && distinctive(&seg[j]))) {
        return Err(weak_head_failure());
    }
    // A new line at the segment's edge (before its head, after its tail) that resembles a
    // line the segment removes between them: the head or tail may be placed wrong, the new
    // line being the removed one copied with a mistake (`/// # Examplet` after a `///` that
    // stands again below `/// # Examples`).
    let removed: Vec<usize> = (0..mid.file_kept.len())
        .filter(|&fo| mid.file_kept[fo].is_none() && !is_blank(fd.text(head.end + fo)))
        .map(|fo| head.end + fo)
        .collect();
    if let Some((new, fi)) = like_neighbour(&fd, &edge_news, &removed) {
        return Err(unclear(
            format!(
                "{} is new at the segment's edge and resembles line {} of the file, {}, which the segment removes: \
                 it is unclear whether the segment goes there or that line was copied with a mistake",
                quoted(new),
                fi + 1,
                quoted(fd.text(fi))
            ),
            "copy the unchanged lines around each change exactly as the file has them".to_string(),
            &[(fi, fi + 1)],
        ));
    }
    // A snippet with no marker before it whose first line, of punctuation only (`"""`), is
    // also the file's first line: that line places no removal of more than one line after
    // it (the snippet's line may be the closing `"""` of the file's docstring, the marker
    // before it left out, as a last `};` at the file's end may be a new function's).
    if weak_head && starts_file && mid.removed > 1 {
        return Err(unclear(
            format!(
                "the snippet starts, with no marker before it, with {}, as the file does, and would remove the {} \
                 file lines after it: {} says too little to tell whether the snippet starts at the file's start",
                quoted(&seg[i]),
                mid.removed,
                quoted(&seg[i])
            ),
            "start the snippet with a marker line (`... existing code ...` in a comment) if the lines above are \
             kept, or with the file's first lines up to one that says more"
                .to_string(),
            &[(head.end, mid_file_end)],
        ));
    }
    // A snippet indented as a whole by some columns, with a new line the file has as
    // written (at the file's own indentation) among the lines the segment removes: that
    // line is kept there unshifted, or re-indented by the snippet's shift: one reading of
    // two.
    let delta = head_shift;
    if delta != 0 {
        let removed: std::collections::HashMap<&str, usize> = (0..mid.file_kept.len())
            .filter(|&fo| mid.file_kept[fo].is_none() && !is_blank(fd.text(head.end + fo)))
            .map(|fo| (fd.text(head.end + fo).trim_end(), head.end + fo))
            .collect();
        let same = (head_end..mid_end)
            .filter(|&j| !placed[j] && !is_blank(&seg[j]))
            .find_map(|j| removed.get(seg[j].trim_end()).map(|&fi| (j, fi)));
        if let Some((j, fi)) = same {
            return Err(unclear(
                format!(
                    "{} is written {} the file's lines around it, and the file has it as written at line {}, which \
                     the segment removes: it is unclear whether that line keeps its indentation or moves by the \
                     snippet's",
                    quoted(&seg[j]),
                    shifted(delta),
                    fi + 1
                ),
                "copy the unchanged lines with the file's indentation".to_string(),
                &[(fi, fi + 1)],
            ));
        }
    }
    // A head placed by a later line: that line must be one the merge keeps where it
    // stands, and no new line may resemble a line right above the head (then the new lines
    // may replace those: a second reading).
    if let Some(p) = pivoted {
        // Whether the merge keeps file line `fi` where it stands (in the middle or the tail).
        let kept_at = |fi: usize| {
            tail.as_ref().is_some_and(|(_, _, f)| (f.start..f.end).contains(&fi))
                || (head.end..mid_file_end).contains(&fi) && mid.file_kept[fi - head.end].is_some()
        };
        let kept_there = kept_at(p);
        let above = head.start.saturating_sub(NEAR).max(lo)..head.start;
        let new_like_above = seg
            .iter()
            .enumerate()
            .any(|(j, l)| !placed[j] && distinctive(l) && above.clone().any(|fi| resembles(l, fd.text(fi))));
        // Lines removed between the head and that line: the fewest of all the head's places
        // (its last before the line), when the line says enough and the segment writes
        // about as many in their place.
        // A short line (`return 1;`) says enough with the lines the merge keeps right
        // after it: a run of two or more that says 8 letters and digits in all.
        let run = (p..len).take_while(|&fi| kept_at(fi)).filter(|&fi| !is_blank(fd.text(fi)));
        let (run_lines, run_says) = run.fold((0, 0), |(n, s), fi| (n + 1, s + alphanumerics(fd.text(fi))));
        let says_enough = distinctive(fd.text(p)) || run_lines >= 2 && run_says >= 8;
        let removal_unclear = mid.removed > 0 && !(explained(&mid) && says_enough);
        if removal_unclear || !kept_there || new_like_above {
            let at: Vec<(usize, usize)> =
                places_of(&fd, &seg[i..=i], lo, len).into_iter().map(|s| (s, s + 1)).collect();
            return Err(head_unclear(seg, h, i, &at));
        }
    }
    if let Some(fi) = mid.dropped_blank {
        let above = (lo..fi).rev().find(|&x| !is_blank(fd.text(x))).unwrap_or(fi);
        return Err(unclear(
            format!(
                "the segment leaves out the blank line {} of the file, below {}: it is unclear whether it deletes \
                 that line or dropped it by mistake",
                fi + 1,
                quoted(fd.text(above))
            ),
            "write the blank line where the file has it; to delete a blank line alone, send a diff or a \
             search/replace edit"
                .to_string(),
            &[(fi, fi + 1)],
        ));
    }
    if mid.removed > 0 {
        let strong = |from: usize, to: usize| seg[from..to].iter().filter(|l| !is_blank(l)).count() >= 2;
        // A run grown until it stood at one place may hold new lines that the file happens
        // to have elsewhere: it places nothing that removes lines. Both ends certain (each
        // one line that stands at one place, run on by the lines that follow it in the
        // file), each shown with two lines or more and 8 letters and digits: a deletion.
        // A grown run is trusted where its one line's nearest place (the head's last one
        // before the next line kept, in the middle or the tail; the tail's first one after
        // the last line kept, in the head or the middle) is the run's own. A place of that
        // line inside the run itself (`//!` repeated within a doc comment's run) is not
        // another reading: there the run's other lines would be new copies of the lines
        // right beside them, which is refused on its own.
        let head_doubt = grown && {
            let next_kept = mid.file_kept.iter().position(Option::is_some).map(|fo| head.end + fo);
            let hi = next_kept.or(tail.as_ref().map(|(_, _, f)| f.start)).unwrap_or(len);
            places_of(&fd, &seg[i..=i], lo, hi).into_iter().rfind(|&p| p <= head.start || p >= head.end)
                != Some(head.start)
        };
        let tail_doubt = tail_grown
            && tail.as_ref().is_some_and(|(_, b, f)| {
                let prev_kept =
                    mid.file_kept.iter().rposition(Option::is_some).map_or(head.end, |fo| head.end + fo + 1);
                places_of(&fd, &seg[b - 1..*b], prev_kept, len).into_iter().find(|&p| p < f.start || p + 1 >= f.end)
                    != Some(f.end - 1)
            });
        // A segment that writes nothing new (a deletion between the lines it shows) has no
        // new line its runs could have been grown through: grown to one place, they are
        // certain too.
        let writes_nothing =
            mid.added == 0 && seg[h..i].iter().all(|l| is_blank(l)) && seg[after..].iter().all(|l| is_blank(l));
        let certain = (!grown && !tail_grown || writes_nothing && !head_doubt && !tail_doubt) && !nearest;
        let tail_strong = tail.as_ref().is_some_and(|(a, b, _)| strong(*a, *b));
        let tail_says = tail.as_ref().map_or(0, |(a, b, _)| says(&seg[*a..*b]));
        let head_says = says(&seg[i..head_end]);
        // A tail of punctuation and short words (`}`, `};`, `//!`: fewer than 3 letters and
        // digits, as a head that places nothing) stands at many places, and a line the
        // segment writes new may take the file's for it. It places the removal of one line
        // at most, unless it closes a line the segment keeps (the nearest line above it
        // indented as it or less is placed: a function's `}` below its rewritten body).
        // Grown backwards, its run must say more than that. Being the file's last line is
        // no exception: a snippet with no marker after it whose last line is a `};` like
        // the file's may end a new function, the marker left out (the rest of the file
        // then removed in its place).
        let closes_kept = tail.as_ref().is_some_and(|(a, _, _)| {
            let width = indent_width(&seg[*a]).0;
            (h..*a).rev().find(|&j| !is_blank(&seg[j]) && indent_width(&seg[j]).0 <= width).is_some_and(|j| placed[j])
        });
        let weak_tail = tail_says < 3 && (tail_grown || mid.removed > 1 && !closes_kept);
        let allowed = if head_doubt || tail_doubt || weak_tail {
            false
        } else {
            explained(&mid) || (certain && strong(i, head_end) && tail_strong && head_says >= 8 && tail_says >= 8)
        };
        if !allowed {
            let (a, _, f) = tail.as_ref().expect("lines removed between head and tail");
            return Err(unclear(
                format!(
                    "the segment would remove the {} file lines between {} (line {}) and {} (line {}), writing {} \
                     in their place: it is unclear whether {} is that line of the file or a new one",
                    mid.removed,
                    quoted(&seg[head_end - 1]),
                    head.end,
                    quoted(&seg[*a]),
                    f.start + 1,
                    mid.added,
                    quoted(&seg[*a])
                ),
                format!(
                    "add the line below {} and the line above {} to the snippet as the file has them, or put a \
                     marker where lines are kept",
                    quoted(&seg[head_end - 1]),
                    quoted(&seg[*a])
                ),
                &[(head.end, f.start)],
            ));
        }
    }

    // A new line that the file has right outside the region (where a marker keeps it) is
    // a line moved, or one written twice: one reading of two. Unless the file has it at
    // several places (`#[doc(hidden)]`, a changelog's `Bug Fixes`: a line of a kind it
    // repeats, written once more), and the segment's last lines were not placed at the
    // nearest of their places (a copy of them that the segment writes may be the file's).
    // Or unless it is one of three or more new lines the segment writes between its head
    // and its tail, each placed at one place (a list of arguments, a body rewritten: a line
    // written again like the lines around it); a line written alone, or at the segment's
    // edge, may be one moved, or a sign that the segment's lines are the file's there.
    let region = (head.start, region_end);
    let outside = |fi: usize| fi < region.0 || fi >= region.1;
    let near = region.0.saturating_sub(NEAR).max(lo)..(region.1 + NEAR).min(len);
    let among_new = |j: usize| {
        mid.added >= 3
            && !nearest
            && pivoted.is_none()
            && j >= head_end
            && tail.as_ref().is_some_and(|(a, _, _)| j < *a)
    };
    for (j, line) in seg.iter().enumerate() {
        if placed[j] || !distinctive(line) {
            continue;
        }
        let beside = near.clone().find(|&fi| outside(fi) && fd.text(fi).trim() == line.trim());
        let repeated = || !nearest && places_of(&fd, std::slice::from_ref(line), 0, len).len() >= 2;
        if let Some(fi) = beside.filter(|_| !repeated() && !among_new(j)) {
            return Err(unclear(
                format!(
                    "{} is new in the segment but stands at line {} of the file, next to where the segment goes: \
                     it is unclear whether it moves there or is written twice",
                    quoted(line),
                    fi + 1
                ),
                "show the lines around that line too (to move it, without it where it stands), or send a diff"
                    .to_string(),
                &[(fi, fi + 1)],
            ));
        }
    }

    // New lines at an edge of the segment (after a marker, or before one) that stand
    // together, two or more, elsewhere in the file: lines moved, or the segment's place
    // is theirs (the line that placed it being the one moved): one reading of two.
    let edges = [(h, i), (last_placed + 1, t + 1)];
    for (from, to) in edges {
        let mut a = from;
        while a < to {
            if is_blank(&seg[a]) {
                a += 1;
                continue;
            }
            let mut b = a;
            while b < to && !is_blank(&seg[b]) {
                b += 1;
            }
            if b - a >= 2 && says(&seg[a..b]) >= 8 {
                let elsewhere = places_of(&fd, &seg[a..b], lo, len).into_iter().find(|&s| outside(s));
                if let Some(s) = elsewhere {
                    return Err(unclear(
                        format!(
                            "{} and the line after it are new in the segment but stand at lines {}-{} of the file: \
                             it is unclear whether they move there, are written twice, or the segment belongs there",
                            quoted(&seg[a]),
                            s + 1,
                            s + b - a
                        ),
                        "show the lines around that place too, or send a diff".to_string(),
                        &[(s, s + b - a)],
                    ));
                }
            }
            a = b;
        }
    }

    // Blank lines at the segment's edges take the file's blank lines there. After a
    // marker (before one), blank lines and then new lines are the file's blank lines and
    // the new lines written below (above) them, where the file has as many blank lines
    // there: a blank line a snippet shows next to a marker is the file's.
    let mut r0 = head.start;
    let mut lead_from = i; // seg[lead_from..] from r0 on is the file's
    if !seg[..i].iter().any(|l| !is_blank(l)) {
        while lead_from > 0 && r0 > lo && is_blank(fd.text(r0 - 1)) {
            lead_from -= 1;
            r0 -= 1;
        }
    } else if h > 0
        && !ends.at_start
        && head.start >= lo + h
        && (head.start - h..head.start).all(|fi| is_blank(fd.text(fi)))
    {
        lead_from = 0;
        r0 = head.start - h;
    }
    let mut r1 = region_end;
    let mut trail_from = after; // seg[trail_from..] from region_end on is the file's
    if !seg[after..].iter().any(|l| !is_blank(l)) {
        while after + (r1 - region_end) < n && r1 < len && is_blank(fd.text(r1)) {
            r1 += 1;
        }
    } else if t + 1 < n
        && !ends.at_end
        && region_end + (n - 1 - t) <= len
        && (region_end..region_end + (n - 1 - t)).all(|fi| is_blank(fd.text(fi)))
    {
        trail_from = t + 1;
        r1 = region_end + (n - 1 - t);
    }

    // The old side, in the segment's indentation, and the alignment.
    let shift = Shift::of(seg[i].as_str(), fd.text(head.start));
    let mut pat: Vec<LineText> = Vec::with_capacity(r1 - r0);
    let mut kept: Vec<Option<usize>> = vec![None; n];
    for fi in r0..head.start {
        kept[lead_from + (fi - r0)] = Some(pat.len());
        pat.push(seg[lead_from + (fi - r0)].clone());
    }
    for j in i..head_end {
        kept[j] = Some(pat.len());
        pat.push(seg[j].clone());
    }
    for (fo, keep) in mid.file_kept.iter().enumerate() {
        match keep {
            Some(j) => {
                kept[*j] = Some(pat.len());
                pat.push(seg[*j].clone());
            }
            None => pat.push(LineText::from(shift.to_segment(fd.text(head.end + fo)))),
        }
    }
    debug_assert_eq!(head.end + mid.file_kept.len(), mid_file_end);
    if let Some((a, b, _)) = &tail {
        for j in *a..*b {
            kept[j] = Some(pat.len());
            pat.push(seg[j].clone());
        }
    }
    for fi in region_end..r1 {
        let j = trail_from + (fi - region_end);
        kept[j] = Some(pat.len());
        pat.push(seg[j].clone());
    }
    // A blank file line kept right below (above) a kept line, with new lines written
    // between the two: the new lines go below (above) the blank line, the snippet having
    // dropped one of its blank lines, or next to the line; nothing tells which, unless
    // they continue the line's run.
    if let Some((fi, first, placed, above)) = blank_beside_new(seg, &kept, pat.len()) {
        let (side, next) = if above { ("below", "before") } else { ("above", "after") };
        let message = if is_blank(&seg[placed]) {
            format!(
                "the segment writes new lines ({}) between the blank lines {} and {} of the file: it is unclear \
                 whether they go there or a blank line around them was left out by mistake",
                quoted(&seg[first]),
                r0 + fi + 1,
                r0 + fi + 2
            )
        } else {
            format!(
                "the segment writes new lines ({}) between {} and the blank line {} of the file {side} it, with no \
                 blank line {next} them: it is unclear whether they go above or below that blank line (one left \
                 out by mistake)",
                quoted(&seg[first]),
                quoted(&seg[placed]),
                r0 + fi + 1
            )
        };
        return Err(unclear(
            message,
            "write the blank lines where the file has them, around the new lines".to_string(),
            &[(r0 + fi, r0 + fi + 1)],
        ));
    }
    // The lines the segment keeps are all that place it (unless it is the whole file):
    // short common lines alone (`else:`, `return;`: fewer than 8 letters and digits in
    // all) stand in many files.
    let placed_by: usize = (0..n).filter(|&j| kept[j].is_some()).map(|j| alphanumerics(&seg[j])).sum();
    if placed_by < 8 && kept.iter().any(Option::is_none) && !(starts_file && ends_file) {
        return Err(unclear(
            format!(
                "the segment's only lines the file holds, {}, say too little to place it (line {} of the file): it \
                 may be meant for another file",
                quoted(&seg[i]),
                head.start + 1
            ),
            format!(
                "check the file's path, and add the lines around {} to the snippet, as the file has them",
                quoted(&seg[i])
            ),
            &[(head.start, head.end)],
        ));
    }
    // A line removed and written again across a blank line the segment keeps: the line
    // moves, or the snippet left out a blank line next to it (then the blank line stays
    // where it was): one reading of two.
    if let Some((p, j, q)) = moved_across_blank(seg, &pat, &kept) {
        return Err(unclear(
            format!(
                "the segment removes {} (line {} of the file) and writes it again across the blank line {}: it is \
                 unclear whether it moves or a blank line next to it was left out by mistake",
                quoted(&seg[j]),
                r0 + p + 1,
                r0 + q + 1
            ),
            "write the blank lines where the file has them; to move a line, send a diff or a search/replace edit"
                .to_string(),
            &[(r0 + p, r0 + p + 1)],
        ));
    }
    // Grown through lines that are new at the place its first lines have elsewhere, a
    // segment that stands whole where it was grown to reads as already applied there: one
    // reading of two.
    if grown && kept.iter().all(Option::is_some) && pat.len() == n {
        return Err(unclear(
            format!(
                "the segment stands as written at lines {}-{}, and its first line, {}, at other places too, where \
                 it would change the file: it is unclear whether it is already applied",
                head.start + 1,
                r1,
                quoted(&seg[i])
            ),
            format!("add the line above {} to the snippet, as the file has it", quoted(&seg[i])),
            &[(head.start, r1)],
        ));
    }
    let (tier, confidence) = match &tail {
        Some((_, _, f)) => (head.tier.max(f.tier), head.confidence.min(f.confidence)),
        None => (head.tier, head.confidence),
    };
    let found = Found { start: r0, end: r1, map: (r0..r1).map(Some).collect(), tier, confidence };
    if ends.at_start && !starts_file && r0 > 0 {
        notes.push(format!(
            "the snippet does not start with a marker and its first line is not the file's first line: a marker \
             was assumed before it (lines 1-{r0} kept)"
        ));
    }
    if ends.at_end && r1 < len && !ends_file {
        notes.push(format!(
            "the snippet does not end with a marker and its last line is not the file's last line: a marker was \
             assumed after it (lines {}-{len} kept)",
            r1 + 1
        ));
    }
    Ok(Resolved { pat, kept, found, notes })
}

/// A blank old line kept next to a non-blank kept one with new lines written between the
/// two and no blank line next to that line: (the blank line's index in the old side, the
/// first new line, the placed line, whether it is above the blank line), from `kept` (per
/// segment line, its old line) and the old side's length. New lines that all continue the
/// placed line's run (a list, imports, keys: each in its indentation and with its first
/// word) are read as written there.
///
/// New lines right below a line, the file's blank line after them, are read as the snippet
/// writes them (a statement, an import, a key added after the one above): the other
/// reading needs a blank line the snippet does not have, between the line and them. Except
/// below an item of a list (`- `, `* `, `1. `): a line written right below it that does
/// not continue the list joins the item (Markdown), where a paragraph of its own may have
/// lost its blank line; and new lines that are a block with a body (a function below the
/// `}` of the one before), which a blank line usually parts from the line above. Above a
/// line, new lines are not so read: a function written above the next one often loses
/// the blank line between them.
fn blank_beside_new(seg: &[LineText], kept: &[Option<usize>], old_len: usize) -> Option<(usize, usize, usize, bool)> {
    let mut by = vec![None; old_len];
    for (j, k) in kept.iter().enumerate() {
        if let Some(p) = k {
            by[*p] = Some(j);
        }
    }
    // Next to a list item, a sibling of it with its own lines (an item with its keys) is
    // read as written there too, below it or above it (a list's items stand without blank
    // lines between them); next to another line, not (a function written above the next
    // one, the blank line between them left out). A doc comment right above a line is that
    // line's: a blank line between would part them.
    let unclear = |placed: usize, news: std::ops::Range<usize>, below: bool| {
        let (line, written) = (&seg[placed], &seg[news.clone()]);
        let sibling_item = list_item(line) && continues_block(written, line);
        let doc_comment = !below && documents(written, line);
        !news.is_empty()
            && !is_blank(line)
            && written.iter().any(|l| !is_blank(l))
            && !written.iter().all(|l| continues(l, line))
            && !sibling_item
            && !doc_comment
    };
    (0..old_len).find_map(|p| {
        let j = by[p].filter(|&j| is_blank(&seg[j]))?;
        // The line above, a list item, or new lines with a body: new lines right below it
        // (none blank next to it).
        if let Some(above) = p.checked_sub(1).and_then(|q| by[q])
            && above + 1 < j
            && !is_blank(&seg[above + 1])
            && (list_item(&seg[above]) || has_body(&seg[above + 1..j]))
            && unclear(above, above + 1..j, true)
        {
            return Some((p, above + 1, above, true));
        }
        // The line below: new lines right above it; or the next blank line of a run, new
        // lines written between the two.
        if let Some(below) = by.get(p + 1).copied().flatten() {
            let between_blanks =
                is_blank(&seg[below]) && (j + 1..below).any(|x| !is_blank(&seg[x])) && !more_blanks(seg, &by, p);
            if between_blanks || j + 1 < below && !is_blank(&seg[below - 1]) && unclear(below, j + 1..below, false) {
                let first = (j + 1..below).find(|&x| !is_blank(&seg[x])).unwrap_or(j + 1);
                return Some((p, first, below, false));
            }
        }
        None
    })
}

/// Whether the new lines `news` are a doc comment of `line` (written right above it): each
/// non-blank one in its indentation, all `///` lines, or all `#:` lines (Sphinx), or one
/// `/** ... */` block, and none blank.
fn documents(news: &[LineText], line: &str) -> bool {
    let width = indent_width(line).0;
    let body: Vec<&str> = news.iter().map(|l| l.trim()).collect();
    let slashes = body.iter().all(|l| l.starts_with("///") && !l.starts_with("////"));
    let block = body.first().is_some_and(|l| l.starts_with("/**"))
        && body.last().is_some_and(|l| l.ends_with("*/"))
        && body[1..].iter().all(|l| l.starts_with('*'));
    !body.is_empty()
        && news.iter().all(|l| !is_blank(l) && indent_width(l).0 >= width)
        && indent_width(&news[0]).0 == width
        && (slashes || body.iter().all(|l| l.starts_with("#:")) || block)
}

/// Whether new lines are a block with a body: a line indented deeper than the first of
/// them (a function, a list item with its keys), which a blank line usually parts from
/// the line above it.
fn has_body(news: &[LineText]) -> bool {
    let Some(first) = news.iter().find(|l| !is_blank(l)) else { return false };
    let width = indent_width(first).0;
    news.iter().any(|l| !is_blank(l) && indent_width(l).0 > width)
}

/// Whether `line` is an item of a list: after its indentation, `-`, `*` or `+`, or digits
/// and `.` or `)`, then a space (or nothing more).
fn list_item(line: &str) -> bool {
    let rest = line.trim_start();
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let after = if digits > 0 { rest[digits..].strip_prefix(['.', ')']) } else { rest.strip_prefix(['-', '*', '+']) };
    after.is_some_and(|a| a.is_empty() || a.starts_with([' ', '\t']))
}

/// Whether the segment has more blank lines than the old side's run of kept blank lines
/// that holds old line `p`, counting the segment's runs of blank lines that hold the kept
/// ones: new lines written inside the run come with blank lines of their own around them.
fn more_blanks(seg: &[LineText], by: &[Option<usize>], p: usize) -> bool {
    let kept_blank = |q: usize| by[q].is_some_and(|j| is_blank(&seg[j]));
    let (mut first, mut last) = (p, p);
    while first > 0 && kept_blank(first - 1) {
        first -= 1;
    }
    while last + 1 < by.len() && kept_blank(last + 1) {
        last += 1;
    }
    let mut blanks = 0;
    let mut counted_to = 0; // segment lines before this are counted
    for j in (first..=last).filter_map(|q| by[q]) {
        if j < counted_to {
            continue;
        }
        let mut from = j;
        while from > counted_to && is_blank(&seg[from - 1]) {
            from -= 1;
        }
        let mut to = j + 1;
        while to < seg.len() && is_blank(&seg[to]) {
            to += 1;
        }
        blanks += to - from;
        counted_to = to;
    }
    blanks > last - first + 1
}

/// A non-blank old line the segment removes and writes again at another place, with a
/// blank old line it keeps between the two places: (the removed line's index in the old
/// side, the new line, the blank line's index in the old side).
fn moved_across_blank(seg: &[LineText], pat: &[LineText], kept: &[Option<usize>]) -> Option<(usize, usize, usize)> {
    let mut by = vec![None; pat.len()];
    for (j, k) in kept.iter().enumerate() {
        if let Some(p) = k {
            by[*p] = Some(j);
        }
    }
    // Per new line's text, the new line and the old side's index it is written before.
    let mut news: std::collections::HashMap<&str, (usize, usize)> = std::collections::HashMap::new();
    let mut next = 0;
    for (j, k) in kept.iter().enumerate() {
        match k {
            Some(p) => next = p + 1,
            None if !is_blank(&seg[j]) => {
                news.entry(seg[j].trim()).or_insert((j, next));
            }
            None => {}
        }
    }
    (0..pat.len()).filter(|&p| by[p].is_none() && !is_blank(&pat[p])).find_map(|p| {
        let &(j, at) = news.get(pat[p].trim())?;
        let between = if at > p { p + 1..at } else { at..p };
        between.clone().find(|&q| by[q].is_some() && is_blank(&pat[q])).map(|q| (p, j, q))
    })
}

/// Whether `new` continues the run of `line`: not blank, the same indentation, the same
/// first word.
/// Whether new lines continue a line's run as a sibling of it with its own lines: the
/// first one continues it (a list item, a key, in its indentation and with its first
/// word) and the others are indented as it or more.
fn continues_block(news: &[LineText], line: &str) -> bool {
    let Some(first) = news.iter().find(|l| !is_blank(l)) else { return false };
    let width = indent_width(first).0;
    continues(first, line) && news.iter().all(|l| is_blank(l) || indent_width(l).0 >= width)
}

fn continues(new: &str, line: &str) -> bool {
    let word = |l: &str| l.split_whitespace().next().map(str::to_string);
    !is_blank(new) && indent_width(new).0 == indent_width(line).0 && word(new) == word(line)
}

/// A new line this similar to a file line further away (past the 8 lines around the place
/// that [`like_neighbour`] reads, up to [`FAR`]) is a copy of it with a mistake, or that
/// line changed: the lines between may be lines the snippet removes, the marker beside it
/// standing for fewer lines than it keeps (a typo'd context line of a deletion).
const ALMOST: f64 = 0.85;

/// How far past [`NEAR`] a new line next to a marker is compared with the lines the marker
/// keeps: a bound on the work per segment (one line compared with at most this many).
const FAR: usize = 200;

/// The first of the file lines `far` (in the order given) that `new` (the outermost new
/// line at a segment's edge, next to a marker) is almost, when it says 4 letters or digits
/// (`## Tzpes` for `## Types`); lines whose lengths differ by more than a tenth are not
/// compared.
fn copy_with_mistake(fd: &Finder<'_>, new: &str, mut far: impl Iterator<Item = usize>) -> Option<usize> {
    let a = trim(new);
    let la = a.chars().count();
    if alphanumerics(a) < 4 {
        return None;
    }
    far.find(|&fi| {
        let b = trim(fd.text(fi));
        let lb = b.chars().count();
        a != b && la.abs_diff(lb) * 10 <= la.max(lb) && similarity(a, b).is_some_and(|s| s >= ALMOST)
    })
}

/// The first of `news` (lines a segment adds next to a placed line) that resembles one of
/// the file lines `near` (nearest to the placed line first) without being it, and that
/// file line.
fn like_neighbour<'n>(fd: &Finder<'_>, news: &[&'n LineText], near: &[usize]) -> Option<(&'n LineText, usize)> {
    news.iter().find_map(|new| near.iter().find(|&&fi| resembles(new, fd.text(fi))).map(|&fi| (*new, fi)))
}

/// The failure of a new line that resembles file line `fi`, `side` (above or below) the
/// placed line `placed`.
fn changed_or_new(fd: &Finder<'_>, new: &str, fi: usize, side: &str, placed: &str) -> Failure {
    unclear(
        format!(
            "{} resembles line {} of the file, {}, {side} {}: it is unclear whether it changes that line or adds a \
             new one",
            quoted(new),
            fi + 1,
            quoted(fd.text(fi)),
            quoted(placed)
        ),
        format!(
            "copy the line exactly as the file has it if it is unchanged; to change it, add the line {side} it to \
             the snippet as the file has it"
        ),
        &[(fi, fi + 1)],
    )
}

/// The failure of a new line at a segment's edge that is almost file line `fi`, on the
/// other side of the place found: the segment may belong there.
fn elsewhere(fd: &Finder<'_>, new: &str, fi: usize) -> Failure {
    unclear(
        format!(
            "{} is new where the segment goes and almost line {} of the file, {}: it is unclear whether the segment \
             goes there",
            quoted(new),
            fi + 1,
            quoted(fd.text(fi))
        ),
        "copy the unchanged lines around each change exactly as the file has them".to_string(),
        &[(fi, fi + 1)],
    )
}

/// Where a snippet line stands against a file line `delta` columns less indented.
fn shifted(delta: isize) -> String {
    match delta {
        0 => "as indented as".to_string(),
        d if d > 0 => format!("{d} columns right of"),
        d => format!("{} columns left of", d.unsigned_abs()),
    }
}

/// How far outside a segment's region a new line of it is looked for (a moved line).
const NEAR: usize = 8;

/// How many letters and digits a line has.
fn alphanumerics(line: &str) -> usize {
    line.chars().filter(|c| c.is_alphanumeric()).count()
}

/// How many letters and digits `lines` have in all.
fn says(lines: &[LineText]) -> usize {
    lines.iter().map(|l| alphanumerics(l)).sum()
}

/// Whether a new line says enough to be taken for a moved one: 8 letters or digits.
fn distinctive(line: &str) -> bool {
    alphanumerics(line) >= 8
}

/// The place of the head run `seg[i..i + k]` (found at the places `at`, in file order)
/// that the first line of the segment from `from` (up to `t`) saying enough (3 letters or
/// digits) follows before the head's next place, when it follows one place only; and that
/// line's first place there.
fn before_pivot(
    fd: &Finder<'_>,
    seg: &[LineText],
    (i, k, from, t): (usize, usize, usize, usize),
    (lo, len): (usize, usize),
    at: &[(usize, usize)],
) -> Option<(Found, usize)> {
    (from..=t).filter(|&j| alphanumerics(&seg[j]) >= 3).find_map(|j| {
        let places = places_of(fd, &seg[j..=j], lo, len);
        // Per place of the head, the later line's first place after it, before the next.
        let mut follows = at.iter().enumerate().filter_map(|(c, &(_, end))| {
            let next = at.get(c + 1).map_or(len, |&(start, _)| start);
            places.iter().find(|&&q| q >= end && q < next).map(|&q| (c, q))
        });
        let (place, pivot) = follows.next()?;
        if follows.next().is_some() {
            return None;
        }
        let (start, end) = at[place];
        fd.find(&seg[i..i + k], start, end).ok().map(|f| (f, pivot))
    })
}

/// The tail of segment lines `from..=to` at indentation shift `delta` against the file:
/// the last of those lines that stands, at that shift, at one place from file line `lo`
/// on (lines standing nowhere at it passed over, as new ones), as (first index, end index,
/// place) and whether it stands at several places (then the nearest, as a tail found as
/// written that no run makes one place: the removal guards of the nearest apply).
fn tail_at_shift(
    fd: &Finder<'_>,
    seg: &[LineText],
    (from, to): (usize, usize),
    lo: usize,
    delta: isize,
) -> Option<((usize, usize, Found), bool)> {
    let trimmed = Finder { tiers: TierSet::only(Tier::Indentation), ..*fd };
    let len = fd.lines.len();
    for j in (from..=to).rev().filter(|&j| !is_blank(&seg[j])) {
        let mut at = places_of(&trimmed, &seg[j..=j], lo, len)
            .into_iter()
            .filter(|&p| Shift::of(seg[j].as_str(), fd.text(p)).delta == delta);
        if let Some(p) = at.next() {
            let several = at.next().is_some();
            return trimmed.find(&seg[j..=j], p, p + 1).ok().map(|f| ((j, j + 1, f), several));
        }
    }
    None
}

/// The places (first lines) where `pat` stands in `lo..hi`, in file order.
fn places_of(fd: &Finder<'_>, pat: &[LineText], lo: usize, hi: usize) -> Vec<usize> {
    match fd.find(pat, lo, hi) {
        Ok(f) => vec![f.start],
        Err(Miss::Ambiguous(_, at, _)) => at.into_iter().map(|(s, _)| s).collect(),
        Err(Miss::NotFound) => Vec::new(),
    }
}

/// Grows a tail `(first index, end index, place)` backwards while the segment's lines
/// before it stand right before it in the file, down to segment index `head_end` and file
/// line `head_found_end`.
fn grow_back(
    fd: &Finder<'_>,
    seg: &[LineText],
    head_end: usize,
    head_found_end: usize,
    (a, b, f): &mut (usize, usize, Found),
) {
    while *a > head_end && f.start > head_found_end {
        match fd.find(&seg[*a - 1..*b], f.start - 1, f.end) {
            Ok(g) => {
                *f = g;
                *a -= 1;
            }
            Err(_) => break,
        }
    }
}

/// The failure of a head that stands at several places (`at`), however far it is grown.
fn head_unclear(seg: &[LineText], h: usize, i: usize, at: &[(usize, usize)]) -> Failure {
    let first = quoted(&seg[h]);
    let what = if i > h {
        format!("the segment starts with new lines ({first}) and the line after them, {},", quoted(&seg[i]))
    } else {
        format!("the segment's first line, {first},")
    };
    unclear(
        format!("{what} stands at {} (with the lines after it): it is unclear where the segment goes", places(at)),
        format!("add the line above {first} to the snippet, as the file has it"),
        at,
    )
}

/// The file lines between the head and the tail, aligned with the segment's.
struct Middle {
    /// Per file line (from the head's end), the segment line that keeps it.
    file_kept: Vec<Option<usize>>,
    removed: usize,
    added: usize,
    /// Whether, between each two lines kept (and at the edges), the file lines removed are
    /// at most 2 more than the segment lines written there.
    gaps_explained: bool,
    /// The first of a run of blank file lines the segment leaves out between two lines it
    /// shows next to each other (nothing written in their place), as a file line.
    dropped_blank: Option<usize>,
}

/// Aligns segment lines `from..to` with file lines `lo..hi`.
fn middle(
    fd: &Finder<'_>,
    seg: &[LineText],
    shift: &Shift,
    (from, to): (usize, usize),
    (lo, hi): (usize, usize),
) -> Middle {
    let hi = hi.max(lo);
    // Compared in the segment's indentation: a line whose indentation changed is changed.
    let old: Vec<LineText> =
        (lo..hi).map(|fi| LineText::from(shift.to_segment(fd.text(fi)).trim_end().to_string())).collect();
    let new: Vec<LineText> = seg[from..to.max(from)].iter().map(|l| LineText::from(l.trim_end())).collect();
    let kept = crate::apply::write::align(&old, &new);
    let mut file_kept = vec![None; old.len()];
    for (j, k) in kept.iter().enumerate() {
        if let Some(o) = k {
            file_kept[*o] = Some(from + j);
        }
    }
    // Per gap between two kept lines (and at the middle's edges), the file lines removed
    // against the segment lines written there; in all, the sums.
    let (mut removed, mut added) = (0, 0);
    let mut gaps_explained = true;
    let (mut o, mut j) = (0, 0);
    loop {
        let (o0, j0) = (o, j);
        while o < old.len() && file_kept[o].is_none() {
            o += 1;
        }
        while j < new.len() && kept[j].is_none() {
            j += 1;
        }
        let gone = old[o0..o].iter().filter(|l| !is_blank(l)).count();
        let written = new[j0..j].iter().filter(|l| !is_blank(l)).count();
        gaps_explained &= gone <= written + 2;
        removed += gone;
        added += written;
        if o >= old.len() || j >= new.len() {
            break;
        }
        debug_assert_eq!(file_kept[o], Some(from + j));
        o += 1;
        j += 1;
    }
    // Runs of blank file lines left out with nothing written between the lines around them.
    let mut dropped_blank = None;
    let mut o = 0;
    while o < old.len() && dropped_blank.is_none() {
        if file_kept[o].is_some() {
            o += 1;
            continue;
        }
        let g0 = o;
        while o < old.len() && file_kept[o].is_none() {
            o += 1;
        }
        let before = g0.checked_sub(1).and_then(|p| file_kept[p]).map_or(from, |j| j + 1);
        let after = file_kept.get(o).copied().flatten().unwrap_or(to.max(from));
        // Blank lines alone left out with nothing in their place, or a blank line at an
        // edge of lines replaced that the lines written there do not have at that edge.
        let written = &seg[before..after.max(before)];
        let alone = old[g0..o].iter().all(|l| is_blank(l)) && written.is_empty();
        if alone || (is_blank(&old[g0]) && written.first().is_none_or(|l| !is_blank(l))) {
            dropped_blank = Some(lo + g0);
        } else if is_blank(&old[o - 1]) && written.last().is_none_or(|l| !is_blank(l)) {
            dropped_blank = Some(lo + o - 1);
        }
    }
    Middle { file_kept, removed, added, gaps_explained, dropped_blank }
}

/// The indentation the segment's lines have against the file's (its head's first line), in
/// columns.
struct Shift {
    delta: isize,
}

impl Shift {
    fn of(seg: &str, file: &str) -> Shift {
        let width = |s: &str| indent_width(s).0 as isize;
        Shift { delta: width(seg) - width(file) }
    }

    /// A file line written in the segment's indentation: widened (with spaces) or narrowed
    /// by the segment's shift; blank lines as they are.
    fn to_segment(&self, line: &str) -> String {
        if self.delta == 0 || is_blank(line) {
            return line.to_string();
        }
        if self.delta > 0 {
            return format!("{}{line}", " ".repeat(self.delta.unsigned_abs()));
        }
        let (width, bytes) = indent_width(line);
        let keep = width.saturating_sub(self.delta.unsigned_abs());
        format!("{}{}", " ".repeat(keep), &line[bytes..])
    }
}

#[cfg(test)]
mod tests {
    use super::{documents, list_item};
    use crate::text::lines::LineText;

    #[test]
    fn doc_comments_are_told_from_other_comments() {
        let lines = |text: &str| text.lines().map(LineText::from).collect::<Vec<_>>();
        assert!(documents(&lines("    /// One.\n    ///\n    /// Two."), "    fn f();"));
        assert!(documents(&lines("/**\n * One.\n */"), "function f() {"));
        assert!(documents(&lines("#: The hook's name.\n#: More."), "name: str"));
        for (news, line) in [
            ("// A comment.", "fn f();"),
            ("//// Not a doc comment.", "fn f();"),
            ("/// One.\n//// Two.", "fn f();"),
            ("/// One.\n", "    fn f();"),
            ("    /// Deeper.", "fn f();"),
            ("/// One.\nfn g();", "fn f();"),
            ("/**\n * Open.", "function f() {"),
        ] {
            assert!(!documents(&lines(news), line), "{news:?} above {line:?}");
        }
    }

    #[test]
    fn list_items_are_told_from_lines_that_start_like_them() {
        for item in ["- a", "  * b", "+ c", "1. d", "12) e", "-", "3.", "\t- [ ] task"] {
            assert!(list_item(item), "{item:?}");
        }
        for line in ["-x", "**bold**", "*(Not accepting)*", "1.5 seconds", "x - y", "", "let a = 1;", "--flag", "1"] {
            assert!(!list_item(line), "{line:?}");
        }
    }
}
