//! An editor's side of the editor protocol: the unsaved buffers and a model's patch go in
//! one request, the new buffer contents come back, and no file on disk is touched.
//!
//! The same request, as JSON on standard input, is what `polypatch apply --stdin-json`
//! reads. Run it with `cargo run --example editor_buffers` (a built-in request), or with
//! `cargo run --example editor_buffers -- -` to answer a JSON request read on standard
//! input, as the command line does; `cargo test` runs its test.

use polypatch::editor::{self, Request, Response};

/// A patch a model wrote against the buffers: it edits one, creates a file and deletes
/// another.
const PATCH: &str = "\
*** Begin Patch
*** Update File: src/app.js
@@
 function greet(name) {
-  return 'Hello ' + name;
+  return `Hello, ${name}!`;
 }
*** Add File: src/version.js
+export const VERSION = '1.1.0';
*** Delete File: src/legacy.js
*** End Patch
";

/// The buffers as the editor holds them, unsaved changes included (`app.js` is CRLF).
fn request() -> Request {
    Request::new(PATCH)
        .with_file("src/app.js", "// unsaved edit\r\nfunction greet(name) {\r\n  return 'Hello ' + name;\r\n}\r\n")
        .with_file("src/legacy.js", "module.exports = {};\n")
}

/// Handles the request as `polypatch apply --stdin-json` would, without a root: every
/// file the patch needs is in the request.
fn run() -> Response {
    editor::handle(&request(), None)
}

fn main() {
    let response = if std::env::args().nth(1).as_deref() == Some("-") {
        let mut request = String::new();
        match std::io::Read::read_to_string(&mut std::io::stdin(), &mut request) {
            Ok(_) => editor::handle_json(&request, None),
            Err(err) => Response::usage(format!("cannot read the request: {err}")),
        }
    } else {
        run()
    };
    println!("{}", response.to_json());
}

#[cfg(test)]
mod tests {
    use polypatch::report::{Outcome, Status};

    #[test]
    fn the_buffers_come_back_patched() {
        let response = super::run();
        assert_eq!(response.document.status, Outcome::Applied);
        assert_eq!(
            response.files["src/app.js"].as_deref(),
            Some("// unsaved edit\r\nfunction greet(name) {\r\n  return `Hello, ${name}!`;\r\n}\r\n")
        );
        assert_eq!(response.files["src/version.js"].as_deref(), Some("export const VERSION = '1.1.0';\n"));
        assert_eq!(response.files["src/legacy.js"], None);
        assert_eq!(response.files.len(), 3);
        let report = response.document.report.unwrap();
        assert!(report.files.iter().all(|f| f.status == Status::Applied));
    }

    #[test]
    fn the_request_round_trips_as_json() {
        let json = serde_json::to_string(&super::request()).unwrap();
        let response = polypatch::editor::handle_json(&json, None);
        assert_eq!(response, super::run());
    }

    #[test]
    fn main_runs() {
        super::main();
    }
}
