//! The dialects in use: the built-in ones, and a user's own.

use std::fmt;
use std::sync::{Arc, OnceLock};

#[cfg(feature = "convert")]
use crate::convert::{ConvertError, ConvertOptions, Converted, Input};
use crate::extract::Block;
use crate::reply::{PlannedBlock, ReplyError, ReplyReport};
use crate::{ApplyOptions, Dialect, EditPlan, Format, ParseOptions, PatchError};
#[cfg(feature = "convert")]
use polypatch_core::FileSource;
use polypatch_core::{ErrorKind, FileStore};

/// Every dialect compiled in, in the order [`Dialects::detect`] prefers them on a tie:
/// the one list a new built-in dialect joins (behind its cargo feature).
fn compiled_in() -> Vec<&'static dyn Dialect> {
    vec![
        #[cfg(feature = "ai-patch")]
        &polypatch_aipatch::AiPatch,
        #[cfg(feature = "unified")]
        &polypatch_unified::Unified,
        #[cfg(feature = "ap")]
        &polypatch_ap::Ap,
        #[cfg(feature = "applydiff")]
        &polypatch_applydiff::ApplyDiff,
        #[cfg(feature = "aptix")]
        &polypatch_aptix::Aptix,
        #[cfg(feature = "search-replace")]
        &polypatch_search_replace::SearchReplace,
        #[cfg(feature = "tool-call")]
        &polypatch_toolcall::ToolCall,
        #[cfg(feature = "lazy")]
        &polypatch_lazy::Lazy,
    ]
}

/// The dialects in use, in the order [`Dialects::detect`] prefers them on a tie: what
/// detecting, extracting, parsing, applying a reply and converting know.
///
/// [`Dialects::builtin`] (also [`Default`]) holds the dialects compiled in (their cargo
/// features); the free functions ([`crate::detect`], [`crate::extract()`],
/// [`crate::parse`], [`crate::apply_text`], [`crate::convert::convert()`], …) use those. Add a
/// dialect of your own with [`Dialects::with`]: it takes part in everything the registry
/// does, and [`Dialect::bare_block`] tells the extractor where its blocks written outside
/// a fence end. `examples/custom_dialect.rs` adds a small `sed`-like one.
///
/// ```
/// use polypatch::{ApplyOptions, Dialect, Dialects, EditPlan, MemoryFileSet, PatchError};
///
/// /// `DELETE path` lines: each deletes a file.
/// struct Deletions;
///
/// impl Dialect for Deletions {
///     fn name(&self) -> &'static str {
///         "deletions"
///     }
///     fn sniff(&self, text: &str) -> u8 {
///         if text.lines().next().is_some_and(|l| l.starts_with("DELETE ")) { 70 } else { 0 }
///     }
///     fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
///         let files = text.lines().filter_map(|l| l.strip_prefix("DELETE ")).map(polypatch::plan::FileEdit::delete);
///         Ok(EditPlan::new("deletions", files.collect()))
///     }
/// }
///
/// let dialects = Dialects::builtin().with(Deletions);
/// assert_eq!(dialects.detect("DELETE old.txt\n").map(Dialect::name), Some("deletions"));
/// // The built-in dialects are still there, in front.
/// assert_eq!(dialects.names()[0], "ai-patch");
/// assert!(polypatch::detect("DELETE old.txt\n").is_none()); // the free functions know the built-in ones
///
/// let mut files = MemoryFileSet::new().with("old.txt", "bye\n").with("keep.txt", "hi\n");
/// let reply = "Remove it:\n\n```\nDELETE old.txt\n```\n";
/// let report = dialects.apply_text(reply, &mut files, &ApplyOptions::default()).unwrap();
/// assert_eq!(report.blocks[0].block.dialect, "deletions");
/// assert_eq!(files.get_str("old.txt"), None);
/// ```
#[derive(Clone)]
pub struct Dialects {
    list: Vec<Entry>,
}

impl Dialects {
    /// No dialect at all: add the ones to use with [`Dialects::with`].
    pub fn new() -> Self {
        Dialects { list: Vec::new() }
    }

