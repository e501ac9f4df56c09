//! What a located edit means: apply it where its old side stands, report it already
//! applied, or refuse. "Already applied" is a finding, never a shortcut past a lenient
//! match, and needs the new side found at least as strictly as the old side: the old
//! side standing at a place of its own is the edit still to make, and a new side found
//! elsewhere more loosely than that (re-indented, where the old side's lines stand as
//! written) is no evidence against it. A dialect's spec overrides these rules where it
//! says otherwise (`ap` §3.1: a `DELETE` whose snippet is not found is done). The rules,
//! once:
//!
//! 1. The old side is located first, at every tier the policy allows; the first tier
//!    with places decides which it takes ([`choose`]). At the fuzzy tier the best place
//!    must beat every other by the ambiguity margin and reach the threshold; of places
//!    within the margin, the one strictly nearest the line hint (or, for a place fixed by
//!    an earlier match, the first) may stand if it reaches the threshold. At the other
//!    tiers one place is taken; of several: all of them for an edit that takes every
//!    occurrence (at the policy's strictest tier, or up to trailing whitespace), else the
//!    one strictly nearest the line hint, else the first for a place fixed by an earlier
//!    match (a range's end, an anchored snippet), else, for an edit that takes the first
//!    occurrence at a tier that forgives at most whitespace at line ends (or the policy's
//!    strictest), and whose lines are not all short (braces, `end`): the first, or with a
//!    hint the one after it of the two as near. Otherwise the places are ambiguous.
//! 2. Not found: the new side found anywhere in the search region means already applied;
//!    otherwise the edit is not found. Ambiguous: the new side found at a stricter tier
//!    than the ambiguity means already applied; otherwise the ambiguity stands. A dialect
//!    whose spec counts a target not found as done (`ap` §3.1) reports it already applied,
//!    unless lines like it still stand at a lenient tier the search did not try
//!    ([`target_still_like`]): then refused, naming them.
//! 3. Found at one place: the new side is looked for only where it could change the
//!    answer, at the old side's tier or stricter.
//!    - The new side standing on the old side's place with the lines it adds there as
//!      written, one of them where the old side has nothing, and every line the edit
//!      removes gone or on one of them: already applied (the lines the edit removes are
//!      absent where the new side stands).
//!    - Otherwise a new side standing on the same place (its kept lines on the very file
//!      lines the old side's kept lines matched; without kept lines, inside the old
//!      side's match) is no evidence: the edit is applied there, and the apply itself
//!      reports "already applied" when nothing would change.
//!    - Otherwise a new side inside the old side's match is no evidence either (unless
//!      the old side matched fuzzily: a similarity match may be misaligned).
//!    - A deletion (a weak new side) whose old side matched fuzzily, with a removed line
//!      that differs from its file line by swapped characters only (a sibling line, not
//!      a dropped-letter typo): refused, as a re-run meeting the deleted line's neighbour
//!      reads the same.
//!    - Against a fuzzy old side, a new side found fuzzily elsewhere at least as similar
//!      (by the ambiguity margin more for one line): refused with both places, as a
//!      re-run of a patch with a typo reads the same.
//!    - A new side of two lines or more at a strictly stricter tier than a fuzzy old
//!      side, "already applied" needs the new side at least as strict as the old side's
//!      own evidence. Found on the old side's match (overlapping it): already applied
//!      (a re-run: the first run left the new side, and the old side now only resembles
//!      it). Found at a place of its own, with a line of the old side no typo of its
//!      file line (the old side only resembles that place): already applied. Else, the
//!      old side standing apart but for typos:
//!      - its lines standing more loosely than the old side's lines stand at theirs (the
//!        loosest comparison tier of the lines equal to their file line at one, and no
//!        stricter than the policy's strictest tier): no evidence, the edit is applied
//!        where the old side stands (a `from` block with a typo, its `to` block found
//!        re-indented elsewhere);
//!      - else, every line the edit removes standing as written where the old side was
//!        found (the likeness is in the lines it keeps): both readings plausible, refused
//!        with both places (an `ap` snippet with a typo in a kept line, its content found
//!        elsewhere);
//!      - else (a removed line only resembles the file's): already applied.
//!
//!      A one-line new side is found elsewhere by chance as often: both readings
//!      plausible. Against an old side whose every line is there, both readings are
//!      plausible: the hint decides, else refused with both places.
//!    - A new side that adds no line and joins no lines across a removal (its lines are
//!      the edit's context on one side) stands wherever that context does: it is no
//!      evidence, except that standing exactly at the line hint, where the old side does
//!      not, it makes a re-run plausible: refused with both places.
//!    - At the same tier elsewhere, a line hint decides when the old or the new side
//!      stands exactly at it; a new side nearer to the hint than the old one (or as near,
//!      after the hint where the old side is before it, for an edit that takes the first
//!      occurrence: the place its search from the hint takes) makes both readings
//!      plausible: refused with both places. Without a hint, an edit whose old
//!      side must be unique is applied (the patch could not have applied where the new
//!      side stands while its old side also stood here). An edit that takes the first
//!      occurrence is refused with both places when the new side stands before the old
//!      one: a re-run would otherwise apply it again at the next occurrence.
//!
//!    In rules 2 and 3 alike (rule 3a), a new side found only by likeness (the fuzzy tier) is
//!    evidence only when every line it adds stands in the file as written (whitespace
//!    and look-alikes aside): its likeness must lie in the lines it keeps. Otherwise the
//!    decision is made as if no new side were found (`-  Hemp` / `+  Help,` against a
//!    file's `  Help`: the file never got the comma, and the removed line only resembles
//!    the file's, so rule 4 refuses).
//! 4. Applying at a fuzzy match: a line the edit removes or replaces must equal its file
//!    line but for whitespace, indentation, line endings or look-alike characters; only
//!    context lines may differ more. Otherwise refused, naming the file's line and the
//!    patch's ([`unlike_removals`]), unless the edit has no explicit context and writes
//!    exactly the file's line in its place, or the policy (`ApplyDiff`'s spec) or the
//!    caller allows fuzzy removals (then each such line is listed in the report).
//! 5. Applying at a fuzzy match far from the patch's line number (more than
//!    [`FUZZY_HINT_WINDOW`] lines, also after the offset the file's earlier edits landed
//!    at): refused, naming both places ([`far_from_hint`]).
//! 6. Applying at the place found: already applied, and nothing written, when the
//!    replacement changes nothing there ([`replacement_unchanged`]); when a new side that
//!    holds the old side stands around it ([`replacement_already_there`]); when a range's
//!    new lines already stand from its start on ([`range_already_there`]); when the lines
//!    an insertion adds already stand next to its block or position, compared trimmed
//!    ([`insertion_already_there`], [`inserted_at_already_there`]). For a file known to be
//!    the one the edits were made for (nothing is already applied there), only the first
//!    and the insertions' probes count.

use std::collections::HashSet;

use crate::ir::plan::{Action, Edit, Occurrence, Target};
use crate::ir::tier::{Tier, TierSet};
use crate::locate::engine::Classified;
use crate::locate::fold::{PatKey, is_blank, key_eq};
use crate::locate::query::{Found, Miss, Query, View};
use crate::text::eol::Eol;
use crate::text::lines::{Line, LineRef, LineText, Lines};

/// The outcome of locating an edit.
#[derive(Debug)]
pub(crate) enum Decision {
    /// Apply at these places; with the new side found on the same (one) place, which the
    /// report names if applying changes nothing.
    Apply(Vec<Found>, Option<Found>),
    /// The new side stands here and the old side is gone.
    AlreadyApplied(Found),
    /// Not located.
    Miss(Miss),
    /// A deletion (its new side adds nothing) whose old side matched only fuzzily, with a
    /// line it removes only similar to the file's: a typo in that line, or a re-run that
    /// met the deleted line's neighbour. Either reading is plausible.
    DoubtfulDeletion(Found),
    /// The old side stands at one place and the new side at another, and either reading
    /// is plausible.
    Unclear {
        /// Where the old side stands.
        old: Found,
        /// Where the new side stands.
        new: Found,
    },
}

