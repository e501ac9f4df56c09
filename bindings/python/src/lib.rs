//! The native half of the Python package `polypatch` (`polypatch._native`): thin calls into
//! the facade crate, dialects named by string through [`Dialects::global`] (a dialect
//! compiled in later appears without a change here). The Python half
//! (`python/polypatch/__init__.py`) gives the typed API: it reads the outcomes built here
//! and raises `PatchError` and `ApplyError`.
//!
//! Every outcome carries the facade's own renderings: the text report (the `Display` of
//! the report, as the command line prints it) and the versioned JSON document
//! ([`ReportDocument`], as `polypatch apply --json` prints it). Nothing is rendered here.
//! The work itself runs with the interpreter's lock released, so other Python threads go
//! on meanwhile.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use polypatch::convert::{ConvertError, ConvertOptions};
use polypatch::fs::{ChangeKind, ReadHash, Recovery};
use polypatch::options::StaleRead;
use polypatch::reply::{BlockInfo, PlannedBlock, ReplyReport};
use polypatch::report::{ReportDocument, Status, located};
use polypatch::{
    ApplyError, ApplyOptions, ApplyReport, Dialects, DiskFileSet, EditPlan, MemoryFileSet, ParseOptions, PatchError,
    ReplyError,
};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

/// What a patch text is read as: one patch parsed whole, or the blocks of a reply.
enum Planned {
    /// One patch (a bare patch, or any text with a format named): reported as that patch.
    Whole(EditPlan),
    /// The patch blocks of a model's reply, each reported under its block.
    Blocks(Vec<PlannedBlock>),
}

/// Why nothing was planned.
// A malformed patch's error, once per failed run: boxing it saves nothing measurable.
#[allow(clippy::large_enum_variant)]
enum Refused {
    /// The patch (or a block of the reply: the block) could not be parsed.
    Malformed(PatchError, Option<BlockInfo>),
    /// The reply holds no patch.
    NoPatch,
}

/// Reads `text` as `format` (a dialect's name, or `auto`). With a name, the whole text is
/// that dialect's patch. With `auto`, a text that is one bare patch (its one block is the
/// whole text) is parsed whole, as the command line does; anything else is a reply whose
/// blocks are found and parsed each with its dialect.
fn plan(text: &str, format: &str) -> Result<Planned, Refused> {
    let dialects = Dialects::global();
    let parse = ParseOptions::default();
    let whole = |name: &str| {
        dialects.parse_with(text, name, &parse).map(Planned::Whole).map_err(|e| Refused::Malformed(e, None))
    };
    if format != "auto" {
        return whole(format);
    }
    let blocks = dialects.extract(text);
    let bare = match blocks.as_slice() {
        [] => dialects.detect(text).is_some(),
        [only] => !only.cut_off && only.indent == 0 && only.text.trim() == text.trim(),
        _ => false,
    };
    if bare {
        return whole("auto");
    }
    match dialects.plan_reply(text, &parse) {
        Ok(blocks) => Ok(Planned::Blocks(blocks)),
        Err(ReplyError::Malformed { block, error }) => Err(Refused::Malformed(error, Some(block))),
        Err(_) => Err(Refused::NoPatch),
    }
}

/// How a run ended, as the Python half reads it: the JSON document's `status`, the text
/// report, the one-line message of a failure, and the document.
#[pyclass(frozen, module = "polypatch._native")]
struct Outcome {
    /// The document's `status`: `applied`, `already_applied`, `dry_run`, `failed`,
    /// `malformed`.
    #[pyo3(get)]
    status: &'static str,
    /// The report as text, for the model (the facade's rendering).
    #[pyo3(get)]
    text: String,
    /// What a raised exception says: the first failure, or the parse error with its line.
    #[pyo3(get)]
    message: String,
    /// The versioned JSON document.
    doc: ReportDocument,
}

#[pymethods]
impl Outcome {
    /// The JSON document, one line.
    fn json(&self) -> String {
        self.doc.to_json()
    }
}

impl Outcome {
    fn new(doc: ReportDocument, text: String, message: String) -> Outcome {
        Outcome { status: doc.status.name(), text, message, doc }
    }

    /// A patch parsed whole, located (and written, unless a dry run).
    fn whole(result: Result<ApplyReport, ApplyError>, plan: &EditPlan, warnings: &[String]) -> Outcome {
        let mut all = plan.warnings.clone();
        all.extend_from_slice(warnings);
        let doc = ReportDocument::of_result(&result).with_warnings(&all);
        match &result {
            Ok(report) => Outcome::new(doc, located(report).to_string(), String::new()),
            Err(err) => Outcome::new(doc, located(&err.report).to_string(), err.to_string()),
        }
    }

