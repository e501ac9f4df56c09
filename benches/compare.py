#!/usr/bin/env python3
"""Whole-process timing of polypatch against `git apply`, GNU `patch` and the Codex CLI's
`apply_patch`, side by side on the same generated cases.

It builds the release CLI (`cargo build --release -p polypatch-cli`, unless `--no-build`),
generates every case deterministically, and runs the tools in turn, in an order shuffled
for each round and case (seeded, so every call uses the same orders), so that machine noise
hits all of them alike and no tool always runs right after the same one: the run after
Codex's (5 ms, several threads) was about 0.2 ms slower, and a fixed rotation handed that
to one tool every time. Each run gets a
fresh copy of the files (not timed); its result is checked byte for byte against the
expected tree, and any difference stops the script. It prints, per case, each tool's
median wall time and its ratio to polypatch's (polypatch / peer: below 1 is faster).

Cases:
- `small`: 20 small real edits, one process each: one line changed in each of 20 source
  files of this repository as of a pinned commit (process start dominates);
- `100k`: a generated 100,000-line file with 50 one-line hunks, in unified and AI-PATCH;
- `1m`: the same with 1,000,000 lines;
- `check`: check-only on the 100k case (`polypatch check`, `patch --dry-run`,
  `git apply --check`): the file must be unchanged;
- `release`: a whole release as one git diff, attrs 23.1.0 -> 23.2.0 (73 files: edits,
  renames, creations, deletions, binary patches; the sdists come through `pip download`),
  polypatch against `git apply`, and `polypatch check` against `git apply --check`;
- `files` (not run unless asked: minutes): the growth with the number of files, at each
  count of `--files` (10,000, 20,000, 40,000): a git diff changing one line in each file
  (also as an AI-PATCH), and an Aptix bundle creating that many files (against `git apply`
  of the same creation as a git diff); `--fsync none` only, `--files-runs` rounds. It
  prints, per tool, the median at each count and its ratio to the count before (2.0 is
  linear, 4.0 quadratic). Where the runs happen matters here: on an ext4 volume, creating
  files right after tens of thousands were deleted (each run's fresh copy) makes the
  kernel look for inodes it may reuse, seconds of system time for every tool (git's
  too); `--tmpdir /dev/shm` (tmpfs) measures the tools without it.

Every row gives the median wall time and the median CPU time (user + system) of the
process; a ratio sets an apply against an apply and a check against a check. `check`
rows are the in-memory part alone (parse, locate, compute): what an apply takes beyond
them is its commit to disk.

polypatch runs once per durability policy (`--fsync none`, `--fsync full`). The Codex
binary comes from `--codex PATH`, `$POLYPATCH_CODEX`, or the accuracy harness's cache
(`accuracy/.cache/node`, filled by `accuracy/run.py`); without it that column is left out.

    python3 benches/compare.py [--runs 10] [--cases small,100k,1m,check,release] [--no-build] [--static]
        [--baseline OLD] [--fsync none] [--files 10000,20000,40000] [--files-runs 3]

`--static` also builds the statically linked CLI (`cargo build-static`, an alias in
`.cargo/config.toml`; Linux x86-64 only) and times it alongside as `polypatch static`.

`--baseline OLD` times another polypatch binary (say, the release build of an earlier
commit, copied aside) alongside, as a peer: its column is the new build's ratio to it.
"""

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Cargo's target directory: `$CARGO_TARGET_DIR` when set, as cargo itself reads it.
TARGET = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
POLYPATCH = TARGET / "release" / "polypatch"
# `--static`: the statically linked build (`cargo build-static`), timed alongside.
STATIC_BUILD = TARGET / "x86_64-unknown-linux-gnu" / "release" / "polypatch"
STATIC: Path | None = None
# `--baseline PATH`: another polypatch binary (an older build), timed as a peer.
BASELINE: Path | None = None
# `--fsync none`: time one durability policy only (a `full` run's syncs slow the runs after it).
POLICIES = ("none", "full")
# The seed of the orders the tools run in.
SEED = 14
# The small case's files are read at this commit, so the case does not move with the tree.
PINNED = "71240b0"
WORDS = ["buffer", "cache", "config", "entry", "frame", "index", "node", "queue", "state", "token"]
CONTEXT = 3


