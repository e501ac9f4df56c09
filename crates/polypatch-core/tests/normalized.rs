//! The core under the policies the `ap` dialect lowers to: trimmed matching with blank
//! lines ignored, unique anchors, first occurrence after them, re-indentation to the
//! target's first line, blank-line widening, DELETE whose miss means already applied, and
//! trailing-whitespace post-processing (the 'ap' v2.0 spec, §3).

use polypatch_core::{
    Action, Anchor, ApplyOptions, Edit, EditPlan, FailureKind, FileEdit, FileOp, Indent, LineText, MemoryFileSet,
    Missing, Modify, Occurrence, Policy, PostProcess, Replacement, Scope, Status, Target, Tier, TierSet, apply,
};

fn lines(text: &str) -> Vec<LineText> {
    text.lines().map(LineText::from).collect()
}

fn edit(target: Target, action: Action, anchor: Option<&str>) -> Edit {
    let delete = matches!(action, Action::Delete);
    Edit::new(target, action)
        .with_scope({
            let mut x = Scope::default();
            x.anchor = anchor.map(|a| Anchor::new(lines(a), true));
            x
        })
        .with_policy({
            let mut x = Policy::default();
            x.tiers = if delete {
                TierSet::only(Tier::Trimmed).with(Tier::Unicode)
            } else {
                TierSet::range(Tier::Trimmed, Tier::Fuzzy).without(Tier::Prefix)
            };
            x.occurrence = if anchor.is_some() { Occurrence::FirstAfterAnchor } else { Occurrence::Unique };
            x.ignore_blank_lines = true;
            x.if_missing = if delete { Missing::AlreadyApplied } else { Missing::Error };
            x.indent = Indent::ToTargetFirstLine;
            x
        })
}

fn plan(path: &str, edits: Vec<Edit>) -> EditPlan {
    let m = {
        let mut x = Modify::new(edits);
        x.post = PostProcess::strip_trailing_whitespace();
        x
    };
    EditPlan::new("test", vec![FileEdit::new(path, FileOp::Modify(m))])
}

const CALCULATOR: &str = "# A simple calculator module\nimport math\n\ndef add(a, b):\n    # Deprecated: use sum() for lists\n    return a + b\n\ndef get_pi():\n    return 3.14\n";
const EXPECTED: &str = "# A simple calculator module\nimport math\nfrom typing import List\n\ndef add(a, b):\n    # Deprecated: use sum() for lists\n    # New implementation supports summing a list\n    if isinstance(a, List):\n        return sum(a)\n    return a + b\n";

fn spec_example() -> EditPlan {
    let mut delete = edit(Target::Lines(lines("def get_pi():\n    return 3.14\n")), Action::Delete, None);
    delete.policy.leading_blank_lines = 1;
    plan(
        "src/calculator.py",
        vec![
            edit(
                Target::Lines(lines("import math\n")),
                Action::InsertAfter { lines: lines("from typing import List\n") },
                None,
            ),
            edit(
                Target::Lines(lines("return a + b\n")),
                Action::Replace(Replacement::lines(lines(
                    "# New implementation supports summing a list\nif isinstance(a, List):\n    return sum(a)\nreturn a + b\n",
                ))),
                Some("def add(a, b):\n"),
            ),
            delete,
        ],
    )
}

#[test]
fn the_specs_complete_example_is_byte_exact_and_idempotent() {
    let mut files = MemoryFileSet::new().with("src/calculator.py", CALCULATOR);
    let report = apply(&spec_example(), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("src/calculator.py"), Some(EXPECTED), "{report}");
    let again = apply(&spec_example(), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("src/calculator.py"), Some(EXPECTED), "{again}");
    for e in &again.files[0].edits {
        assert_eq!(e.status, Status::AlreadyApplied, "{again}");
    }
}

