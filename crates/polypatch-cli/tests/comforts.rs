//! The command line's comforts, driven as a user drives them: `prompt`, `completions`,
//! `man`, `--color` (and `NO_COLOR`, `CLICOLOR_FORCE`), `--quiet`, the standard-input hint.

use std::fs;
use std::path::Path;

/// What one run of the binary did.
mod common;

use common::Run;

/// Runs `polypatch args…` in `cwd` with `env` set (and the color variables otherwise
/// unset), `stdin` piped in when given (no standard input otherwise).
fn polypatch(cwd: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> Run {
    common::polypatch_with(cwd, args, env, stdin.map(str::as_bytes))
}

const ESC: char = '\x1b';
const FILE: &str = "one\ntwo\nthree\n";
const GOOD: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+2\n three\n*** End Patch\n";
const BAD: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-zwei\n+2\n three\n*** End Patch\n";

/// A temporary root holding `a.txt`, and the two patches beside it.
fn sandbox() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), FILE).unwrap();
    fs::write(dir.path().join("good.patch"), GOOD).unwrap();
    fs::write(dir.path().join("bad.patch"), BAD).unwrap();
    dir
}

fn read(dir: &tempfile::TempDir) -> String {
    fs::read_to_string(dir.path().join("a.txt")).unwrap()
}

#[test]
fn prompt_prints_the_library_text_for_every_dialect() {
    let dir = tempfile::tempdir().unwrap();
    for name in polypatch::Dialects::global().names() {
        let run = polypatch(dir.path(), &["prompt", "--format", name], &[], None);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{name}");
        assert_eq!(Some(run.stdout.as_str()), polypatch::prompt(name), "{name}");
    }
}

#[test]
fn prompt_for_an_unknown_format_exits_2_listing_the_formats() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["prompt", "--format", "yaml"], &[], None);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!("error: unknown format `yaml`; known formats: {}\n", polypatch::Dialects::global().names().join(", "))
    );
    let missing = polypatch(dir.path(), &["prompt"], &[], None);
    assert_eq!(missing.code, 2, "{}", missing.stderr);
}

#[test]
fn completions_name_every_verb_in_every_shell() {
    let dir = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = polypatch(dir.path(), &["completions", shell], &[], None);
        assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{shell}");
        assert!(run.stdout.contains("polypatch"), "{shell}");
        for verb in ["apply", "check", "diff", "detect", "recover", "formats", "prompt", "completions", "man"] {
            assert!(run.stdout.contains(verb), "{shell}: no `{verb}` in\n{}", run.stdout);
        }
        assert!(run.stdout.contains("root") && run.stdout.contains("color"), "{shell}: the options");
    }
    let unknown = polypatch(dir.path(), &["completions", "tcsh"], &[], None);
    assert_eq!((unknown.code, unknown.stdout.as_str()), (2, ""));
}

#[test]
fn man_prints_a_roff_page() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["man"], &[], None);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert!(run.stdout.contains(".TH polypatch 1"), "{}", run.stdout);
    assert!(run.stdout.contains(".SH NAME") && run.stdout.contains(".SH SYNOPSIS"));
    for verb in ["apply", "check", "diff", "prompt"] {
        assert!(run.stdout.contains(verb), "no `{verb}` in the page");
    }
}

#[test]
fn man_dir_writes_a_page_per_verb() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["man", "--dir", "."], &[], None);
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (0, "", ""));
    for verb in ["", "-apply", "-check", "-diff", "-detect", "-recover", "-formats", "-prompt", "-completions", "-man"]
    {
        let page = fs::read_to_string(dir.path().join(format!("polypatch{verb}.1"))).unwrap();
        assert!(page.contains(&format!(".TH polypatch{verb} 1")), "polypatch{verb}.1:\n{page}");
    }
    assert!(fs::read_to_string(dir.path().join("polypatch-apply.1")).unwrap().contains("dry\\-run"));
    let missing = polypatch(dir.path(), &["man", "--dir", "nope"], &[], None);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.starts_with("error: cannot write the manual pages into `nope`"), "{}", missing.stderr);
}

