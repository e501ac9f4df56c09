//! Applying the edits of one file to its lines, in order, each seeing the result of the
//! ones before.

use crate::engine::{self, Found, Miss, Query, View};
use crate::fold::{PatKey, TAB_WIDTH, indent_width, is_blank, key_eq};
use crate::fuzzy;
use crate::ir::{Action, Edit, Indent, Missing, Occurrence, Replacement, Target};
use crate::report::{Closest, EditReport, Failure, FailureKind, LineRange, Status};
use crate::text::{Eol, Line, TextFile};
use crate::tier::{Tier, TierSet};

/// Options that override the edits' policies.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Overrides {
    pub strict: bool,
    pub fuzzy_threshold: Option<f64>,
    /// The file is known to be the one the edits were made for: nothing is already applied.
    pub fresh: bool,
    /// The plan adds a final newline (`Modify::final_newline == Some(true)`): a last line
    /// without one is not yet as the patch wants it.
    pub adds_final_newline: bool,
    /// The terminator added lines get: the file's most frequent one, found once before its
    /// edits.
    pub eol: Eol,
}

/// Applies `edits` to `file` in order. Returns one report per edit; the file holds the
/// result of every successful edit.
pub(crate) fn modify(file: &mut TextFile, edits: &[Edit], ov: Overrides) -> Vec<EditReport> {
    let mut cursor = 0usize;
    let mut reports = Vec::with_capacity(edits.len());
    let ov = Overrides { eol: file.dominant_eol(), ..ov };
    for (i, edit) in edits.iter().enumerate() {
        let mut report = EditReport {
            index: i + 1,
            label: edit.label.clone(),
            status: Status::Failed,
            tier: None,
            confidence: None,
            lines: None,
            failure: None,
        };
        match apply_edit(file, edit, &mut cursor, ov) {
            Ok(done) => {
                report.status = done.status;
                report.tier = done.tier;
                report.confidence = done.tier.map(|_| (done.confidence * 1000.0).round() / 1000.0);
                report.lines = done.lines;
            }
            // The report names the file; the message says what happened in it.
            Err(failure) => report.failure = Some(failure),
        }
        reports.push(report);
    }
    reports
}

struct Done {
    status: Status,
    tier: Option<Tier>,
    confidence: f64,
    lines: Option<LineRange>,
}

impl Done {
    fn at(status: Status, found: &Found) -> Done {
        Done {
            status,
            tier: Some(found.tier),
            confidence: found.confidence,
            lines: Some(LineRange::from_zero_based(found.start, found.end)),
        }
    }
}

fn tiers_of(edit: &Edit, ov: Overrides) -> (TierSet, Tier) {
    let tiers = edit.policy.tiers;
    let base = tiers.iter().next().unwrap_or(Tier::Exact);
    if ov.strict { (TierSet::only(base), base) } else { (tiers, base) }
}

/// The tiers at which "already applied" is checked: the policy's strict ones.
fn strict_tiers(tiers: TierSet, base: Tier) -> TierSet {
    let upto = base.max(Tier::TrailingWhitespace);
    tiers.intersect(TierSet::range(Tier::Exact, upto))
}

