//! `apply --stdin-json`: the editor protocol over standard input and output.

use std::io::{self, Read};
use std::path::Path;

use polypatch::editor::{self, Response};
use polypatch::report::Outcome;

use crate::escape;
use crate::inout::{Exit, stdout};

/// Reads one request on standard input, handles it with [`polypatch::editor`] (nothing
/// written), prints the response on one line; the exit code follows its status.
pub fn run(root: Option<&Path>) -> Exit {
    let mut bytes = Vec::new();
    let response = match io::stdin().lock().read_to_end(&mut bytes) {
        Err(err) => Response::usage(format!("cannot read the request from standard input: {err}")),
        Ok(_) => match String::from_utf8(bytes) {
            Ok(text) => editor::handle_json(&text, root),
            Err(err) => Response::usage(format!(
                "the request is not UTF-8 text (invalid byte at offset {})",
                err.utf8_error().valid_up_to()
            )),
        },
    };
    stdout(&format!("{}\n", escape::json(&response.to_json())));
    exit_code(&response)
}

/// 0 applied or already applied, 1 not applied, 2 a malformed patch or request.
fn exit_code(response: &Response) -> Exit {
    match response.document.status {
        Outcome::Applied | Outcome::AlreadyApplied | Outcome::DryRun => Exit::Success,
        Outcome::Failed => Exit::NotApplied,
        _ => Exit::Invalid,
    }
}
