//! Text (substring) targets, the Aptix `find`/`replace`/`limit` edit: exact bytes after
//! applying, statuses, tiers and failure kinds. With the `text-target` feature (on by default; without it:
//! `text_target_feature.rs`).
#![cfg(feature = "text-target")]

use std::fmt::Write as _;

use polypatch_core::{
    Action, ApplyError, ApplyOptions, ApplyReport, Edit, EditPlan, EditReport, FailureKind, FileEdit, FileOp,
    MemoryFileSet, Missing, Modify, Occurrence, Policy, Replacement, Status, Target, Tier, apply,
};

/// A text edit as the Aptix dialect lowers it (`limit: once` is [`Occurrence::First`]).
fn text(find: &str, replace: &str, occurrence: Occurrence) -> Edit {
    Edit::new(Target::Text(find.into()), Action::Replace(Replacement::text(replace)))
        .with_policy(Policy::default().with_occurrence(occurrence))
}

fn once(find: &str, replace: &str) -> Edit {
    text(find, replace, Occurrence::First)
}

fn plan(path: &str, edits: Vec<Edit>) -> EditPlan {
    EditPlan::new("test", vec![FileEdit::new(path, FileOp::Modify(Modify::new(edits)))])
}

/// Applies `edits` to a file `f.txt` holding `before`; the file's content afterwards and
/// the result.
fn run_with(before: &str, edits: Vec<Edit>, options: &ApplyOptions) -> (String, Result<ApplyReport, ApplyError>) {
    let mut files = MemoryFileSet::new().with("f.txt", before);
    let result = apply(&plan("f.txt", edits), &mut files, options);
    (files.get_str("f.txt").expect("file").to_string(), result)
}

fn run(before: &str, edits: Vec<Edit>) -> (String, Result<ApplyReport, ApplyError>) {
    run_with(before, edits, &ApplyOptions::default())
}

/// The report of the only edit of an applied plan.
fn applied(before: &str, edit: Edit) -> (String, EditReport) {
    let (after, result) = run(before, vec![edit]);
    let report = result.unwrap_or_else(|e| panic!("expected success, got: {e}"));
    (after, report.files[0].edits[0].clone())
}

/// The report of the only edit of a plan that failed; asserts nothing was written.
fn failed(before: &str, edit: Edit) -> EditReport {
    let (after, result) = run(before, vec![edit]);
    let err = result.expect_err("expected a failure");
    assert_eq!(after, before, "nothing is written when an edit fails");
    err.report.files[0].edits[0].clone()
}

fn kind(report: &EditReport) -> FailureKind {
    report.failure.as_ref().expect("a failure").kind
}

/// Every `\n` of a CRLF file is part of a `\r\n`.
fn all_crlf(s: &str) -> bool {
    s.match_indices('\n').all(|(i, _)| i > 0 && s.as_bytes()[i - 1] == b'\r')
}

// --- exact ---------------------------------------------------------------------------

#[test]
fn once_replaces_the_first_and_notes_the_others() {
    let (after, r) = applied("a = old;\nb = old;\nc = old;\n", once("old", "new"));
    assert_eq!(after, "a = new;\nb = old;\nc = old;\n");
    assert_eq!((r.status, r.tier, r.confidence), (Status::Applied, Some(Tier::Exact), Some(1.0)));
    assert_eq!(r.notes.len(), 1);
    assert!(r.notes[0].starts_with("the text to find occurs 3 times (line 1, line 2, line 3)"), "{}", r.notes[0]);
    assert!(r.notes[0].contains("limit: all"), "{}", r.notes[0]);
}

#[test]
fn once_with_one_occurrence_has_no_note() {
    let (after, r) = applied("a = old;\n", once("old", "new"));
    assert_eq!(after, "a = new;\n");
    assert!(r.notes.is_empty());
}

#[test]
fn all_replaces_every_occurrence_including_several_on_one_line() {
    let (after, r) = applied("x x\ny\nx\n", text("x", "zz", Occurrence::All));
    assert_eq!(after, "zz zz\ny\nzz\n");
    assert_eq!(r.status, Status::Applied);
}