    /// Every dialect compiled in (their cargo features), in order of preference.
    pub fn builtin() -> Self {
        Dialects { list: compiled_in().into_iter().map(Entry::Static).collect() }
    }

    /// The built-in registry ([`Dialects::builtin`]), made once and shared: what the free
    /// functions use. Look a dialect up by name, list the names, or detect with it without
    /// building a registry of your own.
    ///
    /// ```
    /// use polypatch::Dialects;
    ///
    /// assert_eq!(Dialects::global().names(), ["ai-patch", "unified", "ap", "applydiff", "aptix", "search-replace", "tool-call", "lazy"]);
    /// let plan = Dialects::global().get("ai-patch").unwrap().parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\n").unwrap();
    /// assert_eq!(plan.files[0].path, "a");
    /// assert!(Dialects::global().get("yaml").is_none());
    /// ```
    pub fn global() -> &'static Dialects {
        static GLOBAL: OnceLock<Dialects> = OnceLock::new();
        GLOBAL.get_or_init(Dialects::builtin)
    }

    /// Builder: `dialect` added last (the least preferred on a tie), or in the place of
    /// the dialect of the same name.
    #[must_use]
    pub fn with(mut self, dialect: impl Dialect + 'static) -> Self {
        self.push(dialect);
        self
    }

    /// Adds `dialect` last (the least preferred on a tie), or in the place of the dialect
    /// of the same name.
    pub fn push(&mut self, dialect: impl Dialect + 'static) {
        self.push_shared(Arc::new(dialect));
    }

    /// [`Dialects::push`] for a dialect shared with other registries or threads.
    pub fn push_shared(&mut self, dialect: Arc<dyn Dialect>) {
        match self.list.iter_mut().find(|d| d.get().name() == dialect.name()) {
            Some(same) => *same = Entry::Shared(dialect),
            None => self.list.push(Entry::Shared(dialect)),
        }
    }

    /// Every dialect, in order of preference.
    pub fn iter(&self) -> impl Iterator<Item = &dyn Dialect> {
        self.list.iter().map(Entry::get)
    }

    /// How many dialects there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Their names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.iter().map(Dialect::name).collect()
    }

    /// The dialect called `name`, or known by it: its name or one of its
    /// [`Dialect::aliases`], case-insensitively (`codex` and `AiPatch` for AI-PATCH, `git`
    /// and `patch` for a unified diff). A dialect's own name wins over another's alias.
    ///
    /// ```
    /// use polypatch::Dialects;
    ///
    /// let dialects = Dialects::global();
    /// assert_eq!(dialects.get("Codex").map(|d| d.name()), Some("ai-patch"));
    /// assert_eq!(dialects.get("git").map(|d| d.name()), Some("unified"));
    /// assert_eq!(dialects.get("aider").map(|d| d.name()), Some("search-replace"));
    /// ```
    pub fn get(&self, name: &str) -> Option<&dyn Dialect> {
        self.iter().find(|d| d.name() == name).or_else(|| {
            let known = |known: &str| known.eq_ignore_ascii_case(name);
            self.iter()
                .find(|d| known(d.name()))
                .or_else(|| self.iter().find(|d| d.aliases().iter().any(|alias| known(alias))))
        })
    }

    /// The dialect `text` most looks like (the highest [`Dialect::sniff`] score above 0;
    /// on a tie, the first), as [`crate::detect`].
    pub fn detect(&self, text: &str) -> Option<&dyn Dialect> {
        let mut best: Option<(&dyn Dialect, u8)> = None;
        for d in self.iter() {
            let score = d.sniff(text);
            if score > 0 && best.is_none_or(|(_, b)| score > b) {
                best = Some((d, score));
            }
        }
        best.map(|(d, _)| d)
    }

    /// Every dialect with its sniff score of `text`, highest first (on a tie, in order), as
    /// [`crate::extract::detect_all`].
    pub fn detect_all(&self, text: &str) -> Vec<(&dyn Dialect, u8)> {
        let mut scores: Vec<_> = self.iter().map(|d| (d, d.sniff(text))).collect();
        scores.sort_by_key(|s| std::cmp::Reverse(s.1));
        scores
    }

    /// Every patch block of these dialects in `reply`, as [`crate::extract()`].
    pub fn extract<'a>(&self, reply: &'a str) -> Vec<Block<'a>> {
        crate::extract::extract_in(self, reply)
    }

    /// Parses `text` as the dialect called `dialect`, or as the one it is detected as for
    /// `"auto"`, as [`crate::parse`].
    pub fn parse(&self, text: &str, dialect: &str) -> Result<EditPlan, PatchError> {
        self.parse_with(text, dialect, &ParseOptions::default())
    }

    /// [`Dialects::parse`] with options, as [`crate::parse_with`] (a text cut off inside a
    /// fence that never closes is refused as [`ErrorKind::TRUNCATED`]).
    pub fn parse_with(&self, text: &str, dialect: &str, options: &ParseOptions) -> Result<EditPlan, PatchError> {
        let unknown = |message: String| PatchError::new("polypatch", ErrorKind::UNKNOWN_FORMAT, message, None);
        let found = if dialect == Format::Auto.name() {
            self.detect(text).ok_or_else(|| {
                unknown(format!(
                    "the text does not look like any known patch format ({}); name the format",
                    self.names().join(", ")
                ))
            })?
        } else {
            self.get(dialect).ok_or_else(|| {
                let names = self.names().join(", ");
                unknown(match dialect.parse::<Format>() {
                    Ok(format) if format.dialect().is_none() => format!(
                        "the `{dialect}` format is not compiled in (cargo feature `{dialect}`); compiled in: {names}"
                    ),
                    _ => format!("no dialect is called `{dialect}`; known: {names}"),
                })
            })?
        };
        // A text that stops mid-line inside a fence that never closes (a chat reply cut
        // off by an output limit) is refused whatever the dialect makes of it: its last
        // line is half a line. Only such a text is searched for fences.
        if crate::engine::cut_off_line(text).is_some()
            && let Some(error) = self.extract(text).last().and_then(|b| crate::reply::cut_off(text, b, found.name()))
        {
            return Err(error.with_source(text));
        }
        // The dialect's errors know their text; a dialect of the caller's may not say so.
        found.parse_with(text, options).map_err(|e| e.with_source(text))
    }

    /// Finds every block of `reply` and parses each with its dialect, as
    /// [`crate::reply::plan_reply`].
    pub fn plan_reply(&self, reply: &str, options: &ParseOptions) -> Result<Vec<PlannedBlock>, ReplyError> {
        crate::reply::plan_reply_in(self, reply, options)
    }

    /// Applies every patch block of `reply` as one transaction, as [`crate::apply_text`].
    pub fn apply_text<S: FileStore + ?Sized>(
        &self,
        reply: &str,
        files: &mut S,
        options: &ApplyOptions,
    ) -> Result<ReplyReport, ReplyError> {
        self.apply_text_with(reply, files, options, &ParseOptions::default())
    }

    /// [`Dialects::apply_text`] with parse options, as [`crate::reply::apply_text_with`].
    pub fn apply_text_with<S: FileStore + ?Sized>(
        &self,
        reply: &str,
        files: &mut S,
        options: &ApplyOptions,
        parse: &ParseOptions,
    ) -> Result<ReplyReport, ReplyError> {
        let blocks = self.plan_reply(reply, parse)?;
        crate::reply::apply_blocks(&blocks, files, options)
    }

    /// Converts `input` into the dialect called `to` (written by its
    /// [`Dialect::render`]), resolved against `files`, as [`crate::convert::convert()`]: a text
    /// input is parsed with these dialects (its [`Format`] names one of them, or
    /// [`Format::Auto`] detects it among them), and the result is checked with them.
    #[cfg(feature = "convert")]
    #[cfg_attr(docsrs, doc(cfg(feature = "convert")))]
    pub fn convert<'a, S: FileSource + ?Sized>(
        &self,
        input: impl Into<Input<'a>>,
        files: &S,
        to: &str,
        options: &ConvertOptions,
    ) -> Result<Converted, ConvertError> {
        crate::convert::convert_in(self, input.into(), files, to, options)
    }
}

