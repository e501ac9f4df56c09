//! What the benchmarks share: a deterministic generator, so that inputs need no
//! dependency and runs compare, and the generated Rust-like source the engine benchmarks
//! edit.

#![allow(dead_code, reason = "each benchmark uses a part")]

/// A small deterministic generator (xorshift64*), so the inputs need no dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const NOUNS: &[&str] = &[
    "account", "buffer", "cache", "config", "cursor", "entry", "event", "frame", "handle", "index", "item", "key",
    "layer", "limit", "node", "offset", "packet", "queue", "record", "request", "result", "route", "scope", "session",
    "shard", "signal", "slot", "state", "stream", "table", "token", "value", "window", "worker",
];
const VERBS: &[&str] = &[
    "apply", "build", "check", "collect", "decode", "drain", "encode", "fetch", "flush", "load", "merge", "parse",
    "prepare", "read", "refresh", "render", "resolve", "scan", "split", "store", "update", "validate", "write",
];
const TYPES: &[&str] = &["u32", "u64", "usize", "i64", "String", "Vec<u8>", "bool", "Option<u32>"];

/// Rust-like source of exactly `lines` lines: functions with varied statements, and the
/// repetition real code has (`}`, blank lines, `Ok(())`, `let mut out = Vec::new();`).
pub fn source_lines(lines: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(lines + 64);
    let mut n = 0usize;
    while out.len() < lines {
        n += 1;
        let (verb, noun) = (rng.pick(VERBS), rng.pick(NOUNS));
        out.push(format!("/// {verb}s the {noun} for step {n}."));
        out.push(format!(
            "pub fn {verb}_{noun}_{n}(input: &[{}], limit: usize) -> Result<{}, Error> {{",
            rng.pick(TYPES),
            rng.pick(TYPES)
        ));
        out.push("    let mut out = Vec::new();".to_string());
        for _ in 0..3 + rng.below(8) {
            let (a, b, c) = (rng.pick(NOUNS), rng.pick(NOUNS), rng.pick(VERBS));
            match rng.below(6) {
                0 => out.push(format!("    let {a}_{b} = {c}_{a}(input, {})?;", rng.below(1000))),
                1 => {
                    out.push(format!("    if {a}.len() > limit + {} {{", rng.below(64)));
                    out.push(format!("        return Err(Error::{}({a}.len()));", capitalize(b)));
                    out.push("    }".to_string());
                }
                2 => {
                    out.push(format!("    for {a} in input.iter().skip({}) {{", rng.below(16)));
                    out.push(format!("        out.push({c}_{b}(*{a}, {}));", rng.below(512)));
                    out.push("    }".to_string());
                }
                3 => out.push(String::new()),
                4 => out.push(format!("    // {c} the {a} before the {b} is read ({})", rng.below(10_000))),
                _ => out.push(format!("    out.extend({a}.{c}_{b}().take({}));", rng.below(256))),
            }
        }
        out.push("    Ok(out)".to_string());
        out.push("}".to_string());
        out.push(String::new());
    }
    out.truncate(lines);
    out
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

pub fn join(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// One-character typo: the first ASCII letter after the indentation is replaced by another.
pub fn typo(line: &str) -> String {
    let at = line.find(|c: char| c.is_ascii_lowercase()).expect("a line with a letter");
    let c = line.as_bytes()[at];
    let replacement = if c == b'z' { 'y' } else { char::from(c + 1) };
    format!("{}{replacement}{}", &line[..at], &line[at + 1..])
}

/// For `hunks` hunks spread evenly over `lines`, the line each one changes: the first
/// statement at or after the middle of its slot that is unique to its function (a `let`
/// naming its own variables and numbers) and has `context` lines around it.
pub fn statement_slots(lines: &[String], hunks: usize, context: usize) -> Vec<usize> {
    let stride = lines.len() / hunks;
    (0..hunks)
        .map(|h| {
            let start = h * stride + stride / 2;
            (start..start + stride / 2)
                .find(|&i| {
                    i >= context
                        && i + context < lines.len()
                        && lines[i].starts_with("    let ")
                        && !lines[i].contains("mut out")
                })
                .expect("a statement in every slot")
        })
        .collect()
}