    /// A reply's blocks, located (and written, unless a dry run).
    fn blocks(result: Result<ReplyReport, ReplyError>, reply: &str, warnings: &[String]) -> Outcome {
        let doc = ReportDocument::of_reply(&result, reply).with_warnings(warnings);
        match &result {
            Ok(report) => Outcome::new(doc, report.to_string(), String::new()),
            Err(ReplyError::NotApplied { report, .. }) => Outcome::new(
                doc,
                report.to_string(),
                result.as_ref().err().map(ToString::to_string).unwrap_or_default(),
            ),
            Err(other) => {
                let text = other.to_string();
                Outcome::new(doc, text.clone(), text)
            }
        }
    }

    /// A text that was not planned: malformed, or no patch in it.
    fn refused(refused: Refused, text: &str) -> Outcome {
        match refused {
            Refused::Malformed(error, None) => {
                let shown = error.render(text);
                Outcome::new(ReportDocument::malformed(&error, text), shown.clone(), shown)
            }
            Refused::Malformed(error, Some(block)) => {
                let shown = format!("{block}: {}", error.render(text));
                let doc = ReportDocument::of_reply(&Err(ReplyError::Malformed { block, error }), text);
                Outcome::new(doc, shown.clone(), shown)
            }
            Refused::NoPatch => {
                let shown = ReplyError::NoPatch.to_string();
                Outcome::new(ReportDocument::of_reply(&Err(ReplyError::NoPatch), text), shown.clone(), shown)
            }
        }
    }
}

/// A Python string as the engine reads text: a character of U+10FF80..=U+10FFFF (which
/// the engine's text uses for bytes that are not UTF-8) escaped, so that it is written as
/// that character.
fn text(given: String) -> String {
    match polypatch::fs::decode_lossless(given.as_bytes()) {
        std::borrow::Cow::Borrowed(_) => given,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

/// A dialect name the registry does not know (or `auto`) is a `ValueError` naming the
/// known ones.
fn known_format(format: &str) -> PyResult<()> {
    let dialects = Dialects::global();
    if format == "auto" || dialects.get(format).is_some() {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "unknown format `{format}`; known formats: auto, {}",
        dialects.names().join(", ")
    )))
}

/// The apply options from the Python keywords.
fn options(
    strict: bool,
    dry_run: bool,
    read_hashes: Option<HashMap<String, String>>,
    stale_read: &str,
) -> PyResult<ApplyOptions> {
    let stale = match stale_read {
        "refuse" => StaleRead::Refuse,
        "exact" => StaleRead::ExactOnly,
        other => {
            return Err(PyValueError::new_err(format!(
                "stale_read is `refuse` or `exact`, not `{other}`: `exact` lets the edits of a file changed since it \
                 was read through where they still match it exactly"
            )));
        }
    };
    let mut options = ApplyOptions::default().strict(strict).dry_run(dry_run).stale_read(stale);
    for (path, hash) in read_hashes.unwrap_or_default() {
        let hash =
            ReadHash::parse(&hash).map_err(|err| PyValueError::new_err(format!("read_hashes[{path:?}]: {err}")))?;
        options.read_hashes.insert(path, hash);
    }
    Ok(options)
}

/// A warning line for what [`DiskFileSet::recover`] did before the apply.
fn recovery_warning(recovery: &Recovery) -> String {
    let mut parts = vec![format!("rolled back {} interrupted commit(s)", recovery.rolled_back.len())];
    if !recovery.restored.is_empty() {
        parts.push(format!("restored {}", recovery.restored.join(", ")));
    }
    if !recovery.removed.is_empty() {
        parts.push(format!("removed the new file(s) {}", recovery.removed.join(", ")));
    }
    if !recovery.running.is_empty() {
        parts.push(format!("left alone {} commit(s) still running", recovery.running.len()));
    }
    parts.extend(recovery.problems.iter().map(|p| format!("could not recover: {p}")));
    format!("before applying: {}", parts.join("; "))
}

