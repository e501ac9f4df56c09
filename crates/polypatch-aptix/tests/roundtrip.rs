//! The round trip property of issue 12: random files and random edits → an Aptix bundle
//! → parse and lower → `polypatch_core::apply` on an in-memory file set → exactly the
//! target bytes, computed directly from the edits; files the bundle does not name are
//! untouched.
//!
//! Every line of an original file is unique by construction (`alpha_F_L` and `beta_F_L(`
//! name its file and line), and no new text holds `alpha_` or `beta_`, so every `find`
//! occurs exactly once whatever the edits before it changed: a whole-line find (one to
//! three lines, joined by `\n`), a deletion (whole lines with their line breaks, replaced
//! by nothing) and a mid-line find (`beta_F_L(` inside its line). The edits of a file are
//! non-overlapping and written in a random order. Files are LF or CRLF (the finds are
//! written with `\n` all the same), with or without a final newline.
//!
//! The bundle is a structured patch bundle (each file nested or flat, `limit` once, all or
//! left out) or a file bundle (each file's edits in an `"operation": "patch"` entry, plus
//! create, replace, create-or-replace without an operation, and delete entries), under
//! `root` `.` or the files' folder, compact or pretty JSON, sometimes in a ```` ```json ````
//! fence with prose around it.

use polypatch_aptix::Aptix;
use polypatch_core::{ApplyOptions, Dialect, MemoryFileSet, apply};
use proptest::prelude::*;
use serde_json::{Value, json};

/// An edit of one file, placed: lines `start..end` are involved.
#[derive(Debug, Clone)]
enum Edit {
    /// Lines `start..end` become `new` (at least one line).
    Lines { start: usize, end: usize, new: Vec<String> },
    /// Lines `start..end` are removed with their line breaks (`end` is not the last line).
    Delete { start: usize, end: usize },
    /// `beta_F_L(` in line `line` becomes `gamma_F_L_K(`.
    Mid { line: usize, k: usize },
}

/// What the bundle does to a file.
#[derive(Debug, Clone)]
enum Action {
    /// Nothing: the file must stay as it is.
    Keep,
    /// Find/replace edits (in the bundle's order), and how to write them.
    Edits { edits: Vec<Edit>, order: Vec<usize>, shape: u8, limits: Vec<u8> },
    /// A whole new content (file bundles only), with or without `"operation": "replace"`.
    Replace { content: String, explicit: bool },
    /// Delete the file (file bundles only).
    Delete,
}

#[derive(Debug, Clone)]
struct File {
    index: usize,
    lines: Vec<String>,
    crlf: bool,
    final_newline: bool,
    action: Action,
}

impl File {
    fn name(&self) -> String {
        format!("f{}.txt", self.index)
    }

    fn render(&self, lines: &[String]) -> String {
        let eol = if self.crlf { "\r\n" } else { "\n" };
        let mut out = lines.join(eol);
        if self.final_newline && !lines.is_empty() {
            out.push_str(eol);
        }
        out
    }

    fn before(&self) -> String {
        self.render(&self.lines)
    }

    /// The file after the bundle, `None` when it is deleted.
    fn target(&self) -> Option<String> {
        match &self.action {
            Action::Keep => Some(self.before()),
            Action::Delete => None,
            Action::Replace { content, .. } => Some(content.clone()),
            Action::Edits { edits, .. } => {
                let mut out: Vec<String> = Vec::new();
                let mut i = 0;
                let mut sorted: Vec<&Edit> = edits.iter().collect();
                sorted.sort_by_key(|e| start(e));
                for edit in sorted {
                    out.extend(self.lines[i..start(edit)].iter().cloned());
                    match edit {
                        Edit::Lines { end, new, .. } => {
                            out.extend(new.iter().cloned());
                            i = *end;
                        }
                        Edit::Delete { end, .. } => i = *end,
                        Edit::Mid { line, k } => {
                            let (from, to) = mid(self.index, *line, *k);
                            out.push(self.lines[*line].replace(&from, &to));
                            i = line + 1;
                        }
                    }
                }
                out.extend(self.lines[i..].iter().cloned());
                Some(self.render(&out))
            }
        }
    }

    /// An edit's `find` and `replace`, written with `\n` whatever the file's line ends.
    fn find_replace(&self, edit: &Edit) -> (String, String) {
        match edit {
            Edit::Lines { start, end, new } => (self.lines[*start..*end].join("\n"), new.join("\n")),
            Edit::Delete { start, end } => {
                (self.lines[*start..*end].iter().flat_map(|l| [l.as_str(), "\n"]).collect(), String::new())
            }
            Edit::Mid { line, k } => mid(self.index, *line, *k),
        }
    }
}

