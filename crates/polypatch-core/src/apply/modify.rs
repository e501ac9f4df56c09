//! Applying the edits of one file to its lines, in order, each seeing the result of the
//! ones before: locate the target (`engine`), decide what that means (`decide`), write
//! the new lines (`shape`).

use std::borrow::Cow;
use std::collections::HashSet;

use crate::apply::report::{
    Closest, EditReport, Failure, FailureKind, LineRange, MAX_EXCERPT_CHARS, Status, clip_excerpt, clip_line,
    list_places,
};
use crate::apply::shape::{self};
use crate::decide::{
    self, Decision, NewSide, Unlike, decide, far_from_hint, inserted_at_already_there, new_side, target_still_like,
    unlike_removals,
};
use crate::ir::plan::{Action, Edit, Missing, Occurrence, Replacement, Target};
use crate::ir::tier::{Leniency, Tier, TierSet};
use crate::locate::effort::Skip;
use crate::locate::engine;
use crate::locate::fold::is_blank;
use crate::locate::index::LineHashes;
use crate::locate::query::{Found, Miss, Query};
use crate::text::lines::{Line, LineText, Lines, TextFile};

use crate::apply::miss::{block_diff, miss_failure};
use crate::apply::write::{Done, Overrides, align, apply_at, removals_allowed, splice_lines, unlike_removed};
/// Applies `edits` to `file` (named `path` in failures of later edits) in order. Returns
/// one report per edit; the file holds the result of every successful edit.
///
/// With a plan ([`Overrides::effort`]): an edit that fails marks the plan failed, and an
/// edit during which a similarity search was skipped (the plan had failed, or its budget
/// ran out) fails with [`FailureKind::SearchSkipped`] unless it was located without one.
pub(crate) fn modify(file: &mut TextFile, edits: &[Edit], ov: Overrides<'_>, path: &str) -> Vec<EditReport> {
    let mut cursor = 0usize;
    // The places the edits so far took: a hunk found before the previous one's place may
    // apply only clear of them.
    let mut placed = Placed::default();
    let in_sequence = edits.iter().any(|e| e.scope.after_previous);
    let mut reports = Vec::with_capacity(edits.len());
    let mut ov = Overrides { eol: file.dominant_eol(), drift: 0, ..ov };
    // Hashed once for every edit: each change to the lines updates them.
    let hashes = LineHashes::default();
    for (i, edit) in edits.iter().enumerate() {
        let mut report = EditReport {
            index: i + 1,
            label: edit.label.clone(),
            status: Status::Failed,
            tier: None,
            confidence: None,
            lines: None,
            failure: None,
            notes: Vec::new(),
        };
        // Every edit, text edits included, keeps the hashes in step with the lines it changes.
        let len_before = file.len();
        let mut result = apply_edit(file, &hashes, edit, &mut cursor, ov, &placed);
        if let (Ok(Done { lines: Some(at), .. }), Some(hint)) = (&result, edit.scope.line_hint) {
            ov.drift = isize::try_from(at.start).unwrap_or(isize::MAX).saturating_sub_unsigned(hint);
        }
        // Kept only where a hunk may come out of order (the others never look).
        if let (true, Ok(Done { lines: Some(at), .. })) = (in_sequence, &result) {
            let old = match &edit.target {
                Target::Lines(pat) => Some(pat.as_slice()),
                _ => None,
            };
            place(&mut placed, (at.start - 1, at.end), old, file.len(), len_before);
        }
        if let Some(effort) = ov.effort {
            let name = || format!("`{path}`, {}", edit_name(edit, i + 1));
            if effort.ran_out() {
                effort.ran_out_at(name);
            }
            // An outcome that rests on a skipped (or cut short) similarity search is not
            // known: the edit is refused, saying why.
            if effort.take_skipped()
                && let Some(skip) = effort.skip()
            {
                result = Err(search_skipped(edit, &skip));
            }
            if result.is_err() {
                effort.fail(name);
            }
        }
        match result {
            Ok(done) => {
                report.status = done.status;
                report.tier = done.tier;
                report.confidence = done.tier.map(|_| (done.confidence * 1000.0).round() / 1000.0);
                report.lines = done.lines;
                report.notes = done.notes;
            }
            // The report names the file; the message says what happened in it.
            Err(failure) => report.failure = Some(failure),
        }
        reports.push(report);
    }
    reports
}

/// The places the earlier edits of a file took, and the work spent checking hunks out of
/// order against them.
#[derive(Debug, Default)]
pub(crate) struct Placed<'a> {
    /// In order of their starts.
    places: Vec<Place<'a>>,
    /// Line and place comparisons spent by [`could_have_stood`] in this file, at most
    /// [`MAX_ORDER_WORK`].
    work: std::cell::Cell<usize>,
}

/// The most line comparisons one file's hunks out of order may cost; past them, such
/// hunks are refused (put in file order, they need none).
/// Each search of the whole file for a hunk out of order counts the file's lines.
const MAX_ORDER_WORK: usize = 1 << 26;

impl Placed<'_> {
    /// Counts `work` against [`MAX_ORDER_WORK`]: false (and nothing counted) past it.
    fn spend(&self, work: usize) -> bool {
        let spent = self.work.get().saturating_add(work);
        if spent > MAX_ORDER_WORK {
            return false;
        }
        self.work.set(spent);
        true
    }
}