fn apply_edit(file: &mut TextFile, edit: &Edit, cursor: &mut usize, ov: Overrides) -> Result<Done, Failure> {
    let (tiers, base) = tiers_of(edit, ov);
    let policy = &edit.policy;
    let threshold = ov.fuzzy_threshold.unwrap_or(policy.fuzzy_threshold);
    let len = file.lines.len();
    let hint = edit.scope.line_hint.map(|n| n.saturating_sub(1));
    let mut lo = if edit.scope.after_previous { (*cursor).min(len) } else { 0 };

    // The anchor narrows the search to the lines after it.
    let mut anchored = false;
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
        };
        let found = engine::locate(&file.lines, &q, tiers.without(Tier::Fuzzy))
            .map_err(|miss| miss_failure(&file.lines, &q, miss, "anchor"))?;
        lo = found[0].end;
        anchored = true;
    }

    match &edit.target {
        Target::Text(find) => {
            let (status, lines) = crate::substring::apply_text(file, find, &edit.action, policy)?;
            let tier = lines.map(|_| Tier::Exact);
            return Ok(Done { status, tier, confidence: 1.0, lines });
        }
        Target::StartOfFile => return insert_at(file, 0, &edit.action, cursor, ov.eol),
        Target::EndOfFile => return insert_at(file, file.lines.len(), &edit.action, cursor, ov.eol),
        Target::Lines(pat) if pat.iter().all(|l| policy.ignore_blank_lines && is_blank(l)) || pat.is_empty() => {
            let at = if anchored {
                lo
            } else if let Some(h) = hint {
                h.min(len)
            } else {
                return Err(Failure::new(
                    FailureKind::InvalidPlan,
                    "an edit without lines to find needs an anchor or a line number",
                    "give context lines around the change",
                ));
            };
            return insert_at(file, at, &edit.action, cursor, ov.eol);
        }
        _ => {}
    }

    let (pat, range_end): (&[String], Option<&[String]>) = match &edit.target {
        Target::Lines(p) => (p, None),
        Target::Range { start, end } => (start, Some(end)),
        _ => unreachable!("handled above"),
    };
    // An elision in new text that replaces lines would delete what it stands for. Not for
    // a diff made by a tool from this very file (its preimage id matched): there a `...`
    // line is content.
    // Only a replacement that holds such a line pays for the alignment.
    if let Action::Replace(rep) = &edit.action
        && !ov.fresh
        && rep.lines.iter().any(|l| crate::elision::is_elision(l))
    {
        let kept = match (&rep.kept, range_end) {
            (_, Some(_)) => None,
            (Some(k), None) if k.len() == rep.lines.len() => Some(k.clone()),
            (_, None) => Some(align(pat, &rep.lines)),
        };
        crate::elision::check(edit, kept.as_deref())?;
    }
    let q = Query {
        pat,
        lo,
        hi: len,
        hint,
        at_eof: edit.scope.at_end_of_file && range_end.is_none(),
        occurrence: policy.occurrence,
        ignore_blank: policy.ignore_blank_lines,
        threshold,
        base,
        positional: false,
    };

    // Strict tiers, then the lenient ones, then fuzzy; before each step away from the
    // stricter one, whether the edit's result is already there (a re-run of the patch
    // must never apply an edit twice, nor fuzzily match what the first run left).
    let strict = strict_tiers(tiers, base);
    let lenient = tiers.without(Tier::Fuzzy).difference(strict);
    let fuzzy = tiers.intersect(TierSet::only(Tier::Fuzzy));
    let key_tiers = tiers.without(Tier::Fuzzy);
    // A numbered hunk that stands exactly at (or near) its line number is found by
    // looking outward from it, without scanning the file.
    let near = (base == Tier::Exact && range_end.is_none()).then(|| engine::exact_near_hint(&file.lines, &q)).flatten();
    let mut old = near.is_none().then(|| engine::Classified::new(&file.lines, &q, key_tiers));
    let mut new_side: Option<(Query<'_>, engine::Classified<'_>)> = None;
    let mut located = near.map(|f| vec![f]).ok_or(Miss::NotFound);
    for step in [strict, lenient, fuzzy] {
        let Some(old) = old.as_mut() else { break };
        if step.is_empty() {
            continue;
        }
        located = old.pick(&q, step);
        if !matches!(located, Err(Miss::NotFound)) || step == fuzzy {
            break;
        }
        if policy.detect_already_applied
            && !ov.fresh
            && let Some(qn) = new_side_query(edit, &q)
        {
            let (qn, classified) = new_side.get_or_insert_with(|| {
                let c = engine::Classified::new(&file.lines, &qn, key_tiers);
                (qn.clone(), c)
            });
            if let Ok(found) = classified.pick(qn, step) {
                let done = Done::at(Status::AlreadyApplied, &found[0]);
                *cursor = found[0].end;
                return Ok(done);
            }
        }
    }
    // Scoped by a unique anchor, the target is the first occurrence after it: when the
    // edit's result already stands between the anchor and that occurrence, the occurrence
    // is a later one and the edit was applied (`ap` §3.1 with §3.2's first occurrence).
    if let Ok(f) = &located
        && edit.scope.anchor.as_ref().is_some_and(|a| a.unique)
        && policy.occurrence == Occurrence::First
        && policy.detect_already_applied
        && !ov.fresh
        && let Some(qn) = new_side_query(edit, &q)
        && let Ok(done) = engine::locate(&file.lines, &Query { hi: f[0].start, ..qn }, strict)
    {
        *cursor = done[0].end;
        return Ok(Done::at(Status::AlreadyApplied, &done[0]));
    }
    let mut found = match located {
        Ok(found) => found,
        Err(Miss::NotFound) => {
            return match policy.if_missing {
                Missing::Error => Err(miss_failure(&file.lines, &q, Miss::NotFound, "lines")),
                Missing::Skip => Ok(Done { status: Status::Skipped, tier: None, confidence: 0.0, lines: None }),
                Missing::AlreadyApplied => {
                    Ok(Done { status: Status::AlreadyApplied, tier: None, confidence: 0.0, lines: None })
                }
            };
        }
        Err(miss) => return Err(miss_failure(&file.lines, &q, miss, "lines")),
    };

    // A range ends at the first occurrence of its end block after the start block.
    if let Some(end_pat) = range_end {
        for f in &mut found {
            let qe = Query {
                pat: end_pat,
                lo: f.end,
                hi: len,
                hint: None,
                at_eof: edit.scope.at_end_of_file,
                occurrence: Occurrence::First,
                ignore_blank: policy.ignore_blank_lines,
                threshold,
                base,
                positional: true,
            };
            let end = engine::locate(&file.lines, &qe, tiers.without(Tier::Fuzzy))
                .map_err(|miss| miss_failure(&file.lines, &qe, miss, "range end"))?;
            f.end = end[0].end;
            f.map = Vec::new();
            f.tier = f.tier.max(end[0].tier);
            f.confidence = f.confidence.min(end[0].confidence);
        }
    }

    // Apply from the last match to the first so earlier positions stay valid.
    let mut first: Option<Done> = None;
    for f in found.into_iter().rev() {
        let f = widen_blank_lines(&file.lines, f, policy.leading_blank_lines, policy.trailing_blank_lines);
        let done = apply_at(file, edit, pat, &f, cursor, ov);
        first = Some(done);
    }
    Ok(first.expect("located at least once"))
}

