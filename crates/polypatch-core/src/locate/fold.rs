//! Line comparison per tier, without allocating: the hot loop of every search.

use crate::ir::tier::Tier;

/// Folds a Unicode look-alike to its ASCII counterpart; `None` drops the character
/// (zero-width characters).
fn fold_char(c: char) -> FoldedChar {
    match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' | '\u{FF07}' | '\u{00B4}' | '\u{02BC}' => {
            FoldedChar::One('\'')
        }
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' | '\u{FF02}' | '\u{00AB}' | '\u{00BB}' => {
            FoldedChar::One('"')
        }
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' | '\u{FE58}'
        | '\u{FE63}' | '\u{FF0D}' => FoldedChar::One('-'),
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => FoldedChar::One(' '),
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' => FoldedChar::None,
        '\u{2026}' => FoldedChar::Three('.'),
        c => FoldedChar::One(c),
    }
}

#[derive(Clone, Copy)]
enum FoldedChar {
    None,
    One(char),
    Three(char),
}

impl IntoIterator for FoldedChar {
    type Item = char;
    type IntoIter = std::iter::Take<std::iter::Repeat<char>>;
    fn into_iter(self) -> Self::IntoIter {
        match self {
            FoldedChar::None => std::iter::repeat(' ').take(0),
            FoldedChar::One(c) => std::iter::repeat(c).take(1),
            FoldedChar::Three(c) => std::iter::repeat(c).take(3),
        }
    }
}

/// The characters of `s` with look-alikes folded.
pub(crate) fn folded(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().flat_map(fold_char)
}

/// `str::trim`, with a fast path for the common case of ASCII at both ends.
pub(crate) fn trim(s: &str) -> &str {
    let t = s.trim_ascii();
    match (t.as_bytes().first(), t.as_bytes().last()) {
        (Some(a), Some(b)) if *a >= 0x80 || *b >= 0x80 => t.trim(),
        _ => t,
    }
}

/// `str::trim_end`, with a fast path for an ASCII end.
pub(crate) fn trim_end(s: &str) -> &str {
    let t = s.trim_ascii_end();
    match t.as_bytes().last() {
        Some(b) if *b >= 0x80 => t.trim_end(),
        _ => t,
    }
}

/// A pattern line, normalized once for every tier.
pub(crate) struct PatKey<'a> {
    pub raw: &'a str,
    pub end: &'a str,
    pub trimmed: &'a str,
    pub ascii: bool,
}

impl<'a> PatKey<'a> {
    pub(crate) fn new(raw: &'a str) -> Self {
        let trimmed = trim(raw);
        PatKey { raw, end: trim_end(raw), trimmed, ascii: trimmed.is_ascii() }
    }
}

/// Whether a file line of `len` bytes can equal `pat` at a key-comparison tier: a necessary
/// condition, decided from the length alone, without reading the line's text (on a large
/// file, reading every line's text is most of a scan's cost). The tiers that only remove
/// whitespace never lengthen a line, and neither does folding look-alikes (each folds to
/// no more bytes than it has), so a line shorter than an ASCII pattern key cannot match it.
#[inline]
fn len_may_match(tier: Tier, len: usize, pat: &PatKey<'_>) -> bool {
    match tier {
        Tier::Exact => len == pat.raw.len(),
        Tier::TrailingWhitespace => len >= pat.end.len(),
        Tier::Indentation | Tier::Trimmed | Tier::BlankLines | Tier::Prefix => len >= pat.trimmed.len(),
        Tier::Unicode => !pat.ascii || len >= pat.trimmed.len(),
        Tier::Fuzzy => true,
    }
}

