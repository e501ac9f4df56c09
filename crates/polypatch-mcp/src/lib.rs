//! polypatch as a [Model Context Protocol](https://modelcontextprotocol.io) server over
//! stdio (`polypatch mcp --root DIR`), built on the official Rust SDK (`rmcp`).
//!
//! It serves one root: every path a tool names is resolved inside it by polypatch's own
//! file set ([`polypatch::DiskFileSet`]), so nothing outside it is read or written. Its
//! tools:
//!
//! - `apply_patch`: a patch in any dialect, or a model's whole reply with several blocks,
//!   applied as one transaction (every file or none); the report for the model as text and
//!   the JSON report (the CLI's `--json` document) as structured content. A patch that is
//!   malformed or does not apply is a tool error carrying polypatch's failure message.
//! - `edit_file`: the reference filesystem server's `edit_file` (`path`,
//!   `edits[{oldText, newText}]`, `dryRun`) and its output (a unified diff of the change),
//!   so that a client can swap servers without changing prompts; but each `oldText` must
//!   match one place, the edits apply all or none, lenient matches follow polypatch's tiers
//!   and trust rules, and CRLF, a byte order mark and the final newline are kept.
//! - `read_file`: a file's text with line numbers (optionally a range of lines) and its
//!   hash, which `apply_patch` and `edit_file` take back (`read_hashes`, `readHash`) to
//!   refuse an edit of a file that changed since it was read.
//!
//! The runtime (tokio, one thread) starts only in [`serve`]: the CLI's other verbs do not
//! pay for it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use polypatch::fs::{Entry, FileSource, FileStore as _, Overlay, ReadHash};
use polypatch::plan::{Edit, FileEdit};
use polypatch::report::ReportDocument;
use polypatch::unified::generate::DiffOptions;
use polypatch::{ApplyOptions, Dialects, DiskFileSet, EditPlan};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt as _, tool, tool_handler, tool_router};
use serde::Deserialize;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The root cannot be opened.
    #[error("cannot open the root `{}`: {source}", root.display())]
    Root {
        /// The root given.
        root: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The runtime could not start, or the connection failed.
    #[error("the MCP server failed: {0}")]
    Serve(String),
}

/// Serves `root` over stdio until the client closes the connection.
pub fn serve(root: &Path) -> Result<(), ServeError> {
    DiskFileSet::new(root).map_err(|source| ServeError::Root { root: root.to_owned(), source })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| ServeError::Serve(e.to_string()))?;
    runtime.block_on(async {
        let server = Server::new(root.to_owned());
        let service = server.serve(rmcp::transport::stdio()).await.map_err(|e| ServeError::Serve(e.to_string()))?;
        service.waiting().await.map_err(|e| ServeError::Serve(e.to_string()))?;
        Ok(())
    })
}

/// The server: one root, three tools.
#[derive(Debug, Clone)]
pub struct Server {
    root: PathBuf,
    tool_router: ToolRouter<Self>,
}

/// `apply_patch`'s input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ApplyPatchInput {
    /// The patch: a unified diff, a `*** Begin Patch` patch, SEARCH/REPLACE blocks, … or a
    /// whole reply holding several patch blocks (all are applied together).
    pub patch: String,
    /// The patch's dialect (`auto`, the default, detects it).
    #[serde(default)]
    pub format: Option<String>,
    /// Locate every edit and report, but write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// For each file the patch was written against: the `hash` `read_file` gave. A file
    /// that changed since is not edited.
    #[serde(default)]
    pub read_hashes: BTreeMap<String, String>,
}

/// One replacement of `edit_file`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditInput {
    /// The text to find: it must occur once in the file (copy it from the file, with a
    /// few lines around the change when a line alone is not unique).
    #[serde(rename = "oldText")]
    pub old_text: String,
    /// The text to put in its place.
    #[serde(rename = "newText")]
    pub new_text: String,
}

/// `edit_file`'s input: the reference filesystem server's, plus `readHash`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct EditFileInput {
    /// The file, relative to the root.
    pub path: String,
    /// The replacements, applied in order; all or none.
    pub edits: Vec<EditInput>,
    /// Show the diff, write nothing.
    #[serde(default, rename = "dryRun")]
    pub dry_run: bool,
    /// The `hash` `read_file` gave for this file: if it changed since, nothing is edited.
    #[serde(default, rename = "readHash")]
    pub read_hash: Option<String>,
}

