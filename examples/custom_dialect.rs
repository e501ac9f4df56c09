//! A dialect of one's own: `sed`-like substitutions, one per line, each naming its file
//! (`src/app.py: s/old/new/`). It implements [`Dialect`] (name, sniff, parse into an
//! [`EditPlan`], where its blocks written bare in a reply end), joins the built-in dialects
//! in a [`Dialects`] registry, and from there takes part in everything: it is found in a
//! model's chat reply, applied as one transaction with the other blocks, converted into
//! another dialect, and (it writes itself, [`Dialect::render`]) converted into from one.
//!
//! Run it with `cargo run --example custom_dialect`; `cargo test` runs it too and checks
//! every outcome.

use std::error::Error;
use std::fmt::Write as _;

use polypatch::convert::{ConvertError, ConvertOptions, Input};
use polypatch::engine::{FileDelta, Operation, RenderError, RenderOptions, ReplyLines, render};
use polypatch::{
    ApplyOptions, Dialect, Dialects, EditPlan, Format, MemoryFileSet, ParseOptions, PatchError, ReplyError,
    error::ErrorKind,
    plan::{Edit, FileEdit, Span},
};

/// `path: s/old/new/`: in file `path`, the one place that holds `old` now holds `new`.
/// The character after `s` separates the parts (`s|a/b|c|` for slashes); `old` is not
/// empty. Blank lines are allowed between substitutions.
struct Sed;

/// A line that starts as a substitution does, `path: s` and a separator: its path, the
/// separator and the rest. A block is made of such lines, so that one written wrong is
/// refused ([`substitution`]), not left out of the block.
fn command(line: &str) -> Option<(&str, char, &str)> {
    let (path, command) = line.split_once(": ")?;
    if path.is_empty() || path.contains(char::is_whitespace) {
        return None;
    }
    let rest = command.trim_end().strip_prefix('s')?;
    let separator = rest.chars().next().filter(|c| !c.is_alphanumeric() && !c.is_whitespace())?;
    Some((path, separator, &rest[separator.len_utf8()..]))
}

/// A line of a block that is not a substitution (the dialect's own error kind).
const NOT_A_SUBSTITUTION: ErrorKind = ErrorKind::new("not_a_substitution");
/// A block without any substitution.
const NO_SUBSTITUTION: ErrorKind = ErrorKind::new("no_substitution");

/// One substitution: the file, the text to find, the text to write.
fn substitution(line: &str) -> Option<(&str, &str, &str)> {
    let (path, separator, rest) = command(line)?;
    let mut parts = rest.split(separator);
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(old), Some(new), Some(""), None) if !old.is_empty() => Some((path, old, new)),
        _ => None,
    }
}

