//! Differential test of the unified dialect against `git apply`: the same diff applied to the
//! same tree by both must leave byte-identical trees (and the same executable bits).
//!
//! The diffs are real git output:
//! - every file section of the latest commits of this repository's own history (60;
//!   `POLYPATCH_GIT_HISTORY=all` or a number for more)
//!   (`git diff --binary --full-index -M <parent> <commit>`), each applied alone to the
//!   parent's files the commit touches, and every whole commit applied as one multi-file
//!   patch;
//! - generated cases: a scratch repository per case, a commit, a change (edits, CRLF files,
//!   missing final newlines, renames, copies, mode changes, binary files, deletions), and
//!   `git diff` of the change;
//! - plain `diff -ruN` output of the same edits, checked against GNU `patch -p1` instead.
//!
//! Every exact diff must apply at the exact tier; polypatch never needs leniency for a diff
//! git made against the very tree it is applied to. The one intended divergence is
//! [`ZERO_CONTEXT_INSERTION`]; such a case passes only when git applies it and polypatch
//! refuses it with that kind.
//!
//! Without git, or in a clone without history, the history part prints that it was skipped.

#[allow(dead_code, reason = "this suite uses only the tree reader of the shared helpers")]
mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use polypatch::{
    ApplyOptions, DiskFileSet,
    plan::FileOp,
    report::{Status, Tier},
};

/// The one intended divergence these cases meet. Every other case must leave the same tree
/// as git.
const ZERO_CONTEXT_INSERTION: &str = "a -U0 hunk that only adds lines (`@@ -6,0 +7 @@`) has nothing to locate but its \
     line number; git applies it there with --unidiff-zero, polypatch refuses it at parse time (kind no_context) \
     because a line number alone does not show that the file is the one the diff was made from";

/// Path → (bytes, executable).
type Tree = BTreeMap<String, (Vec<u8>, bool)>;

/// One case: a base tree (files to write), a diff, and a name.
struct Case {
    base: Vec<(String, Vec<u8>, bool)>,
    diff: String,
    /// Whether the diff was made without context (`-U0`): git applies it only with
    /// `--unidiff-zero`.
    zero_context: bool,
    /// The oracle: `git apply`, or GNU `patch -p1` for plain `diff -u` output.
    oracle: Oracle,
    /// An intended divergence: the oracle refuses the diff on `base`, polypatch applies it
    /// and must leave these files.
    lenient: Option<Lenient>,
}

/// A declared divergence from git: a diff git refuses, that polypatch applies.
struct Lenient {
    /// Why polypatch applies it, printed when the case runs.
    reason: &'static str,
    /// Path → bytes polypatch must leave.
    want: Vec<(String, Vec<u8>)>,
}

/// What the case's diff is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Oracle {
    /// `git apply --binary` (git diffs).
    Git,
    /// GNU `patch -p1` (plain `diff -u`/`diff -ruN` output).
    Patch,
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    if git_available() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
        match history_cases(repo) {
            Ok(cases) if !cases.is_empty() => trials.extend(cases.into_iter().map(trial)),
            Ok(_) => eprintln!("git_apply: {} has no history: history cases skipped", repo.display()),
            Err(e) => eprintln!("git_apply: cannot read the history of {}: {e}: history cases skipped", repo.display()),
        }
        trials.extend(generated_cases().into_iter().map(trial));
    } else {
        eprintln!("git_apply: git is not installed: skipped");
    }
    libtest_mimic::run(&args, trials).exit();
}

fn trial((name, case): (String, Case)) -> Trial {
    let case = Arc::new(case);
    Trial::test(name, move || run_case(&case))
}

fn git_available() -> bool {
    Command::new("git").arg("--version").stdout(Stdio::null()).status().is_ok_and(|s| s.success())
}

fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

fn git_text(dir: &Path, args: &[&str]) -> Result<String, String> {
    String::from_utf8(git(dir, args)?).map_err(|e| format!("git {}: not UTF-8: {e}", args.join(" ")))
}