/// The place an earlier edit of the file took.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    /// Where it is in the file as it is now (0-based, end exclusive).
    start: usize,
    end: usize,
    /// The lines it was written to find there (`None`: not known as lines).
    old: Option<&'a [LineText]>,
}

/// Records the place `start..end` (0-based, in the file before the edit) of an edit that
/// looked for `old` and changed the file's length from `len_before` to `len_after`: the
/// places after it move with the lines.
fn place<'a>(
    placed: &mut Placed<'a>,
    (start, end): (usize, usize),
    old: Option<&'a [LineText]>,
    len_after: usize,
    len_before: usize,
) {
    let shift = |at: usize| (at + len_after).saturating_sub(len_before);
    // In order of their starts: the places after this one are the tail (none for hunks
    // in file order), so that recording a place costs no scan of the ones before.
    let after = placed.places.partition_point(|p| p.start < end);
    for p in &mut placed.places[after..] {
        (p.start, p.end) = (shift(p.start), shift(p.end));
    }
    let at = placed.places.partition_point(|p| p.start <= start);
    placed.places.insert(at, Place { start, end: shift(end).max(start), old });
}

/// An edit's name in messages: its label, or `edit N`.
fn edit_name(edit: &Edit, index: usize) -> String {
    if edit.label.is_empty() { format!("edit {index}") } else { edit.label.clone() }
}

/// The failure of an edit not located at the tiers that compare lines, whose similarity
/// search was skipped for `skip`.
fn search_skipped(edit: &Edit, skip: &Skip) -> Failure {
    let (what, first) = match &edit.target {
        Target::Text(text) => ("the text to find is", text.lines().map(str::trim).find(|l| !l.is_empty())),
        Target::Lines(pat) | Target::Range { start: pat, .. } => {
            ("the lines to find are", pat.iter().map(|l| l.trim()).find(|l| !l.is_empty()))
        }
        Target::StartOfFile | Target::EndOfFile => ("the place is", None),
        Target::Sketch { .. } => ("the lines to find are", None),
    };
    let first = first.map(|l| format!(" (first line: `{}`)", clip_line(l, MAX_EXCERPT_CHARS))).unwrap_or_default();
    let found = format!("{what} not in the file as written, nor with other whitespace or look-alike characters{first}");
    match skip {
        Skip::Failed(at) => Failure::new(
            FailureKind::SearchSkipped,
            format!(
                "{found}; the search for similar lines was skipped: {at} failed already, so the patch cannot apply"
            ),
            format!(
                "fix {at} first and send the patch again: this edit is then searched in full (if its lines were \
                 copied from the file as it is now, it may well apply)"
            ),
        ),
        Skip::Budget(at) => Failure::new(
            FailureKind::SearchSkipped,
            format!(
                "{found}; the search for similar lines was skipped: the patch's budget for such searches ran out \
                 (at {at})"
            ),
            "split the patch into smaller patches, or copy the lines to find exactly as they are in the file, so \
             that fewer edits need a search for similar lines",
        ),
    }
}

/// How leniently `edit` may match, after the caller's overrides.
fn leniency(edit: &Edit, ov: Overrides<'_>) -> Leniency {
    let tiers = edit.policy.tiers;
    let base = tiers.iter().next().unwrap_or(Tier::Exact);
    let threshold = ov.fuzzy_threshold.unwrap_or(edit.policy.fuzzy_threshold);
    let tiers = match (ov.strict, ov.max_tier) {
        (true, _) => TierSet::only(base),
        // The edit's own floor stays: a caller's cap cannot make an edit stricter than it.
        (false, Some(max)) => tiers.intersect(TierSet::range(Tier::Exact, max)).with(base),
        (false, None) => tiers,
    };
    Leniency { tiers, base, threshold }
}

fn apply_edit(
    file: &mut TextFile,
    hashes: &LineHashes,
    edit: &Edit,
    cursor: &mut usize,
    ov: Overrides<'_>,
    placed: &Placed<'_>,
) -> Result<Done, Failure> {
    let leniency = leniency(edit, ov);
    let Leniency { tiers, base, threshold } = leniency;
    let policy = &edit.policy;
    let len = file.len();
    let hint = edit.scope.line_hint.map(|n| n.saturating_sub(1));
    let mut lo = if edit.scope.after_previous { (*cursor).min(len) } else { 0 };

    // The anchor narrows the search to the lines after it; how strictly it matched counts
    // in the edit's tier.
    let mut anchored: Option<(Tier, f64)> = None;
    if let Some(anchor) = &edit.scope.anchor {
        let q = Query {
            pat: &anchor.lines,
            lo: if anchor.unique { 0 } else { lo },
            hi: len,
            hint,
            at_eof: false,
            occurrence: if anchor.unique { Occurrence::Unique } else { Occurrence::First },
            ignore_blank: policy.ignore_blank_lines,
            threshold,
            base,
            positional: false,
            prefix: anchor.lines.len() == 1,
            changed: &[],
            index: Some(hashes),
            effort: ov.effort,
        };
        let found = decide::locate(file.lines(), &q, tiers.without(Tier::Fuzzy))
            .map_err(|miss| miss_failure(file.lines(), &q, miss, "anchor"))?;
        lo = found[0].end;
        anchored = Some((found[0].tier, found[0].confidence));
    }
    let job = Job { edit, ov, leniency, hint, lo, anchored: anchored.is_some(), placed };
    let mut done = locate_and_apply(file, hashes, &job, cursor)?;
    if let (Some((tier, confidence)), Some(t)) = (anchored, done.tier)
        && tier > t
    {
        done.tier = Some(tier);
        done.confidence = done.confidence.min(confidence);
    }
    Ok(done)
}

