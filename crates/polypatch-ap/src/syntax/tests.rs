use crate::error::{
    EMPTY_MODIFICATIONS, EMPTY_SNIPPET, INCOMPLETE_RANGE, INVALID_BLANK_LINES, INVALID_CREATE_FILE, INVALID_NEWLINE,
    INVALID_PATH, INVALID_ROOT, INVALID_TYPE, INVALID_YAML, MISSING_ACTION, MISSING_CHANGES, MISSING_CONTENT,
    MISSING_FILE_PATH, MISSING_MODIFICATIONS, MISSING_SNIPPET, MISSING_VERSION, RANGE_WITH_INSERT, SNIPPET_AND_RANGE,
    UNEXPECTED_CONTENT, UNKNOWN_ACTION, UNKNOWN_KEY, UNSUPPORTED_VERSION,
};
use proptest::prelude::*;

use super::*;

fn parsed(text: &str) -> Patch {
    parse(text).unwrap_or_else(|e| panic!("{}", e.render(text)))
}

fn failed(text: &str) -> PatchError {
    match parse(text) {
        Ok(patch) => panic!("expected an error, parsed {patch:#?}"),
        Err(e) => e,
    }
}

/// A patch with one change on `a.py` whose single modification is `body` (indented by
/// the caller at 8 spaces, as under `      - `).
fn one(body: &str) -> String {
    format!("version: \"2.0\"\nchanges:\n  - file_path: a.py\n    modifications:\n      - {}\n", body.trim_start())
}

/// The text an error's span covers.
fn spanned<'t>(text: &'t str, e: &PatchError) -> &'t str {
    let span = e.span.expect("a span");
    &text[span.start..span.end]
}

fn line(text: &str, e: &PatchError) -> usize {
    crate::yaml::line_of(text, e.span.expect("a span").start)
}

const EXAMPLE: &str = r#"# Summary: Refactor the calculator module to enhance the `add` function
# and remove deprecated code.
#
# Plan:
#   1. Import the `List` type for type hinting.
#   2. Update the `add` function to also handle summing a list of numbers.
#   3. Remove the unused `get_pi` function.
#
version: "2.0"
changes:
  - file_path: "src/calculator.py"
    modifications:
      - action: INSERT_AFTER
        snippet: |
          import math
        content: |
          from typing import List

      - action: REPLACE
        anchor: |
          def add(a, b):
        snippet: |
          return a + b
        content: |
          # New implementation supports summing a list
          if isinstance(a, List):
              return sum(a)
          return a + b

      - action: DELETE
        snippet: |
          def get_pi():
              return 3.14
        include_leading_blank_lines: 1
"#;

#[test]
fn the_specs_example_parses() {
    let patch = parsed(EXAMPLE);
    assert!(patch.warnings.is_empty());
    let [change] = patch.changes.as_slice() else { panic!("one change") };
    assert_eq!(change.index, 1);
    assert_eq!(change.file_path, "src/calculator.py");
    assert_eq!(change.newline, None);
    assert!(EXAMPLE[change.span.start..change.span.end].starts_with("- file_path: \"src/calculator.py\""));
    assert!(EXAMPLE[change.span.start..change.span.end].ends_with("include_leading_blank_lines: 1"));
    let m = &change.modifications;
    assert_eq!(m.len(), 3);
    assert_eq!(
        m.iter().map(|m| m.action).collect::<Vec<_>>(),
        [ActionKind::InsertAfter, ActionKind::Replace, ActionKind::Delete]
    );
    assert_eq!(m[0].locator, Some(Locator::Snippet(Text { value: "import math\n".into(), span: m0_snippet() })));
    assert_eq!(m[0].content.as_ref().unwrap().value, "from typing import List\n");
    assert!(EXAMPLE[m[0].span.start..m[0].span.end].starts_with("- action: INSERT_AFTER"));
    assert!(EXAMPLE[m[0].span.start..m[0].span.end].ends_with("from typing import List"));
    assert_eq!(m[1].anchor.as_ref().unwrap().value, "def add(a, b):\n");
    assert_eq!(
        m[1].content.as_ref().unwrap().lines(),
        [
            "# New implementation supports summing a list",
            "if isinstance(a, List):",
            "    return sum(a)",
            "return a + b"
        ]
    );
    assert_eq!(m[2].content, None);
    assert_eq!((m[2].leading_blank_lines, m[2].trailing_blank_lines), (1, 0));
    assert_eq!(m.iter().map(|m| m.index).collect::<Vec<_>>(), [1, 2, 3]);
}