#[test]
fn unique_with_several_occurrences_is_ambiguous() {
    let r = failed("x\nx\n", text("x", "y", Occurrence::Unique));
    assert_eq!(kind(&r), FailureKind::Ambiguous);
    assert_eq!(r.failure.unwrap().candidates_total, 2);
}

#[test]
fn replacements_apply_in_order_on_the_previous_result() {
    let (after, result) = run("foo baz\n", vec![once("foo", "bar"), once("bar baz", "qux")]);
    assert!(result.is_ok());
    assert_eq!(after, "qux\n");
}

#[test]
fn crlf_file_with_lf_find_and_replace_keeps_crlf() {
    let (after, r) = applied("a\r\nb\r\nc\r\n", once("b\nc", "B1\nB2\nC"));
    assert_eq!(after, "a\r\nB1\r\nB2\r\nC\r\n");
    assert!(all_crlf(&after));
    assert_eq!(r.lines.map(|l| (l.start, l.end)), Some((2, 3)));
    // A find written with CRLF works too.
    let (after, _) = applied("a\r\nb\r\n", once("a\r\nb", "c"));
    assert_eq!(after, "c\r\n");
}

#[test]
fn find_starting_and_ending_mid_line() {
    let (after, r) = applied("let v = foo(1,\r\n    2);\r\nend\r\n", once("foo(1,\n    2)", "bar(1, 2)"));
    assert_eq!(after, "let v = bar(1, 2);\r\nend\r\n");
    assert_eq!(r.tier, Some(Tier::Exact));
    let (after, _) = applied("one two three\n", once("two", "2\nand"));
    assert_eq!(after, "one 2\nand three\n");
}

#[test]
fn last_line_without_newline_stays_without() {
    let (after, _) = applied("a\nb", once("b", "c\nd"));
    assert_eq!(after, "a\nc\nd");
}

// --- already applied ------------------------------------------------------------------

#[test]
fn rerun_of_a_telling_replacement_is_already_applied() {
    let before = "class A {\n    public void OldMethod() { }\n}\n";
    let edit = once("public void OldMethod()", "public void NewMethod()");
    let (after, r) = applied(before, edit.clone());
    assert_eq!(after, "class A {\n    public void NewMethod() { }\n}\n");
    assert_eq!(r.status, Status::Applied);
    let (again, r) = applied(&after, edit);
    assert_eq!(again, after);
    assert_eq!(r.status, Status::AlreadyApplied);
    assert_eq!(r.lines.map(|l| (l.start, l.end)), Some((2, 2)));
}

#[test]
fn short_replacement_is_no_evidence() {
    // A character or two: not even mentioned.
    let r = failed("let x = 1;\n", once("let y = 2;", "x"));
    assert_eq!(kind(&r), FailureKind::NotFound);
    assert_eq!(r.failure.unwrap().message, "the text to find is not in the file, not even loosely: `let y = 2;`");
    // Shorter than the evidence needs: named, and not taken as applied.
    let r = failed("fn f() { run(); }\n", once("fn g() { stop(); }", "run();"));
    assert_eq!(kind(&r), FailureKind::NotFound);
    let message = &r.failure.unwrap().message;
    assert!(message.contains("the replacement text stands at line 1, but it is too short"), "{message}");
}

#[test]
fn empty_replacement_is_no_evidence() {
    let r = failed("let x = 1;\n", once("let y = 2;", ""));
    assert_eq!(kind(&r), FailureKind::NotFound);
}

#[test]
fn replacement_that_is_part_of_the_find_is_no_evidence() {
    let r = failed("x = compute_total(a, b)\n", once("let x = compute_total(a, b);", "compute_total(a, b)"));
    assert_eq!(kind(&r), FailureKind::NotFound);
    assert!(r.failure.unwrap().message.contains("it is a part of the text to find"));
}

