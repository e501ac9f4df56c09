//! polypatch as a [Model Context Protocol](https://modelcontextprotocol.io) server over
//! stdio (`polypatch mcp --root DIR`), built on the official Rust SDK (`rmcp`).
//!
//! It serves the root given on the command line and, when the client announces the
//! `roots` capability, the client's roots too (asked for once the client is initialized
//! and again on each `notifications/roots/list_changed`). Every path a tool names is
//! resolved inside one of them by polypatch's own file set ([`polypatch::DiskFileSet`]), so
//! nothing outside them is read or written. A tool works in the command line's root unless
//! its `root` argument names another served root, or (`edit_file`, `read_file`) its `path`
//! is absolute and inside one. Its tools:
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
use std::sync::{Arc, RwLock};

use polypatch::fs::{Entry, FileSource, FileStore as _, Overlay, ReadHash};
use polypatch::plan::{Edit, FileEdit};
use polypatch::report::ReportDocument;
use polypatch::unified::generate::DiffOptions;
use polypatch::{ApplyOptions, Dialects, DiskFileSet, EditPlan};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::{NotificationContext, Peer, RoleServer};
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

/// The server: the command line's root, the client's roots, three tools.
#[derive(Debug, Clone)]
pub struct Server {
    root: PathBuf,
    /// The client's roots (folders, canonical), as it last listed them.
    client_roots: Arc<RwLock<Vec<PathBuf>>>,
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
    /// The folder the patch's paths are relative to: one of the client's roots (a path or a
    /// `file://` URI). Default: the server's root.
    #[serde(default)]
    pub root: Option<String>,
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
    /// The file, relative to the root (or absolute, inside one of the served roots).
    pub path: String,
    /// The replacements, applied in order; all or none.
    pub edits: Vec<EditInput>,
    /// Show the diff, write nothing.
    #[serde(default, rename = "dryRun")]
    pub dry_run: bool,
    /// The `hash` `read_file` gave for this file: if it changed since, nothing is edited.
    #[serde(default, rename = "readHash")]
    pub read_hash: Option<String>,
    /// The folder `path` is relative to: one of the client's roots (a path or a `file://`
    /// URI). Default: the server's root, or the root an absolute `path` is in.
    #[serde(default)]
    pub root: Option<String>,
}

/// `read_file`'s input.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct ReadFileInput {
    /// The file, relative to the root (or absolute, inside one of the served roots).
    pub path: String,
    /// The first line to show (1-based; default 1).
    #[serde(default)]
    pub start_line: Option<usize>,
    /// The last line to show (default: the last line of the file).
    #[serde(default)]
    pub end_line: Option<usize>,
    /// The folder `path` is relative to: one of the client's roots (a path or a `file://`
    /// URI). Default: the server's root, or the root an absolute `path` is in.
    #[serde(default)]
    pub root: Option<String>,
}