/// One edit's settings, the same for every step of applying it.
struct Job<'a> {
    edit: &'a Edit,
    ov: Overrides<'a>,
    leniency: Leniency,
    /// The patch's line number, 0-based.
    hint: Option<usize>,
    /// The search starts at this line: after the previous hunk's place, or after the
    /// anchor.
    lo: usize,
    /// The edit has an anchor, found (it ends at `lo`).
    anchored: bool,
    /// The places the file's earlier edits took.
    placed: &'a Placed<'a>,
}

/// Locates the edit's target in `job.lo..` (after the anchor, if any), decides what it
/// means and applies it: prepare → locate → decide → apply.
fn locate_and_apply(
    file: &mut TextFile,
    hashes: &LineHashes,
    job: &Job<'_>,
    cursor: &mut usize,
) -> Result<Done, Failure> {
    if let Some(done) = apply_unlocated(file, hashes, job, cursor) {
        return done;
    }
    #[cfg(not(feature = "lazy"))]
    if let Target::Sketch { .. } = &job.edit.target {
        return Err(Failure::new(
            FailureKind::InvalidPlan,
            "a lazy snippet (`Target::Sketch`) cannot be merged: this build of polypatch lacks the `lazy` feature",
            "build polypatch with the `lazy` feature, or send the edit with the lines it replaces (a diff or \
             SEARCH/REPLACE block)",
        ));
    }
    #[cfg(feature = "lazy")]
    if let (Target::Sketch { at_start, at_end }, Action::Replace(rep)) = (&job.edit.target, &job.edit.action) {
        let ends = crate::apply::sketch::Ends { at_start: *at_start, at_end: *at_end };
        let s =
            crate::apply::sketch::resolve(file.lines(), hashes, &rep.lines, job.lo, job.leniency.tiers, ends, job.ov)?;
        let mut done =
            crate::apply::write::apply_at(file, hashes, job.edit, &s.pat, &s.kept, &s.found, cursor, job.ov)?;
        let mut notes = s.notes;
        notes.append(&mut done.notes);
        return Ok(Done { notes, ..done });
    }
    let prep = prepare(job)?;
    let q = prep.query(hashes, file.len());
    let located = locate_target(file.lines(), &q, &prep);
    let verdict = decide_edit(file.lines(), &q, &prep, located)?;
    apply_verdict(file, hashes, &prep, verdict, cursor)
}

/// The targets not located as lines: a text (substring) target, and the fixed positions
/// (the start or the end of the file; without lines to find, after the anchor or at the
/// line number). `None`: lines to locate, for the steps after it.
fn apply_unlocated(
    file: &mut TextFile,
    hashes: &LineHashes,
    job: &Job<'_>,
    cursor: &mut usize,
) -> Option<Result<Done, Failure>> {
    let (edit, ov) = (job.edit, job.ov);
    let at = match &edit.target {
        #[cfg(feature = "text-target")]
        Target::Text(_) => return Some(crate::apply::substring::apply_text(file, hashes, edit, ov, job.leniency)),
        #[cfg(not(feature = "text-target"))]
        Target::Text(_) => {
            return Some(Err(Failure::new(
                FailureKind::InvalidPlan,
                "a text edit (`Target::Text`, a substring to replace) cannot be applied: this build of polypatch \
                 lacks the `text-target` feature",
                "build polypatch with the `text-target` feature, or send the edit as the lines it replaces (a diff \
                 or SEARCH/REPLACE block)",
            )));
        }
        Target::StartOfFile => 0,
        Target::EndOfFile => file.len(),
        Target::Lines(pat) if pat.iter().all(|l| edit.policy.ignore_blank_lines && is_blank(l)) || pat.is_empty() => {
            if job.anchored {
                job.lo
            } else if let Some(h) = job.hint {
                h.min(file.len())
            } else {
                return Some(Err(Failure::new(
                    FailureKind::InvalidPlan,
                    "an edit without lines to find needs an anchor or a line number",
                    "give context lines around the change",
                )));
            }
        }
        _ => return None,
    };
    Some(insert_at(file, hashes, at, &edit.action, cursor, ov))
}

/// An edit of lines made ready to locate: its old side, how its new lines align with it,
/// an elision in its new side expanded.
struct Prepared<'a> {
    job: &'a Job<'a>,
    /// The edit, with an elision in its new side expanded.
    edit: Cow<'a, Edit>,
    /// The lines to find (a range's start block).
    pat: &'a [LineText],
    /// A range's end block.
    range_end: Option<&'a [LineText]>,
    /// For each new line, the old line it keeps (`None`: an added line).
    kept: Vec<Option<usize>>,
    /// Per old line, whether the edit removes it: at the fuzzy tier such a line may differ
    /// by a typo only.
    removed: Vec<bool>,
    /// Per new line, whether the edit adds it.
    added: Vec<bool>,
    /// The notes so far (on an expanded elision).
    notes: Vec<String>,
}