#[test]
fn replacement_standing_twice_is_no_evidence_for_once_but_is_for_all() {
    let before = "public void NewMethod() { }\npublic void NewMethod() { }\n";
    let r = failed(before, once("public void OldMethod()", "public void NewMethod()"));
    assert!(r.failure.unwrap().message.contains("it occurs more than once"));
    let (after, r) = applied(before, text("public void OldMethod()", "public void NewMethod()", Occurrence::All));
    assert_eq!(after, before);
    assert_eq!(r.status, Status::AlreadyApplied);
}

#[test]
fn occurrence_inside_its_own_replacement_is_already_applied() {
    let edit = once("use std::io;", "use std::io;\nuse std::fmt::Write;");
    let (after, r) = applied("use std::io;\nfn main() {}\n", edit.clone());
    assert_eq!(after, "use std::io;\nuse std::fmt::Write;\nfn main() {}\n");
    assert_eq!(r.status, Status::Applied);
    let (again, r) = applied(&after, edit);
    assert_eq!(again, after, "a re-run adds nothing twice");
    assert_eq!(r.status, Status::AlreadyApplied);
}

#[test]
fn occurrence_inside_a_short_replacement_is_refused() {
    let r = failed("ab\n", once("a", "ab"));
    assert_eq!(kind(&r), FailureKind::Ambiguous);
}

#[test]
fn all_leaves_occurrences_inside_their_replacement() {
    let (after, r) = applied("f(x); f(x, y);\n", text("f(x", "f(x, y", Occurrence::All));
    assert_eq!(after, "f(x, y); f(x, y);\n");
    assert_eq!(r.status, Status::Applied);
    assert!(r.notes[0].starts_with("1 of the 2 occurrences already stand inside the replacement"), "{:?}", r.notes);
}

// --- lenient tiers --------------------------------------------------------------------

#[test]
fn multi_line_find_at_the_trailing_whitespace_tier() {
    let before = "fn a() {\n    let x = 1;   \n    let y = 2;\n}\n";
    let (after, r) = applied(before, once("    let x = 1;\n    let y = 2;", "    let x = 10;\n    let y = 20;"));
    assert_eq!(after, "fn a() {\n    let x = 10;\n    let y = 20;\n}\n");
    assert_eq!((r.status, r.tier), (Status::Applied, Some(Tier::TrailingWhitespace)));
}

#[test]
fn multi_line_find_at_the_indentation_tier_follows_the_file() {
    let before = "impl A {\n        let x = 1;\n        let y = 2;\n}\n";
    let (after, r) = applied(before, once("    let x = 1;\n    let y = 2;", "    let x = 10;\n    let y = 20;"));
    assert_eq!(after, "impl A {\n        let x = 10;\n        let y = 20;\n}\n");
    assert_eq!(r.tier, Some(Tier::Indentation));
    assert_eq!(r.confidence, Some(0.98));
}

#[test]
fn multi_line_find_at_the_trimmed_tier() {
    let (after, r) = applied("    a = 1;\n  b = 2;\n", once("a = 1;\nb = 2;", "a = 10;\nb = 20;"));
    assert_eq!(after, "    a = 10;\n  b = 20;\n");
    assert_eq!(r.tier, Some(Tier::Trimmed));
}

#[test]
fn multi_line_find_at_the_blank_lines_tier() {
    let (after, r) = applied("a = 1;\n\nb = 2;\nc\n", once("a = 1;\nb = 2;", "a = 1;\nb = 20;"));
    assert_eq!(r.tier, Some(Tier::BlankLines));
    assert_eq!(after, "a = 1;\n\nb = 20;\nc\n");
}

#[test]
fn multi_line_find_at_the_unicode_tier_keeps_kept_lines_as_the_file_has_them() {
    let before = "say(\u{201C}hi\u{201D});\nsay(\u{201C}bye\u{201D});\n";
    let (after, r) = applied(before, once("say(\"hi\");\nsay(\"bye\");", "say(\"hello\");\nsay(\"bye\");"));
    assert_eq!(after, "say(\"hello\");\nsay(\u{201C}bye\u{201D});\n");
    assert_eq!(r.tier, Some(Tier::Unicode));
}

