//! A program built with one dialect and nothing else:
//!
//! ```toml
//! polypatch = { version = "0.1", default-features = false, features = ["unified"] }
//! ```
//!
//! It applies a unified diff to one file's text in memory. `cargo test -p polypatch
//! --no-default-features --features unified --example minimal_build` builds and tests it
//! that way (`.ci/run` does, and with `--features unified,disk`, which adds applying to a
//! directory); with the default features it runs the same.

fn main() {
    let diff = "--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def hi():\n-    print('hi')\n+    print('hello')\n";
    match polypatch::apply_str(diff, "greet.py", "def hi():\n    print('hi')\n") {
        Ok(text) => print!("{text}"),
        Err(err) => {
            eprintln!("greet.py: {err}");
            std::process::exit(1);
        }
    }
}

#[cfg(test)]
mod tests {
    /// A new file `b.bin` holding one NUL byte, as `git diff --binary` writes it.
    const BINARY: &str = "diff --git a/b.bin b/b.bin\nnew file mode 100644\nGIT binary patch\nliteral 1\n\
                          IcmZPo000310RR91\n\nliteral 0\nHcmV?d00001\n\n";

    #[test]
    fn a_diff_applies() {
        let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n";
        assert_eq!(polypatch::apply_str(diff, "a.txt", "one\ntwo\n").unwrap(), "one\n2\n");
        assert!(polypatch::Dialects::global().names().contains(&"unified"));
    }

    /// With the `disk` feature (`features = ["unified", "disk"]`), a diff applied to a
    /// directory: the disk commit (its journal included, which needs no `serde` feature)
    /// is in that build, and a crashed commit's journal, as every version writes it, is
    /// recovered.
    #[cfg(feature = "disk")]
    #[test]
    fn a_diff_applies_to_a_directory_and_a_crash_is_recovered() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
        let plan =
            polypatch::parse("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n", polypatch::Format::Unified)
                .unwrap();
        let mut files = polypatch::DiskFileSet::new(dir.path()).unwrap();
        polypatch::apply(&plan, &mut files, &polypatch::ApplyOptions::default()).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("a.txt")).unwrap(), "one\n2\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no journal, temporary file or backup is left");

        // A commit that created `b.txt` and crashed: recovery removes the file it created.
        std::fs::write(dir.path().join("b.txt"), "new\n").unwrap();
        std::fs::write(
            dir.path().join(".polypatch-7.journal"),
            "{\"file\":{\"path\":\"b.txt\",\"temp\":\".polypatch-7-0.new\",\"backup\":null,\
             \"new\":\"07baf267a0c0ef53ec95a82711cc4758\"}}\n",
        )
        .unwrap();
        let recovery = files.recover().unwrap();
        assert_eq!(recovery.rolled_back, [".polypatch-7.journal"], "{recovery:?}");
        assert_eq!(recovery.removed, ["b.txt"], "{recovery:?}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "b.txt and the journal are removed");
    }

    /// Without the `git-binary` feature, a binary patch is refused where it is read, and
    /// the message says which feature reads it.
    #[cfg(not(feature = "git-binary"))]
    #[test]
    fn a_binary_patch_is_refused_naming_the_feature() {
        let err = polypatch::parse(BINARY, polypatch::Format::Unified).unwrap_err();
        assert_eq!(err.kind, polypatch::unified::error::UNSUPPORTED_BINARY);
        assert_eq!(err.kind, "unsupported_binary");
        assert!(err.message.contains("lacks the `git-binary` feature"), "{}", err.message);
    }

    #[cfg(feature = "git-binary")]
    #[test]
    fn a_binary_patch_is_read() {
        let plan = polypatch::parse(BINARY, polypatch::Format::Unified).unwrap();
        assert_eq!(plan.files[0].path, "b.bin");
    }
}
