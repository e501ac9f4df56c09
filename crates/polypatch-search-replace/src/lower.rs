//! Lower the blocks into an [`EditPlan`].

use std::collections::HashMap;

use polypatch_core::{
    Action, Edit, EditPlan, FileEdit, FileOp, IfMissing, LineText, Modify, Occurrence, PatchError, Policy, Replacement,
    Span, Target, Tier, TierSet,
};

use crate::error::{APPEND_NOT_LAST, DIALECT, EMPTY_BLOCK, MISSING_PATH, UNPAIRED_ELISION, error};
use crate::syntax::{Block, Patch};

/// Lowers a parsed patch into an [`EditPlan`]; `file` is the path of blocks that name
/// none ([`ParseOptions::file`](polypatch_core::ParseOptions::file)).
///
/// - Every block is an [`Edit`] labelled `block N` (N counts every block of the patch)
///   whose target is the SEARCH lines, to be found at one place of the file: at any tier
///   but `prefix` (the lines it keeps may match loosely; the lines it removes or changes
///   only up to whitespace, indentation and look-alike characters: the engine's trust
///   rule), the REPLACE lines written there, indented after the file. A SEARCH found at
///   several places is refused unless `:start_line:` names one of them (nearest wins).
/// - The blocks of one file are the edits of one [`FileOp::Modify`], applied in order,
///   each on the result of the ones before; the files apply all or nothing.
/// - An empty SEARCH (or only blank lines) appends the REPLACE lines at the end of the
///   file, and creates the file when it is missing and this is its first block
///   ([`IfMissing::Create`]); a re-run finds them there and changes nothing. It must be
///   its file's last block in the patch ([`APPEND_NOT_LAST`]): a later block that edited
///   the appended lines (or appended more) would leave a re-run unable to tell them from
///   the file's own, and it would append them again.
/// - `...` lines (an ellipsis alone, not Python's `...` statement) at the same places in
///   SEARCH and REPLACE split the block into pieces, each an edit of its own (`block N,
///   piece K`) whose SEARCH must be unique; `...` lines in only one section, or a piece
///   with lines to write but nothing to find, are refused ([`UNPAIRED_ELISION`]).
pub fn lower(patch: &Patch<'_>, file: Option<&str>) -> Result<EditPlan, PatchError> {
    // Each file's path, edits and the span from its first block to its last.
    let mut files: Vec<(&str, Modify, Span)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    // Each file's block with an empty SEARCH, once one is seen.
    let mut appended: HashMap<&str, usize> = HashMap::new();
    for (i, block) in patch.blocks.iter().enumerate() {
        let number = i + 1;
        let Some(path) = block.path.or(file) else {
            return Err(error(
                MISSING_PATH,
                "the block names no file: write the file's path alone on the line before `<<<<<<< SEARCH` (or before \
                 the fence around the block), or name the file when applying (`--file PATH`)",
                Some(block.head),
            ));
        };
        let for_path = format!("block {number} (`{path}`)");
        let blank = |lines: &[&str]| lines.iter().all(|l| l.trim().is_empty());
        let appends = blank(&block.search);
        if appends && block.replace.is_empty() {
            return Err(error(
                EMPTY_BLOCK,
                format!("{for_path} has nothing to find and nothing to write: drop it, or write the lines it changes"),
                Some(block.head),
            ));
        }
        if let Some(&earlier) = appended.get(path) {
            return Err(error(
                APPEND_NOT_LAST,
                format!(
                    "{for_path} follows block {earlier}, whose empty SEARCH creates the file or appends to it: run \
                     again, the appended lines could not be told from the file's own and would be added twice; write \
                     a new file whole in one block, and put a block that appends after the file's other blocks"
                ),
                Some(block.head),
            ));
        }
        if appends {
            appended.insert(path, number);
        }
        let edits = if appends {
            let lines = LineText::copy_all(block.replace.iter().copied());
            vec![
                Edit::new(Target::EndOfFile, Action::InsertAfter { lines })
                    .with_label(format!("block {number}"))
                    .with_span(block.span),
            ]
        } else {
            pieces(block, number, &for_path)?
        };
        if let Some(&at) = index.get(path) {
            let (_, modify, span) = &mut files[at];
            modify.edits.extend(edits);
            span.end = span.end.max(block.span.end);
        } else {
            let mut modify = Modify::new(edits);
            if appends {
                modify.if_missing = IfMissing::Create;
            }
            index.insert(path, files.len());
            files.push((path, modify, block.span));
        }
    }
    let files = files
        .into_iter()
        .map(|(path, modify, span)| FileEdit::new(path.to_owned(), FileOp::Modify(modify)).with_span(span))
        .collect();
    Ok(EditPlan::new(DIALECT, files))
}

