//! Where a diff written bare in a model's reply ends ([`Dialect::bare_block`](polypatch_core::Dialect::bare_block)): from a
//! `diff --git` line, or a `--- ` line followed by a `+++ ` line, to the last line that
//! belongs to it.

use polypatch_core::ReplyLines;

/// [`Dialect::bare_block`](polypatch_core::Dialect::bare_block) of [`crate::Unified`]. Inside a `--- `/`+++ ` pair no dialect
/// recognised (no `@@` line), a pair ends where that one ends: at its `--- ` line, the
/// scan of [`diff_end`] from either is in the same state (after a header, out of any hunk,
/// no blank line seen), so it returns `failed` without reading on.
pub(crate) fn bare_block(lines: &ReplyLines<'_>, at: usize, to: usize, failed: usize) -> Option<usize> {
    let line = lines.line(at);
    if line.starts_with("diff --git ") {
        Some(diff_end(lines, at, to))
    } else if line.starts_with("--- ") && at + 1 < to && lines.line(at + 1).starts_with("+++ ") {
        Some(if at < failed { failed } else { diff_end(lines, at, to) })
    } else {
        None
    }
}

/// One past the last line of the raw diff starting at line `i`. Lines that a diff holds
/// (headers, hunk lines, binary data, blank lines) continue it. When a hunk's counts are
/// met, or after a blank line, only a header continues it: so prose after the diff (a
/// `- item` list after a blank line, say) is not taken in. A hunk whose counts are not met
/// yet (or that has none), and hunk-like lines right after a hunk, are taken in: a diff cut
/// short would be a wrong edit, a diff that takes one line too many fails to parse or
/// locate.
pub(crate) fn diff_end(lines: &ReplyLines<'_>, i: usize, to: usize) -> usize {
    let mut last = i; // the last line that belongs to the diff
    let mut hunk: Option<Option<(usize, usize)>> = None; // in a hunk: the lines it has left, when counted
    let mut binary = false;
    let mut blank_run = false;
    for k in i + 1..to {
        let line = lines.line(k);
        let open = hunk.is_some_and(|left| left.is_none_or(|(o, n)| o > 0 || n > 0));
        let starts_hunk = line.starts_with("@@") || line.starts_with("diff ");
        if open && !starts_hunk {
            if line.trim().is_empty() || line.starts_with([' ', '+', '-']) {
                if let Some(Some((o, n))) = hunk.as_mut() {
                    match line.as_bytes().first() {
                        Some(b'-') => *o = o.saturating_sub(1),
                        Some(b'+') => *n = n.saturating_sub(1),
                        _ => {
                            *o = o.saturating_sub(1);
                            *n = n.saturating_sub(1);
                        }
                    }
                }
                // Blank lines at the end of a hunk without counts are the reply's.
                if !line.trim().is_empty() || hunk.is_some_and(|left| left.is_some()) {
                    last = k;
                }
                continue;
            }
            if line.starts_with('\\') {
                last = k;
                continue;
            }
            break;
        }
        if diff_header(line) {
            if line.starts_with("@@") {
                hunk = Some(hunk_counts(line));
            } else if !line.starts_with("\\ ") {
                hunk = None;
            }
            binary = line.starts_with("GIT binary patch")
                || (binary && (line.starts_with("literal ") || line.starts_with("delta ")));
            last = k;
            blank_run = false;
        } else if line.trim().is_empty() {
            blank_run = true;
        } else if !blank_run && binary && base85_line(line) {
            last = k;
        } else if !blank_run && hunk.is_some() && line.starts_with([' ', '+', '-']) {
            // A hunk longer than its counts say: the lines right after it are still its own.
            last = k;
        } else {
            break;
        }
    }
    last + 1
}

/// Whether a line belongs to a diff's headers (between files and hunks).
fn diff_header(line: &str) -> bool {
    const HEADERS: &[&str] = &[
        "diff ",
        "--- ",
        "+++ ",
        "@@",
        "index ",
        "old mode ",
        "new mode ",
        "deleted file mode ",
        "new file mode ",
        "similarity index ",
        "dissimilarity index ",
        "rename from ",
        "rename to ",
        "copy from ",
        "copy to ",
        "Binary files ",
        "GIT binary patch",
        "literal ",
        "delta ",
        "\\ ",
    ];
    HEADERS.iter().any(|h| line.starts_with(h))
}

/// A line of a git binary patch's base85 data: a length letter, then base85 characters.
fn base85_line(line: &str) -> bool {
    // git's base85 alphabet, one entry per byte: a release's diff holds hundreds of
    // kilobytes of these lines (a search of the symbols per character was a third of
    // `polypatch check` on one).
    const BASE85: [bool; 256] = {
        let alphabet = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
        let mut table = [false; 256];
        let mut i = 0;
        while i < alphabet.len() {
            table[alphabet[i] as usize] = true;
            i += 1;
        }
        table
    };
    let bytes = line.as_bytes();
    bytes.first().is_some_and(u8::is_ascii_alphabetic)
        && bytes.len() > 1
        && bytes[1..].iter().all(|&b| BASE85[usize::from(b)])
}

/// The old and new line counts of a `@@ -a,b +c,d @@` header, when it has them.
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let count = |r: &str| match r.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => r.parse::<usize>().ok().map(|_| 1),
    };
    Some((count(old)?, count(new)?))
}