#[test]
fn multi_line_find_at_the_fuzzy_tier() {
    let before =
        "fn compute(a: i32) -> i32 {\n    let doubled = a * 2;\n    let tripled = a * 3;\n    doubled + tripled\n}\n";
    let find =
        "fn compute(a: i32) -> i32 {\n    let doubled = a * 2;\n    let tripled = a * 3;\n    dubled + tripled\n}";
    let with =
        "fn compute(a: i32) -> i32 {\n    let doubled = a * 4;\n    let tripled = a * 3;\n    dubled + tripled\n}";
    let (after, r) = applied(before, once(find, with));
    assert_eq!(r.tier, Some(Tier::Fuzzy));
    assert!(r.confidence.unwrap() >= 0.9);
    // The context line with the model's typo is written as the file has it.
    assert_eq!(after, before.replace("a * 2", "a * 4"));
}

#[test]
fn multi_line_find_with_a_typo_in_a_line_it_rewrites_is_refused_unless_allowed() {
    // The line the edit removes only resembles the file's: the file may hold a change made
    // after the patch was written, so it is refused, showing both lines.
    let before = "fn main() {\n    println!(\"hello world\");\n    return;\n}\n";
    let edit = || once("println!(\"hello wrld\");\n    return;", "eprintln!(\"bye\");");
    let r = failed(before, edit());
    let failure = r.failure.as_ref().expect("a failure");
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(
        failure
            .message
            .contains("line 2 is `println!(\"hello world\");` where the patch removes `println!(\"hello wrld\");`"),
        "{}",
        failure.message
    );
    assert!(
        failure.next_step.starts_with("the file has `world\");` where the patch removes `wrld\");`: re-read the file"),
        "{}",
        failure.next_step
    );
    let closest = failure.closest.as_ref().expect("the file's lines against the patch's");
    assert!(closest.diff.contains("-println!(\"hello wrld\");\n+    println!(\"hello world\");"), "{}", closest.diff);
    // Allowed by the caller: applied, the line named in the report.
    let (after, result) = run_with(before, vec![edit()], &ApplyOptions::default().allow_fuzzy_removals(true));
    let r = result.expect("applied").files[0].edits[0].clone();
    assert_eq!(r.tier, Some(Tier::Fuzzy));
    assert_eq!(after, "fn main() {\n    eprintln!(\"bye\");\n}\n");
    assert_eq!(
        r.notes,
        [
            "line 2 was removed though it only resembles the patch's (fuzzy removals allowed): the file had `println!(\"hello world\");`, the patch removes `println!(\"hello wrld\");`"
        ]
    );
}

#[test]
fn multi_line_find_with_a_typo_the_replacement_writes_back_is_applied() {
    // `gmoil` in the find, `gmail` in the replacement and the file: the edit writes the
    // file's own line where the look-alike stood, nothing is lost.
    let before = "[contact]\nname = \"Ada\"\nemail = \"ada@gmail.com\"\n";
    let find = "name = \"Ada\"\nemail = \"ada@gmoil.com\"\n";
    let (after, r) = applied(before, once(find, "name = \"Ada Lovelace\"\nemail = \"ada@gmail.com\"\n"));
    assert_eq!((r.status, r.tier), (Status::Applied, Some(Tier::Fuzzy)));
    assert_eq!(after, "[contact]\nname = \"Ada Lovelace\"\nemail = \"ada@gmail.com\"\n");
    // Written back otherwise (`gmial`): refused.
    let r = failed(before, once(find, "name = \"Ada Lovelace\"\nemail = \"ada@gmial.com\"\n"));
    assert_eq!(kind(&r), FailureKind::NotFound);
}

#[test]
fn multi_line_find_whose_first_line_is_a_fragment_is_not_fuzzily_replaced_whole() {
    // `let v = ` before the fragment: more than a typo, so the first line is not replaced.
    let before = "let v = compute(alpha,\n    beta_value);\nnext();\n";
    let r = failed(before, once("compute(alpha,\n    beta_valu);", "compute(alpha, beta)"));
    assert_eq!(kind(&r), FailureKind::NotFound);
}