/// An edit's new side, to look for.
pub(crate) struct NewSide<'a> {
    /// The query for the new lines (same region and settings as the old side's).
    pub q: Query<'a>,
    /// For each new line, the old line it keeps.
    pub kept: &'a [Option<usize>],
    /// The new side adds no line and does not join lines the edit removes from between
    /// (a deletion at the edge of its context): it stands wherever its kept lines stand,
    /// which proves little.
    pub weak: bool,
}

impl NewSide<'_> {
    /// Whether a new side with this alignment to `old_len` old lines is weak.
    pub(crate) fn is_weak(kept: &[Option<usize>], old_len: usize) -> bool {
        if kept.iter().any(Option::is_none) {
            return false;
        }
        let (Some(&first), Some(&last)) = (kept.iter().flatten().min(), kept.iter().flatten().max()) else {
            return true;
        };
        // No removed line between the first and the last kept one.
        let mut is_kept = vec![false; last + 1];
        kept.iter().flatten().for_each(|&i| is_kept[i] = true);
        is_kept[first..=last].iter().all(|k| *k) || old_len == 0
    }
}

/// Decides what the located old side `old` of query `q` means, looking for the new side
/// where the rules need it. `tiers` are the policy's allowed tiers.
pub(crate) fn decide(
    lines: Lines<'_>,
    q: &Query<'_>,
    old: Result<Vec<Found>, Miss>,
    new: Option<&NewSide<'_>>,
    tiers: TierSet,
) -> Decision {
    let Some(new) = new else {
        return old.map_or_else(Decision::Miss, |f| Decision::Apply(f, None));
    };
    // A new side is looked for at the old side's tier or stricter, so it is found fuzzily
    // only where the old side was found fuzzily or not at all: only then is the decision
    // without it kept (the other edits copy nothing).
    let without_evidence = match &old {
        Ok(found) if found.iter().any(|f| f.tier == Tier::Fuzzy) => Some(Decision::Apply(found.clone(), None)),
        Err(Miss::NotFound) => Some(Decision::Miss(Miss::NotFound)),
        _ => None,
    };
    match (decide_with_new_side(lines, q, old, new, tiers), without_evidence) {
        // A new side found only by likeness, whose added lines are not the file's as
        // written, is not what the edit writes: no evidence that it was made (`-  Hemp` /
        // `+  Help,` against a file's `  Help`: the file never got the comma).
        (Decision::AlreadyApplied(n), Some(without)) if n.tier == Tier::Fuzzy && !adds_as_written(lines, &n, new) => {
            without
        }
        (decision, _) => decision,
    }
}

/// [`decide`] for an edit with a new side to look for.
fn decide_with_new_side(
    lines: Lines<'_>,
    q: &Query<'_>,
    old: Result<Vec<Found>, Miss>,
    new: &NewSide<'_>,
    tiers: TierSet,
) -> Decision {
    match old {
        Err(Miss::NotFound) => match find(lines, new, tiers, q.lo, q.hi) {
            Some((_, places)) => Decision::AlreadyApplied(nearest(&places, q.hint)),
            None => Decision::Miss(Miss::NotFound),
        },
        Err(Miss::Ambiguous(tier, places, scores)) => {
            // A new side inside one of the old side's places (an edit that keeps part of
            // its block) is no evidence.
            let inside = |n: &Found| places.iter().any(|&(s, e)| n.start >= s && n.end <= e);
            match find(lines, new, stricter(tiers, tier), q.lo, q.hi) {
                Some((_, found)) if !new.weak && !found.iter().any(inside) => {
                    Decision::AlreadyApplied(nearest(&found, q.hint))
                }
                _ => Decision::Miss(Miss::Ambiguous(tier, places, scores)),
            }
        }
        Ok(found) if found.len() != 1 || q.occurrence == Occurrence::All => Decision::Apply(found, None),
        Ok(found) => one_place(lines, q, found.into_iter().next().expect("one place"), new, tiers),
    }
}

/// Rule 3: the old side stands at `o`.
fn one_place(lines: Lines<'_>, q: &Query<'_>, o: Found, new: &NewSide<'_>, tiers: TierSet) -> Decision {
    let first_like = matches!(q.occurrence, Occurrence::First | Occurrence::FirstAfterAnchor);
    let strictest = tiers.iter().next().unwrap_or(Tier::Exact);
    if new.weak && o.tier == Tier::Fuzzy && removes_only_similar(lines, q, &o, new.kept) {
        return Decision::DoubtfulDeletion(o);
    }
    if new.weak && q.hint.is_none_or(|h| h == o.start) {
        return Decision::Apply(vec![o], None);
    }
    let nlen = new.q.pat.len();
    // At the strictest tier nothing is stricter: only a same-tier reading could compete,
    // so only the lines where it would count are searched.
    let (lo, hi) = if o.tier > strictest {
        (q.lo, q.hi)
    } else {
        match q.hint {
            Some(h) if h == o.start => return Decision::Apply(vec![o], None),
            Some(h) => {
                // The hint is the patch's number (up to `usize::MAX`): saturate, the end
                // is clamped to the region anyway.
                let d = o.start.abs_diff(h);
                (h.saturating_sub(d).max(q.lo), h.saturating_add(d).saturating_add(nlen + 1).min(q.hi))
            }
            None if first_like => (q.lo, (o.end + nlen).min(q.hi)),
            None => return Decision::Apply(vec![o], None),
        }
    };
    // With the old side found, a fuzzy new side adds nothing the apply does not find out
    // (nothing would change there), and would cost a second similarity search.
    let upto = tiers.intersect(TierSet::range(Tier::Exact, o.tier)).without(Tier::Fuzzy);
    let Some((tier, places)) = find(lines, new, upto, lo, hi) else {
        return fuzzy_rival(lines, q, &o, new, tiers, (lo, hi)).unwrap_or(Decision::Apply(vec![o], None));
    };
    // The new side stands where the old side was found: the lines it adds are there, as
    // written (not just similar), and every line the edit removes is gone or is one of
    // them (the old side only matched it loosely).
    // What the old side's match says, computed once for every candidate.
    let removed_at = removed_lines(&o, new.kept);
    let old_at: HashSet<usize> = o.map.iter().flatten().copied().collect();
    let stands = |n: &&Found| {
        (same_place(&o, n, new.kept) || removed_on_added(&removed_at, n, new.kept))
            && adds_present(lines, &old_at, n, new)
            && removed_absent(&removed_at, n, new.kept)
    };
    if let Some(n) = places.iter().find(stands) {
        return Decision::AlreadyApplied(n.clone());
    }
    // A new side on the old side's own place, or inside a match whose every line is
    // really there (not a fuzzy one, which may be misaligned), is no evidence; the others
    // are judged.
    let inside = |n: &Found| o.tier != Tier::Fuzzy && n.start >= o.start && n.end <= o.end;
    let (here, elsewhere): (Vec<Found>, Vec<Found>) =
        places.into_iter().partition(|n| same_place(&o, n, new.kept) || inside(n));
    let at_hint = |n: &&Found| q.hint == Some(n.start);
    let unclear = |n: &Found| Decision::Unclear { old: o.clone(), new: n.clone() };
    let apply = Decision::Apply(vec![o.clone()], here.into_iter().next());
    if elsewhere.is_empty() {
        return apply;
    }
    if new.weak {
        // Its lines stand wherever its kept lines do: only a line hint naming it, and not
        // the old side, makes a re-run plausible.
        return match elsewhere.iter().find(at_hint) {
            Some(n) if q.hint != Some(o.start) => unclear(n),
            _ => apply,
        };
    }
    // Against a fuzzy old side, a new side matching more strictly is the better reading
    // (a re-run: the first run left the new side, the old one only resembles it).
    // A new side of one line stands in many files by chance: both readings plausible.
    let substantial = new.q.pat.iter().filter(|l| !l.trim().is_empty()).count() >= 2;
    if tier < o.tier && o.tier == Tier::Fuzzy {
        if !substantial {
            return unclear(&elsewhere[0]);
        }
        // The old side's match lies on the new side's lines: it only resembles the result.
        let on_new: Vec<Found> = elsewhere.iter().filter(|n| n.start < o.end && o.start < n.end).cloned().collect();
        if !on_new.is_empty() {
            return Decision::AlreadyApplied(nearest(&on_new, q.hint));
        }
        // Not every line of the old side is there (one is no typo of its file line): the
        // old side only resembles that place, as on a re-run.
        let n = nearest(&elsewhere, q.hint);
        if !old_stands(lines, q, &o) {
            return Decision::AlreadyApplied(n);
        }
        // The old side stands at a place of its own: the new side counts only if its lines
        // stand at least as strictly as the old side's lines stand at theirs.
        if lines_tier(lines, new.q.pat, &n, strictest) > lines_tier(lines, q.pat, &o, strictest) {
            return apply;
        }
        return if removed_stand(lines, q, &o, new.kept) { unclear(&n) } else { Decision::AlreadyApplied(n) };
    }
    if let Some(h) = q.hint {
        if o.start == h {
            return apply;
        }
        if let Some(n) = elsewhere.iter().find(at_hint) {
            return Decision::AlreadyApplied(n.clone());
        }
        let d = o.start.abs_diff(h);
        // As near as the old side, after the hint where the old side is before it: the
        // place an in-order search from the hint (`@@ :N`) takes, so a re-run reads so too.
        let nearer = |n: &&Found| {
            let e = n.start.abs_diff(h);
            e < d || (e == d && first_like && n.start > h && o.start < h)
        };
        return match elsewhere.iter().find(nearer) {
            Some(n) => unclear(n),
            None => apply,
        };
    }
    // Without a hint: an old side whose every line is there, against a new side matching
    // more strictly elsewhere, is one of two plausible readings.
    if tier < o.tier {
        return unclear(&elsewhere[0]);
    }
    let first_like = matches!(q.occurrence, Occurrence::First | Occurrence::FirstAfterAnchor);
    match elsewhere.iter().find(|n| first_like && n.start < o.start) {
        Some(n) => unclear(n),
        None => apply,
    }
}