fn widen_blank_lines(lines: &[Line], mut f: Found, leading: usize, trailing: usize) -> Found {
    for _ in 0..leading {
        if f.start > 0 && is_blank(&lines[f.start - 1].text) {
            f.start -= 1;
        }
    }
    for _ in 0..trailing {
        if f.end < lines.len() && is_blank(&lines[f.end].text) {
            f.end += 1;
        }
    }
    f
}

/// Applies the action at a located block.
fn apply_at(file: &mut TextFile, edit: &Edit, pat: &[String], f: &Found, cursor: &mut usize, ov: Overrides) -> Done {
    let (fresh, adds_final_newline) = (ov.fresh, ov.adds_final_newline);
    let eol = ov.eol;
    match &edit.action {
        Action::Replace(rep) => {
            let new = replacement_lines(&file.lines, edit, pat, f, rep, eol);
            // With terminators from the patch, a changed terminator is a change too.
            let same_end = |a: &Line, b: &Line| {
                rep.line_ends.is_none() || a.eol == b.eol || (b.eol == Eol::None && !adds_final_newline)
            };
            let unchanged = new.len() == f.end - f.start
                && new.iter().zip(&file.lines[f.start..f.end]).all(|(a, b)| a.text == b.text && same_end(a, b));
            // Already applied: the patch's new side already stands where the old side was
            // found, e.g. a context-only hunk, or a replacement that keeps the old lines.
            let hint = edit.scope.line_hint.map(|n| n.saturating_sub(1));
            if unchanged || (!fresh && replacement_already_there(&file.lines, pat, &rep.lines, f, hint)) {
                *cursor = f.end;
                return Done::at(Status::AlreadyApplied, f);
            }
            let n = new.len();
            file.lines.splice(f.start..f.end, new);
            *cursor = f.start + n;
            Done::at(Status::Applied, f)
        }
        Action::Delete => {
            file.lines.drain(f.start..f.end);
            *cursor = f.start;
            Done::at(Status::Applied, f)
        }
        Action::InsertBefore { lines } | Action::InsertAfter { lines } => {
            let after = matches!(edit.action, Action::InsertAfter { .. });
            let new = inserted_lines(&file.lines, edit, pat, f, lines, eol);
            let at = if after { f.end } else { f.start };
            let present = if after {
                block_eq(&file.lines[at.min(file.lines.len())..], &new)
            } else {
                at >= new.len() && block_eq(&file.lines[at - new.len()..at], &new)
            };
            if present {
                *cursor = if after { f.end + new.len() } else { f.end };
                return Done::at(Status::AlreadyApplied, f);
            }
            let n = new.len();
            file.lines.splice(at..at, new);
            *cursor = f.end + n;
            Done::at(Status::Applied, f)
        }
    }
}