def big_source(lines: int) -> list[str]:
    """A generated source file: distinct lines (each carries its number), deterministic."""
    out = []
    x = 7
    for i in range(lines):
        x = (x * 1103515245 + 12345) % (1 << 31)
        a, b = WORDS[x % 10], WORDS[(x >> 8) % 10]
        out.append(f"    let {a}_{i} = {b}.get({(x >> 16) % 1000})?;\n")
    return out


def unified(path: str, before: list[str], changes: dict[int, str]) -> str:
    """A git-style unified diff replacing line `at` (0-based) by `changes[at]`, 3 lines of
    context; the changed lines are far enough apart that hunks never merge."""
    out = [f"diff --git a/{path} b/{path}\n", f"--- a/{path}\n", f"+++ b/{path}\n"]
    for at in sorted(changes):
        lo, hi = max(0, at - CONTEXT), min(len(before), at + CONTEXT + 1)
        out.append(f"@@ -{lo + 1},{hi - lo} +{lo + 1},{hi - lo} @@\n")
        out += [" " + line for line in before[lo:at]]
        out += ["-" + before[at], "+" + changes[at]]
        out += [" " + line for line in before[at + 1:hi]]
    return "".join(out)


def ai_patch(path: str, before: list[str], changes: dict[int, str]) -> str:
    """The same change as an AI-PATCH (`*** Begin Patch`) with 3 lines of context."""
    out = ["*** Begin Patch\n", f"*** Update File: {path}\n"]
    for at in sorted(changes):
        lo, hi = max(0, at - CONTEXT), min(len(before), at + CONTEXT + 1)
        out.append("@@\n")
        out += [" " + line for line in before[lo:at]]
        out += ["-" + before[at], "+" + changes[at]]
        out += [" " + line for line in before[at + 1:hi]]
    out.append("*** End Patch\n")
    return "".join(out)


class Case:
    """Files before, the expected files after, and the patch in each dialect."""

    def __init__(self, name: str, before: dict[str, bytes], after: dict[str, bytes], patches: dict[str, str]):
        self.name, self.before, self.after, self.patches = name, before, after, patches