/// Against an old side found only fuzzily, a new side found fuzzily elsewhere (not
/// overlapping it) at least as similar: a re-run of a patch with a typo, whose first run
/// left the new side where the old side then stood, reads the same as a first run. Both
/// places are plausible, so the edit is refused with both (`None`: no such rival). A new
/// side of one line resembles some line of a file by chance as often (`version = "1.0.66"`
/// for `version = "1.0.86"`): it must be more similar than the old side by the ambiguity
/// margin.
fn fuzzy_rival(
    lines: Lines<'_>,
    q: &Query<'_>,
    o: &Found,
    new: &NewSide<'_>,
    tiers: TierSet,
    (lo, hi): (usize, usize),
) -> Option<Decision> {
    if o.tier != Tier::Fuzzy || new.weak || !tiers.contains(Tier::Fuzzy) || q.occurrence == Occurrence::All {
        return None;
    }
    let substantial = new.q.pat.iter().filter(|l| !l.trim().is_empty()).count() >= 2;
    let least = if substantial { o.confidence } else { o.confidence + crate::ir::plan::AMBIGUITY_MARGIN };
    let (_, places) = find(lines, new, TierSet::only(Tier::Fuzzy), lo, hi)?;
    let rival = places
        .into_iter()
        .filter(|n| n.end <= o.start || n.start >= o.end)
        .filter(|n| n.confidence >= least)
        .max_by(|a, b| a.confidence.total_cmp(&b.confidence))?;
    Some(Decision::Unclear { old: o.clone(), new: rival })
}

/// Whether a line the edit removes matched its file line at `o` only fuzzily (not equal
/// even once whitespace and look-alikes are set aside) and differs from it only by
/// characters swapped for others, the length kept: the mark of a sibling line
/// (`self.a1 = 0` for `self.a2 = 0`, `x_min` for `x_max`) more than of a typo, which
/// usually drops or doubles a character (`import sy` for `import sys`).
fn removes_only_similar(lines: Lines<'_>, q: &Query<'_>, o: &Found, kept: &[Option<usize>]) -> bool {
    let mut is_kept = vec![false; q.pat.len()];
    kept.iter().flatten().for_each(|&i| {
        if let Some(k) = is_kept.get_mut(i) {
            *k = true;
        }
    });
    (q.pat.iter().zip(&o.map).zip(&is_kept)).any(|((p, f), k)| {
        !k && f.is_some_and(|f| {
            let text = lines.text(f);
            !key_eq(Tier::Unicode, text, &PatKey::new(p)) && text.trim().chars().count() == p.trim().chars().count()
        })
    })
}

/// Whether the new side found at `n` stands on the place the old side was found at `o`.
fn same_place(o: &Found, n: &Found, kept: &[Option<usize>]) -> bool {
    let mut compared = false;
    for (j, k) in kept.iter().enumerate() {
        let Some(i) = k else { continue };
        if let (Some(Some(a)), Some(Some(b))) = (o.map.get(*i), n.map.get(j)) {
            if a != b {
                return false;
            }
            compared = true;
        }
    }
    compared || (n.start >= o.start && n.end <= o.end)
}

/// How strictly the lines of a fuzzy match `o` stand where they were found: the loosest
/// comparison tier among the lines equal to their file line at one (the lines that only
/// resemble theirs left out), and no stricter than `floor`, the policy's strictest tier
/// (an `ap` snippet is compared trimmed whatever its indentation in the YAML).
fn lines_tier(lines: Lines<'_>, pat: &[LineText], o: &Found, floor: Tier) -> Tier {
    let mut loosest = floor;
    for (p, f) in pat.iter().zip(&o.map) {
        let Some(f) = f else { continue };
        let key = PatKey::new(p);
        if let Some(t) = PER_LINE.into_iter().find(|&t| key_eq(t, lines.text(*f), &key)) {
            loosest = loosest.max(t);
        }
    }
    loosest
}

/// The comparison tiers a single line can match at, strictest first.
const PER_LINE: [Tier; 4] = [Tier::Exact, Tier::TrailingWhitespace, Tier::Trimmed, Tier::Unicode];

/// Whether the old side stands at its fuzzy match `o` but for typos: every line matched
/// to a file line, equal to it at a comparison tier or within a typo of it (the cap the
/// fuzzy tier allows a changed line). A line that is no typo of the file's (another
/// statement in its place) means the old side only resembles that place.
fn old_stands(lines: Lines<'_>, q: &Query<'_>, o: &Found) -> bool {
    (q.pat.iter().zip(&o.map)).all(|(p, f)| {
        f.is_some_and(|f| {
            let (file, key) = (lines.text(f), PatKey::new(p));
            if PER_LINE.into_iter().any(|t| key_eq(t, file, &key)) {
                return true;
            }
            let (a, b): (Vec<char>, Vec<char>) = (p.trim().chars().collect(), file.trim().chars().collect());
            let cap = crate::locate::fuzzy::distance::typo_cap(a.len());
            crate::locate::fuzzy::distance::bounded_distance(
                &a,
                &b,
                cap,
                &mut crate::locate::fuzzy::distance::Budget::new(u64::MAX),
            )
            .is_some()
        })
    })
}

/// Whether every line the edit removes stands at the fuzzy match `o` as written
/// (whitespace and look-alikes aside), and there is at least one: what makes the match
/// only similar is in the lines the edit keeps, so the lines it would change are there.
fn removed_stand(lines: Lines<'_>, q: &Query<'_>, o: &Found, kept: &[Option<usize>]) -> bool {
    let mut is_kept = vec![false; q.pat.len()];
    kept.iter().flatten().for_each(|&i| {
        if let Some(k) = is_kept.get_mut(i) {
            *k = true;
        }
    });
    let mut removed = (q.pat.iter().zip(&o.map).zip(&is_kept)).filter(|(_, k)| !**k).peekable();
    removed.peek().is_some()
        && removed.all(|((p, f), _)| f.is_some_and(|f| key_eq(Tier::Unicode, lines.text(f), &PatKey::new(p))))
}