/// Whether the first lines of `have` equal `want` (trimmed).
fn block_eq(have: &[Line], want: &[Line]) -> bool {
    have.len() >= want.len() && want.iter().zip(have).all(|(w, h)| w.text.trim() == h.text.trim())
}

/// For a replacement whose new side contains the old side (a pure insertion around
/// kept lines), whether the full new side is already in the file around the match.
///
/// In repetitive text both can hold: the old side where it was found, and the new side
/// around it (`a a b a a` holds both `a b a` and the new side `a a b a a` of inserting an
/// `a` on each side). A line hint (0-based) decides then: the old side found exactly
/// where the hint says means not yet applied.
fn replacement_already_there(lines: &[Line], old: &[String], new: &[String], f: &Found, hint: Option<usize>) -> bool {
    if old.is_empty() || new.len() <= old.len() || f.map.is_empty() {
        return false;
    }
    // The old side inside the new one, compared at the tier it matched (an `ap` content
    // that nests the snippet one level deeper holds it re-indented).
    let tier = f.tier.min(Tier::Unicode);
    let holds_old = |k: usize| new[k..k + old.len()].iter().zip(old).all(|(n, o)| key_eq(tier, n, &PatKey::new(o)));
    let Some(k) = (0..=new.len() - old.len()).find(|&k| holds_old(k)) else {
        return false;
    };
    if k > 0 && hint == Some(f.start) {
        return false;
    }
    let Some(start) = f.start.checked_sub(k) else { return false };
    let end = start + new.len();
    end <= lines.len()
        && new.iter().zip(&lines[start..end]).all(|(n, l)| key_eq(f.tier.min(Tier::Unicode), &l.text, &PatKey::new(n)))
}

/// Inserts at a fixed position (start or end of file, after an anchor, at a line number).
fn insert_at(file: &mut TextFile, at: usize, action: &Action, cursor: &mut usize, eol: Eol) -> Result<Done, Failure> {
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
        Action::Replace(Replacement { line_ends: Some(ends), .. }) => ends.as_slice(),
        _ => &[],
    };
    let new: Vec<Line> = lines
        .iter()
        .enumerate()
        .map(|(i, t)| Line { text: t.clone(), eol: ends.get(i).map_or(eol, |&n| Eol::from(n)) })
        .collect();
    let at = at.min(file.lines.len());
    let lines_range = LineRange::from_zero_based(at, at);
    // Already there, right after or (at the end of the file) right before the position.
    let after_ok = block_eq(&file.lines[at..], &new);
    let before_ok = at == file.lines.len() && at >= new.len() && block_eq(&file.lines[at - new.len()..at], &new);
    if !new.is_empty() && (after_ok || before_ok) {
        *cursor = if after_ok { at + new.len() } else { at };
        return Ok(Done {
            status: Status::AlreadyApplied,
            tier: Some(Tier::Exact),
            confidence: 1.0,
            lines: Some(lines_range),
        });
    }
    let n = new.len();
    file.lines.splice(at..at, new);
    *cursor = at + n;
    Ok(Done { status: Status::Applied, tier: Some(Tier::Exact), confidence: 1.0, lines: Some(lines_range) })
}

/// The query for an edit's new side, to check whether it is already in place (only for
/// line and range replacements that change something).
fn new_side_query<'a>(edit: &'a Edit, q: &Query<'a>) -> Option<Query<'a>> {
    let Action::Replace(rep) = &edit.action else { return None };
    if rep.lines.is_empty() || rep.lines == *q.pat || !matches!(edit.target, Target::Lines(_) | Target::Range { .. }) {
        return None;
    }
    Some(Query { pat: &rep.lines, occurrence: Occurrence::First, ..q.clone() })
}

/// How added lines are indented at one located block: what the policy's indent mode
/// needs, computed once for all the lines.
struct Shaper<'a> {
    lines: &'a [Line],
    found: &'a Found,
    mode: Indent,
    deltas: Vec<Option<isize>>,
    target_indent: String,
    min_new_indent: usize,
    /// The file's minus the patch's indentation width of the target's first line.
    first_line_delta: isize,
}

