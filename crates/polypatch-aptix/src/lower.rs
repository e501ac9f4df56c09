//! Lower a checked bundle into an [`EditPlan`].

use polypatch_core::{
    Action, Content, Dialect, Edit, EditPlan, FileEdit, FileOp, IfExists, IfMissing, Modify, Occurrence, ParseOptions,
    PatchError, Policy, Replacement, Span, Target, Tier, TierSet,
};

use crate::error::{BINARY_TOO_LARGE, BINARY_TOTAL_TOO_LARGE, DIALECT, GIT_PATCH, UNSUPPORTED_BINARY, error};
use crate::syntax::{Body, Bundle, FileEntry, Find, Limit, Operation};

/// Lowers a checked bundle. Fails only for a `gitPatch` whose diff is malformed or names
/// another file than its entry.
///
/// - `files[]`: no operation is a create-or-replace ([`FileOp::Create`] that overwrites);
///   `create` refuses an existing file with other content (the same content is already
///   applied); `replace` needs an existing file; `delete` a file that exists; `patch` is a
///   [`FileOp::Modify`] of substring edits; `gitPatch` is the unified dialect's plan for
///   the diff, its paths put under `root`.
/// - `patches[]`: each entry (nested or flat) is a modify of substring edits; consecutive
///   entries for one file share it, applied in order.
/// - Every `{find, replace, limit}` is an [`Edit`] with a [`Target::Text`] target, labelled
///   by its place in the JSON (`patches[0].replacements[1]`): `limit: once` takes the
///   first occurrence, `all` every one.
///
/// Content is written as the bundle gives it (a JSON string says its line ends and final
/// newline exactly); `find` and `replace` written with `\n` match and write a CRLF file in
/// its own line ends.
pub fn lower(bundle: &Bundle) -> Result<EditPlan, PatchError> {
    lower_with(bundle, &ParseOptions::default())
}

/// [`lower`], with the binary limits of `options` for the `gitPatch` diffs: their binary
/// data shares one budget ([`ParseOptions::max_total_binary_size`]) across every entry of
/// the bundle.
pub fn lower_with(bundle: &Bundle, options: &ParseOptions) -> Result<EditPlan, PatchError> {
    let root = normal_root(&bundle.root);
    let mut expanded = options.binary_expanded_before;
    let full = |path: &str| if root.is_empty() { path.to_owned() } else { format!("{root}/{path}") };
    let mut files: Vec<FileEdit> = Vec::new();
    match &bundle.body {
        Body::Files(entries) => {
            for entry in entries {
                let span = entry.span.or(Some(bundle.span));
                let path = full(&entry.path);
                let op = match entry.operation {
                    None => FileOp::Create {
                        content: text(entry),
                        newline: None,
                        if_exists: IfExists::Overwrite,
                        mode: None,
                    },
                    Some(Operation::Create) => FileOp::Create {
                        content: text(entry),
                        newline: None,
                        if_exists: IfExists::ErrorUnlessIdentical,
                        mode: None,
                    },
                    Some(Operation::Replace) => {
                        FileOp::Replace { content: text(entry), create_if_missing: false, follow_file: false }
                    }
                    Some(Operation::Delete) => FileOp::Delete { if_missing: IfMissing::Error, expect: None },
                    Some(Operation::Patch) => FileOp::Modify(Modify::new(entry.patches.iter().map(edit).collect())),
                    Some(Operation::GitPatch) => {
                        files.extend(git_patch(entry, &root, span, options, &mut expanded)?);
                        continue;
                    }
                };
                let mut file = FileEdit::new(path, op);
                file.span = span;
                files.push(file);
            }
        }
        Body::Patches(entries) => {
            for entry in entries {
                let path = full(&entry.path);
                let edits = entry.replacements.iter().map(edit);
                match files.last_mut() {
                    Some(FileEdit { path: last, op: FileOp::Modify(modify), .. }) if *last == path => {
                        modify.edits.extend(edits);
                    }
                    _ => files.push(
                        FileEdit::new(path, FileOp::Modify(Modify::new(edits.collect())))
                            .with_span(entry.span.unwrap_or(bundle.span)),
                    ),
                }
            }
        }
    }
    Ok(EditPlan::new(DIALECT, files).with_warnings(bundle.warnings.clone()))
}

/// `root` without `./` and trailing slashes; `""` for the workspace itself.
fn normal_root(root: &str) -> String {
    let parts: Vec<&str> = root.split('/').filter(|c| !c.is_empty() && *c != ".").collect();
    parts.join("/")
}

