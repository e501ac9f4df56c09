//! Reading a lazy edit: the snippets of a text (fenced blocks, Morph's `<update>` tag, or
//! the whole text), each with the path it names, and their lines with spans.

use polypatch_core::{PatchError, Span, spanned_lines};

use crate::error::{NO_SNIPPET, SPLIT_SNIPPET, error};

/// A text read as lazy edits: its snippets, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Patch<'a> {
    /// The snippets.
    pub snippets: Vec<Snippet<'a>>,
}

/// One snippet: the new version of part of a file, markers standing for the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Snippet<'a> {
    /// The path the snippet names (its fence's info string, or the line above the fence);
    /// `None`: the caller's.
    pub path: Option<&'a str>,
    /// The snippet's lines, without their terminators, each with its span.
    pub lines: Vec<(&'a str, Span)>,
    /// The whole snippet, fences or tags included.
    pub span: Span,
    /// The line that opens it (the fence, the tag; the first line of a bare snippet).
    pub head: Span,
}

/// A fence opening or closing line: its character and width, and the info string.
fn fence(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let width = t.chars().take_while(|x| *x == c).count();
    let info = t[width..].trim();
    (width >= 3 && !(c == '`' && info.contains('`'))).then_some((c, width, info))
}

/// Whether `token` reads as a path: no spaces, a `/` or a `.` that is not its only
/// character, and no character a path in a reply does not hold.
fn looks_like_path(token: &str) -> bool {
    !token.is_empty()
        && token != "."
        && token != ".."
        && (token.contains('/') || token.contains('.'))
        && !token.chars().any(|c| c.is_whitespace() || "`*<>|\"'(){}[],;=".contains(c))
        && !token.ends_with('.')
}

/// The path a fence's info string names: `path=X` (or `file=`, `filepath=`, `filename=`),
/// Cursor's `START:END:path`, `lang:path`, or a token that reads as a path.
fn info_path(info: &str) -> Option<&str> {
    for token in info.split_whitespace() {
        for key in ["path=", "file=", "filepath=", "filename="] {
            if let Some(v) = token.strip_prefix(key) {
                let v = v.trim_matches(|c| c == '"' || c == '\'');
                if !v.is_empty() {
                    return Some(v);
                }
            }
        }
    }
    for token in info.split_whitespace() {
        let last = token.rsplit(':').next().unwrap_or(token);
        if looks_like_path(last) {
            return Some(last);
        }
    }
    None
}

/// The path a line above a fence names: the line alone (after `**`, backticks, a leading
/// `#` heading or `File:`, and a trailing colon are removed), when it reads as a path.
fn path_line(line: &str) -> Option<&str> {
    let mut t = line.trim();
    t = t.trim_start_matches('#').trim();
    for prefix in ["File:", "file:", "Path:", "path:", "Filename:"] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest.trim();
        }
    }
    let t = t.trim_matches(|c| c == '*' || c == '`').trim_end_matches(':').trim_matches(|c| c == '*' || c == '`');
    looks_like_path(t).then_some(t)
}

