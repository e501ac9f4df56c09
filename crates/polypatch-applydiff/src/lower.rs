//! Lower the blocks into an [`EditPlan`].

use std::collections::HashMap;

use polypatch_core::{
    Action, Content, Edit, EditPlan, FileEdit, FileOp, IfExists, LineText, Modify, Occurrence, Policy, Replacement,
    Target, Tier, TierSet,
};

use crate::error::DIALECT;
use crate::syntax::{Block, Mode, Patch};

/// The least fuzzy confidence a block accepts when its header gives no `fuzz=` (spec §2).
pub const DEFAULT_FUZZ: f64 = 0.85;

/// Below this `fuzz=`, the plan carries a warning: such a block may match text that
/// differs from it in a quarter of its characters.
const LOW_FUZZ: f64 = 0.75;

/// Lowers a parsed patch into an [`EditPlan`]; every well-formed patch lowers.
///
/// - A `mode=patch` block with `--- from` lines is an [`Edit`] labelled `block N` (N is
///   the block's position in the patch, counting every file) whose target is the from
///   lines, located anywhere in the file at the first tier that finds them: exact,
///   trailing whitespace, indentation (the new lines follow the matched indentation, line
///   by line), trimmed, blank lines, Unicode look-alikes, then fuzzy at the block's
///   `fuzz` (0.85 by default). The from lines must match one place; two places within
///   0.02 of each other are an ambiguous match. Consecutive blocks for one file become
///   the edits of one [`FileOp::Modify`], applied in order, each on the result of the
///   one before.
/// - A `mode=patch` block with an empty `--- from` creates the file from its `--- to`
///   lines; an existing file with other content is refused.
/// - A `mode=replace` block is a [`FileOp::Replace`] with the `--- to` lines as the
///   whole file, created when missing, written in the existing file's line terminator.
pub fn lower(patch: &Patch<'_>) -> EditPlan {
    let mut files: Vec<FileEdit> = Vec::new();
    // Each path's last file edit in `files`: looked up, not searched for, so that a patch
    // of n files lowers in time linear in n (a search per block was quadratic).
    let mut last_of: HashMap<&str, usize> = HashMap::new();
    let mut warnings = Vec::new();
    for (i, block) in patch.blocks.iter().enumerate() {
        let number = i + 1;
        if let Some(fuzz) = block.fuzz
            && fuzz < LOW_FUZZ
        {
            warnings.push(format!(
                "block {number} ({}) accepts fuzzy matches down to fuzz={fuzz}: a place that differs in a quarter \
                 of its characters or more may be taken; 0.85 (the default) or higher is safer",
                block.path
            ));
        }
        let pushed = files.len();
        match (block.mode, block.from.is_empty()) {
            (Mode::Patch, false) => {
                let edit = lower_edit(number, block);
                // Blocks for the file written last (with no create or replace between)
                // extend its modify.
                let last = last_of.get(block.path).map(|&at| &mut files[at]);
                if let Some(FileEdit { op: FileOp::Modify(modify), span: Some(span), .. }) = last {
                    modify.edits.push(edit);
                    span.end = span.end.max(block.span.end);
                } else {
                    let op = FileOp::Modify(Modify::new(vec![edit]));
                    files.push(FileEdit::new(block.path.to_owned(), op).with_span(block.span));
                }
            }
            (Mode::Patch, true) => files.push(
                FileEdit::new(
                    block.path.to_owned(),
                    FileOp::Create {
                        content: Content::Text(polypatch_core::join_lines(&block.to)),
                        newline: None,
                        if_exists: IfExists::ErrorUnlessIdentical,
                        mode: None,
                    },
                )
                .with_span(block.span),
            ),
            (Mode::Replace, _) => files.push(
                FileEdit::new(
                    block.path.to_owned(),
                    FileOp::Replace {
                        content: Content::Text(polypatch_core::join_lines(&block.to)),
                        create_if_missing: true,
                        follow_file: true,
                    },
                )
                .with_span(block.span),
            ),
        }
        if files.len() > pushed {
            last_of.insert(block.path, pushed);
        }
    }
    EditPlan::new(DIALECT, files).with_warnings(warnings)
}

