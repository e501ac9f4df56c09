//! How far apart two lines are: the edit distance (optimal string alignment, banded and
//! bounded by a work [`Budget`]), the similarity it gives, and the cheap lower bounds
//! (length, character histograms) that rule a pair out before any distance is computed.

use foldhash::{HashMap, HashMapExt};

/// The work the closest-region search (failure feedback only) may do.
pub(super) const FEEDBACK_CELLS: u64 = 20_000_000;

/// A budget of edit-distance work, in band cells.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    pub(super) left: u64,
    /// Set when some comparison was cut short because the budget ran out.
    pub exhausted: bool,
    /// File lines the search's passes over the file looked at, and bytes of the lines its
    /// near seeding read (seeding): counted for the plan's budget ([`Effort`](crate::locate::effort::Effort)), not taken
    /// from this one.
    pub(super) scanned: u64,
}

impl Budget {
    pub(crate) fn new(cells: u64) -> Budget {
        Budget { left: cells, exhausted: false, scanned: 0 }
    }

    /// Takes `cells` from the budget; `false` (and marks it exhausted) when they are not left.
    pub(super) fn spend(&mut self, cells: u64) -> bool {
        if cells > self.left {
            self.left = 0;
            self.exhausted = true;
            return false;
        }
        self.left -= cells;
        true
    }
}

/// The most edits a changed line may differ by: one typo, one more per 40 characters;
/// none in a line under 5 characters (one edit there makes another line: `l0`, `l1`).
pub(crate) fn typo_cap(len: usize) -> usize {
    if len < 5 { 0 } else { 1 + len / 40 }
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
pub(super) struct Rows {
    before: Vec<usize>,
    prev: Vec<usize>,
    cur: Vec<usize>,
}

/// The optimal-string-alignment distance of `a` and `b` if it is at most `k`, computing
/// only the cells within `k` diagonals of the main one (every other cell is more than `k`).
pub(super) fn banded(a: &[char], b: &[char], k: usize, rows: &mut Rows) -> Option<usize> {
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
pub(super) struct Pattern {
    pub(super) chars: Vec<char>,
    pub(super) hist: [u16; 64],
    /// A line the edit changes may differ by this many edits at most.
    pub(super) cap: Option<usize>,
    /// The line.
    pub(super) text: String,
}

impl Pattern {
    pub(super) fn new(line: &str) -> Pattern {
        let chars: Vec<char> = line.chars().collect();
        let hist = histogram(chars.iter().copied());
        Pattern { chars, hist, cap: None, text: line.to_string() }
    }
}

/// [`histogram`] of a text's characters; an ASCII text's bytes are its characters.
pub(super) fn text_histogram(text: &str) -> [u16; 64] {
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

pub(super) fn histogram(chars: impl Iterator<Item = char>) -> [u16; 64] {
    let mut h = [0u16; 64];
    for c in chars {
        let slot = (c as u32 as usize) % 64;
        h[slot] = h[slot].saturating_add(1);
    }
    h
}

pub(super) fn histogram_distance(a: &[u16; 64], b: &[u16; 64]) -> usize {
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
pub(super) fn ascii_index(c: char) -> Option<usize> {
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
