//! `detect` and `extract`: what a text holds (its dialect, its patch blocks), nothing
//! located or written.

use std::io::{self, IsTerminal as _};

use serde::Serialize;

use crate::cli::{DetectArgs, ExtractArgs};
use crate::escape;
use crate::inout::{Exit, read_text, stderr, stdout};
use crate::output;

/// `detect`: the dialect a patch is written in (exit 1 when none is found); with `--json`,
/// every dialect's score.
pub fn detect(args: &DetectArgs) -> Exit {
    if args.json {
        return detect_json(args);
    }
    let text = match read_text(&args.patch) {
        Ok(text) => text,
        Err(exit) => return exit,
    };
    if let Some(dialect) = polypatch::detect(&text) {
        stdout(&format!("{}\n", dialect.name()));
        Exit::Success
    } else {
        stderr(&format!(
            "no known patch format matched (known formats: {})\n",
            polypatch::Dialects::global().names().join(", ")
        ));
        Exit::NotApplied
    }
}

/// `extract`: the blocks of a reply, as one JSON document or printed one after the other.
/// Exit 0 when there is a block, 1 when there is none.
pub fn extract(args: &ExtractArgs) -> Exit {
    let text = match read_text(&args.reply) {
        Ok(text) => text,
        Err(exit) => return exit,
    };
    let blocks = polypatch::extract(&text);
    if args.json {
        #[derive(Serialize)]
        struct Document<'a> {
            version: u32,
            blocks: Vec<Entry<'a>>,
        }
        #[derive(Serialize)]
        struct Entry<'a> {
            index: usize,
            #[serde(flatten)]
            block: &'a polypatch::extract::Block<'a>,
        }
        let blocks = blocks.iter().enumerate().map(|(i, block)| Entry { index: i + 1, block }).collect();
        stdout(&output::document(&Document { version: polypatch::report::JSON_VERSION, blocks }));
    } else {
        let mut out = String::new();
        for (i, block) in blocks.iter().enumerate() {
            let fence = block.fence.map(|f| format!(", fenced ```{f}")).unwrap_or_default();
            let lines = if block.lines.start == block.lines.end {
                format!("line {}", block.lines.start)
            } else {
                format!("lines {}-{}", block.lines.start, block.lines.end)
            };
            // A fence the reply was cut off inside (`apply` refuses it as `truncated`).
            let cut = if block.cut_off { ", cut off mid-line" } else { "" };
            let head = format!("=== block {}: {}, {lines}{fence}{cut} ===", i + 1, block.dialect);
            out.push_str(&escape::one_line(&head));
            out.push('\n');
            out.push_str(block.text);
            if !block.text.ends_with('\n') {
                out.push('\n');
            }
        }
        if io::stdout().is_terminal() {
            out = escape::terminal(&out).into_owned();
        }
        stdout(&out);
        if blocks.is_empty() {
            stderr("no patch block found\n");
        }
    }
    if blocks.is_empty() { Exit::NotApplied } else { Exit::Success }
}

/// `detect --json`: every dialect's score, highest first, and the best dialect (`null` when
/// none scores above 0; exit 1 then, as `detect` without `--json`).
fn detect_json(args: &DetectArgs) -> Exit {
    #[derive(Serialize)]
    struct Document {
        version: u32,
        dialect: Option<&'static str>,
        scores: Vec<Score>,
    }
    #[derive(Serialize)]
    struct Score {
        dialect: &'static str,
        confidence: u8,
    }
    let text = match read_text(&args.patch) {
        Ok(text) => text,
        Err(exit) => return exit,
    };
    let scores: Vec<Score> = polypatch::extract::detect_all(&text)
        .into_iter()
        .map(|(d, confidence)| Score { dialect: d.name(), confidence })
        .collect();
    let dialect = scores.first().filter(|s| s.confidence > 0).map(|s| s.dialect);
    stdout(&output::document(&Document { version: polypatch::report::JSON_VERSION, dialect, scores }));
    if dialect.is_some() { Exit::Success } else { Exit::NotApplied }
}