impl Dialect for Sed {
    fn name(&self) -> &'static str {
        "sed"
    }

    /// Certain enough when every line that is not blank starts as a substitution.
    fn sniff(&self, text: &str) -> u8 {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty()).peekable();
        if lines.peek().is_some() && lines.all(|l| command(l).is_some()) { 90 } else { 0 }
    }

    fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
        let mut files: Vec<FileEdit> = Vec::new();
        let mut at = 0;
        for (n, line) in text.split_inclusive('\n').enumerate() {
            let span = Span::new(at, at + line.trim_end_matches(['\n', '\r']).len());
            at += line.len();
            if line.trim().is_empty() {
                continue;
            }
            let Some((path, old, new)) = substitution(line) else {
                return Err(PatchError::new(
                    "sed",
                    NOT_A_SUBSTITUTION,
                    format!(
                        "line {} is not a substitution: {}; write `path: s/old/new/`",
                        n + 1,
                        polypatch::engine::quote(line)
                    ),
                    Some(span),
                ));
            };
            let edit = Edit::replace_text(old, new).with_span(span);
            // One file edit per path, its substitutions in order.
            match files.iter_mut().find(|f| f.path == path) {
                Some(FileEdit { op: polypatch::plan::FileOp::Modify(modify), .. }) => modify.edits.push(edit),
                _ => files.push(FileEdit::modify(path, vec![edit])),
            }
        }
        if files.is_empty() {
            return Err(PatchError::new("sed", NO_SUBSTITUTION, "no substitution; write `path: s/old/new/`", None));
        }
        Ok(EditPlan::new("sed", files))
    }

    /// A run of lines that start as substitutions, up to the first line that does not.
    fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
        command(lines.line(at))?;
        Some((at + 1..to).find(|&j| command(lines.line(j)).is_none()).unwrap_or(to))
    }

    fn fence_tags(&self) -> &'static [&'static str] {
        &["sed"]
    }

    fn error_kinds(&self) -> &'static [ErrorKind] {
        const KINDS: &[ErrorKind] = &[NOT_A_SUBSTITUTION, NO_SUBSTITUTION];
        KINDS
    }

    /// A substitution per changed line: a file keeps its number of lines, and the old
    /// line is found once in it. What it cannot say (a line added or removed, a new file,
    /// a deletion, binary content) is refused, naming the operation.
    fn render(&self, deltas: &[FileDelta], _options: &RenderOptions) -> Result<String, RenderError> {
        let mut out = String::new();
        for delta in deltas {
            render::text_only("sed", delta, false, false)?;
            if delta.before.is_none() {
                return Err(render::refuse(
                    "sed",
                    Operation::Edit,
                    delta,
                    "it edits files that exist; it creates none",
                ));
            }
            let (before, after) = render::texts(delta);
            render::keeps_ends("sed", delta, before, after)?;
            if before.lines().count() != after.lines().count() {
                let detail = "a substitution changes a line; it adds or removes none";
                return Err(render::refuse("sed", Operation::Edit, delta, detail));
            }
            for (old, new) in before.lines().zip(after.lines()).filter(|(old, new)| old != new) {
                let separator =
                    ['/', '|', '#', '!', ',', '@'].into_iter().find(|&c| !old.contains(c) && !new.contains(c));
                match separator {
                    Some(c) if !old.is_empty() && before.matches(old).count() == 1 => {
                        writeln!(out, "{}: s{c}{old}{c}{new}{c}", delta.path).expect("a String takes any text");
                    }
                    _ => {
                        let detail = "the line it changes is not found once in the file";
                        return Err(render::refuse("sed", Operation::Edit, delta, detail));
                    }
                }
            }
        }
        Ok(out)
    }
}

const APP: &str = "def greet(name):\n    print('Hello, ' + name)\n\nVERSION = '1.0'\n";

/// A model's reply: prose, a fenced block of the new dialect, an AI-PATCH block, and two
/// bare substitutions at the end.
fn reply() -> String {
    let tag = Sed.fence_tags()[0];
    format!(
        "Two changes to the greeting:\n\n\
         ```{tag}\n\
         app.py: s/Hello, /Hi, /\n\
         app.py: s|' + name)|' + name + '!')|\n\
         ```\n\n\
         A changelog entry:\n\n\
         *** Begin Patch\n*** Add File: CHANGES.md\n+- friendlier greeting\n*** End Patch\n\n\
         and the version:\n\n\
         app.py: s/1.0/1.1/\n\
         README.md: s/v1.0/v1.1/\n\n\
         That is all.\n"
    )
}

