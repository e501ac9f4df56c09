//! `detect` and `extract`: what a text holds (its dialect, its patch blocks), nothing
//! located or written.

use std::fmt::Write as _;
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
    let blocks = polypatch::extract(&text);
    if blocks.len() > 1 {
        // A reply of several blocks: each block's dialect, where it is.
        let mut out = String::new();
        for (i, block) in blocks.iter().enumerate() {
            let head = format!("block {} ({}): {}", i + 1, lines(block), block.dialect);
            let _ = writeln!(out, "{}", escape::one_line(&head));
        }
        stdout(&out);
        Exit::Success
    } else if let Some(dialect) = polypatch::detect(&text) {
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
    let mut blocks = polypatch::extract(&text);
    let mut first = 1;
    if let Some(n) = args.block {
        if n == 0 || n > blocks.len() {
            let has = match blocks.len() {
                0 => "no patch block".to_string(),
                1 => "1 block: `--block 1`".to_string(),
                count => format!("{count} blocks: `--block 1` to `--block {count}`"),
            };
            stderr(&output::usage_text(&anyhow::anyhow!("`--block {n}`: the reply has {has}")));
            return if blocks.is_empty() { Exit::NotApplied } else { Exit::Invalid };
        }
        if !args.json {
            // The block alone, ready to pipe into `apply`.
            let block = &blocks[n - 1];
            let mut out = block.content().into_owned();
            if !out.ends_with('\n') {
                out.push('\n');
            }
            if io::stdout().is_terminal() {
                out = escape::terminal(&out).into_owned();
            }
            stdout(&out);
            return Exit::Success;
        }
        blocks = vec![blocks.swap_remove(n - 1)];
        first = n;
    }
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
        let blocks = blocks.iter().enumerate().map(|(i, block)| Entry { index: i + first, block }).collect();
        stdout(&output::document(&Document { version: polypatch::report::JSON_VERSION, blocks }));
    } else {
        let mut out = String::new();
        for (i, block) in blocks.iter().enumerate() {
            let fence = block.fence.map(|f| format!(", fenced ```{f}")).unwrap_or_default();
            let lines = lines(block);
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
        /// Every patch block of a reply, with its dialect (as `extract` finds them).
        blocks: Vec<Found>,
    }
    #[derive(Serialize)]
    struct Found {
        index: usize,
        dialect: String,
        lines: polypatch::report::LineRange,
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
    let blocks = polypatch::extract(&text)
        .iter()
        .enumerate()
        .map(|(i, b)| Found { index: i + 1, dialect: b.dialect.to_string(), lines: b.lines })
        .collect();
    stdout(&output::document(&Document { version: polypatch::report::JSON_VERSION, dialect, scores, blocks }));
    if dialect.is_some() { Exit::Success } else { Exit::NotApplied }
}

/// `line 3` or `lines 3-9`: where a block is in the reply.
fn lines(block: &polypatch::extract::Block<'_>) -> String {
    if block.lines.start == block.lines.end {
        format!("line {}", block.lines.start)
    } else {
        format!("lines {}-{}", block.lines.start, block.lines.end)
    }
}
