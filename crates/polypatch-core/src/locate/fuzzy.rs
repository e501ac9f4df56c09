//! The fuzzy tier: similarity of a whole window of lines, found without scanning the
//! file quadratically.
//!
//! Candidate windows come from seeds: file lines equal (trimmed) to some pattern line, and
//! file lines near the longest pattern line (length and character-histogram filters
//! before any edit distance). If a window's similarity is at least `t`, at least one of
//! its lines has similarity at least `t` to its pattern line (the score is a weighted
//! mean), so seeding from near lines loses little. Only seeded windows are scored, with an
//! early exit once the distance budget is spent. A window that pairs a blank line with a
//! line of text is not scored at all: that is a misalignment, never a typo.

use std::collections::BinaryHeap;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::ir::plan::AMBIGUITY_MARGIN;
use crate::locate::effort::{Effort, MATCH_CELLS};
use crate::locate::fold::trim;
use crate::locate::index::Norm;
use crate::locate::query::{Idx, Query, View};

/// A pattern line that occurs more often than this is not used as a seed (`}` and the
/// like would seed thousands of windows that the other lines rule out anyway).
const MAX_SEEDS_PER_LINE: usize = 64;

/// Up to this many distinct pattern lines, file lines are compared with each directly
/// rather than looked up by hash.
const FEW_LINES: usize = 8;

/// Up to this many distinct pattern lines, [`rare_hits`] looks each one up in the index by
/// its tag byte (one `memchr` pass over the tags per text) instead of testing every file
/// line's hash against all of them: a 7-line hunk in a 100,000-line file reads 100 KB of
/// tags a few times, not 400 KB of hashes with a table lookup per line.
const FEW_TAGGED: usize = 16;

/// How many of the longest pattern lines are also seeded by near (not equal) lines.
const NEAR_SEED_LINES: usize = 2;

/// The work the closest-region search (failure feedback only) may do.
const FEEDBACK_CELLS: u64 = 20_000_000;

/// How many windows the closest-region search scores, best first by lines shared.
const FEEDBACK_WINDOWS: usize = 32;

/// A budget of edit-distance work, in band cells.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    left: u64,
    /// Set when some comparison was cut short because the budget ran out.
    pub exhausted: bool,
    /// File lines the search's passes over the file looked at, and bytes of the lines its
    /// near seeding read (seeding): counted for the plan's budget ([`Effort`]), not taken
    /// from this one.
    scanned: u64,
}

impl Budget {
    pub(crate) fn new(cells: u64) -> Budget {
        Budget { left: cells, exhausted: false, scanned: 0 }
    }

    /// Takes `cells` from the budget; `false` (and marks it exhausted) when they are not left.
    fn spend(&mut self, cells: u64) -> bool {
        if cells > self.left {
            self.left = 0;
            self.exhausted = true;
            return false;
        }
        self.left -= cells;
        true
    }
}

/// Scores every seeded window; returns those scoring at least `threshold - margin`
/// (anything lower cannot compete with an accepted match). A search that runs out of
/// its work budget returns nothing: a partial search could miss the rival that makes
/// a match ambiguous. The budget is [`MATCH_CELLS`], or what the query's plan has left
/// when that is less ([`Effort`]); a search the plan's budget cuts short is recorded there.
pub(crate) fn candidates(view: &View<'_>, q: &Query<'_>) -> Vec<(usize, f64)> {
    if q.effort.is_some_and(Effort::skips_search) {
        return Vec::new();
    }
    let floor = (q.threshold - AMBIGUITY_MARGIN).max(0.0);
    let cells = q.effort.map_or(MATCH_CELLS, |e| e.left().min(MATCH_CELLS));
    let mut budget = Budget::new(cells);
    let found = if cells == 0 {
        budget.exhausted = true;
        Vec::new()
    } else {
        scored(view, floor, q.changed, &mut budget, true)
    };
    if let Some(effort) = q.effort {
        effort.spend(cells - budget.left + budget.scanned, budget.exhausted && cells < MATCH_CELLS);
    }
    if budget.exhausted { Vec::new() } else { found }
}

/// The region most similar to the pattern (for feedback): its view position and score,
/// and whether the search stopped early because its budget ran out.
///
/// Windows are ranked by how many of the pattern's (rare) lines they hold exactly, a
/// line-hash count over the file, and only the best few are scored. When no window shares
/// a line, the file lines nearest to the pattern's longest lines by length and character
/// histogram seed the windows instead.
pub(crate) fn closest(view: &View<'_>) -> (Option<(usize, f64)>, bool) {
    const FLOOR: f64 = 0.3;
    let m = view.pat.len();
    let n = view.idx.len();
    if m == 0 || n < m {
        return (None, false);
    }
    let pat: Vec<Pattern> = view.pat.iter().map(|(_, p)| Pattern::new(trim(p))).collect();
    let mut budget = Budget::new(FEEDBACK_CELLS);
    let best = |starts: Vec<usize>, budget: &mut Budget| {
        let mut buf = Vec::new();
        let mut best: Option<(usize, f64)> = None;
        for s in starts {
            if let Some(score) = window_score(view, &pat, s, FLOOR, usize::MAX, &mut buf, budget)
                && best.is_none_or(|(b, sb)| score.total_cmp(&sb).then(b.cmp(&s)).is_gt())
            {
                best = Some((s, score));
            }
        }
        best
    };
    let found = best(voted_windows(view, m, n), &mut budget);
    if found.is_some() {
        return (found, budget.exhausted);
    }
    let found = best(near_ranked(view, &pat, m, n), &mut budget);
    (found, budget.exhausted)
}

/// For feedback when no window shares a line with the pattern: the window starts whose
/// file line is nearest to one of the longest pattern lines by the cheap lower bounds
/// alone (length difference, character histograms), best first, at most
/// [`FEEDBACK_WINDOWS`]. Linear in the file's size; no edit distance is computed.
///
/// A file of many lines is read nearest length first ([`near_ranked_by_length`]), so that
/// only lines of about the seed lines' lengths are read at all.
fn near_ranked(view: &View<'_>, pat: &[Pattern], m: usize, n: usize) -> Vec<usize> {
    let counts = view.index.map(|index| index.trimmed_chars(view.lines));
    let lengths = |p: usize| trimmed_chars(view, counts.as_deref(), p);
    let mut ranking = Ranking::new(pat, m);
    if n < BY_LENGTH_LINES || !near_ranked_by_length(view, &mut ranking, n, lengths) {
        near_ranked_in_order(view, &mut ranking, n, lengths);
    }
    ranking.starts()
}

/// From this many lines on, [`near_ranked`] reads lines nearest length first.
const BY_LENGTH_LINES: usize = 2_048;

/// Lines longer than this (in characters, trimmed) make [`near_ranked`] read the file in
/// order: a table of every length up to theirs would cost more than it saves.
const MAX_BUCKETED_LENGTH: usize = 1 << 16;

/// The best window starts by the cheap lower bounds, as [`near_ranked`] ranks them.
struct Ranking<'p> {
    pat: &'p [Pattern],
    m: usize,
    /// The seed lines: the longest pattern lines, by pattern index.
    seeds: Vec<usize>,
    /// The best entries so far, the worst of them on top.
    best: BinaryHeap<Ranked>,
}

impl<'p> Ranking<'p> {
    /// A window start is ranked once per seed line at most, so the first
    /// [`FEEDBACK_WINDOWS`] distinct ones are among the best `FEEDBACK_WINDOWS` times that
    /// many entries: only those are kept.
    const KEEP: usize = FEEDBACK_WINDOWS * NEAR_SEED_LINES;

