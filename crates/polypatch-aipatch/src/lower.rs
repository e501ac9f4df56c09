//! Lower the AI-PATCH syntax tree into an [`EditPlan`].

use polypatch_core::{
    Action, Anchor, Content, Edit, EditPlan, FileEdit, FileOp, IfExists, IfMissing, LineText, Modify, NewLineEnds,
    Occurrence, Policy, Replacement, Scope, Target,
};

use crate::error::DIALECT;
use crate::syntax::{Hunk, HunkHeader, LineKind, Op, Patch};

/// Lowers a parsed patch into an [`EditPlan`]; every well-formed patch lowers.
pub fn lower(patch: &Patch<'_>) -> EditPlan {
    EditPlan::new(DIALECT, patch.ops.iter().map(lower_op).collect())
}

fn lower_op(op: &Op<'_>) -> FileEdit {
    let file_op = match op {
        Op::Add { lines, .. } => FileOp::Create {
            content: Content::Text(polypatch_core::join_lines(lines)),
            newline: None,
            // Codex's `*** Add File` overwrites an existing file (its scenario 011).
            if_exists: IfExists::Overwrite,
            mode: None,
        },
        Op::Delete { .. } => FileOp::Delete { if_missing: IfMissing::Error, expect: None },
        Op::Update { move_to, hunks, .. } => {
            let mut modify = Modify::new(hunks.iter().enumerate().map(|(i, hunk)| lower_hunk(i + 1, hunk)).collect());
            modify.move_to = move_to.map(str::to_owned);
            // Codex's moves overwrite an existing destination.
            modify.if_dest_exists = IfExists::Overwrite;
            // Codex ends a new line with the file's most frequent terminator (its scenario
            // 024): the dialect's reference wins over our neighbour rule.
            modify.new_line_ends = NewLineEnds::Usual;
            FileOp::Modify(modify)
        }
    };
    FileEdit::new(op.path(), file_op).with_span(op.span())
}

fn lower_hunk(number: usize, hunk: &Hunk<'_>) -> Edit {
    let old_len = hunk.lines.iter().filter(|l| l.kind != LineKind::Add).count();
    let new_len = hunk.lines.len() - hunk.lines.iter().filter(|l| l.kind == LineKind::Remove).count();
    let mut old = Vec::with_capacity(old_len);
    let mut new = Vec::with_capacity(new_len);
    let mut kept = Vec::with_capacity(new_len);
    // The hunk's lines copied once, into one buffer they share.
    let texts = LineText::copy_all(hunk.lines.iter().map(|l| l.text));
    for (line, text) in hunk.lines.iter().zip(texts) {
        match line.kind {
            LineKind::Context => {
                kept.push(Some(old.len()));
                old.push(text.clone());
                new.push(text);
            }
            LineKind::Remove => old.push(text),
            LineKind::Add => {
                kept.push(None);
                new.push(text);
            }
        }
    }
    let (anchor, line_hint) = match hunk.header {
        HunkHeader::None => (None, None),
        HunkHeader::Hint(n) => (None, Some(n)),
        HunkHeader::Context(text) => (Some(Anchor::new(vec![text.into()], false)), None),
        HunkHeader::Unified { old_start, old_len, .. } => (None, Some(unified_hint(old_start, old_len))),
    };
    let mut scope = Scope::default().with_after_previous(line_hint.is_none()).with_at_end_of_file(hunk.end_of_file);
    scope.anchor = anchor;
    scope.line_hint = line_hint;
    let (target, action) = if !old.is_empty() {
        (Target::Lines(old), Action::Replace(Replacement::lines(new).with_kept(kept)))
    } else if scope.anchor.is_some() {
        // The model wrote the context line to say where: insert right after it.
        (Target::Lines(Vec::new()), Action::InsertAfter { lines: new })
    } else if line_hint.is_some() && !hunk.end_of_file {
        (Target::Lines(Vec::new()), Action::InsertBefore { lines: new })
    } else {
        // Nothing says where: append, as Codex does (its scenario 016).
        (Target::EndOfFile, Action::InsertAfter { lines: new })
    };
    // A plain `@@` with nothing before it (the file's first hunk) names no place when its
    // block occurs twice: it must be unique. After an earlier hunk, a context header or a
    // line number, the first occurrence from there is the spec's in-order search.
    let locates = matches!(&target, Target::Lines(lines) if !lines.is_empty());
    let occurrence = if number == 1 && locates && matches!(hunk.header, HunkHeader::None) {
        Occurrence::Unique
    } else {
        Occurrence::First
    };
    Edit::new(target, action)
        .with_scope(scope)
        .with_policy(Policy::default().with_occurrence(occurrence))
        .with_label(format!("hunk {number}"))
        .with_span(hunk.span)
}