#[test]
fn help_shows_usage_examples() {
    let dir = tempfile::tempdir().unwrap();
    let top = polypatch(dir.path(), &["--help"], &[], None);
    assert_eq!(top.code, 0);
    assert!(top.stdout.contains("Examples:\n  polypatch apply fix.patch"), "{}", top.stdout);
    let apply = polypatch(dir.path(), &["apply", "--help"], &[], None);
    assert!(apply.stdout.contains("Examples:\n  polypatch apply fix.patch "), "{}", apply.stdout);
    assert!(apply.stdout.contains("--dry-run --json"), "{}", apply.stdout);
}

#[test]
fn color_always_paints_the_report_and_never_does_not() {
    let dir = sandbox();
    let run = polypatch(dir.path(), &["check", "--color", "always", "good.patch"], &[], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.starts_with("\x1b[1;32mlocated: modify a.txt\x1b[0m\n"), "{:?}", run.stdout);
    let plain = polypatch(dir.path(), &["check", "--color", "never", "good.patch"], &[], None);
    assert!(plain.stdout.starts_with("located: modify a.txt\n"), "{:?}", plain.stdout);
    assert!(!plain.stdout.contains(ESC) && !plain.stderr.contains(ESC));
    // The painted text is the plain text with escapes around its headlines.
    assert_eq!(run.stdout.replace("\x1b[1;32m", "").replace("\x1b[0m", ""), plain.stdout);

    let failed = polypatch(dir.path(), &["apply", "--color", "always", "bad.patch"], &[], None);
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.starts_with("\x1b[1;31merror: could not apply the patch"), "{:?}", failed.stderr);
    assert_eq!(read(&dir), FILE, "a failed apply writes nothing");
}

#[test]
fn auto_color_follows_the_environment_when_piped() {
    let dir = sandbox();
    let piped = polypatch(dir.path(), &["check", "good.patch"], &[], None);
    assert!(!piped.stdout.contains(ESC), "piped output is plain by default: {:?}", piped.stdout);
    let forced = polypatch(dir.path(), &["check", "good.patch"], &[("CLICOLOR_FORCE", "1")], None);
    assert!(forced.stdout.contains("\x1b[1;32mlocated"), "{:?}", forced.stdout);
    let both = polypatch(dir.path(), &["check", "good.patch"], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], None);
    assert!(!both.stdout.contains(ESC), "NO_COLOR wins: {:?}", both.stdout);
    let explicit = polypatch(dir.path(), &["check", "--color", "always", "good.patch"], &[("NO_COLOR", "1")], None);
    assert!(explicit.stdout.contains(ESC), "an explicit --color always wins over NO_COLOR");
}

#[test]
fn json_is_never_colored() {
    let dir = sandbox();
    for patch in ["good.patch", "bad.patch"] {
        let run = polypatch(dir.path(), &["check", "--json", "--color", "always", patch], &[], None);
        assert!(!run.stdout.contains(ESC) && !run.stderr.contains(ESC), "{patch}: {:?}", run.stdout);
        let document: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert!(document["status"].is_string(), "{patch}");
    }
}

#[test]
fn diff_lines_are_colored_only_when_asked() {
    let dir = sandbox();
    let colored = polypatch(dir.path(), &["diff", "--color", "always", "good.patch"], &[], None);
    assert_eq!(colored.code, 0, "{}", colored.stderr);
    assert!(colored.stdout.contains("\x1b[1;31m-two\x1b[0m\n\x1b[1;32m+2\x1b[0m\n three\n"), "{:?}", colored.stdout);
    let piped = polypatch(dir.path(), &["diff", "good.patch"], &[], None);
    assert!(piped.stdout.contains("\n-two\n+2\n three\n") && !piped.stdout.contains(ESC), "{:?}", piped.stdout);
}

/// The diff of several blocks (a model's reply, several patch files) is colored as one
/// patch's is: only when asked.
#[test]
fn diff_of_several_blocks_is_colored_only_when_asked() {
    let dir = sandbox();
    fs::write(dir.path().join("b.txt"), FILE).unwrap();
    fs::write(dir.path().join("b.patch"), GOOD.replace("a.txt", "b.txt")).unwrap();
    let colored = polypatch(dir.path(), &["diff", "--color", "always", "good.patch", "b.patch"], &[], None);
    assert_eq!(colored.code, 0, "{}", colored.stderr);
    assert_eq!(
        colored.stdout.matches("\x1b[1;31m-two\x1b[0m\n\x1b[1;32m+2\x1b[0m\n three\n").count(),
        2,
        "{:?}",
        colored.stdout
    );
    let piped = polypatch(dir.path(), &["diff", "good.patch", "b.patch"], &[], None);
    assert_eq!(piped.stdout.matches("\n-two\n+2\n three\n").count(), 2, "{:?}", piped.stdout);
    assert!(!piped.stdout.contains(ESC), "{:?}", piped.stdout);
}