fn main() -> Result<(), Box<dyn Error>> {
    // One registration line: the built-in dialects, then ours.
    let dialects = Dialects::builtin().with(Sed);

    // Found in the reply: the fenced block, the AI-PATCH block, the bare run.
    let reply = reply();
    let blocks = dialects.extract(&reply);
    let found: Vec<_> = blocks.iter().map(|b| (b.dialect.as_str(), b.fence, b.lines.start, b.lines.end)).collect();
    println!("blocks: {found:?}");
    assert_eq!(
        found,
        [("sed", Some("sed"), 4, 5), ("ai-patch", None, 10, 13), ("sed", None, 17, 18)],
        "the blocks of the reply"
    );
    // The built-in registry alone does not know it: only the AI-PATCH block is a patch.
    assert_eq!(polypatch::extract(&reply).len(), 1);

    // Applied: every block, in order, as one transaction.
    let mut files = MemoryFileSet::new().with("app.py", APP).with("README.md", "# app v1.0\n");
    let report = dialects.apply_text(&reply, &mut files, &ApplyOptions::default())?;
    print!("{report}");
    assert!(report.committed);
    assert_eq!(files.get_str("app.py"), Some("def greet(name):\n    print('Hi, ' + name + '!')\n\nVERSION = '1.1'\n"));
    assert_eq!(files.get_str("README.md"), Some("# app v1.1\n"));
    assert_eq!(files.get_str("CHANGES.md"), Some("- friendlier greeting\n"));

    // A substitution whose text is not in the file fails with the engine's report, and
    // nothing is written.
    let mut untouched = MemoryFileSet::new().with("app.py", APP);
    let err = dialects.apply_text("app.py: s/Goodbye/Bye/\n", &mut untouched, &ApplyOptions::default()).unwrap_err();
    assert_eq!(err.kind(), "not_applied");
    assert_eq!(untouched.get_str("app.py"), Some(APP));
    // A line that is not a substitution, in a fence that sniffs as sed otherwise, is
    // refused with its line in the reply.
    let bad = "Fix:\n```sed\napp.py: s/Hello/Hi/\napp.py: s/Hello\n```\n";
    let Err(ReplyError::Malformed { error, .. }) = dialects.plan_reply(bad, &ParseOptions::default()) else {
        panic!("a malformed sed block is refused");
    };
    assert_eq!(error.kind, NOT_A_SUBSTITUTION);
    assert!(bad[error.span.map_or(0, |s| s.start)..].starts_with("app.py: s/Hello\n"), "{error:?}");

    // Converted from the new dialect into a built-in one: the substitutions, located in
    // the files, become a unified diff that applies exactly.
    let files = MemoryFileSet::new().with("app.py", APP);
    let sed = "app.py: s/1.0/2.0/\n";
    let diff = dialects.convert(sed, &files, "unified", &ConvertOptions::default())?;
    println!("as a unified diff:\n{}", diff.text);
    assert_eq!(diff.source, "sed");
    assert_eq!(
        diff.text,
        "diff --git a/app.py b/app.py\nindex d165bf0..54cc372 100644\n--- a/app.py\n+++ b/app.py\n@@ -1,4 +1,4 @@\n def greet(name):\n     \
         print('Hello, ' + name)\n \n-VERSION = '1.0'\n+VERSION = '2.0'\n"
    );
    // And a plan of it into AI-PATCH.
    let plan = dialects.parse(sed, "auto")?;
    let ai = dialects.convert(Input::Plan(&plan), &files, "ai-patch", &ConvertOptions::default())?;
    assert!(ai.text.contains("-VERSION = '1.0'\n+VERSION = '2.0'\n"), "{}", ai.text);

    // Into the new dialect, from any other: its `render` writes a substitution per changed
    // line, and the conversion checks that it gives back the same bytes.
    let diff = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n def greet(name):\n-    print('Hello, ' + name)\n+    print('Hello, ' + name.title())\n";
    let sed = dialects.convert(diff, &files, "sed", &ConvertOptions::default())?;
    println!("the diff as sed:\n{}", sed.text);
    assert_eq!((sed.source.as_str(), sed.dialect.as_str()), ("unified", "sed"));
    assert_eq!(sed.text, "app.py: s/    print('Hello, ' + name)/    print('Hello, ' + name.title())/\n");
    let ai = "*** Begin Patch\n*** Update File: app.py\n@@\n-VERSION = '1.0'\n+VERSION = '1.0.1'\n*** End Patch\n";
    let sed = dialects.convert(ai, &files, "sed", &ConvertOptions::default())?;
    assert_eq!(sed.text, "app.py: s/VERSION = '1.0'/VERSION = '1.0.1'/\n");
    // What it cannot say is refused, not written approximately.
    let adds = "*** Begin Patch\n*** Update File: app.py\n@@\n VERSION = '1.0'\n+AUTHOR = 'me'\n*** End Patch\n";
    let err = dialects.convert(adds, &files, "sed", &ConvertOptions::default()).unwrap_err();
    assert_eq!(err.operation(), Some(Operation::Edit), "{err}");
    assert!(err.to_string().contains("it adds or removes none"), "{err}");
    // A format the registry does not have is named as such.
    let err =
        dialects.convert(Input::Text { text: ai, format: Format::Auto }, &files, "awk", &ConvertOptions::default());
    assert!(matches!(err, Err(ConvertError::UnknownFormat { .. })));
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_example_runs_and_its_outcomes_hold() {
        super::main().unwrap();
    }
}