/// How every located edit of this dialect is matched.
fn policy() -> Policy {
    // `Prefix` is for one-line anchors; a SEARCH is located whole.
    Policy::default().with_tiers(TierSet::ALL.without(Tier::Prefix)).with_occurrence(Occurrence::Unique)
}

/// Whether line `j` of a section is Aider's `...` (an ellipsis alone that stands for
/// lines, not Python's `...` statement).
fn is_dots(lines: &[&str], j: usize) -> bool {
    lines[j].trim() == "..." && polypatch_core::elision::is_elision_at(lines, j)
}

/// The edits of a block with lines to find: one, or one per piece between `...` lines.
fn pieces(block: &Block<'_>, number: usize, for_path: &str) -> Result<Vec<Edit>, PatchError> {
    let cut = |lines: &[&str]| -> Vec<usize> { (0..lines.len()).filter(|&j| is_dots(lines, j)).collect() };
    let (search_dots, replace_dots) = (cut(&block.search), cut(&block.replace));
    let edit = |search: &[&str], replace: &[&str]| {
        let mut both = LineText::copy_all(search.iter().chain(replace).copied());
        let old: Vec<LineText> = both.drain(..search.len()).collect();
        Edit::new(Target::Lines(old), Action::Replace(Replacement::lines(both))).with_policy(policy())
    };
    if search_dots.is_empty() && replace_dots.is_empty() {
        let mut one = edit(&block.search, &block.replace).with_label(format!("block {number}")).with_span(block.span);
        if let Some(line) = block.start_line {
            one = one.with_line_hint(line);
        }
        return Ok(vec![one]);
    }
    if search_dots.len() != replace_dots.len() {
        return Err(error(
            UNPAIRED_ELISION,
            format!(
                "{for_path} has {} `...` line(s) in SEARCH and {} in REPLACE: `...` stands for unchanged lines only \
                 where both sections have it at the same places; write the lines out in full",
                search_dots.len(),
                replace_dots.len()
            ),
            Some(block.head),
        ));
    }
    let split = |lines: &[&str], dots: &[usize]| -> Vec<(usize, usize)> {
        let mut out = Vec::with_capacity(dots.len() + 1);
        let mut from = 0;
        for &d in dots {
            out.push((from, d));
            from = d + 1;
        }
        out.push((from, lines.len()));
        out
    };
    let (s_pieces, r_pieces) = (split(&block.search, &search_dots), split(&block.replace, &replace_dots));
    let mut edits = Vec::new();
    for (k, (&(s0, s1), &(r0, r1))) in s_pieces.iter().zip(&r_pieces).enumerate() {
        let (search, replace) = (&block.search[s0..s1], &block.replace[r0..r1]);
        if search.iter().all(|l| l.trim().is_empty()) {
            if replace.iter().all(|l| l.trim().is_empty()) {
                continue;
            }
            return Err(error(
                UNPAIRED_ELISION,
                format!(
                    "piece {} of {for_path} (between its `...` lines) has lines to write but nothing to find: put the \
                     lines that stand there in SEARCH too",
                    k + 1
                ),
                Some(Span::new(block.head.start, block.span.end)),
            ));
        }
        let mut piece =
            edit(search, replace).with_label(format!("block {number}, piece {}", k + 1)).with_span(block.span);
        if k == 0
            && let Some(line) = block.start_line
        {
            piece = piece.with_line_hint(line);
        }
        edits.push(piece);
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use polypatch_core::{ApplyError, ApplyOptions, ApplyReport, FailureKind, MemoryFileSet, Status, apply};

    use super::*;
    use crate::syntax::parse;

    fn plan_for(text: &str, file: Option<&str>) -> EditPlan {
        lower(&parse(text).unwrap_or_else(|e| panic!("{}", e.render(text))), file)
            .unwrap_or_else(|e| panic!("{}", e.render(text)))
    }

    fn run(files: &mut MemoryFileSet, text: &str) -> Result<ApplyReport, ApplyError> {
        apply(&plan_for(text, None), files, &ApplyOptions::default())
    }

    fn sr(path: &str, search: &str, replace: &str) -> String {
        format!("{path}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n")
    }

    fn failure(err: &ApplyError) -> polypatch_core::Failure {
        err.report
            .files
            .iter()
            .flat_map(|f| f.edits.iter().filter_map(|e| e.failure.clone()).chain(f.failure.clone()))
            .next()
            .unwrap()
    }

    #[test]
    fn a_block_keeps_the_file_s_line_ends_bom_and_missing_final_newline() {
        let mut files = MemoryFileSet::new().with("a.py", "\u{feff}def f():\r\n    return 1\r\n\r\nx = 1");
        let text = sr("a.py", "def f():\n    return 1\n", "def f():\n    return 2\n");
        let report = run(&mut files, &text).unwrap();
        assert_eq!(files.get_str("a.py"), Some("\u{feff}def f():\r\n    return 2\r\n\r\nx = 1"));
        assert_eq!(
            (report.files[0].edits[0].label.as_str(), report.files[0].edits[0].tier),
            ("block 1", Some(Tier::Exact))
        );
        // Again: already there, nothing changes.
        let report = run(&mut files, &text).unwrap();
        assert_eq!(report.files[0].status, Status::AlreadyApplied);
        assert_eq!(files.get_str("a.py"), Some("\u{feff}def f():\r\n    return 2\r\n\r\nx = 1"));
    }

    #[test]
    fn blocks_apply_in_order_and_files_all_or_nothing() {
        let text = format!(
            "{}{}{}",
            sr("a.txt", "one\n", "1\n"),
            sr("b.txt", "two\n", "2\n"),
            sr("a.txt", "1\nthree\n", "1\n3\n")
        );
        let p = plan_for(&text, None);
        let labels: Vec<(&str, Vec<&str>)> = p
            .files
            .iter()
            .map(|f| match &f.op {
                FileOp::Modify(m) => (f.path.as_str(), m.edits.iter().map(|e| e.label.as_str()).collect()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(labels, [("a.txt", vec!["block 1", "block 3"]), ("b.txt", vec!["block 2"])]);
        let mut files = MemoryFileSet::new().with("a.txt", "one\nthree\n").with("b.txt", "two\n");
        run(&mut files, &text).unwrap();
        assert_eq!((files.get_str("a.txt"), files.get_str("b.txt")), (Some("1\n3\n"), Some("2\n")));
        // b.txt does not hold its SEARCH: a.txt is not written either.
        let mut files = MemoryFileSet::new().with("a.txt", "one\nthree\n").with("b.txt", "deux\n");
        let err = run(&mut files, &text).unwrap_err();
        assert_eq!(failure(&err).kind, FailureKind::NotFound);
        assert_eq!((files.get_str("a.txt"), files.get_str("b.txt")), (Some("one\nthree\n"), Some("deux\n")));
    }

    #[test]
    fn a_search_found_twice_is_refused_unless_start_line_names_one() {
        let file = "def a():\n    return 0\n\ndef b():\n    return 0\n";
        let text = sr("m.py", "    return 0\n", "    return 1\n");
        let mut files = MemoryFileSet::new().with("m.py", file);
        let err = run(&mut files, &text).unwrap_err();
        let failure = failure(&err);
        assert_eq!(failure.kind, FailureKind::Ambiguous);
        assert_eq!(failure.candidates.iter().map(|r| (r.start, r.end)).collect::<Vec<_>>(), [(2, 2), (5, 5)]);
        assert_eq!(files.get_str("m.py"), Some(file));
        // Roo's hint, off by two: the nearest place.
        let text =
            "m.py\n<<<<<<< SEARCH\n:start_line:7\n-------\n    return 0\n=======\n    return 1\n>>>>>>> REPLACE\n";
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("m.py"), Some("def a():\n    return 0\n\ndef b():\n    return 1\n"));
    }

    #[test]
    fn a_hint_never_overrides_content() {
        let mut files = MemoryFileSet::new().with("m.py", "a\nb\nc\n");
        let text = "m.py\n<<<<<<< SEARCH\n:start_line:3\n-------\na\n=======\nA\n>>>>>>> REPLACE\n";
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("m.py"), Some("A\nb\nc\n"));
    }

    #[test]
    fn an_empty_search_creates_a_missing_file_and_appends_to_an_existing_one() {
        let text = "new/n.txt\n```\n<<<<<<< SEARCH\n=======\nhello\nworld\n>>>>>>> REPLACE\n```\n";
        let mut files = MemoryFileSet::new();
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("new/n.txt"), Some("hello\nworld\n"));
        let report = run(&mut files, text).unwrap();
        assert_eq!(report.files[0].status, Status::AlreadyApplied);
        assert_eq!(files.get_str("new/n.txt"), Some("hello\nworld\n"));
        let mut files = MemoryFileSet::new().with("new/n.txt", "first\r\nlast");
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("new/n.txt"), Some("first\r\nlast\r\nhello\r\nworld"));
        run(&mut files, text).unwrap();
        assert_eq!(files.get_str("new/n.txt"), Some("first\r\nlast\r\nhello\r\nworld"));
    }

    /// A file created (or appended to), then edited by a later block of the same patch:
    /// run again, the append would not find its lines (the later block changed them) and
    /// would add them a second time, and the later block would edit that copy. Refused.
    #[test]
    fn an_empty_search_must_be_its_file_s_last_block() {
        for second in [sr("n.txt", "b\n", "c\n"), sr("n.txt", "", "more\n")] {
            let text = format!("{}{second}", sr("n.txt", "", "a\nb\n"));
            let err = lower(&parse(&text).unwrap(), None).unwrap_err();
            assert_eq!(err.kind, APPEND_NOT_LAST);
            assert_eq!(
                err.message,
                "block 2 (`n.txt`) follows block 1, whose empty SEARCH creates the file or appends to it: run again, \
                 the appended lines could not be told from the file's own and would be added twice; write a new file \
                 whole in one block, and put a block that appends after the file's other blocks"
            );
        }
        // Last of its file, after an edit of the same file and before another file's block: fine,
        // and a re-run changes nothing.
        let text = format!("{}{}{}", sr("a.txt", "x\n", "y\n"), sr("a.txt", "", "tail\n"), sr("b.txt", "", "new\n"));
        let mut files = MemoryFileSet::new().with("a.txt", "x\n");
        run(&mut files, &text).unwrap();
        run(&mut files, &text).unwrap();
        assert_eq!((files.get_str("a.txt"), files.get_str("b.txt")), (Some("y\ntail\n"), Some("new\n")));
    }

    #[test]
    fn an_empty_replace_deletes_the_lines() {
        let mut files = MemoryFileSet::new().with("d.txt", "keep\ndrop\nme\nkeep too\n");
        run(&mut files, &sr("d.txt", "drop\nme\n", "")).unwrap();
        assert_eq!(files.get_str("d.txt"), Some("keep\nkeep too\n"));
    }

    #[test]
    fn dots_in_both_sections_split_the_block_into_unique_pieces() {
        let file = "def a():\n    x = 1\n    y = 2\n    z = 3\n    return x\n";
        let text =
            sr("p.py", "def a():\n    x = 1\n...\n    return x\n", "def a():\n    x = 10\n...\n    return x + 1\n");
        let p = plan_for(&text, None);
        let FileOp::Modify(m) = &p.files[0].op else { panic!() };
        assert_eq!(
            m.edits.iter().map(|e| e.label.as_str()).collect::<Vec<_>>(),
            ["block 1, piece 1", "block 1, piece 2"]
        );
        let mut files = MemoryFileSet::new().with("p.py", file);
        run(&mut files, &text).unwrap();
        assert_eq!(files.get_str("p.py"), Some("def a():\n    x = 10\n    y = 2\n    z = 3\n    return x + 1\n"));
        // A piece found twice: refused, nothing written.
        let file = "x\ny\nx\n";
        let mut files = MemoryFileSet::new().with("q.txt", file);
        let err = run(&mut files, &sr("q.txt", "y\n...\nx\n", "Y\n...\nX\n")).unwrap_err();
        assert_eq!(failure(&err).kind, FailureKind::Ambiguous);
        assert_eq!(files.get_str("q.txt"), Some(file));
    }

    #[test]
    fn python_s_ellipsis_statement_is_code() {
        let mut files = MemoryFileSet::new().with("s.py", "class P:\n    def f(self):\n        ...\n");
        run(&mut files, &sr("s.py", "    def f(self):\n        ...\n", "    def f(self):\n        return 1\n"))
            .unwrap();
        assert_eq!(files.get_str("s.py"), Some("class P:\n    def f(self):\n        return 1\n"));
    }

    #[test]
    fn an_elision_comment_that_would_delete_code_is_refused() {
        let file = "fn main() {\n    a();\n    b();\n}\n";
        let mut files = MemoryFileSet::new().with("m.rs", file);
        let text = sr(
            "m.rs",
            "fn main() {\n    a();\n    b();\n}\n",
            "fn main() {\n    // ... existing code ...\n    c();\n}\n",
        );
        let err = run(&mut files, &text).unwrap_err();
        assert_eq!(failure(&err).kind, FailureKind::Elision);
        assert_eq!(files.get_str("m.rs"), Some(file));
    }

    #[test]
    fn kept_lines_match_loosely_removed_lines_do_not() {
        // Re-indented with tabs in the file: found at the indentation tier, written in tabs.
        let mut files = MemoryFileSet::new().with("t.py", "def f():\n\tif x:\n\t\treturn 1\n");
        let report =
            run(&mut files, &sr("t.py", "    if x:\n        return 1\n", "    if x:\n        return 2\n")).unwrap();
        assert_eq!(files.get_str("t.py"), Some("def f():\n\tif x:\n\t\treturn 2\n"));
        assert_eq!(report.files[0].edits[0].tier, Some(Tier::Indentation));
        // A removed line that only resembles the file's (`<` for `<=`): refused.
        let file =
            "def restock(self, amount):\n    if amount <= 0:\n        raise ValueError('no')\n    self.n += amount\n";
        let mut files = MemoryFileSet::new().with("inv.py", file);
        let text = sr(
            "inv.py",
            "def restock(self, amount):\n    if amount < 0:\n        raise ValueError('no')\n",
            "def restock(self, amount):\n    if amount < 0 or amount > 1000:\n        raise ValueError('no')\n",
        );
        let err = run(&mut files, &text).unwrap_err();
        assert_ne!(failure(&err).kind, FailureKind::Elision);
        assert_eq!(files.get_str("inv.py"), Some(file));
    }

    #[test]
    fn the_caller_names_the_file_of_blocks_without_a_path() {
        let text = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
        let p = plan_for(text, Some("given.txt"));
        assert_eq!(p.files[0].path, "given.txt");
        // A block's own path wins.
        assert_eq!(plan_for(&sr("own.txt", "a\n", "b\n"), Some("given.txt")).files[0].path, "own.txt");
    }
}