fn start(edit: &Edit) -> usize {
    match edit {
        Edit::Lines { start, .. } | Edit::Delete { start, .. } => *start,
        Edit::Mid { line, .. } => *line,
    }
}

fn mid(file: usize, line: usize, k: usize) -> (String, String) {
    (format!("beta_{file}_{line}("), format!("gamma_{file}_{line}_{k}("))
}

/// Places raw edits `(gap, kind, length, new lines)` one after another in `n` lines;
/// those that do not fit are dropped.
fn place(file: usize, n: usize, raw: &[(usize, u8, usize, Vec<String>)]) -> Vec<Edit> {
    let mut out = Vec::new();
    let mut at = 0;
    for (k, (gap, kind, len, new)) in raw.iter().enumerate() {
        let start = at + gap;
        let end = start + len;
        let edit = match kind {
            0 if end <= n => {
                Edit::Lines { start, end, new: new.iter().map(|l| format!("{l} new_{file}_{k}")).collect() }
            }
            // A deletion keeps a line after it: its find ends in a line break.
            1 if end < n => Edit::Delete { start, end },
            _ if start < n => Edit::Mid { line: start, k },
            _ => break,
        };
        at = match &edit {
            Edit::Mid { line, .. } => line + 1,
            Edit::Lines { end, .. } | Edit::Delete { end, .. } => *end,
        };
        out.push(edit);
    }
    out
}

fn word() -> impl Strategy<Value = String> {
    "[a-z]{0,6}( [a-z]{1,4})?"
}

fn content() -> impl Strategy<Value = String> {
    (prop::collection::vec(word(), 0..5), any::<bool>(), any::<bool>()).prop_map(|(lines, crlf, last)| {
        let eol = if crlf { "\r\n" } else { "\n" };
        let mut out: String = lines.iter().map(|l| format!("content {l}")).collect::<Vec<_>>().join(eol);
        if last && !out.is_empty() {
            out.push_str(eol);
        }
        out
    })
}

fn file(index: usize, file_bundle: bool) -> impl Strategy<Value = File> {
    let raw = (0usize..3, 0u8..3, 1usize..4, prop::collection::vec(word(), 1..3));
    (
        prop::collection::vec(word(), 1..25),
        any::<bool>(),
        any::<bool>(),
        0u8..if file_bundle { 5 } else { 2 },
        prop::collection::vec(raw, 1..6),
        any::<u64>(),
        0u8..3,
        prop::collection::vec(0u8..3, 6),
        content(),
    )
        .prop_map(move |(words, crlf, final_newline, what, raw, seed, shape, limits, new)| {
            let lines: Vec<String> = words
                .iter()
                .enumerate()
                .map(|(l, w)| format!("    alpha_{index}_{l} = beta_{index}_{l}({w});"))
                .collect();
            let action = match what {
                0 => Action::Keep,
                2 => Action::Replace { content: new, explicit: true },
                3 => Action::Replace { content: new, explicit: false },
                4 => Action::Delete,
                _ => {
                    let edits = place(index, lines.len(), &raw);
                    // A random order of the edits: sorted by pseudo-random keys.
                    let mut order: Vec<usize> = (0..edits.len()).collect();
                    order.sort_by_key(|&i| (seed.rotate_left(i as u32 * 7) ^ (i as u64 * 0x9e37_79b9)) % 1_000);
                    Action::Edits { edits, order, shape, limits }
                }
            };
            // A file without a single line break has no line-end convention: lines an
            // edit adds end with `\n` (the engine's choice for such a file, documented on
            // `TextFile::dominant_eol`), so the model writes it as LF.
            let crlf = crlf && (lines.len() > 1 || final_newline);
            File { index, lines, crlf, final_newline, action }
        })
}

#[derive(Debug, Clone)]
struct Case {
    file_bundle: bool,
    files: Vec<File>,
    /// New files created (file bundles only): content, and `"operation": "create"` or none.
    creates: Vec<(String, bool)>,
    /// `root` `.` (paths `src/…`) or the folder (`src`, `./src`).
    root: u8,
    pretty: bool,
    fenced: bool,
}

