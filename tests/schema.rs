//! The JSON Schemas hold what they describe: real report documents validate against the
//! report schema, and every fixture of the structured dialects that parses cleanly
//! validates against its dialect's schema, while malformed ones the schema can express are
//! refused.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use polypatch::{ApplyOptions, MemoryFileSet, apply, parse, report::ReportDocument};
use serde_json::{Value, json};

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).unwrap_or_else(|e| panic!("the schema is not a valid JSON Schema: {e}"))
}

/// Panics with every error when `doc` does not validate.
fn assert_valid(validator: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = validator.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{what} does not validate:\n{}\n{doc:#}", errors.join("\n"));
}

/// The document of applying `patch` to `files`, as JSON.
fn run(patch: &str, files: &[(&str, &str)], options: &ApplyOptions) -> Value {
    let mut set = MemoryFileSet::new();
    for (path, text) in files {
        set.insert(*path, *text);
    }
    let doc = match parse(patch, polypatch::Format::Auto) {
        Ok(plan) => ReportDocument::of_result(&apply(&plan, &mut set, options)).with_warnings(&plan.warnings),
        Err(err) => ReportDocument::malformed(&err, patch),
    };
    serde_json::from_str(&doc.to_json()).unwrap()
}

const TWO_FILES: &str = "*** Begin Patch\n*** Update File: a.py\n@@\n def f():\n-    return 1\n+    return 2\n*** Add File: b.py\n+x = 1\n*** End Patch\n";

#[test]
fn real_report_documents_validate() {
    let schema = validator(&polypatch::schema::report());
    let a = ("a.py", "def f():\n    return 1\n");
    let defaults = ApplyOptions::default();
    let cases = [
        ("success, several files", run(TWO_FILES, &[a], &defaults), "applied"),
        ("dry run", run(TWO_FILES, &[a], &ApplyOptions::default().dry_run(true)), "dry_run"),
        (
            "already applied",
            run(TWO_FILES, &[("a.py", "def f():\n    return 2\n"), ("b.py", "x = 1\n")], &defaults),
            "already_applied",
        ),
        (
            "failure with the closest candidate",
            run(TWO_FILES, &[("a.py", "def f():\n    value = compute()\n    print(value)\n")], &defaults),
            "failed",
        ),
        ("file missing", run(TWO_FILES, &[], &defaults), "failed"),
        ("malformed", run("*** Begin Patch\n*** Frob File: a\n*** End Patch\n", &[], &defaults), "malformed"),
    ];
    for (what, doc, status) in &cases {
        assert_eq!(doc["status"], *status, "{what}: {doc:#}");
        assert_eq!(doc["version"], polypatch::report::JSON_VERSION, "{what}");
        assert_valid(&schema, doc, what);
    }
    // The failure shows what it claims to: a closest candidate.
    assert!(cases[3].1["report"]["files"][0]["edits"][0]["failure"]["closest"]["diff"].is_string());
    // Fuzzy matching, warnings, a diff, a session, a usage error.
    let fuzzy = run(
        "*** Begin Patch\n*** Update File: a.py\n@@\n def f():\n-    retrun 1\n+    return 2\n*** End Patch\n",
        &[a],
        &defaults,
    );
    assert_valid(&schema, &fuzzy, "fuzzy");
    // A plan whose first edit fails: twelve later ones with a typo skip the similarity
    // search, the last three shortened.
    let lines = (0..40).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "value_{i} = compute_{i}(input)");
        s
    });
    let mut patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-absent = nowhere()\n+x\n".to_string();
    for i in (1..25).step_by(2) {
        let _ = write!(patch, "@@\n value_{}=compute_{}(input)\n-value_{i} = compute_{i}(input)\n+y\n", i - 1, i - 1);
    }
    patch.push_str("*** End Patch\n");
    let skipped = run(&patch, &[("a.py", &lines)], &defaults);
    assert_valid(&schema, &skipped, "skipped searches");
    let edits = skipped["report"]["files"][0]["edits"].as_array().unwrap();
    assert_eq!(edits.len(), 13);
    assert_eq!(edits[0]["failure"]["kind"], "not_found");
    assert!(edits[1..].iter().all(|e| e["failure"]["kind"] == "search_skipped"), "{skipped:#}");
    assert_eq!(skipped["report"]["shortened"], 3);
    let extras =
        ReportDocument::usage("bad").with_diff("diff --git a/x b/x\n").with_warnings(&["w".into()]).with_extras(
            Some("feedback".into()),
            Some(polypatch::report::SessionBlock::new("ctx".into(), vec!["r".into()], json!({"exchange": 1}))),
        );
    assert_valid(&schema, &serde_json::to_value(&extras).unwrap(), "every optional part");
}

