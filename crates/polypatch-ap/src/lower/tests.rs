use polypatch_core::{Newline, Span};

use super::*;
use crate::syntax::parse;

fn plan(text: &str) -> EditPlan {
    lower(&parse(text).unwrap_or_else(|e| panic!("{}", e.render(text))))
}

fn edits(fe: &FileEdit) -> &[Edit] {
    match &fe.op {
        FileOp::Modify(m) => {
            assert_eq!(m.post, PostProcess::strip_trailing_whitespace());
            assert_eq!(m.if_missing, polypatch_core::IfMissing::Error);
            &m.edits
        }
        other => panic!("expected a modify, got {other:?}"),
    }
}

fn strings(lines: &[&str]) -> Vec<polypatch_core::LineText> {
    lines.iter().copied().map(Into::into).collect()
}

fn slice(text: &str, span: Option<Span>) -> &str {
    let span = span.expect("a span");
    &text[span.start..span.end]
}

const PATCH: &str = r#"version: "2.0"
changes:
  - file_path: src/a.py
    modifications:
      - action: INSERT_AFTER
        snippet: |
          import math
        content: |
          import os
      - action: REPLACE
        anchor: |
          def add(a, b):
        snippet: |
          return a + b

        content: |
          if a:
              return 0
          return a + b
      - action: DELETE
        start_snippet: |
          def get_pi():
        end_snippet: |
          return 3.14
        include_leading_blank_lines: 1
        include_trailing_blank_lines: 2
      - action: INSERT_BEFORE
        snippet: |2
              x = 1
        content: |2
              y = 2
"#;

#[test]
fn every_action_lowers_per_the_contract() {
    let plan = plan(PATCH);
    assert_eq!(plan.dialect, "ap");
    assert!(plan.warnings.is_empty());
    let [fe] = plan.files.as_slice() else { panic!("one file operation") };
    assert_eq!(fe.path, "src/a.py");
    assert!(slice(PATCH, fe.span).starts_with("- file_path: src/a.py"));
    assert!(slice(PATCH, fe.span).ends_with("y = 2"));
    let e = edits(fe);
    assert_eq!(e.len(), 4);

    // INSERT_AFTER
    assert_eq!(e[0].target, Target::Lines(strings(&["import math"])));
    assert_eq!(e[0].action, Action::InsertAfter { lines: strings(&["import os"]) });
    assert_eq!(e[0].scope, Scope::default());
    assert_eq!(e[0].label, "change 1 modification 1");
    assert!(slice(PATCH, e[0].span).starts_with("- action: INSERT_AFTER"));
    assert!(slice(PATCH, e[0].span).ends_with("import os"));
    let p = &e[0].policy;
    assert_eq!(p.tiers, TierSet::range(Tier::Trimmed, Tier::Fuzzy).without(Tier::Prefix));
    assert_eq!(p.occurrence, Occurrence::Unique);
    assert!(p.ignore_blank_lines && p.detect_already_applied);
    assert_eq!(p.if_missing, Missing::Error);
    assert_eq!(p.indent, Indent::ToTargetFirstLine);
    assert_eq!((p.leading_blank_lines, p.trailing_blank_lines), (0, 0));
    assert!((p.fuzzy_threshold - polypatch_core::DEFAULT_FUZZY_THRESHOLD).abs() < f64::EPSILON);

    // REPLACE with an anchor: first occurrence after it; the blank line ends the snippet's
    // block and is not part of it.
    assert_eq!(e[1].target, Target::Lines(strings(&["return a + b"])));
    assert_eq!(e[1].action, Action::Replace(Replacement::lines(strings(&["if a:", "    return 0", "return a + b"]))));
    assert_eq!(e[1].scope.anchor, Some(Anchor::new(strings(&["def add(a, b):"]), true)));
    assert_eq!(e[1].scope.line_hint, None);
    assert!(!e[1].scope.after_previous);
    assert_eq!(e[1].policy.occurrence, Occurrence::FirstAfterAnchor);
    assert_eq!(e[1].label, "change 1 modification 2");

    // DELETE of a range with blank lines: trimmed or look-alikes, never fuzzy; not found =
    // already applied.
    assert_eq!(e[2].target, Target::Range { start: strings(&["def get_pi():"]), end: strings(&["return 3.14"]) });
    assert_eq!(e[2].action, Action::Delete);
    let p = &e[2].policy;
    assert_eq!(p.tiers, TierSet::only(Tier::Trimmed).with(Tier::Unicode));
    assert_eq!(p.if_missing, Missing::AlreadyApplied);
    assert_eq!((p.leading_blank_lines, p.trailing_blank_lines), (1, 2));

    // INSERT_BEFORE written with absolute indentation (`|2`): the same §3.3 rule; the
    // content is kept as written when its first line carries the file's indentation.
    assert_eq!(e[3].target, Target::Lines(strings(&["    x = 1"])));
    assert_eq!(e[3].action, Action::InsertBefore { lines: strings(&["    y = 2"]) });
    assert_eq!(e[3].policy.indent, Indent::ToTargetFirstLine);
}

#[test]
fn create_file_and_following_modifications() {
    let text = r#"version: "2.0"
changes:
  - file_path: new.txt
    newline: CRLF
    modifications:
      - action: CREATE_FILE
        content: |
          a
          b
      - action: INSERT_AFTER
        snippet: a
        content: x
  - file_path: other.txt
    modifications:
      - action: CREATE_FILE
        content: ""
"#;
    let plan = plan(text);
    assert_eq!(plan.files.len(), 3);
    assert_eq!(
        plan.files[0].op,
        FileOp::Create {
            content: Content::Text("a\nb\n".into()),
            newline: Some(Newline::CrLf),
            if_exists: IfExists::ErrorUnlessIdentical,
            mode: None,
        }
    );
    assert_eq!(plan.files[0].span, plan.files[1].span);
    assert_eq!(plan.files[1].path, "new.txt");
    let e = edits(&plan.files[1]);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].label, "change 1 modification 2");
    assert_eq!(
        plan.files[2].op,
        FileOp::Create {
            content: Content::Text(String::new()),
            newline: None,
            if_exists: IfExists::ErrorUnlessIdentical,
            mode: None
        }
    );
}

#[test]
fn a_path_in_several_changes_gives_several_operations_in_order() {
    let text = "version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - action: DELETE\n        snippet: x\n  - file_path: b\n    modifications:\n      - action: DELETE\n        snippet: y\n  - file_path: a\n    modifications:\n      - action: DELETE\n        snippet: z\n";
    let plan = plan(text);
    assert_eq!(plan.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["a", "b", "a"]);
    assert_eq!(edits(&plan.files[2])[0].label, "change 3 modification 1");
}

#[test]
fn the_warning_reaches_the_plan() {
    let plan = plan("version: 2.0\nchanges: []\n");
    assert!(plan.files.is_empty());
    assert_eq!(plan.warnings.len(), 1);
}

#[test]
fn how_the_snippet_is_indented_says_nothing_about_the_content() {
    let text = "version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - action: REPLACE\n        start_snippet: \"\\tif x:\"\n        end_snippet: \"\\tend\"\n        content: \"\\ty\"\n";
    let plan = plan(text);
    assert_eq!(edits(&plan.files[0])[0].policy.indent, Indent::ToTargetFirstLine);
}
