//! What the searches of one plan may cost together, and what they leave out once the plan
//! cannot apply.
//!
//! A plan is applied whole or not at all, so the first edit (or file operation) that fails
//! decides the outcome. That one is diagnosed in full: every tier, the closest region of
//! the file. The edits after it are still located, so that the writer learns which others
//! fail too, but with the tiers that compare lines through the file's line hashes only
//! (exact, whitespace, indentation, look-alikes, blank lines, prefix): an edit that would
//! need the similarity (fuzzy) search is reported [`FailureKind::SearchSkipped`], and no
//! closest region is searched for any of them.
//!
//! The fuzzy searches of a whole plan also share one budget of work, [`PLAN_FUZZY_CELLS`],
//! counted in the cells of one search's own budget (characters compared in the
//! edit-distance band and read) plus the file lines each seeding pass looks at, so it is
//! the same on every machine. A plan that spends it is pathological (thousands of edits
//! that each need a similarity search of a large file): the edit during which it runs out
//! and every later one that would need the fuzzy tier fail with
//! [`FailureKind::SearchSkipped`], saying to split the patch. Nothing short of that fails
//! for the budget: a plan's edits found without a similarity search never spend it, and
//! the largest plans the project checks spend well under half of it.
//!
//! [`FailureKind::SearchSkipped`]: crate::FailureKind::SearchSkipped

use std::cell::{Cell, RefCell};

/// How much character-comparison work (cells of the edit-distance band, and characters of
/// the lines read) one fuzzy search may do: a 300-line hunk with a typo, in a file of
/// ordinary code, reads a few hundred thousand characters; a file built so that every
/// pattern line seeds 64 windows and none is close reads more than this in about a
/// quarter of a second. When it runs out, the fuzzy tier finds nothing: a partial search
/// could miss the rival that makes a match ambiguous, so it never decides on one.
pub(crate) const MATCH_CELLS: u64 = 64_000_000;

/// The fuzzy work a whole plan may do, in the cells [`crate::locate::fuzzy`] counts, the lines its
/// seeding passes go over and the bytes its near seeding reads: 256 times what one search
/// may compare, 16.4 G, about 30 s on the 2-core reference machine. 1,000 hunks with a
/// one-character typo in a context line, in a 1,000,000-line file (the largest plan
/// `scripts/bounds.py --big` applies), spend 6.95 G of it (42 %; 14 s); 2,000 such hunks in
/// a 100,000-line file 0.31 G (2 %; 0.6 s); a one-line hunk with a typo, which no line of
/// the file equals (so near lines seed it), about 2.7 M per 100,000 lines searched.
pub(crate) const PLAN_FUZZY_CELLS: u64 = 256 * MATCH_CELLS;

/// Why an edit is located without the similarity search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Skip {
    /// An earlier edit or file operation (named) failed: the plan cannot apply.
    Failed(String),
    /// The plan's budget for similarity searches ran out, at the edit named.
    Budget(String),
}

/// The state the searches of one plan share (interior mutability: the engine's queries
/// hold a shared reference to it).
#[derive(Debug)]
pub(crate) struct Effort {
    /// Fuzzy cells the plan may still spend.
    left: Cell<u64>,
    /// Set when a search was cut short by the plan's budget; the edit is named when known.
    ran_out: Cell<bool>,
    /// Where the budget ran out (`` `a.rs`, hunk 3 ``), once known.
    ran_out_at: RefCell<Option<String>>,
    /// The first failure of the plan, named, once there is one.
    failed: RefCell<Option<String>>,
    /// Set when a similarity search was skipped or cut short since the flag was last taken.
    skipped: Cell<bool>,
}

impl Default for Effort {
    fn default() -> Self {
        Effort::with_budget(PLAN_FUZZY_CELLS)
    }
}

impl Effort {
    /// A plan's state with `cells` of fuzzy work to spend.
    pub(crate) fn with_budget(cells: u64) -> Self {
        Effort {
            left: Cell::new(cells),
            ran_out: Cell::new(false),
            ran_out_at: RefCell::new(None),
            failed: RefCell::new(None),
            skipped: Cell::new(false),
        }
    }

    /// The fuzzy cells the plan may still spend.
    pub(crate) fn left(&self) -> u64 {
        self.left.get()
    }

    /// Records `cells` spent by a search; `cut_short` when the search stopped because the
    /// plan's budget (not its own) ran out.
    pub(crate) fn spend(&self, cells: u64, cut_short: bool) {
        self.left.set(self.left.get().saturating_sub(cells));
        if cut_short {
            self.ran_out.set(true);
            self.skipped.set(true);
        }
    }

    /// Whether similarity searches are skipped now (the plan failed, or its budget ran
    /// out); if so, records that one was.
    pub(crate) fn skips_search(&self) -> bool {
        let skips = self.ran_out.get() || self.failed.borrow().is_some();
        if skips {
            self.skipped.set(true);
        }
        skips
    }

