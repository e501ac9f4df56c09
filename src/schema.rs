//! JSON Schemas: of the report document, and of the structured dialects' input, for
//! models' structured outputs and tool calling.
//!
//! Each dialect holds the schema of its own input ([`Dialect::schema`](crate::Dialect::schema):
//! Aptix and 'ap' derive theirs from types in their crates that mirror their specs); this
//! module only looks it up. Every object refuses fields it does not list, and the rules
//! that tie fields to an operation are written as `if`/`then` rules. What a schema cannot
//! say (a path that leaves the root, a `find` that is not in the file) the parser and the
//! engine still check.
//!
//! ```
//! let schema = polypatch::schema::format("aptix").unwrap();
//! assert_eq!(schema["title"], "AptixBundle");
//! assert!(polypatch::schema::format("klingon").is_none());
//! ```

use serde_json::Value;

use crate::document::ReportDocument;

/// The JSON Schema of [`ReportDocument`], the document every JSON output is.
///
/// ```
/// let schema = polypatch::schema::report();
/// assert_eq!(schema["additionalProperties"], false);
/// assert!(schema["required"].as_array().unwrap().iter().any(|f| f == "version"));
/// ```
pub fn report() -> Value {
    ReportDocument::schema()
}

/// The built-in dialects [`format()`] has a schema for: the ones written as JSON or YAML,
/// in the order the CLI lists them. [`formats()`] asks the dialects compiled in, so it
/// also lists a dialect added later.
pub const FORMATS: &[&str] = &["aptix", "ap", "tool-call"];

/// The dialects compiled in that have a schema ([`Dialect::schema`](crate::Dialect::schema)),
/// in the order of [`Dialects::global`](crate::Dialects::global).
///
/// ```
/// assert_eq!(polypatch::schema::formats(), ["ap", "aptix", "tool-call"]);
/// ```
pub fn formats() -> Vec<&'static str> {
    crate::Dialects::global().iter().filter(|d| d.schema().is_some()).map(crate::Dialect::name).collect()
}

/// The JSON Schema of the input of the dialect `name` (`aptix` or `ap`; see [`formats()`]).
/// An 'ap' patch is YAML: the schema describes the value the YAML reads as.
///
/// ```
/// let aptix = polypatch::schema::format("aptix").unwrap();
/// assert!(aptix.is_object());
/// assert!(polypatch::schema::format("unified").is_none()); // text, not JSON
/// ```
pub fn format(name: &str) -> Option<Value> {
    crate::Dialects::global().get(name)?.schema()
}

#[cfg(all(test, feature = "ap", feature = "aptix"))]
mod tests {
    use super::*;

    #[test]
    fn every_listed_format_has_a_schema_and_others_none() {
        for name in FORMATS {
            let schema = format(name).unwrap();
            assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema", "{name}");
        }
        assert!(format("unified").is_none());
        assert!(format("auto").is_none());
        let formats = formats();
        for name in &formats {
            assert!(format(name).is_some(), "{name}");
        }
        // The built-in list the CLI prints is among them.
        assert!(FORMATS.iter().all(|name| formats.contains(name)), "{formats:?}");
    }
}