/// Reads `text` as lazy edits. Morph's `<update>` … `</update>` holds the snippet (a
/// `<code>` tag, the original the model saw, is not needed: the file is read); else every
/// fenced block that names a path (or, when none does, every fenced block that holds a
/// marker; or, when none does, every fenced block); else the whole text.
pub fn parse(text: &str) -> Result<Patch<'_>, PatchError> {
    let lines = spanned_lines(text);
    if let Some(snippet) = update_tag(text) {
        return Ok(Patch { snippets: vec![snippet] });
    }
    // Every fence: (path, content lines, span, head).
    let mut fences: Vec<Snippet<'_>> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (line, span) = lines[i];
        let Some((c, width, info)) = fence(line) else {
            i += 1;
            continue;
        };
        let close = (i + 1..lines.len())
            .find(|&j| fence(lines[j].0).is_some_and(|(cc, w, inf)| cc == c && w >= width && inf.is_empty()));
        let end = close.unwrap_or(lines.len());
        let path = info_path(info).or_else(|| {
            let above = i.checked_sub(1).map(|k| lines[k].0)?;
            path_line(above)
        });
        let content: Vec<(&str, Span)> = lines[i + 1..end].to_vec();
        let last = close.map_or_else(|| lines.last().map_or(span, |l| l.1), |j| lines[j].1);
        fences.push(Snippet { path, lines: content, span: Span::new(span.start, last.end), head: span });
        i = end + 1;
    }
    if fences.is_empty() {
        let bare: Vec<(&str, Span)> = lines;
        if bare.iter().all(|(l, _)| l.trim().is_empty()) {
            return Err(error(
                NO_SNIPPET,
                "the text is empty: write the snippet (the new version of the code that changes, `// ... existing code ...` for the rest)",
                None,
            ));
        }
        let span = Span::new(bare[0].1.start, bare[bare.len() - 1].1.end);
        let snippet = with_filepath_comment(Snippet { path: None, head: bare[0].1, lines: bare, span });
        return Ok(Patch { snippets: vec![snippet] });
    }
    let fences: Vec<Snippet<'_>> = fences.into_iter().map(with_filepath_comment).collect();
    let with_path: Vec<Snippet<'_>> = fences.iter().filter(|f| f.path.is_some()).cloned().collect();
    // A fence without a path that holds a marker, after one with a path: a ``` line inside
    // the snippet (a Markdown file's own fence) ended the snippet's fence early, and the
    // rest of the snippet would be lost.
    if !with_path.is_empty()
        && let Some(cut) = fences.iter().find(|f| f.path.is_none() && crate::lower::markers(f).iter().any(|m| *m))
    {
        return Err(error(
            SPLIT_SNIPPET,
            "a fence without a path holds a marker line after the snippet's fence: a ``` line inside the snippet \
             ended its fence early; fence a snippet that holds ``` lines with four backticks (````)",
            Some(cut.head),
        ));
    }
    let chosen = if with_path.is_empty() {
        let marked: Vec<Snippet<'_>> =
            fences.iter().filter(|f| crate::lower::markers(f).iter().any(|m| *m)).cloned().collect();
        if marked.is_empty() { fences } else { marked }
    } else {
        with_path
    };
    let snippets: Vec<Snippet<'_>> =
        chosen.into_iter().filter(|f| f.lines.iter().any(|(l, _)| !l.trim().is_empty())).collect();
    if snippets.is_empty() {
        return Err(error(NO_SNIPPET, "the fenced blocks are empty: write the snippet inside the fence", None));
    }
    Ok(Patch { snippets })
}

/// Reads the whole of `text` as one snippet, without looking for fences or tags: the
/// snippet argument of a tool call (Continue's `edit_existing_file` `changes`, Copilot's
/// `insert_edit_into_file` `code`), whose file the call names. A first line that is a
/// comment naming a file (`// filepath: src/x.ts`) is dropped and its path kept in
/// [`Snippet::path`], for the caller to compare with its own.
pub fn parse_bare(text: &str) -> Result<Patch<'_>, PatchError> {
    let lines = spanned_lines(text);
    if lines.iter().all(|(l, _)| l.trim().is_empty()) {
        return Err(error(
            NO_SNIPPET,
            "the snippet is empty: write the new version of the code that changes, `// ... existing code ...` for \
             the rest",
            None,
        ));
    }
    let span = Span::new(lines[0].1.start, lines[lines.len() - 1].1.end);
    let snippet = with_filepath_comment(Snippet { path: None, head: lines[0].1, lines, span });
    Ok(Patch { snippets: vec![snippet] })
}