/// Step 1: the edit's old side and the alignment of its new lines to it. An elision in
/// new text that replaces lines stands for them (expanded when the extent is clear, else
/// refused). Not for a diff made by a tool from this very file (its preimage id matched):
/// a `...` line there is content.
fn prepare<'a>(job: &'a Job<'a>) -> Result<Prepared<'a>, Failure> {
    let (pat, range_end): (&[LineText], Option<&[LineText]>) = match &job.edit.target {
        Target::Lines(p) => (p, None),
        Target::Range { start, end } => (start, Some(end)),
        _ => unreachable!("handled by apply_unlocated"),
    };
    let kept: Option<Vec<Option<usize>>> = match (&job.edit.action, range_end) {
        (Action::Replace(rep), None) => Some(match &rep.kept {
            Some(k) if k.len() == rep.lines.len() => k.clone(),
            _ => align(pat, &rep.lines),
        }),
        _ => None,
    };
    let mut notes = Vec::new();
    let (edit, kept) = match (job.ov.fresh, crate::apply::elision::prepare(job.edit, kept.as_deref())) {
        (false, Err(failure)) => return Err(failure),
        (false, Ok(Some(exp))) => {
            notes.push(exp.note);
            let kept = exp.replacement.kept.clone();
            (Cow::Owned(Edit { action: Action::Replace(exp.replacement), ..job.edit.clone() }), kept)
        }
        _ => (Cow::Borrowed(job.edit), kept),
    };
    // A range's middle is not known: every new line counts as added.
    let kept = kept.unwrap_or_else(|| match &edit.action {
        Action::Replace(rep) => vec![None; rep.lines.len()],
        _ => Vec::new(),
    });
    // The lines the edit removes: at the fuzzy tier they may differ by a typo only.
    let removed: Vec<bool> = match (&edit.action, range_end) {
        (Action::InsertBefore { .. } | Action::InsertAfter { .. }, _) => Vec::new(),
        (Action::Replace(_), None) => {
            let mut removed = vec![true; pat.len()];
            kept.iter().flatten().for_each(|&i| removed[i] = false);
            removed
        }
        _ => vec![true; pat.len()],
    };
    let added = kept.iter().map(Option::is_none).collect();
    Ok(Prepared { job, edit, pat, range_end, kept, removed, added, notes })
}

impl Prepared<'_> {
    /// The query for the old side, in `job.lo..len`.
    fn query<'q>(&'q self, hashes: &'q LineHashes, len: usize) -> Query<'q> {
        let (job, policy) = (self.job, &self.edit.policy);
        Query {
            pat: self.pat,
            lo: job.lo,
            hi: len,
            hint: job.hint,
            at_eof: self.edit.scope.at_end_of_file && self.range_end.is_none(),
            occurrence: policy.occurrence,
            ignore_blank: policy.ignore_blank_lines,
            threshold: job.leniency.threshold,
            base: job.leniency.base,
            positional: job.anchored && policy.occurrence == Occurrence::FirstAfterAnchor,
            prefix: false,
            changed: &self.removed,
            index: Some(hashes),
            effort: job.ov.effort,
        }
    }
}

/// Where the old side stands, and what a range's search found on the way.
struct Located {
    /// The places (a range's, widened to its end block).
    found: Result<Vec<Found>, Miss>,
    /// A range whose end block is not found after its start: the failure.
    range_miss: Option<Failure>,
    /// A range's start block is all removed: the lines of a fuzzy start that differ, found
    /// before the range's match forgets its lines (refused if the edit is applied).
    range_unlike: Option<(Found, Vec<Unlike>)>,
}

/// Step 2: locates the old side of `q` (a range ends at the first occurrence of its end
/// block after the start block).
fn locate_target(lines: Lines<'_>, q: &Query<'_>, prep: &Prepared<'_>) -> Located {
    let Leniency { tiers, base, .. } = prep.job.leniency;
    // A numbered hunk that stands exactly at (or near) its line number is found by
    // looking outward from it, without scanning the file.
    let near = (base == Tier::Exact && prep.range_end.is_none()).then(|| engine::exact_near_hint(lines, q)).flatten();
    let mut found = match near {
        Some(found) => Ok(vec![found]),
        None => decide::locate(lines, q, tiers),
    };
    let (mut range_miss, mut range_unlike) = (None, None);
    if let (Some(end_pat), Ok(places)) = (prep.range_end, &mut found) {
        for f in places.iter_mut() {
            if range_unlike.is_none() {
                // Every new line is added: a content that writes the file's line back
                // anywhere loses nothing there.
                let (written, all_added) = match &prep.edit.action {
                    Action::Replace(rep) => (Some(rep.lines.as_slice()), vec![None; rep.lines.len()]),
                    _ => (None, Vec::new()),
                };
                let unlike = unlike_removals(lines, prep.pat, f, &all_added, written);
                range_unlike = (!unlike.is_empty()).then(|| (f.clone(), unlike));
            }
            let qe = Query {
                pat: end_pat,
                lo: f.end,
                hint: None,
                at_eof: prep.edit.scope.at_end_of_file,
                occurrence: Occurrence::First,
                positional: true,
                prefix: false,
                changed: &[],
                ..q.clone()
            };
            match decide::locate(lines, &qe, tiers.without(Tier::Fuzzy)) {
                Ok(end) => {
                    f.end = end[0].end;
                    f.map = Vec::new();
                    f.tier = f.tier.max(end[0].tier);
                    f.confidence = f.confidence.min(end[0].confidence);
                }
                Err(miss) => range_miss = Some(miss_failure(lines, &qe, miss, "range end")),
            }
        }
        if range_miss.is_some() {
            found = Err(Miss::NotFound);
        }
    }
    Located { found, range_miss, range_unlike }
}