/// The files `paths` of `commit`'s tree: each blob with its executable bit (symlinks and
/// submodules left out), read through one `git cat-file --batch`.
fn tree_at(
    repo: &Path,
    commit: &str,
    paths: &std::collections::HashSet<String>,
) -> Result<Vec<(String, Vec<u8>, bool)>, String> {
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    let listing = git(repo, &["ls-tree", "-r", "-z", commit])?;
    let mut entries = Vec::new();
    for entry in listing.split(|&b| b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        let (meta, path) = entry.split_once('\t').ok_or("bad ls-tree line")?;
        let meta: Vec<&str> = meta.split(' ').collect();
        if meta.len() == 3 && meta[1] == "blob" && meta[0] != "120000" && paths.contains(path) {
            entries.push((path.to_string(), meta[2].to_string(), meta[0] == "100755"));
        }
    }
    let mut child = Command::new("git")
        .current_dir(repo)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run git cat-file: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped stdin");
    let ids: String = entries.iter().map(|(_, id, _)| id.as_str()).collect::<Vec<_>>().join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(ids.as_bytes()));
    let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut out = Vec::with_capacity(entries.len());
    for (path, _, exec) in entries {
        let mut header = String::new();
        reader.read_line(&mut header).map_err(|e| e.to_string())?;
        let size: usize =
            header.trim_end().rsplit(' ').next().and_then(|n| n.parse().ok()).ok_or("bad cat-file header")?;
        let mut bytes = vec![0; size + 1];
        reader.read_exact(&mut bytes).map_err(|e| e.to_string())?;
        bytes.pop(); // the newline after the content
        out.push((path, bytes, exec));
    }
    writer.join().expect("writer thread").map_err(|e| e.to_string())?;
    child.wait().map_err(|e| e.to_string())?;
    Ok(out)
}

/// How many of the latest commits the history cases replay by default: the whole history
/// grows with every commit (it peaked at 3.8 GB and 64 s with whole trees read per commit).
/// `POLYPATCH_GIT_HISTORY=all` (or a number) replays more.
const HISTORY_COMMITS: usize = 60;

/// The number of latest commits to replay: `POLYPATCH_GIT_HISTORY` (`all` or a number), else
/// [`HISTORY_COMMITS`].
fn history_depth() -> Result<usize, String> {
    match std::env::var("POLYPATCH_GIT_HISTORY") {
        Err(_) => Ok(HISTORY_COMMITS),
        Ok(v) if v == "all" => Ok(usize::MAX),
        Ok(v) => v.parse().map_err(|_| format!("POLYPATCH_GIT_HISTORY={v}: give `all` or a number of commits")),
    }
}

/// The paths `git diff -M parent commit` touches (both sides of a rename or copy).
fn touched(repo: &Path, parent: &str, commit: &str) -> Result<std::collections::HashSet<String>, String> {
    let listing = git(repo, &["diff", "--name-status", "-z", "-M", parent, commit])?;
    // `-z`: status, then one path (two for a rename or copy), each ended by a NUL.
    let mut fields = listing.split(|&b| b == 0).filter(|f| !f.is_empty());
    let mut paths = std::collections::HashSet::new();
    while let Some(status) = fields.next() {
        let count = if matches!(status.first(), Some(b'R' | b'C')) { 2 } else { 1 };
        for _ in 0..count {
            let path = fields.next().ok_or("git diff --name-status: a status without its path")?;
            paths.insert(String::from_utf8_lossy(path).into_owned());
        }
    }
    Ok(paths)
}

/// One case per file section and one per whole commit, from this repository's history (the
/// latest [`history_depth`] commits), each on the parent's files the diff touches.
fn history_cases(repo: &Path) -> Result<Vec<(String, Case)>, String> {
    if git_text(repo, &["rev-parse", "--is-shallow-repository"])?.trim() == "true" {
        return Err("the clone is shallow".into());
    }
    let depth = history_depth()?;
    let commits = git_text(repo, &["rev-list", "--first-parent", "--reverse", "HEAD"])?;
    let commits: Vec<&str> = commits.lines().collect();
    let commits = &commits[commits.len().saturating_sub(depth.saturating_add(1))..];
    eprintln!(
        "git_apply: replaying the latest {} commits (POLYPATCH_GIT_HISTORY=all for the whole history)",
        commits.len().saturating_sub(1)
    );
    let mut cases = Vec::new();
    for pair in commits.windows(2) {
        let (parent, commit) = (pair[0], pair[1]);
        let short = &commit[..10];
        let diff = git(repo, &["diff", "--binary", "--full-index", "-M", parent, commit])?;
        // A diff of a file that is not UTF-8 is read without loss, as the CLI reads it.
        let diff = polypatch::fs::decode_lossless(&diff).into_owned();
        let base = tree_at(repo, parent, &touched(repo, parent, commit)?)?;
        for (i, section) in split_sections(&diff).into_iter().enumerate() {
            let name = format!("history::{short}::{:03}", i + 1);
            cases.push((
                name,
                Case { base: base.clone(), diff: section, zero_context: false, oracle: Oracle::Git, lenient: None },
            ));
        }
        cases.push((
            format!("history::{short}::all"),
            Case { base, diff, zero_context: false, oracle: Oracle::Git, lenient: None },
        ));
    }
    Ok(cases)
}