/// Whether a line the edit removes (matched at the file lines `removed_at`) is a line
/// the new side adds, as matched at `n`.
fn removed_on_added(removed_at: &HashSet<usize>, n: &Found, kept: &[Option<usize>]) -> bool {
    (n.map.iter().zip(kept)).any(|(f, k)| k.is_none() && f.is_some_and(|f| removed_at.contains(&f)))
}

/// The file lines the old side's removed lines matched at `o`.
fn removed_lines(o: &Found, kept: &[Option<usize>]) -> HashSet<usize> {
    let mut removed = vec![true; o.map.len()];
    kept.iter().flatten().for_each(|&i| {
        if let Some(r) = removed.get_mut(i) {
            *r = false;
        }
    });
    (o.map.iter().zip(&removed)).filter_map(|(f, r)| f.filter(|_| *r)).collect()
}

/// The file lines the new side's added lines matched at `n`.
fn added_lines(n: &Found, kept: &[Option<usize>]) -> HashSet<usize> {
    (n.map.iter().zip(kept)).filter_map(|(f, k)| f.filter(|_| k.is_none())).collect()
}

/// Whether every line the new side at `n` adds stands in the file as written (whitespace
/// and look-alikes aside), and at least one of them stands where the old side (matched
/// at the file lines `old_at`) has nothing: a line sitting on a removed line is explained
/// as well by a typo in the removed line as by the edit, so only a pure addition shows
/// the edit was made.
fn adds_present(lines: Lines<'_>, old_at: &HashSet<usize>, n: &Found, new: &NewSide<'_>) -> bool {
    let mut pure = false;
    for (j, k) in new.kept.iter().enumerate() {
        if k.is_some() {
            continue;
        }
        let Some(Some(f)) = n.map.get(j) else { continue };
        if !key_eq(Tier::Unicode, lines.text(*f), &PatKey::new(&new.q.pat[j])) {
            return false;
        }
        pure |= !old_at.contains(f);
    }
    pure
}

/// Whether every line the new side at `n` adds stands in the file as written (whitespace
/// and look-alikes aside).
fn adds_as_written(lines: Lines<'_>, n: &Found, new: &NewSide<'_>) -> bool {
    new.kept.iter().enumerate().filter(|(_, k)| k.is_none()).all(|(j, _)| match n.map.get(j) {
        Some(Some(f)) => key_eq(Tier::Unicode, lines.text(*f), &PatKey::new(&new.q.pat[j])),
        _ => true,
    })
}

/// Whether every line the edit removes (matched at the file lines `removed_at`) is gone
/// where the new side stands at `n`: each is a line the new side adds.
fn removed_absent(removed_at: &HashSet<usize>, n: &Found, kept: &[Option<usize>]) -> bool {
    let added_at = added_lines(n, kept);
    removed_at.iter().all(|f| added_at.contains(f))
}

/// Every place of the new side at the first of `tiers` that has any, in `lo..hi`.
fn find(lines: Lines<'_>, new: &NewSide<'_>, tiers: TierSet, lo: usize, hi: usize) -> Option<(Tier, Vec<Found>)> {
    if tiers.is_empty() || lo >= hi {
        return None;
    }
    let q = Query { lo, hi, ..new.q.clone() };
    Classified::new(lines, &q, tiers).all(&q, tiers)
}

/// The tiers of `tiers` stricter than `tier`.
fn stricter(tiers: TierSet, tier: Tier) -> TierSet {
    tiers.intersect(TierSet::range(Tier::Exact, tier)).without(tier)
}

/// The place nearest to the hint, else the first.
fn nearest(places: &[Found], hint: Option<usize>) -> Found {
    let chosen = hint.and_then(|h| places.iter().min_by_key(|p| p.start.abs_diff(h)));
    chosen.unwrap_or(&places[0]).clone()
}

/// Locates `q.pat` in `lines`, trying `tiers` in order: the engine's candidates at the
/// first tier that has any, and rule 1 ([`choose`]) on them. For [`Occurrence::All`] every
/// match at the first tier that matches anything is returned.
pub(crate) fn locate(lines: Lines<'_>, q: &Query<'_>, tiers: TierSet) -> Result<Vec<Found>, Miss> {
    let mut classified = Classified::new(lines, q, tiers);
    let Some((tier, candidates)) = classified.first_tier(q, tiers) else { return Err(Miss::NotFound) };
    let view = classified.view_of(tier);
    let chosen = choose(view, &candidates, tier, q)?;
    Ok(chosen.into_iter().map(|(s, c)| view.found(s, q.pat.len(), tier, c)).collect())
}

/// Rule 1: picks among the candidates (view position, confidence) of one tier, in file
/// order: the places the engine's search takes, or why it takes none ([`Miss`]).
pub(crate) fn choose(
    view: &View<'_>,
    cands: &[(usize, f64)],
    tier: Tier,
    q: &Query<'_>,
) -> Result<Vec<(usize, f64)>, Miss> {
    let m = view.pat.len();
    let range = |s: usize| (view.idx.at(s), view.idx.at(s + m - 1) + 1);
    let ambiguous = |list: &[(usize, f64)]| {
        let scores = if tier == Tier::Fuzzy { list.iter().map(|&(_, c)| c).collect() } else { Vec::new() };
        Miss::Ambiguous(tier, list.iter().map(|&(s, _)| range(s)).collect(), scores)
    };

    if tier == Tier::Fuzzy {
        // The ambiguity guard: the best must beat every other place by the margin.
        let best = cands.iter().map(|c| c.1).fold(f64::MIN, f64::max);
        let close: Vec<(usize, f64)> =
            cands.iter().copied().filter(|c| c.1 >= best - crate::ir::plan::AMBIGUITY_MARGIN).collect();
        if close.len() == 1 {
            return if close[0].1 >= q.threshold { Ok(close) } else { Err(Miss::NotFound) };
        }
        let chosen = nearest_to_hint(view, &close, q.hint)
            // A place fixed by an earlier match: the first of the close ones.
            .or_else(|| q.positional.then(|| close.iter().copied().find(|c| c.1 >= q.threshold)).flatten());
        if let Some(one) = chosen
            && one.1 >= q.threshold
        {
            return Ok(vec![one]);
        }
        if close.iter().all(|c| c.1 < q.threshold) {
            return Err(Miss::NotFound);
        }
        return Err(ambiguous(&close));
    }
    if cands.len() == 1 {
        return Ok(cands.to_vec());
    }
    if q.occurrence == Occurrence::All && tier <= q.base.max(Tier::TrailingWhitespace) {
        return Ok(cands.to_vec());
    }
    if let Some(one) = nearest_to_hint(view, cands, q.hint) {
        return Ok(vec![one]);
    }
    // The place is fixed by an earlier match: the first, at whatever tier found it.
    if q.positional {
        return Ok(vec![cands[0]]);
    }
    let lenient = tier.is_lenient() && tier > q.base;
    // A block of only braces and blank lines says nothing about where it belongs: taking
    // the first of several places would be a guess.
    if !lenient && q.occurrence == Occurrence::First && !says_little(&view.pat) {
        // The search runs from the hint (`@@ :N`): of the two places as near to it, the one
        // at or after it; without a hint, the first. Never the first overall past a hint.
        let Some(hint) = q.hint else { return Ok(vec![cands[0]]) };
        return match tied_after_hint(view, cands, hint) {
            Some(one) => Ok(vec![one]),
            None => Err(ambiguous(cands)),
        };
    }
    Err(ambiguous(cands))
}

/// Whether every line of the pattern is blank or at most 3 characters long (`}`, `end`,
/// `fi`, `);`): such a block matches too many places to be located by "first".
fn says_little(pat: &[(usize, &str)]) -> bool {
    pat.iter().all(|(_, p)| p.trim().chars().count() <= 3)
}

/// Of the candidates nearest to `hint` (two, at the same distance before and after it),
/// the one after it.
fn tied_after_hint(view: &View<'_>, cands: &[(usize, f64)], hint: usize) -> Option<(usize, f64)> {
    let dist = |s: usize| view.idx.at(s).abs_diff(hint);
    let best = cands.iter().map(|c| dist(c.0)).min()?;
    cands.iter().copied().find(|c| dist(c.0) == best && view.idx.at(c.0) >= hint)
}