/// The line hint of a unified header `@@ -a,b …`: `a`, except that an empty old side
/// (`b` = 0) starts after line `a`, as in unified diffs, so the hint is `a + 1`.
fn unified_hint(old_start: usize, old_len: Option<usize>) -> usize {
    if old_len == Some(0) { old_start.saturating_add(1) } else { old_start.max(1) }
}

#[cfg(test)]
mod tests {
    use polypatch_core::Span;

    use super::*;
    use crate::error::{EMPTY_PATCH, EMPTY_UPDATE, INVALID_HEADER};
    use crate::syntax::parse;

    fn plan(text: &str) -> EditPlan {
        lower(&parse(text).unwrap_or_else(|e| panic!("{}", e.render(text))))
    }

    /// The span of the only occurrence of `needle` in `text`.
    fn at(text: &str, needle: &str) -> Span {
        let start = text.find(needle).expect("needle in text");
        assert_eq!(text.matches(needle).count(), 1, "{needle:?} occurs once");
        Span::new(start, start + needle.len())
    }

    fn strings(lines: &[&str]) -> Vec<polypatch_core::LineText> {
        lines.iter().copied().map(Into::into).collect()
    }

    fn first() -> Policy {
        Policy::default().with_occurrence(Occurrence::First)
    }

    /// A file's first hunk without a header or line number must match one place; the
    /// others take the first occurrence.
    fn policy_of(label: &str, scope: &Scope) -> Policy {
        if label == "hunk 1" && scope.anchor.is_none() && scope.line_hint.is_none() {
            Policy::default().with_occurrence(Occurrence::Unique)
        } else {
            first()
        }
    }

    fn after_previous() -> Scope {
        Scope::default().with_after_previous(true)
    }

    fn replace(old: &[&str], new: &[&str], kept: &[Option<usize>], scope: Scope, label: &str, span: Span) -> Edit {
        Edit::new(
            Target::Lines(strings(old)),
            Action::Replace(Replacement::lines(strings(new)).with_kept(kept.to_vec())),
        )
        .with_policy(policy_of(label, &scope))
        .with_scope(scope)
        .with_label(label.to_owned())
        .with_span(span)
    }

    /// The edits of the plan's only file, which must be a modify.
    fn edits(plan: &EditPlan) -> &[Edit] {
        match plan.files.as_slice() {
            [FileEdit { op: FileOp::Modify(modify), .. }] => &modify.edits,
            other => panic!("expected one modify, got {other:?}"),
        }
    }

    fn one_edit(body: &str) -> (String, Edit) {
        let text = format!("*** Begin Patch\n*** Update File: f.txt\n{body}*** End Patch\n");
        let plan = plan(&text);
        let [edit] = edits(&plan) else { panic!("one edit") };
        (text.clone(), edit.clone())
    }

    #[test]
    fn add_lowers_to_an_overwriting_create() {
        let text = "*** Begin Patch\n*** Add File: docs/a.md\n+# A\n+\n+text\n*** Add File: empty\n*** End Patch\n";
        assert_eq!(
            plan(text),
            EditPlan::new(
                "ai-patch",
                vec![
                    FileEdit::new(
                        "docs/a.md",
                        FileOp::Create {
                            content: Content::Text("# A\n\ntext\n".into()),
                            newline: None,
                            if_exists: IfExists::Overwrite,
                            mode: None,
                        }
                    )
                    .with_span(at(text, "*** Add File: docs/a.md")),
                    FileEdit::new(
                        "empty",
                        FileOp::Create {
                            content: Content::Text(String::new()),
                            newline: None,
                            if_exists: IfExists::Overwrite,
                            mode: None,
                        }
                    )
                    .with_span(at(text, "*** Add File: empty")),
                ]
            )
        );
    }

    #[test]
    fn delete_lowers_to_a_delete_that_needs_the_file() {
        let text = "*** Begin Patch\n*** Delete File: obsolete.txt\n*** End Patch\n";
        assert_eq!(
            plan(text).files,
            [FileEdit::new("obsolete.txt", FileOp::Delete { if_missing: IfMissing::Error, expect: None })
                .with_span(at(text, "*** Delete File: obsolete.txt"))]
        );
    }

