//! Detection of `ApplyDiff` text as the parser accepts it.

use polypatch_applydiff::ApplyDiff;
use polypatch_core::Dialect;

#[test]
fn a_leading_bom_is_sniffed_like_the_parser_reads_it() {
    // The parser skips a leading BOM; detection must too, or a BOM-led patch that parses
    // with `--format applydiff` is "not a known patch format" without it.
    let text = "\u{feff}>>> file: a\n--- from\nx\n--- to\ny\n<\n";
    assert!(ApplyDiff.parse(text).is_ok());
    assert_eq!(ApplyDiff.sniff(text), 92);
    assert_eq!(ApplyDiff.sniff("\u{feff}>>> file: a\r\nx\r\n"), 40);
    // Only a leading one: a BOM inside the text is text.
    assert_eq!(ApplyDiff.sniff("prose\n\u{feff}>>> file: a\n--- from\n"), 0);
}
