//! Links the unwinder (`libgcc_eh.a`) into the `polypatch` binary on Linux with glibc,
//! so that the process does not load `libgcc_s.so.1` at every start.
//!
//! A run of `polypatch` is often a few milliseconds, and loading that one shared library
//! (opening and mapping it, resolving its symbols, running its constructor, which probes
//! the processor) is a measurable part of it (BENCHMARKS.md, "Start-up and small edits").
//! The static unwinder is the one `-C target-feature=+crt-static` builds use; unwinding,
//! `catch_unwind` and backtraces work the same. The archive comes first among the
//! binary's native libraries, so with the release profile's LTO (every crate, `std`
//! included, in one object) it provides the unwinder and the linker, which keeps only
//! needed libraries, drops `libgcc_s`. Where the archive is not found (another toolchain,
//! a cross build), nothing changes: the binary links `libgcc_s` as before.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTC_LINKER");
    let var = |name: &str| env::var(name).unwrap_or_default();
    let crt_static = var("CARGO_CFG_TARGET_FEATURE").split(',').any(|f| f == "crt-static");
    // The linker asked below is the host's: only a native build can use its answer.
    let native = var("TARGET") == var("HOST");
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" || crt_static || !native {
        return;
    }
    let linker = env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let Ok(out) = Command::new(&linker).arg("-print-file-name=libgcc_eh.a").output() else { return };
    // A compiler that does not know the file prints its bare name back.
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !out.status.success() || !path.is_absolute() || !path.is_file() {
        return;
    }
    if let Some(dir) = path.parent() {
        println!("cargo::rustc-link-search=native={}", dir.display());
        println!("cargo::rustc-link-lib=static:-bundle=gcc_eh");
    }
}