#[test]
fn multi_line_lenient_match_in_a_crlf_file_has_no_mixed_endings() {
    let before = "x\r\n    a = 1;  \r\n    b = 2;\r\ny\r\n";
    let (after, r) = applied(before, once("    a = 1;\n    b = 2;\n", "    a = 1;\n    c = 3;\n    b = 2;\n"));
    assert_eq!(r.tier, Some(Tier::TrailingWhitespace));
    assert_eq!(after, "x\r\n    a = 1;  \r\n    c = 3;\r\n    b = 2;\r\ny\r\n");
    assert!(all_crlf(&after));
}

#[test]
fn one_line_find_inside_a_line_with_look_alikes_and_whitespace() {
    let (after, r) = applied("let s = \u{201C}hi\u{201D}; // greet\n", once("\"hi\"", "\"bye\""));
    assert_eq!(after, "let s = \"bye\"; // greet\n");
    assert_eq!((r.tier, r.confidence), (Some(Tier::Unicode), Some(0.95)));
    let (after, r) = applied("if a  &&\tb {\r\n", once("a && b", "a || b"));
    assert_eq!(after, "if a || b {\r\n");
    assert_eq!(r.tier, Some(Tier::Trimmed));
}

#[test]
fn one_line_whole_line_find_keeps_the_file_indentation() {
    let (after, r) = applied("fn f() {\n\tlet x = 1;\n}\n", once("    let x = 1;", "    let x = 2;\n    let y = 3;"));
    assert_eq!(after, "fn f() {\n\tlet x = 2;\n\tlet y = 3;\n}\n");
    assert_eq!(r.tier, Some(Tier::Trimmed));
}

#[test]
fn one_line_fragment_is_never_matched_fuzzily() {
    let before = "let total = 1;\n";
    let r = failed(before, once("let totl = 1", "let total = 2"));
    let failure = r.failure.unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert_eq!(failure.closest.map(|c| (c.lines.start, c.lines.end)), Some((1, 1)));
}

#[test]
fn lenient_one_line_match_at_two_places_is_refused() {
    let r = failed("a  =  1;\nb = a  = 1;\n", once("a = 1", "a = 2"));
    assert_eq!(kind(&r), FailureKind::Ambiguous);
    assert_eq!(r.failure.unwrap().candidates.len(), 2);
}

#[test]
fn lenient_multi_line_match_at_two_places_is_refused() {
    let before = "  a = 1;\n  b = 2;\nx\n\ta = 1;\n\tb = 2;\n";
    let r = failed(before, once("a = 1;\nb = 2;", "a = 1;\nb = 3;"));
    assert_eq!(kind(&r), FailureKind::Ambiguous);
}

#[test]
fn all_is_exact_only() {
    let r = failed("a  =  1;\n", text("a = 1", "a = 2", Occurrence::All));
    assert_eq!(kind(&r), FailureKind::NotFound);
}

#[test]
fn strict_turns_off_the_lenient_tiers() {
    let (after, result) =
        run_with("if a  && b {\n", vec![once("a && b", "a || b")], &ApplyOptions::default().strict(true));
    assert_eq!(after, "if a  && b {\n");
    assert!(result.is_err());
}

#[test]
fn lenient_match_inside_a_telling_replacement_is_already_applied() {
    let edit = once("let value  =  compute();", "let value = compute();\nlet other = value * 2;");
    let (after, r) = applied("fn f() {\nlet value = compute();\n}\n", edit.clone());
    assert_eq!(after, "fn f() {\nlet value = compute();\nlet other = value * 2;\n}\n");
    assert_eq!(r.tier, Some(Tier::Trimmed));
    let (again, r) = applied(&after, edit);
    assert_eq!(again, after);
    assert_eq!((r.status, r.tier), (Status::AlreadyApplied, Some(Tier::Trimmed)));
}

