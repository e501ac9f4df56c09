//! Texts the command line prints about itself and its dialects: `prompt` (instructions for
//! a model), `completions` (a shell's completion script) and `man` (the manual page).

use clap_complete::Shell;

/// `prompt --format F`: the instructions for dialect `format`, or an error listing the
/// dialects that have one.
pub fn prompt(format: &str) -> anyhow::Result<&'static str> {
    polypatch::prompt(format).ok_or_else(|| {
        anyhow::anyhow!(
            "unknown format `{format}`; known formats: {}",
            polypatch::Dialects::global().names().join(", ")
        )
    })
}

/// `completions SHELL`: the completion script for `shell`.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut crate::cli::command(), "polypatch", &mut out);
    out
}

/// `man`: the manual page in roff (the verbs are listed with a line each; `polypatch VERB
/// --help` and `man --dir` have their options).
pub fn man() -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(crate::cli::command()).render(&mut out)?;
    Ok(out)
}

/// `man --dir DIR`: `polypatch.1` and `polypatch-VERB.1` for every verb, written into `dir`.
pub fn man_pages(dir: &std::path::Path) -> std::io::Result<()> {
    clap_mangen::generate_to(crate::cli::command(), dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_has_a_prompt_and_others_are_refused() {
        for name in polypatch::Dialects::global().names() {
            assert!(!prompt(name).unwrap().is_empty(), "{name}");
        }
        let message = prompt("auto").unwrap_err().to_string();
        assert!(message.starts_with("unknown format `auto`; known formats: "), "{message}");
        for name in polypatch::Dialects::global().names() {
            assert!(message.contains(name), "{message}");
        }
    }
}