fn lower_edit(number: usize, block: &Block<'_>) -> Edit {
    // Both sides copied once, into one buffer their lines share.
    let mut to = LineText::copy_all(block.from.iter().chain(&block.to).copied());
    let from: Vec<LineText> = to.drain(..block.from.len()).collect();
    // The engine aligns the from and to lines itself: the lines both sides share are kept
    // as the file has them when the match was lenient.
    Edit::new(Target::Lines(from), Action::Replace(Replacement::lines(to)))
        .with_policy(
            Policy::default()
                // `Prefix` is for one-line anchors; a from block is located whole.
                .with_tiers(TierSet::ALL.without(Tier::Prefix))
                .with_fuzzy_threshold(block.fuzz.unwrap_or(DEFAULT_FUZZ))
                .with_occurrence(Occurrence::Unique)
                // The spec's four tiers match the whole `from` block, removed lines too;
                // the report lists each removed line that only resembled the file's.
                .with_fuzzy_removals(true),
        )
        .with_label(format!("block {number}"))
        .with_span(block.span)
}

#[cfg(test)]
mod tests {
    use polypatch_core::{ApplyOptions, FailureKind, MemoryFileSet, Status, apply};

    use super::*;
    use crate::syntax::parse;

    fn plan(text: &str) -> EditPlan {
        lower(&parse(text).unwrap_or_else(|e| panic!("{}", e.render(text))))
    }

    fn run(files: &mut MemoryFileSet, text: &str) -> Result<polypatch_core::ApplyReport, polypatch_core::ApplyError> {
        apply(&plan(text), files, &ApplyOptions::default())
    }

    #[test]
    fn a_patch_block_lowers_to_one_unique_edit() {
        let text = ">>> file: a.py | fuzz=0.9\n--- from\nx = 1\n--- to\nx = 2\n<\n";
        let p = plan(text);
        assert_eq!(p.dialect, "applydiff");
        let [FileEdit { path, op: FileOp::Modify(m), span, .. }] = p.files.as_slice() else { panic!("{p:?}") };
        assert_eq!(path, "a.py");
        assert_eq!(span.map(|s| &text[s.start..s.end]), Some(text.trim_end()));
        let [edit] = m.edits.as_slice() else { panic!() };
        assert_eq!(edit.label, "block 1");
        assert_eq!(edit.target, Target::Lines(vec!["x = 1".into()]));
        assert_eq!(edit.action, Action::Replace(Replacement::lines(vec!["x = 2".into()])));
        assert_eq!(edit.policy.occurrence, Occurrence::Unique);
        assert!((edit.policy.fuzzy_threshold - 0.9).abs() < 1e-9);
        assert!(!edit.policy.tiers.contains(Tier::Prefix));
        assert!(p.warnings.is_empty());
    }

    #[test]
    fn blocks_of_one_file_share_a_modify_until_another_operation_on_it() {
        let text = "\
>>> file: a\n--- from\n1\n--- to\n2\n<\n\
>>> file: b\n--- from\nx\n--- to\ny\n<\n\
>>> file: a\n--- from\n3\n--- to\n4\n<\n\
>>> file: a | mode=replace\n--- from\n--- to\nall\n<\n\
>>> file: a\n--- from\nall\n--- to\nmost\n<\n\
>>> file: c\n--- from\n--- to\nnew\n<\n\
>>> file: c\n--- from\nnew\n--- to\nnewer\n<\n";
        let p = plan(text);
        let shape: Vec<(&str, Vec<&str>)> = p
            .files
            .iter()
            .map(|f| {
                let labels = match &f.op {
                    FileOp::Modify(m) => m.edits.iter().map(|e| e.label.as_str()).collect(),
                    FileOp::Replace { .. } => vec!["replace"],
                    FileOp::Create { .. } => vec!["create"],
                    other => panic!("{other:?}"),
                };
                (f.path.as_str(), labels)
            })
            .collect();
        assert_eq!(
            shape,
            [
                ("a", vec!["block 1", "block 3"]),
                ("b", vec!["block 2"]),
                ("a", vec!["replace"]),
                ("a", vec!["block 5"]),
                ("c", vec!["create"]),
                ("c", vec!["block 7"]),
            ]
        );
        let mut files = MemoryFileSet::new().with("a", "1\n3\n").with("b", "x\n");
        run(&mut files, text).unwrap();
        assert_eq!((files.get_str("a"), files.get_str("b")), (Some("most\n"), Some("y\n")));
        assert_eq!(files.get_str("c"), Some("newer\n"));
    }