/// Plans `patch` and applies it to the files under `root` as one transaction. As
/// `polypatch apply` does, a real run first takes the root's commit lock and rolls back a
/// commit a crash interrupted; a dry run only warns of one.
fn apply_on_disk(patch: &str, root: &Path, format: &str, options: &ApplyOptions) -> io::Result<Outcome> {
    let planned = match plan(patch, format) {
        Ok(planned) => planned,
        Err(refused) => return Ok(Outcome::refused(refused, patch)),
    };
    let mut files = DiskFileSet::new(root)?;
    let mut warnings = Vec::new();
    if options.dry_run {
        if let Some(first) = files.interrupted()?.first() {
            warnings.push(format!(
                "an interrupted commit is pending (`{first}`): the files may be half patched; a real apply rolls it \
                 back first"
            ));
        }
    } else {
        match files.hold_lock() {
            Ok(()) => {}
            // A root this user cannot write: a commit that has anything to write says why.
            Err(err) if matches!(err.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem) => {}
            Err(err) => return Err(err),
        }
        let recovery = files.recover()?;
        if !recovery.is_empty() {
            warnings.push(recovery_warning(&recovery));
        }
    }
    Ok(match planned {
        Planned::Whole(plan) => Outcome::whole(polypatch::apply(&plan, &mut files, options), &plan, &warnings),
        Planned::Blocks(blocks) => {
            Outcome::blocks(polypatch::reply::apply_blocks(&blocks, &mut files, options), patch, &warnings)
        }
    })
}

/// Applies a patch (any dialect, or a whole reply) to the files under `root`.
#[pyfunction]
#[pyo3(signature = (patch, root, format, dry_run, strict, read_hashes, stale_read))]
fn apply(
    py: Python<'_>,
    patch: String,
    root: PathBuf,
    format: String,
    dry_run: bool,
    strict: bool,
    read_hashes: Option<HashMap<String, String>>,
    stale_read: String,
) -> PyResult<Outcome> {
    known_format(&format)?;
    let options = options(strict, dry_run, read_hashes, &stale_read)?;
    let patch = text(patch);
    py.detach(|| apply_on_disk(&patch, &root, &format, &options)).map_err(PyErr::from)
}

/// The texts of a computed plan's changes: path to new text, `None` for a deleted file.
type Texts = HashMap<String, Option<String>>;

/// Applies `patch` to `files` in memory. `Ok((texts, outcome))`, texts `None` when the
/// patch was not applied; `Err` the path of a result that is not UTF-8 text.
fn apply_in_memory(
    patch: &str,
    files: HashMap<String, String>,
    format: &str,
    options: &ApplyOptions,
) -> Result<(Option<Texts>, Outcome), String> {
    let planned = match plan(patch, format) {
        Ok(planned) => planned,
        Err(refused) => return Ok((None, Outcome::refused(refused, patch))),
    };
    let mut set = MemoryFileSet::new();
    for (path, text) in files {
        set.insert(path, text);
    }
    let (changes, outcome) = match planned {
        Planned::Whole(plan) => match polypatch::compute(&plan, &set, options) {
            Ok(computed) => {
                let mut report = computed.report;
                // Delivered in the texts: for files in memory, that is what written means.
                report.mark_committed();
                (computed.changes, Outcome::whole(Ok(report), &plan, &[]))
            }
            Err(err) => return Ok((None, Outcome::whole(Err(err), &plan, &[]))),
        },
        Planned::Blocks(blocks) => match polypatch::reply::compute_blocks(&blocks, &set, options) {
            Ok(computed) => {
                let mut report = computed.report;
                report.committed = true;
                for block in &mut report.blocks {
                    block.report.mark_committed();
                    if block.status == Status::Located {
                        block.status = Status::Applied;
                    }
                }
                (computed.changes, Outcome::blocks(Ok(report), patch, &[]))
            }
            Err(err) => return Ok((None, Outcome::blocks(Err(err), patch, &[]))),
        },
    };
    let mut texts = HashMap::with_capacity(changes.len());
    for change in changes {
        let path = change.path.as_str().to_string();
        let text = match change.kind {
            ChangeKind::Write { bytes, .. } => Some(bytes.into_string().map_err(|_| path.clone())?),
            _ => None,
        };
        texts.insert(path, text);
    }
    Ok((Some(texts), outcome))
}

/// Applies a patch to files given as texts, in memory: the new texts of the files it
/// changes (`None`: deleted) and the outcome.
#[pyfunction]
#[pyo3(signature = (patch, files, format, strict, read_hashes, stale_read))]
fn apply_to_files(
    py: Python<'_>,
    patch: String,
    files: HashMap<String, String>,
    format: String,
    strict: bool,
    read_hashes: Option<HashMap<String, String>>,
    stale_read: String,
) -> PyResult<(Option<Texts>, Outcome)> {
    known_format(&format)?;
    let options = options(strict, false, read_hashes, &stale_read)?;
    let patch = text(patch);
    py.detach(|| apply_in_memory(&patch, files, &format, &options)).map_err(|path| {
        PyValueError::new_err(format!(
            "the result for `{path}` is not UTF-8 text (a binary patch); apply binary patches to a directory"
        ))
    })
}