fn case() -> impl Strategy<Value = Case> {
    any::<bool>().prop_flat_map(|file_bundle| {
        (
            Just(file_bundle),
            (0usize..3).prop_flat_map(move |n| (0..=n).map(|i| file(i, file_bundle)).collect::<Vec<_>>()),
            prop::collection::vec((content(), any::<bool>()), if file_bundle { 0..3 } else { 0..1 }),
            0u8..3,
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(|(file_bundle, files, creates, root, pretty, fenced)| Case {
                file_bundle,
                files,
                creates,
                root,
                pretty,
                fenced,
            })
    })
}

impl Case {
    fn path(&self, name: &str) -> String {
        if self.root == 0 { format!("src/{name}") } else { name.to_owned() }
    }

    fn finds(f: &File, edits: &[Edit], order: &[usize], limits: &[u8]) -> Vec<Value> {
        order
            .iter()
            .map(|&i| {
                let (find, replace) = f.find_replace(&edits[i]);
                let mut v = json!({"find": find, "replace": replace});
                match limits[i % limits.len()] {
                    0 => {}
                    1 => v["limit"] = json!("once"),
                    _ => v["limit"] = json!("all"),
                }
                v
            })
            .collect()
    }

    /// The bundle, or `None` when it would name no file (an empty bundle is refused).
    fn bundle(&self) -> Option<String> {
        let mut entries: Vec<Value> = Vec::new();
        for f in &self.files {
            let path = self.path(&f.name());
            match &f.action {
                Action::Keep => {}
                Action::Edits { edits, .. } if edits.is_empty() => {}
                Action::Edits { edits, order, shape, limits } => {
                    let finds = Case::finds(f, edits, order, limits);
                    if self.file_bundle {
                        entries.push(json!({"path": path, "operation": "patch", "patches": finds}));
                    } else if *shape == 0 {
                        // Flat: one entry per edit.
                        for mut find in finds {
                            find["path"] = json!(path);
                            entries.push(find);
                        }
                    } else if *shape == 1 {
                        entries.push(json!({"path": path, "replacements": finds}));
                    } else {
                        // Mixed: the first edit nested, the rest flat.
                        let mut rest = finds.into_iter();
                        entries.push(json!({"path": path, "replacements": [rest.next().unwrap()]}));
                        for mut find in rest {
                            find["path"] = json!(path);
                            entries.push(find);
                        }
                    }
                }
                Action::Replace { content, explicit: true } => {
                    entries.push(json!({"path": path, "operation": "replace", "content": content}));
                }
                Action::Replace { content, explicit: false } => {
                    entries.push(json!({"path": path, "content": content}));
                }
                Action::Delete => entries.push(json!({"path": path, "operation": "delete"})),
            }
        }
        for (i, (content, explicit)) in self.creates.iter().enumerate() {
            let path = self.path(&format!("new{i}.txt"));
            entries.push(if *explicit {
                json!({"path": path, "operation": "create", "content": content})
            } else {
                json!({"path": path, "content": content})
            });
        }
        if entries.is_empty() {
            return None;
        }
        let root = [".", "src", "./src"][usize::from(self.root)];
        let key = if self.file_bundle { "files" } else { "patches" };
        let mut bundle = serde_json::Map::new();
        bundle.insert("root".to_owned(), json!(root));
        bundle.insert(key.to_owned(), Value::Array(entries));
        let bundle = Value::Object(bundle);
        let text = if self.pretty {
            serde_json::to_string_pretty(&bundle).unwrap()
        } else {
            serde_json::to_string(&bundle).unwrap()
        };
        Some(if self.fenced {
            format!("Here is the change, as asked:\n\n```json\n{text}\n```\n\nIt renames the calls.\n")
        } else {
            text
        })
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn aptix_round_trip(c in case()) {
        let Some(text) = c.bundle() else { return Ok(()) };
        let mut files = MemoryFileSet::new().with("other.txt", "untouched\r\n");
        for f in &c.files {
            files.insert(format!("src/{}", f.name()), f.before().into_bytes());
        }
        let plan = Aptix.parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let report = apply(&plan, &mut files, &ApplyOptions::default())
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(report.is_success());
        prop_assert_eq!(files.get_str("other.txt"), Some("untouched\r\n"));
        for f in &c.files {
            let path = format!("src/{}", f.name());
            prop_assert_eq!(files.get_str(&path).map(str::to_owned), f.target(), "{}\n{}", path, text);
        }
        for (i, (content, _)) in c.creates.iter().enumerate() {
            prop_assert_eq!(files.get_str(&format!("src/new{i}.txt")), Some(content.as_str()), "{}", text);
        }
        let expected = 1 + c.files.iter().filter(|f| !matches!(f.action, Action::Delete)).count() + c.creates.len();
        prop_assert_eq!(files.paths().count(), expected);
    }
}
