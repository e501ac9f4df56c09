//! Matching tiers: how strictly a target matched the file.

use std::fmt;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// How strictly a target matched, from strictest to loosest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Tier {
    /// Every line equal, byte for byte.
    Exact,
    /// Equal after removing trailing whitespace.
    TrailingWhitespace,
    /// Equal after one constant indentation shift (the shift is carried to new lines).
    Indentation,
    /// Equal after removing leading and trailing whitespace.
    Trimmed,
    /// Equal after removing leading and trailing whitespace, with blank lines ignored on
    /// both sides (a blank context line the patch dropped or added); the file's own blank
    /// lines are kept where the patch does not remove them.
    BlankLines,
    /// Equal after folding Unicode look-alikes (curly quotes, dashes, special spaces).
    Unicode,
    /// The file line starts with the pattern's line, up to a word boundary (`@@ def name`
    /// for `def name(self, x):`). Only for one-line anchors (Codex's `@@ <context>`).
    Prefix,
    /// Similar enough (Damerau–Levenshtein), and clearly better than any other place.
    Fuzzy,
}

impl Tier {
    /// Every tier, strictest first.
    pub const ALL: [Tier; 8] = [
        Tier::Exact,
        Tier::TrailingWhitespace,
        Tier::Indentation,
        Tier::Trimmed,
        Tier::BlankLines,
        Tier::Unicode,
        Tier::Prefix,
        Tier::Fuzzy,
    ];

    /// The stable name used in reports and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::TrailingWhitespace => "trailing_whitespace",
            Tier::Indentation => "indentation",
            Tier::Trimmed => "trimmed",
            Tier::BlankLines => "blank_lines",
            Tier::Unicode => "unicode",
            Tier::Prefix => "prefix",
            Tier::Fuzzy => "fuzzy",
        }
    }

    /// The confidence reported for a match at this tier (the fuzzy tier reports its score).
    pub fn confidence(self) -> f64 {
        match self {
            Tier::Exact => 1.0,
            Tier::TrailingWhitespace => 0.99,
            Tier::Indentation => 0.98,
            Tier::Trimmed => 0.97,
            Tier::BlankLines => 0.96,
            Tier::Unicode => 0.95,
            Tier::Prefix => 0.9,
            Tier::Fuzzy => 0.0,
        }
    }

    /// Whether the tier may match text that differs from the patch beyond whitespace.
    pub fn is_lenient(self) -> bool {
        self >= Tier::Indentation
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of allowed tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TierSet(u8);

impl TierSet {
    /// Every tier.
    pub const ALL: TierSet = TierSet(0b1111_1111);
    /// No tier at all.
    pub const EMPTY: TierSet = TierSet(0);
    /// No lenient tier beyond whitespace: exact, trailing whitespace.
    pub const STRICT_WHITESPACE: TierSet = TierSet(Tier::Exact.bit() | Tier::TrailingWhitespace.bit());

    /// The set holding one tier.
    pub const fn only(tier: Tier) -> TierSet {
        TierSet(tier.bit())
    }

    /// Every tier from `from` to `to`, inclusive.
    pub fn range(from: Tier, to: Tier) -> TierSet {
        TierSet(Tier::ALL.iter().filter(|t| **t >= from && **t <= to).fold(0, |acc, t| acc | t.bit()))
    }

    /// Whether `tier` is allowed.
    pub const fn contains(self, tier: Tier) -> bool {
        self.0 & tier.bit() != 0
    }

    /// This set with `tier` added.
    #[must_use]
    pub const fn with(self, tier: Tier) -> TierSet {
        TierSet(self.0 | tier.bit())
    }

    /// This set without `tier`.
    #[must_use]
    pub const fn without(self, tier: Tier) -> TierSet {
        TierSet(self.0 & !tier.bit())
    }

    /// The tiers in both sets.
    #[must_use]
    pub const fn intersect(self, other: TierSet) -> TierSet {
        TierSet(self.0 & other.0)
    }

    /// The tiers in this set and not in `other`.
    #[must_use]
    pub const fn difference(self, other: TierSet) -> TierSet {
        TierSet(self.0 & !other.0)
    }

    /// The allowed tiers, strictest first.
    pub fn iter(self) -> impl Iterator<Item = Tier> {
        Tier::ALL.into_iter().filter(move |t| self.contains(*t))
    }

    /// Whether no tier is allowed.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// How leniently one edit may match: its policy's tiers and fuzzy threshold after the
/// caller's overrides (`--strict` keeps only the strictest tier, `--fuzzy-threshold`
/// replaces the threshold). Every search for the edit's lines uses these.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Leniency {
    /// The tiers the edit's lines may match at, strictest first.
    pub tiers: TierSet,
    /// The strictest of them: at that tier the edit's occurrence rule applies; at lenient
    /// tiers beyond it a unique (or strictly nearest-to-hint) place is required.
    pub base: Tier,
    /// The least similarity a fuzzy match needs (0..1).
    pub threshold: f64,
}

impl Default for TierSet {
    fn default() -> Self {
        TierSet::ALL
    }
}

#[cfg(feature = "serde")]
impl Serialize for TierSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for TierSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let tiers = Vec::<Tier>::deserialize(d)?;
        Ok(tiers.into_iter().fold(TierSet::EMPTY, TierSet::with))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_and_iter() {
        let set = TierSet::range(Tier::Trimmed, Tier::Fuzzy);
        assert_eq!(
            set.iter().collect::<Vec<_>>(),
            [Tier::Trimmed, Tier::BlankLines, Tier::Unicode, Tier::Prefix, Tier::Fuzzy]
        );
        assert!(!set.contains(Tier::Exact));
        assert_eq!(TierSet::ALL.iter().count(), 8);
    }

    #[cfg(feature = "serde")]
    #[test]
    fn serde_round_trip() {
        let set = TierSet::only(Tier::Exact).with(Tier::Fuzzy);
        let json = serde_json::to_string(&set).unwrap();
        assert_eq!(json, r#"["exact","fuzzy"]"#);
        assert_eq!(serde_json::from_str::<TierSet>(&json).unwrap(), set);
    }
}
