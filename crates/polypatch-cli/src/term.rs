//! How output meets the terminal: `--color` (headlines of text reports and the lines of a
//! diff, painted at print time so the formatters stay plain), `--quiet`, and the hint shown
//! while a patch is awaited on a terminal. JSON is never painted.

use std::ffi::OsStr;
use std::io::{self, IsTerminal as _};
use std::sync::OnceLock;

/// `--color`: when to color.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (`CLICOLOR_FORCE` forces color).
    #[default]
    Auto,
    /// Always, piped or not.
    Always,
    /// Never.
    Never,
}

/// The stream a text goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Out,
    /// Standard error.
    Err,
}

/// What the command line asked for, set once by `run`.
#[derive(Debug, Clone, Copy, Default)]
struct Settings {
    color: ColorChoice,
    quiet: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Records `--color` and `--quiet` for the rest of the run.
pub fn init(color: ColorChoice, quiet: bool) {
    let _ = SETTINGS.set(Settings { color, quiet });
}

fn settings() -> Settings {
    SETTINGS.get().copied().unwrap_or_default()
}

/// Whether `--quiet` was given: reports of success and warnings are not printed.
pub fn quiet() -> bool {
    settings().quiet
}

/// Whether text for `stream` is colored, from `--color`, the environment and whether the
/// stream is a terminal.
pub fn colored(stream: Stream) -> bool {
    let terminal = match stream {
        Stream::Out => io::stdout().is_terminal(),
        Stream::Err => io::stderr().is_terminal(),
    };
    decide(
        settings().color,
        terminal,
        std::env::var_os("NO_COLOR").as_deref(),
        std::env::var_os("CLICOLOR_FORCE").as_deref(),
    )
}

/// The rule, apart from the process: an explicit `always`/`never` wins; for `auto` a
/// non-empty `NO_COLOR` turns color off, then a `CLICOLOR_FORCE` other than `0` turns it
/// on, and otherwise a terminal has color.
fn decide(choice: ColorChoice, terminal: bool, no_color: Option<&OsStr>, force: Option<&OsStr>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if no_color.is_some_and(|v| !v.is_empty()) => false,
        ColorChoice::Auto if force.is_some_and(|v| !v.is_empty() && v != "0") => true,
        ColorChoice::Auto => terminal,
    }
}

const GREEN: &str = "\x1b[1;32m";
const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const CYAN: &str = "\x1b[36m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// A text report (`apply`, `check`, failures, `ApplyDiff` feedback) as it is shown on
/// `stream`: its headlines (lines that open at the left margin with a status) painted when
/// color is on, every other byte unchanged.
pub fn report(text: &str, stream: Stream) -> String {
    if colored(stream) { paint(text, report_color) } else { text.to_string() }
}

/// A git diff as it is shown on standard output: `+`/`-` lines green and red, hunk headers
/// cyan, file headers bold, when color is on.
pub fn diff(text: &str) -> String {
    if colored(Stream::Out) { paint(text, diff_color()) } else { text.to_string() }
}