/// A tool call's text as the engine reads text: a character of U+10FF80..=U+10FFFF (which
/// the engine's text uses for bytes that are not UTF-8) escaped, so that it is written as
/// that character.
fn text(given: &str) -> String {
    polypatch::fs::decode_lossless(given.as_bytes()).into_owned()
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
        Server { root, client_roots: Arc::default(), tool_router: Self::tool_router() }
    }

    /// The served roots: the command line's, then the client's.
    fn served(&self) -> Vec<PathBuf> {
        let root = self.root.canonicalize().unwrap_or_else(|_| self.root.clone());
        let mut roots = vec![root];
        roots.extend(self.client_roots.read().map(|r| r.clone()).unwrap_or_default());
        roots
    }

    /// The root a tool works in (`root` as given, else the one an absolute `path` is in,
    /// else the command line's) and `path` relative to it.
    fn place(&self, root: Option<&str>, path: Option<&str>) -> Result<(PathBuf, Option<String>), CallToolResult> {
        let served = self.served();
        let list = || served.iter().map(|r| format!("`{}`", r.display())).collect::<Vec<_>>().join(", ");
        let chosen = match root {
            Some(given) => {
                let wanted = root_path(given);
                let wanted = wanted.canonicalize().unwrap_or(wanted);
                match served.iter().find(|r| **r == wanted) {
                    Some(r) => r.clone(),
                    None => {
                        return Err(tool_error(format!(
                            "`{given}` is not a root this server serves: use one of {}, or leave `root` out",
                            list()
                        )));
                    }
                }
            }
            None => match path.map(Path::new).filter(|p| p.is_absolute()) {
                Some(abs) => {
                    let found = served.iter().filter(|r| abs.starts_with(r)).max_by_key(|r| r.as_os_str().len());
                    match found {
                        Some(r) => r.clone(),
                        None => {
                            return Err(tool_error(format!(
                                "`{}` is outside the roots this server serves ({}): give a path inside one of them",
                                abs.display(),
                                list()
                            )));
                        }
                    }
                }
                None => self.root.clone(),
            },
        };
        let relative = path.map(|p| match Path::new(p).strip_prefix(&chosen) {
            Ok(rel) if Path::new(p).is_absolute() => rel.to_string_lossy().into_owned(),
            _ => p.to_string(),
        });
        Ok((chosen, relative))
    }

    /// Asks the client for its roots and keeps the folders among them.
    // Roots are deprecated by SEP-2577 (a later protocol version drops server-to-client
    // requests) but are what today's clients announce; on a protocol without them the
    // request fails and the client's roots stay as they were.
    #[allow(deprecated)]
    async fn refresh_roots(&self, peer: Peer<RoleServer>) {
        if let Ok(listed) = peer.list_roots().await {
            let folders = listed
                .roots
                .iter()
                .filter(|r| r.uri.starts_with("file://"))
                .filter_map(|r| root_path(&r.uri).canonicalize().ok())
                .filter(|p| p.is_dir())
                .collect();
            if let Ok(mut roots) = self.client_roots.write() {
                *roots = folders;
            }
        }
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
        let mut files = match self.place(input.root.as_deref(), None).and_then(|(root, _)| open_root(&root)) {
            Ok(files) => files,
            Err(err) => return err,
        };
        let format = input.format.as_deref().unwrap_or("auto");
        let patch = text(&input.patch);
        let (text, document, ok) = if format == "auto" {
            let result = polypatch::apply_text(&patch, &mut files, &options);
            let document = ReportDocument::of_reply(&result, &patch);
            match result {
                Ok(report) => (report.to_string(), document, true),
                Err(err) => (failure_text(&err), document, false),
            }
        } else {
            let plan = match Dialects::global().parse(&patch, format) {
                Ok(plan) => plan,
                Err(err) => return tool_error(err.render(&patch)),
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
    fn edit_file(&self, Parameters(mut input): Parameters<EditFileInput>) -> CallToolResult {
        let root = match self.place(input.root.as_deref(), Some(&input.path)) {
            Ok((root, path)) => {
                input.path = path.unwrap_or_default();
                root
            }
            Err(err) => return err,
        };
        let mut options = match read_hashes(input.read_hash.as_ref().map(|h| (&input.path, h))) {
            Ok(options) => options,
            Err(err) => return err,
        };
        options = options.dry_run(true);
        if input.edits.is_empty() {
            return tool_error("`edits` is empty: give at least one {oldText, newText} pair");
        }
        let edits = input.edits.iter().map(|e| Edit::replace_text(text(&e.old_text), text(&e.new_text))).collect();
        let plan = EditPlan::new("edit_file", vec![FileEdit::modify(input.path.clone(), edits)]);
        let mut files = match open_root(&root) {
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
    fn read_file(&self, Parameters(mut input): Parameters<ReadFileInput>) -> CallToolResult {
        let files = match self.place(input.root.as_deref(), Some(&input.path)) {
            Ok((root, path)) => {
                input.path = path.unwrap_or_default();
                open_root(&root)
            }
            Err(err) => Err(err),
        };
        let files = match files {
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

/// The file set of a served root.
fn open_root(root: &Path) -> Result<DiskFileSet, CallToolResult> {
    DiskFileSet::new(root).map_err(|e| tool_error(format!("cannot open the root `{}`: {e}", root.display())))
}

/// A root as a client or a model names it: a path, or a `file://` URI (percent-escapes
/// decoded).
fn root_path(given: &str) -> PathBuf {
    let Some(rest) = given.strip_prefix("file://") else {
        return PathBuf::from(given);
    };
    // `file://host/path`: only the local host (empty or `localhost`) is a path here.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) =
                (bytes.get(i + 1).and_then(|&b| hex(b)), bytes.get(i + 2).and_then(|&b| hex(b)))
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    PathBuf::from(String::from_utf8_lossy(&out).into_owned())
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

    fn on_initialized(&self, context: NotificationContext<RoleServer>) -> impl Future<Output = ()> + Send + '_ {
        let announces = context.peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        let server = self.clone();
        async move {
            // Asked in a task of its own: the reply comes through the loop that delivered
            // this notification.
            if announces {
                tokio::spawn(async move { server.refresh_roots(context.peer).await });
            }
        }
    }

    fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) -> impl Future<Output = ()> + Send + '_ {
        let server = self.clone();
        async move {
            tokio::spawn(async move { server.refresh_roots(context.peer).await });
        }
    }
}
