//! Applies racing on one root (issue 25, point 4): each thread has its own
//! `DiskFileSet`, as two processes would (`flock` excludes one open file from another,
//! whether they are in one process or two).

use std::sync::{Barrier, mpsc};
use std::time::Duration;

use super::*;
use crate::{ApplyOptions, Edit, EditPlan, FileEdit, apply};

const LINES: usize = 12;

fn shared_text() -> String {
    (0..LINES).map(|i| format!("line {i}\n")).collect::<Vec<_>>().concat()
}

/// Thread `who` edits its own line of the shared file, and with `own_file` its own file
/// too (a commit of two files: journal, backups, hashes).
fn plan(who: usize, own_file: bool) -> EditPlan {
    let line = 2 + who * 6;
    let mut files = vec![FileEdit::modify(
        "f.txt",
        vec![Edit::replace([format!("line {line}")], [format!("line {line} by {who}")])],
    )];
    if own_file {
        files.push(FileEdit::modify(format!("own-{who}.txt"), vec![Edit::replace(["mine"], [format!("mine {who}")])]));
    }
    EditPlan::new("", files)
}

#[derive(Debug, Default)]
struct Tally {
    both: usize,
    /// One of the two refused because the other changed the file after it was read: the
    /// refusal is right (its plan was computed from content that is gone).
    refused: usize,
    lost: Vec<String>,
    spurious: Vec<String>,
}

/// `pairs` races of two applies on one file; with `hold`, each apply holds the root's lock
/// from its recovery to its commit, as `polypatch apply` does.
fn race(pairs: usize, hold: bool, own_file: bool) -> Tally {
    let mut tally = Tally::default();
    for pair in 0..pairs {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        fs::write(root.join("f.txt"), shared_text()).unwrap();
        for who in 0..2 {
            fs::write(root.join(format!("own-{who}.txt")), "mine\n").unwrap();
        }
        let barrier = Arc::new(Barrier::new(2));
        let threads: Vec<_> = (0..2)
            .map(|who| {
                let (root, barrier) = (root.clone(), Arc::clone(&barrier));
                std::thread::spawn(move || -> Result<(), String> {
                    let mut set = DiskFileSet::new(&root).unwrap();
                    barrier.wait();
                    if hold {
                        set.hold_lock().map_err(|e| format!("lock: {e}"))?;
                    }
                    // As `polypatch apply` does first.
                    let recovery = set.recover().map_err(|e| format!("recover: {e}"))?;
                    if !recovery.is_empty() {
                        return Err(format!("recovery acted: {recovery:?}"));
                    }
                    apply(&plan(who, own_file), &mut set, &ApplyOptions::default())
                        .map(|_| ())
                        .map_err(|e| e.commit_error.map_or_else(|| format!("{:?}", e.report), |c| c.to_string()))
                })
            })
            .collect();
        let results: Vec<Result<(), String>> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        let text = fs::read_to_string(root.join("f.txt")).unwrap();
        let mut ok = 0;
        for (who, result) in results.iter().enumerate() {
            let line = 2 + who * 6;
            let edited = text.contains(&format!("line {line} by {who}\n"));
            let own = fs::read_to_string(root.join(format!("own-{who}.txt"))).unwrap();
            let own_edited = own == format!("mine {who}\n");
            match result {
                Ok(()) if edited && (own_edited || !own_file) => ok += 1,
                Ok(()) => tally.lost.push(format!("pair {pair}: {who}'s edit is gone:\n{text}")),
                Err(e) if e.contains("was changed by another program") && !edited && !own_edited => {
                    tally.refused += 1;
                }
                Err(e) => tally.spurious.push(format!("pair {pair}, {who}: {e}")),
            }
        }
        if ok == 2 {
            tally.both += 1;
        }
        let litter: Vec<String> = names(&root).into_iter().filter(|n| n.starts_with(".polypatch")).collect();
        if !litter.is_empty() {
            tally.spurious.push(format!("pair {pair}: left {litter:?}"));
        }
    }
    tally
}