impl Default for Dialects {
    /// [`Dialects::builtin`].
    fn default() -> Self {
        Dialects::builtin()
    }
}

impl fmt::Debug for Dialects {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Dialects").field(&self.names()).finish()
    }
}

/// A dialect in a registry: a built-in one (a `'static` value) or a user's.
#[derive(Clone)]
enum Entry {
    Static(&'static dyn Dialect),
    Shared(Arc<dyn Dialect>),
}

impl Entry {
    fn get(&self) -> &dyn Dialect {
        match self {
            Entry::Static(d) => *d,
            Entry::Shared(d) => &**d,
        }
    }
}

#[cfg(all(test, feature = "ai-patch", feature = "unified", feature = "ap", feature = "applydiff", feature = "aptix"))]
mod tests {
    use super::*;
    use crate::MemoryFileSet;
    use crate::engine::ReplyLines;
    use polypatch_core::FileEdit;

    /// `DEL path` lines, each deleting a file; bare blocks are runs of such lines. With
    /// `ignore_failed`, it reads its candidates again inside failed ones.
    struct Del {
        name: &'static str,
        score: u8,
    }

    impl Dialect for Del {
        fn name(&self) -> &'static str {
            self.name
        }
        fn sniff(&self, text: &str) -> u8 {
            let mut lines = text.lines().filter(|l| !l.is_empty()).peekable();
            if lines.peek().is_some() && lines.all(|l| l.starts_with("DEL ")) { self.score } else { 0 }
        }
        fn parse(&self, text: &str) -> Result<EditPlan, PatchError> {
            let files = text.lines().filter_map(|l| l.strip_prefix("DEL ")).map(FileEdit::delete).collect();
            Ok(EditPlan::new(self.name, files))
        }
        fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, to: usize, _failed: usize) -> Option<usize> {
            lines
                .line(at)
                .starts_with("DEL ")
                .then(|| (at..to).find(|&j| !lines.line(j).starts_with("DEL ")).unwrap_or(to))
        }
    }

    const DEL: Del = Del { name: "del", score: 70 };
    const REPLY: &str = "Remove them:\n\nDEL a.txt\nDEL b.txt\n\nThen:\n```\nDEL c.txt\n```\n";

    #[test]
    fn a_users_dialect_takes_part_in_detect_extract_parse_and_apply() {
        let dialects = Dialects::builtin().with(DEL);
        assert_eq!(dialects.names(), [crate::Dialects::global().names(), vec!["del"]].concat());
        assert_eq!(dialects.detect("DEL a.txt\n").map(Dialect::name), Some("del"));
        assert_eq!(dialects.detect_all("DEL a.txt\n")[0].0.name(), "del");
        let blocks = dialects.extract(REPLY);
        let found: Vec<_> = blocks.iter().map(|b| (b.dialect.as_str(), b.text, b.fence)).collect();
        assert_eq!(found, [("del", "DEL a.txt\nDEL b.txt\n", None), ("del", "DEL c.txt\n", Some(""))]);
        // The built-in registry knows none of it.
        assert!(crate::extract(REPLY).is_empty());
        assert!(crate::detect("DEL a.txt\n").is_none());
        assert_eq!(dialects.parse("DEL a.txt\n", "auto").unwrap().dialect, "del");
        assert_eq!(dialects.parse("DEL a.txt\n", "del").unwrap().files[0].path, "a.txt");
        let mut files = MemoryFileSet::new().with("a.txt", "a").with("b.txt", "b").with("c.txt", "c").with("d", "d");
        let report = dialects.apply_text(REPLY, &mut files, &ApplyOptions::default()).unwrap();
        assert_eq!(report.blocks.len(), 2);
        assert_eq!(files.paths().collect::<Vec<_>>(), ["d"]);
    }

    #[test]
    fn the_default_registry_is_the_free_functions() {
        let dialects = Dialects::default();
        assert_eq!(dialects.names(), crate::Dialects::global().names());
        let reply =
            "```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```\n*** Begin Patch\n*** Delete File: y\n*** End Patch\n";
        assert_eq!(dialects.extract(reply), crate::extract(reply));
        for text in ["hello\n", reply] {
            let ours = dialects.parse(text, "auto").map_err(|e| e.to_string());
            assert_eq!(ours, crate::parse(text, Format::Auto).map_err(|e| e.to_string()));
        }
        assert!(Dialects::new().is_empty());
        assert!(Dialects::new().extract(reply).is_empty());
    }

    #[test]
    fn a_dialect_of_the_same_name_takes_the_place_of_the_first() {
        let dialects = Dialects::builtin().with(Del { name: "unified", score: 100 });
        assert_eq!(dialects.names(), crate::Dialects::global().names());
        assert_eq!(dialects.get("unified").unwrap().sniff("DEL x\n"), 100);
        assert_eq!(dialects.get("unified").unwrap().sniff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"), 0);
    }

    #[test]
    fn unknown_names_say_what_the_registry_holds() {
        let dialects = Dialects::new().with(DEL);
        let err = dialects.parse("DEL a\n", "sed").unwrap_err();
        assert_eq!(err.kind, ErrorKind::UNKNOWN_FORMAT);
        assert_eq!(err.message, "no dialect is called `sed`; known: del");
        let err = dialects.parse("hello\n", "auto").unwrap_err();
        assert_eq!(err.message, "the text does not look like any known patch format (del); name the format");
        // A built-in dialect that is compiled in but not in this registry is unknown to it.
        let err = dialects.parse("*** Begin Patch\n*** Delete File: a\n*** End Patch\n", "ai-patch").unwrap_err();
        assert_eq!(err.message, "no dialect is called `ai-patch`; known: del");
    }

    /// A dialect whose `bare_block` answers nonsense (an empty block, one past the lines
    /// given) makes the scan neither panic nor overlap.
    struct Wild;

    impl Dialect for Wild {
        fn name(&self) -> &'static str {
            "wild"
        }
        fn sniff(&self, text: &str) -> u8 {
            if text.contains("WILD") { 50 } else { 0 }
        }
        fn parse(&self, _: &str) -> Result<EditPlan, PatchError> {
            Ok(EditPlan::new("wild", Vec::new()))
        }
        fn bare_block(&self, lines: &ReplyLines<'_>, at: usize, _to: usize, _failed: usize) -> Option<usize> {
            match lines.line(at) {
                "WILD empty" => Some(at),
                "WILD far" => Some(usize::MAX),
                _ => None,
            }
        }
    }

    #[test]
    fn a_bare_block_out_of_bounds_is_clamped_or_skipped() {
        let dialects = Dialects::new().with(Wild);
        let reply = "```\nWILD far\nmore\n```\nWILD empty\nWILD far\ntail\n";
        let blocks = dialects.extract(reply);
        let found: Vec<_> = blocks.iter().map(|b| (b.text, b.fence)).collect();
        // Inside the fence, the block stops at the fence's end; outside, at the reply's.
        assert_eq!(found, [("WILD far\nmore\n", Some("")), ("WILD far\ntail\n", None)]);
    }

    /// The free functions' registry holds the dialects' fence tags, and a block fenced
    /// with its dialect's first tag is that dialect: the tags a writer uses are ones the
    /// extractor reads back.
    #[test]
    fn each_dialect_fenced_with_its_first_tag_is_extracted_as_itself() {
        let patches = [
            ("ai-patch", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n"),
            ("unified", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"),
            (
                "ap",
                "version: \"2.0\"\nchanges:\n  - file_path: a\n    modifications:\n      - action: replace\n        target:\n          search: \"a\"\n        content: \"b\"\n",
            ),
            ("applydiff", ">>> file: a\n--- from\na\n--- to\nb\n<\n"),
            ("aptix", "{\"root\": \".\", \"files\": [{\"path\": \"a\", \"content\": \"b\"}]}\n"),
        ];
        for (name, patch) in patches {
            let dialect = crate::Dialects::global().get(name).unwrap();
            let tag = dialect.fence_tags()[0];
            let reply = format!("Here:\n```{tag}\n{patch}```\n");
            let blocks = crate::extract(&reply);
            assert_eq!(blocks.iter().map(|b| (b.dialect.as_str(), b.fence)).collect::<Vec<_>>(), [(name, Some(tag))]);
        }
    }
}