/// The candidate strictly nearest to the hint, if there is a hint and one is nearest.
fn nearest_to_hint(view: &View<'_>, cands: &[(usize, f64)], hint: Option<usize>) -> Option<(usize, f64)> {
    let hint = hint?;
    let dist = |s: usize| view.idx.at(s).abs_diff(hint);
    let best = cands.iter().map(|c| dist(c.0)).min()?;
    let mut nearest = cands.iter().filter(|c| dist(c.0) == best);
    let first = *nearest.next()?;
    if nearest.next().is_some() { None } else { Some(first) }
}

/// The edit's new side, to look for (only for line and range replacements that change
/// something).
pub(crate) fn new_side<'a>(
    edit: &'a Edit,
    q: &Query<'a>,
    kept: &'a [Option<usize>],
    added: &'a [bool],
) -> Option<NewSide<'a>> {
    let Action::Replace(rep) = &edit.action else { return None };
    if rep.lines.is_empty() || rep.lines == *q.pat || !matches!(edit.target, Target::Lines(_) | Target::Range { .. }) {
        return None;
    }
    let weak = NewSide::is_weak(kept, q.pat.len());
    let q = Query { pat: &rep.lines, occurrence: Occurrence::First, positional: false, changed: added, ..q.clone() };
    Some(NewSide { q, kept, weak })
}

/// Rule 6: whether replacing file lines `start..end` by `new` changes nothing: the same
/// texts and, where the patch gives the terminators (`patch_ends`), the same terminators
/// (a last line without one counts as the same, unless the plan adds a final newline).
pub(crate) fn replacement_unchanged(
    lines: Lines<'_>,
    (start, end): (usize, usize),
    new: &[Line],
    patch_ends: bool,
    adds_final_newline: bool,
) -> bool {
    let same_end =
        |a: &Line, b: LineRef<'_>| !patch_ends || a.eol == b.eol || (b.eol == Eol::None && !adds_final_newline);
    new.len() == end - start && new.iter().zip(lines.slice(start..end)).all(|(a, b)| a.text == b.text && same_end(a, b))
}

/// Rule 6: for an insertion next to a located block, whether its lines `new` (shaped as
/// they would be written) already stand there: from `at` on for an insertion after the
/// block (`at` is the block's end), up to `at` for one before it (`at` is its start).
/// Compared trimmed, so re-indented lines count as there.
pub(crate) fn insertion_already_there(lines: Lines<'_>, at: usize, new: &[Line], after: bool) -> bool {
    if after {
        block_eq(lines.slice(at.min(lines.len())..), new)
    } else {
        at >= new.len() && block_eq(lines.slice(at - new.len()..at), new)
    }
}

/// Rule 6: for an insertion at a fixed position `at` (start or end of the file, after an
/// anchor, at a line number), where its lines `new` already stand: right after the
/// position or, at the end of the file, right before it (compared trimmed). Returns the
/// first of those lines; `None` when they are not there, or when there are none.
pub(crate) fn inserted_at_already_there(lines: Lines<'_>, at: usize, new: &[Line]) -> Option<usize> {
    if new.is_empty() {
        return None;
    }
    if block_eq(lines.slice(at..), new) {
        return Some(at);
    }
    (at == lines.len() && at >= new.len() && block_eq(lines.slice(at - new.len()..at), new)).then(|| at - new.len())
}

/// Rule 2: for an edit whose dialect counts a target not found as done
/// ([`Missing::AlreadyApplied`](crate::ir::plan::Missing::AlreadyApplied), `ap` §3.1 `DELETE`): the place of lines like the target
/// still in the file, at the lenient tiers the search (at `tiers`) did not try: look-alike
/// characters, or every line within a typo of the file's (the fuzzy tier's cap on changed
/// lines, whatever the score). Such lines were not removed: "already applied" is never a
/// shortcut past a lenient match, and the edit is refused naming them.
pub(crate) fn target_still_like(lines: Lines<'_>, q: &Query<'_>, tiers: TierSet) -> Option<Found> {
    let lenient = TierSet::only(Tier::Unicode).with(Tier::Fuzzy).difference(tiers);
    let probe = Query { threshold: 0.8, ..q.clone() };
    locate(lines, &probe, lenient).ok().and_then(|like| like.into_iter().next())
}

/// Whether the first lines of `have` equal `want` (trimmed).
fn block_eq(have: Lines<'_>, want: &[Line]) -> bool {
    have.len() >= want.len() && want.iter().zip(have).all(|(w, h)| w.text.trim() == h.text.trim())
}

/// Rule 6: for a replacement whose new side contains the old side (a pure insertion around
/// kept lines), whether the full new side is already in the file around the match.
///
/// In repetitive text both can hold: the old side where it was found, and the new side
/// around it (`a a b a a` holds both `a b a` and the new side `a a b a a` of inserting an
/// `a` on each side). A line hint (0-based) decides then: the old side found exactly
/// where the hint says means not yet applied.
///
/// With `skip_blank` (the old side matched with blank lines ignored, [`Tier::BlankLines`],
/// or a dialect that ignores them, `ap` §3.2) blank lines count on neither side: a patch
/// that dropped a blank context line from both of its sides, run again, finds the lines
/// it adds beside its old side with the file's blank line between them, and adds nothing.
/// The lines it adds must then say something (not only blank lines).
pub(crate) fn replacement_already_there(
    lines: Lines<'_>,
    old: &[LineText],
    new: &[LineText],
    f: &Found,
    hint: Option<usize>,
    skip_blank: bool,
) -> bool {
    let counts = |l: &&LineText| !skip_blank || !is_blank(l);
    let (old, new): (Vec<&LineText>, Vec<&LineText>) =
        (old.iter().filter(counts).collect(), new.iter().filter(counts).collect());
    if old.is_empty() || new.len() <= old.len() || f.map.is_empty() {
        return false;
    }
    // The old side inside the new one, compared at the tier it matched (an `ap` content
    // that nests the snippet one level deeper holds it re-indented).
    let tier = f.tier.min(Tier::Unicode);
    let holds_old = |k: usize| new[k..k + old.len()].iter().zip(&old).all(|(n, o)| key_eq(tier, n, &PatKey::new(o)));
    let Some(k) = (0..=new.len() - old.len()).find(|&k| holds_old(k)) else {
        return false;
    };
    if k > 0 && hint == Some(f.start) {
        return false;
    }
    // The file's lines of the match, before and after it (blank ones skipped when they
    // do not count), against the new side's old part (a fuzzy match only resembles it),
    // and the new lines before and after it.
    let file_eq = |at: Vec<usize>, want: &[&LineText]| {
        at.len() == want.len() && at.iter().zip(want).all(|(&i, w)| key_eq(tier, lines.text(i), &PatKey::new(w)))
    };
    let (above, below) = (&new[..k], &new[k + old.len()..]);
    let mut before: Vec<usize> =
        (0..f.start).rev().filter(|&i| !skip_blank || !is_blank(lines.text(i))).take(above.len()).collect();
    before.reverse();
    let within = (f.start..f.end).filter(|&i| !skip_blank || !is_blank(lines.text(i))).collect();
    let after = (f.end..lines.len()).filter(|&i| !skip_blank || !is_blank(lines.text(i))).take(below.len()).collect();
    file_eq(within, &new[k..k + old.len()]) && file_eq(before, above) && file_eq(after, below)
}

/// Rule 6: for a range replacement (`ap` `start_snippet`/`end_snippet`), whether the new lines
/// already stand in the file from the range's start on: a content that runs past the end
/// line (keeps it and adds lines after it) leaves the end line in place, so a re-run finds
/// the same range again and, compared with the range alone, would add those lines once
/// more. `ap` §3.1: re-applying changes nothing.
pub(crate) fn range_already_there(lines: Lines<'_>, edit: &Edit, f: &Found, start: usize, new: &[Line]) -> bool {
    if !matches!(edit.target, Target::Range { .. }) || new.len() <= f.end - f.start {
        return false;
    }
    let tier = f.tier.min(Tier::Unicode);
    start + new.len() <= lines.len()
        && new
            .iter()
            .zip(lines.slice(start..start + new.len()))
            .all(|(n, h)| key_eq(tier, h.text, &PatKey::new(&n.text)))
}