/// A snippet whose first line is a comment naming its file (`// filepath: src/x.ts`, `#
/// filepath: app.py`, Copilot's and Continue's habit): that path, when the snippet names
/// none, and the line dropped.
fn with_filepath_comment(mut snippet: Snippet<'_>) -> Snippet<'_> {
    let Some(first) = snippet.lines.iter().position(|(l, _)| !l.trim().is_empty()) else { return snippet };
    let line = snippet.lines[first].0.trim();
    let body = ["//", "#", "--", "<!--", "/*", ";"]
        .iter()
        .find_map(|lead| line.strip_prefix(lead))
        .map(|rest| rest.trim().trim_end_matches("-->").trim_end_matches("*/").trim());
    let path = body.and_then(|b| {
        ["filepath:", "file:", "path:", "File:", "Filepath:", "Path:"]
            .iter()
            .find_map(|key| b.strip_prefix(key))
            .map(str::trim)
            .filter(|p| looks_like_path(p))
    });
    if let Some(path) = path {
        snippet.path = snippet.path.or(Some(path));
        snippet.lines.remove(first);
    }
    snippet
}

/// Morph's `<update>` … `</update>`: its lines.
fn update_tag(text: &str) -> Option<Snippet<'_>> {
    let open = text.find("<update>")?;
    let from = open + "<update>".len();
    let close = text[from..].find("</update>").map_or(text.len(), |c| from + c);
    // The content from the line after the tag when the tag ends its line.
    let mut start = from;
    if text[start..].starts_with("\r\n") {
        start += 2;
    } else if text[start..].starts_with('\n') {
        start += 1;
    }
    let mut end = close.max(start);
    // The line break before `</update>` ends the last line; it is not one more line.
    if text[..end].ends_with('\n') && end > start {
        end -= 1;
        if text[..end].ends_with('\r') {
            end -= 1;
        }
    }
    let body = &text[start..end];
    let lines: Vec<(&str, Span)> =
        spanned_lines(body).into_iter().map(|(l, s)| (l, Span::new(s.start + start, s.end + start))).collect();
    let head = Span::new(open, from);
    let span = Span::new(open, (close + "</update>".len()).min(text.len()));
    Some(Snippet { path: None, lines, span, head })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<Option<&str>> {
        parse(text).unwrap().snippets.iter().map(|s| s.path).collect()
    }

    #[test]
    fn the_path_comes_from_the_info_string_or_the_line_above() {
        assert_eq!(paths("```python src/app.py\nx\n```\n"), [Some("src/app.py")]);
        assert_eq!(paths("```ts path=src/x.ts\nx\n```\n"), [Some("src/x.ts")]);
        assert_eq!(paths("```12:15:app/Todo.tsx\nx\n```\n"), [Some("app/Todo.tsx")]);
        assert_eq!(paths("Change it:\n\n**src/lib.rs**\n```rust\nx\n```\n"), [Some("src/lib.rs")]);
        assert_eq!(paths("`Makefile.am`:\n```\nx\n```\n"), [Some("Makefile.am")]);
        assert_eq!(paths("Here is the fix:\n```python\n# ... existing code ...\nx\n```\n"), [None]);
        // The fences that name a path are the snippets; an example without one is prose.
        assert_eq!(paths("```bash\ncargo test\n```\n\n```rust src/a.rs\nx\n```\n"), [Some("src/a.rs")]);
        // Copilot's and Continue's first-line comment.
        assert_eq!(paths("```ts\n// filepath: src/x.ts\n// ...\nx\n```\n"), [Some("src/x.ts")]);
        assert_eq!(paths("# filepath: app.py\n# ...\nx\n"), [Some("app.py")]);
    }

    #[test]
    fn morph_tags_and_bare_text() {
        let p = parse(
            "<instruction>fix</instruction>\n<code>old</code>\n<update>\na\n// ... existing code ...\n</update>\n",
        )
        .unwrap();
        let lines: Vec<&str> = p.snippets[0].lines.iter().map(|l| l.0).collect();
        assert_eq!(lines, ["a", "// ... existing code ..."]);
        let p = parse("a\r\n# ...\r\nb").unwrap();
        let lines: Vec<&str> = p.snippets[0].lines.iter().map(|l| l.0).collect();
        assert_eq!(lines, ["a", "# ...", "b"]);
        assert_eq!(parse("\n  \n").unwrap_err().kind, NO_SNIPPET);
        // A Markdown snippet whose own ``` line closed the fence: the rest is not dropped.
        let cut = "```markdown docs/a.md\n<!-- ... -->\ntext\n```\ncode\n```\n<!-- ... -->\n```\n";
        assert_eq!(parse(cut).unwrap_err().kind, SPLIT_SNIPPET);
        let whole = "````markdown docs/a.md\n<!-- ... -->\ntext\n```\ncode\n```\n<!-- ... -->\n````\n";
        assert_eq!(parse(whole).unwrap().snippets[0].lines.len(), 6);
    }

    #[test]
    fn a_bare_snippet_is_the_whole_text_fences_and_tags_included() {
        let text = "<!-- ... -->\n## Install\n```bash\ncargo add x\n```\n<update>\n<!-- ... -->";
        let p = parse_bare(text).unwrap();
        let lines: Vec<&str> = p.snippets[0].lines.iter().map(|l| l.0).collect();
        assert_eq!(lines, ["<!-- ... -->", "## Install", "```bash", "cargo add x", "```", "<update>", "<!-- ... -->"]);
        assert_eq!(p.snippets[0].path, None);
        let p = parse_bare("// filepath: src/x.ts\n// ...\nx();\n").unwrap();
        assert_eq!(p.snippets[0].path, Some("src/x.ts"));
        assert_eq!(p.snippets[0].lines.len(), 2);
        assert_eq!(parse_bare(" \n").unwrap_err().kind, NO_SNIPPET);
    }
}