/// What the decide step concluded for an edit of lines.
enum Verdict {
    /// Nothing to write: the report, and where the cursor moves (`None`: it stays).
    Finished(Done, Option<usize>),
    /// Apply at these places (with the new side found on the same one place, which the
    /// report names if applying changes nothing), with the notes so far.
    Apply(Vec<Found>, Option<Found>, Vec<String>),
    /// Apply at this one place, before the previous hunk's: a hunk out of order.
    OutOfOrder(Found, Option<Found>, Vec<String>),
}

/// Step 3: what the located old side means ([`decide()`]), and the checks on the order of
/// hunks, the line number and a range's removed lines.
fn decide_edit(lines: Lines<'_>, q: &Query<'_>, prep: &Prepared<'_>, located: Located) -> Result<Verdict, Failure> {
    let (job, edit) = (prep.job, &*prep.edit);
    let (policy, ov) = (&edit.policy, job.ov);
    let Located { found: located, range_miss, range_unlike } = located;
    let new_side =
        (policy.detect_already_applied && !ov.fresh).then(|| new_side(edit, q, &prep.kept, &prep.added)).flatten();
    let mut decision = decide(lines, q, located, new_side.as_ref(), job.leniency.tiers);
    let in_sequence = edit.scope.after_previous && job.lo > 0 && !job.anchored && prep.range_end.is_none();
    // Found after the previous hunk's place only leniently, while its lines stand exactly
    // before it: a hunk out of order, or one that does not match; either reading is
    // plausible. (Past the file's budget for such searches it is applied, as it was.)
    if in_sequence
        && let Decision::Apply(found, _) = &decision
        && let [after] = found.as_slice()
        && after.tier > Tier::Exact
        && job.placed.spend(job.lo)
        && let Some(before) = exactly_before(lines, q)
    {
        return Err(out_of_order_or_not(&before, after, job.lo));
    }
    // Not after the previous hunk's place: a hunk written out of order is looked for
    // before it, exactly.
    let out_of_order =
        matches!(decision, Decision::Miss(Miss::NotFound)) && in_sequence && policy.if_missing == Missing::Error;
    if out_of_order && let Some(d) = before_previous(lines, q, new_side.as_ref(), job.placed)? {
        decision = d;
    }
    let mut notes = prep.notes.clone();
    let (found, same_place) = match decision {
        // Out of order: the cursor stays after the previous hunk's place (moved by what
        // this one changes before it, when applied).
        Decision::AlreadyApplied(n) if out_of_order => {
            return Ok(Verdict::Finished(Done { notes, ..Done::at(Status::AlreadyApplied, &n) }, None));
        }
        Decision::Apply(found, same_place) if out_of_order => {
            let found = found.into_iter().next().expect("located once");
            return Ok(Verdict::OutOfOrder(found, same_place, notes));
        }
        Decision::Apply(found, same_place) => (found, same_place),
        Decision::AlreadyApplied(n) => {
            let done = Done { notes, ..Done::at(Status::AlreadyApplied, &n) };
            return Ok(Verdict::Finished(done, Some(n.end)));
        }
        // A range whose start stands and whose end does not is an error (`ap` §3.2), even
        // where a missing target would not be.
        Decision::Miss(_) if range_miss.is_some() => return Err(range_miss.expect("checked")),
        Decision::Miss(Miss::NotFound) => return if_missing(lines, q, prep, notes).map(|d| Verdict::Finished(d, None)),
        Decision::Miss(miss) => return Err(miss_failure(lines, q, miss, "lines")),
        Decision::Unclear { old, new } => return Err(unclear_failure(&old, &new)),
        Decision::DoubtfulDeletion(old) => return Err(doubtful_deletion(&old)),
    };
    // Likeness far from the patch's line number is not evidence of the place.
    if let Some(f) = found.iter().find(|f| far_from_hint(f, job.hint, ov.drift).is_some()) {
        return Err(far_failure(lines, prep.pat, f, job.hint.unwrap_or(0)));
    }
    if let Some((f, unlike)) = &range_unlike {
        notes.extend(unlike_removed(lines, prep.pat, f, unlike, removals_allowed(edit, ov))?);
    }
    Ok(Verdict::Apply(found, same_place, notes))
}

/// An edit of lines not found, as its policy says ([`Missing`]).
fn if_missing(lines: Lines<'_>, q: &Query<'_>, prep: &Prepared<'_>, mut notes: Vec<String>) -> Result<Done, Failure> {
    match prep.edit.policy.if_missing {
        Missing::Error => Err(miss_failure(lines, q, Miss::NotFound, "lines")),
        Missing::Skip => Ok(Done { status: Status::Skipped, tier: None, confidence: 0.0, lines: None, notes }),
        Missing::AlreadyApplied => {
            // Lines like these still in the file were not removed: they are named, never
            // removed by likeness.
            if let Some(like) = target_still_like(lines, q, prep.job.leniency.tiers) {
                return Err(similar_failure(lines, q, &like));
            }
            notes.push(
                "the lines to delete are not in the file: if an earlier run did not remove them, the patch names the wrong file"
                    .to_string(),
            );
            Ok(Done { status: Status::AlreadyApplied, tier: None, confidence: 0.0, lines: None, notes })
        }
    }
}

