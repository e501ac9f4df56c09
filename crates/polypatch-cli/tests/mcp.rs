//! `polypatch mcp` over stdio with hand-written JSON-RPC lines: the server answers a whole
//! session (initialize, tools/list, tools/call) and exits when its input closes. The real
//! client test (the official MCP Python SDK) is `scripts/test-mcp.sh`.

use std::fs;

mod common;

/// A session with `polypatch mcp --root DIR`: initialize (id 1), then `messages`, one
/// JSON-RPC message a line; the server's replies, after it exited 0.
fn session(dir: &std::path::Path, messages: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let opening = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    let input: String = opening.iter().chain(messages).flat_map(|m| [m.to_string(), "\n".to_owned()]).collect();
    let root = dir.to_str().unwrap();
    let run = common::polypatch_with(dir, &["mcp", "--root", root], &[], Some(input.as_bytes()));
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The reply with id `id`.
fn reply(replies: &[serde_json::Value], id: u64) -> &serde_json::Value {
    replies.iter().find(|r| r["id"] == id).unwrap_or_else(|| panic!("no reply {id}: {replies:?}"))
}

#[test]
fn a_session_over_stdio_lists_the_tools_and_edits_a_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\r\ntwo\r\n").unwrap();
    let replies = session(
        dir.path(),
        &[
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "edit_file", "arguments": {"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "edit_file", "arguments": {"path": "a.txt", "edits": [{"oldText": "zzz", "newText": "2"}]}}}),
        ],
    );
    let reply = |id: u64| reply(&replies, id);
    assert_eq!(reply(1)["result"]["serverInfo"]["name"], "polypatch");
    let mut tools: Vec<&str> =
        reply(2)["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    tools.sort_unstable();
    assert_eq!(tools, ["apply_patch", "edit_file", "read_file"]);
    let edited = &reply(3)["result"];
    assert_ne!(edited["isError"], true, "{edited}");
    assert!(edited["content"][0]["text"].as_str().unwrap().contains("+2"), "{edited}");
    assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"one\r\n2\r\n", "CRLF kept");
    let failed = &reply(4)["result"];
    assert_eq!(failed["isError"], true, "{failed}");
    assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"one\r\n2\r\n", "nothing written on failure");
}

#[test]
fn a_root_that_cannot_be_opened_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::polypatch_with(dir.path(), &["mcp", "--root", "missing"], &[], Some(b""));
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: cannot open the root `missing`: "), "{}", run.stderr);
}

/// A tool call's character of U+10FF80..=U+10FFFF (the range the engine's text uses for
/// bytes that are not UTF-8) is that character: a unified diff's added line and an
/// `edit_file` new text are written as its four bytes (were the one byte 0xEE, and a
/// refusal, "not UTF-8").
#[test]
fn a_tool_calls_character_of_the_raw_byte_range_is_that_character() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    fs::write(dir.path().join("b.txt"), "one\n").unwrap();
    let diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+t\u{10ffee}o\n";
    let replies = session(
        dir.path(),
        &[
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "apply_patch", "arguments": {"patch": diff}}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "edit_file", "arguments": {"path": "b.txt", "edits": [{"oldText": "one", "newText": "\u{10ffee}"}]}}}),
        ],
    );
    let reply = |id: u64| reply(&replies, id);
    assert_ne!(reply(2)["result"]["isError"], true, "{}", reply(2));
    assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), "one\nt\u{10ffee}o\n".as_bytes());
    assert_ne!(reply(3)["result"]["isError"], true, "{}", reply(3));
    assert_eq!(fs::read(dir.path().join("b.txt")).unwrap(), "\u{10ffee}\n".as_bytes());
}