fn m0_snippet() -> Span {
    let start = EXAMPLE.find("import math\n        content").unwrap();
    // A block scalar's span runs from its first line's text to the end of its last line.
    Span::new(start, start + "import math".len())
}

#[test]
fn lines_drop_the_final_newline_and_carriage_returns() {
    assert_eq!(split_lines("a\nb\n"), ["a", "b"]);
    assert_eq!(split_lines("a\r\nb"), ["a", "b"]);
    assert_eq!(split_lines("a\n\n"), ["a", ""]);
    assert_eq!(split_lines("\n"), [""]);
    assert!(split_lines("").is_empty());
}

#[test]
fn unquoted_version_is_accepted_with_a_warning() {
    let text = "version: 2.0\nchanges: []\n";
    let patch = parsed(text);
    assert!(patch.changes.is_empty());
    assert_eq!(patch.warnings.len(), 1);
    assert!(patch.warnings[0].contains("line 1"), "{}", patch.warnings[0]);
    assert!(patch.warnings[0].contains("version: \"2.0\""), "{}", patch.warnings[0]);
}

#[test]
fn other_versions_are_refused_with_the_supported_list() {
    for (text, what) in [
        ("version: \"1.0\"\nchanges: []\n", "\"1.0\""),
        ("version: 3\nchanges: []\n", "3"),
        ("version: 2.00\nchanges: []\n", "2.00"),
        ("version: [2]\nchanges: []\n", "[2]"),
    ] {
        let e = failed(text);
        assert_eq!(e.kind, UNSUPPORTED_VERSION, "{text}");
        assert!(e.message.contains("supported versions are \"2.0\""), "{}", e.message);
        assert!(e.message.starts_with("line 1: "), "{}", e.message);
        assert_eq!(spanned(text, &e), what);
    }
    assert_eq!(failed("version:\nchanges: []\n").kind, MISSING_VERSION);
    let e = failed("changes: []\n");
    assert_eq!(e.kind, MISSING_VERSION);
    assert!(e.message.contains("version: \"2.0\""), "{}", e.message);
}

#[test]
fn the_root_must_be_a_mapping_with_changes() {
    for text in ["", "# only a comment\n", "- a\n- b\n", "hello\n"] {
        assert_eq!(failed(text).kind, INVALID_ROOT, "{text:?}");
    }
    assert_eq!(failed("version: \"2.0\"\n").kind, MISSING_CHANGES);
    let text = "version: \"2.0\"\nchanges: none\n";
    let e = failed(text);
    assert_eq!(e.kind, MISSING_CHANGES);
    assert!(e.message.contains("not a list"), "{}", e.message);
    assert_eq!(spanned(text, &e), "changes");
    assert_eq!(failed("version: \"2.0\"\nchanges:\n").kind, MISSING_CHANGES);
}

