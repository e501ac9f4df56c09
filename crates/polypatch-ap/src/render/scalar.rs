//! Writing a string as a YAML scalar that reads back as exactly that string.

use std::fmt::Write as _;

/// `value` as the YAML scalar after `key: `, for a mapping whose block content is indented
/// by `indent` spaces: a literal block (`|`, with an indentation indicator when the text
/// starts with whitespace or an empty line, and `-`/`+` chomping for no or several final
/// newlines), as the 'ap' spec asks (§4.3); or, for text a block cannot hold exactly (an
/// empty string, only newlines, a carriage return, control characters, a byte order
/// mark), a one-line double-quoted string with escapes.
///
/// ```
/// use polypatch_ap::yaml_scalar;
///
/// assert_eq!(yaml_scalar("a: b # c\n", 4), "|\n    a: b # c\n");
/// assert_eq!(yaml_scalar("  indented\nno newline", 4), "|2-\n      indented\n    no newline\n");
/// assert_eq!(yaml_scalar("crlf\r\n", 4), "\"crlf\\r\\n\"\n");
/// ```
pub fn yaml_scalar(value: &str, indent: usize) -> String {
    if !fits_block(value) {
        return double_quoted(value) + "\n";
    }
    let body = value.trim_end_matches('\n');
    let newlines = value.len() - body.len();
    let chomp = match newlines {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let first = body.split('\n').next().unwrap_or_default();
    let indicator = if first.starts_with([' ', '\t']) || first.is_empty() { "2" } else { "" };
    let pad = " ".repeat(indent);
    let mut out = format!("|{indicator}{chomp}\n");
    for line in body.split('\n') {
        if !line.is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
        out.push('\n');
    }
    // `+` keeps the final newlines: each after the first is an empty line of the block.
    for _ in 1..newlines {
        out.push('\n');
    }
    out
}

/// Whether a literal block gives back exactly `value`.
fn fits_block(value: &str) -> bool {
    value.chars().any(|c| c != '\n')
        && value.chars().all(|c| c == '\n' || c == '\t' || (is_printable(c) && c != '\u{feff}' && c != '\u{85}'))
        && !value.starts_with('\n')
}

/// YAML 1.2's printable characters, without line-break look-alikes.
fn is_printable(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
        && c != '\u{2028}'
        && c != '\u{2029}'
}

/// `value` as a double-quoted YAML string on one line.
fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_printable(c) && c != '\u{feff}' && c != '\u{85}' => out.push(c),
            c if (c as u32) <= 0xff => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) <= 0xffff => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}
