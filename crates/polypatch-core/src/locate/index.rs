//! Line hashes: every line of a file hashed once per normalization (without trailing
//! whitespace, trimmed, trimmed with look-alikes folded), kept in step with the
//! file while its edits are applied, so that a search compares one `u64` per line instead
//! of reading every line's text.
//!
//! A hash is only a prefilter. Two lines whose keys are equal have equal hashes, so a line
//! whose hash differs cannot match; a line whose hash is equal is then compared as text
//! ([`key_eq`](crate::locate::fold::key_eq)). Which place an edit lands on never depends on a hash.
//!
//! The hashes of a normalization are computed the first time a search needs them (a file
//! whose every edit matches exactly never pays for the trimmed or folded ones), and every
//! change to the file's lines splices the hashes of the new lines in at the same place:
//! one pass over the file, whatever the number of edits and tiers.

use std::cell::{Cell, Ref, RefCell};
use std::hash::{BuildHasher, Hasher};
use std::ops::Range;
use std::rc::Rc;

use foldhash::fast::FixedState;

use crate::ir::tier::Tier;
use crate::locate::fold::{folded, trim, trim_end};
use crate::text::lines::Lines;

/// How lines are normalized before hashing: what a key tier compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Norm {
    /// Without trailing whitespace ([`Tier::TrailingWhitespace`], and [`Tier::Exact`]:
    /// lines equal as they are are equal without trailing whitespace, so one table serves
    /// both tiers, and the exact tier's text comparison tells them apart).
    End,
    /// Without leading and trailing whitespace ([`Tier::Indentation`], [`Tier::Trimmed`],
    /// [`Tier::BlankLines`], and the fuzzy tier's exact seeds).
    Trimmed,
    /// Trimmed, with Unicode look-alikes folded ([`Tier::Unicode`]).
    Folded,
}

const NORMS: usize = 3;

impl Norm {
    /// Every normalization, in the order of [`Norm::slot`].
    const ALL: [Norm; NORMS] = [Norm::End, Norm::Trimmed, Norm::Folded];

    /// The normalization a key tier compares lines by; `None` for the tiers that do not
    /// compare whole lines for equality (prefix, fuzzy).
    pub(crate) fn of(tier: Tier) -> Option<Norm> {
        match tier {
            Tier::Exact | Tier::TrailingWhitespace => Some(Norm::End),
            Tier::Indentation | Tier::Trimmed | Tier::BlankLines => Some(Norm::Trimmed),
            Tier::Unicode => Some(Norm::Folded),
            Tier::Prefix | Tier::Fuzzy => None,
        }
    }

    fn slot(self) -> usize {
        match self {
            Norm::End => 0,
            Norm::Trimmed => 1,
            Norm::Folded => 2,
        }
    }

    /// The hash of `line` under this normalization. `buf` is scratch space for folding.
    pub(crate) fn hash(self, line: &str, buf: &mut String) -> u64 {
        match self {
            Norm::End => hash(trim_end(line)),
            Norm::Trimmed => hash(trim(line)),
            Norm::Folded => {
                let t = trim(line);
                // Folding maps non-ASCII to ASCII only: an ASCII line folds to itself.
                if t.is_ascii() {
                    hash(t)
                } else {
                    buf.clear();
                    buf.extend(folded(t));
                    hash(buf)
                }
            }
        }
    }
}

/// A fixed seed: the hashes never leave the process, and a fixed seed keeps every run's
/// work the same.
const SEED: u64 = 0x7061_7463_6870_6f6c;

/// The bytes alone are hashed, without the length prefix `Hash for [u8]` would add: one
/// text is hashed at a time, so the prefix tells nothing apart.
fn hash(text: &str) -> u64 {
    let mut hasher = FixedState::with_seed(SEED).build_hasher();
    hasher.write(text.as_bytes());
    hasher.finish()
}

/// The hashes of one file's lines under one normalization, kept as 40 of their 64 bits: a
/// tag of each (its top byte), which a scan for one value reads with `memchr`, and its low
/// 32 bits ([`low`]), compared only where the tag agrees. Every agreement is confirmed by
/// comparing the lines' texts, so a false one (about one line in 10¹² compared) costs a
/// comparison, never a wrong match; 32 bits instead of 64 keep 4 bytes less per line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Table {
    /// [`low`] of each line's hash.
    pub hashes: Vec<u32>,
    /// [`tag`] of each hash.
    pub tags: Vec<u8>,
}