/// A line the edit removes or replaces that matched its file line only by likeness.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unlike {
    /// The pattern line (0-based index in the old side).
    pub pat: usize,
    /// The file line it matched (0-based).
    pub file: usize,
}

/// Rule 4: the lines the edit removes or replaces that the match at `f` found only by
/// likeness. Context lines (kept on both sides) may match at any tier; a line the edit
/// removes must equal its file line at a tier that forgives only whitespace,
/// indentation, line endings or look-alike characters ([`Tier::Unicode`] and stricter),
/// since the edit destroys it: a line that differs was written against other content
/// (a typo, or a stale view of a file someone changed since), and overwriting it would
/// lose that change. One exception, for edits without explicit context (`written` is
/// `Some`: an `ap` snippet, an Aptix `find`): a removed line whose place the edit fills
/// with exactly the file's line, among the lines it adds between the same kept lines
/// (`find` has `gmoil.com`, `replace` and the file `gmail.com`), loses nothing and may
/// stand.
///
/// `kept` aligns new lines to old ones; `written`, when given, holds the new lines (as
/// the patch wrote them: they are compared without their indentation). Only a match at [`Tier::Fuzzy`] can have
/// such lines; every other tier forgives at most whitespace and look-alikes.
pub(crate) fn unlike_removals(
    lines: Lines<'_>,
    pat: &[LineText],
    f: &Found,
    kept: &[Option<usize>],
    written: Option<&[LineText]>,
) -> Vec<Unlike> {
    if f.tier != Tier::Fuzzy {
        return Vec::new();
    }
    let in_place = replaced_by(kept, pat.len());
    let mut out = Vec::new();
    for (i, p) in pat.iter().enumerate() {
        let Some(Some(at)) = f.map.get(i) else { continue };
        let Some(file) = lines.get(*at) else { continue };
        if in_place[i] == InPlace::Kept || key_eq(Tier::Unicode, file.text, &PatKey::new(p)) {
            continue;
        }
        let rewritten = match (written, in_place[i]) {
            (Some(new), InPlace::Written(from, to)) => new
                .get(from..to)
                .is_some_and(|group| group.iter().any(|n| key_eq(Tier::Unicode, file.text, &PatKey::new(n)))),
            _ => false,
        };
        if !rewritten {
            out.push(Unlike { pat: i, file: *at });
        }
    }
    out
}

/// What stands in place of an old line after the edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum InPlace {
    /// The line is kept (context).
    Kept,
    /// Removed; the new lines `from..to` (the ones added between the same kept lines) are
    /// written where it stood.
    Written(usize, usize),
    /// Removed, nothing in its place.
    Nothing,
}

/// For each of `old_len` old lines, what the edit aligned by `kept` puts in its place.
fn replaced_by(kept: &[Option<usize>], old_len: usize) -> Vec<InPlace> {
    let mut out = vec![InPlace::Nothing; old_len];
    // The old lines after the last kept one, and the new lines added since.
    let mut from = 0usize;
    let mut added: Vec<usize> = Vec::new();
    let pair = |out: &mut Vec<InPlace>, from: usize, to: usize, added: &[usize]| {
        if let (Some(&first), Some(&last)) = (added.first(), added.last()) {
            for slot in &mut out[from.min(old_len)..to.min(old_len)] {
                *slot = InPlace::Written(first, last + 1);
            }
        }
    };
    for (j, k) in kept.iter().enumerate() {
        match k {
            None => added.push(j),
            Some(i) => {
                if *i >= from {
                    pair(&mut out, from, *i, &added);
                    from = i + 1;
                }
                if let Some(slot) = out.get_mut(*i) {
                    *slot = InPlace::Kept;
                }
                added.clear();
            }
        }
    }
    pair(&mut out, from, old_len, &added);
    out
}

/// Rule 5: a match found only by likeness (fuzzy) at `start` whose place disagrees with
/// the patch's line number `hint` (0-based) by more than [`FUZZY_HINT_WINDOW`] lines,
/// also after the offset the file's earlier edits landed at (`drift`): likeness far from
/// where the patch points is no evidence of the place (a look-alike method 100 lines
/// away). `None`: no such disagreement.
pub(crate) fn far_from_hint(f: &Found, hint: Option<usize>, drift: isize) -> Option<usize> {
    let hint = hint?;
    if f.tier != Tier::Fuzzy {
        return None;
    }
    let near = |h: usize| f.start.abs_diff(h) <= FUZZY_HINT_WINDOW;
    let shifted = hint.checked_add_signed(drift);
    if near(hint) || shifted.is_some_and(near) { None } else { Some(hint) }
}