    #[test]
    fn an_empty_from_creates_a_missing_file_and_refuses_an_existing_one() {
        let text = ">>> file: new/n.txt\n--- from\n--- to\nhello\n<\n";
        let mut files = MemoryFileSet::new();
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("new/n.txt"), Some("hello\n"));
        // The same again: already there.
        let report = run(&mut files, text).unwrap();
        assert_eq!(report.files[0].status, Status::AlreadyApplied);
        let mut files = MemoryFileSet::new().with("new/n.txt", "other\n");
        let err = run(&mut files, text).unwrap_err();
        assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::FileExists);
        assert_eq!(files.get_str("new/n.txt"), Some("other\n"));
    }

    #[test]
    fn replace_mode_writes_the_whole_file_and_creates_a_missing_one() {
        let text = ">>> file: r.txt | mode=replace\n--- from\n--- to\none\ntwo\n<\n";
        let mut files = MemoryFileSet::new().with("r.txt", "old\r\nlines\r\n");
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("r.txt"), Some("one\r\ntwo\r\n"));
        let mut files = MemoryFileSet::new();
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("r.txt"), Some("one\ntwo\n"));
    }

    #[test]
    fn an_exact_from_that_occurs_twice_is_ambiguous() {
        let text = ">>> file: a\n--- from\nx\n--- to\ny\n<\n";
        let mut files = MemoryFileSet::new().with("a", "x\nz\nx\n");
        let err = run(&mut files, text).unwrap_err();
        let failure = err.report.files[0].edits[0].failure.as_ref().unwrap();
        assert_eq!(failure.kind, FailureKind::Ambiguous);
        assert_eq!(failure.candidates.len(), 2);
        assert_eq!(files.get_str("a"), Some("x\nz\nx\n"));
    }

    #[test]
    fn a_fuzzy_tie_lists_both_places_with_their_scores() {
        let file = "def first():\n    value = compute(1)\n    log(value)\n    return value\n\n\n\
                    def second():\n    value = compute(2)\n    log(value)\n    return value\n";
        let text = ">>> file: two.py\n--- from\n    value = compute(3)\n    log(value)\n    return value\n--- to\n    \
                    value = compute(3)\n    log(value, level=2)\n    return value\n<\n";
        let mut files = MemoryFileSet::new().with("two.py", file);
        let err = run(&mut files, text).unwrap_err();
        let failure = err.report.files[0].edits[0].failure.clone().unwrap();
        assert_eq!(failure.kind, FailureKind::Ambiguous);
        let places: Vec<(usize, usize)> = failure.candidates.iter().map(|r| (r.start, r.end)).collect();
        assert_eq!(places, [(2, 4), (8, 10)]);
        assert_eq!(failure.candidate_scores, [0.98, 0.98]);
        assert!(failure.message.contains("lines 2-4 (similarity 0.98), lines 8-10 (similarity 0.98)"), "{failure}");
        assert_eq!(files.get_str("two.py"), Some(file));
    }

    #[test]
    fn the_spec_s_fuzzy_tier_matches_removed_lines_and_the_report_lists_them() {
        // Tier 4 matches the whole `from` block (spec §4): the removed line `if amount < 0:`
        // against the file's `if amount <= 0:` is applied, and named in the report.
        let file = "class Inventory:\n    def restock(self, amount):\n        if amount <= 0:\n            raise ValueError(\"no\")\n";
        let text = ">>> file: inv.py\n--- from\n    def restock(self, amount):\n        if amount < 0:\n            raise ValueError(\"no\")\n--- to\n    def restock(self, amount):\n        if amount < 0 or amount > 1000:\n            raise ValueError(\"no\")\n<\n";
        assert!(plan(text).files.iter().all(|f| match &f.op {
            FileOp::Modify(m) => m.edits.iter().all(|e| e.policy.allow_fuzzy_removals),
            _ => false,
        }));
        let mut files = MemoryFileSet::new().with("inv.py", file);
        let report = run(&mut files, text).unwrap();
        let edit = &report.files[0].edits[0];
        assert_eq!((edit.status, edit.tier), (Status::Applied, Some(Tier::Fuzzy)));
        assert_eq!(
            edit.notes,
            [
                "line 3 was removed though it only resembles the patch's (fuzzy removals allowed): the file had `if amount <= 0:`, the patch removes `if amount < 0:`"
            ]
        );
        assert_eq!(
            files.get_str("inv.py"),
            Some(
                "class Inventory:\n    def restock(self, amount):\n        if amount < 0 or amount > 1000:\n            raise ValueError(\"no\")\n"
            )
        );
    }

    #[test]
    fn a_low_fuzz_is_warned_about() {
        let p = plan(">>> file: a | fuzz=0.5\n--- from\nx\n--- to\ny\n<\n");
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].starts_with("block 1 (a) accepts fuzzy matches down to fuzz=0.5"));
    }
}