/// The bits of a hash a [`Table`] keeps besides its tag.
#[inline]
pub(crate) fn low(hash: u64) -> u32 {
    hash as u32
}

/// The byte of a hash its tag keeps.
#[inline]
pub(crate) fn tag(hash: u64) -> u8 {
    (hash >> 56) as u8
}

impl Table {
    fn new(hashes: impl IntoIterator<Item = u64>) -> Table {
        let (hashes, tags) = hashes.into_iter().map(|h| (low(h), tag(h))).unzip();
        Table { hashes, tags }
    }

    fn with_capacity(n: usize) -> Table {
        Table { hashes: Vec::with_capacity(n), tags: Vec::with_capacity(n) }
    }

    #[inline]
    fn push(&mut self, hash: u64) {
        self.hashes.push(low(hash));
        self.tags.push(tag(hash));
    }

    /// The lines of `range` that are not blank (empty or whitespace only), in a table of
    /// trimmed lines: a line whose hash is not the empty text's is not blank; one whose
    /// hash is (should another text share it) is read.
    pub(crate) fn not_blank(&self, range: Range<usize>, lines: Lines<'_>) -> Vec<usize> {
        let empty = low(hash(""));
        range.filter(|&i| self.hashes[i] != empty || !crate::locate::fold::is_blank(lines.text(i))).collect()
    }

    fn splice(&mut self, range: Range<usize>, hashes: &[u64]) {
        self.tags.splice(range.clone(), hashes.iter().map(|&h| tag(h)));
        self.hashes.splice(range, hashes.iter().map(|&h| low(h)));
    }

    fn len(&self) -> usize {
        self.hashes.len()
    }

    /// The positions in `range` whose hash is `hash`, in order.
    pub(crate) fn positions(&self, range: Range<usize>, hash: u64) -> impl Iterator<Item = usize> + '_ {
        let start = range.start;
        let want = low(hash);
        memchr::memchr_iter(tag(hash), &self.tags[range])
            .map(move |i| start + i)
            .filter(move |&p| self.hashes[p] == want)
    }
}

/// The hashes of one file's lines, per normalization, computed on demand.
#[derive(Debug, Default)]
pub(crate) struct LineHashes {
    by_norm: [RefCell<Option<Table>>; NORMS],
    /// The folded hashes are the trimmed ones (every line is ASCII, which folds to itself):
    /// the table is not kept twice.
    folded_is_trimmed: Cell<bool>,
    /// The number of characters of each line, trimmed (for the fuzzy tier's length
    /// tests), [`u32::MAX`] for a line of that many or more.
    chars: RefCell<Option<Vec<u32>>>,
    /// The indices of the lines that are not blank, in order (the blank-lines tier's
    /// views are ranges of it).
    with_text: RefCell<Option<Rc<Vec<usize>>>>,
}

/// A trimmed line's number of characters, as [`LineHashes::trimmed_chars`] keeps it.
fn char_count(line: &str) -> u32 {
    trimmed_count(trim(line))
}

