use std::fs;
use std::time::SystemTime;

use super::*;
use crate::document::Outcome;

const RENAME_ONE: &str = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n";

fn status_of(response: &Response, file: usize) -> Status {
    response.document.report.as_ref().expect("a report").files[file].status
}

#[test]
fn success_answers_with_the_new_buffer() {
    let request = Request::new(RENAME_ONE).with_file("a.txt", "zero\none\ntwo\n");
    let response = handle(&request, None);
    assert_eq!(response.document.status, Outcome::Applied);
    assert_eq!(response.files.len(), 1);
    assert_eq!(response.files["a.txt"].as_deref(), Some("zero\nONE\ntwo\n"));
    assert_eq!(status_of(&response, 0), Status::Applied);
    let json: serde_json::Value = serde_json::from_str(&response.to_json()).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["files"]["a.txt"], "zero\nONE\ntwo\n");
}

#[test]
fn a_failure_gives_the_report_and_no_files() {
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-gone\n+GONE\n*** End Patch\n";
    let request = Request::new(patch).with_file("a.txt", "one\n").with_file("b.txt", "here\n");
    let response = handle(&request, None);
    assert_eq!(response.document.status, Outcome::Failed);
    assert!(response.files.is_empty());
    // a.txt was located but nothing is delivered: not `applied`.
    assert_eq!(status_of(&response, 0), Status::Located);
    assert_eq!(status_of(&response, 1), Status::Failed);
    let report = response.document.report.unwrap();
    let failure = report.files[1].edits[0].failure.as_ref().unwrap();
    assert_eq!(failure.kind, FailureKind::NotFound);
    let json: serde_json::Value =
        serde_json::from_str(&Response::without_files(ReportDocument::usage("x")).to_json()).unwrap();
    assert_eq!(json["files"], serde_json::json!({}), "files is always present");
}

#[test]
fn a_missing_file_without_a_root_fails_naming_it() {
    let response = handle(&Request::new(RENAME_ONE), None);
    assert_eq!(response.document.status, Outcome::Failed);
    assert!(response.files.is_empty());
    let report = response.document.report.unwrap();
    assert_eq!(report.files[0].path, "a.txt");
    assert_eq!(report.files[0].failure.as_ref().unwrap().kind, FailureKind::FileMissing);
}

/// Bytes and modification time of every file under `dir`.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, SystemTime)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        out.push((
            entry.file_name().to_string_lossy().into_owned(),
            fs::read(entry.path()).unwrap(),
            meta.modified().unwrap(),
        ));
    }
    out.sort();
    out
}

#[test]
fn a_missing_file_is_read_from_the_root_which_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\n").unwrap();
    fs::write(dir.path().join("b.txt"), "two\n").unwrap();
    let before = snapshot(dir.path());
    let patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-two\n+TWO\n*** Delete File: c.txt\n*** End Patch\n";
    fs::write(dir.path().join("c.txt"), "three\n").unwrap();
    let before_with_c = snapshot(dir.path());
    // b.txt's buffer differs from the disk: the buffer wins.
    let request = Request::new(patch).with_file("b.txt", "two\nunsaved\n");
    let response = handle(&request, Some(dir.path()));
    assert_eq!(response.document.status, Outcome::Applied, "{response:?}");
    assert_eq!(response.files["a.txt"].as_deref(), Some("ONE\n"));
    assert_eq!(response.files["b.txt"].as_deref(), Some("TWO\nunsaved\n"));
    assert_eq!(response.files["c.txt"], None);
    assert!(response.files.contains_key("c.txt"));
    assert_eq!(snapshot(dir.path()), before_with_c, "the root was touched");
    assert_ne!(before, before_with_c);
}

#[test]
fn a_root_that_does_not_exist_is_a_usage_error_naming_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("nope");
    let response = handle(&Request::new(RENAME_ONE), Some(&root));
    assert_eq!(response.document.status, Outcome::UsageError);
    let message = response.document.error.expect("an error").message;
    let os = std::io::Error::from_raw_os_error(2);
    assert_eq!(message, format!("cannot open the root directory `{}`: {os}", root.display()));
}