/// How many lines a match found only by likeness may stand from the patch's line number
/// (models' line numbers are often off by a few dozen lines; a look-alike farther away is
/// another place).
pub(crate) const FUZZY_HINT_WINDOW: usize = 30;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::query::{test_lines, test_query};
    use crate::text::lines::TextFile;

    fn run(file: &str, old: &[&str], new: &[&str], kept: &[Option<usize>], occurrence: Occurrence) -> Decision {
        run_at(crate::ir::plan::DEFAULT_FUZZY_THRESHOLD, file, old, new, kept, occurrence)
    }

    fn run_at(
        threshold: f64,
        file: &str,
        old: &[&str],
        new: &[&str],
        kept: &[Option<usize>],
        occurrence: Occurrence,
    ) -> Decision {
        let f = TextFile::parse(file);
        let (old, new) = (test_lines(old), test_lines(new));
        let q = Query { threshold, ..test_query(&old, f.len(), occurrence) };
        let located = locate(f.lines(), &q, TierSet::ALL);
        let side = NewSide { q: Query { pat: &new, ..q.clone() }, kept, weak: NewSide::is_weak(kept, old.len()) };
        decide(f.lines(), &q, located, Some(&side), TierSet::ALL)
    }

    #[test]
    fn a_new_side_inside_the_old_match_is_no_evidence_but_a_doubtful_deletion_is_refused() {
        // The old side has a typo (fuzzy, a dropped letter) in a line it removes; the new
        // side keeps only its first line: applied.
        let file = "const a = require('./a');\n\n// @ts-check\n\nclass A {\n";
        let got = run(
            file,
            &["const a = require('./a');", "", "// @ts-chek"],
            &["const a = require('./a');"],
            &[Some(0)],
            Occurrence::Unique,
        );
        assert!(matches!(&got, Decision::Apply(f, _) if (f[0].start, f[0].end) == (0, 3)), "{got:?}");
        // A letter swapped for another (`chack`): a sibling line as likely as a typo.
        let got = run(
            file,
            &["const a = require('./a');", "", "// @ts-chack"],
            &["const a = require('./a');"],
            &[Some(0)],
            Occurrence::Unique,
        );
        assert!(matches!(&got, Decision::DoubtfulDeletion(o) if (o.start, o.end) == (0, 3)), "{got:?}");
        // The typo in the kept line instead: applied where the old side matched.
        let got = run(
            file,
            &["const a = require('./b');", "", "// @ts-check"],
            &["const a = require('./b');"],
            &[Some(0)],
            Occurrence::Unique,
        );
        assert!(
            matches!(&got, Decision::Apply(f, _) if f[0].tier == Tier::Fuzzy && (f[0].start, f[0].end) == (0, 3)),
            "{got:?}"
        );
    }

    #[test]
    fn a_fuzzy_new_side_elsewhere_as_similar_as_the_fuzzy_old_side_is_unclear() {
        // A patch with a typo (`secnd`) was applied to `second`; run again, its old side
        // resembles `first` (0.9, above ApplyDiff's 0.85) and its new side resembles
        // `second` more: both readings.
        let file = "def first():\n    value = compute(1)\n    log(value)\n    return value\n\n\n\
                    def second():\n    value = compute(2)\n    log(value, level=2)\n    return value\n";
        let old = ["def secnd():", "    value = compute(2)", "    log(value)", "    return value"];
        let new = ["def secnd():", "    value = compute(2)", "    log(value, level=2)", "    return value"];
        let kept = [Some(0), Some(1), None, Some(3)];
        let got = run_at(0.85, file, &old, &new, &kept, Occurrence::Unique);
        assert!(
            matches!(&got, Decision::Unclear { old, new } if (old.start, new.start) == (0, 6) && old.tier == Tier::Fuzzy),
            "{got:?}"
        );
        // The first run: the new side's best place elsewhere (`first`) is less similar
        // than the old side's match (`second`): applied.
        let file = file.replace("log(value, level=2)", "log(value)");
        let got = run_at(0.85, &file, &old, &new, &kept, Occurrence::Unique);
        assert!(matches!(&got, Decision::Apply(f, _) if f[0].start == 6 && f[0].tier == Tier::Fuzzy), "{got:?}");
    }

    /// A top-level `load` (the old side's place, a typo in the line it removes) and a
    /// method `load` one level deeper (the new side's lines, re-indented).
    const TWO_LOADS: &str = "class Cache:\n    def load(store, key):\n        value = store.get(key)\n        \
                             if value is None:\n            raise KeyError(key)\n        return value\n\n\n\
                             def load(store, key):\n    value = store.get(key)\n    if value is None:\n        \
                             return None\n    return value\n";
    const LOAD_OLD: [&str; 5] = [
        "def load(store, key):",
        "    value = store.get(key)",
        "    if value is None:",
        "        return Nnoe",
        "    return value",
    ];
    const LOAD_NEW: [&str; 5] = [
        "def load(store, key):",
        "    value = store.get(key)",
        "    if value is None:",
        "        raise KeyError(key)",
        "    return value",
    ];
    const LOAD_KEPT: [Option<usize>; 5] = [Some(0), Some(1), Some(2), None, Some(4)];

    #[test]
    fn a_new_side_elsewhere_looser_than_the_fuzzy_old_sides_lines_is_no_evidence() {
        // The old side's lines stand exactly at lines 9-13 but for the typo; the new side
        // only at the indentation tier at lines 2-6: applied where the old side stands
        // (it was "already applied", nothing written).
        let got = run(TWO_LOADS, &LOAD_OLD, &LOAD_NEW, &LOAD_KEPT, Occurrence::Unique);
        assert!(matches!(&got, Decision::Apply(f, _) if f[0].start == 8 && f[0].tier == Tier::Fuzzy), "{got:?}");
        // With the new side exactly there, and the line the edit removes only similar to
        // the file's (`return Nnoe`): a re-run that meets a look-alike, already applied.
        let file = LOAD_NEW.join("\n")
            + "\n\n\ndef load(store, key):\n    value = store.get(key)\n    if value is None:\n        \
                                       return Null\n    return value\n";
        let got = run(&file, &LOAD_OLD, &LOAD_NEW, &LOAD_KEPT, Occurrence::Unique);
        assert!(matches!(&got, Decision::AlreadyApplied(n) if n.start == 0 && n.tier == Tier::Exact), "{got:?}");
    }

    #[test]
    fn a_new_side_elsewhere_as_strict_against_an_old_side_whose_removed_lines_stand_is_unclear() {
        // The typo is in a kept line (`valeu`), which the file has as written where the
        // new side stands (lines 2-4); the line the edit removes stands at lines 6-8.
        let file = "def a():\n    v = get()\n    if valeu is None:\n        raise KeyError()\n\n\
                    def b():\n    v = get()\n    if value is None:\n        return None\n";
        let old = ["    v = get()", "    if valeu is None:", "        return None"];
        let new = ["    v = get()", "    if valeu is None:", "        raise KeyError()"];
        let got = run(file, &old, &new, &[Some(0), Some(1), None], Occurrence::Unique);
        assert!(
            matches!(&got, Decision::Unclear { old, new } if (old.start, new.start) == (6, 1) && old.tier == Tier::Fuzzy),
            "{got:?}"
        );
    }

    #[test]
    fn a_one_line_fuzzy_new_side_elsewhere_must_be_clearly_more_similar() {
        // `version = "1.0.66"` resembles the new line as much as line 1 resembles the old
        // one: chance, not a re-run (an accuracy-harness case of anyhow's Cargo.toml).
        let file = "[package]\nversion = \"1.0.80\"\n\n[dev-dependencies.trybuild]\nversion = \"1.0.66\"\n";
        let got = run_at(0.85, file, &["versjon = \"1.0.80\""], &["version = \"1.0.86\""], &[None], Occurrence::Unique);
        assert!(matches!(&got, Decision::Apply(f, _) if f[0].start == 1 && f[0].tier == Tier::Fuzzy), "{got:?}");
    }

    #[test]
    fn a_deletion_matched_fuzzily_on_its_removed_line_is_doubtful() {
        // `self.a2 = 0` was deleted; run again, the block meets `self.a1 = 0` (fuzzy).
        let file = "def f(self):\n    self.a1 = 0\n    self.a3 = 0\n";
        let old = ["    self.a2 = 0", "    self.a3 = 0"];
        let got = run(file, &old, &["    self.a3 = 0"], &[Some(1)], Occurrence::Unique);
        assert!(matches!(&got, Decision::DoubtfulDeletion(o) if o.start == 1), "{got:?}");
        // A typo in the kept line only: the removed line is there as written; applied.
        let file = "def f(self):\n    self.a2 = 0\n    self.a3 = 0\n";
        let got =
            run(file, &["    self.a2 = 0", "    self.a3 = O"], &["    self.a3 = O"], &[Some(1)], Occurrence::Unique);
        assert!(matches!(&got, Decision::Apply(f, _) if f[0].start == 1 && f[0].tier == Tier::Fuzzy), "{got:?}");
    }

    #[test]
    fn a_re_run_whose_old_side_matches_loosely_elsewhere_is_already_applied() {
        // After deleting `x = 1`, the old side's window matches the shifted lines fuzzily.
        let file = "fn f() {\n    let aaaa = 1;\n    let bbbb = 2;\n    let cccc = 3;\n    let dddd = 4;\n}\n";
        let old = ["let aaaa = 1;", "let bbbb = 2;", "x = 1", "let cccc = 3;", "let dddd = 4;"];
        let new = ["let aaaa = 1;", "let bbbb = 2;", "let cccc = 3;", "let dddd = 4;"];
        let kept = [Some(0), Some(1), Some(3), Some(4)];
        let got = run(file, &old, &new, &kept, Occurrence::Unique);
        assert!(matches!(got, Decision::AlreadyApplied(ref n) if n.start == 1), "{got:?}");
    }

    #[test]
    fn a_re_run_whose_old_side_matches_the_result_loosely_is_already_applied() {
        // The old side's removed line matches the added line fuzzily, and the kept line is
        // the same: the file holds the new side.
        let file = "def greet(name):\n    print(\"hello,\", name)\n    return name\n";
        let got = run(
            file,
            &["def greet(name):", "    print(\"hello\", name)"],
            &["def greet(name):", "    print(\"hello,\", name)", "    return name"],
            &[Some(0), None, None],
            Occurrence::First,
        );
        assert!(
            matches!(got, Decision::AlreadyApplied(ref n) if (n.start, n.end, n.tier) == (0, 3, Tier::Exact)),
            "{got:?}"
        );
    }

    #[test]
    fn a_weak_new_side_counts_only_at_the_hint() {
        let weak = |kept: &[Option<usize>], n| NewSide::is_weak(kept, n);
        assert!(weak(&[Some(0)], 2), "a deletion after its context");
        assert!(weak(&[Some(1)], 2), "a deletion before its context");
        assert!(!weak(&[Some(0), Some(2)], 3), "a deletion between kept lines joins them");
        assert!(!weak(&[Some(0), None], 2), "an added line");
        // A re-run of `alpha`/`-beta` at line 5 (0-based 4), where the other copy of the old
        // side stands at line 2: refused with both places instead of deleting that one.
        let file = TextFile::parse("one:\n    alpha\n  beta\ntwo:\n  alpha\n");
        let (old, new) = (test_lines(&["alpha", "beta"]), test_lines(&["alpha"]));
        let q = Query { hint: Some(4), ..test_query(&old, file.len(), Occurrence::First) };
        let side = NewSide { q: Query { pat: &new, ..q.clone() }, kept: &[Some(0)], weak: true };
        let got = decide(file.lines(), &q, locate(file.lines(), &q, TierSet::ALL), Some(&side), TierSet::ALL);
        assert!(matches!(got, Decision::Unclear { ref old, ref new } if (old.start, new.start) == (1, 4)), "{got:?}");
        // Without the hint the weak side is no evidence.
        let q = Query { hint: None, ..q };
        let side = NewSide { q: Query { pat: &new, ..q.clone() }, ..side };
        let got = decide(file.lines(), &q, locate(file.lines(), &q, TierSet::ALL), Some(&side), TierSet::ALL);
        assert!(matches!(got, Decision::Apply(ref f, _) if f[0].start == 1), "{got:?}");
    }

    #[test]
    fn a_new_side_inside_an_ambiguous_old_side_is_no_evidence() {
        let file = "one:\n    alpha\n  beta\ntwo:\n  alpha\n      beta\n";
        let got = run(file, &["alpha", "beta"], &["alpha"], &[Some(0)], Occurrence::First);
        assert!(matches!(got, Decision::Miss(Miss::Ambiguous(Tier::Trimmed, ..))), "{got:?}");
    }

    #[test]
    fn first_occurrence_with_the_new_side_before_it_is_unclear() {
        let file = "x = 2\nx = 1\n";
        let got = run(file, &["x = 1"], &["x = 2"], &[None], Occurrence::First);
        assert!(matches!(got, Decision::Unclear { ref old, ref new } if old.start == 1 && new.start == 0), "{got:?}");
        // A unique old side is applied: the patch could not have applied at line 1.
        assert!(matches!(run(file, &["x = 1"], &["x = 2"], &[None], Occurrence::Unique), Decision::Apply(..)));
        // The new side after the old one says nothing about a first-occurrence edit.
        let after = "x = 1\nx = 2\n";
        assert!(matches!(run(after, &["x = 1"], &["x = 2"], &[None], Occurrence::First), Decision::Apply(..)));
    }

    #[test]
    fn removed_lines_must_not_differ_but_for_whitespace_and_look_alikes() {
        let file =
            TextFile::parse("def restock(self, amount):\n    if amount <= 0:\n        raise ValueError(\"amount\")\n");
        let old =
            test_lines(&["def restock(self, amount):", "    if amount < 0:", "        raise ValueError(\"amount\")"]);
        let q = test_query(&old, file.len(), Occurrence::Unique);
        let found = locate(file.lines(), &q, TierSet::ALL).unwrap().remove(0);
        assert_eq!(found.tier, Tier::Fuzzy);
        // The second line is replaced: it differs.
        let kept = [Some(0), None, Some(2)];
        assert_eq!(unlike_removals(file.lines(), &old, &found, &kept, None), [Unlike { pat: 1, file: 1 }]);
        // A context line that differs is no matter.
        assert!(unlike_removals(file.lines(), &old, &found, &[Some(0), Some(1), Some(2)], None).is_empty());
        // Without explicit context, an edit writing the file's line in its place loses nothing...
        let written = |second: &str| {
            test_lines(&[
                "def restock(self, amount):",
                second,
                "    log(amount)",
                "        raise ValueError(\"amount\")",
            ])
        };
        let kept = [Some(0), None, None, Some(2)];
        assert!(unlike_removals(file.lines(), &old, &found, &kept, Some(&written("  if amount <= 0:"))).is_empty());
        // ... but another line is a change to it.
        let got = unlike_removals(file.lines(), &old, &found, &kept, Some(&written("    if amount < 1:")));
        assert_eq!(got, [Unlike { pat: 1, file: 1 }]);
        // A strict tier forgives whitespace and look-alikes only: nothing to check.
        let exact = Found { tier: Tier::Unicode, ..found.clone() };
        assert!(unlike_removals(file.lines(), &old, &exact, &[None, None, None], None).is_empty());
    }

    #[test]
    fn likeness_far_from_the_line_number_is_refused() {
        let at = |start: usize, tier: Tier| Found { start, end: start + 3, map: Vec::new(), tier, confidence: 0.95 };
        assert_eq!(far_from_hint(&at(110, Tier::Fuzzy), Some(10), 0), Some(10));
        assert_eq!(far_from_hint(&at(110, Tier::Exact), Some(10), 0), None, "content found as written");
        assert_eq!(far_from_hint(&at(40, Tier::Fuzzy), Some(10), 0), None, "within the window");
        assert_eq!(far_from_hint(&at(41, Tier::Fuzzy), Some(10), 0), Some(10));
        assert_eq!(far_from_hint(&at(110, Tier::Fuzzy), Some(10), 98), None, "where the file moved to");
        assert_eq!(far_from_hint(&at(110, Tier::Fuzzy), None, 0), None);
    }

    #[test]
    fn old_side_gone_and_new_side_there_is_already_applied() {
        // `x = 1` against `y = 2` over three short lines scores 0.87: below the threshold.
        let got = run(
            "alpha\ny = 2\nomega\n",
            &["alpha", "x = 1", "omega"],
            &["alpha", "y = 2", "omega"],
            &[Some(0), None, Some(2)],
            Occurrence::Unique,
        );
        assert!(matches!(got, Decision::AlreadyApplied(ref n) if (n.start, n.tier) == (0, Tier::Exact)), "{got:?}");
        let none = run(
            "alpha\nz = 3\nomega\n",
            &["alpha", "x = 1", "omega"],
            &["alpha", "y = 2", "omega"],
            &[Some(0), None, Some(2)],
            Occurrence::Unique,
        );
        assert!(matches!(none, Decision::Miss(Miss::NotFound)), "{none:?}");
    }

    #[test]
    fn rule_6_probes_for_insertions_and_unchanged_replacements() {
        let file = TextFile::parse("a\nb\nc\n");
        let lines = file.lines();
        let owned = |text: &str| TextFile::parse(text).lines().iter().map(Line::from).collect::<Vec<_>>();
        let bc = owned("  b\nc\n");
        // At a fixed position: right after it, or at the end of the file right before it.
        assert_eq!(inserted_at_already_there(lines, 1, &bc), Some(1), "compared trimmed");
        assert_eq!(inserted_at_already_there(lines, 3, &bc), Some(1));
        assert_eq!(inserted_at_already_there(lines, 2, &bc), None, "before a position not at the end");
        assert_eq!(inserted_at_already_there(lines, 0, &bc), None);
        assert_eq!(inserted_at_already_there(lines, 1, &[]), None, "nothing to insert is never there");
        // Next to a located block: after it from its end on, before it up to its start.
        assert!(insertion_already_there(lines, 1, &bc, true));
        assert!(insertion_already_there(lines, 3, &bc, false));
        assert!(!insertion_already_there(lines, 1, &bc, false), "not enough lines before the block");
        assert!(!insertion_already_there(lines, 2, &bc, true));
        // A replacement that writes the same lines changes nothing; terminators count only
        // when the patch gives them, and a last line without one only if the plan adds it.
        let short_file = TextFile::parse("a\nb");
        let short = short_file.lines();
        let ended = owned("a\nb\n");
        assert!(replacement_unchanged(lines, (1, 3), &owned("b\nc\n"), true, false));
        assert!(!replacement_unchanged(lines, (1, 3), &bc, false, false), "a re-indented line is a change");
        assert!(!replacement_unchanged(lines, (0, 2), &ended[..1], false, false), "fewer lines");
        assert!(replacement_unchanged(short, (0, 2), &ended, true, false));
        assert!(!replacement_unchanged(short, (0, 2), &ended, true, true), "the plan adds the final newline");
        assert!(replacement_unchanged(short, (0, 2), &ended, false, true), "no terminators from the patch");
    }
}