fn text(entry: &FileEntry) -> Content {
    Content::Text(entry.content.clone().unwrap_or_default())
}

fn edit(find: &Find) -> Edit {
    Edit::new(Target::Text(find.find.clone()), Action::Replace(Replacement::text(find.replace.clone())))
        .with_policy(Policy::default().with_tiers(TierSet::ALL.without(Tier::Prefix)).with_occurrence(
            match find.limit {
                Limit::Once => Occurrence::First,
                Limit::All => Occurrence::All,
            },
        ))
        .with_label(find.label.clone())
}

/// The unified dialect's plan for a `gitPatch` entry's diff, every path under `root`.
/// `expanded` counts the binary data of the bundle's diffs so far (see [`lower_with`]).
fn git_patch(
    entry: &FileEntry,
    root: &str,
    span: Option<Span>,
    options: &ParseOptions,
    expanded: &mut u64,
) -> Result<Vec<FileEdit>, PatchError> {
    let name = format!("files[{}] ({})", entry.index, entry.path);
    let diff = entry.content.as_deref().unwrap_or_default();
    // The diff's own paths are checked against the entry's: no strip.
    let limits = ParseOptions::default()
        .max_binary_size(options.max_binary_size)
        .max_total_binary_size(options.max_total_binary_size)
        .binary_expanded_before(*expanded);
    let plan = polypatch_unified::Unified.parse_with(diff, &limits).map_err(|e| {
        let (line, col) = e.line_col(diff).unwrap_or((0, 0));
        // A limit is not a malformed diff: its kind says which limit, and how to raise it.
        // Nor is binary data this build cannot read.
        let kept = [BINARY_TOO_LARGE, BINARY_TOTAL_TOO_LARGE, UNSUPPORTED_BINARY];
        let kind = if kept.contains(&e.kind) { e.kind.clone() } else { GIT_PATCH };
        let what = if kind == GIT_PATCH {
            "is malformed"
        } else if kind == UNSUPPORTED_BINARY {
            "is not supported by this build"
        } else {
            "is over a limit"
        };
        error(
            kind,
            format!("{name}: the diff in \"content\" {what} (its line {line}, column {col}): {}", e.message),
            span,
        )
    })?;
    *expanded = expanded.saturating_add(plan.binary_size());
    let under = |p: &str| if root.is_empty() { p.to_owned() } else { format!("{root}/{p}") };
    let mut out = Vec::new();
    for mut fe in plan.files {
        let other = match &fe.op {
            FileOp::Modify(m) => m.move_to.as_ref().or(m.copy_from.as_ref()),
            _ => None,
        };
        if fe.path != entry.path || other.is_some() {
            let named = other.map_or(fe.path.as_str(), String::as_str);
            return Err(error(
                GIT_PATCH,
                format!(
                    "{name}: the diff changes `{named}`, not the entry's path `{}`: a gitPatch entry's diff changes \
                     its own file only (give each file its own entry)",
                    entry.path
                ),
                span,
            ));
        }
        fe.path = under(&fe.path);
        fe.span = span;
        // The unified dialect's spans point into the diff (the decoded `content` string),
        // not into the bundle's text: each hunk is reported at its entry instead.
        if let FileOp::Modify(m) = &mut fe.op {
            for edit in &mut m.edits {
                edit.span = span;
            }
        }
        out.push(fe);
    }
    if out.is_empty() {
        return Err(error(GIT_PATCH, format!("{name}: the diff in \"content\" changes no file"), span));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use polypatch_core::{ApplyOptions, FailureKind, MemoryFileSet, Status, apply};

    use super::*;
    use crate::error::GIT_PATCH;
    use crate::syntax::parse;

    fn plan(text: &str) -> Result<EditPlan, PatchError> {
        lower(&parse(text)?)
    }

    fn run(files: &mut MemoryFileSet, text: &str) -> Result<polypatch_core::ApplyReport, polypatch_core::ApplyError> {
        apply(&plan(text).unwrap(), files, &ApplyOptions::default())
    }

    #[test]
    fn a_file_bundle_lowers_each_operation_under_the_root() {
        let text = r#"{"root": "./src", "files": [
            {"path": "a.txt", "content": "A\n"},
            {"path": "b.txt", "operation": "create", "content": "B\n"},
            {"path": "c.txt", "operation": "replace", "content": "C\n"},
            {"path": "d.txt", "operation": "delete"},
            {"path": "e.txt", "operation": "patch", "patches": [{"find": "old", "replace": "new"}]},
            {"path": "f.txt", "operation": "gitPatch", "content": "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-f\n+F\n"}
        ]}"#;
        let mut files = MemoryFileSet::new()
            .with("src/a.txt", "a\n")
            .with("src/c.txt", "c\n")
            .with("src/d.txt", "d\n")
            .with("src/e.txt", "the old way\n")
            .with("src/f.txt", "f\n")
            .with("keep.txt", "k\n");
        run(&mut files, text).unwrap();
        let got: Vec<(&str, &str)> = files.paths().map(|p| (p, files.get_str(p).unwrap())).collect();
        assert_eq!(
            got,
            [
                ("keep.txt", "k\n"),
                ("src/a.txt", "A\n"),
                ("src/b.txt", "B\n"),
                ("src/c.txt", "C\n"),
                ("src/e.txt", "the new way\n"),
                ("src/f.txt", "F\n")
            ]
        );
        // Again: the creates and replaces are already applied; the delete finds no file.
        let err = run(&mut files, text).unwrap_err();
        assert_eq!(err.report.files[3].failure.as_ref().unwrap().kind, FailureKind::FileMissing);
    }

    #[test]
    fn create_refuses_other_content_and_replace_needs_a_file() {
        let create = r#"{"root": ".", "files": [{"path": "a", "operation": "create", "content": "new\n"}]}"#;
        let mut files = MemoryFileSet::new().with("a", "old\n");
        let err = run(&mut files, create).unwrap_err();
        assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::FileExists);
        let mut files = MemoryFileSet::new().with("a", "new\n");
        assert_eq!(run(&mut files, create).unwrap().files[0].status, Status::AlreadyApplied);
        let replace = r#"{"root": ".", "files": [{"path": "a", "operation": "replace", "content": "x"}]}"#;
        let err = run(&mut MemoryFileSet::new(), replace).unwrap_err();
        assert_eq!(err.report.files[0].failure.as_ref().unwrap().kind, FailureKind::FileMissing);
    }

    #[test]
    fn patch_entries_of_one_file_apply_in_order_and_limit_all_replaces_every_one() {
        let text = r#"{"root": ".", "patches": [
            {"path": "a.cs", "replacements": [{"find": "Old", "replace": "Mid", "limit": "all"}]},
            {"path": "a.cs", "find": "Mid()", "replace": "New()"}
        ]}"#;
        let p = plan(text).unwrap();
        assert_eq!(p.files.len(), 1);
        let FileOp::Modify(m) = &p.files[0].op else { panic!() };
        let labels: Vec<&str> = m.edits.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["patches[0].replacements[0]", "patches[1]"]);
        let mut files = MemoryFileSet::new().with("a.cs", "void Old() {}\n// Old\n");
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("a.cs"), Some("void New() {}\n// Mid\n"));
    }

    #[test]
    fn a_git_patch_must_change_its_own_file() {
        let text = r#"{"root": ".", "files": [{"path": "a.txt", "operation": "gitPatch",
            "content": "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n"}]}"#;
        let e = plan(text).unwrap_err();
        assert_eq!(e.kind, GIT_PATCH);
        assert!(
            e.message.starts_with("files[0] (a.txt): the diff changes `b.txt`, not the entry's path `a.txt`"),
            "{}",
            e.message
        );
        let bad = r#"{"root": ".", "files": [{"path": "a.txt", "operation": "gitPatch", "content": "not a diff"}]}"#;
        assert_eq!(plan(bad).unwrap_err().kind, GIT_PATCH);
    }

    /// Found by the fuzzer (fuzz/regressions/aptix/git-patch-hunk-span): a hunk kept the
    /// unified dialect's span, an offset into the decoded diff, so it pointed elsewhere in
    /// the bundle, past its end or inside a character.
    #[test]
    fn a_git_patch_hunk_is_placed_at_its_entry() {
        let text = "{\"root\": \".\", \"files\": [{\"path\": \"a.txt\", \"operation\": \"gitPatch\", \"content\": \
                    \"--- a/a.txt\\n+++ b/a.txt\\n@@ -1 +1 @@\\n-\u{e9}\u{e9}\\n+b\\n\"}]}";
        let p = plan(text).unwrap();
        let FileOp::Modify(m) = &p.files[0].op else { panic!() };
        let span = m.edits[0].span.unwrap();
        assert_eq!(Some(span), p.files[0].span);
        assert_eq!(&text[span.start..span.end], "\"a.txt\"");
    }
}
