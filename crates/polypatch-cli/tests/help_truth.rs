//! Help that tells the truth: each verb's `--help` lists the options it takes, the manual
//! page has EXIT STATUS and ENVIRONMENT and names no page that is not written, `convert`
//! takes a whole reply, `detect` and `extract` deal with replies of several blocks, empty
//! standard input says so, an `ap` patch's folder is named when a path is missing there,
//! and the editor protocol is in `apply --help`.

use std::fs;
use std::path::Path;

mod common;

use common::Run;

fn polypatch(cwd: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    common::polypatch_with(cwd, args, &[], stdin.map(str::as_bytes))
}

/// The long option names a verb's `--help` lists.
fn listed(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            // `-d, --root <DIR>` or `--format <FORMAT>`.
            let line = match line.split_once(", ") {
                Some((short, rest)) if short.len() == 2 && short.starts_with('-') => rest,
                _ => line,
            };
            let name = line.strip_prefix("--")?.split([' ', '=']).next()?;
            Some(format!("--{name}"))
        })
        .collect()
}

/// `check --help` lists neither `--stdin-json` (refused) nor `--dry-run` (what `check`
/// is); `diff --help` neither `--session` (refused) nor `--fsync` (nothing written); the
/// `--color` option is one line, not the ten-line block every verb repeated. Failed
/// before: each was listed, and `--color` took ten lines on every verb.
#[test]
fn each_verb_lists_the_options_it_takes() {
    let dir = tempfile::tempdir().unwrap();
    let help = |verb: &str| {
        let run = polypatch(dir.path(), &[verb, "--help"], None);
        assert_eq!(run.code, 0, "{run:?}");
        run.stdout
    };
    let check = listed(&help("check"));
    for absent in ["--stdin-json", "--dry-run", "--fsync", "--check", "--apply"] {
        assert!(!check.iter().any(|o| o == absent), "check lists {absent}: {check:?}");
    }
    for present in ["--root", "--format", "--strict", "--reverse", "--stat", "--partial", "--session"] {
        assert!(check.iter().any(|o| o == present), "check lacks {present}: {check:?}");
    }
    let diff = listed(&help("diff"));
    for absent in
        ["--session", "--fsync", "--guidance", "--max-exchanges", "--reply-format", "--stdin-json", "--dry-run"]
    {
        assert!(!diff.iter().any(|o| o == absent), "diff lists {absent}: {diff:?}");
    }
    let apply = listed(&help("apply"));
    for present in
        ["--stdin-json", "--dry-run", "--fsync", "--session", "--reverse", "--stat", "--summary", "--partial"]
    {
        assert!(apply.iter().any(|o| o == present), "apply lacks {present}: {apply:?}");
    }
    for verb in ["apply", "check", "diff", "detect", "man", "completions", "formats"] {
        let text = help(verb);
        let color: Vec<&str> = text.lines().filter(|l| l.contains("--color") || l.contains("NO_COLOR")).collect();
        assert_eq!(color.len(), 1, "{verb}: {color:?}");
        assert!(
            color[0].ends_with(
                "--color <WHEN>  When to color the report and a diff: `auto` (a terminal; see ENVIRONMENT), `always`, \
                 `never`"
            ) || color[0].contains("--color <WHEN>"),
            "{verb}: {color:?}"
        );
        assert!(color[0].ends_with("`always`, `never`"), "{verb}: {color:?}");
        assert!(!text.contains("Possible values:"), "{verb}:\n{text}");
    }
}