#[test]
fn unknown_keys_name_the_known_ones_and_the_nearest() {
    let text = one("action: REPLACE\n        snipet: |\n          x\n        content: |\n          y\n");
    let e = failed(&text);
    assert_eq!(e.kind, UNKNOWN_KEY);
    assert_eq!(spanned(&text, &e), "snipet");
    assert!(e.message.starts_with("change 1, modification 1 (line 6): "), "{}", e.message);
    assert!(e.message.contains("did you mean `snippet`?"), "{}", e.message);
    assert!(e.message.contains("`include_trailing_blank_lines`"), "{}", e.message);

    let e = failed("verison: \"2.0\"\nchanges: []\n");
    assert_eq!(e.kind, UNKNOWN_KEY);
    assert!(e.message.contains("did you mean `version`?"), "{}", e.message);
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path: a\n    path: b\n    modifications: []\n");
    assert_eq!(e.kind, UNKNOWN_KEY);
    assert!(e.message.starts_with("change 1 (line 4): unknown key `path` in a change"), "{}", e.message);
    // A key YAML 1.1 reads as a boolean is still named as written.
    let e = failed("version: \"2.0\"\nchanges: []\ny: 1\n");
    assert!(e.message.contains("unknown key `y`"), "{}", e.message);
}

#[test]
fn file_paths_are_checked() {
    for (path, why) in [
        ("\"\"", "is empty"),
        ("/etc/passwd", "is absolute"),
        ("C:/x", "is absolute"),
        ("\"\\\\share\\\\x\"", "is absolute"),
        ("../x.py", "`..`"),
        ("src/../../x.py", "`..`"),
        ("a\\..\\b", "`..`"),
    ] {
        let text = format!(
            "version: \"2.0\"\nchanges:\n  - file_path: {path}\n    modifications:\n      - action: DELETE\n        snippet: x\n"
        );
        let e = failed(&text);
        assert_eq!(e.kind, INVALID_PATH, "{path}");
        assert!(e.message.contains(why), "{path}: {}", e.message);
        assert_eq!(spanned(&text, &e), path);
    }
    let ok = "version: \"2.0\"\nchanges:\n  - file_path: src/..x/a..b.py\n    modifications:\n      - action: DELETE\n        snippet: x\n";
    assert_eq!(parsed(ok).changes[0].file_path, "src/..x/a..b.py");

    let e = failed("version: \"2.0\"\nchanges:\n  - modifications:\n      - action: DELETE\n        snippet: x\n");
    assert_eq!(e.kind, MISSING_FILE_PATH);
    assert!(e.message.starts_with("change 1 (line 3): "), "{}", e.message);
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path:\n    modifications: []\n");
    assert_eq!(e.kind, MISSING_FILE_PATH);
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path: [a]\n    modifications: []\n");
    assert_eq!(e.kind, INVALID_TYPE);
}

#[test]
fn modifications_must_be_a_non_empty_list() {
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path: a\n");
    assert_eq!(e.kind, MISSING_MODIFICATIONS);
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications: x\n");
    assert_eq!(e.kind, MISSING_MODIFICATIONS);
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications: []\n");
    assert_eq!(e.kind, EMPTY_MODIFICATIONS);
    let e = failed("version: \"2.0\"\nchanges:\n  - just a string\n");
    assert_eq!(e.kind, INVALID_TYPE);
    assert!(e.message.starts_with("change 1 (line 3): a change is a string"), "{}", e.message);
    let e = failed("version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - DELETE\n");
    assert_eq!(e.kind, INVALID_TYPE);
    assert!(e.message.starts_with("change 1, modification 1 (line 5): "), "{}", e.message);
}

#[test]
fn newline_values() {
    for (value, want) in [("LF", Newline::Lf), ("CRLF", Newline::CrLf), ("\"CR\"", Newline::Cr)] {
        let text = format!(
            "version: \"2.0\"\nchanges:\n  - file_path: a\n    newline: {value}\n    modifications:\n      - action: CREATE_FILE\n        content: x\n"
        );
        let patch = parsed(&text);
        assert_eq!(patch.changes[0].newline, Some(want));
        assert!(patch.warnings.is_empty());
    }
    for value in ["lf", "\\n", "[LF]", "1"] {
        let text = format!(
            "version: \"2.0\"\nchanges:\n  - file_path: a\n    newline: {value}\n    modifications:\n      - action: CREATE_FILE\n        content: x\n"
        );
        let e = failed(&text);
        assert_eq!(e.kind, INVALID_NEWLINE, "{value}");
        assert!(e.message.contains("`LF`, `CRLF` or `CR`"), "{}", e.message);
        assert_eq!(spanned(&text, &e), value);
    }
    let text = "version: \"2.0\"\nchanges:\n  - file_path: a\n    newline: LF\n    modifications:\n      - action: DELETE\n        snippet: x\n";
    let patch = parsed(text);
    assert_eq!(patch.warnings.len(), 1);
    assert!(patch.warnings[0].contains("only applies to CREATE_FILE"), "{}", patch.warnings[0]);
}