    #[test]
    fn update_lowers_hunks_in_order_with_move() {
        let text = "*** Begin Patch\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n fn a() {\n-    1\n+    2\n+    3\n }\n@@\n-x\n-y\n z\n+w\n*** End Patch\n";
        assert_eq!(
            plan(text).files,
            [FileEdit::new(
                "src/a.rs",
                FileOp::Modify({
                    let mut x = Modify::new(vec![
                        replace(
                            &["fn a() {", "    1", "}"],
                            &["fn a() {", "    2", "    3", "}"],
                            &[Some(0), None, None, Some(2)],
                            after_previous(),
                            "hunk 1",
                            at(text, "@@\n fn a() {\n-    1\n+    2\n+    3\n }"),
                        ),
                        replace(
                            &["x", "y", "z"],
                            &["z", "w"],
                            &[Some(2), None],
                            after_previous(),
                            "hunk 2",
                            at(text, "@@\n-x\n-y\n z\n+w"),
                        ),
                    ]);
                    x.move_to = Some("src/b.rs".into());
                    x.if_dest_exists = IfExists::Overwrite;
                    x.new_line_ends = NewLineEnds::Usual;
                    x
                })
            )
            .with_span(at(text, "*** Update File: src/a.rs\n*** Move to: src/b.rs"))]
        );
    }

