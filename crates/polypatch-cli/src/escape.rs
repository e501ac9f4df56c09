//! Text from a patch shown on a terminal: paths, hunk lines and the messages that quote
//! them are written by whoever wrote the patch, so the characters that steer a terminal
//! (escape sequences that set the window title or clear the screen, a carriage return
//! that overwrites the line, NUL, the other C0 and C1 controls) and those that reorder
//! what is shown (bidirectional overrides and isolates) are printed as visible escapes:
//! `\x1b`, `\r`, `\u{202e}`.

use std::borrow::Cow;

use polypatch::{ApplyReport, report::Failure};

/// Whether `c` can change what a terminal shows beyond printing itself. Line feeds and
/// tabs are layout, and stay.
fn steers(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// A character of a diff read without loss that stands for a byte that is not UTF-8
/// (`polypatch::fs::decode_lossless`): shown as that byte, `\xe9`.
fn stands_for_a_byte(c: char) -> bool {
    ('\u{10ff80}'..='\u{10ffff}').contains(&c)
}

fn push_escape(out: &mut String, c: char) {
    use std::fmt::Write as _;
    match c {
        c if stands_for_a_byte(c) => {
            let bytes = polypatch::engine::encode_lossless(&c.to_string()).into_owned();
            let _ = write!(out, "\\x{:02x}", bytes[0]);
        }
        '\r' => out.push_str("\\r"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\0' => out.push_str("\\0"),
        c if u32::from(c) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

fn escape_where(text: &str, escape: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escape(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` with every character that steers a terminal escaped; line feeds and tabs stay.
pub fn terminal(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| steers(c) || stands_for_a_byte(c))
}

/// One line of text (a path, a label, a message): also its line feeds and tabs escaped,
/// so a name cannot start a line of the report that looks like one of ours.
pub fn one_line(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| c == '\n' || c == '\t' || steers(c) || stands_for_a_byte(c))
}

/// A JSON document with the characters `serde_json` leaves as they are (C1 controls,
/// bidirectional overrides, line and paragraph separators) written as `\uXXXX` escapes:
/// the same JSON value, safe to print. They can only stand inside strings, where the
/// escape means the same character. (Characters that stand for bytes stay: they do not
/// steer a terminal, and the value keeps them.)
pub fn json(doc: &str) -> Cow<'_, str> {
    use std::fmt::Write as _;
    if !doc.chars().any(steers) {
        return Cow::Borrowed(doc);
    }
    let mut out = String::with_capacity(doc.len() + 8);
    for c in doc.chars() {
        if steers(c) {
            // Every character this escapes is in the basic multilingual plane.
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// A copy of `report` for a terminal: every name and message on one line with its
/// steering characters escaped; the closest region's diff keeps its lines.
pub fn report(report: &ApplyReport) -> ApplyReport {
    let mut report = report.clone();
    let line = |s: &mut String| {
        if let Cow::Owned(o) = one_line(s) {
            *s = o;
        }
    };
    let failure = |f: &mut Failure| {
        line(&mut f.message);
        line(&mut f.next_step);
        if let Some(closest) = &mut f.closest
            && let Cow::Owned(o) = terminal(&closest.diff)
        {
            closest.diff = o;
        }
    };
    if let Cow::Owned(o) = one_line(report.dialect.as_str()) {
        report.dialect = o.into();
    }
    for file in &mut report.files {
        line(&mut file.path);
        if let Some(to) = &mut file.moved_to {
            line(to);
        }
        if let Some(f) = &mut file.failure {
            failure(f);
        }
        for edit in &mut file.edits {
            line(&mut edit.label);
            edit.notes.iter_mut().for_each(line);
            if let Some(f) = &mut edit.failure {
                failure(f);
            }
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steering_characters_become_visible() {
        assert_eq!(terminal("a\x1b]0;owned\x07b"), "a\\x1b]0;owned\\x07b");
        assert_eq!(terminal("\x1b[2Jx\ry\0z\x7f"), "\\x1b[2Jx\\ry\\0z\\x7f");
        assert_eq!(terminal("abc\u{202e}fed\u{2066}\u{2069}"), "abc\\u{202e}fed\\u{2066}\\u{2069}");
        assert_eq!(terminal("c1 \u{9b}31m"), "c1 \\u{9b}31m");
        assert_eq!(terminal("tab\tand\nline"), "tab\tand\nline");
        assert!(matches!(terminal("caf\u{e9} \u{1f600}"), Cow::Borrowed(_)));
        assert_eq!(one_line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(terminal(&polypatch::fs::decode_lossless(b"caf\xe9")), "caf\\xe9");
    }

    #[test]
    fn json_escapes_keep_the_value() {
        let doc = serde_json::to_string(&serde_json::json!({"p": "a\u{202e}b\u{85}c\x1b"})).unwrap();
        let safe = json(&doc);
        assert!(!safe.chars().any(steers), "{safe}");
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["p"], "a\u{202e}b\u{85}c\x1b");
    }
}