#[test]
fn quiet_prints_nothing_on_success_and_the_error_on_failure() {
    let dir = sandbox();
    let run = polypatch(dir.path(), &["apply", "-q", "good.patch"], &[], None);
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (0, "", ""));
    assert_eq!(read(&dir), "one\n2\nthree\n");
    let again = polypatch(dir.path(), &["--quiet", "apply", "good.patch"], &[], None);
    assert_eq!((again.code, again.stdout.as_str(), again.stderr.as_str()), (0, "", ""), "already applied");

    let dir = sandbox();
    let failed = polypatch(dir.path(), &["apply", "-q", "bad.patch"], &[], None);
    assert_eq!((failed.code, failed.stdout.as_str()), (1, ""));
    assert!(failed.stderr.starts_with("error: could not apply the patch, nothing was written\n"), "{}", failed.stderr);
    assert!(failed.stderr.contains("zwei"), "the error still says what was not found: {}", failed.stderr);
    assert_eq!(read(&dir), FILE);
    let json = polypatch(dir.path(), &["check", "-q", "--json", "good.patch"], &[], None);
    assert_eq!(json.code, 0);
    assert!(json.stdout.starts_with('{'), "--json still prints its document: {:?}", json.stdout);
}

/// `--quiet` holds for several blocks as for one patch: a model's reply of two blocks and
/// two patch files, applied, print nothing (neither the blocks' report nor a block's
/// warning); a failure still prints its error.
#[test]
fn quiet_prints_nothing_for_several_blocks_either() {
    let ap = "version: 2.0\nchanges:\n  - file_path: \"b.txt\"\n    modifications:\n      - action: REPLACE\n        \
              snippet: |\n          bee\n        content: |\n          B\n";
    let reply = format!("First:\n\n```\n{GOOD}```\n\nthen:\n\n```yaml\n{ap}```\n");
    let dir = sandbox();
    fs::write(dir.path().join("b.txt"), "bee\n").unwrap();
    fs::write(dir.path().join("reply.md"), &reply).unwrap();
    let loud = polypatch(dir.path(), &["check", "reply.md"], &[], None);
    assert_eq!(loud.code, 0, "{}", loud.stderr);
    assert!(loud.stderr.starts_with("warning: block 2 (ap"), "the block's warning, without -q: {}", loud.stderr);
    assert!(loud.stdout.ends_with("(2 blocks), nothing written\n"), "{}", loud.stdout);
    let run = polypatch(dir.path(), &["apply", "-q", "reply.md"], &[], None);
    assert_eq!((run.code, run.stdout.as_str(), run.stderr.as_str()), (0, "", ""));
    assert_eq!(
        (read(&dir), fs::read_to_string(dir.path().join("b.txt")).unwrap()),
        ("one\n2\nthree\n".into(), "B\n".into())
    );

    let dir = sandbox();
    let files = polypatch(dir.path(), &["check", "--quiet", "bad.patch", "good.patch"], &[], None);
    assert_eq!((files.code, files.stdout.as_str()), (1, ""));
    assert!(files.stderr.starts_with("error: could not apply the patch blocks"), "{}", files.stderr);
    fs::write(dir.path().join("b.patch"), GOOD.replace("a.txt", "b.txt")).unwrap();
    fs::write(dir.path().join("b.txt"), FILE).unwrap();
    let both = polypatch(dir.path(), &["apply", "--quiet", "good.patch", "b.patch"], &[], None);
    assert_eq!((both.code, both.stdout.as_str(), both.stderr.as_str()), (0, "", ""));
    assert_eq!(fs::read_to_string(dir.path().join("b.txt")).unwrap(), "one\n2\nthree\n");
}

#[test]
fn no_stdin_hint_when_standard_input_is_not_a_terminal() {
    let dir = sandbox();
    let piped = polypatch(dir.path(), &["apply"], &[], Some(GOOD));
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert_eq!(piped.stderr, "");
    assert_eq!(read(&dir), "one\n2\nthree\n");
    let closed = polypatch(dir.path(), &["check", "-"], &[], None);
    assert!(!closed.stderr.contains("reading the patch"), "{}", closed.stderr);
}
