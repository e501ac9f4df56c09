//! Where values stand in a JSON text that `serde_json` accepted: the spans of an array's
//! elements and of an object's members, found by one scan of the container (strings
//! skipped, brackets counted), so errors and edits point at their own JSON.

use polypatch_core::Span;

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the string starting at `i` (a `"`), after its closing quote.
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The end of the value starting at `i`.
fn value_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = string_end(b, j);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return j + 1;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            b.len()
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                j += 1;
            }
            j
        }
    }
}

/// The spans of the elements of the array at `span` (empty when it is not an array).
pub(crate) fn elements(text: &str, span: Span) -> Vec<Span> {
    let b = &text.as_bytes()[..span.end];
    let mut out = Vec::new();
    if b.get(span.start) != Some(&b'[') {
        return out;
    }
    let mut i = skip_ws(b, span.start + 1);
    while i < b.len() && b[i] != b']' {
        let end = value_end(b, i);
        out.push(Span::new(i, end));
        i = skip_ws(b, end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    out
}

/// The span of the value of member `key` of the object at `span`, if it has one (the
/// last, as `serde_json` keeps the last of duplicate keys).
pub(crate) fn member(text: &str, span: Span, key: &str) -> Option<Span> {
    let b = &text.as_bytes()[..span.end];
    if b.get(span.start) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    let mut i = skip_ws(b, span.start + 1);
    while i < b.len() && b[i] == b'"' {
        let key_end = string_end(b, i);
        let raw = &text[i..key_end];
        let name_matches = if raw.contains('\\') {
            serde_json::from_str::<String>(raw).is_ok_and(|k| k == key)
        } else {
            &raw[1..raw.len() - 1] == key
        };
        i = skip_ws(b, key_end);
        if b.get(i) == Some(&b':') {
            i = skip_ws(b, i + 1);
        }
        let end = value_end(b, i);
        if name_matches {
            found = Some(Span::new(i, end));
        }
        i = skip_ws(b, end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_and_members_are_found_with_strings_skipped() {
        let text = r#" [ {"a": "x]}\"", "b": [1, {"c": 2}]} , 3,"s" ] "#;
        let all = Span::new(1, text.len() - 1);
        let els: Vec<&str> = elements(text, all).iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(els, [r#"{"a": "x]}\"", "b": [1, {"c": 2}]}"#, "3", "\"s\""]);
        let obj = elements(text, all)[0];
        assert_eq!(member(text, obj, "b").map(|s| &text[s.start..s.end]), Some("[1, {\"c\": 2}]"));
        assert_eq!(member(text, obj, "a").map(|s| &text[s.start..s.end]), Some(r#""x]}\"""#));
        assert_eq!(member(text, obj, "c"), None);
        let esc = r#"{"p\u0061th": 1}"#;
        assert_eq!(member(esc, Span::new(0, esc.len()), "path").map(|s| &esc[s.start..s.end]), Some("1"));
    }
}
