//! [`SharedText`]: a text that many lines share, counted as an `Arc<String>` is.
//!
//! The lines of a patch ([`crate::LineText`]) are ranges of the patch's one text, each
//! holding a count of it. The lines of a file ([`crate::TextFile`]) hold none: they are
//! ranges the file keeps beside the one count it holds of its text, so a file of a hundred
//! thousand lines is counted once, not once per line.
//!
//! Until issue 27 the count was kept by hand with `unsafe` code, so that a file's lines
//! could take their counts in one atomic addition and give them back in one subtraction:
//! each line then held a count, and an `Arc` per line cost 1.36–1.9x on the exact rows of
//! the 100,000-line benchmarks. With the file's lines as plain ranges (no count per line)
//! the safe `Arc` does the job, and those rows are 0.72–0.82x of what they were (see
//! BENCHMARKS.md, "A file's lines as ranges").

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable text shared by the lines cut from it (a decoded file, a parsed patch),
/// freed when the last of them is dropped. It behaves like an `Arc<String>`: cloning
/// counts a reference, it reads as a `str`, and it can be sent between threads.
///
/// ```
/// use polypatch_core::{LineText, SharedText};
///
/// let patch = SharedText::new("-old\n+new\n".to_string());
/// let old = LineText::slice(&patch, 1..4);
/// assert_eq!(old, "old");
/// assert_eq!(&*patch, "-old\n+new\n");
/// ```
#[derive(Clone)]
pub struct SharedText(Arc<String>);

impl SharedText {
    /// Shares `text`.
    pub fn new(text: String) -> SharedText {
        SharedText(Arc::new(text))
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether two handles share one text (not only equal texts).
    #[inline]
    pub fn ptr_eq(a: &SharedText, b: &SharedText) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The text to change in place, when this is its only handle.
    pub fn get_mut(&mut self) -> Option<&mut String> {
        Arc::get_mut(&mut self.0)
    }

    /// The text as a `String`: without a copy when this is its only handle.
    pub fn into_string(self) -> String {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| shared.as_str().to_string())
    }
}

impl Deref for SharedText {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for SharedText {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for SharedText {
    fn from(text: String) -> SharedText {
        SharedText::new(text)
    }
}

impl From<&str> for SharedText {
    fn from(text: &str) -> SharedText {
        SharedText::new(text.to_string())
    }
}

impl PartialEq for SharedText {
    fn eq(&self, other: &SharedText) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for SharedText {}

impl fmt::Debug for SharedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Default for SharedText {
    fn default() -> SharedText {
        SharedText::new(String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_text_and_the_last_drop_frees_it() {
        let a = SharedText::new("shared".to_string());
        let b = a.clone();
        assert!(SharedText::ptr_eq(&a, &b));
        assert_eq!(&*b, "shared");
        drop(a);
        assert_eq!(b.into_string(), "shared");
        assert!(!SharedText::ptr_eq(&SharedText::from("x"), &SharedText::from("x")));
        assert_eq!(SharedText::from("x"), SharedText::from("x"));
    }

    #[test]
    fn get_mut_only_for_the_only_handle() {
        let mut a = SharedText::from("one");
        a.get_mut().unwrap().push('!');
        let b = a.clone();
        assert!(a.get_mut().is_none());
        assert_eq!(a.clone().into_string(), "one!", "a shared text is copied");
        drop(b);
        assert_eq!(a.get_mut().map(|t| t.as_str()), Some("one!"));
    }
}