/// The manual page has EXIT STATUS and ENVIRONMENT, and names no `polypatch-help(1)`
/// (no such page is written). Failed before: neither section, and `polypatch\-help(1)`
/// in the SUBCOMMANDS list.
#[test]
fn man_page_has_exit_status_and_environment() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["man"], None);
    assert_eq!(run.code, 0);
    let page = run.stdout;
    let exit = page.find(".SH \"EXIT STATUS\"\n").expect("EXIT STATUS");
    let env = page.find(".SH ENVIRONMENT\n").expect("ENVIRONMENT");
    assert!(exit < env);
    for name in
        ["\\fB0\\fR", "\\fB1\\fR", "\\fB2\\fR", "\\fBNO_COLOR\\fR", "\\fBCLICOLOR_FORCE\\fR", "\\fBPOLYPATCH_FSYNC\\fR"]
    {
        assert!(page[exit..].contains(name), "{name}");
    }
    assert!(!page.contains("help(1)") && !page.contains("polypatch\\-help"), "{page}");
    // `man --dir` writes the same top page, and no `polypatch-help.1`.
    let run = polypatch(dir.path(), &["man", "--dir", "."], None);
    assert_eq!(run.code, 0);
    assert_eq!(fs::read_to_string(dir.path().join("polypatch.1")).unwrap(), page);
    assert!(!dir.path().join("polypatch-help.1").exists());
}

/// A model's whole reply converts as `apply` applies it. Failed before: "the patch must
/// start with `*** Begin Patch`", exit 2.
#[test]
fn convert_takes_a_whole_reply() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
    let reply =
        "Here is the fix:\n\n```\n*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n*** End Patch\n```\n\nDone.\n";
    let run = polypatch(dir.path(), &["convert", "--to", "unified", "-"], Some(reply));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "diff --git a/a.txt b/a.txt\nindex 422c2b7..55dce13 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
    );
    // `--to` names the dialects it writes: `auto` is not one.
    let run = polypatch(dir.path(), &["convert", "--to", "auto", "-"], Some(reply));
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: `--to auto`: no dialect is called so; write one of: ai-patch, unified, ap, applydiff, aptix, \
         search-replace, tool-call (`polypatch formats` lists their aliases)\n"
    );
    let help = polypatch(dir.path(), &["convert", "--help"], None).stdout;
    let to = help.lines().skip_while(|l| !l.trim_start().starts_with("--to <FORMAT>")).nth(1).unwrap_or_default();
    assert!(to.contains("The dialect to write: ai-patch") && !to.contains("auto"), "{help}");
}

const TWO_BLOCKS: &str = "Two changes:\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n```\n\nand \
                          then\n\n```\n*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n```\n";

/// `detect` names each block's dialect in a reply of several; `extract --block N` prints
/// that block alone. Failed before: `detect` printed one dialect, `--block` was refused.
#[test]
fn detect_and_extract_a_reply_of_several_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let run = polypatch(dir.path(), &["detect"], Some(TWO_BLOCKS));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "block 1 (lines 4-9): unified\nblock 2 (lines 15-20): ai-patch\n");
    let run = polypatch(dir.path(), &["detect", "--json"], Some(TWO_BLOCKS));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        doc["blocks"],
        serde_json::json!([
            {"index": 1, "dialect": "unified", "lines": {"start": 4, "end": 9}},
            {"index": 2, "dialect": "ai-patch", "lines": {"start": 15, "end": 20}}
        ])
    );
    let run = polypatch(dir.path(), &["extract", "--block", "2"], Some(TWO_BLOCKS));
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** End Patch\n");
    let run = polypatch(dir.path(), &["extract", "--block", "3"], Some(TWO_BLOCKS));
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, "error: `--block 3`: the reply has 2 blocks: `--block 1` to `--block 2`\n");
    let run = polypatch(dir.path(), &["extract", "--json", "--block", "2"], Some(TWO_BLOCKS));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!((doc["blocks"][0]["index"].as_u64(), doc["blocks"].as_array().map(Vec::len)), (Some(2), Some(1)));
}

/// Empty standard input says it was empty (exit 2), for every verb that reads it. Failed
/// before: "no patch block found"-like messages that did not say the input was empty.
#[test]
fn empty_standard_input_says_so() {
    let dir = tempfile::tempdir().unwrap();
    for verb in ["apply", "check", "diff", "detect", "extract", "convert"] {
        let mut args = vec![verb];
        if verb == "convert" {
            args.extend(["--to", "unified"]);
        }
        for input in ["", "\n  \n"] {
            let run = polypatch(dir.path(), &args, Some(input));
            assert_eq!(run.code, 2, "{verb}: {run:?}");
            let what = if input.is_empty() { "empty" } else { "blank" };
            assert_eq!(
                run.stderr,
                format!(
                    "error: standard input was {what}: there is no patch to read; name the patch file (`polypatch \
                     apply fix.patch`) or pipe one in (`polypatch apply < fix.patch`)\n"
                ),
                "{verb}"
            );
        }
    }
}