/// Step 4: carries out the verdict: moves the cursor past a block already applied, or
/// applies the edit at each place found, from the last to the first so that earlier
/// positions stay valid.
fn apply_verdict(
    file: &mut TextFile,
    hashes: &LineHashes,
    prep: &Prepared<'_>,
    verdict: Verdict,
    cursor: &mut usize,
) -> Result<Done, Failure> {
    let (edit, ov) = (&*prep.edit, prep.job.ov);
    let (found, same_place, mut notes) = match verdict {
        Verdict::Finished(done, moved) => {
            if let Some(at) = moved {
                *cursor = at;
            }
            return Ok(done);
        }
        // Out of order: the cursor stays after the previous hunk's place, moved by what
        // this one changes before it.
        Verdict::OutOfOrder(found, same_place, notes) => {
            let (was, len) = (*cursor, file.len());
            let done = apply_at(file, hashes, edit, prep.pat, &prep.kept, &found, cursor, ov)?;
            *cursor = (was + file.len()).saturating_sub(len);
            let mut done = Done { notes, ..done };
            if let (Status::AlreadyApplied, Some(n)) = (done.status, same_place) {
                done.tier = Some(n.tier);
                done.confidence = n.confidence;
            }
            done.notes.push(format!(
                "the hunks are not in file order: this one stands before the place of the hunk before it, at {}, \
                 exactly and nowhere else, clear of the other hunks' places",
                done.lines.map_or_else(String::new, |l| l.to_string())
            ));
            return Ok(done);
        }
        Verdict::Apply(found, same_place, notes) => (found, same_place, notes),
    };
    let policy = &edit.policy;
    let mut first: Option<Done> = None;
    for f in found.into_iter().rev() {
        let f = widen_blank_lines(file.lines(), f, policy.leading_blank_lines, policy.trailing_blank_lines);
        first = Some(apply_at(file, hashes, edit, prep.pat, &prep.kept, &f, cursor, ov)?);
    }
    let mut done = first.expect("located at least once");
    // Nothing changed where the new side stands: it is reported as found.
    if let (Status::AlreadyApplied, Some(n)) = (done.status, same_place) {
        done.tier = Some(n.tier);
        done.confidence = n.confidence;
    }
    notes.append(&mut done.notes);
    Ok(Done { notes, ..done })
}

/// Where the target of `q` stands exactly before `q.lo` (the first place, if several).
fn exactly_before(lines: Lines<'_>, q: &Query<'_>) -> Option<(usize, usize)> {
    let before = Query { lo: 0, hi: q.lo, hint: None, occurrence: Occurrence::First, ..q.clone() };
    match decide::locate(lines, &before, TierSet::only(Tier::Exact)) {
        Ok(found) => found.first().map(|f| (f.start, f.end)),
        Err(Miss::Ambiguous(_, places, _)) => places.first().copied(),
        Err(Miss::NotFound) => None,
    }
}

/// A hunk found after the previous hunk's place (`lo`) only leniently (`after`), whose
/// lines stand exactly before it (`before`).
fn out_of_order_or_not((start, end): &(usize, usize), after: &Found, lo: usize) -> Failure {
    let (before, later) =
        (LineRange::from_zero_based(*start, *end), LineRange::from_zero_based(after.start, after.end));
    let mut failure = Failure::new(
        FailureKind::Ambiguous,
        format!(
            "the lines to find stand exactly at {before}, before line {lo}, where the hunk before this one ends, and \
             after it only lines like them ({} match) at {later}: which place is meant is unclear",
            after.tier
        ),
        format!(
            "if this hunk belongs at {before}, put the file's hunks in the order of their places in the file; if it \
             belongs at {later}, re-read those lines and copy them exactly into the patch"
        ),
    );
    failure.set_candidates(vec![before, later]);
    failure
}