fn names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()
}

/// Two applies on different lines of one file lose no update, and fail only where the
/// other really changed the file after it was read; holding the lock from the read on,
/// neither fails.
#[test]
fn racing_applies_lose_no_update_and_fail_for_no_other_reason() {
    for (pairs, hold, own_file) in [(120, false, false), (120, false, true), (40, true, false), (40, true, true)] {
        let tally = race(pairs, hold, own_file);
        println!("{pairs} pairs, lock held {hold}, own file {own_file}: {tally:?}");
        assert!(tally.lost.is_empty(), "lost updates: {:#?}", tally.lost);
        assert!(tally.spurious.is_empty(), "failures with no real change behind them: {:#?}", tally.spurious);
        if hold {
            assert_eq!(tally.both, pairs, "{tally:?}");
        }
    }
}

/// A commit waits for the root's lock, and once the bound has passed, refuses and says
/// why; the lock let go, it goes through.
#[test]
fn a_commit_waits_for_the_lock_then_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.txt"), "a\n").unwrap();
    let holder = DiskFileSet::new(root).unwrap();
    holder.hold_lock().unwrap();
    let change = [Change { path: rel("a.txt"), kind: ChangeKind::Write { bytes: "b\n".into(), mode: None } }];
    let mut set = DiskFileSet::new(root).unwrap().lock_wait(Duration::from_millis(200));
    let err = set.commit(&change).unwrap_err();
    assert_eq!(
        err.to_string(),
        "another polypatch is writing in this root (it holds `.polypatch.lock`) and did not finish within 0.2 s; run \
         this again once it is done; every step was undone, no file was changed"
    );
    assert_eq!(err.cause.kind(), io::ErrorKind::TimedOut);
    assert!(err.rolled_back);
    assert_eq!(names(root).len(), 2, "the lock file and a.txt");
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        holder.release_lock();
    });
    let mut set = DiskFileSet::new(root).unwrap();
    set.commit(&change).unwrap();
    release.join().unwrap();
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "b\n");
    assert_eq!(names(root), ["a.txt"]);
}

/// A recovery while a commit runs (stopped at its first rename) leaves its journal, its
/// temporary files and backups alone and says it is running; the commit then finishes.
#[test]
fn recovery_leaves_a_running_commit_alone() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let changes = scenario(&root);
    let (reached_tx, reached) = mpsc::channel();
    let (go, go_rx) = mpsc::channel();
    // Real operations that stop at the first rename until told to go on.
    let ops = Faulty::new(usize::MAX, false);
    *ops.hook.lock().unwrap() = Some((
        "rename",
        1,
        Box::new(move || {
            reached_tx.send(()).unwrap();
            go_rx.recv().unwrap();
        }),
    ));
    ops.armed.store(true, Ordering::SeqCst);
    let commit = {
        let root = root.clone();
        std::thread::spawn(move || DiskFileSet::with_ops(&root, ops).unwrap().commit(&changes))
    };
    reached.recv().unwrap();
    let during = snapshot(&root);
    let journal: Vec<String> = names(&root).into_iter().filter(|n| n.ends_with(".journal")).collect();
    assert_eq!(journal.len(), 1);
    let recovery = DiskFileSet::new(&root).unwrap().lock_wait(Duration::from_millis(100)).recover().unwrap();
    assert_eq!(recovery.running, journal);
    assert!(recovery.problems.is_empty() && recovery.rolled_back.is_empty() && recovery.leftovers == 0);
    assert_eq!(snapshot(&root), during);
    go.send(()).unwrap();
    commit.join().unwrap().unwrap();
    assert_eq!(fs::read_to_string(root.join("a.txt")).unwrap(), "a new\n");
    assert!(names(&root).iter().all(|n| !n.starts_with(".polypatch")), "{:?}", names(&root));
}
