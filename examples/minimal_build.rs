//! A program built with one dialect and nothing else:
//!
//! ```toml
//! polypatch = { version = "0.1", default-features = false, features = ["unified"] }
//! ```
//!
//! It applies a unified diff to one file's text in memory. `cargo test -p polypatch
//! --no-default-features --features unified --example minimal_build` builds and tests it
//! that way (`.ci/run` does); with the default features it runs the same.

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