#[test]
fn lenient_match_with_a_telling_replacement_elsewhere_is_refused() {
    let before = "let value  =  compute();\nlet x = 5;\nlet y = 6;\n";
    let r = failed(before, once("let value = compute();", "let x = 5;\nlet y = 6;"));
    let failure = r.failure.unwrap();
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert_eq!(failure.candidates.len(), 2);
}

// --- not found, skip -----------------------------------------------------------------

#[test]
fn not_found_names_the_closest_region_and_changes_nothing() {
    let before = "fn main() {\n    println!(\"hello world\");\n    return;\n}\n";
    let (after, result) =
        run(before, vec![once("fn main", "fn start"), once("println!(\"goodbye moon\");\n    return;", "x")]);
    assert_eq!(after, before, "the first edit is not written either");
    let report = result.expect_err("fails").report;
    let r = &report.files[0].edits[1];
    let failure = r.failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(failure.message.starts_with("the text to find is not in the file"), "{}", failure.message);
    let closest = failure.closest.as_ref().expect("closest region");
    assert_eq!((closest.lines.start, closest.lines.end), (2, 3));
    assert!(closest.similarity > 0.3 && closest.similarity < 1.0, "{}", closest.similarity);
    assert!(closest.diff.contains("goodbye moon") && closest.diff.contains("hello world"), "{}", closest.diff);
    assert!(failure.next_step.contains("lines 2-3"), "{}", failure.next_step);
}

#[test]
fn skip_option_reports_skipped_and_applies_the_rest() {
    let options = ApplyOptions::default().skip_missing_text(true);
    let (after, result) = run_with("a = 1;\n", vec![once("zzz_missing();", "y"), once("a = 1", "a = 2")], &options);
    assert_eq!(after, "a = 2;\n");
    let report = result.expect("skipped is not a failure");
    let r = &report.files[0].edits[0];
    assert_eq!(r.status, Status::Skipped);
    assert!(r.notes[0].starts_with("skipped: the text to find is not in the file"), "{:?}", r.notes);
    assert_eq!(report.files[0].edits[1].status, Status::Applied);
}

#[test]
fn skip_option_does_not_skip_an_ambiguity() {
    let options = ApplyOptions::default().skip_missing_text(true);
    let (after, result) = run_with("a  =  1;\nb = a  = 1;\n", vec![once("a = 1", "a = 2")], &options);
    assert_eq!(after, "a  =  1;\nb = a  = 1;\n");
    assert!(result.is_err());
}

#[test]
fn missing_skip_policy_skips() {
    let mut edit = once("zzz_missing();", "y");
    edit.policy.if_missing = Missing::Skip;
    let (after, r) = applied("a\n", edit);
    assert_eq!(after, "a\n");
    assert_eq!(r.status, Status::Skipped);
}

// --- bad input ------------------------------------------------------------------------

#[test]
fn odd_finds_never_panic() {
    assert_eq!(kind(&failed("a\n", once("", "x"))), FailureKind::InvalidPlan);
    for find in ["\n", "\n\n\n", "   ", "\u{2026}", "\u{200B}", "\r", "\u{FEFF}x", "é\n", "a\u{2026}."] {
        for before in ["", "abc", "x\u{2026}y\n", "\u{00A0}\u{00A0}\n", "\n\n", "a...\n"] {
            for occurrence in [Occurrence::First, Occurrence::All, Occurrence::Unique] {
                let _ = run(before, vec![text(find, "z", occurrence)]);
            }
        }
    }
}

#[test]
fn folded_three_dots_are_not_cut() {
    let (after, r) = applied("wait\u{2026} go\n", once("wait... go", "stop"));
    assert_eq!(after, "stop\n");
    assert_eq!(r.tier, Some(Tier::Unicode));
    let r = failed("wait\u{2026} go\n", once("wait.. ", "stop"));
    assert_eq!(kind(&r), FailureKind::NotFound);
}

// --- scale ------------------------------------------------------------------------------

