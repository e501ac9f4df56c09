//! `polypatch convert --to FORMAT`: the patch rewritten in another dialect, resolved
//! against the files under the root, printed on standard output.
//!
//! Exit codes: 0 converted (or nothing to convert: the patch changes nothing); 1 the patch
//! does not apply to the files, nothing converted (the report on standard error, as
//! `check` prints it); 2 a malformed patch, a usage error, or an operation the target
//! dialect cannot express. An inexpressible operation is 2, not 1: the files are fine and
//! the patch applies; it is the request (this target for this change) that cannot be
//! met, and retrying will not help, as with a usage error. 1 stays "the patch does not fit
//! these files", so a script can tell "fix the patch" from "pick another target".

use polypatch::convert::{ConvertError, ConvertOptions, Input, RenderError};
use polypatch::{ApplyOptions, EditPlan, ParseOptions};
use serde::Serialize;

use crate::cli::{self, ConvertArgs};
use crate::inout::{self, Exit, stderr, stdout, usage_error};
use crate::{escape, output};

/// The dialects `convert` can write (a dialect that can only be read, `lazy`, is not one).
fn writable() -> Vec<&'static str> {
    let probe = polypatch::engine::RenderOptions::default();
    cli::dialects()
        .iter()
        .filter(|d| !matches!(d.render(&[], &probe), Err(RenderError::NotWritable { .. })))
        .map(polypatch::Dialect::name)
        .collect()
}

/// Runs `convert`.
pub fn run(args: &ConvertArgs) -> Exit {
    let usage = |err: anyhow::Error| usage_error(args.json, &err);
    let to = match cli::dialects().get(&args.to) {
        Some(to) => to.name(),
        None => {
            return usage(anyhow::anyhow!(
                "`--to {}`: no dialect is called so; write one of: {} (`polypatch formats` lists their aliases)",
                args.to,
                writable().join(", ")
            ));
        }
    };
    let format = match cli::resolve_format(&args.format) {
        Ok(format) => format,
        Err(err) => return usage(err),
    };
    let malformed = |err: &polypatch::PatchError, source: &str| {
        if args.json {
            stdout(&output::malformed_json(err, source, &output::Extra::default()));
        } else {
            stderr(&output::malformed_text(err, source));
        }
        Exit::Invalid
    };
    let text = match inout::read_patch(&args.patch, format) {
        Ok(text) => text,
        Err(inout::Input::Unreadable(err)) => return usage(err),
        Err(inout::Input::NotText(err, lossy)) => return malformed(&err, &lossy),
    };
    // As for `apply`: an `ap` patch file's paths are relative to its folder.
    let dialect = format.or_else(|| polypatch::detect(&text).map(polypatch::Dialect::name)).unwrap_or_default();
    let root = args.root.clone().unwrap_or_else(|| inout::default_root(dialect, &args.patch));
    let files = match inout::open_root(&root) {
        Ok(files) => files,
        Err(err) => return usage(err),
    };
    let mut parse = ParseOptions::default();
    if let Some(n) = args.strip {
        parse = parse.strip(n);
    }
    if let Some(path) = &args.file {
        parse = parse.file(path.clone());
    }
    let options = ConvertOptions::default()
        .apply(ApplyOptions::default().strict(args.strict).skip_missing_text(args.skip_missing_find))
        .parse(parse)
        .context(args.context);
    // Parsed here, by name, so that the registry's dialects are the ones read and written.
    // A patch, or a model's whole reply: its blocks, one after the other, as one plan (as
    // `apply` applies them).
    let plan = match cli::parse_as(&text, format, &options.parse) {
        Ok(plan) => plan,
        Err(err) => match format.is_none().then(|| cli::dialects().plan_reply(&text, &options.parse)) {
            Some(Ok(blocks)) if !blocks.is_empty() => {
                let mut plan = EditPlan::new(blocks[0].plan.dialect.clone(), Vec::new());
                for block in blocks {
                    plan.files.extend(block.plan.files);
                    plan.warnings.extend(block.plan.warnings);
                }
                plan
            }
            Some(Err(polypatch::ReplyError::Malformed { error, .. })) => return malformed(&error, &text),
            _ => return malformed(&err, &text),
        },
    };
    match cli::dialects().convert(Input::Plan(&plan), &files, to, &options) {
        Ok(converted) => {
            if args.json {
                stdout(&document(&Document::Converted {
                    from: converted.source.as_str(),
                    to: converted.dialect.as_str(),
                    files: converted.files,
                    patch: &converted.text,
                }));
            } else {
                if converted.text.is_empty() {
                    stderr("nothing to convert: the patch changes no file (it is already applied)\n");
                }
                if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                    // Shown, not piped: the files' bytes may hold escape sequences.
                    stdout(&escape::terminal(&converted.text));
                } else {
                    stdout(&converted.text);
                }
            }
            Exit::Success
        }
        Err(ConvertError::Malformed(err)) => malformed(&err, &text),
        Err(ConvertError::NotApplied(err)) => {
            if args.json {
                stdout(&output::failure_json_with(&err, &[], &output::Extra::default()));
            } else {
                stderr(&output::failure_text(&err));
                stderr("nothing was converted: the patch does not apply to these files\n");
            }
            Exit::NotApplied
        }
        Err(ConvertError::Render(err)) => {
            match &err {
                RenderError::Inexpressible { dialect, operation, path, detail } if args.json => {
                    stdout(&document(&Document::Inexpressible {
                        to: dialect.as_str(),
                        operation: operation.name(),
                        path,
                        message: detail,
                    }));
                }
                _ => stderr(&format!("error: {}\n", escape::terminal(&err.to_string()))),
            }
            Exit::Invalid
        }
        Err(err) => usage(anyhow::Error::new(err)),
    }
}

/// The JSON document of `convert`.
#[derive(Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
enum Document<'a> {
    Converted { from: &'a str, to: &'a str, files: usize, patch: &'a str },
    Inexpressible { to: &'a str, operation: &'a str, path: &'a str, message: &'a str },
}

/// The document with the `version` every JSON document carries.
fn document(doc: &Document) -> String {
    #[derive(Serialize)]
    struct Versioned<'a> {
        version: u32,
        #[serde(flatten)]
        doc: &'a Document<'a>,
    }
    output::document(&Versioned { version: polypatch::report::JSON_VERSION, doc })
}