/// For a hunk not found after the previous hunk's place (`q.lo`): where it stands before
/// that place. It applies there when its lines stand exactly, at that one place in the
/// whole file, clear of every place an earlier edit took (`placed`); its new side found
/// exactly there instead means already applied. `Ok(None)`: not there exactly either.
/// Found exactly but not usable: a failure saying that the order is the problem.
fn before_previous(
    lines: Lines<'_>,
    q: &Query<'_>,
    new_side: Option<&NewSide<'_>>,
    placed: &Placed<'_>,
) -> Result<Option<Decision>, Failure> {
    let exact = TierSet::only(Tier::Exact);
    let whole = Query { lo: 0, hi: lines.len(), hint: None, occurrence: Occurrence::Unique, ..q.clone() };
    let lo = q.lo;
    if !placed.spend(lines.len().saturating_add(q.pat.len())) {
        return Err(Failure::new(
            FailureKind::NotFound,
            format!(
                "the lines to find are not after line {lo}, where the hunk before this one ends; too many hunks of \
                 this file are out of order to look for them before it"
            ),
            "put the file's hunks in the order of their places in the file",
        ));
    }
    let located = decide::locate(lines, &whole, exact);
    let new =
        new_side.map(|n| NewSide { q: Query { lo: 0, hi: lines.len(), ..n.q.clone() }, kept: n.kept, weak: n.weak });
    let order = |kind: FailureKind, what: String| {
        Failure::new(
            kind,
            format!("the lines to find are not after line {}, where the hunk before this one ends, but {what}", q.lo),
            "put the file's hunks in the order of their places in the file, each hunk's lines apart from the \
             others' (merge overlapping hunks into one); the lines themselves need no change",
        )
    };
    match (located, new) {
        (Ok(found), new) if found.len() == 1 => {
            let f = &found[0];
            let at = LineRange::from_zero_based(f.start, f.end);
            if let Some(p) = placed.places.iter().find(|p| overlaps((p.start, p.end), (f.start, f.end))) {
                let other = LineRange::from_zero_based(p.start, p.end);
                return Err(order(
                    FailureKind::NotFound,
                    format!("they stand before it, at {at}, overlapping the place an earlier hunk took ({other})"),
                ));
            }
            // Unique now, but maybe not in the file as the patch saw it: the lines might
            // also have stood where an earlier hunk changed them.
            // A place none of whose old lines is one of the pattern's cannot have held it
            // (at least one pattern line stands on one of them): one look per old line,
            // and the full check, the pattern's lines against the place's and the other
            // places near it, only for the rest.
            let pattern: HashSet<&str> = q.pat.iter().map(|l| l.trim()).collect();
            let others = placed.places.len();
            let mut work = q.pat.len();
            let mut suspect = None;
            for p in &placed.places {
                let old = p.old.unwrap_or_default();
                work = work.saturating_add(old.len());
                if p.old.is_some() && !old.iter().any(|l| pattern.contains(l.trim())) {
                    continue;
                }
                work = work.saturating_add(q.pat.len() * (q.pat.len() + old.len()) + others);
                if placed.work.get().saturating_add(work) > MAX_ORDER_WORK {
                    return Err(order(
                        FailureKind::NotFound,
                        format!("they stand before it, at {at}: too many hunks of this file are out of order to check"),
                    ));
                }
                if could_have_stood(lines, q.pat, p, &placed.places) {
                    suspect = Some(p);
                    break;
                }
            }
            let spent = placed.work.get().saturating_add(work);
            if spent > MAX_ORDER_WORK {
                return Err(order(
                    FailureKind::NotFound,
                    format!("they stand before it, at {at}: too many hunks of this file are out of order to check"),
                ));
            }
            placed.work.set(spent);
            if let Some(p) = suspect {
                let other = LineRange::from_zero_based(p.start, p.end);
                let mut failure = order(
                    FailureKind::Ambiguous,
                    format!(
                        "they stand before it, at {at}, and may also have stood where an earlier hunk changed the \
                         file ({other}): which place is meant is unclear"
                    ),
                );
                failure.next_step = "put the file's hunks in the order of their places in the file, and add lines \
                                     around the change so that it matches one place"
                    .to_string();
                failure.set_candidates(vec![at, other]);
                return Err(failure);
            }
            Ok(Some(decide(lines, &whole, Ok(found), new.as_ref(), exact)))
        }
        (Err(Miss::Ambiguous(_, places, _)), _) => {
            let total = places.len();
            let ranges: Vec<LineRange> = places.iter().map(|&(s, e)| LineRange::from_zero_based(s, e)).collect();
            let mut failure = order(
                FailureKind::Ambiguous,
                format!(
                    "they stand exactly at {total} places, some before it ({}): which one is meant is unclear",
                    list_places(&ranges, total)
                ),
            );
            failure.next_step = "put the file's hunks in the order of their places in the file, and add lines \
                                 around the change so that it matches one place"
                .to_string();
            failure.set_candidates(ranges);
            Err(failure)
        }
        (Err(Miss::NotFound), Some(new)) => match decide(lines, &whole, Err(Miss::NotFound), Some(&new), exact) {
            d @ Decision::AlreadyApplied(_) => Ok(Some(d)),
            _ => Ok(None),
        },
        _ => Ok(None),
    }
}