def big_case(name: str, lines: int, hunks: int) -> Case:
    before = big_source(lines)
    stride = lines // hunks
    changes = {h * stride + stride // 2: f"    changed_{h}();\n" for h in range(hunks)}
    after = list(before)
    for at, line in changes.items():
        after[at] = line
    return Case(name, {"big.rs": "".join(before).encode()}, {"big.rs": "".join(after).encode()},
                {"unified": unified("big.rs", before, changes), "ai-patch": ai_patch("big.rs", before, changes)})


def small_cases(count: int) -> list[Case]:
    """One edit per real file: the middle line (or the next line that is unique in its file
    and not blank) gets a trailing comment."""
    listing = subprocess.run(["git", "ls-tree", "-r", "--name-only", PINNED, "crates"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    cases = []
    for path in sorted(p for p in listing if p.endswith(".rs")):
        text = subprocess.run(["git", "show", f"{PINNED}:{path}"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout
        lines = text.splitlines(keepends=True)
        if len(lines) < 40 or not text.endswith("\n"):
            continue
        at = len(lines) // 2
        while at < len(lines) - CONTEXT - 1 and (not lines[at].strip() or lines.count(lines[at]) > 1):
            at += 1
        new = lines[at].rstrip("\n") + " // edited\n"
        after = list(lines)
        after[at] = new
        name = path.rsplit("/", 1)[1]
        cases.append(Case(f"small/{name}", {name: text.encode()}, {name: "".join(after).encode()},
                          {"unified": unified(name, lines, {at: new}), "ai-patch": ai_patch(name, lines, {at: new})}))
        if len(cases) == count:
            break
    return cases


def release_case() -> Case | None:
    """A whole release as one git diff: attrs 23.1.0 -> 23.2.0 (73 files, 937 KiB: edits,
    3 renames, 4 new files, 2 deleted, 2 binary patches), the sdists fetched with
    `pip download` through the accuracy harness's fetcher into its cache
    (`accuracy/.cache`), the diff written by `git diff --binary -M` between two commits of
    a scratch repository. `None` (with a note) when the sdists cannot be fetched."""
    sys.path.insert(0, str(ROOT / "accuracy"))
    try:
        from fetch import fetch_project, load_projects
        project = next(p for p in load_projects(ROOT / "accuracy" / "projects.toml") if p.name == "attrs")
        old, new = fetch_project(project, ROOT / "accuracy" / ".cache")
    except (OSError, subprocess.CalledProcessError, StopIteration) as e:
        print(f"release case left out: the attrs sdists could not be fetched ({e})", file=sys.stderr)
        return None
    finally:
        sys.path.pop(0)
    before = {k: v for k, v in tree(old).items() if k != ".complete"}
    after = {k: v for k, v in tree(new).items() if k != ".complete"}
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "core.autocrlf=false"]
    with tempfile.TemporaryDirectory(prefix="ppcmp-release-") as repo:
        repo = Path(repo)
        run = lambda *a: subprocess.run([*git, *a], cwd=repo, check=True, capture_output=True).stdout
        run("init", "-q")
        lay_out(repo / "t", before)
        run("add", "-A")
        run("commit", "-q", "-m", "old")
        lay_out(repo / "t", after)
        run("add", "-A")
        diff = run("diff", "--cached", "--binary", "-M", "--relative=t")
    return Case("release", before, after, {"unified": diff})


def growth_files(n: int) -> tuple[dict[str, bytes], list[str]]:
    """`n` 8-line files, 100 to a folder; and each file's lines."""
    files, lines = {}, []
    for i in range(n):
        body = [f"line {k} of file {i}\n" for k in range(8)]
        files[f"d{i // 100:04}/f{i:06}.txt"] = "".join(body).encode()
        lines.append(body)
    return files, lines


def growth_cases(n: int) -> tuple[Case, Case]:
    """Two cases of `n` files: a git diff changing one line in each of `n` files (the
    same change as an AI-PATCH too), and an Aptix file bundle creating `n` new files (the
    same creation as a git diff, for git apply)."""
    files, lines = growth_files(n)
    after = dict(files)
    diff, aip = [], ["*** Begin Patch\n"]
    for i, (path, body) in enumerate(zip(files, lines)):
        new = list(body)
        new[4] = f"changed {i}\n"
        after[path] = "".join(new).encode()
        diff += [f"diff --git a/{path} b/{path}\n", f"--- a/{path}\n", f"+++ b/{path}\n", "@@ -2,7 +2,7 @@\n"]
        diff += [" " + x for x in body[1:4]] + ["-" + body[4], "+" + new[4]] + [" " + x for x in body[5:8]]
        aip += [f"*** Update File: {path}\n", "@@\n"] + [" " + x for x in body[1:4]]
        aip += ["-" + body[4], "+" + new[4]] + [" " + x for x in body[5:8]]
    aip.append("*** End Patch\n")
    modify = Case(f"modify {n} files", files, after, {"unified": "".join(diff), "ai-patch": "".join(aip)})
    created = {f"new/{path}": data for path, data in files.items()}
    bundle = {"root": ".", "files": [{"path": path, "operation": "create", "content": data.decode()}
                                     for path, data in created.items()]}
    git_create = []
    for path, body in zip(created, lines):
        git_create += [f"diff --git a/{path} b/{path}\n", "new file mode 100644\n", "--- /dev/null\n",
                       f"+++ b/{path}\n", "@@ -0,0 +1,8 @@\n"] + ["+" + x for x in body]
    create = Case(f"create {n} files", {}, created,
                  {"aptix": json.dumps(bundle, indent=2), "unified": "".join(git_create)})
    return modify, create


def growth_report(table: dict, sizes: list[int], kinds: list[tuple[str, str]]) -> None:
    """Per case kind and tool: the median at each size and its ratio to the size before."""
    for kind, dialect in kinds:
        titles = [f"{kind} {n} files ({dialect})" for n in sizes]
        if not all(t in table for t in titles):
            continue
        print(f"\ngrowth: {kind} ({dialect}), wall median (CPU median); x = the ratio to the size before")
        print(f"  {'tool':36} " + "  ".join(f"{n:>24}" for n in sizes))
        for name in table[titles[0]]:
            cells, last = [], None
            for t in titles:
                wall, cpu, _ = table[t][name]
                ratio = f" x{wall / last:.2f}" if last else ""
                cells.append(f"{wall:7.2f} s ({cpu:6.2f}){ratio:>7}")
                last = wall
            print(f"  {name:36} " + "  ".join(f"{c:>24}" for c in cells))


def find_codex(explicit: str | None) -> Path | None:
    for candidate in (explicit, os.environ.get("POLYPATCH_CODEX")):
        if candidate:
            return Path(candidate)
    base = ROOT / "accuracy" / ".cache" / "node" / "node_modules" / "@openai"
    for found in sorted(base.glob("codex*/vendor/*linux*/**/codex")):
        if found.is_file():
            return found
    return None


def tools(codex: Path | None, bindir: Path, check: bool) -> dict[str, tuple[str, callable, bool]]:
    """Name -> (dialect, argv for a root and a patch file, whether it only checks)."""
    pp = str(POLYPATCH)
    if check:
        return {
            "polypatch check": ("unified", lambda d, p: [pp, "check", "--format", "unified", "--root", str(d), str(p)],
                                True),
            "patch --dry-run": ("unified", lambda d, p: ["patch", "-p1", "-s", "--dry-run", "-i", str(p)], True),
            "git apply --check": ("unified", lambda d, p: ["git", "apply", "--check", str(p)], True),
        } | ({"baseline check": ("unified", lambda d, p: [str(BASELINE), "check", "--format", "unified", "--root",
                                                           str(d), str(p)], True)} if BASELINE else {}) \
          | ({"polypatch static check": ("unified", lambda d, p: [str(STATIC), "check", "--format", "unified",
                                                                   "--root", str(d), str(p)], True)} if STATIC else {})
    out = {}
    for dialect in ("unified", "ai-patch"):
        for policy in POLICIES:
            out[f"polypatch {dialect} fsync={policy}"] = (
                dialect, lambda d, p, dialect=dialect, policy=policy:
                [pp, "apply", "--format", dialect, "--fsync", policy, "--root", str(d), str(p)], False)
    if STATIC:
        for dialect in ("unified", "ai-patch"):
            out[f"polypatch static {dialect} fsync=none"] = (
                dialect, lambda d, p, dialect=dialect:
                [str(STATIC), "apply", "--format", dialect, "--fsync", "none", "--root", str(d), str(p)], False)
    if BASELINE:
        for dialect in ("unified", "ai-patch"):
            out[f"baseline {dialect} fsync=none"] = (
                dialect, lambda d, p, dialect=dialect:
                [str(BASELINE), "apply", "--format", dialect, "--fsync", "none", "--root", str(d), str(p)], False)
    out["git apply"] = ("unified", lambda d, p: ["git", "apply", str(p)], False)
    out["GNU patch"] = ("unified", lambda d, p: ["patch", "-p1", "-s", "-i", str(p)], False)
    if codex is not None:
        link = bindir / "apply_patch"
        if not link.exists():
            link.symlink_to(codex)
        out["codex apply_patch"] = ("ai-patch", lambda d, p: [str(link), p.read_text()], False)
    return out


def multi_tools(dialect: str, policies: tuple[str, ...]) -> dict[str, tuple[str, callable, bool]]:
    """The tools of the many-file cases: polypatch applying the patch in `dialect` (once per
    durability policy) and checking it (`check`: the in-memory part alone, nothing
    written), `git apply` and `git apply --check` on the same change as a git diff, and the
    baseline binary when given. GNU patch is left out: it does not read git's binary
    patches, and has no rename of its own to compare."""
    pp = str(POLYPATCH)
    out = {}
    for policy in policies:
        out[f"polypatch {dialect} fsync={policy}"] = (
            dialect, lambda d, p, policy=policy:
            [pp, "apply", "--format", dialect, "--fsync", policy, "--root", str(d), str(p)], False)
    out[f"polypatch {dialect} check"] = (
        dialect, lambda d, p: [pp, "check", "--format", dialect, "--root", str(d), str(p)], True)
    if BASELINE:
        out[f"baseline {dialect} fsync=none"] = (
            dialect, lambda d, p: [str(BASELINE), "apply", "--format", dialect, "--fsync", "none", "--root", str(d),
                                   str(p)], False)
        out[f"baseline {dialect} check"] = (
            dialect, lambda d, p: [str(BASELINE), "check", "--format", dialect, "--root", str(d), str(p)], True)
    out["git apply"] = ("unified", lambda d, p: ["git", "apply", str(p)], False)
    out["git apply --check"] = ("unified", lambda d, p: ["git", "apply", "--check", str(p)], True)
    return out


def lay_out(d: Path, files: dict[str, bytes]) -> None:
    if d.exists():
        shutil.rmtree(d)
    d.mkdir()
    folders = {str(Path(rel).parent) for rel in files} - {"."}
    for folder in sorted(folders):
        (d / folder).mkdir(parents=True, exist_ok=True)
    for rel, data in files.items():
        (d / rel).write_bytes(data)


def tree(d: Path) -> dict[str, bytes]:
    """Every file under `d`, by its path relative to `d` (folders are not compared: an
    empty one left behind is not a difference)."""
    out = {}
    for folder, _, names in os.walk(d):
        for name in names:
            full = Path(folder) / name
            out[str(full.relative_to(d))] = full.read_bytes()
    return out


def time_group(title: str, cases: list[Case], runs: int, table: dict, tmp: Path,
               ts: dict[str, tuple[str, callable, bool]]) -> None:
    """Times every tool on every case, `runs` rounds, alternating; fills `table[title]`
    with each tool's median wall time, median CPU time (user + system, from the child's
    resource usage) and whether it only checks."""
    times = {name: [] for name in ts}
    cpus = {name: [] for name in ts}
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(tmp), LC_ALL="C")
    env.pop("POLYPATCH_FSYNC", None)
    names = list(ts)
    shuffler = random.Random(SEED)
    for _ in range(runs):
        for case in cases:
            order = list(names)
            shuffler.shuffle(order)
            for name in order:
                dialect, argv, check = ts[name]
                d = tmp / "root"
                lay_out(d, case.before)
                p = tmp / f"patch.{dialect}"
                patch = case.patches[dialect]
                p.write_bytes(patch if isinstance(patch, bytes) else patch.encode())
                cmd = argv(d, p)
                used = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                proc = subprocess.run(cmd, cwd=d, env=env, stdin=subprocess.DEVNULL, capture_output=True)
                times[name].append(time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpus[name].append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
                want = case.before if check else case.after
                got = tree(d)
                if proc.returncode != 0 or got != want:
                    wrong = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
                    sys.exit(f"{name} on {case.name}: exit {proc.returncode}, "
                             f"{'same' if got == want else 'other'} bytes than expected"
                             f"{(': ' + ', '.join(wrong[:5])) if wrong else ''}\n"
                             f"{proc.stderr.decode(errors='replace')[:2000]}")
    table[title] = {name: (statistics.median(times[name]), statistics.median(cpus[name]), ts[name][2])
                    for name in names}


def creation_cost(tmp: Path, n: int = 100) -> float:
    """Microseconds to create (and close) an empty file in `tmp`, the median of `n`. It
    differs from one directory to another on the same disk (15 to 370 µs on 2026-11-27's
    machine, an ext4 volume), and a commit creates files: polypatch's one-file commit
    two (its journal and the temporary file), GNU patch's one. Printed with the results."""
    probe = tmp / "creation-probe"
    probe.mkdir()
    times = []
    for i in range(n):
        start = time.perf_counter()
        os.close(os.open(probe / f"f{i}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        times.append(time.perf_counter() - start)
    shutil.rmtree(probe)
    return statistics.median(times) * 1e6


def copied(binary: Path | None, tmp: Path, name: str) -> Path | None:
    """A copy of a polypatch binary to time, so that every one timed is a file written the
    same way. A file the linker wrote maps with more page faults than a copy of it (its page
    cache holds smaller pieces): 105 against 96 for one `check` on 2026-11-27, about 0.1 ms
    of a 0.9 ms run. Timing the linker's file against a copied baseline measured that."""
    if binary is None:
        return None
    target = tmp / "bin" / name / "polypatch"
    target.parent.mkdir(parents=True)
    shutil.copy2(binary, target)
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="rounds per case (1m: a third of it, at least 3)")
    ap.add_argument("--cases", default="small,100k,1m,check,release", help="also: files (minutes)")
    ap.add_argument("--codex", help="the Codex CLI binary (it runs apply_patch through a symlink of that name)")
    ap.add_argument("--no-build", action="store_true", help="use target/release/polypatch as it is")
    ap.add_argument("--static", action="store_true", help="also time the static build (cargo build-static)")
    ap.add_argument("--baseline", type=Path, help="another polypatch binary (an older build) timed alongside")
    ap.add_argument("--fsync", default="none,full", help="the durability policies polypatch runs with")
    ap.add_argument("--files", default="10000,20000,40000",
                    help="the file counts of the `files` cases (each the double of the one before)")
    ap.add_argument("--files-runs", type=int, default=3, help="rounds of each `files` case")
    ap.add_argument("--tmpdir", type=Path, help="where the runs' files are laid out (default: the system's temporary "
                    "folder); its file system decides much of a many-file commit (see the `files` case)")
    args = ap.parse_args()
    global BASELINE, POLICIES, POLYPATCH, STATIC
    BASELINE = args.baseline
    STATIC = STATIC_BUILD if args.static else None
    POLICIES = tuple(args.fsync.split(","))
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "polypatch-cli"], cwd=ROOT, check=True)
        if STATIC:
            subprocess.run(["cargo", "-q", "build-static"], cwd=ROOT, check=True)
    if STATIC and not STATIC.exists():
        print(f"{STATIC} is missing: build it (cargo build-static)", file=sys.stderr)
        return 2
    if not POLYPATCH.exists():
        print(f"{POLYPATCH} is missing: build it (cargo build --release -p polypatch-cli)", file=sys.stderr)
        return 2
    codex = find_codex(args.codex)
    wanted = args.cases.split(",")
    table: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="ppcmp-", dir=args.tmpdir) as tmp:
        tmp = Path(tmp)
        creation = creation_cost(tmp)
        POLYPATCH, STATIC, BASELINE = (copied(b, tmp, n) for b, n in
                                       ((POLYPATCH, "new"), (STATIC, "static"), (BASELINE, "baseline")))
        if "small" in wanted:
            time_group("20 small real edits (per edit)", small_cases(20), args.runs, table, tmp,
                       tools(codex, tmp, False))
        if "100k" in wanted:
            time_group("100,000 lines, 50 hunks", [big_case("100k", 100_000, 50)], args.runs, table, tmp,
                       tools(codex, tmp, False))
        if "1m" in wanted:
            time_group("1,000,000 lines, 50 hunks", [big_case("1m", 1_000_000, 50)], max(3, args.runs // 3),
                       table, tmp, tools(codex, tmp, False))
        if "check" in wanted:
            time_group("check only, 100,000 lines, 50 hunks", [big_case("100k", 100_000, 50)], args.runs,
                       table, tmp, tools(codex, tmp, True))
        if "release" in wanted and (case := release_case()):
            time_group("a whole release: attrs 23.1.0 -> 23.2.0, 73 files", [case], args.runs, table, tmp,
                       multi_tools("unified", POLICIES))
        sizes = [int(n) for n in args.files.split(",")]
        kinds = [("modify", "unified"), ("modify", "ai-patch"), ("create", "aptix")]
        if "files" in wanted:
            for n in sizes:
                modify, create = growth_cases(n)
                for kind, dialect in kinds:
                    case = modify if kind == "modify" else create
                    ts = multi_tools(dialect, ("none",))
                    if dialect == "ai-patch":
                        ts = {k: v for k, v in ts.items() if not k.startswith("git")}
                    time_group(f"{kind} {n} files ({dialect})", [case], args.files_runs, table, tmp, ts)
    load = os.getloadavg()
    files = f" ({args.files_runs} for `files`)" if "files" in wanted else ""
    print(f"runs {args.runs}{files}, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, codex {codex or 'not found'}, "
          f"creating a file in the runs' directory: {creation:.0f} µs")
    for title, medians in table.items():
        # A ratio sets an apply against an apply and a check against a check.
        print(f"\n{title}")
        ours = {n: t for n, t in medians.items() if n.startswith("polypatch")}
        peers = {n: t for n, t in medians.items() if not n.startswith("polypatch")}
        print(f"  {'tool':36} {'median':>10} {'cpu':>10}  " + "  ".join(f"/{p:>18}" for p in peers))
        for name, (t, cpu, check) in medians.items():
            ratios = "  ".join(f"{t / pt:19.2f}" if pc == check else f"{'':19}" for pt, _, pc in peers.values()) \
                if name in ours else ""
            print(f"  {name:36} {t * 1000:8.1f} ms {cpu * 1000:7.1f} ms  {ratios}")
    if "files" in wanted:
        growth_report(table, sizes, kinds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