#[test]
fn actions() {
    let e = failed(&one("snippet: x\n        content: y\n"));
    assert_eq!(e.kind, MISSING_ACTION);
    assert!(e.message.contains("REPLACE, INSERT_AFTER, INSERT_BEFORE, DELETE, CREATE_FILE"), "{}", e.message);
    let text = one("action: replace\n        snippet: x\n        content: y\n");
    let e = failed(&text);
    assert_eq!(e.kind, UNKNOWN_ACTION);
    assert_eq!(spanned(&text, &e), "replace");
    assert!(e.message.contains("REPLACE, INSERT_AFTER, INSERT_BEFORE, DELETE, CREATE_FILE"), "{}", e.message);
    assert_eq!(failed(&one("action: [REPLACE]\n        snippet: x\n")).kind, UNKNOWN_ACTION);
    assert_eq!(failed(&one("action:\n        snippet: x\n")).kind, MISSING_ACTION);
}

#[test]
fn snippet_and_range_rules() {
    let e = failed(&one(
        "action: REPLACE\n        snippet: a\n        start_snippet: b\n        end_snippet: c\n        content: x\n",
    ));
    assert_eq!(e.kind, SNIPPET_AND_RANGE);
    let e = failed(&one("action: DELETE\n        snippet: a\n        end_snippet: c\n"));
    assert_eq!(e.kind, SNIPPET_AND_RANGE);
    let e = failed(&one("action: REPLACE\n        content: x\n"));
    assert_eq!(e.kind, MISSING_SNIPPET);
    assert!(e.message.starts_with("change 1, modification 1 (line 5): REPLACE needs `snippet`"), "{}", e.message);
    let text = one("action: DELETE\n        start_snippet: a\n");
    let e = failed(&text);
    assert_eq!(e.kind, INCOMPLETE_RANGE);
    assert!(e.message.contains("`start_snippet` without `end_snippet`"), "{}", e.message);
    assert_eq!(spanned(&text, &e), "start_snippet");
    let e = failed(&one("action: DELETE\n        end_snippet: a\n"));
    assert!(e.message.contains("`end_snippet` without `start_snippet`"), "{}", e.message);
    for action in ["INSERT_AFTER", "INSERT_BEFORE"] {
        let e = failed(&one(&format!(
            "action: {action}\n        start_snippet: a\n        end_snippet: b\n        content: x\n"
        )));
        assert_eq!(e.kind, RANGE_WITH_INSERT, "{action}");
    }
    let patch = parsed(&one("action: REPLACE\n        start_snippet: a\n        end_snippet: b\n        content: x\n"));
    let Some(Locator::Range { start, end }) = &patch.changes[0].modifications[0].locator else { panic!("a range") };
    assert_eq!((start.value.as_str(), end.value.as_str()), ("a", "b"));
}

#[test]
fn empty_snippets_and_anchors_are_refused() {
    for body in [
        "action: DELETE\n        snippet: \"\"\n",
        "action: DELETE\n        snippet: \"  \\n\\n\"\n",
        "action: DELETE\n        snippet:\n",
        "action: DELETE\n        start_snippet: a\n        end_snippet: \" \"\n",
        "action: DELETE\n        snippet: a\n        anchor: \"\"\n",
    ] {
        let e = failed(&one(body));
        assert_eq!(e.kind, EMPTY_SNIPPET, "{body}");
    }
}

