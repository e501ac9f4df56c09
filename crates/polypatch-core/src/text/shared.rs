//! [`SharedText`]: a text that many lines share, counted like an `Arc<String>`, except
//! that the lines of a whole file can be counted in and out at once.
//!
//! Each line of a decoded file is a range of the file's one text and holds a count of it.
//! With `Arc<String>` that was one atomic increment per line when a file was split and one
//! atomic decrement per line when it was dropped: about 1 ms of the 5.5 ms it took to locate
//! and apply 50 hunks in a 100,000-line file (measured with `perf`, issue 14). Here a file's
//! lines take their counts in one atomic addition ([`SharedText::handles`]) and give them
//! back in one subtraction per run of lines ([`release_runs`]).
//!
//! One of the two modules of the workspace with `unsafe` code (with `text/newlines.rs`): the
//! count is kept by hand.
//!
//! Measured again in issue 27 against the plain safe form (`SharedText` as an `Arc<String>`,
//! one count per line): the criterion matrix binaries of both in turn, three rounds, medians
//! (a loaded 2-core machine, so wide spreads): `locate/unified/exact/100k/50` 7.5 ms here
//! against 12.2 ms (1.6x), `locate/ai-patch/exact/100k/50` 12.5 against 16.9 ms (1.36x),
//! `apply/unified/exact/100k/50` 7.8 against 15.0 ms (1.9x); the fuzzy and 1M-line rows
//! within noise. Outside noise, so the hand-kept count stays. Lines as `u32` ranges into one
//! buffer per file (no count at all, 8-byte lines) would change what a [`crate::Line`] is:
//! a line could no longer be read without its file, and `Line`/`LineText` are public and
//! used by every dialect's lowering; not tried.
//! Its tests run under Miri (`cargo +nightly miri test -p polypatch-core --lib shared`).

#![allow(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering, fence};

/// The text and the number of [`SharedText`] handles that point at it.
struct Inner {
    refs: AtomicUsize,
    text: String,
}

/// Counts past this abort the process, as `Arc` does: a count cannot be allowed to wrap.
const MAX_REFS: usize = isize::MAX as usize;

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
pub struct SharedText {
    ptr: NonNull<Inner>,
    /// Owns an `Inner` (for the drop check).
    _owns: PhantomData<Inner>,
}

// SAFETY: a `SharedText` gives shared access to a `String` (which is `Send` and `Sync`) and
// changes the count only with atomic operations, as `Arc<String>` does; `get_mut` hands out
// `&mut String` only to the one handle that exists.
unsafe impl Send for SharedText {}
// SAFETY: as above.
unsafe impl Sync for SharedText {}

impl SharedText {
    /// Shares `text`.
    pub fn new(text: String) -> SharedText {
        let inner = Box::new(Inner { refs: AtomicUsize::new(1), text });
        SharedText { ptr: NonNull::from(Box::leak(inner)), _owns: PhantomData }
    }

    fn inner(&self) -> &Inner {
        // SAFETY: `self` holds one of the counts, so the `Inner` is alive until it is
        // dropped; it is only ever freed when the count reaches zero.
        unsafe { self.ptr.as_ref() }
    }

    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.inner().text
    }

    /// Whether two handles share one text (not only equal texts).
    #[inline]
    pub fn ptr_eq(a: &SharedText, b: &SharedText) -> bool {
        a.ptr == b.ptr
    }

    /// The text to change in place, when this is its only handle.
    pub fn get_mut(&mut self) -> Option<&mut String> {
        // Acquire: every other handle's use of the text happened before it was dropped.
        if self.inner().refs.load(Ordering::Acquire) != 1 {
            return None;
        }
        // SAFETY: this is the only handle (the count is 1 and `self` is borrowed mutably,
        // so no other handle can be made from it), so no one else reads the text.
        Some(unsafe { &mut (*self.ptr.as_ptr()).text })
    }

    /// The text as a `String`: without a copy when this is its only handle.
    pub fn into_string(mut self) -> String {
        match self.get_mut() {
            Some(text) => std::mem::take(text),
            None => self.as_str().to_string(),
        }
    }

    /// Counts `n` more handles at once, handed out one by one by [`Handles::take`] (which
    /// counts `n` more at once when they run out); the ones not taken are given back when
    /// the [`Handles`] is dropped.
    pub(crate) fn handles(&self, n: usize) -> Handles<'_> {
        let n = n.max(1);
        self.add_refs(n);
        Handles { text: self, left: n, batch: n }
    }

    fn add_refs(&self, n: usize) {
        let old = self.inner().refs.fetch_add(n, Ordering::Relaxed);
        if old > MAX_REFS.saturating_sub(n) {
            std::process::abort();
        }
    }

    /// Gives back `k` counts of handles that were forgotten (`mem::forget`) by the caller;
    /// `self` keeps its own.
    fn release_forgotten(&self, k: usize) {
        if k > 0 {
            // Release: this thread's reads of the text happen before whoever frees it. The
            // count cannot reach zero here: `self` still holds one.
            self.inner().refs.fetch_sub(k, Ordering::Release);
        }
    }
}