#[test]
fn a_field_the_schema_does_not_list_is_refused_at_every_level() {
    let schema = validator(&polypatch::schema::report());
    let doc =
        run(TWO_FILES, &[("a.py", "def f():\n    value = compute()\n    print(value)\n")], &ApplyOptions::default());
    assert_valid(&schema, &doc, "the failure");
    for pointer in ["", "/report", "/report/files/0", "/report/files/0/edits/0", "/report/files/0/edits/0/failure"] {
        let mut extended = doc.clone();
        let object = extended.pointer_mut(pointer).and_then(Value::as_object_mut).expect(pointer);
        object.insert("surprise".into(), json!(true));
        assert!(!schema.is_valid(&extended), "a new field at `{pointer}` was accepted");
    }
    let mut wrong = doc.clone();
    wrong["report"]["files"][0]["status"] = json!("appplied");
    assert!(!schema.is_valid(&wrong), "an unknown status was accepted");
    let mut versionless = doc;
    versionless.as_object_mut().unwrap().remove("version");
    assert!(!schema.is_valid(&versionless), "a document without version was accepted");
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures")
}

/// `(name, patch text)` of every case of `dialect`, and of every equivalence case's
/// `patch.<extension>`.
fn cases(dialect: &str, extension: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (dir, file) in [
        (fixtures().join(dialect), "patch".to_string()),
        (fixtures().join("equivalence"), format!("patch.{extension}")),
    ] {
        let mut entries: Vec<PathBuf> = fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for case in entries {
            if let Ok(text) = fs::read_to_string(case.join(&file)) {
                out.push((
                    format!(
                        "{}/{}",
                        case.parent().unwrap().file_name().unwrap().to_string_lossy(),
                        case.file_name().unwrap().to_string_lossy()
                    ),
                    text,
                ));
            }
        }
    }
    assert!(out.len() > 5, "no {dialect} fixtures found");
    out
}

/// The bundle's JSON, out of its markdown fence or prose.
fn aptix_value(text: &str) -> Option<Value> {
    let span = polypatch::aptix::extract(text)?;
    serde_json::from_str(&text[span.start..span.end]).ok()
}

/// The YAML document as a JSON value, a markdown fence around it dropped.
fn ap_value(text: &str) -> Option<Value> {
    let lines: Vec<&str> = text.lines().collect();
    let fenced = lines.first().is_some_and(|l| l.trim_start().starts_with("```"));
    let body = if fenced { lines[1..lines.len().saturating_sub(1)].join("\n") } else { text.to_string() };
    serde_saphyr::from_str(&body).ok()
}

/// Validates every case that parses without warnings; returns how many were validated and
/// the names of the malformed cases the schema refused.
fn check_dialect(dialect: &str, value: fn(&str) -> Option<Value>) -> (usize, Vec<String>) {
    let schema = validator(&polypatch::schema::format(dialect).unwrap());
    let (mut validated, mut refused) = (0, Vec::new());
    for (name, text) in cases(dialect, dialect) {
        match polypatch::Dialects::global().get(dialect).unwrap().parse(&text) {
            Ok(plan) if plan.warnings.is_empty() => {
                let doc = value(&text).unwrap_or_else(|| panic!("{name}: parses, but its JSON value cannot be read"));
                assert_valid(&schema, &doc, &name);
                validated += 1;
            }
            // Accepted with a warning (an unknown field, no `root`, an unquoted version):
            // the schema, written for writers, may refuse what the parser forgives.
            Ok(_) => {}
            Err(_) => {
                if value(&text).is_some_and(|doc| !schema.is_valid(&doc)) {
                    refused.push(name);
                }
            }
        }
    }
    eprintln!("{dialect}: {validated} cases validated; malformed cases the schema refuses: {refused:?}");
    (validated, refused)
}