#[test]
fn content_rules() {
    for action in ["REPLACE", "INSERT_AFTER", "INSERT_BEFORE"] {
        let e = failed(&one(&format!("action: {action}\n        snippet: a\n")));
        assert_eq!(e.kind, MISSING_CONTENT, "{action}");
        assert!(e.message.contains(&format!("{action} needs `content`")), "{}", e.message);
    }
    let e = failed(&one("action: CREATE_FILE\n"));
    assert_eq!(e.kind, MISSING_CONTENT);
    let e = failed(&one("action: REPLACE\n        snippet: a\n        content:\n"));
    assert_eq!(e.kind, MISSING_CONTENT);
    assert!(e.message.contains("content: \\\"\\\"") || e.message.contains("`content: \"\"`"), "{}", e.message);
    let text = one("action: DELETE\n        snippet: a\n        content: b\n");
    let e = failed(&text);
    assert_eq!(e.kind, UNEXPECTED_CONTENT);
    assert_eq!(spanned(&text, &e), "content");
    // An empty string is content: replace with nothing.
    let patch = parsed(&one("action: REPLACE\n        snippet: a\n        content: \"\"\n"));
    assert_eq!(patch.changes[0].modifications[0].content.as_ref().unwrap().lines(), Vec::<String>::new());
    // Plain scalars YAML types otherwise are taken as written.
    let patch = parsed(&one("action: REPLACE\n        snippet: 0x10\n        content: 1_000\n"));
    let m = &patch.changes[0].modifications[0];
    assert_eq!(m.locator, Some(Locator::Snippet(Text { value: "0x10".into(), span: m.locator_span() })));
    assert_eq!(m.content.as_ref().unwrap().value, "1_000");
}

impl Modification {
    fn locator_span(&self) -> Span {
        match &self.locator {
            Some(Locator::Snippet(t) | Locator::Range { start: t, .. }) => t.span,
            None => Span::default(),
        }
    }
}

#[test]
fn a_content_key_swallowed_by_the_snippet_block_is_pointed_out() {
    // The spec's "Error 1": `content:` indented like the snippet's lines becomes part of it.
    let text =
        one("action: REPLACE\n        snippet: |\n          def old():\n          content: |\n          def new():\n");
    let e = failed(&text);
    assert_eq!(e.kind, MISSING_CONTENT);
    assert!(e.message.contains("a `content:` line is inside the block above it"), "{}", e.message);
}

#[test]
fn create_file_takes_only_content() {
    for key in ["snippet: a", "anchor: a", "start_snippet: a", "end_snippet: a", "include_leading_blank_lines: 1"] {
        let text = one(&format!("action: CREATE_FILE\n        {key}\n        content: x\n"));
        let e = failed(&text);
        assert_eq!(e.kind, INVALID_CREATE_FILE, "{key}");
        assert_eq!(spanned(&text, &e), key.split(':').next().unwrap());
    }
    let patch = parsed(&one("action: CREATE_FILE\n        content: |\n          hello\n"));
    let m = &patch.changes[0].modifications[0];
    assert_eq!((m.locator.as_ref(), m.content.as_ref().unwrap().value.as_str()), (None, "hello\n"));
}

#[test]
fn blank_line_counts_are_non_negative_integers() {
    for value in ["-1", "1.5", "\"1\"", "yes", "[1]"] {
        let text = one(&format!("action: DELETE\n        snippet: a\n        include_trailing_blank_lines: {value}\n"));
        let e = failed(&text);
        assert_eq!(e.kind, INVALID_BLANK_LINES, "{value}");
        assert_eq!(spanned(&text, &e), value);
        assert!(e.message.contains("non-negative integer"), "{}", e.message);
    }
    let patch = parsed(&one(
        "action: DELETE\n        snippet: a\n        include_leading_blank_lines: 0\n        include_trailing_blank_lines: 3\n",
    ));
    let m = &patch.changes[0].modifications[0];
    assert_eq!((m.leading_blank_lines, m.trailing_blank_lines), (0, 3));
}