impl<'a> Shaper<'a> {
    fn new(lines: &'a [Line], edit: &Edit, pat: &[String], found: &'a Found, new: &[String]) -> Self {
        Shaper {
            lines,
            found,
            mode: edit.policy.indent,
            deltas: if found.map.is_empty() { Vec::new() } else { engine::indent_deltas(lines, pat, found) },
            target_indent: first_line_indent(lines, found),
            min_new_indent: min_indent(new),
            first_line_delta: first_line_delta(lines, found, pat),
        }
    }

    /// An added line; `near` is the pattern line whose indentation change it follows.
    fn line(&self, near: usize, text: &str) -> String {
        match self.mode {
            Indent::AsWritten => text.to_string(),
            Indent::FollowMatch => follow(self.lines, self.found, &self.deltas, near, text),
            Indent::ToTargetFirstLine => reindent(text, &self.target_indent, self.min_new_indent),
            Indent::ShiftByFirstLine => shift(text, self.first_line_delta, self.target_indent.starts_with('\t')),
        }
    }
}

/// The file's indentation width of the target's first non-blank line minus the pattern's.
fn first_line_delta(lines: &[Line], f: &Found, pat: &[String]) -> isize {
    let file = indent_width(&first_line_indent(lines, f)).0;
    let patch = pat.iter().find(|l| !is_blank(l)).map_or(0, |l| indent_width(l).0);
    file as isize - patch as isize
}

/// `text` with its indentation widened (or narrowed) by `delta` columns; blank lines
/// become empty.
fn shift(text: &str, delta: isize, tabs: bool) -> String {
    if is_blank(text) {
        return String::new();
    }
    let (width, bytes) = indent_width(text);
    let new_width = (width as isize + delta).max(0) as usize;
    format!("{}{}", render_indent(new_width, tabs), &text[bytes..])
}

/// The new lines of a replacement at a located block: kept lines as the file has them,
/// added lines indented to follow the file.
fn replacement_lines(lines: &[Line], edit: &Edit, pat: &[String], f: &Found, rep: &Replacement, eol: Eol) -> Vec<Line> {
    let kept: Vec<Option<usize>> = match &rep.kept {
        Some(k) if k.len() == rep.lines.len() => k.clone(),
        _ => align(pat, &rep.lines),
    };
    let shaper = Shaper::new(lines, edit, pat, f, &rep.lines);
    let mut last_old = 0usize;
    let mut out = Vec::with_capacity(rep.lines.len());
    for (j, text) in rep.lines.iter().enumerate() {
        if let Some(i) = kept[j] {
            last_old = i;
            if let Some(Some(fi)) = f.map.get(i) {
                out.push(lines[*fi].clone());
                continue;
            }
        }
        let eol = rep.line_ends.as_ref().and_then(|ends| ends.get(j)).map_or(eol, |&n| Eol::from(n));
        out.push(Line { text: shaper.line(last_old, text), eol });
    }
    out
}

fn inserted_lines(lines: &[Line], edit: &Edit, pat: &[String], f: &Found, new: &[String], eol: Eol) -> Vec<Line> {
    let shaper = Shaper::new(lines, edit, pat, f, new);
    let near = if matches!(edit.action, Action::InsertAfter { .. }) { pat.len().saturating_sub(1) } else { 0 };
    new.iter().map(|text| Line { text: shaper.line(near, text), eol }).collect()
}

/// Shifts an added line by the indentation delta of the nearest old line, in the file's
/// indentation style. Exact and trailing-whitespace matches leave lines as written.
fn follow(lines: &[Line], f: &Found, deltas: &[Option<isize>], near: usize, text: &str) -> String {
    if f.tier <= Tier::TrailingWhitespace || is_blank(text) || deltas.is_empty() {
        return text.to_string();
    }
    // The delta of the nearest old line at or before `near`, else after it.
    let pick = (0..=near.min(deltas.len() - 1)).rev().find_map(|i| deltas[i].map(|d| (i, d)));
    let pick = pick.or_else(|| deltas.iter().enumerate().find_map(|(i, d)| d.map(|d| (i, d))));
    let Some((i, delta)) = pick else { return text.to_string() };
    let reference = f.map.get(i).copied().flatten().map_or("", |fi| lines[fi].text.as_str());
    let (width, bytes) = indent_width(text);
    let uses_tabs = reference.starts_with('\t');
    let text_tabs = text[..bytes].contains('\t');
    if delta == 0 && uses_tabs == text_tabs {
        return text.to_string();
    }
    let new_width = (width as isize + delta).max(0) as usize;
    format!("{}{}", render_indent(new_width, uses_tabs), &text[bytes..])
}