/// The dialect `text` looks most like, or `None`.
#[pyfunction]
fn detect(text: &Bound<'_, PyString>) -> PyResult<Option<&'static str>> {
    let text = text.to_cow()?;
    Ok(Dialects::global().detect(&text).map(polypatch::Dialect::name))
}

/// One block found in a reply: dialect, content, first and last line, fence, confidence,
/// cut off.
type BlockTuple = (String, String, usize, usize, Option<String>, u8, bool);

/// The patch blocks of a reply.
#[pyfunction]
fn extract(reply: &Bound<'_, PyString>) -> PyResult<Vec<BlockTuple>> {
    let reply = reply.to_cow()?;
    Ok(Dialects::global()
        .extract(&reply)
        .iter()
        .map(|b| {
            (
                b.dialect.as_str().to_string(),
                b.content().into_owned(),
                b.lines.start,
                b.lines.end,
                b.fence.map(str::to_string),
                b.confidence,
                b.cut_off,
            )
        })
        .collect())
}

/// A conversion's result: the patch, or the outcome that refused it (malformed, not
/// applied), or the message of what the target dialect cannot express.
type Conversion = (Option<String>, Option<Outcome>, Option<String>);

/// Converts `patch` to the dialect `to`, resolved against the files under `root` or the
/// texts `files`.
#[pyfunction]
#[pyo3(signature = (patch, to, root, files, format))]
fn convert(
    py: Python<'_>,
    patch: String,
    to: String,
    root: Option<PathBuf>,
    files: Option<HashMap<String, String>>,
    format: String,
) -> PyResult<Conversion> {
    known_format(&format)?;
    if Dialects::global().get(&to).is_none() {
        return Err(PyValueError::new_err(format!(
            "unknown format `{to}`; known formats: {}",
            Dialects::global().names().join(", ")
        )));
    }
    let patch = text(patch);
    py.detach(|| {
        let dialects = Dialects::global();
        let plan = match dialects.parse_with(&patch, &format, &ParseOptions::default()) {
            Ok(plan) => plan,
            Err(err) => return Ok((None, Some(Outcome::refused(Refused::Malformed(err, None), &patch)), None)),
        };
        let options = ConvertOptions::default();
        let result = match (root, files) {
            (_, Some(files)) => {
                let mut set = MemoryFileSet::new();
                for (path, text) in files {
                    set.insert(path, text);
                }
                dialects.convert(&plan, &set, &to, &options)
            }
            (root, None) => {
                let set = DiskFileSet::new(root.unwrap_or_else(|| PathBuf::from(".")))?;
                dialects.convert(&plan, &set, &to, &options)
            }
        };
        Ok(match result {
            Ok(converted) => (Some(converted.text), None, None),
            Err(ConvertError::NotApplied(err)) => (None, Some(Outcome::whole(Err(*err), &plan, &[])), None),
            Err(ConvertError::Malformed(err)) => {
                (None, Some(Outcome::refused(Refused::Malformed(err, None), &patch)), None)
            }
            Err(ConvertError::Read { path, source }) => {
                return Err(io::Error::new(source.kind(), format!("cannot read `{path}`: {source}")));
            }
            Err(other) => (None, None, Some(other.to_string())),
        })
    })
    .map_err(|err: io::Error| PyOSError::new_err(err.to_string()))
}

/// The instructions for a model writing the dialect `format`, or `None`.
#[pyfunction]
fn prompt(format: &str) -> Option<&'static str> {
    polypatch::prompt(format)
}

/// The JSON Schema (as JSON text) of the dialect `format`'s input, or of the report
/// document when `format` is `None`; `None` for a dialect without one.
#[pyfunction]
#[pyo3(signature = (format=None))]
fn schema(format: Option<&str>) -> Option<String> {
    match format {
        None => Some(polypatch::schema::report().to_string()),
        Some(name) => polypatch::schema::format(name).map(|schema| schema.to_string()),
    }
}

/// The dialects compiled in, in the order they are tried.
#[pyfunction]
fn formats() -> Vec<&'static str> {
    Dialects::global().names()
}

/// The stale-read guard's hash of `data` (bytes, or text as UTF-8): `sha256:` and 64 hex
/// digits.
#[pyfunction]
fn hash(data: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(bytes) = data.cast::<PyBytes>() {
        return Ok(ReadHash::of(bytes.as_bytes()).to_string());
    }
    if let Ok(text) = data.cast::<PyString>() {
        return Ok(ReadHash::of(text.to_cow()?.as_bytes()).to_string());
    }
    Err(pyo3::exceptions::PyTypeError::new_err("hash() takes bytes or str (a file's content as it was read)"))
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Outcome>()?;
    m.add_function(wrap_pyfunction!(apply, m)?)?;
    m.add_function(wrap_pyfunction!(apply_to_files, m)?)?;
    m.add_function(wrap_pyfunction!(detect, m)?)?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(prompt, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(hash, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
