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
/// The page has the sections clap writes, then EXIT STATUS and ENVIRONMENT; no `help`
/// verb is listed (`polypatch VERB --help` is the help, and no `polypatch-help(1)` is
/// written).
pub fn man() -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(crate::cli::command().disable_help_subcommand(true));
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    man.render_options_section(&mut out)?;
    man.render_subcommands_section(&mut out)?;
    man.render_extra_section(&mut out)?;
    out.extend_from_slice(MAN_SECTIONS.as_bytes());
    man.render_version_section(&mut out)?;
    Ok(out)
}

/// The manual page's EXIT STATUS and ENVIRONMENT sections, in roff.
const MAN_SECTIONS: &str = r#".SH "EXIT STATUS"
.TP
\fB0\fR
The patch was applied (or was already applied), checked, shown or printed.
.TP
\fB1\fR
The patch could not be applied to the files, and nothing was written (with \fB\-\-partial\fR: the files whose edits all located were written, the others were not); \fBdetect\fR and \fBextract\fR found no patch; \fBrecover\fR could not roll a commit back.
.TP
\fB2\fR
A malformed patch, a usage error, a file that cannot be read, or a request that cannot be met (a patch \fB\-R\fR cannot invert, a dialect \fBconvert\fR cannot write).
.SH ENVIRONMENT
.TP
\fBNO_COLOR\fR
When set and not empty, \fB\-\-color auto\fR does not color.
.TP
\fBCLICOLOR_FORCE\fR
When set and not \fB0\fR, \fB\-\-color auto\fR colors even when the output is not a terminal.
.TP
\fBPOLYPATCH_FSYNC\fR
The default of \fB\-\-fsync\fR: \fBnone\fR or \fBfull\fR.
"#;

/// `man --dir DIR`: `polypatch.1` and `polypatch-VERB.1` for every verb, written into `dir`.
pub fn man_pages(dir: &std::path::Path) -> std::io::Result<()> {
    clap_mangen::generate_to(crate::cli::command(), dir)?;
    std::fs::write(dir.join("polypatch.1"), man()?)
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