fn render_indent(width: usize, tabs: bool) -> String {
    if tabs { "\t".repeat(width / TAB_WIDTH) + &" ".repeat(width % TAB_WIDTH) } else { " ".repeat(width) }
}

/// `ap`: the target's first line's indentation, plus the line's own indentation beyond
/// the least indented new line.
fn reindent(text: &str, target: &str, min_new: usize) -> String {
    if is_blank(text) {
        return String::new();
    }
    let (width, bytes) = indent_width(text);
    let tabs = target.starts_with('\t');
    format!("{target}{}{}", render_indent(width.saturating_sub(min_new), tabs), &text[bytes..])
}

fn min_indent(lines: &[String]) -> usize {
    lines.iter().filter(|l| !is_blank(l)).map(|l| indent_width(l).0).min().unwrap_or(0)
}

fn first_line_indent(lines: &[Line], f: &Found) -> String {
    let first = f.map.iter().flatten().next().copied().unwrap_or(f.start);
    let first = (first..f.end.max(first + 1)).find(|&i| i < lines.len() && !is_blank(&lines[i].text)).unwrap_or(first);
    lines.get(first).map_or(String::new(), |l| l.text[..indent_width(&l.text).1].to_string())
}

/// Aligns old and new lines: for each new line, the old line it keeps.
pub(crate) fn align(old: &[String], new: &[String]) -> Vec<Option<usize>> {
    let mut kept = vec![None; new.len()];
    let ops = similar::capture_diff_slices(similar::Algorithm::Myers, old, new);
    for op in ops {
        if let similar::DiffOp::Equal { old_index, new_index, len } = op {
            for k in 0..len {
                kept[new_index + k] = Some(old_index + k);
            }
        }
    }
    kept
}

/// A failure for a block that was not located, with candidates or the closest region.
fn miss_failure(lines: &[Line], q: &Query<'_>, miss: Miss, what: &str) -> Failure {
    match miss {
        Miss::Ambiguous(tier, places) => {
            let ranges: Vec<LineRange> = places.iter().map(|&(s, e)| LineRange::from_zero_based(s, e)).collect();
            let list: Vec<String> = ranges.iter().map(ToString::to_string).collect();
            let mut failure = Failure::new(
                FailureKind::Ambiguous,
                format!("the {what} match {} places equally well ({} match): {}", ranges.len(), tier, list.join(", ")),
                "add lines around the change (5 or more), or an anchor before it, so that it matches exactly one place",
            );
            failure.candidates = ranges;
            failure
        }
        Miss::NotFound => {
            let expected = q.pat.join("\n") + "\n";
            let short = expected.lines().next().unwrap_or("").trim();
            let mut failure = Failure::new(
                FailureKind::NotFound,
                format!("the {what} to find are not in the file (first line: `{short}`)"),
                "re-read the file and copy the context and removed lines exactly as they are now; if the change was already made, drop this edit",
            );
            let whole = Query { lo: 0, hi: lines.len(), ..q.clone() };
            let view = View::new(lines, &whole);
            if let Some((s, score)) = fuzzy::closest(&view) {
                let found = view.found(s, q.pat.len(), Tier::Fuzzy, score);
                let have: Vec<&str> = lines[found.start..found.end].iter().map(|l| l.text.as_str()).collect();
                let have = have.join("\n") + "\n";
                let diff = similar::TextDiff::from_lines(&expected, &have)
                    .unified_diff()
                    .context_radius(2)
                    .header("patch expects", "file has")
                    .to_string();
                let similarity = (fuzzy::similarity(expected.trim_end(), have.trim_end()) * 100.0).round() / 100.0;
                let range = LineRange::from_zero_based(found.start, found.end);
                failure.next_step = format!(
                    "the closest place is {range} (similarity {similarity:.2}); re-read those lines and copy them exactly into the patch"
                );
                failure.closest = Some(Closest { lines: range, similarity, diff });
            }
            failure
        }
    }
}