/// The `diff --git` sections of a diff, each with its own text.
fn split_sections(diff: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in diff.split_inclusive('\n') {
        if line.starts_with("diff --git ") || out.is_empty() {
            out.push(String::new());
        }
        out.last_mut().expect("a section").push_str(line);
    }
    out
}

fn run_case(case: &Case) -> Result<(), Failed> {
    let scratch = tempfile::Builder::new().prefix("polypatch-git-apply-").tempdir().map_err(|e| e.to_string())?;
    let scratch = scratch.path().canonicalize().map_err(|e| e.to_string())?;
    let (ours, theirs) = (scratch.join("ours"), scratch.join("theirs"));
    let patch = scratch.join("patch.diff");
    // The diff's bytes: a diff of a file that is not UTF-8 is held without loss.
    fs::write(&patch, polypatch::engine::encode_lossless(&case.diff)).map_err(|e| e.to_string())?;
    let plan = match polypatch::parse(&case.diff, polypatch::Format::Unified) {
        Ok(plan) => plan,
        Err(e) if case.zero_context && e.kind == polypatch::unified::error::NO_CONTEXT => {
            // The declared divergence: git must apply it, polypatch refuses it.
            write_tree(&theirs, &case.base).map_err(|e| e.to_string())?;
            oracle_apply(&theirs, &patch, case)?;
            eprintln!("declared divergence: {ZERO_CONTEXT_INSERTION}");
            return Ok(());
        }
        Err(e) => return Err(e.render(&case.diff).into()),
    };
    // Only the files the diff names: the trees of other files would only cost time.
    let named: Vec<&str> = plan
        .files
        .iter()
        .flat_map(|f| {
            let (from, to) = match &f.op {
                FileOp::Modify(m) => (m.copy_from.as_deref(), m.move_to.as_deref()),
                _ => (None, None),
            };
            [Some(f.path.as_str()), from, to]
        })
        .flatten()
        .collect();
    let base: Vec<(String, Vec<u8>, bool)> =
        case.base.iter().filter(|(path, _, _)| named.contains(&path.as_str())).cloned().collect();
    for root in [&ours, &theirs] {
        write_tree(root, &base).map_err(|e| e.to_string())?;
    }
    if let Some(lenient) = &case.lenient {
        if oracle_apply(&theirs, &patch, case).is_ok() {
            return Err("declared as a divergence, but git applies this diff: drop the divergence".into());
        }
        let mut files = DiskFileSet::new(&ours).map_err(|e| e.to_string())?;
        polypatch::apply(&plan, &mut files, &ApplyOptions::default())
            .map_err(|e| format!("polypatch refused a declared leniency:\n{}", e.report))?;
        for (path, want) in &lenient.want {
            let got = fs::read(ours.join(path)).map_err(|e| e.to_string())?;
            if got != *want {
                return Err(format!("`{path}`: polypatch left {got:?}, the divergence promises {want:?}").into());
            }
        }
        eprintln!("declared divergence: {}", lenient.reason);
        return Ok(());
    }
    oracle_apply(&theirs, &patch, case)?;

    let mut files = DiskFileSet::new(&ours).map_err(|e| e.to_string())?;
    let report = polypatch::apply(&plan, &mut files, &ApplyOptions::default())
        .map_err(|e| format!("polypatch failed where git applied:\n{}", e.report))?;
    for file in &report.files {
        for edit in &file.edits {
            if edit.status == Status::Applied && edit.tier != Some(Tier::Exact) {
                return Err(format!("{}: {} applied at {:?}, not exact", file.path, edit.label, edit.tier).into());
            }
        }
    }
    let (a, b) = (read_tree(&ours).map_err(|e| e.to_string())?, read_tree(&theirs).map_err(|e| e.to_string())?);
    compare(&a, &b).map_err(Into::into)
}