    fn new(pat: &'p [Pattern], m: usize) -> Ranking<'p> {
        let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
        order.truncate(NEAR_SEED_LINES);
        Ranking { pat, m, seeds: order, best: BinaryHeap::with_capacity(Self::KEEP + 1) }
    }

    /// The rank of a line of `flen` characters against seed line `k` by length alone: a
    /// lower bound of its rank with histograms.
    fn by_length(&self, k: usize, flen: usize) -> f64 {
        let needle = self.pat[k].chars.len();
        flen.abs_diff(needle) as f64 / flen.max(needle).max(1) as f64
    }

    /// Whether an entry of rank `by_length` (or worse) can no longer be among the kept.
    fn below_all(&self, by_length: &Ranked) -> bool {
        self.best.len() == Self::KEEP && self.best.peek().is_some_and(|worst| by_length > worst)
    }

    /// Ranks view line `p` (of `flen` characters) against seed line `k`, the window
    /// starting `k` lines before it; `fhist` holds the line's histogram once read.
    fn offer(&mut self, view: &View<'_>, k: usize, p: usize, flen: usize, fhist: &mut Option<[u16; 64]>) {
        let by_length = Ranked(self.by_length(k, flen), p - k);
        if self.below_all(&by_length) {
            return;
        }
        let Pattern { chars: needle, hist, .. } = &self.pat[k];
        let fhist = fhist.get_or_insert_with(|| text_histogram(trim(view.file(p))));
        let lower = flen.abs_diff(needle.len()).max(histogram_distance(hist, fhist) / 2);
        self.best.push(Ranked(lower as f64 / flen.max(needle.len()).max(1) as f64, p - k));
        if self.best.len() > Self::KEEP {
            self.best.pop();
        }
    }

    /// Whether view line `p` can end a window that seed line `k` stands in.
    fn fits(&self, k: usize, p: usize, n: usize) -> bool {
        p >= k && p - k + self.m <= n
    }

    fn starts(self) -> Vec<usize> {
        first_distinct(self.best.into_sorted_vec().into_iter().map(|Ranked(_, s)| s))
    }
}

/// [`near_ranked`] over every view line in order.
fn near_ranked_in_order(view: &View<'_>, ranking: &mut Ranking<'_>, n: usize, lengths: impl Fn(usize) -> usize) {
    let seeds = ranking.seeds.clone();
    for p in 0..n {
        let mut flen = None;
        let mut fhist = None;
        for &k in &seeds {
            if !ranking.fits(k, p, n) {
                continue;
            }
            let flen = *flen.get_or_insert_with(|| lengths(p));
            ranking.offer(view, k, p, flen, &mut fhist);
        }
    }
}

/// [`near_ranked`] reading, for each seed line, the view lines nearest its length first,
/// and stopping where the length alone ranks every line left below the kept entries
/// (which the reading in order skips one by one). The kept entries are the same: the best
/// of one order. `false` (nothing done) when a line is too long to group lines by length.
fn near_ranked_by_length(
    view: &View<'_>,
    ranking: &mut Ranking<'_>,
    n: usize,
    lengths: impl Fn(usize) -> usize,
) -> bool {
    // Saturated at `u32::MAX`: a length past the bucketed ones sends the file in order.
    let lengths: Vec<u32> = (0..n).map(|p| u32::try_from(lengths(p)).unwrap_or(u32::MAX)).collect();
    let longest = lengths.iter().copied().max().unwrap_or(0) as usize;
    if longest > MAX_BUCKETED_LENGTH {
        return false;
    }
    // The view lines grouped by length, in order within each length (a counting sort).
    let mut from = vec![0u32; longest + 2];
    for &len in &lengths {
        from[len as usize + 1] += 1;
    }
    for len in 0..=longest {
        from[len + 1] += from[len];
    }
    let mut at = from.clone();
    let mut order = vec![0u32; n];
    for (p, &len) in lengths.iter().enumerate() {
        let slot = &mut at[len as usize];
        order[*slot as usize] = p as u32;
        *slot += 1;
    }
    let group = |len: usize| &order[from[len] as usize..from[len + 1] as usize];
    for k in ranking.seeds.clone() {
        let needle = ranking.pat[k].chars.len();
        // Lengths at and below the needle's, and above it: each side ranks worse the
        // farther it goes, so the next length is the better of the two sides' next.
        let (mut down, mut up) = (Some(needle.min(longest)), needle + 1);
        loop {
            let below = down.map(|len| (len, ranking.by_length(k, len)));
            let above = (up <= longest).then(|| (up, ranking.by_length(k, up)));
            let Some((len, rank)) = (match (below, above) {
                (Some(b), Some(a)) => Some(if a.1 < b.1 { a } else { b }),
                (b, a) => b.or(a),
            }) else {
                break;
            };
            // Every line left ranks at least this by length alone: below every kept entry
            // when this is (whatever the start, as it is worse by rank).
            if ranking.best.len() == Ranking::KEEP && ranking.best.peek().is_some_and(|worst| rank > worst.0) {
                break;
            }
            for &p in group(len) {
                let p = p as usize;
                if ranking.fits(k, p, n) {
                    ranking.offer(view, k, p, len, &mut None);
                }
            }
            if len == up {
                up += 1;
            } else {
                down = len.checked_sub(1);
            }
        }
    }
    true
}

/// The first [`FEEDBACK_WINDOWS`] distinct window starts of a ranked list.
fn first_distinct(ranked: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut starts: Vec<usize> = Vec::new();
    for s in ranked {
        if !starts.contains(&s) {
            starts.push(s);
            if starts.len() == FEEDBACK_WINDOWS {
                break;
            }
        }
    }
    starts
}

/// The number of characters of view line `p`, trimmed: from the file's kept counts when
/// there are some.
#[inline]
fn trimmed_chars(view: &View<'_>, counts: Option<&[u32]>, p: usize) -> usize {
    match counts.map(|c| c[view.idx.at(p)]) {
        Some(count) if count != u32::MAX => count as usize,
        _ => trim(view.file(p)).chars().count(),
    }
}

/// Calls `visit` on the view positions of `range` whose trimmed line may be within `cap`
/// characters of `len` long, in order, until it returns `false`: through the index's kept
/// lengths in one tight pass, or on every position without them (the caller checks each
/// length either way).
fn for_near_in_length(
    view: &View<'_>,
    counts: Option<&[u32]>,
    range: std::ops::Range<usize>,
    (len, cap): (usize, usize),
    mut visit: impl FnMut(usize) -> bool,
) {
    let near = len.saturating_sub(cap)..=len.saturating_add(cap);
    // An unknown length (`u32::MAX`) is counted by the caller.
    let may = |c: u32| c == u32::MAX || near.contains(&(c as usize));
    match (counts, &view.idx) {
        (_, _) if range.start >= range.end => {}
        (Some(counts), Idx::Range(start, _)) => {
            for (i, &c) in counts[start + range.start..start + range.end].iter().enumerate() {
                if may(c) && !visit(range.start + i) {
                    return;
                }
            }
        }
        (Some(counts), Idx::List(list, from, _)) => {
            for (i, &f) in list[from + range.start..from + range.end].iter().enumerate() {
                if may(counts[f]) && !visit(range.start + i) {
                    return;
                }
            }
        }
        (None, _) => {
            for p in range {
                if !visit(p) {
                    return;
                }
            }
        }
    }
}

/// A window start ranked by a lower bound of its distance, ordered by the bound, then the
/// start.
#[derive(Debug, Clone, Copy)]
struct Ranked(f64, usize);

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

/// The window starts that hold the most pattern lines exactly (trimmed), best first, at
/// most [`FEEDBACK_WINDOWS`] of them. Lines that occur more than [`MAX_SEEDS_PER_LINE`]
/// times in the file do not count. Linear in the file's size.
fn voted_windows(view: &View<'_>, m: usize, n: usize) -> Vec<usize> {
    let mut votes: HashMap<usize, u32> = HashMap::new();
    for (k, p) in rare_hits(view, m, n) {
        *votes.entry(p - k).or_default() += 1;
    }
    let mut ranked: Vec<(usize, u32)> = votes.into_iter().collect();
    ranked.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.into_iter().take(FEEDBACK_WINDOWS).map(|(s, _)| s).collect()
}

/// The most edits a changed line may differ by: one typo, one more per 40 characters;
/// none in a line under 5 characters (one edit there makes another line: `l0`, `l1`).
pub(crate) fn typo_cap(len: usize) -> usize {
    if len < 5 { 0 } else { 1 + len / 40 }
}

/// The view's pattern lines, the ones the edit changes (`changed`, by pattern index)
/// capped at a typo.
fn capped_patterns(view: &View<'_>, changed: &[bool]) -> Vec<Pattern> {
    let capped = |i: usize, p: &str| {
        let mut pattern = Pattern::new(trim(p));
        if changed.get(i).copied().unwrap_or(false) {
            pattern.cap = Some(typo_cap(pattern.chars.len()));
        }
        pattern
    };
    view.pat.iter().map(|&(i, p)| capped(i, p)).collect()
}

/// `by_caps`: seed near windows only where the changed lines can stand ([`capped_starts`]);
/// `false` only to check in tests that this finds the same.
fn scored(view: &View<'_>, floor: f64, changed: &[bool], budget: &mut Budget, by_caps: bool) -> Vec<(usize, f64)> {
    let m = view.pat.len();
    let n = view.idx.len();
    if m == 0 || n < m {
        return Vec::new();
    }
    let pat = capped_patterns(view, changed);
    // Bytes bound characters from above: with prefix sums of the file lines' byte lengths,
    // a window's total length is bounded in O(1) (built only when many windows are seeded).
    let pat_len: usize = pat.iter().map(|p| p.chars.len()).sum();
    let mut prefix: Vec<usize> = Vec::new();
    let mut score_all = |starts: HashSet<usize>, budget: &mut Budget| {
        let mut starts: Vec<usize> = starts.into_iter().collect();
        starts.sort_unstable();
        if starts.len() > 64 && prefix.is_empty() {
            prefix.push(0);
            for p in 0..n {
                prefix.push(prefix[p] + view.file(p).len());
            }
        }
        let upper = |s: usize| prefix.get(s + m).map_or(usize::MAX, |end| pat_len + end - prefix[s]);
        let mut buf = Vec::new();
        starts
            .into_iter()
            .filter_map(|s| Some((s, window_score(view, &pat, s, floor, upper(s), &mut buf, budget)?)))
            .collect::<Vec<_>>()
    };
    // Windows sharing an exact line with the pattern first; only when none of them is
    // close enough, windows seeded by near lines (a costlier scan). A window that shares
    // no line with the pattern and still ties with the best one would need an error in
    // every line; such a tie goes unseen, and the match is still one the content supports.
    // Each seeding reads the view's lines (tags, hashes or lengths) once, about.
    budget.scanned += n as u64;
    let found = score_all(exact_seeds(view, m, n), budget);
    if !found.is_empty() {
        return found;
    }
    budget.scanned += n as u64;
    let near = near_seeds(view, &pat, floor, budget, by_caps);
    score_all(near, budget)
}

/// Window starts where some rare pattern line occurs exactly (trimmed).
fn exact_seeds(view: &View<'_>, m: usize, n: usize) -> HashSet<usize> {
    rare_hits(view, m, n).into_iter().map(|(k, p)| p - k).collect()
}

/// Every (pattern line, file line) pair of equal trimmed text that can start a window,
/// for the pattern lines (not blank) that occur at most [`MAX_SEEDS_PER_LINE`] times in
/// the file. One pass over the file with a hash lookup per line: at most
/// `MAX_SEEDS_PER_LINE + 1` positions are kept per distinct pattern line.
fn rare_hits(view: &View<'_>, m: usize, n: usize) -> Vec<(usize, usize)> {
    let mut lines: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (_, p)) in view.pat.iter().enumerate() {
        let t = trim(p);
        if !t.is_empty() {
            lines.entry(t).or_default().push(k);
        }
    }
    let texts: Vec<&str> = lines.keys().copied().collect();
    let occurrences = match view.index {
        Some(_) if texts.len() <= FEW_TAGGED => by_tags(view, &texts),
        Some(_) => by_hashes(view, &texts),
        None => by_text(view, &texts),
    };
    let mut hits = Vec::new();
    for (line, at) in &occurrences {
        if at.len() > MAX_SEEDS_PER_LINE {
            continue;
        }
        for &p in at {
            for &k in &lines[line] {
                if p >= k && p - k + m <= n {
                    hits.push((k, p));
                }
            }
        }
    }
    hits
}