#[test]
fn absolute_indentation_is_shifted_by_the_first_lines_difference() {
    // The patch wrote snippet and content with their indentation inside a class (4 and 8
    // columns); the file indents with 2 per level.
    let file = "class A:\n  def f(self):\n    return 1\n";
    let mut e = edit(
        Target::Lines(lines("    def f(self):\n        return 1\n")),
        Action::Replace(Replacement::lines(lines("    def f(self):\n        x = 1\n        return x\n"))),
        None,
    );
    e.policy.indent = Indent::ShiftByFirstLine;
    let mut files = MemoryFileSet::new().with("a.py", file);
    apply(&plan("a.py", vec![e]), &mut files, &ApplyOptions::default()).unwrap();
    // Shifted by 2 - 4 = -2 columns: relative indentation as the patch wrote it.
    assert_eq!(files.get_str("a.py"), Some("class A:\n  def f(self):\n      x = 1\n      return x\n"));
}

#[test]
fn delete_never_matches_fuzzily() {
    // A typo in the snippet: a similar sibling must not be deleted, and "already applied"
    // would be untrue while the line is still there: refused, naming the similar line.
    let file = "fn keep_me() {}\nfn other() {}\n";
    let mut files = MemoryFileSet::new().with("a.rs", file);
    let e = edit(Target::Lines(lines("fn keep_mi() {}")), Action::Delete, None);
    let err = apply(&plan("a.rs", vec![e]), &mut files, &ApplyOptions::default()).unwrap_err();
    let failure = err.report.files[0].edits[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    assert!(failure.message.contains("the file has lines like them at line 1 (fuzzy match)"), "{failure}");
    assert_eq!(files.get_str("a.rs"), Some(file));
    // A snippet nothing resembles is gone: already applied (§3.1).
    let e = edit(Target::Lines(lines("fn removed_long_ago() {}")), Action::Delete, None);
    let report = apply(&plan("a.rs", vec![e]), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(report.files[0].edits[0].status, Status::AlreadyApplied);
    assert_eq!(files.get_str("a.rs"), Some(file));
}

#[test]
fn range_runs_to_the_first_end_after_the_start_and_trailing_whitespace_goes() {
    let file = "a  \nstart\nx\nend\ny\nend\n";
    let e = edit(
        Target::Range { start: lines("start"), end: lines("end") },
        Action::Replace(Replacement::lines(lines("new"))),
        None,
    );
    let mut files = MemoryFileSet::new().with("r.txt", file);
    apply(&plan("r.txt", vec![e]), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("r.txt"), Some("a\nnew\ny\nend\n"));
}

#[test]
fn a_replacement_that_nests_the_snippet_deeper_is_already_applied_on_a_rerun() {
    // The content wraps the snippet in a block: it holds the snippet re-indented.
    let file = "func main() {\n\tif ok {\n\t\tdo()\n\t}\n}\n";
    let e =
        edit(Target::Lines(lines("do()")), Action::Replace(Replacement::lines(lines("if again {\n    do()\n}"))), None);
    let mut files = MemoryFileSet::new().with("main.go", file);
    apply(&plan("main.go", vec![e.clone()]), &mut files, &ApplyOptions::default()).unwrap();
    let want = "func main() {\n\tif ok {\n\t\tif again {\n\t\t\tdo()\n\t\t}\n\t}\n}\n";
    assert_eq!(files.get_str("main.go"), Some(want));
    let again = apply(&plan("main.go", vec![e]), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied, "{again}");
    assert_eq!(files.get_str("main.go"), Some(want));
}

#[test]
fn a_range_replacement_is_already_applied_on_a_rerun() {
    let file = "fn main() {\n    let a = 1;\n    let b = 2;\n}\n";
    let e = edit(
        Target::Range { start: lines("let a = 1;"), end: lines("let b = 2;") },
        Action::Replace(Replacement::lines(lines("let sum = 3;"))),
        None,
    );
    let mut files = MemoryFileSet::new().with("m.rs", file);
    apply(&plan("m.rs", vec![e.clone()]), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(files.get_str("m.rs"), Some("fn main() {\n    let sum = 3;\n}\n"));
    let again = apply(&plan("m.rs", vec![e]), &mut files, &ApplyOptions::default()).unwrap();
    assert_eq!(again.files[0].edits[0].status, Status::AlreadyApplied, "{again}");
}