/// Applies the diff with the case's oracle in `root`: `git apply` (outside any repository
/// it behaves like patch(1) with git's rules) or GNU `patch -p1`. A failure fails the case:
/// the diff was made for this very tree.
fn oracle_apply(root: &Path, patch: &Path, case: &Case) -> Result<(), Failed> {
    let mut command = match case.oracle {
        Oracle::Git => {
            let mut c = Command::new("git");
            c.args(["apply", "--binary"]).args(case.zero_context.then_some("--unidiff-zero")).arg(patch);
            c.env("GIT_CEILING_DIRECTORIES", root.parent().unwrap_or(root));
            c
        }
        Oracle::Patch => {
            let mut c = Command::new("patch");
            c.args(["-p1", "-s", "-f", "--no-backup-if-mismatch", "-i"]).arg(patch);
            c
        }
    };
    let out = command.current_dir(root).output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "the oracle ({:?}) failed on a diff made for this tree: {}{}",
            case.oracle,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
        .into())
    }
}

/// A plain `diff -ru -N` case: `before` in `a/`, `after` in `b/` (a missing side is a
/// missing file), diffed by GNU diff with `-U<context>` and applied with GNU patch.
fn gnu_case(before: &[(&str, &[u8])], after: &[(&str, &[u8])], context: usize) -> Result<Case, String> {
    let dir = tempfile::Builder::new().prefix("polypatch-gnu-").tempdir().map_err(|e| e.to_string())?;
    for (side, files) in [("a", before), ("b", after)] {
        let files: Vec<(String, Vec<u8>, bool)> =
            files.iter().map(|(p, b)| ((*p).to_string(), b.to_vec(), false)).collect();
        write_tree(&dir.path().join(side), &files).map_err(|e| e.to_string())?;
    }
    let out = Command::new("diff")
        .current_dir(dir.path())
        .args(["-ruN", &format!("-U{context}"), "a", "b"])
        .output()
        .map_err(|e| format!("cannot run diff: {e}"))?;
    // diff exits 1 when the trees differ.
    if out.status.code() != Some(1) {
        return Err(format!("diff failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let diff = polypatch::fs::decode_lossless(&out.stdout).into_owned();
    let base = before.iter().map(|(p, b)| ((*p).to_string(), b.to_vec(), false)).collect();
    Ok(Case { base, diff, zero_context: context == 0, oracle: Oracle::Patch, lenient: None })
}

fn write_tree(root: &Path, files: &[(String, Vec<u8>, bool)]) -> std::io::Result<()> {
    fs::create_dir_all(root)?;
    for (path, bytes, exec) in files {
        let dst = root.join(path);
        if let Some(parent) = dst.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&dst, bytes)?;
        set_exec(&dst, *exec)?;
    }
    Ok(())
}

#[cfg(unix)]
fn set_exec(path: &Path, exec: bool) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    fs::set_permissions(path, fs::Permissions::from_mode(if exec { 0o755 } else { 0o644 }))
}

#[cfg(not(unix))]
fn set_exec(_: &Path, _: bool) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn is_exec(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_exec(_: &fs::Metadata) -> bool {
    false
}

fn read_tree(root: &Path) -> std::io::Result<Tree> {
    let mut tree = Tree::new();
    for (rel, bytes) in common::read_tree(root)? {
        let exec = is_exec(&fs::metadata(root.join(&rel))?);
        tree.insert(rel, (bytes, exec));
    }
    Ok(tree)
}

fn compare(ours: &Tree, git: &Tree) -> Result<(), String> {
    let mut out = String::new();
    for (path, (want, want_x)) in git {
        match ours.get(path) {
            None => writeln!(out, "git has `{path}`, polypatch does not").unwrap(),
            Some((got, _)) if got != want => {
                let at = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(got.len().min(want.len()));
                writeln!(out, "`{path}` differs from byte {at} (polypatch {} bytes, git {})", got.len(), want.len())
                    .unwrap();
            }
            Some((_, got_x)) if got_x != want_x => {
                writeln!(out, "`{path}`: executable bit {got_x} (polypatch) vs {want_x} (git)").unwrap();
            }
            Some(_) => {}
        }
    }
    for path in ours.keys().filter(|p| !git.contains_key(*p)) {
        writeln!(out, "polypatch has `{path}`, git does not").unwrap();
    }
    if out.is_empty() { Ok(()) } else { Err(out) }
}

/// A scratch repository: `before` is committed, `change` edits the work tree, and the case is
/// `git diff` (with `extra` arguments) of the change against the commit.
fn scratch_case(
    before: &[(&str, &[u8], bool)],
    change: impl FnOnce(&Path) -> std::io::Result<()>,
    extra: &[&str],
) -> Result<Case, String> {
    let dir = tempfile::Builder::new().prefix("polypatch-gen-").tempdir().map_err(|e| e.to_string())?;
    let repo = dir.path();
    git(repo, &["init", "-q"])?;
    git(repo, &["config", "core.autocrlf", "false"])?;
    let base: Vec<(String, Vec<u8>, bool)> =
        before.iter().map(|(p, b, x)| ((*p).to_string(), b.to_vec(), *x)).collect();
    write_tree(repo, &base).map_err(|e| e.to_string())?;
    git(repo, &["add", "-A"])?;
    git(repo, &["commit", "-q", "--allow-empty", "-m", "before"])?;
    change(repo).map_err(|e| e.to_string())?;
    git(repo, &["add", "-A"])?;
    let mut args = vec!["diff", "--cached", "--binary", "--full-index"];
    args.extend_from_slice(extra);
    let diff = polypatch::fs::decode_lossless(&git(repo, &args)?).into_owned();
    Ok(Case { base, diff, zero_context: extra.contains(&"-U0"), oracle: Oracle::Git, lenient: None })
}

/// A small deterministic generator (xorshift), so generated cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &["fn main() {", "}", "    let x = 1;", "    x += 1;", "", "// note", "    return x;", "end"];

/// A text of `n` lines drawn from a small vocabulary (so lines repeat, as in code).
fn text(rng: &mut Rng, n: usize, eol: &str, final_newline: bool) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..n {
        let w = WORDS[rng.below(WORDS.len())];
        write!(out, "{w} {}", rng.below(40)).unwrap();
        if i + 1 < n || final_newline {
            out.push_str(eol);
        }
    }
    out.into_bytes()
}

/// Random line edits: replace, insert and delete lines, keeping the line ending style.
fn mutate(rng: &mut Rng, before: &[u8], eol: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(before);
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    for _ in 0..=rng.below(4) {
        let at = rng.below(lines.len() + 1);
        match rng.below(3) {
            0 if at < lines.len() => {
                lines[at] = format!("changed {}{eol}", rng.below(1000));
            }
            1 if at < lines.len() => {
                lines.remove(at);
            }
            _ => lines.insert(at, format!("inserted {}{eol}", rng.below(1000))),
        }
    }
    lines.concat().into_bytes()
}

fn generated_cases() -> Vec<(String, Case)> {
    let mut cases: Vec<(String, Case)> = Vec::new();
    let mut push = |name: String, case: Result<Case, String>| match case {
        Ok(case) => cases.push((name, case)),
        Err(e) => panic!("cannot generate case {name}: {e}"),
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for i in 0..40 {
        let eol = if i % 4 == 3 { "\r\n" } else { "\n" };
        let final_newline = i % 5 != 4;
        let n = 5 + rng.below(60);
        let before = text(&mut rng, n, eol, final_newline);
        let mut after = mutate(&mut rng, &before, eol);
        if i % 7 == 6 {
            // Toggle the final newline.
            if after.ends_with(b"\n") {
                after.truncate(after.len() - eol.len());
            } else {
                after.extend_from_slice(eol.as_bytes());
            }
        }
        let context = ["-U3", "-U1", "-U0", "-U5"][i % 4];
        let case = scratch_case(&[("f.txt", &before, false)], |r| fs::write(r.join("f.txt"), &after), &[context]);
        push(format!("generated::edit_{i:02}{}", context.to_lowercase()), case);
        let u = [3, 1, 0, 5][i % 4];
        let case = gnu_case(&[("f.txt", &before)], &[("f.txt", &after)], u);
        push(format!("gnu-patch::edit_{i:02}-u{u}"), case);
    }
    let a = text(&mut rng, 30, "\n", true);
    let b = text(&mut rng, 12, "\n", true);
    let bin: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let mut bin2 = bin.clone();
    for k in [100, 2000, 4000] {
        bin2[k] ^= 0xff;
    }
    let a2 = mutate(&mut rng, &a, "\n");
    push(
        "generated::new_file".into(),
        scratch_case(
            &[("a.txt", &a, false)],
            |r| {
                fs::create_dir_all(r.join("dir"))?;
                fs::write(r.join("dir/new.txt"), &b)
            },
            &[],
        ),
    );
    push(
        "generated::deleted_file".into(),
        scratch_case(&[("a.txt", &a, false), ("b.txt", &b, false)], |r| fs::remove_file(r.join("b.txt")), &[]),
    );
    push(
        "generated::empty_new_file".into(),
        scratch_case(&[("a.txt", &a, false)], |r| fs::write(r.join("empty"), b""), &[]),
    );
    push(
        "generated::empty_file_deleted".into(),
        scratch_case(&[("a.txt", &a, false), ("empty", b"", false)], |r| fs::remove_file(r.join("empty")), &[]),
    );
    push(
        "generated::rename".into(),
        scratch_case(&[("a.txt", &a, false)], |r| fs::rename(r.join("a.txt"), r.join("moved.txt")), &["-M"]),
    );
    push(
        "generated::rename_and_edit".into(),
        scratch_case(
            &[("a.txt", &a, false)],
            |r| {
                fs::remove_file(r.join("a.txt"))?;
                fs::write(r.join("renamed.txt"), &a2)
            },
            &["-M"],
        ),
    );
    push(
        "generated::copy_and_edit".into(),
        scratch_case(&[("a.txt", &a, false)], |r| fs::write(r.join("copy.txt"), &a2), &["-C", "-C"]),
    );
    push(
        "generated::mode_only".into(),
        scratch_case(&[("run.sh", &a, false)], |r| set_exec(&r.join("run.sh"), true), &[]),
    );
    push(
        "generated::mode_and_edit".into(),
        scratch_case(
            &[("run.sh", &a, true)],
            |r| {
                fs::write(r.join("run.sh"), &a2)?;
                set_exec(&r.join("run.sh"), false)
            },
            &[],
        ),
    );
    push(
        "generated::new_executable".into(),
        scratch_case(
            &[("a.txt", &a, false)],
            |r| {
                fs::write(r.join("x.sh"), &b)?;
                set_exec(&r.join("x.sh"), true)
            },
            &[],
        ),
    );
    push(
        "generated::binary_literal_new".into(),
        scratch_case(&[("a.txt", &a, false)], |r| fs::write(r.join("img.bin"), &bin), &[]),
    );
    push(
        "generated::binary_delta".into(),
        scratch_case(&[("img.bin", &bin, false)], |r| fs::write(r.join("img.bin"), &bin2), &[]),
    );
    push(
        "generated::binary_deleted".into(),
        scratch_case(&[("img.bin", &bin, false)], |r| fs::remove_file(r.join("img.bin")), &[]),
    );
    push(
        "generated::quoted_paths".into(),
        scratch_case(
            &[("sp ace.txt", &a, false), ("tab\there.txt", &b, false), ("caf\u{e9}.txt", &b, false)],
            |r| {
                fs::write(r.join("sp ace.txt"), &a2)?;
                fs::write(r.join("tab\there.txt"), &a)?;
                fs::rename(r.join("caf\u{e9}.txt"), r.join("th\u{e9}.txt"))
            },
            &["-M"],
        ),
    );
    push(
        "generated::lone_cr_inside_lines".into(),
        scratch_case(
            &[("cr.txt", b"a\rb\nc\rd\ne\n", false)],
            |r| fs::write(r.join("cr.txt"), b"a\rb\nC\rD\ne\n"),
            &[],
        ),
    );
    push(
        "generated::crlf_to_lf".into(),
        scratch_case(&[("w.txt", b"one\r\ntwo\r\n", false)], |r| fs::write(r.join("w.txt"), b"one\ntwo\n"), &[]),
    );
    push(
        "generated::several_files".into(),
        scratch_case(
            &[("a.txt", &a, false), ("b.txt", &b, false), ("sub/c.txt", &a, false)],
            |r| {
                fs::write(r.join("a.txt"), &a2)?;
                fs::remove_file(r.join("b.txt"))?;
                fs::write(r.join("sub/c.txt"), &b)?;
                fs::write(r.join("sub/d.txt"), &a)
            },
            &["-M"],
        ),
    );
    bom_cases(&mut push);
    latin1_cases(&mut push);
    mixed_ending_cases(&mut Rng(0x2545_f491_4f6c_dd1d), &mut push);
    let (a3, b3) = (mutate(&mut rng, &a, "\n"), mutate(&mut rng, &b, "\n"));
    push(
        "gnu-patch::tree_new_deleted_modified".into(),
        gnu_case(
            &[("x.txt", &a), ("gone.txt", &b), ("sub/y.txt", &b)],
            &[("x.txt", &a3), ("sub/y.txt", &b3), ("sub/new.txt", &a)],
            3,
        ),
    );
    cases
}

/// The intended divergence of [`bom_cases`]' last case.
const BOM_NOT_IN_DIFF: &str = "a diff written without the byte order mark, applied to a file that has one: git \
     refuses (its line 1 holds the mark's bytes, the diff's does not); polypatch matches the lines without the mark, \
     which is an encoding marker and not content, and keeps it once at the start of the file";

/// UTF-8 files with a byte order mark: git reads the mark as bytes of line 1, so a diff
/// that shows it keeps, removes, adds or moves exactly those bytes.
fn bom_cases(push: &mut impl FnMut(String, Result<Case, String>)) {
    let bom_file: &[u8] = b"\xef\xbb\xbfone\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";
    let edits: [(&str, &[u8]); 6] = [
        ("bom_kept_line_1_edited", b"\xef\xbb\xbfONE\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"),
        ("bom_kept_edit_below", b"\xef\xbb\xbfone\ntwo\nTHREE\nfour\nfive\nsix\nseven\neight\n"),
        ("bom_kept_edit_far_below", b"\xef\xbb\xbfone\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n"),
        ("bom_removed", b"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"),
        ("bom_moved_by_insertion_above_line_1", b"zero\n\xef\xbb\xbfone\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"),
        ("bom_kept_insertion_after_mark", b"\xef\xbb\xbfzero\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"),
    ];
    for (name, after) in edits {
        let case = scratch_case(&[("b.txt", bom_file, false)], |r| fs::write(r.join("b.txt"), after), &[]);
        push(format!("generated::{name}"), case);
    }
    let plain: &[u8] = b"one\ntwo\nthree\n";
    push(
        "generated::bom_added".into(),
        scratch_case(&[("b.txt", plain, false)], |r| fs::write(r.join("b.txt"), b"\xef\xbb\xbfone\ntwo\nthree\n"), &[]),
    );
    // CRLF with a mark.
    push(
        "generated::bom_crlf_line_1_edited".into(),
        scratch_case(
            &[("b.txt", b"\xef\xbb\xbfone\r\ntwo\r\n", false)],
            |r| fs::write(r.join("b.txt"), b"\xef\xbb\xbfONE\r\ntwo\r\n"),
            &[],
        ),
    );
    // The diff is made from the file without its mark and applied to the file with it.
    for (name, after, want) in [
        ("bom_not_in_diff_line_1_edited", &b"ONE\ntwo\nthree\n"[..], &b"\xef\xbb\xbfONE\ntwo\nthree\n"[..]),
        ("bom_not_in_diff_insertion_above_line_1", b"zero\none\ntwo\nthree\n", b"\xef\xbb\xbfzero\none\ntwo\nthree\n"),
    ] {
        let case = scratch_case(&[("b.txt", plain, false)], |r| fs::write(r.join("b.txt"), after), &[]).map(|mut c| {
            c.base = vec![("b.txt".into(), b"\xef\xbb\xbfone\ntwo\nthree\n".to_vec(), false)];
            c.lenient = Some(Lenient { reason: BOM_NOT_IN_DIFF, want: vec![("b.txt".into(), want.to_vec())] });
            c
        });
        push(format!("generated::{name}"), case);
    }
}

/// Files that mix `\n` and `\r\n` lines: git writes each line of the diff with the ending
/// the diff gives it, so a replaced `\n` line in a mostly-CRLF file stays `\n`.
fn mixed_ending_cases(rng: &mut Rng, push: &mut impl FnMut(String, Result<Case, String>)) {
    let crlf_then_lf: &[u8] = b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\nd\ne\nf\ng\nh\ni\n";
    let fixed: [(&str, &[u8], &[u8], &str); 6] = [
        ("mixed_lf_line_replaced", crlf_then_lf, b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\nd\ne\nf\nG\nh\ni\n", "-U1"),
        ("mixed_last_line_without_newline_replaced", b"a\r\na\na", b"a\r\na\na\naa\n", "-U1"),
        ("mixed_lf_line_inserted", crlf_then_lf, b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\nd\ne\nf\nnew\ng\nh\ni\n", "-U2"),
        (
            "mixed_crlf_line_replaced_in_lf_file",
            b"a\nb\nc\nd\ne\nf\nX\r\ng\nh\n",
            b"a\nb\nc\nd\ne\nf\nY\r\ng\nh\n",
            "-U3",
        ),
        ("mixed_line_end_changed", crlf_then_lf, b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\nd\ne\r\nf\ng\nh\ni\n", "-U3"),
        (
            "mixed_hunk_across_the_border",
            crlf_then_lf,
            b"1\r\n2\r\n3\r\n4\r\n5\r\n6\r\nseven\r\nD\ne\nf\ng\nh\ni\n",
            "-U1",
        ),
    ];
    for (name, before, after, context) in fixed {
        let case = scratch_case(&[("m.txt", before, false)], |r| fs::write(r.join("m.txt"), after), &[context]);
        push(format!("generated::{name}"), case);
    }
    // Random edits of random mixed files; new lines get a random ending too.
    for i in 0..12 {
        let n = 8 + rng.below(30);
        let mut before = Vec::new();
        for k in 0..n {
            let eol: &[u8] = if rng.below(3) == 0 { b"\r\n" } else { b"\n" };
            before.extend_from_slice(format!("{} {k}", WORDS[rng.below(WORDS.len())]).as_bytes());
            before.extend_from_slice(eol);
        }
        let eol = if i % 2 == 0 { "\n" } else { "\r\n" };
        let after = mutate(rng, &before, eol);
        let context = ["-U3", "-U1", "-U2"][i % 3];
        let case = scratch_case(&[("m.txt", &before, false)], |r| fs::write(r.join("m.txt"), &after), &[context]);
        push(format!("generated::mixed_endings_{i:02}{context}"), case);
    }
}

/// Files that are not UTF-8 (Latin-1), and diffs that carry their bytes: git applies them
/// byte for byte, and so must polypatch, exact matching on bytes, line numbers free to drift.
fn latin1_cases(push: &mut impl FnMut(String, Result<Case, String>)) {
    let latin1: &[u8] = b"caf\xe9\nna\xefve\nplain 1\nplain 2\nplain 3\nplain 4\nplain 5\nplain 6\nplain 7\nend \xff\n";
    let fixed: [(&str, &[u8], &[u8]); 5] = [
        (
            "latin1_line_replaced",
            latin1,
            b"caf\xe9\nNA\xcfVE\nplain 1\nplain 2\nplain 3\nplain 4\nplain 5\nplain 6\nplain 7\nend \xff\n",
        ),
        (
            "latin1_insertion_among_high_bytes",
            latin1,
            b"caf\xe9\nna\xefve\nplain 1\nplain 2\nplain 3\nplain 4\nplain 5\nplain 6\nplain 7\n\xbfqu\xe9?\nend \xff\n",
        ),
        (
            "latin1_ascii_hunk_in_a_latin1_file",
            latin1,
            b"caf\xe9\nna\xefve\nplain 1\nplain 2\nplain 3\nPLAIN 4\nplain 5\nplain 6\nplain 7\nend \xff\n",
        ),
        ("latin1_crlf", b"caf\xe9\r\nb\r\nc\r\n", b"caf\xe9\r\nB\xe0\r\nc\r\n"),
        ("latin1_no_final_newline", b"a\nb\xe9", b"a\nB\xe9"),
    ];
    for (name, before, after) in fixed {
        let case = scratch_case(&[("l.txt", before, false)], |r| fs::write(r.join("l.txt"), after), &["-U1"]);
        push(format!("generated::{name}"), case);
    }
    push(
        "generated::latin1_new_and_deleted_files".into(),
        scratch_case(
            &[("old.txt", latin1, false)],
            |r| {
                fs::remove_file(r.join("old.txt"))?;
                fs::write(r.join("new.txt"), b"\xe0 la carte\n")
            },
            &[],
        ),
    );
    // The diff is made from the file as it was before lines were added above: git applies
    // it with an offset, and so does polypatch (the line numbers only say where to start).
    let case = scratch_case(
        &[("l.txt", latin1, false)],
        |r| {
            fs::write(
                r.join("l.txt"),
                b"caf\xe9\nna\xefve\nplain 1\nplain 2\nplain 3\nplain 4\nplain 5\nplain 6\nPLAIN 7\nend \xff\n",
            )
        },
        &["-U1"],
    )
    .map(|mut c| {
        let mut shifted = b"\xe9t\xe9 1\n\xe9t\xe9 2\n\xe9t\xe9 3\n".to_vec();
        shifted.extend_from_slice(latin1);
        c.base = vec![("l.txt".into(), shifted, false)];
        c
    });
    push("generated::latin1_offset".into(), case);
    // A UTF-8 file with a BOM edited by a diff that is otherwise Latin-1 is bytes too.
    push(
        "generated::latin1_and_utf8_in_one_file".into(),
        scratch_case(
            &[("m.txt", b"caf\xc3\xa9\ncaf\xe9\nx\n", false)],
            |r| fs::write(r.join("m.txt"), b"caf\xc3\xa9\nCAF\xc9\nx\n"),
            &[],
        ),
    );
}