/// Wraps each line `color_of` gives a color in it and a reset (before the line end).
fn paint(text: &str, mut color_of: impl FnMut(&str) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        match color_of(body) {
            Some(color) if !body.is_empty() => {
                out.push_str(color);
                out.push_str(body);
                out.push_str(RESET);
                out.push_str(&line[body.len()..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

fn report_color(line: &str) -> Option<&'static str> {
    const GOOD: &[&str] = &["applied", "already applied", "located", "✅", "dry run:"];
    const BAD: &[&str] = &["FAILED:", "error:", "❌", "not attempted:"];
    const NOTE: &[&str] = &["skipped", "warning:", "Recommend:"];
    let starts = |words: &[&str]| words.iter().any(|word| line.starts_with(word));
    if starts(BAD) {
        Some(RED)
    } else if starts(GOOD) {
        Some(GREEN)
    } else if starts(NOTE) {
        Some(YELLOW)
    } else {
        None
    }
}

/// The color of each line of a git diff, in order: inside a hunk (after `@@`, until the
/// next `diff --git`) a removed `-- x` is a red line, not a file header.
fn diff_color() -> impl FnMut(&str) -> Option<&'static str> {
    let mut in_hunk = false;
    move |line| {
        if line.starts_with("diff --git") {
            in_hunk = false;
            Some(BOLD)
        } else if line.starts_with("@@") {
            in_hunk = true;
            Some(CYAN)
        } else if in_hunk && line.starts_with('+') {
            Some(GREEN)
        } else if in_hunk && line.starts_with('-') {
            Some(RED)
        } else if !in_hunk && (line.starts_with("+++ ") || line.starts_with("--- ")) {
            Some(BOLD)
        } else {
            None
        }
    }
}

/// The hint shown on standard error before reading a patch from standard input, when
/// that is a terminal (someone may be waiting for a prompt that never comes).
pub const STDIN_HINT: &str = "reading the patch from standard input; pipe a file or name one, Ctrl-D to end\n";

/// The hint to show before reading a patch from standard input: only when it is a
/// terminal and `--quiet` is off.
pub fn stdin_hint(stdin_is_terminal: bool) -> Option<&'static str> {
    (stdin_is_terminal && !quiet()).then_some(STDIN_HINT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_choices_win() {
        let set = Some(OsStr::new("1"));
        assert!(decide(ColorChoice::Always, false, set, None));
        assert!(!decide(ColorChoice::Never, true, None, set));
    }

    #[test]
    fn auto_follows_the_terminal_and_the_environment() {
        assert!(decide(ColorChoice::Auto, true, None, None));
        assert!(!decide(ColorChoice::Auto, false, None, None));
        assert!(!decide(ColorChoice::Auto, true, Some(OsStr::new("1")), None));
        // An empty NO_COLOR is unset, as its convention says.
        assert!(decide(ColorChoice::Auto, true, Some(OsStr::new("")), None));
        assert!(decide(ColorChoice::Auto, false, None, Some(OsStr::new("1"))));
        assert!(!decide(ColorChoice::Auto, false, None, Some(OsStr::new("0"))));
        assert!(!decide(ColorChoice::Auto, false, Some(OsStr::new("1")), Some(OsStr::new("1"))));
    }

    #[test]
    fn headlines_are_painted_and_the_rest_kept() {
        let text = "applied: modify a.txt\n  hunk 1: applied at lines 1-2\nFAILED: modify b.txt\r\n\nskipped: x\n";
        let painted = paint(text, report_color);
        assert_eq!(
            painted,
            "\x1b[1;32mapplied: modify a.txt\x1b[0m\n  hunk 1: applied at lines 1-2\n\x1b[1;31mFAILED: modify b.txt\x1b[0m\r\n\n\x1b[1;33mskipped: x\x1b[0m\n"
        );
        let feedback = "❌ No match found\nAction: Request current state\n✅ Patch Applied";
        assert_eq!(
            paint(feedback, report_color),
            "\x1b[1;31m❌ No match found\x1b[0m\nAction: Request current state\n\x1b[1;32m✅ Patch Applied\x1b[0m"
        );
    }

    #[test]
    fn diff_lines_are_painted() {
        let diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-old\n--- sql\n+new\n keep\n";
        assert_eq!(
            paint(diff, diff_color()),
            "\x1b[1mdiff --git a/x b/x\x1b[0m\n\x1b[1m--- a/x\x1b[0m\n\x1b[1m+++ b/x\x1b[0m\n\x1b[36m@@ -1,2 +1 @@\x1b[0m\n\x1b[1;31m-old\x1b[0m\n\x1b[1;31m--- sql\x1b[0m\n\x1b[1;32m+new\x1b[0m\n keep\n"
        );
    }

    #[test]
    fn the_stdin_hint_needs_a_terminal() {
        assert_eq!(stdin_hint(false), None);
        assert_eq!(stdin_hint(true), Some(STDIN_HINT));
    }
}