    /// Whether a similarity search was skipped or cut short since the last call.
    pub(crate) fn take_skipped(&self) -> bool {
        self.skipped.replace(false)
    }

    /// Whether a search was cut short by the plan's budget.
    pub(crate) fn ran_out(&self) -> bool {
        self.ran_out.get()
    }

    /// Names the edit during which the budget ran out (the first name given counts).
    pub(crate) fn ran_out_at(&self, at: impl FnOnce() -> String) {
        let mut slot = self.ran_out_at.borrow_mut();
        if slot.is_none() {
            *slot = Some(at());
        }
    }

    /// Records a failure of the plan at the place `at` names (the first one counts).
    pub(crate) fn fail(&self, at: impl FnOnce() -> String) {
        let mut slot = self.failed.borrow_mut();
        if slot.is_none() {
            *slot = Some(at());
        }
    }

    /// Why similarity searches are skipped, if they are: the plan's budget ran out (which
    /// stays the reason after the failure it causes), or the plan already failed.
    pub(crate) fn skip(&self) -> Option<Skip> {
        if self.ran_out() {
            return Some(Skip::Budget(self.ran_out_at.borrow().clone().unwrap_or_default()));
        }
        self.failed.borrow().clone().map(Skip::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::modify::modify;
    use crate::apply::report::{FailureKind, Status};
    use crate::apply::write::Overrides;
    use crate::ir::plan::{Action, Edit, Replacement, Target};
    use crate::ir::tier::Tier;
    use crate::text::lines::TextFile;

    fn line(i: usize) -> String {
        format!("    let value_{i} = compute_{i}(input, {});", i * 7)
    }

    /// Line `i` gets a comment; its context line before has a typo when `typo`.
    fn edit(i: usize, typo: bool) -> Edit {
        let before = if typo { line(i - 1).replace("value", "valeu") } else { line(i - 1) };
        let old = vec![before.as_str().into(), line(i).into(), line(i + 1).into()];
        let new = vec![before.as_str().into(), format!("{} // checked", line(i)).into(), line(i + 1).into()];
        let rep = Replacement::lines(new).with_kept(vec![Some(0), None, Some(2)]);
        Edit::new(Target::Lines(old), Action::Replace(rep)).with_label(format!("hunk {i}"))
    }

    /// Applies edits at lines 10, 20, … 190 (the ones in `exact` without a typo) to a
    /// 200-line file with `effort`.
    fn run(effort: &Effort, exact: &[usize]) -> Vec<crate::apply::report::EditReport> {
        let mut file = TextFile::parse(&(0..200).map(|i| line(i) + "\n").collect::<String>());
        let edits: Vec<Edit> = (1..20).map(|k| edit(10 * k, !exact.contains(&(10 * k)))).collect();
        modify(&mut file, &edits, Overrides { effort: Some(effort), ..Overrides::default() }, "a.rs")
    }

    #[test]
    fn when_the_plans_budget_runs_out_the_edits_that_need_a_search_say_so() {
        // What the 19 edits spend with the whole budget: they all apply fuzzily.
        let effort = Effort::default();
        let reports = run(&effort, &[]);
        assert!(reports.iter().all(|r| (r.status, r.tier) == (Status::Applied, Some(Tier::Fuzzy))));
        let spent = PLAN_FUZZY_CELLS - effort.left();
        assert!(spent > 0 && !effort.ran_out());

        // Half of it: counted in cells, the same edit runs out every time.
        let run_out = || {
            let effort = Effort::with_budget(spent / 2);
            (run(&effort, &[150]), effort.skip())
        };
        let (reports, skip) = run_out();
        assert_eq!(run_out(), (reports.clone(), skip.clone()));
        let k = reports.iter().position(|r| r.status == Status::Failed).expect("the budget ran out");
        assert!((5..15).contains(&k), "ran out at edit {k}");
        let at = format!("`a.rs`, hunk {}", 10 * (k + 1));
        assert_eq!(skip, Some(Skip::Budget(at.clone())));
        for (j, report) in reports.iter().enumerate() {
            if j < k {
                assert_eq!((report.status, report.tier), (Status::Applied, Some(Tier::Fuzzy)), "{j}");
            } else if j == 14 {
                // Line 150's edit has no typo: found exactly, without a search.
                assert_eq!((report.status, report.tier), (Status::Applied, Some(Tier::Exact)), "{j}");
            } else {
                let failure = report.failure.as_ref().expect("failed");
                assert_eq!(failure.kind, FailureKind::SearchSkipped, "{j}");
                assert!(
                    failure.message.ends_with(&format!(
                        "the search for similar lines was skipped: the patch's budget for such searches ran out (at {at})"
                    )),
                    "{j}: {failure:?}"
                );
                assert!(failure.next_step.starts_with("split the patch into smaller patches"), "{j}");
            }
        }
    }
}