/// `read_file`'s input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ReadFileInput {
    /// The file, relative to the root.
    pub path: String,
    /// The first line to show (1-based; default 1).
    #[serde(default)]
    pub start_line: Option<usize>,
    /// The last line to show (default: the last line of the file).
    #[serde(default)]
    pub end_line: Option<usize>,
}

/// A tool error: the text the model reads, `isError` set.
fn tool_error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// The stale-read guard's hashes as given, or the tool error naming the one malformed.
fn read_hashes<'a>(given: impl IntoIterator<Item = (&'a String, &'a String)>) -> Result<ApplyOptions, CallToolResult> {
    let mut options = ApplyOptions::default();
    for (path, hash) in given {
        let hash = ReadHash::parse(hash).map_err(|e| tool_error(format!("read hash of `{path}`: {e}")))?;
        options = options.read_hash(path.clone(), hash);
    }
    Ok(options)
}

/// The JSON report as structured content.
fn structured(document: &ReportDocument) -> serde_json::Value {
    serde_json::from_str(&document.to_json()).unwrap_or(serde_json::Value::Null)
}

#[tool_router]
impl Server {
    /// A server of `root`.
    pub fn new(root: PathBuf) -> Self {
        Server { root, tool_router: Self::tool_router() }
    }

    fn files(&self) -> Result<DiskFileSet, CallToolResult> {
        DiskFileSet::new(&self.root).map_err(|e| tool_error(format!("cannot open the root: {e}")))
    }