#[test]
fn a_misindented_key_points_at_its_line() {
    // `content:` one column left of its siblings.
    let text = "version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - action: REPLACE\n        snippet: |\n          x\n       content: |\n          y\n";
    let e = failed(text);
    assert_eq!(e.kind, INVALID_YAML);
    assert_eq!(line(text, &e), 8);
    assert!(e.message.contains("at line 8"), "{}", e.message);
    // A misaligned list item.
    let text = "version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - action: DELETE\n        snippet: x\n        - action: DELETE\n          snippet: y\n";
    let e = failed(text);
    assert_eq!(e.kind, INVALID_YAML);
    assert!((7..=8).contains(&line(text, &e)), "{}", e.render(text));
}

#[test]
fn messages_name_the_change_the_modification_and_the_line() {
    let text = "version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - action: DELETE\n        snippet: x\n  - file_path: b\n    modifications:\n      - action: DELETE\n        snippet: x\n      - action: INSERT_AFTER\n        snippet: y\n";
    let e = failed(text);
    assert_eq!(e.kind, MISSING_CONTENT);
    assert!(e.message.starts_with("change 2, modification 2 (line 11): "), "{}", e.message);
    assert!(spanned(text, &e).starts_with("- action: INSERT_AFTER"), "{:?}", spanned(text, &e));
    assert!(e.render(text).contains("line 11, column 7"), "{}", e.render(text));
}

#[test]
fn a_code_fence_around_the_document_is_ignored() {
    let text = format!("```yaml\n{EXAMPLE}```\n");
    let patch = parsed(&text);
    assert_eq!(patch.changes[0].modifications.len(), 3);
    // Spans still point into the original text.
    let span = patch.changes[0].span;
    assert!(text[span.start..].starts_with("- file_path: \"src/calculator.py\""));
    // A fence inside a block scalar is content.
    let inner = one("action: CREATE_FILE\n        content: |\n          ```\n          x\n          ```\n");
    assert_eq!(parsed(&inner).changes[0].modifications[0].content.as_ref().unwrap().value, "```\nx\n```\n");
}

#[test]
fn crlf_patch_text_and_a_bom() {
    let text = format!("\u{feff}{}", EXAMPLE.replace('\n', "\r\n"));
    let patch = parsed(&text);
    let m = &patch.changes[0].modifications;
    assert_eq!(m[1].content.as_ref().unwrap().lines()[2], "    return sum(a)");
    assert_eq!(m[0].locator, Some(Locator::Snippet(Text { value: "import math\n".into(), span: m[0].locator_span() })));
}

#[test]
fn line_numbers_count_lone_carriage_returns() {
    // The key is on line 6 of a patch whose lines end with a lone `\r` (old Mac): the
    // message, the JSON line and the rendered caret all say line 6, not line 1.
    let text = one("action: REPLACE\n        snipet: \"f\"\n        content: \"F\"\n").replace('\n', "\r");
    let e = failed(&text);
    assert_eq!(spanned(&text, &e), "snipet");
    assert_eq!(line(&text, &e), 6);
    assert!(e.message.contains("(line 6)"), "{}", e.message);
    assert_eq!(e.line_col(&text), Some((6, 9)));
    assert!(e.render(&text).contains("--> line 6, column 9"), "{}", e.render(&text));
}

#[test]
fn absolute_indentation_is_kept_in_the_snippet() {
    let patch = parsed(&one(
        "action: REPLACE\n        snippet: |2\n              return 1\n        content: |2\n              return 2\n",
    ));
    let m = &patch.changes[0].modifications[0];
    assert_eq!(m.content.as_ref().unwrap().value, "    return 2\n");
}

#[test]
fn nearest_key() {
    assert_eq!(closest("snipet", MODIFICATION_KEYS), Some("snippet"));
    assert_eq!(closest("Action", MODIFICATION_KEYS), Some("action"));
    assert_eq!(closest("start", MODIFICATION_KEYS), None);
    assert_eq!(closest("contents", MODIFICATION_KEYS), Some("content"));
    assert_eq!(distance("kitten", "sitting"), 3);
}

