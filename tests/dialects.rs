//! What every dialect keeps, checked once for all of them (each dialect crate tests only
//! what is its own, such as the scores of its sniff): its name, an empty text sniffed 0 and
//! refused as its own error, its error kinds unique `snake_case` codes, and a valid patch
//! (its `patch.<name>` of the first case in `spec-fixtures/equivalence/`, which every
//! dialect writes) lowered into a plan that carries its name. Its error messages and spans
//! are pinned by `tests/error_fixtures.rs`.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use polypatch::Dialect;

/// Every dialect, by name: each must pass every check below.
fn each(check: impl Fn(&dyn Dialect) -> Result<(), String>) {
    let failures: Vec<String> = polypatch::Dialects::global()
        .iter()
        .filter_map(|d| check(d).err().map(|e| format!("{}: {e}", d.name())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_built_in_dialects_have_their_names() {
    assert_eq!(
        polypatch::Dialects::global().names(),
        ["ai-patch", "unified", "ap", "applydiff", "aptix", "search-replace", "tool-call", "lazy"]
    );
    let unique: BTreeSet<&str> = polypatch::Dialects::global().names().into_iter().collect();
    assert_eq!(unique.len(), polypatch::Dialects::global().len(), "two dialects share a name");
    each(|d| {
        let name = d.name();
        let lowercase = name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if name.is_empty() || !lowercase || name.starts_with('-') {
            return Err(format!("the name `{name}` is not lowercase letters, digits and `-`"));
        }
        match polypatch::Dialects::global().get(name) {
            Some(found) if found.name() == name => Ok(()),
            _ => Err("`polypatch::dialect` does not find it by its name".into()),
        }
    });
}

#[test]
fn an_empty_text_looks_like_no_dialect() {
    each(|d| match (d.sniff(""), d.sniff(" \n\n\t\n")) {
        (0, 0) => Ok(()),
        scores => Err(format!("an empty and a blank text sniff {scores:?}, not 0")),
    });
}

#[test]
fn error_kinds_are_unique_snake_case_codes() {
    each(|d| {
        let kinds = d.error_kinds();
        if kinds.is_empty() {
            return Err("no error kinds listed".into());
        }
        let mut seen = BTreeSet::new();
        for kind in kinds {
            let code = kind.as_str();
            if !is_snake_case(code) {
                return Err(format!("the kind `{code}` is not snake_case"));
            }
            if !seen.insert(code) {
                return Err(format!("the kind `{code}` is listed twice"));
            }
            let (shown, json) = (kind.to_string(), serde_json::to_value(kind).unwrap());
            if shown != code || json != code {
                return Err(format!("the kind `{code}` does not display and serialize as its code"));
            }
        }
        Ok(())
    });
}

fn is_snake_case(code: &str) -> bool {
    !code.is_empty()
        && code.split('_').all(|word| {
            word.starts_with(|c: char| c.is_ascii_lowercase())
                && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

#[test]
fn snake_case_is_told_apart() {
    for good in ["missing_end", "no_patch", "not_utf8", "mode"] {
        assert!(is_snake_case(good), "{good}");
    }
    for bad in ["", "MissingEnd", "missing-end", "_end", "missing__end", "end_", "8bit", "missing end"] {
        assert!(!is_snake_case(bad), "{bad}");
    }
}

#[test]
fn a_valid_patch_lowers_into_a_plan_of_its_dialect() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-fixtures/equivalence");
    let mut dirs: Vec<_> = fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "an equivalence case");
    each(|d| {
        // The first case the dialect can say (see `unreachable.<dialect>`).
        let first = dirs.iter().find(|c| !c.join(format!("unreachable.{}", d.name())).exists()).expect("a case");
        let file = first.join(format!("patch.{}", d.name()));
        let text = fs::read_to_string(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let plan = d.parse(&text).map_err(|e| format!("{} is refused: {}", file.display(), e.render(&text)))?;
        if plan.dialect != d.name() || plan.files.is_empty() {
            return Err(format!(
                "{} lowers into a plan of `{}` with {} files",
                file.display(),
                plan.dialect,
                plan.files.len()
            ));
        }
        Ok(())
    });
}

#[test]
fn an_empty_text_is_refused_as_the_dialect_s_own_error() {
    each(|d| {
        let err = d.parse("").err().ok_or("an empty text parses")?;
        if err.dialect != d.name() {
            return Err(format!("the error's dialect is `{}`", err.dialect));
        }
        if !d.error_kinds().contains(&err.kind) {
            return Err(format!("the kind `{}` is not in its error_kinds()", err.kind));
        }
        Ok(())
    });
}