/// The number of characters of `t` (trimmed already), as kept.
fn trimmed_count(t: &str) -> u32 {
    let n = if t.is_ascii() { t.len() } else { t.chars().count() };
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl LineHashes {
    /// The hashes of `lines` under `norm`, computed now if no search needed them yet.
    /// `lines` must be the lines the hashes were kept in step with.
    pub(crate) fn get(&self, norm: Norm, lines: Lines<'_>) -> Ref<'_, Table> {
        let kept = |norm: Norm| {
            let cell = self.by_norm[norm.slot()].borrow();
            cell.as_ref().is_some_and(|h| h.len() == lines.len())
        };
        let ready = match norm {
            Norm::Folded => self.folded_is_trimmed.get() || kept(norm),
            _ => kept(norm),
        };
        if !ready {
            debug_assert!(
                self.by_norm[norm.slot()].borrow().is_none(),
                "line hashes out of step with the file's lines"
            );
            match norm {
                Norm::Trimmed | Norm::Folded => self.fill_trimmed(lines),
                Norm::End => *self.by_norm[norm.slot()].borrow_mut() = Some(hash_all(norm, lines)),
            }
        }
        let slot = if norm == Norm::Folded && self.folded_is_trimmed.get() { Norm::Trimmed } else { norm };
        let cell = &self.by_norm[slot.slot()];
        check_in_step(cell.borrow().as_ref(), lines, || hash_all(norm, lines));
        Ref::map(cell.borrow(), |h| h.as_ref().expect("computed above"))
    }

    /// The number of characters of each of `lines`, trimmed ([`u32::MAX`]: that many or
    /// more, count them), computed now if no search needed them yet.
    pub(crate) fn trimmed_chars(&self, lines: Lines<'_>) -> Ref<'_, [u32]> {
        if self.chars.borrow().as_ref().is_none_or(|c| c.len() != lines.len()) {
            debug_assert!(self.chars.borrow().is_none(), "line lengths out of step with the file's lines");
            self.fill_trimmed(lines);
        }
        check_in_step(self.chars.borrow().as_ref(), lines, || lines.iter().map(|l| char_count(l.text)).collect());
        Ref::map(self.chars.borrow(), |c| c.as_deref().expect("computed above"))
    }

    /// The trimmed lines' hashes, folded hashes and lengths, in one pass trimming each
    /// line once. The lenient tiers that need one need the others soon after.
    fn fill_trimmed(&self, lines: Lines<'_>) {
        let (trimmed, folded, chars) = hash_trimmed_and_folded(lines);
        // Only what is missing (or out of step) is replaced: a search may hold the rest.
        let n = lines.len();
        let missing = |cell: &RefCell<Option<Table>>| cell.borrow().as_ref().is_none_or(|t| t.len() != n);
        let folded_missing = !self.folded_is_trimmed.get() && missing(&self.by_norm[Norm::Folded.slot()]);
        if missing(&self.by_norm[Norm::Trimmed.slot()]) {
            *self.by_norm[Norm::Trimmed.slot()].borrow_mut() = Some(trimmed);
        }
        if folded_missing {
            match folded {
                Some(table) => *self.by_norm[Norm::Folded.slot()].borrow_mut() = Some(table),
                None => self.folded_is_trimmed.set(true),
            }
        }
        if self.chars.borrow().as_ref().is_none_or(|c| c.len() != n) {
            *self.chars.borrow_mut() = Some(chars);
        }
    }

    /// The indices of `lines` that are not blank, in order, computed now if no search
    /// needed them yet.
    pub(crate) fn lines_with_text(&self, lines: Lines<'_>) -> Rc<Vec<usize>> {
        let fresh = || self.get(Norm::Trimmed, lines).not_blank(0..lines.len(), lines);
        let kept = self.with_text.borrow().clone();
        let list = kept.unwrap_or_else(|| {
            let list = Rc::new(fresh());
            *self.with_text.borrow_mut() = Some(Rc::clone(&list));
            list
        });
        check_in_step(Some(&*list), lines, fresh);
        list
    }

    /// Lines `range` are replaced by `new`: the hashes that were computed follow.
    pub(crate) fn splice(&self, range: Range<usize>, new: Lines<'_>) {
        if let Some(list) = self.with_text.borrow_mut().as_mut() {
            // The lines after the change move by the difference; the new ones with text
            // take the place of the old ones.
            let list = Rc::make_mut(list);
            let from = list.partition_point(|&i| i < range.start);
            let to = list.partition_point(|&i| i < range.end);
            let shift = new.len().wrapping_sub(range.len());
            for i in &mut list[to..] {
                *i = i.wrapping_add(shift);
            }
            let added = new.iter().enumerate().filter(|(_, l)| !crate::locate::fold::is_blank(l.text));
            list.splice(from..to, added.map(|(k, _)| range.start + k));
        }
        {
            let mut chars = self.chars.borrow_mut();
            match chars.as_mut() {
                Some(c) if range.end <= c.len() => {
                    c.splice(range.clone(), new.iter().map(|l| char_count(l.text)));
                }
                _ => *chars = None,
            }
        }
        let mut buf = String::new();
        if self.folded_is_trimmed.get() && new.iter().any(|l| !trim(l.text).is_ascii()) {
            // A line that folds to another text: the folded hashes part from the trimmed.
            let trimmed = self.by_norm[Norm::Trimmed.slot()].borrow().clone();
            *self.by_norm[Norm::Folded.slot()].borrow_mut() = trimmed;
            self.folded_is_trimmed.set(false);
        }
        for (slot, cell) in self.by_norm.iter().enumerate() {
            let mut cell = cell.borrow_mut();
            let Some(hashes) = cell.as_mut() else { continue };
            if range.end > hashes.len() {
                // Out of step (cannot happen): forget them, the next search recomputes.
                *cell = None;
                continue;
            }
            let norm = Norm::ALL[slot];
            hashes.splice(range.clone(), &new.iter().map(|l| norm.hash(l.text, &mut buf)).collect::<Vec<_>>());
        }
    }

    /// The lines changed in a way not told line by line: every hash is recomputed when
    /// next needed.
    #[cfg(feature = "text-target")]
    pub(crate) fn clear(&self) {
        for cell in &self.by_norm {
            *cell.borrow_mut() = None;
        }
        self.folded_is_trimmed.set(false);
        *self.with_text.borrow_mut() = None;
        *self.chars.borrow_mut() = None;
    }
}

/// Tests check every use of what is kept against a fresh computation (small files only: a
/// test of a large file would spend its time here).
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
fn check_in_step<T: PartialEq + std::fmt::Debug>(kept: Option<&T>, lines: Lines<'_>, fresh: impl FnOnce() -> T) {
    #[cfg(debug_assertions)]
    if lines.len() <= 20_000 {
        assert_eq!(kept, Some(&fresh()), "kept line hashes or lengths out of step with the file's lines");
    }
}

/// The trimmed lines' hashes, their folded hashes (`None`: every line is ASCII, and folds
/// to itself) and their lengths in characters.
fn hash_trimmed_and_folded(lines: Lines<'_>) -> (Table, Option<Table>, Vec<u32>) {
    let mut buf = String::new();
    let mut trimmed = Table::with_capacity(lines.len());
    let mut folded: Option<Table> = None;
    let mut chars = Vec::with_capacity(lines.len());
    // Whether the file's texts are all ASCII: checked once for the whole of them rather
    // than line by line.
    let all_ascii = lines.all_ascii();
    for t in lines.texts() {
        let t = trim(t);
        let h = hash(t);
        let ascii = all_ascii || t.is_ascii();
        if ascii {
            chars.push(u32::try_from(t.len()).unwrap_or(u32::MAX));
        } else {
            chars.push(trimmed_count(t));
            folded.get_or_insert_with(|| trimmed.clone()); // the lines before were ASCII
        }
        if let Some(folded) = folded.as_mut() {
            folded.push(if ascii { h } else { Norm::Folded.hash(t, &mut buf) });
        }
        trimmed.push(h);
    }
    (trimmed, folded, chars)
}

fn hash_all(norm: Norm, lines: Lines<'_>) -> Table {
    let mut buf = String::new();
    Table::new(lines.iter().map(|l| norm.hash(l.text, &mut buf)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::fold::{PatKey, key_eq};
    use crate::text::eol::Eol;
    use crate::text::lines::TextFile;

    #[test]
    fn equal_keys_have_equal_hashes() {
        let pairs = [
            (Tier::Exact, "  let x = 1;", "  let x = 1;"),
            (Tier::TrailingWhitespace, "  let x = 1;\t ", "  let x = 1;"),
            (Tier::Trimmed, "\t let x = 1;  ", "let x = 1;"),
            (Tier::Indentation, "        x", "  x"),
            (Tier::BlankLines, " y ", "y"),
            (Tier::Unicode, "  say \u{201C}hi\u{201D} \u{2014} now", "say \"hi\" - now"),
            (Tier::Unicode, "a\u{00A0}b\u{2026}\u{200B}", "a b..."),
            (Tier::Unicode, "plain ascii", "plain ascii"),
        ];
        let mut buf = String::new();
        for (tier, file, pat) in pairs {
            let key = PatKey::new(pat);
            assert!(key_eq(tier, file, &key), "{tier:?}: {file:?} ~ {pat:?}");
            let norm = Norm::of(tier).expect("a key tier");
            assert_eq!(norm.hash(file, &mut buf), norm.hash(pat, &mut buf), "{tier:?}: {file:?} ~ {pat:?}");
        }
        // The exact tier shares the trailing-whitespace hashes: its text comparison, not
        // the hash, tells these two apart.
        assert_eq!(Norm::of(Tier::Exact), Some(Norm::End));
        assert!(!key_eq(Tier::Exact, "a ", &PatKey::new("a")));
    }

    #[test]
    fn positions_are_every_equal_hash_in_the_range_in_order() {
        // Hashes whose tags collide often (the top byte is 0 or 1) and ranges that do not
        // start on a block of 64.
        // start on a block of 64. The table keeps the tag and the low 32 bits: hashes that
        // agree on those 40 bits are reported alike (every caller compares texts next).
        let hashes: Vec<u64> = (0..300u64).map(|i| ((i % 2) << 56) | (i % 7) | ((i % 3) << 40)).collect();
        let table = Table::new(hashes.iter().copied());
        let kept = |h: u64| h & 0xFF00_0000_FFFF_FFFF;
        for range in [0..300, 1..299, 63..65, 64..128, 100..100, 5..250] {
            for want in [3u64, (1 << 56) | 3, 9, (1 << 40) | 3] {
                let naive: Vec<usize> = range.clone().filter(|&p| kept(hashes[p]) == kept(want)).collect();
                assert_eq!(table.positions(range.clone(), want).collect::<Vec<_>>(), naive, "{range:?} {want}");
            }
        }
        assert!(table.positions(0..300, 3).any(|p| hashes[p] != 3), "40 bits agree, the hashes do not");
    }

    #[test]
    fn trimmed_and_folded_come_together_and_name_the_blank_lines() {
        let file = TextFile::parse("\n  \n\t\nx\n y \n\u{201C}q\u{201D}\n");
        let hashes = LineHashes::default();
        let trimmed = hashes.get(Norm::Trimmed, file.lines()).clone();
        assert_eq!(trimmed.not_blank(0..6, file.lines()), vec![3, 4, 5]);
        assert_eq!(trimmed.not_blank(1..4, file.lines()), vec![3]);
        let folded = hashes.get(Norm::Folded, file.lines()).clone();
        let mut buf = String::new();
        assert_eq!(folded.hashes[5], low(Norm::Folded.hash("\"q\"", &mut buf)));
        assert_eq!(folded.hashes[4], trimmed.hashes[4], "an ASCII line folds to itself");
        assert_ne!(folded.hashes[5], trimmed.hashes[5]);
    }

    #[test]
    fn an_ascii_files_folded_hashes_are_its_trimmed_ones_until_a_line_folds() {
        let mut buf = String::new();
        let mut file = TextFile::parse("a\n  b\nc\n");
        let hashes = LineHashes::default();
        let trimmed = hashes.get(Norm::Trimmed, file.lines()).hashes.clone();
        assert_eq!(hashes.get(Norm::Folded, file.lines()).hashes, trimmed);
        assert!(hashes.folded_is_trimmed.get() && hashes.by_norm[Norm::Folded.slot()].borrow().is_none());
        // An ASCII line spliced in keeps them one.
        let new_file = TextFile::parse("x\n");
        let new = new_file.lines();
        hashes.splice(0..1, new);
        file.splice(0..1, new.iter().map(|l| (l.text, l.eol)));
        assert!(hashes.folded_is_trimmed.get());
        // A line that folds parts them.
        let new_file = TextFile::parse(" \u{201C}q\u{201D}\n");
        let new = new_file.lines();
        hashes.splice(1..2, new);
        file.splice(1..2, new.iter().map(|l| (l.text, l.eol)));
        assert!(!hashes.folded_is_trimmed.get());
        let folded = hashes.get(Norm::Folded, file.lines()).hashes.clone();
        let trimmed = hashes.get(Norm::Trimmed, file.lines()).hashes.clone();
        assert_eq!(folded[1], low(Norm::Folded.hash("\"q\"", &mut buf)));
        assert_ne!(folded[1], trimmed[1]);
        assert_eq!((folded[0], folded[2]), (trimmed[0], trimmed[2]));
        // The folded hashes asked for first, of a file that folds and of one that does not.
        let hashes = LineHashes::default();
        assert_eq!(hashes.get(Norm::Folded, file.lines()).hashes, folded);
        let ascii = TextFile::parse("a\n  b\n");
        let hashes = LineHashes::default();
        let want: Vec<u32> = ["a", "b"].iter().map(|t| low(Norm::Trimmed.hash(t, &mut buf))).collect();
        assert_eq!(hashes.get(Norm::Folded, ascii.lines()).hashes, want);
        assert_eq!(hashes.get(Norm::Trimmed, ascii.lines()).hashes, want);
        // A file whose first line to fold stands in the middle: the lines before share.
        let file = TextFile::parse("a\nb\n\u{2014}\nd\n");
        let hashes = LineHashes::default();
        let folded = hashes.get(Norm::Folded, file.lines()).hashes.clone();
        let want: Vec<u32> = ["a", "b", "-", "d"].iter().map(|t| low(Norm::Folded.hash(t, &mut buf))).collect();
        assert_eq!(folded, want);
        assert_eq!(&*hashes.trimmed_chars(file.lines()), &[1, 1, 1, 1]);
        assert!(!hashes.folded_is_trimmed.get());
    }

    #[test]
    fn the_lines_with_text_follow_the_splices() {
        let mut file = TextFile::parse("a\n\nb\n \nc\n");
        let hashes = LineHashes::default();
        assert_eq!(*hashes.lines_with_text(file.lines()), vec![0, 2, 4]);
        // Growing: two lines for one with text, one blank among them.
        let new_file = TextFile::parse("x\n\ny\n");
        let new = new_file.lines();
        hashes.splice(1..3, new);
        file.splice(1..3, new.iter().map(|l| (l.text, l.eol)));
        assert_eq!(*hashes.lines_with_text(file.lines()), vec![0, 1, 3, 5]);
        // Shrinking, while a view still holds the list (it keeps what it saw).
        let held = hashes.lines_with_text(file.lines());
        hashes.splice(0..4, TextFile::default().lines());
        file.splice(0..4, []);
        assert_eq!(*hashes.lines_with_text(file.lines()), vec![1]);
        assert_eq!(*held, vec![0, 1, 3, 5]);
        // At the end, and after a clear.
        let new_file = TextFile::parse("\t\nz\n");
        let new = new_file.lines();
        hashes.splice(2..2, new);
        file.splice(2..2, new.iter().map(|l| (l.text, l.eol)));
        assert_eq!(*hashes.lines_with_text(file.lines()), vec![1, 3]);
        hashes.clear();
        assert_eq!(*hashes.lines_with_text(file.lines()), vec![1, 3]);
    }

    #[test]
    fn splices_keep_the_hashes_in_step() {
        let mut file = TextFile::parse("a\n  b\nc \nd\n");
        let hashes = LineHashes::default();
        let exact = hashes.get(Norm::End, file.lines()).hashes.clone();
        assert_eq!(exact.len(), 4);
        let new_file = TextFile::parse("x\ny\n");
        let new = new_file.lines();
        assert_eq!(&*hashes.trimmed_chars(file.lines()), &[1, 1, 1, 1]);
        hashes.splice(1..3, new);
        file.splice(1..3, new.iter().map(|l| (l.text, l.eol)));
        let mut buf = String::new();
        let want: Vec<u64> = ["a", "x", "y", "d"].iter().map(|t| Norm::End.hash(t, &mut buf)).collect();
        assert_eq!(hashes.get(Norm::End, file.lines()).hashes, want.iter().map(|&h| low(h)).collect::<Vec<_>>());
        let tags: Vec<u8> = want.iter().map(|&h| tag(h)).collect();
        assert_eq!(hashes.get(Norm::End, file.lines()).tags, tags);
        let at: Vec<usize> = hashes.get(Norm::End, file.lines()).positions(0..4, want[1]).collect();
        assert_eq!(at, vec![1]);
        assert_eq!(hashes.get(Norm::End, file.lines()).positions(2..4, want[1]).count(), 0);
        // A normalization computed after the splice starts from the current lines.
        let trimmed = hashes.get(Norm::Trimmed, file.lines()).hashes.clone();
        assert_eq!(trimmed, want.iter().map(|&h| low(h)).collect::<Vec<_>>());
        hashes.splice(4..4, TextFile::parse(" e\n").lines());
        file.push(" e", Eol::Lf);
        assert_eq!(hashes.get(Norm::Trimmed, file.lines()).hashes[4], low(Norm::Trimmed.hash("e", &mut buf)));
        assert_eq!(&*hashes.trimmed_chars(file.lines()), &[1, 1, 1, 1, 1]);
        hashes.clear();
        file.splice(1..file.len(), []);
        assert_eq!(&*hashes.trimmed_chars(file.lines()), &[1]);
        assert_eq!(hashes.get(Norm::End, file.lines()).len(), 1);
        assert_eq!(hashes.get(Norm::End, file.lines()).tags.len(), 1);
    }
}