    #[tool(
        name = "apply_patch",
        description = "Apply a patch to the project's files as one transaction: every edit of every file, or \
                       nothing. Takes any patch format (unified diff, `*** Begin Patch` patch, SEARCH/REPLACE \
                       blocks, ...) or a whole reply with several patch blocks. Whitespace, indentation and small \
                       differences in context lines are tolerated and reported; an edit that matches several \
                       places, or whose removed lines differ from the file, is refused with the closest place \
                       and what to do. Pass `read_hashes` (from read_file) to refuse edits of files changed \
                       since you read them."
    )]
    fn apply_patch(&self, Parameters(input): Parameters<ApplyPatchInput>) -> CallToolResult {
        let mut options = match read_hashes(&input.read_hashes) {
            Ok(options) => options,
            Err(err) => return err,
        };
        options = options.dry_run(input.dry_run);
        let mut files = match self.files() {
            Ok(files) => files,
            Err(err) => return err,
        };
        let format = input.format.as_deref().unwrap_or("auto");
        let (text, document, ok) = if format == "auto" {
            let result = polypatch::apply_text(&input.patch, &mut files, &options);
            let document = ReportDocument::of_reply(&result, &input.patch);
            match result {
                Ok(report) => (report.to_string(), document, true),
                Err(err) => (failure_text(&err), document, false),
            }
        } else {
            let plan = match Dialects::global().parse(&input.patch, format) {
                Ok(plan) => plan,
                Err(err) => return tool_error(err.render(&input.patch)),
            };
            let result = polypatch::apply(&plan, &mut files, &options);
            let document = ReportDocument::of_result(&result);
            match result {
                Ok(report) => (report.to_string(), document, true),
                Err(err) => (format!("{err}\n{}", err.report), document, false),
            }
        };
        let mut result = if ok { CallToolResult::success(vec![ContentBlock::text(text)]) } else { tool_error(text) };
        result.structured_content = Some(structured(&document));
        result
    }

    #[tool(
        name = "edit_file",
        description = "Replace text in a file: each `oldText` must occur exactly once in the file (include a few \
                       surrounding lines to make it unique) and is replaced by its `newText`; the edits apply in \
                       order, all or none. Returns a git-style diff of the change. Whitespace and indentation \
                       differences are tolerated and the file's line endings are kept. `dryRun` shows the diff \
                       without writing. Pass `readHash` (from read_file) to refuse the edit if the file changed \
                       since you read it."
    )]
    fn edit_file(&self, Parameters(input): Parameters<EditFileInput>) -> CallToolResult {
        let mut options = match read_hashes(input.read_hash.as_ref().map(|h| (&input.path, h))) {
            Ok(options) => options,
            Err(err) => return err,
        };
        options = options.dry_run(true);
        if input.edits.is_empty() {
            return tool_error("`edits` is empty: give at least one {oldText, newText} pair");
        }
        let edits = input.edits.iter().map(|e| Edit::replace_text(e.old_text.clone(), e.new_text.clone())).collect();
        let plan = EditPlan::new("edit_file", vec![FileEdit::modify(input.path.clone(), edits)]);
        let mut files = match self.files() {
            Ok(files) => files,
            Err(err) => return err,
        };
        // Located once, on the bytes as read; the diff shows those bytes and the commit
        // writes what was computed from them.
        let (diff, changes, report) = {
            let once = Overlay::new(&files);
            let computed = match polypatch::compute(&plan, &once, &options) {
                Ok(computed) => computed,
                Err(err) => return tool_error(format!("{err}\n{}", err.report)),
            };
            let diff =
                match polypatch::unified::generate::diff_changes(&once, &computed.changes, &DiffOptions::default()) {
                    Ok(diff) => diff,
                    Err(err) => return tool_error(format!("cannot show the change of `{}`: {err}", input.path)),
                };
            (diff, computed.changes, computed.report)
        };
        if !input.dry_run
            && !changes.is_empty()
            && let Err(err) = files.commit(&changes)
        {
            return tool_error(format!("`{}` was not written: {err}", input.path));
        }
        let notes: Vec<String> = report
            .files
            .iter()
            .flat_map(|f| &f.edits)
            .flat_map(|e| {
                let tier = e.tier.filter(|&t| t != polypatch::report::Tier::Exact);
                let lenient =
                    tier.map(|t| format!("edit {}: found at the {t} tier (not exact); check the diff", e.index));
                lenient.into_iter().chain(e.notes.iter().map(move |note| format!("edit {}: {note}", e.index)))
            })
            .collect();
        let mut text = if diff.is_empty() {
            "No change: the file already holds the new text.\n".to_string()
        } else {
            format!("```diff\n{diff}```\n")
        };
        if !notes.is_empty() {
            let _ = write!(text, "\n{}\n", notes.join("\n"));
        }
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    #[tool(
        name = "read_file",
        description = "Read a text file of the project: its lines numbered from 1 (optionally only \
                       `start_line`..`end_line`) and its `hash`. Give the hash back to apply_patch \
                       (`read_hashes`) or edit_file (`readHash`): the edit is refused if the file changed since."
    )]
    fn read_file(&self, Parameters(input): Parameters<ReadFileInput>) -> CallToolResult {
        let files = match self.files() {
            Ok(files) => files,
            Err(err) => return err,
        };
        let path = match files.resolve(&input.path) {
            Ok(path) => path,
            Err(err) => return tool_error(format!("cannot read `{}`: {err}", input.path)),
        };
        let bytes = match files.read(&path) {
            Ok(Entry::File { bytes, .. }) => bytes,
            Ok(Entry::Missing) => return tool_error(format!("`{path}` does not exist")),
            Ok(_) => return tool_error(format!("`{path}` is not a file")),
            Err(err) => return tool_error(format!("cannot read `{path}`: {err}")),
        };
        let hash = ReadHash::of(bytes.as_bytes());
        let Ok(text) = std::str::from_utf8(bytes.as_bytes()) else {
            return tool_error(format!("`{path}` is not UTF-8 text (its hash is {hash})"));
        };
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let total = lines.len();
        let start = input.start_line.unwrap_or(1).max(1);
        let end = input.end_line.unwrap_or(total).min(total);
        let mut shown = format!("{path} (lines {start}-{end} of {total}; hash {hash})\n");
        if start <= end {
            let width = end.to_string().len();
            for (n, line) in lines[start - 1..end].iter().enumerate() {
                let line = line.strip_suffix('\n').map_or(*line, |l| l.strip_suffix('\r').unwrap_or(l));
                let _ = writeln!(shown, "{:>width$}\t{line}", start + n);
            }
        }
        let mut result = CallToolResult::success(vec![ContentBlock::text(shown)]);
        result.structured_content = Some(serde_json::json!({
            "path": path.as_str(),
            "hash": hash.to_string(),
            "lines": total,
            "start_line": start,
            "end_line": end,
        }));
        result
    }
}

/// A reply that did not apply, as the model reads it: the error and every block's report.
fn failure_text(err: &polypatch::ReplyError) -> String {
    match err {
        polypatch::ReplyError::NotApplied { report, .. } => format!("{err}\n{report}"),
        other => other.to_string(),
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("polypatch", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Edits the project's files safely: read_file shows a file with line numbers and its hash; \
                 edit_file replaces unique text; apply_patch applies a patch in any format as one transaction. \
                 Failures say where and what to do next.",
            )
    }
}