    #[test]
    fn hunk_labels_count_per_file() {
        let text = "*** Begin Patch\n*** Update File: a\n-1\n@@\n-2\n*** Update File: b\n-3\n*** End Patch\n";
        let plan = plan(text);
        let labels: Vec<Vec<&str>> = plan
            .files
            .iter()
            .map(|f| match &f.op {
                FileOp::Modify(m) => m.edits.iter().map(|e| e.label.as_str()).collect(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(labels, [vec!["hunk 1", "hunk 2"], vec!["hunk 1"]]);
    }

    #[test]
    fn line_hint_replaces_after_previous() {
        let (text, edit) = one_edit("@@ :42\n a\n-b\n+c\n");
        let scope = Scope::default().with_line_hint(42);
        assert_eq!(
            edit,
            replace(&["a", "b"], &["a", "c"], &[Some(0), None], scope, "hunk 1", at(&text, "@@ :42\n a\n-b\n+c"))
        );
    }

    #[test]
    fn unified_header_gives_a_line_hint() {
        let cases = [
            ("@@ -12,7 +12,8 @@ fn main() {", 12),
            ("@@ -3 +3 @@", 3),
            ("@@ -5,0 +6,1 @@", 6),
            ("@@ -0,0 +1 @@", 1),
            ("@@ -0 +1", 1),
        ];
        for (header, hint) in cases {
            let (_, edit) = one_edit(&format!("{header}\n-a\n+b\n"));
            assert_eq!(edit.scope, Scope::default().with_line_hint(hint), "{header}");
        }
        assert_eq!(unified_hint(7, Some(3)), 7);
        assert_eq!(unified_hint(7, None), 7);
        assert_eq!(unified_hint(7, Some(0)), 8);
    }

    #[test]
    fn context_header_is_an_anchor() {
        let (text, edit) = one_edit("@@ class Greeter:\n     def hi(self):\n-        pass\n+        return 'hi'\n");
        let scope =
            Scope::default().with_anchor(Anchor::new(vec!["class Greeter:".into()], false)).with_after_previous(true);
        assert_eq!(
            edit,
            replace(
                &["    def hi(self):", "        pass"],
                &["    def hi(self):", "        return 'hi'"],
                &[Some(0), None],
                scope,
                "hunk 1",
                at(&text, "@@ class Greeter:\n     def hi(self):\n-        pass\n+        return 'hi'"),
            )
        );
    }

    #[test]
    fn end_of_file_marker_scopes_the_hunk() {
        // Codex scenario 022.
        let (text, edit) = one_edit("@@\n first\n-second\n+second updated\n*** End of File\n");
        let scope = Scope::default().with_after_previous(true).with_at_end_of_file(true);
        assert_eq!(
            edit,
            replace(
                &["first", "second"],
                &["first", "second updated"],
                &[Some(0), None],
                scope,
                "hunk 1",
                at(&text, "@@\n first\n-second\n+second updated\n*** End of File"),
            )
        );
    }

    #[test]
    fn deletion_only_and_context_only_hunks() {
        // Codex scenario 021.
        let (_, edit) = one_edit("@@\n line1\n-line2\n line3\n");
        assert_eq!(edit.target, Target::Lines(strings(&["line1", "line2", "line3"])));
        assert_eq!(
            edit.action,
            Action::Replace(Replacement::lines(strings(&["line1", "line3"])).with_kept(vec![Some(0), Some(2)]))
        );
        let (_, edit) = one_edit("-only\n");
        assert_eq!(edit.action, Action::Replace(Replacement::lines(vec![]).with_kept(vec![])));
        // Context only: new equals old, every line kept (the engine reports it already applied).
        let (_, edit) = one_edit("@@\n a\n\n b\n");
        assert_eq!(edit.target, Target::Lines(strings(&["a", "", "b"])));
        assert_eq!(
            edit.action,
            Action::Replace(Replacement::lines(strings(&["a", "", "b"])).with_kept(vec![Some(0), Some(1), Some(2)]))
        );
    }

    #[test]
    fn pure_addition_without_anchor_appends() {
        // Codex scenario 016.
        let (text, edit) = one_edit("@@\n+added line 1\n+added line 2\n");
        assert_eq!(
            edit,
            Edit::new(Target::EndOfFile, Action::InsertAfter { lines: strings(&["added line 1", "added line 2"]) })
                .with_scope(after_previous())
                .with_policy(first())
                .with_label("hunk 1")
                .with_span(at(&text, "@@\n+added line 1\n+added line 2"))
        );
    }

    #[test]
    fn pure_addition_after_context_header_lands_after_it() {
        let (text, edit) = one_edit("@@ fn main() {\n+    init();\n");
        assert_eq!(
            edit,
            Edit::new(Target::Lines(vec![]), Action::InsertAfter { lines: strings(&["    init();"]) })
                .with_scope(
                    Scope::default()
                        .with_anchor(Anchor::new(vec!["fn main() {".into()], false))
                        .with_after_previous(true)
                )
                .with_policy(first())
                .with_label("hunk 1")
                .with_span(at(&text, "@@ fn main() {\n+    init();"))
        );
    }

    #[test]
    fn pure_addition_with_line_hint_goes_before_that_line() {
        let (text, edit) = one_edit("@@ :3\n+inserted\n");
        assert_eq!(
            edit,
            Edit::new(Target::Lines(vec![]), Action::InsertBefore { lines: strings(&["inserted"]) })
                .with_scope(Scope::default().with_line_hint(3))
                .with_policy(first())
                .with_label("hunk 1")
                .with_span(at(&text, "@@ :3\n+inserted"))
        );
        // A unified header's empty old side: `-5,0` inserts after line 5.
        let (_, edit) = one_edit("@@ -5,0 +6,1 @@\n+inserted\n");
        assert_eq!((edit.target, edit.scope.line_hint), (Target::Lines(vec![]), Some(6)));
    }

    #[test]
    fn pure_addition_at_end_of_file_appends() {
        let (_, edit) = one_edit("@@ :3\n+tail\n*** End of File\n");
        assert_eq!(edit.target, Target::EndOfFile);
        assert_eq!(edit.action, Action::InsertAfter { lines: strings(&["tail"]) });
        assert_eq!(edit.scope, Scope::default().with_line_hint(3).with_at_end_of_file(true));
    }

    /// The patch texts of Codex's `apply_patch` end-to-end scenarios
    /// (codex-rs/apply-patch/tests/fixtures/scenarios, Apache-2.0, copyright `OpenAI`).
    const CODEX_SCENARIOS: &[(&str, &str)] = &[
        ("001_add_file", "*** Begin Patch\n*** Add File: bar.md\n+This is a new file\n*** End Patch\n"),
        (
            "002_multiple_operations",
            "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch\n",
        ),
        (
            "003_multiple_chunks",
            "*** Begin Patch\n*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch\n",
        ),
        (
            "004_move_to_new_directory",
            "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n*** End Patch\n",
        ),
        ("005_rejects_empty_patch", "*** Begin Patch\n*** End Patch\n"),
        (
            "006_rejects_missing_context",
            "*** Begin Patch\n*** Update File: modify.txt\n@@\n-missing\n+changed\n*** End Patch\n",
        ),
        ("007_rejects_missing_file_delete", "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch\n"),
        ("008_rejects_empty_update_hunk", "*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n"),
        (
            "009_requires_existing_file_for_update",
            "*** Begin Patch\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n",
        ),
        (
            "010_move_overwrites_existing_destination",
            "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n*** End Patch\n",
        ),
        (
            "011_add_overwrites_existing_file",
            "*** Begin Patch\n*** Add File: duplicate.txt\n+new content\n*** End Patch\n",
        ),
        ("012_delete_directory_fails", "*** Begin Patch\n*** Delete File: dir\n*** End Patch\n"),
        ("013_rejects_invalid_hunk_header", "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n"),
        (
            "014_update_file_appends_trailing_newline",
            "*** Begin Patch\n*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line\n+second line\n*** End Patch\n",
        ),
        (
            "015_failure_after_partial_success_leaves_changes",
            "*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n",
        ),
        (
            "016_pure_addition_update_chunk",
            "*** Begin Patch\n*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n*** End Patch\n",
        ),
        (
            "017_whitespace_padded_hunk_header",
            "*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n",
        ),
        (
            "018_whitespace_padded_patch_markers",
            " *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n",
        ),
        (
            "019_unicode_simple",
            "*** Begin Patch\n*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch\n",
        ),
        ("020_delete_file_success", "*** Begin Patch\n*** Delete File: obsolete.txt\n*** End Patch\n"),
        (
            "020_whitespace_padded_patch_marker_lines",
            "*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n",
        ),
        (
            "021_update_file_deletion_only",
            "*** Begin Patch\n*** Update File: lines.txt\n@@\n line1\n-line2\n line3\n*** End Patch\n",
        ),
        (
            "022_update_file_end_of_file_marker",
            "*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n",
        ),
        (
            "023_preserves_crlf_line_endings",
            "*** Begin Patch\n*** Update File: lines.txt\n@@\n-one\n+ONE\n two\n+between\n three\n*** End Patch\n",
        ),
        (
            "024_preserves_mixed_line_endings",
            "*** Begin Patch\n*** Update File: lines.txt\n@@\n one\n two\n-three\n+THREE\n four\n*** End Patch\n",
        ),
    ];

    #[test]
    fn codex_scenarios_parse_or_fail_with_the_right_kind() {
        assert_eq!(CODEX_SCENARIOS.len(), 25);
        for (name, text) in CODEX_SCENARIOS {
            let expected = match &name[..3] {
                "005" => Some(EMPTY_PATCH),
                "008" => Some(EMPTY_UPDATE),
                "013" => Some(INVALID_HEADER),
                _ => None,
            };
            match (parse(text), expected) {
                (Ok(patch), None) => assert!(!lower(&patch).files.is_empty(), "{name}"),
                (Err(err), Some(kind)) => assert_eq!(err.kind, kind, "{name}"),
                (result, _) => panic!("{name}: {result:?}"),
            }
        }
    }

    fn scenario(name: &str) -> &'static str {
        CODEX_SCENARIOS.iter().find(|(n, _)| *n == name).expect("a scenario").1
    }

    /// `(path, operation, hunk count)` of every file in a scenario's plan.
    fn shape(name: &str) -> Vec<(String, &'static str, usize)> {
        plan(scenario(name))
            .files
            .into_iter()
            .map(|f| match f.op {
                FileOp::Create { .. } => (f.path, "create", 0),
                FileOp::Delete { .. } => (f.path, "delete", 0),
                FileOp::Modify(m) => (f.path, "modify", m.edits.len()),
                _ => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn codex_scenario_shapes() {
        let s = |p: &str, op, n| (p.to_owned(), op, n);
        assert_eq!(
            shape("002_multiple_operations"),
            [s("nested/new.txt", "create", 0), s("delete.txt", "delete", 0), s("modify.txt", "modify", 1)]
        );
        assert_eq!(shape("003_multiple_chunks"), [s("multi.txt", "modify", 2)]);
        assert_eq!(
            shape("015_failure_after_partial_success_leaves_changes"),
            [s("created.txt", "create", 0), s("missing.txt", "modify", 1)]
        );
        assert_eq!(shape("017_whitespace_padded_hunk_header"), [s("foo.txt", "modify", 1)]);
        assert_eq!(shape("018_whitespace_padded_patch_markers"), [s("file.txt", "modify", 1)]);
        assert_eq!(shape("020_whitespace_padded_patch_marker_lines"), [s("file.txt", "modify", 1)]);
    }

    #[test]
    fn codex_scenario_023_hunk() {
        let text = scenario("023_preserves_crlf_line_endings");
        let plan = plan(text);
        assert_eq!(
            edits(&plan),
            [replace(
                &["one", "two", "three"],
                &["ONE", "two", "between", "three"],
                &[None, Some(1), None, Some(2)],
                after_previous(),
                "hunk 1",
                at(text, "@@\n-one\n+ONE\n two\n+between\n three"),
            )]
        );
    }
}