impl Clone for SharedText {
    #[inline]
    fn clone(&self) -> SharedText {
        // Relaxed, as `Arc::clone`: a new handle is made from a live one, which keeps the
        // text alive; no other memory is published by counting.
        let old = self.inner().refs.fetch_add(1, Ordering::Relaxed);
        if old > MAX_REFS {
            std::process::abort();
        }
        SharedText { ptr: self.ptr, _owns: PhantomData }
    }
}

impl Drop for SharedText {
    #[inline]
    fn drop(&mut self) {
        if self.inner().refs.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // Acquire pairs with every other handle's Release decrement: their uses of the text
        // happen before it is freed.
        fence(Ordering::Acquire);
        // SAFETY: the count was 1 and this handle held it: no handle is left, and the
        // pointer came from `Box::leak` in `new`.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

/// Counts taken at once for handles made one by one ([`SharedText::handles`]).
pub(crate) struct Handles<'a> {
    text: &'a SharedText,
    /// Counted and not taken yet.
    left: usize,
    /// How many to count at once when they run out.
    batch: usize,
}

impl Handles<'_> {
    /// One handle, counted already (no atomic operation but one per `n` handles).
    #[inline]
    pub(crate) fn take(&mut self) -> SharedText {
        if self.left == 0 {
            self.text.add_refs(self.batch);
            self.left = self.batch;
        }
        self.left -= 1;
        SharedText { ptr: self.text.ptr, _owns: PhantomData }
    }
}

impl Drop for Handles<'_> {
    fn drop(&mut self) {
        self.text.release_forgotten(self.left);
    }
}

/// Drops many handles with one atomic subtraction per run of handles of the same text
/// (a file's lines are one run) instead of one per handle.
pub(crate) fn release_runs(handles: impl IntoIterator<Item = SharedText>) {
    let mut run: Option<(SharedText, usize)> = None;
    for h in handles {
        match &mut run {
            Some((first, k)) if SharedText::ptr_eq(first, &h) => {
                // Its count is given back with the run's.
                std::mem::forget(h);
                *k += 1;
            }
            _ => {
                if let Some((first, k)) = run.replace((h, 0)) {
                    first.release_forgotten(k);
                }
            }
        }
    }
    if let Some((first, k)) = run {
        first.release_forgotten(k);
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

    fn refs(t: &SharedText) -> usize {
        t.inner().refs.load(Ordering::SeqCst)
    }

    #[test]
    fn clones_share_one_text_and_the_last_drop_frees_it() {
        let a = SharedText::new("shared".to_string());
        let b = a.clone();
        assert!(SharedText::ptr_eq(&a, &b));
        assert_eq!(refs(&a), 2);
        assert_eq!(&*b, "shared");
        drop(a);
        assert_eq!(refs(&b), 1);
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

    #[test]
    fn handles_counted_at_once_and_released_in_runs() {
        let a = SharedText::from("a");
        let b = SharedText::from("b");
        let mut taken = Vec::new();
        {
            let mut ha = a.handles(10);
            let mut hb = b.handles(3);
            assert_eq!(refs(&a), 11);
            for _ in 0..4 {
                taken.push(ha.take());
            }
            taken.push(hb.take());
            taken.push(ha.take());
            taken.push(hb.take());
        }
        // The handles not taken were given back.
        assert_eq!((refs(&a), refs(&b)), (6, 3));
        // Runs a a a a | b | a | b, and a clone of b in the middle of nowhere.
        let extra = b.clone();
        release_runs(taken);
        assert_eq!((refs(&a), refs(&b)), (1, 2));
        drop(extra);
        assert_eq!(refs(&b), 1);
        // A run whose text has no other handle is freed by it.
        let c = SharedText::from("c");
        let mut lines = Vec::new();
        {
            let mut hc = c.handles(3);
            lines.extend((0..3).map(|_| hc.take()));
        }
        drop(c);
        assert_eq!(&*lines[2], "c");
        release_runs(lines);
        release_runs(Vec::new());
    }

    #[test]
    fn taking_more_than_counted_counts_more() {
        let a = SharedText::from("a");
        let mut taken = Vec::new();
        {
            let mut h = a.handles(2);
            taken.extend((0..5).map(|_| h.take()));
            assert_eq!(refs(&a), 7, "two batches of two, then a third: one left over");
        }
        assert_eq!(refs(&a), 6);
        release_runs(taken);
        assert_eq!(refs(&a), 1);
        let _none = a.handles(0);
        assert_eq!(refs(&a), 2, "at least one is counted");
    }

    #[test]
    fn shared_between_threads() {
        let a = SharedText::from("across");
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let mine = a.clone();
                std::thread::spawn(move || {
                    let more: Vec<SharedText> = (0..50).map(|_| mine.clone()).collect();
                    let n = more.iter().filter(|t| t.as_str() == "across").count();
                    release_runs(more);
                    n
                })
            })
            .collect();
        let seen: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(seen, 200);
        assert_eq!(refs(&a), 1);
    }
}