/// Lines that look like parts of an ap patch, at assorted indentations.
fn fragment() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "version: \"2.0\"",
        "version: 2.0",
        "changes:",
        "changes: []",
        "- file_path: a.py",
        "  file_path: ../x",
        "modifications:",
        "- action: REPLACE",
        "- action: CREATE_FILE",
        "  action: DELETE",
        "snippet: |",
        "snippet: |2",
        "start_snippet: |",
        "end_snippet: x",
        "anchor: |-",
        "content: |",
        "content: >",
        "newline: CRLF",
        "include_leading_blank_lines: 2",
        "include_trailing_blank_lines: -1",
        "def f():",
        "    return 1",
        "- [a, {b: c}]",
        "&a x: *a",
        "'quoted: \"",
        "\t- tab",
        "? key",
        "---",
        "```yaml",
        "```",
        "",
    ]);
    (pieces, 0usize..12).prop_map(|(p, indent)| format!("{}{p}", " ".repeat(indent)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn never_panics_on_yaml_like_text(lines in proptest::collection::vec(fragment(), 0..24), crlf in any::<bool>()) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        check(&text)?;
    }

    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        check(&text)?;
    }
}

/// Parses and lowers `text`; on success every span is inside it, on failure the error
/// renders.
fn check(text: &str) -> Result<(), TestCaseError> {
    match parse(text) {
        Ok(patch) => {
            for change in &patch.changes {
                prop_assert!(change.span.start <= change.span.end && change.span.end <= text.len());
                prop_assert!(!change.modifications.is_empty());
                for m in &change.modifications {
                    prop_assert!(m.span.start <= m.span.end && m.span.end <= text.len());
                }
            }
            let _ = crate::lower::lower(&patch);
        }
        Err(e) => {
            if let Some(span) = e.span {
                prop_assert!(span.start <= span.end && span.end <= text.len(), "{:?} in {} bytes", span, text.len());
            }
            let _ = e.render(text);
            prop_assert!(!e.message.ends_with('.'), "{}", e.message);
        }
    }
    Ok(())
}

/// `unfence` as it was first written: every line read forward to find the last non-blank
/// one. The backward search must find the same line.
fn unfence_forward(text: &str) -> std::borrow::Cow<'_, str> {
    let is_fence = |line: &str| {
        let t = line.trim();
        t.starts_with("```") || t.starts_with("~~~")
    };
    let mut lines = text.split_inclusive('\n').scan(0usize, |at, line| {
        let start = *at;
        *at += line.len();
        Some((start, line))
    });
    let Some((open, first)) = lines.by_ref().find(|(_, l)| !l.trim().is_empty()) else {
        return text.into();
    };
    let Some((close, last)) = lines.filter(|(_, l)| !l.trim().is_empty()).last() else {
        return text.into();
    };
    if !is_fence(first) || !is_fence(last) || last.trim().len() != 3 {
        return text.into();
    }
    let mut bytes = text.as_bytes().to_vec();
    for (start, line) in [(open, first), (close, last)] {
        let lead = line.len() - line.trim_start().len();
        bytes[start + lead] = b'#';
    }
    String::from_utf8(bytes).map_or(text.into(), Into::into)
}

#[test]
fn unfence_finds_the_last_line_as_the_forward_scan_does() {
    const PIECES: &[&str] =
        &["```yaml", "```", "~~~", " ``` ", "x: 1", "", "  ", "\u{2003}", "````", "\r", "\n", "```\r\n"];
    for a in PIECES {
        for b in PIECES {
            for c in PIECES {
                for end in ["", "\n", "\r\n", "\n\n"] {
                    let text = format!("{a}\n{b}\n{c}{end}");
                    assert_eq!(unfence(&text), unfence_forward(&text), "{text:?}");
                }
            }
        }
    }
}