#[test]
fn every_clean_aptix_fixture_validates_and_malformed_shapes_are_refused() {
    let (validated, refused) = check_dialect("aptix", aptix_value);
    assert!(validated >= 20, "only {validated} aptix fixtures validated");
    for name in [
        "aptix/malformed_delete_with_content",
        "aptix/malformed_empty_bundle",
        "aptix/malformed_files_and_patches",
        "aptix/malformed_unknown_operation",
    ] {
        assert!(
            refused.contains(&name.to_string()),
            "{name} is malformed but the schema accepts it; refused: {refused:?}"
        );
    }
}

#[test]
fn every_clean_ap_fixture_validates_and_malformed_shapes_are_refused() {
    let (validated, refused) = check_dialect("ap", ap_value);
    assert!(validated >= 30, "only {validated} ap fixtures validated");
    for name in [
        "ap/malformed_create_file_with_snippet",
        "ap/malformed_delete_with_content",
        "ap/malformed_incomplete_range",
        "ap/malformed_missing_content",
        "ap/malformed_snippet_and_range",
        "ap/malformed_range_with_insert",
        "ap/malformed_unknown_action",
        "ap/malformed_unknown_key",
        "ap/version_unsupported",
    ] {
        assert!(
            refused.contains(&name.to_string()),
            "{name} is malformed but the schema accepts it; refused: {refused:?}"
        );
    }
}

/// The dialects' schemas byte for byte as `polypatch schema <name>` prints them (pretty
/// JSON): they are derived from types in the dialects' crates, and a change of those types
/// shows here as a changed snapshot, never silently.
#[test]
fn dialect_schemas_are_pinned() {
    for name in polypatch::schema::FORMATS {
        let schema = polypatch::schema::format(name).unwrap();
        insta::assert_snapshot!(format!("{name}_schema"), serde_json::to_string_pretty(&schema).unwrap());
    }
}

/// Each call's arguments, unwrapped from the way it arrived (`tool_use`, a function call's
/// `arguments` string, an `apply_patch_call`'s operation); text blocks left out.
fn toolcall_values(text: &str) -> Option<Vec<Value>> {
    let span = polypatch::toolcall::extract(text)?;
    let value: Value = serde_json::from_str(&text[span.start..span.end]).ok()?;
    let items = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    let mut out = Vec::new();
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("text") => {}
            Some("tool_use") => out.push(item["input"].clone()),
            Some("apply_patch_call") => out.push(item["operation"].clone()),
            Some("function_call") => out.push(serde_json::from_str(item["arguments"].as_str()?).ok()?),
            _ => out.push(item),
        }
    }
    Some(out)
}

/// Every call of every tool-call fixture that applies validates against the schema (each
/// tool's own schema under `$defs`, ready to register as a tool definition); a call with
/// a field no tool lists, or a `view`, is refused.
#[test]
fn every_tool_call_fixture_validates_and_foreign_fields_are_refused() {
    let schema = polypatch::schema::format("tool-call").unwrap();
    let whole = validator(&schema);
    let mut validated = 0;
    for (name, text) in cases("tool-call", "tool-call") {
        if polypatch::Dialects::global().get("tool-call").unwrap().parse(&text).is_err() {
            continue;
        }
        for call in toolcall_values(&text).unwrap_or_else(|| panic!("{name}: parses, but its calls cannot be read")) {
            assert_valid(&whole, &call, &name);
            validated += 1;
        }
    }
    assert!(validated >= 20, "only {validated} tool calls validated");
    for (name, tool) in schema["$defs"].as_object().unwrap() {
        let own = validator(tool);
        assert!(!own.is_valid(&serde_json::json!({"path": "a", "find": "x"})), "{name} takes a foreign field");
    }
    assert!(!whole.is_valid(&serde_json::json!({"command": "view", "path": "a"})));
    assert!(!whole.is_valid(&serde_json::json!({"file_path": "a", "old_string": "x", "new_string": "y", "limit": 1})));
}
