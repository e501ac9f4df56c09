//! The process start on Linux with glibc: the part of Rust's standard start this program
//! relies on, without the part it pays for and does not use.
//!
//! Rust's standard start (the `main` it generates) also finds the main thread's stack guard
//! for its stack-overflow message: glibc's `pthread_getattr_np` opens `/proc/self/maps`,
//! reads it with `sscanf` and asks for the processor set: about 80 µs of a 0.95 ms small
//! `polypatch check` (BENCHMARKS.md, "Start-up without the standard start"). Here the
//! program starts at the C `main` instead
//! (`#![no_main]` in `main.rs`) and does itself what it needs of that start:
//!
//! - **Standard streams.** Any of descriptors 0, 1, 2 that is closed is opened on
//!   `/dev/null` before anything else, so that no file this program opens takes its
//!   number: a closed standard output must not make a patched file receive the report.
//! - **`SIGPIPE` is ignored**, so that writing to a closed pipe (`polypatch diff … | head`)
//!   is an error `run::stdout` passes over, and the exit code still says what happened.
//!   Children get the default again (the standard library's `Command` resets it).
//! - **A panic** still ends the process with exit code 101 and its message, not an abort.
//!
//! Left out: the standard start's message for a stack overflow. Every parser the program
//! runs has a nesting limit, so an overflow would be a bug; it ends the process by
//! `SIGSEGV` instead of `SIGABRT` with a message, and nothing is half-written either way
//! (a commit in progress is journaled and recovered by the next run). `std::env::args_os`
//! works as before: glibc hands the arguments to the standard library at load time.
#![allow(unsafe_code)]

use std::ffi::{c_char, c_int};

/// The program's entry point: the C `main`, called by glibc's start code.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    standard_streams();
    // SAFETY: setting a signal's disposition to "ignore" installs no handler code, and no
    // other thread runs yet.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    match std::panic::catch_unwind(crate::run_main) {
        Ok(code) => c_int::from(code),
        // The panic hook has printed the message; 101 is the standard start's code.
        Err(_) => 101,
    }
}

/// Opens `/dev/null` on every standard descriptor that is closed.
fn standard_streams() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd { fd, events: 0, revents: 0 });
    // SAFETY: `fds` is an array of three `pollfd` that lives across the call.
    let polled = unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) };
    if polled == -1 {
        // poll itself can fail (no memory, a sandbox that refuses it): ask one at a time.
        for fd in 0..3 {
            // SAFETY: F_GETFD reads a descriptor's flags and touches no memory.
            let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
                && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
            if closed {
                open_null();
            }
        }
        return;
    }
    for pfd in fds {
        if pfd.revents & libc::POLLNVAL != 0 {
            open_null();
        }
    }
}

/// Opens `/dev/null`, which takes the lowest closed descriptor: walked in ascending order,
/// the closed standard ones fill up in turn. Without it the program cannot run safely.
fn open_null() {
    // SAFETY: the path is a NUL-terminated string that lives across the call.
    if unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR, 0) } == -1 {
        std::process::abort();
    }
}