/// The view positions where each of `texts` (trimmed, distinct, not empty) stands, trimmed,
/// in order: the first `MAX_SEEDS_PER_LINE + 1` of them (one more than a seed may have).
/// Three ways, which give the same: [`by_tags`] and [`by_hashes`] through the view's
/// index, [`by_text`] without one.
type Occurrences<'a> = HashMap<&'a str, Vec<usize>>;

/// Each text through the tags of the trimmed lines' hashes: the tag's places in the file
/// lines the view spans, then the hash's other bits, the view, the text. For a few texts.
fn by_tags<'a>(view: &View<'_>, texts: &[&'a str]) -> Occurrences<'a> {
    let index = view.index.expect("an index");
    let table = index.get(Norm::Trimmed, view.lines);
    let (lo, hi) = view.idx.file_span();
    let mut occurrences = HashMap::new();
    let mut buf = String::new();
    for &text in texts {
        let hash = Norm::Trimmed.hash(text, &mut buf);
        let mut at = Vec::new();
        for f in table.positions(lo..hi, hash) {
            let Some(p) = view.idx.position(f) else { continue };
            if trim(view.file(p)) == text {
                at.push(p);
                if at.len() > MAX_SEEDS_PER_LINE {
                    break; // too frequent to seed
                }
            }
        }
        if !at.is_empty() {
            occurrences.insert(text, at);
        }
    }
    occurrences
}

/// Every line of the view through the trimmed lines' hashes: a bit test per line, the
/// text compared on a hit. For many texts.
fn by_hashes<'a>(view: &View<'_>, texts: &[&'a str]) -> Occurrences<'a> {
    let index = view.index.expect("an index");
    let table = index.get(Norm::Trimmed, view.lines);
    let file = &table.hashes;
    let mut wanted = HashFilter::new(texts.iter().copied());
    // Occurrences by the text's place in the filter; a text seen too often is not
    // compared again.
    let mut seen: Vec<Vec<usize>> = vec![Vec::new(); wanted.sorted.len()];
    let region: Option<&[u32]> = match view.idx {
        Idx::Range(start, len) => Some(&file[start..start + len]),
        Idx::List(..) => None,
    };
    for p in 0..view.idx.len() {
        let h = region.map_or_else(|| file[view.idx.at(p)], |r| r[p]);
        if !wanted.may_hold(h) {
            continue;
        }
        let f = trim(view.file(p));
        let from = wanted.sorted.partition_point(|(k, _)| *k < h);
        let same_hash = wanted.sorted[from..].iter().take_while(|(k, _)| *k == h).count();
        if let Some(i) =
            (from..from + same_hash).find(|&i| seen[i].len() <= MAX_SEEDS_PER_LINE && wanted.sorted[i].1 == f)
        {
            seen[i].push(p);
            if seen[i].len() > MAX_SEEDS_PER_LINE {
                wanted.drop_text(i); // too frequent to seed: not compared again
            }
        }
    }
    seen.into_iter().enumerate().filter(|(_, at)| !at.is_empty()).map(|(i, at)| (wanted.sorted[i].1, at)).collect()
}

/// Every line of the view by its text: a few texts compared directly (cheaper than
/// hashing every file line, and still linear in the file), more through a hash map.
fn by_text<'a>(view: &View<'_>, texts: &[&'a str]) -> Occurrences<'a> {
    let mut occurrences: Occurrences<'a> = HashMap::new();
    let lookup: HashSet<&'a str> =
        if texts.len() > FEW_LINES { texts.iter().copied().collect() } else { HashSet::new() };
    for p in 0..view.idx.len() {
        let f = trim(view.file(p));
        let key = if lookup.is_empty() { texts.iter().copied().find(|&t| t == f) } else { lookup.get(f).copied() };
        if let Some(key) = key {
            let list = occurrences.entry(key).or_default();
            if list.len() <= MAX_SEEDS_PER_LINE {
                list.push(p);
            }
        }
    }
    occurrences
}

/// A few texts by their trimmed-line hashes: a count per hash value's low bits rules out
/// most lines with one test, the sorted hashes find the texts a hit may be. A text no
/// longer wanted ([`HashFilter::drop_text`]) stops counting, so its lines are not read.
struct HashFilter<'a> {
    live: Vec<u16>,
    /// The texts by the bits of their hashes a [`crate::locate::index::Table`] keeps.
    sorted: Vec<(u32, &'a str)>,
}

impl<'a> HashFilter<'a> {
    const BUCKETS: u32 = 1 << 15;

    fn new(texts: impl Iterator<Item = &'a str>) -> HashFilter<'a> {
        let mut buf = String::new();
        let mut sorted: Vec<(u32, &str)> =
            texts.map(|t| (crate::locate::index::low(Norm::Trimmed.hash(t, &mut buf)), t)).collect();
        sorted.sort_unstable();
        let mut live = vec![0u16; Self::BUCKETS as usize];
        for (h, _) in &sorted {
            let count = &mut live[(h % Self::BUCKETS) as usize];
            *count = count.saturating_add(1);
        }
        HashFilter { live, sorted }
    }

    #[inline]
    fn may_hold(&self, h: u32) -> bool {
        self.live[(h % Self::BUCKETS) as usize] != 0
    }

    /// Text `i` (of `sorted`) is no longer looked for. A full count stays (it may hold
    /// more texts than it tells).
    fn drop_text(&mut self, i: usize) {
        let count = &mut self.live[(self.sorted[i].0 % Self::BUCKETS) as usize];
        if *count != u16::MAX {
            *count -= 1;
        }
    }
}

/// Window starts where one of the longest pattern lines is nearly equal to a file line.
fn near_seeds(view: &View<'_>, pat: &[Pattern], floor: f64, budget: &mut Budget, by_caps: bool) -> HashSet<usize> {
    let m = pat.len();
    let n = view.idx.len();
    let mut starts = HashSet::new();
    let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
    order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
    let mut buf = Vec::new();
    // Only windows where the changed lines can stand are worth seeding: scoring refuses
    // every other one.
    let counts = view.index.map(|index| index.trimmed_chars(view.lines));
    let capped = if by_caps { capped_starts(view, pat, budget) } else { None };
    // ... and whose lines' lengths alone leave them a chance (a short changed line such as
    // `}` stands in thousands of places).
    let capped = capped.map(|starts| {
        starts.into_iter().filter(|&s| lengths_allow(view, pat, s, floor, counts.as_deref())).collect::<Vec<_>>()
    });
    for &k in order.iter().take(NEAR_SEED_LINES) {
        let Pattern { chars: needle, hist, .. } = &pat[k];
        let places: Box<dyn Iterator<Item = usize>> = match &capped {
            Some(starts) => Box::new(starts.iter().map(|s| s + k)),
            None => Box::new(k..(n + k + 1).saturating_sub(m)),
        };
        for p in places {
            // A window another seed line already seeded needs no second reason.
            if starts.contains(&(p - k)) {
                continue;
            }
            let flen = trimmed_chars(view, counts.as_deref(), p);
            let longest = flen.max(needle.len());
            let limit = ((1.0 - floor) * longest as f64).floor() as usize;
            if flen.abs_diff(needle.len()) > limit {
                continue;
            }
            // Each edit changes the histograms' L1 distance by at most 2.
            let f = trim(view.file(p));
            budget.scanned += f.len() as u64;
            if histogram_distance(hist, &text_histogram(f)) / 2 > limit {
                continue;
            }
            buf.clear();
            buf.extend(f.chars());
            if bounded_distance(needle, &buf, limit, budget).is_some() {
                starts.insert(p - k);
            }
            if budget.exhausted {
                return starts;
            }
        }
    }
    starts
}

/// Whether the window at `s` can score `floor` by its lines' lengths alone, as
/// [`window_score`] tests them first: no blank line against a line with text, no changed
/// line longer or shorter than its cap allows, and length differences within the
/// distance the floor allows. A window refused here is refused there.
fn lengths_allow(view: &View<'_>, pat: &[Pattern], s: usize, floor: f64, counts: Option<&[u32]>) -> bool {
    let mut total = 0usize;
    let mut bound = 0usize;
    for (k, p) in pat.iter().enumerate() {
        let flen = trimmed_chars(view, counts, s + k);
        if (flen == 0) != p.chars.is_empty() {
            return false;
        }
        let differ = flen.abs_diff(p.chars.len());
        if p.cap.is_some_and(|cap| differ > cap) {
            return false;
        }
        total += flen.max(p.chars.len());
        bound += differ;
    }
    bound <= ((1.0 - floor) * total as f64).floor() as usize
}

/// The window starts where the longest changed pattern line (a line the edit changes, which
/// may differ by its typo cap only) stands within its cap, in order; `None` when the pattern
/// has no such line with text. [`window_score`] refuses every other window, so seeding only
/// these finds the same matches: a file without a line near the changed one (the new side
/// of an edit not yet applied, most often) costs one pass of length tests, not an edit
/// distance per similar line.
fn capped_starts(view: &View<'_>, pat: &[Pattern], budget: &mut Budget) -> Option<Vec<usize>> {
    let m = pat.len();
    let n = view.idx.len();
    let (k, cap) = (0..m)
        .filter_map(|k| Some((k, pat[k].cap?)))
        .filter(|&(k, _)| !pat[k].chars.is_empty())
        .max_by_key(|&(k, _)| (pat[k].chars.len(), std::cmp::Reverse(k)))?;
    let Pattern { chars: needle, hist, text, .. } = &pat[k];
    let mut starts = Vec::new();
    let mut buf = Vec::new();
    let counts = view.index.map(|index| index.trimmed_chars(view.lines));
    let range = k..(n + k + 1).saturating_sub(m);
    for_near_in_length(view, counts.as_deref(), range, (needle.len(), cap), |p| {
        if trimmed_chars(view, counts.as_deref(), p).abs_diff(needle.len()) > cap {
            return true;
        }
        let f = trim(view.file(p));
        budget.scanned += f.len() as u64;
        // An equal line (most of them, for a short changed line such as `}`) is within any
        // cap; with a cap of 0 nothing else is.
        if f == text.as_str() {
            starts.push(p - k);
            return true;
        }
        if cap == 0 || histogram_distance(hist, &text_histogram(f)) / 2 > cap {
            return true;
        }
        buf.clear();
        buf.extend(f.chars());
        if bounded_distance(needle, &buf, cap, budget).is_some() {
            starts.push(p - k);
        }
        !budget.exhausted
    });
    Some(starts)
}

/// Similarity of the window at `s`: 1 - total distance / total length, over trimmed
/// lines; `None` when below `floor`. Cheap lower bounds (length difference, character
/// histograms) reject most windows before any edit distance is computed.
///
/// `upper` bounds the window's total length from above (`usize::MAX`: unknown): with it,
/// a window is given up as soon as its lower bounds alone exceed what even that length
/// would allow, so many seeded windows that differ everywhere cost a few lines each.
// The arguments are one scoring pass's settings; a struct for them would be used once.
#[allow(clippy::too_many_arguments)]
fn window_score(
    view: &View<'_>,
    pat: &[Pattern],
    s: usize,
    floor: f64,
    upper: usize,
    buf: &mut Vec<char>,
    budget: &mut Budget,
) -> Option<f64> {
    let give_up = ((1.0 - floor) * upper as f64).floor() as usize;
    let mut total = 0usize;
    let mut differing = Vec::new();
    let mut bound = 0usize;
    for (k, Pattern { chars: p, hist, .. }) in pat.iter().enumerate() {
        let f = trim(view.file(s + k));
        // A blank line against a line with text is a misalignment, not a typo (blank lines
        // the patch dropped or added are the blank-lines tier's business).
        if f.is_empty() != p.is_empty() {
            return None;
        }
        let flen = f.chars().count();
        total += flen.max(p.len());
        // Reading the lines is work too: many seeded windows of a long pattern, each
        // read line by line, would cost the pattern's length squared.
        if !budget.spend(flen.max(p.len()) as u64 + 1) {
            return None;
        }
        if flen == p.len() && f.chars().eq(p.iter().copied()) {
            continue;
        }
        let lower = flen.abs_diff(p.len()).max(histogram_distance(hist, &text_histogram(f)) / 2);
        bound += lower;
        if bound > give_up {
            return None;
        }
        differing.push(k);
    }
    if total == 0 {
        return Some(1.0);
    }
    let allowed = ((1.0 - floor) * total as f64).floor() as usize;
    if bound > allowed {
        return None;
    }
    let mut spent = 0usize;
    for k in differing {
        buf.clear();
        buf.extend(trim(view.file(s + k)).chars());
        let limit = pat[k].cap.map_or(allowed - spent, |cap| cap.min(allowed - spent));
        spent += bounded_distance(&pat[k].chars, buf, limit, budget)?;
    }
    Some(1.0 - spent as f64 / total as f64)
}

/// The optimal-string-alignment distance of `a` and `b` (Damerau–Levenshtein where no
/// substring is edited twice: insertions, deletions, substitutions and transpositions of
/// two adjacent characters) when it is at most `limit`; `None` when it is larger or when
/// `budget` runs out first.
///
/// Never builds the full table: the common prefix and suffix are dropped, then the
/// distance is computed in a band of diagonals around the main one (a cell off the band
/// costs more than the band's width), widening the band from 1 to `limit` by doubling.
/// Time is O(n·d) for a distance d, memory O(n) — a one-character change in a
/// 60,000-character line costs a few microseconds, where the full table took 28 GB.
pub(crate) fn bounded_distance(a: &[char], b: &[char], limit: usize, budget: &mut Budget) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    if a.is_empty() || b.is_empty() {
        return Some(a.len().max(b.len()));
    }
    // A line of up to 64 characters is one word of bit vectors: its distance costs a step
    // per character of the other, whatever it is. The budget is charged as the widening
    // bands would have been, so it runs out where it did.
    let exact = (a.len() <= 64).then(|| osa_distance_bits(a, b));
    let mut rows = Rows::default();
    let mut band = a.len().abs_diff(b.len()).max(1);
    loop {
        let band_now = band.min(limit);
        let cells = (a.len() as u64 + 1).saturating_mul(2 * band_now as u64 + 1);
        if !budget.spend(cells) {
            return None;
        }
        let within = match exact {
            Some(d) => (d <= band_now).then_some(d),
            None => banded(a, b, band_now, &mut rows),
        };
        if let Some(d) = within {
            return Some(d);
        }
        if band_now >= limit {
            return None;
        }
        band = band_now.saturating_mul(2);
    }
}

/// Three rows of the distance table, reused across band widths.
#[derive(Default)]
struct Rows {
    before: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

/// The optimal-string-alignment distance of `a` and `b` if it is at most `k`, computing
/// only the cells within `k` diagonals of the main one (every other cell is more than `k`).
fn banded(a: &[char], b: &[char], k: usize, rows: &mut Rows) -> Option<usize> {
    // `a` indexes rows, `b` columns.
    let (height, width) = (a.len(), b.len());
    if height.abs_diff(width) > k {
        return None;
    }
    let over = k + 1;
    for row in [&mut rows.before, &mut rows.prev, &mut rows.cur] {
        row.clear();
        row.resize(width + 1, over);
    }
    for (j, cell) in rows.prev.iter_mut().enumerate().take(k.min(width) + 1) {
        *cell = j;
    }
    for i in 1..=height {
        let lo = i.saturating_sub(k).max(1);
        let hi = (i + k).min(width);
        rows.cur[lo - 1] = if lo == 1 && i <= k { i } else { over };
        let mut row_min = rows.cur[lo - 1];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut cell = (rows.prev[j - 1] + cost).min(rows.prev[j] + 1).min(rows.cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cell = cell.min(rows.before[j - 2] + 1);
            }
            let cell = cell.min(over);
            rows.cur[j] = cell;
            row_min = row_min.min(cell);
        }
        if hi < width {
            rows.cur[hi + 1] = over;
        }
        // Every alignment passes through each row (a transposition skips one, but the
        // cell it skips costs no more), so a row all over `k` ends the search.
        if row_min > k {
            return None;
        }
        // The oldest row becomes the next current one; its cells left of the next band
        // are never read, and the ones in it are all written.
        std::mem::swap(&mut rows.before, &mut rows.prev);
        std::mem::swap(&mut rows.prev, &mut rows.cur);
    }
    let dist = rows.prev[width];
    (dist <= k).then_some(dist)
}

/// A trimmed pattern line as characters, with its character histogram (computed once per
/// query, used for every window).
struct Pattern {
    chars: Vec<char>,
    hist: [u16; 64],
    /// A line the edit changes may differ by this many edits at most.
    cap: Option<usize>,
    /// The line.
    text: String,
}

impl Pattern {
    fn new(line: &str) -> Pattern {
        let chars: Vec<char> = line.chars().collect();
        let hist = histogram(chars.iter().copied());
        Pattern { chars, hist, cap: None, text: line.to_string() }
    }
}

/// [`histogram`] of a text's characters; an ASCII text's bytes are its characters.
fn text_histogram(text: &str) -> [u16; 64] {
    if text.is_ascii() {
        let mut h = [0u16; 64];
        for &b in text.as_bytes() {
            let slot = usize::from(b) % 64;
            h[slot] = h[slot].saturating_add(1);
        }
        h
    } else {
        histogram(text.chars())
    }
}

fn histogram(chars: impl Iterator<Item = char>) -> [u16; 64] {
    let mut h = [0u16; 64];
    for c in chars {
        let slot = (c as u32 as usize) % 64;
        h[slot] = h[slot].saturating_add(1);
    }
    h
}

fn histogram_distance(a: &[u16; 64], b: &[u16; 64]) -> usize {
    a.iter().zip(b).map(|(x, y)| usize::from(x.abs_diff(*y))).sum()
}

/// Similarity of two texts (for feedback): 1 - distance / longer length, when the
/// distance can be had within the feedback budget.
pub(crate) fn similarity(a: &str, b: &str) -> Option<f64> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let longest = a.len().max(b.len());
    if longest == 0 {
        return Some(1.0);
    }
    // 64 cells of the table per step: a text of the size a failure report shows costs a
    // few thousand steps; beyond the feedback budget, no answer rather than a slow one.
    if a.len().div_ceil(64).saturating_mul(b.len()) as u64 > FEEDBACK_CELLS / 16 {
        return None;
    }
    let d = osa_distance_bits(&a, &b);
    Some(1.0 - d as f64 / longest as f64)
}

/// The place of an ASCII character in a table of the 128.
fn ascii_index(c: char) -> Option<usize> {
    u8::try_from(c).ok().filter(u8::is_ascii).map(usize::from)
}

/// The optimal-string-alignment distance of `a` and `b` (as [`bounded_distance`] computes
/// it, without a limit), a column of the table at a time in bit vectors of 64 rows: the
/// vertical and horizontal differences of neighbouring cells (Myers' encoding), with
/// Hyyrö's term for a transposition of two adjacent characters. Carries of the addition
/// and of the shifts run from each word of rows to the next.
pub(crate) fn osa_distance_bits(a: &[char], b: &[char]) -> usize {
    let m = a.len();
    if m == 0 {
        return b.len();
    }
    let words = m.div_ceil(64);
    // The rows where each character of `a` stands, per word.
    let mut ascii = vec![0u64; 128 * words];
    let mut other: HashMap<char, Vec<u64>> = HashMap::new();
    for (i, &c) in a.iter().enumerate() {
        let bits = match ascii_index(c) {
            Some(k) => &mut ascii[k * words..(k + 1) * words],
            None => other.entry(c).or_insert_with(|| vec![0; words]).as_mut_slice(),
        };
        bits[i / 64] |= 1 << (i % 64);
    }
    let none = vec![0u64; words];
    let rows_of = |c: char| -> &[u64] {
        match ascii_index(c) {
            Some(k) => &ascii[k * words..(k + 1) * words],
            None => other.get(&c).map_or(none.as_slice(), Vec::as_slice),
        }
    };
    let mut vp = vec![u64::MAX; words];
    let mut vn = vec![0u64; words];
    let mut d0 = vec![0u64; words];
    let mut prev: &[u64] = &none;
    let last = 1u64 << ((m - 1) % 64);
    let mut distance = m;
    for &ch in b {
        let pm = rows_of(ch);
        // Row 0 of the table is 0, 1, 2, …: each column starts one higher.
        let (mut add_carry, mut hp_carry, mut hn_carry, mut tr_carry) = (0u64, 1u64, 0u64, 0u64);
        for w in 0..words {
            let (here, v_p, v_n) = (pm[w], vp[w], vn[w]);
            let t = !d0[w] & here;
            let tr = ((t << 1) | tr_carry) & prev[w];
            tr_carry = t >> 63;
            let (sum, c1) = (here & v_p).overflowing_add(v_p);
            let (sum, c2) = sum.overflowing_add(add_carry);
            add_carry = u64::from(c1 || c2);
            let zero = ((sum ^ v_p) | here | v_n) | tr;
            let hp = v_n | !(zero | v_p);
            let hn = zero & v_p;
            if w == words - 1 {
                if hp & last != 0 {
                    distance += 1;
                } else if hn & last != 0 {
                    distance -= 1;
                }
            }
            let hp_shifted = (hp << 1) | hp_carry;
            let hn_shifted = (hn << 1) | hn_carry;
            hp_carry = hp >> 63;
            hn_carry = hn >> 63;
            vp[w] = hn_shifted | !(zero | hp_shifted);
            vn[w] = zero & hp_shifted;
            d0[w] = zero;
        }
        prev = pm;
    }
    distance
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::locate;
    use crate::ir::plan::Occurrence;
    use crate::ir::tier::{Tier, TierSet};
    use crate::locate::query::{Miss, test_lines as lines, test_query};
    use crate::text::lines::{LineText, TextFile};

    fn query(pat: &[LineText], n: usize) -> Query<'_> {
        test_query(pat, n, Occurrence::First)
    }

    /// The optimal-string-alignment distance by the full table: the reference the banded
    /// computation is checked against.
    fn full_table(a: &[char], b: &[char]) -> usize {
        let mut table = vec![vec![0usize; b.len() + 1]; a.len() + 1];
        for (i, row) in table.iter_mut().enumerate() {
            row[0] = i;
        }
        for (j, cell) in table[0].iter_mut().enumerate() {
            *cell = j;
        }
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (table[i - 1][j - 1] + cost).min(table[i - 1][j] + 1).min(table[i][j - 1] + 1);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(table[i - 2][j - 2] + 1);
                }
                table[i][j] = best;
            }
        }
        table[a.len()][b.len()]
    }

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn a_texts_histogram_counts_its_characters_ascii_or_not() {
        for text in ["", "let x = 1;", "\u{7f}~ \t", "naïve “quotes” — ok", "\u{40}\u{80}\u{c0}", "ÿ"] {
            assert_eq!(text_histogram(text), histogram(text.chars()), "{text:?}");
        }
    }

    fn distance(a: &str, b: &str, limit: usize) -> Option<usize> {
        bounded_distance(&chars(a), &chars(b), limit, &mut Budget::new(u64::MAX))
    }

    /// [`near_ranked`] as it was first written: every (line, seed) pair ranked, all sorted.
    fn near_ranked_by_sorting_all(view: &View<'_>, pat: &[Pattern], m: usize, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..m).filter(|&k| !pat[k].chars.is_empty()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(pat[k].chars.len()));
        let mut ranked: Vec<(f64, usize)> = Vec::new();
        for &k in order.iter().take(NEAR_SEED_LINES) {
            let Pattern { chars: needle, hist, .. } = &pat[k];
            for p in k..(n + k + 1).saturating_sub(m) {
                let f = trim(view.file(p));
                let flen = f.chars().count();
                let lower = flen.abs_diff(needle.len()).max(histogram_distance(hist, &histogram(f.chars())) / 2);
                ranked.push((lower as f64 / flen.max(needle.len()).max(1) as f64, p - k));
            }
        }
        ranked.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        first_distinct(ranked.into_iter().map(|(_, s)| s))
    }

    /// [`near_ranked_by_length`], whatever the number of lines.
    fn ranked_by_length(view: &View<'_>, patterns: &[Pattern]) -> Vec<usize> {
        let counts = view.index.map(|index| index.trimmed_chars(view.lines));
        let mut ranking = Ranking::new(patterns, view.pat.len());
        let lengths = |p: usize| trimmed_chars(view, counts.as_deref(), p);
        assert!(near_ranked_by_length(view, &mut ranking, view.idx.len(), lengths));
        ranking.starts()
    }

    #[test]
    fn a_big_file_is_ranked_by_length_as_sorting_every_pair_ranks_it() {
        // Lines of many lengths, blank ones among them, and patterns shorter, longer and
        // as long as any line of the file.
        let file: String = (0..3 * BY_LENGTH_LINES)
            .map(|i| match i % 7 {
                0 => String::new(),
                r => format!("{}call_{}({});\n", " ".repeat(r), i % 13, "x".repeat(i * 31 % 97)),
            })
            .map(|l| if l.is_empty() { "\n".to_string() } else { l })
            .collect();
        let lines = TextFile::parse(&file).lines;
        for pat in [
            vec!["call_3(xxxxx);".to_string(), String::new(), "  call_9();".to_string()],
            vec!["no such line at all, and longer than every line of the file by a good margin: ".repeat(3)],
            vec!["x".to_string(), "y".to_string()],
        ] {
            let pat: Vec<LineText> = pat.iter().map(|l| LineText::from(l.as_str())).collect();
            let hashes = crate::locate::index::LineHashes::default();
            let q = Query { index: Some(&hashes), ..query(&pat, lines.len()) };
            let view = View::new(&lines, &q);
            let patterns: Vec<Pattern> = view.pat.iter().map(|(_, p)| Pattern::new(trim(p))).collect();
            let (m, n) = (view.pat.len(), view.idx.len());
            let want = near_ranked_by_sorting_all(&view, &patterns, m, n);
            assert_eq!(want.len(), FEEDBACK_WINDOWS);
            assert_eq!(near_ranked(&view, &patterns, m, n), want, "{pat:?}");
        }
    }

    /// A file of lines from a small vocabulary, some with one character changed, and a
    /// pattern taken from it (or not) with a typo of its own and some lines marked changed.
    fn similar_lines() -> impl proptest::strategy::Strategy<Value = (Vec<String>, Vec<String>, Vec<bool>)> {
        use proptest::prelude::*;
        const WORDS: [&str; 6] = ["let total = 0;", "total += x;", "}", "", "return total;", "for x in xs {"];
        let line = (0..WORDS.len(), 0usize..30, proptest::bool::weighted(0.3)).prop_map(|(w, at, typo)| {
            let mut l = WORDS[w].to_string();
            if typo && !l.is_empty() {
                // A changed character, or one more character (the length tests' edge).
                let with = if at % 2 == 0 { "q" } else { "qx" };
                let at = at % l.len();
                l.replace_range(at..=at, with);
            }
            l
        });
        (proptest::collection::vec(line, 3..60), 0usize..60, 1usize..6, proptest::collection::vec(any::<bool>(), 6))
            .prop_map(|(file, at, len, changed)| {
                let len = len.min(file.len());
                let at = at % (file.len() - len + 1);
                let mut pat = file[at..at + len].to_vec();
                if let Some(l) = pat.iter_mut().find(|l| l.len() > 3) {
                    l.insert(1, 'z');
                }
                (file, pat, changed[..len].to_vec())
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Seeding near windows only where the changed lines can stand scores the same
        /// windows the same as seeding every near window; the ranking of the closest
        /// regions keeps the best few as sorting every pair does.
        #[test]
        fn the_shortcuts_find_what_the_full_searches_find((file, pat, changed) in similar_lines()) {
            let text: String = file.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
            let pat: Vec<LineText> = pat.into_iter().map(LineText::from).collect();
            let lines = TextFile::parse(&text).lines;
            // The shortcuts through the file's kept hashes and lengths, against the full
            // searches without them; over the region's lines, and over its lines that are
            // not blank (a listed view).
            let hashes = crate::locate::index::LineHashes::default();
            let q = Query { changed: &changed, index: Some(&hashes), ..query(&pat, lines.len()) };
            let plain_q = Query { index: None, ..q.clone() };
            let listed = |q| View::with_blank(&lines, q, true);
            let (lview, lplain) = (listed(&q), listed(&plain_q));
            let starts = |view: &View<'_>| {
                capped_starts(view, &capped_patterns(view, &changed), &mut Budget::new(u64::MAX))
            };
            proptest::prop_assert_eq!(starts(&lview), starts(&lplain));
            let view = View::new(&lines, &q);
            let plain = View::new(&lines, &plain_q);
            for floor in [0.5, 0.7, 0.9] {
                let sorted = |view: &View<'_>, by_caps| {
                    let mut found = scored(view, floor, &changed, &mut Budget::new(u64::MAX), by_caps);
                    found.sort_by_key(|f| f.0);
                    found
                };
                proptest::prop_assert_eq!(sorted(&view, true), sorted(&plain, false));
            }
            let patterns: Vec<Pattern> = view.pat.iter().map(|(_, p)| Pattern::new(trim(p))).collect();
            let (m, n) = (view.pat.len(), view.idx.len());
            // The changed lines' places, through the kept lengths and by counting.
            let capped = capped_patterns(&view, &changed);
            let starts = |view: &View<'_>| capped_starts(view, &capped, &mut Budget::new(u64::MAX));
            proptest::prop_assert_eq!(starts(&view), starts(&plain));
            if m > 0 && n >= m {
                let want = near_ranked_by_sorting_all(&plain, &patterns, m, n);
                proptest::prop_assert_eq!(&near_ranked(&view, &patterns, m, n), &want);
                proptest::prop_assert_eq!(&ranked_by_length(&view, &patterns), &want);
            }
        }

        /// The three ways to find where pattern lines stand give the same places: through
        /// the tags, through every line's hash, by the text. Lines from a small set (some
        /// stand more often than a seed may, some are blank or differ by whitespace only),
        /// a region of the file, blank lines skipped or not, and more texts than the tags
        /// are used for.
        #[test]
        fn occurrences_by_tags_by_hashes_and_by_text_agree(
            file in proptest::collection::vec(
                proptest::sample::select(vec!["a", "  a", "b\t", "", "   ", "c c", "d", "é"]), 0..300),
            extra in proptest::collection::vec("[a-e ]{0,3}", 0..30),
            lo in 0usize..300,
            len in 0usize..300,
            skip_blank: bool,
        ) {
            let text: String = file.iter().flat_map(|l| [*l, "\n"]).collect();
            let lines = TextFile::parse(&text).lines;
            let lo = lo.min(lines.len());
            let hi = (lo + len).min(lines.len());
            let mut texts: Vec<String> = ["a", "b", "c c", "d", "é", "x"].iter().map(ToString::to_string).collect();
            texts.extend(extra.iter().map(|t| trim(t).to_string()).filter(|t| !t.is_empty()));
            texts.sort();
            texts.dedup();
            let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
            let pat = crate::locate::query::test_lines(&["a"]);
            let hashes = crate::locate::index::LineHashes::default();
            let q = Query { index: Some(&hashes), lo, hi, ignore_blank: skip_blank, ..query(&pat, lines.len()) };
            let view = View::with_blank(&lines, &q, skip_blank);
            let plain_q = Query { index: None, ..q.clone() };
            let plain = View::with_blank(&lines, &plain_q, skip_blank);
            let want = by_text(&plain, &texts);
            proptest::prop_assert!(want.values().all(|at| at.len() <= MAX_SEEDS_PER_LINE + 1));
            proptest::prop_assert_eq!(&by_tags(&view, &texts), &want);
            proptest::prop_assert_eq!(&by_hashes(&view, &texts), &want);
        }

        /// Over a small alphabet (many repeats, transpositions and shared affixes), the
        /// banded distance is the full table's whenever that is within the limit, and
        /// `None` exactly when it is not.
        #[test]
        fn banded_distance_is_the_full_tables_cut_off_at_the_limit(
            a in "[abc ]{0,12}",
            b in "[abc ]{0,12}",
            limit in 0usize..14,
        ) {
            let want = full_table(&chars(&a), &chars(&b));
            proptest::prop_assert_eq!(distance(&a, &b, limit), (want <= limit).then_some(want), "{:?} {:?}", a, b);
            proptest::prop_assert_eq!(want, strsim::osa_distance(&a, &b));
        }

        /// The bit-vector distance is the full table's, on short texts over a small
        /// alphabet (transpositions everywhere) and across words of 64 rows.
        #[test]
        fn bit_vector_distance_is_the_full_tables(
            a in "[abc é]{0,150}",
            b in "[abc é]{0,150}",
        ) {
            let (a, b) = (chars(&a), chars(&b));
            proptest::prop_assert_eq!(osa_distance_bits(&a, &b), full_table(&a, &b));
        }

        /// The band itself (used for lines of more than 64 characters): the full table's
        /// distance when it is within the band, `None` when it is not.
        #[test]
        fn a_band_holds_the_distance_exactly_when_it_is_within(
            a in "[abc ]{1,70}",
            b in "[abc ]{1,70}",
            extra in 0usize..12,
        ) {
            let (a, b) = (chars(&a), chars(&b));
            let k = a.len().abs_diff(b.len()).max(1) + extra;
            let want = full_table(&a, &b);
            proptest::prop_assert_eq!(banded(&a, &b, k, &mut Rows::default()), (want <= k).then_some(want));
        }

        /// Longer strings with a few edits: the same, through the widening band.
        #[test]
        fn banded_distance_on_edited_copies(
            base in "[a-e]{20,60}",
            edits in proptest::collection::vec((0usize..60, 0u8..3, "[a-f]"), 0..6),
            limit in 0usize..20,
        ) {
            let mut b = chars(&base);
            for (at, op, c) in edits {
                let at = at % (b.len() + 1);
                let c = c.chars().next().unwrap();
                match op {
                    0 => b.insert(at, c),
                    1 if at < b.len() => { b.remove(at); }
                    _ if at + 1 < b.len() => b.swap(at, at + 1),
                    _ => {}
                }
            }
            let want = full_table(&chars(&base), &b);
            let got = bounded_distance(&chars(&base), &b, limit, &mut Budget::new(u64::MAX));
            proptest::prop_assert_eq!(got, (want <= limit).then_some(want));
        }
    }

    #[test]
    fn distance_cut_off_semantics() {
        assert_eq!(distance("kitten", "sitting", 3), Some(3));
        assert_eq!(distance("kitten", "sitting", 2), None, "over the limit");
        assert_eq!(distance("abcd", "abdc", 1), Some(1), "a transposition is one edit");
        assert_eq!(distance("", "abc", 3), Some(3));
        assert_eq!(distance("abc", "", 2), None);
        assert_eq!(distance("same", "same", 0), Some(0));
        assert_eq!(distance("same", "sane", 0), None);
    }

    #[test]
    fn a_long_line_with_one_change_costs_next_to_nothing() {
        let line: Vec<char> = (0..60_000).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
        let mut typo = line.clone();
        typo[30_000] = 'Z';
        let mut budget = Budget::new(1_000);
        assert_eq!(bounded_distance(&line, &typo, 1_501, &mut budget), Some(1));
        assert!(!budget.exhausted);
        // Two changes far apart: the band stays narrow, the work linear in the length.
        typo[100] = 'Y';
        let mut budget = Budget::new(1_000_000);
        assert_eq!(bounded_distance(&line, &typo, 1_501, &mut budget), Some(2));
    }

    #[test]
    fn a_spent_budget_gives_no_answer_and_says_so() {
        let a: Vec<char> = "abcdefghij".repeat(100).chars().collect();
        let b: Vec<char> = "jihgfedcba".repeat(100).chars().collect();
        let mut budget = Budget::new(5_000);
        assert_eq!(bounded_distance(&a, &b, 1_000, &mut budget), None);
        assert!(budget.exhausted);
    }

    #[test]
    fn similarity_of_long_texts_is_bounded() {
        assert_eq!(similarity("abcd", "abcd"), Some(1.0));
        assert_eq!(similarity("", ""), Some(1.0));
        let a = "x".repeat(100_000);
        let b = "y".repeat(100_000);
        assert_eq!(similarity(&a, &b), None, "too much work for feedback: no answer rather than a slow one");
    }

    #[test]
    fn one_typo_is_found_with_its_score() {
        let f = TextFile::parse("fn main() {\n    let total = compute(a, b);\n    println!(\"{total}\");\n}\n");
        let p = lines(&["let totl = compute(a, b);", "println!(\"{total}\");"]);
        let got = locate(&f.lines, &query(&p, 4), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].end, got[0].tier), (1, 3, Tier::Fuzzy));
        assert!(got[0].confidence > 0.95 && got[0].confidence < 1.0, "{}", got[0].confidence);
    }

    #[test]
    fn single_line_typo_without_any_exact_line() {
        let f = TextFile::parse("alpha = 1\nbeta_value = compute_something(x)\ngamma = 3\n");
        let p = lines(&["beta_value = compute_somethng(x)"]);
        let got = locate(&f.lines, &query(&p, 3), TierSet::ALL).unwrap();
        assert_eq!((got[0].start, got[0].tier), (1, Tier::Fuzzy));
    }

    #[test]
    fn near_ties_are_ambiguous() {
        let f = TextFile::parse("value = compute(1)\nvalue = compute(2)\n");
        let p = lines(&["value = compute(3)"]);
        assert!(matches!(locate(&f.lines, &query(&p, 2), TierSet::ALL), Err(Miss::Ambiguous(Tier::Fuzzy, ..))));
    }

    #[test]
    fn a_blank_line_never_pairs_with_a_line_of_text() {
        // Short repetitive lines would score high; one of them against a blank line does
        // not count as a typo.
        let f = TextFile::parse("a\n\n\na\na\na\na = 0\na\n");
        let p = lines(&["a", "", "a", "a", "a", "a", "a = 0", "a"]);
        assert!(locate(&f.lines, &query(&p, 8), TierSet::only(Tier::Fuzzy)).is_err());
    }

    #[test]
    fn a_line_the_edit_changes_may_differ_by_a_typo_only() {
        // An unrelated file: the header matches, the line to change names another module.
        let f = TextFile::parse("# SPDX-License-Identifier: MIT\n\nfrom attr.setters import *  # noqa\n");
        let p = lines(&["# SPDX-License-Identifier: MIT", "", "from attr.filters import *  # noqa"]);
        let mut q = query(&p, 3);
        assert!(locate(&f.lines, &q, TierSet::ALL).is_ok(), "as context, the line may drift");
        q.changed = &[false, false, true];
        assert_eq!(locate(&f.lines, &q, TierSet::ALL), Err(Miss::NotFound));
        // One typo in it is still found.
        let typo = lines(&["# SPDX-License-Identifier: MIT", "", "from attr.setter import *  # noqa"]);
        let q = Query { changed: &[false, false, true], ..query(&typo, 3) };
        assert_eq!(locate(&f.lines, &q, TierSet::ALL).unwrap()[0].tier, Tier::Fuzzy);
    }

    #[test]
    fn dissimilar_is_not_found() {
        let f = TextFile::parse("completely different\ncontent here\n");
        let p = lines(&["nothing like it at all"]);
        assert_eq!(locate(&f.lines, &query(&p, 2), TierSet::ALL), Err(Miss::NotFound));
    }
}