/// An `ap` patch file's paths are relative to its folder (the spec's §2.3); when a path is
/// missing there, the error names the folder and `--root`. Failed before: only "the file
/// does not exist".
#[test]
fn ap_paths_missing_in_the_patch_folder_name_the_folder_and_root() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\nb\n").unwrap();
    fs::create_dir(dir.path().join("patches")).unwrap();
    let ap = "version: \"2.0\"\nchanges:\n  - file_path: \"a.txt\"\n    modifications:\n      - action: REPLACE\n        \
              snippet: \"b\"\n        content: \"B\"\n";
    fs::write(dir.path().join("patches/fix.ap"), ap).unwrap();
    let run = polypatch(dir.path(), &["apply", "patches/fix.ap"], None);
    assert_eq!(run.code, 1, "{run:?}");
    assert!(
        run.stderr.ends_with(
            "note: an `ap` patch's paths are relative to the patch file's folder (its spec, §2.3): they were looked \
             for under `patches`; give `--root DIR` to resolve them from another directory (`--root .` for the \
             current one)\n"
        ),
        "{}",
        run.stderr
    );
    let run = polypatch(dir.path(), &["apply", "--root", ".", "patches/fix.ap"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\nB\n");
    // Next to its files, no note and no `--root` needed.
    fs::write(
        dir.path().join("fix.ap"),
        ap.replace("snippet: \"b\"", "snippet: \"B\"").replace("content: \"B\"", "content: \"C\""),
    )
    .unwrap();
    let run = polypatch(dir.path(), &["apply", "fix.ap"], None);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\nC\n");
}

/// The editor protocol is in `apply --help`, with an example that runs as written.
/// Failed before: one option among twenty, no example.
#[test]
fn the_editor_protocol_is_in_apply_help_with_an_example_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let help = polypatch(dir.path(), &["apply", "--help"], None).stdout;
    let at = help.find("The editor protocol (`--stdin-json`)").expect("the example's heading");
    let example: Vec<&str> = help[at..].lines().skip(1).take(2).map(str::trim).collect();
    let json = example.join(" ");
    let json = json.strip_prefix("echo '").unwrap().split("' | polypatch apply --stdin-json").next().unwrap();
    let run = polypatch(dir.path(), &["apply", "--stdin-json"], Some(json));
    assert_eq!(run.code, 0, "{run:?}");
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["files"]["a.py"], "x = 2\n", "{doc}");
}

/// What a verb's help does not list, it refuses (exit 2) rather than take silently.
/// Failed before: `check --dry-run`, `check --fsync full` and `diff --fsync full` were
/// accepted and did nothing.
#[test]
fn options_a_verb_does_not_list_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n";
    for args in
        [&["check", "--dry-run"][..], &["check", "--fsync", "full"], &["check", "--check"], &["check", "--apply"]]
    {
        let run = polypatch(dir.path(), args, Some(patch));
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert_eq!(
            run.stderr,
            "error: `check` writes nothing and takes none of `--apply`, `--check`, `--dry-run` and `--fsync`: give \
             them to `apply`\n"
        );
    }
    for args in [&["diff", "--dry-run"][..], &["diff", "--fsync", "none"], &["diff", "--stat"], &["diff", "--partial"]]
    {
        let run = polypatch(dir.path(), args, Some(patch));
        assert_eq!(run.code, 2, "{args:?}: {run:?}");
        assert!(run.stderr.starts_with("error: `diff` writes nothing and takes none of `--check`"), "{}", run.stderr);
    }
    assert_eq!(fs::read_to_string(dir.path().join("a.txt")).unwrap(), "a\n");
}