#[test]
fn a_deletion_is_null_and_a_creation_is_the_new_text() {
    let patch = "*** Begin Patch\n*** Delete File: old.txt\n*** Add File: new/file.txt\n+hello\n*** End Patch\n";
    let request = Request::new(patch).with_file("old.txt", "bye\n");
    let response = handle(&request, None);
    assert_eq!(response.document.status, Outcome::Applied);
    let json: serde_json::Value = serde_json::from_str(&response.to_json()).unwrap();
    assert_eq!(json["files"], serde_json::json!({"old.txt": null, "new/file.txt": "hello\n"}));
}

#[test]
fn crlf_buffers_keep_their_line_ends() {
    let request = Request::new(RENAME_ONE).with_file("a.txt", "zero\r\none\r\ntwo\r\n");
    let response = handle(&request, None);
    assert_eq!(response.files["a.txt"].as_deref(), Some("zero\r\nONE\r\ntwo\r\n"));
}

#[test]
fn already_applied_answers_with_no_files() {
    let request = Request::new(RENAME_ONE).with_file("a.txt", "ONE\n");
    let response = handle(&request, None);
    assert_eq!(response.document.status, Outcome::AlreadyApplied);
    assert!(response.files.is_empty());
}

#[test]
fn a_malformed_patch_and_a_malformed_request_are_refused() {
    let response = handle(&Request::new("*** Begin Patch\n*** Frob File: a\n*** End Patch\n"), None);
    assert_eq!(response.document.status, Outcome::Malformed);
    assert_eq!(response.document.error.as_ref().unwrap().line, Some(2));
    for bad in ["{", r#"{"files": {}}"#, r#"{"patch": "x", "colour": "red"}"#, r#"{"patch": 3}"#] {
        let response = handle_json(bad, None);
        assert_eq!(response.document.status, Outcome::UsageError, "{bad}");
        assert!(response.document.error.unwrap().message.starts_with("the request is not valid: "));
    }
    let response = handle(&Request::new(RENAME_ONE).format("klingon").with_file("a.txt", "one\n"), None);
    // An unknown format name is a mistake in the request, as `--format klingon` is on the
    // command line.
    assert_eq!(response.document.status, Outcome::UsageError);
    assert!(response.document.error.unwrap().message.starts_with("unknown format `klingon`; known formats: auto, "));
}

#[test]
fn buffer_paths_are_checked_and_normalized() {
    let response = handle(&Request::new(RENAME_ONE).with_file("./a.txt", "one\n"), None);
    assert_eq!(response.files["a.txt"].as_deref(), Some("ONE\n"));
    let response = handle(&Request::new(RENAME_ONE).with_file("../a.txt", "one\n"), None);
    assert_eq!(response.document.status, Outcome::UsageError);
    assert!(response.document.error.unwrap().message.contains("`../a.txt`"));
}

#[test]
fn a_result_that_is_not_text_is_refused_not_altered() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("latin1.txt"), b"caf\xe9\nold\n").unwrap();
    let before = snapshot(dir.path());
    let patch = "--- a/latin1.txt\n+++ b/latin1.txt\n@@ -2 +2 @@\n-old\n+new\n";
    let response = handle(&Request::new(patch), Some(dir.path()));
    assert_eq!(response.document.status, Outcome::Failed, "{response:?}");
    assert!(response.files.is_empty());
    let report = response.document.report.unwrap();
    assert_eq!(report.files[0].failure.as_ref().unwrap().kind, FailureKind::NotText);
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn unusual_characters_come_back_as_they_went() {
    let text = "zero\u{202e}\u{85}\none\n\u{feff}two\t\n";
    let request = Request::new(RENAME_ONE).with_file("a.txt", text);
    let response = handle_json(&serde_json::to_string(&request).unwrap(), None);
    let json: serde_json::Value = serde_json::from_str(&response.to_json()).unwrap();
    assert_eq!(json["files"]["a.txt"], "zero\u{202e}\u{85}\nONE\n\u{feff}two\t\n");
}

/// The request's character of U+10FF80..=U+10FFFF (the range the engine's text uses for
/// bytes that are not UTF-8) in a unified diff is that character in the new text (the
/// diff wrote the byte 0xEE before, and the response had no text for the file).
#[test]
fn a_request_character_of_the_raw_byte_range_is_that_character() {
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+t\u{10ffee}o\n";
    let response = handle(&Request::new(diff).with_file("a.txt", "one\ntwo\n"), None);
    assert_eq!(response.files["a.txt"].as_deref(), Some("one\nt\u{10ffee}o\n"), "{response:?}");
}