/// Whether a file line equals a pattern line at a key-comparison tier.
/// `Indentation` and `BlankLines` compare like `Trimmed`; the constant shift of the one and
/// the skipped blank lines of the other are the block's business.
#[inline]
pub(crate) fn key_eq(tier: Tier, file: &str, pat: &PatKey<'_>) -> bool {
    if !len_may_match(tier, file.len(), pat) {
        return false;
    }
    match tier {
        Tier::Exact => file == pat.raw,
        Tier::TrailingWhitespace => trim_end(file) == pat.end,
        Tier::Indentation | Tier::Trimmed | Tier::BlankLines => trim(file) == pat.trimmed,
        Tier::Prefix => is_prefix_line(trim(file), pat.trimmed),
        Tier::Unicode => {
            let f = trim(file);
            // Folding maps non-ASCII to ASCII only: two ASCII lines fold equal only if equal.
            f == pat.trimmed || (!(pat.ascii && f.is_ascii()) && folded(f).eq(folded(pat.trimmed)))
        }
        Tier::Fuzzy => false,
    }
}

/// Whether `line` starts with `prefix` and the prefix ends at a word boundary (`def name`
/// starts `def name(self):`, not `def name_other():`); a prefix of fewer than three
/// characters says too little.
fn is_prefix_line(line: &str, prefix: &str) -> bool {
    let Some(rest) = line.strip_prefix(prefix) else { return false };
    if prefix.chars().count() < 3 || rest.is_empty() {
        return false;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_';
    !(prefix.chars().next_back().is_some_and(word) && rest.chars().next().is_some_and(word))
}

/// Whether a file line equals a pattern line at a key-comparison tier.
#[cfg(test)]
pub(crate) fn line_eq(tier: Tier, file: &str, pat: &str) -> bool {
    key_eq(tier, file, &PatKey::new(pat))
}

/// The visual width of a line's leading whitespace (a tab advances to the next multiple
/// of [`TAB_WIDTH`]), and the byte length of that whitespace.
pub(crate) fn indent_width(line: &str) -> (usize, usize) {
    let mut width = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => width += 1,
            '\t' => width += TAB_WIDTH - width % TAB_WIDTH,
            _ => return (width, i),
        }
    }
    (width, line.len())
}

/// Columns per tab when comparing indentation.
pub(crate) const TAB_WIDTH: usize = 4;

/// Whether a line is empty or whitespace only.
pub(crate) fn is_blank(line: &str) -> bool {
    trim(line).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_tier_folds_quotes_dashes_spaces() {
        assert!(line_eq(Tier::Unicode, "say \u{201C}hi\u{201D} \u{2014} now", "say \"hi\" - now"));
        assert!(line_eq(Tier::Unicode, "a\u{00A0}b\u{2026}", "a b..."));
        assert!(!line_eq(Tier::Unicode, "say 'hi'", "say \"hi\""));
    }

    #[test]
    fn prefix_tier_stops_at_a_word_boundary() {
        assert!(line_eq(Tier::Prefix, "    def name(self, x):", "def name"));
        assert!(line_eq(Tier::Prefix, "fn greet(name: &str) {", "fn greet"));
        assert!(!line_eq(Tier::Prefix, "def name_other(self):", "def name"));
        assert!(!line_eq(Tier::Prefix, "def name", "def name"), "the whole line is not a prefix match");
        assert!(!line_eq(Tier::Prefix, "fn x()", "fn"), "too short to say anything");
        assert!(line_eq(Tier::Prefix, "impl Foo for Bar {", "impl Foo"));
    }

    #[test]
    fn indent_width_expands_tabs() {
        assert_eq!(indent_width("\t  x"), (6, 3));
        assert_eq!(indent_width("  \tx"), (4, 3));
        assert_eq!(indent_width("   "), (3, 3));
    }

    #[test]
    fn tiers_compare_as_documented() {
        assert!(line_eq(Tier::TrailingWhitespace, "a  ", "a"));
        assert!(!line_eq(Tier::TrailingWhitespace, " a", "a"));
        assert!(line_eq(Tier::Trimmed, "   a\t", "a"));
    }
}