/// Whether `pat` may have stood, before the earlier edits, where the earlier edit `p` took
/// its place, covering at least one of its lines: on the lines that edit was written to
/// find (compared trimmed, which may say yes too often, never too rarely) and, for a part
/// of `pat` beyond them, on the file's lines next to the place now (a line of another
/// earlier edit's place is assumed to match). An edit whose old lines are not known may
/// have held anything. The work is `pat`'s length times the place's.
fn could_have_stood(lines: Lines<'_>, pat: &[LineText], p: &Place<'_>, placed: &[Place<'_>]) -> bool {
    let Some(old) = p.old else { return true };
    let eq = |a: &str, b: &str| a.trim() == b.trim();
    // The other places within reach of `pat` (usually none).
    let reach = pat.len();
    let near: Vec<&Place<'_>> =
        placed.iter().filter(|o| !std::ptr::eq(*o, p) && o.end + reach > p.start && o.start < p.end + reach).collect();
    let changed = |k: usize| near.iter().any(|o| k >= o.start && k < o.end);
    let beside =
        |k: Option<usize>, line: &str| k.is_some_and(|k| changed(k) || lines.get(k).is_some_and(|l| eq(l.text, line)));
    let (m, n) = (pat.len(), old.len());
    // `pat[i]` at old index `i + d - (m - 1)`: `d` from 0 (its last line on the first old
    // line) to `m + n - 2` (its first line on the last old line).
    (0..(m + n).saturating_sub(1)).any(|d| {
        pat.iter().enumerate().all(|(i, line)| match (i + d).checked_sub(m - 1) {
            Some(o) if o < n => eq(line, &old[o]),
            Some(o) => beside(p.end.checked_add(o - n), line),
            None => beside(p.start.checked_sub(m - 1 - (i + d)), line),
        })
    })
}

/// Whether two places (0-based, end exclusive) share a line, or one of them is an empty
/// place (an insertion point) strictly inside the other. Places that only touch do not.
fn overlaps((a, b): (usize, usize), (s, e): (usize, usize)) -> bool {
    match (a == b, s == e) {
        (false, false) => a < e && s < b,
        (true, false) => s < a && a < e,
        (false, true) => a < s && s < b,
        (true, true) => false,
    }
}

/// `f` widened by up to `leading` blank lines before it and `trailing` after it (ap's
/// `include_leading_blank_lines` / `include_trailing_blank_lines`).
///
/// The counts are the patch's (up to `usize::MAX`): the work is bounded by the blank lines
/// actually there, each side stopping at its first other line or at the file's edge.
fn widen_blank_lines(lines: Lines<'_>, mut f: Found, leading: usize, trailing: usize) -> Found {
    let before = lines.slice(..f.start).iter().rev().take(leading).take_while(|l| is_blank(l.text)).count();
    let after = lines.slice(f.end..).iter().take(trailing).take_while(|l| is_blank(l.text)).count();
    f.start -= before;
    f.end += after;
    f
}

/// A match found only by likeness far from where the patch's line number (`hint`,
/// 0-based) puts it: refused, naming both places.
fn far_failure(lines: Lines<'_>, pat: &[LineText], f: &Found, hint: usize) -> Failure {
    let at = LineRange::from_zero_based(f.start, f.end);
    let similarity = (f.confidence * 100.0).round() / 100.0;
    let mut failure = Failure::new(
        FailureKind::NotFound,
        format!(
            "the lines to find are not in the file as written; the lines most like them, at {at} (fuzzy match, similarity {similarity:.2}), stand {} lines from line {} where the patch's line numbers put them: likeness that far away is no evidence of the place",
            f.start.abs_diff(hint),
            hint + 1
        ),
        format!(
            "re-read the file around line {} and copy the context and removed lines exactly as they are now; if {at} are the lines meant, copy those and correct the line numbers",
            hint + 1
        ),
    );
    failure.closest = Some(Closest { lines: at, similarity, diff: clip_excerpt(&block_diff(lines, pat, f)) });
    failure
}

/// Inserts at a fixed position (start or end of file, after an anchor, at a line number).
fn insert_at(
    file: &mut TextFile,
    hashes: &LineHashes,
    at: usize,
    action: &Action,
    cursor: &mut usize,
    ov: Overrides<'_>,
) -> Result<Done, Failure> {
    let lines = match action {
        Action::InsertBefore { lines } | Action::InsertAfter { lines } => lines,
        Action::Replace(Replacement { lines, .. }) => lines,
        Action::Delete => {
            return Err(Failure::new(
                FailureKind::InvalidPlan,
                "a delete needs lines to find",
                "give the lines to delete",
            ));
        }
    };
    let ends = match action {
        Action::Replace(Replacement { line_ends: Some(ends), .. }) => Some(ends),
        _ => None,
    };
    let at = at.min(file.len());
    // New lines end like the line before them (at the start of the file, the first line).
    let near = ov.eol_near(file.lines(), Some(at.saturating_sub(1)));
    let new: Vec<Line> =
        lines.iter().enumerate().map(|(j, t)| Line { text: t.clone(), eol: shape::line_end(ends, j, near) }).collect();
    let lines_range = LineRange::from_zero_based(at, at);
    let status = if let Some(there) = inserted_at_already_there(file.lines(), at, &new) {
        *cursor = there + new.len();
        Status::AlreadyApplied
    } else {
        let n = new.len();
        splice_lines(file, hashes, at..at, &new);
        *cursor = at + n;
        Status::Applied
    };
    Ok(Done { status, tier: Some(Tier::Exact), confidence: 1.0, lines: Some(lines_range), notes: Vec::new() })
}

/// The target is not in the file as written, but lines like it are (at `like`).
fn similar_failure(lines: Lines<'_>, q: &Query<'_>, like: &Found) -> Failure {
    let mut failure = miss_failure(lines, q, Miss::NotFound, "lines");
    let at = LineRange::from_zero_based(like.start, like.end);
    failure.message = format!(
        "the lines to find are not in the file as written, but the file has lines like them at {at} ({} match): they were not removed",
        like.tier
    );
    failure.next_step = format!(
        "if {at} are the lines meant, copy them exactly into the patch; if the change was already made, drop this edit"
    );
    failure
}
/// A deletion matched only fuzzily, its removed lines only similar to the file's.
fn doubtful_deletion(old: &Found) -> Failure {
    let at = LineRange::from_zero_based(old.start, old.end);
    let mut failure = Failure::new(
        FailureKind::Ambiguous,
        format!(
            "the lines to delete are only similar to the file's at {at} ({} similar): either the patch has a typo in \
             them, or the deletion was already made and these are the lines next to it",
            (old.confidence * 100.0).round() / 100.0
        ),
        "if the lines are still there, copy them exactly as the file has them; if the change was already made, drop this edit",
    );
    failure.set_candidates(vec![at]);
    failure
}

/// The old side stands at one place and the new side at another: either may be true.
fn unclear_failure(old: &Found, new: &Found) -> Failure {
    let (o, n) = (LineRange::from_zero_based(old.start, old.end), LineRange::from_zero_based(new.start, new.end));
    let mut failure = Failure::new(
        FailureKind::Ambiguous,
        format!(
            "the lines to change stand at {o} and the lines they become at {n}: it cannot be told whether the edit was already applied"
        ),
        "if the change is already made, drop this edit; otherwise add context lines (or an anchor) that only the place to change has",
    );
    failure.set_candidates(vec![o, n]);
    failure
}