#[test]
fn big_files_stay_linear() {
    let mut before = String::new();
    for i in 0..50_000 {
        let _ = writeln!(before, "    let value_{i} = compute({i});");
    }
    let start = std::time::Instant::now();
    // Not found at any tier: literal, in-line lenient, evidence, closest region.
    let r = failed(&before, once("let missing  = nowhere();", "let found = here(1, 2, 3);"));
    assert_eq!(kind(&r), FailureKind::NotFound);
    // Multi-line, through the line engine.
    let r = failed(&before, once("let other = thing(1);\nlet more = stuff(2);", "y"));
    assert_eq!(kind(&r), FailureKind::NotFound);
    // Every occurrence, with a replacement that holds the text to find.
    let a = "a\n".repeat(100_000);
    let (after, r) = applied(&a, text("a", "ab", Occurrence::All));
    assert_eq!((after.len(), r.status), (300_000, Status::Applied));
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "took {:?}", start.elapsed());
}

#[test]
fn once_rerun_does_not_move_on_to_the_next_occurrence() {
    let edit = once("connect(old_host)", "connect(new_host)");
    let (after, r) = applied("connect(old_host);\nconnect(old_host);\n", edit.clone());
    assert_eq!(after, "connect(new_host);\nconnect(old_host);\n");
    assert_eq!(r.notes.len(), 1, "the first run warns about the second occurrence");
    let r = failed(&after, edit);
    let failure = r.failure.unwrap();
    assert_eq!(failure.kind, FailureKind::Ambiguous);
    assert_eq!(failure.candidates.iter().map(|c| c.start).collect::<Vec<_>>(), vec![2, 1]);
}

#[test]
fn mixed_endings_keep_each_region_its_own() {
    let (after, _) = applied("a\nb\r\nc\n", once("b", "b1\nb2"));
    assert_eq!(after, "a\nb1\r\nb2\r\nc\n");
}

#[test]
fn one_line_find_ending_with_a_newline_at_a_lenient_tier() {
    let (after, r) = applied("a\n\tfoo();  \nb\n", once("    foo();\n", "    bar();\n"));
    assert_eq!(after, "a\n\tbar();\nb\n");
    assert_eq!(r.tier, Some(Tier::Trimmed));
    let (after, _) = applied("a\n\tfoo();\nb\n", once("    foo();\n", ""));
    assert_eq!(after, "a\nb\n", "an empty replacement removes the line");
    // The newline says the find ends its line: a fragment is not a match.
    assert_eq!(kind(&failed("x = \u{201C}foo\u{201D}; y\n", once("\"foo\";\n", "1;\n"))), FailureKind::NotFound);
    // A replacement without the newline would join the next line: exact only.
    assert_eq!(kind(&failed("\tfoo();\nb\n", once("    foo();\n", "bar();"))), FailureKind::NotFound);
}

#[test]
fn a_replacement_standing_at_another_indentation_shows_a_loose_first_run_was_applied() {
    let find = "def push(self, value):\n    self.total += value\n";
    let with = "def push(self, value):\n    check_number(value)\n    self.total += value\n";
    let file = "class C:\n    def push(self, value):\n        self.total += value\n";
    // The first run matches at the indentation tier; the re-run finds the replacement
    // there, at the same shift: already applied.
    let (after, first) = applied(file, once(find, with));
    assert_eq!(first.tier, Some(Tier::Indentation));
    assert_eq!(
        after,
        "class C:\n    def push(self, value):\n        check_number(value)\n        self.total += value\n"
    );
    let (again, second) = applied(&after, once(find, with));
    assert_eq!(again, after);
    assert_eq!((second.status, second.tier), (Status::AlreadyApplied, Some(Tier::Indentation)));
    // At two places loosely it shows nothing: not found.
    let twice = format!(
        "{after}class D:\n    def push(self, value):\n        check_number(value)\n        self.total += value\n"
    );
    let report = failed(&twice, once(find, with));
    assert_eq!(report.failure.unwrap().kind, FailureKind::NotFound);
}
