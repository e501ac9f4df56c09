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
  `git apply --check`): the file must be unchanged.

polypatch runs once per durability policy (`--fsync none`, `--fsync full`). The Codex
binary comes from `--codex PATH`, `$POLYPATCH_CODEX`, or the accuracy harness's cache
(`accuracy/.cache/node`, filled by `accuracy/run.py`); without it that column is left out.

    python3 benches/compare.py [--runs 10] [--cases small,100k,1m,check] [--no-build] [--static] [--baseline OLD] [--fsync none]

`--static` also builds the statically linked CLI (`cargo build-static`, an alias in
`.cargo/config.toml`; Linux x86-64 only) and times it alongside as `polypatch static`.

`--baseline OLD` times another polypatch binary (say, the release build of an earlier
commit, copied aside) alongside, as a peer: its column is the new build's ratio to it.
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYPATCH = ROOT / "target" / "release" / "polypatch"
# `--static`: the statically linked build (`cargo build-static`), timed alongside.
STATIC_BUILD = ROOT / "target" / "x86_64-unknown-linux-gnu" / "release" / "polypatch"
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


def find_codex(explicit: str | None) -> Path | None:
    for candidate in (explicit, os.environ.get("POLYPATCH_CODEX")):
        if candidate:
            return Path(candidate)
    base = ROOT / "accuracy" / ".cache" / "node" / "node_modules" / "@openai"
    for found in sorted(base.glob("codex*/vendor/*linux*/**/codex")):
        if found.is_file():
            return found
    return None


def tools(codex: Path | None, bindir: Path, check: bool) -> dict[str, tuple[str, callable]]:
    """Name -> (dialect, argv for a root and a patch file)."""
    pp = str(POLYPATCH)
    if check:
        return {
            "polypatch check": ("unified", lambda d, p: [pp, "check", "--format", "unified", "--root", str(d), str(p)]),
            "patch --dry-run": ("unified", lambda d, p: ["patch", "-p1", "-s", "--dry-run", "-i", str(p)]),
            "git apply --check": ("unified", lambda d, p: ["git", "apply", "--check", str(p)]),
        } | ({"baseline check": ("unified", lambda d, p: [str(BASELINE), "check", "--format", "unified", "--root",
                                                           str(d), str(p)])} if BASELINE else {}) \
          | ({"polypatch static check": ("unified", lambda d, p: [str(STATIC), "check", "--format", "unified",
                                                                   "--root", str(d), str(p)])} if STATIC else {})
    out = {}
    for dialect in ("unified", "ai-patch"):
        for policy in POLICIES:
            out[f"polypatch {dialect} fsync={policy}"] = (
                dialect, lambda d, p, dialect=dialect, policy=policy:
                [pp, "apply", "--format", dialect, "--fsync", policy, "--root", str(d), str(p)])
    if STATIC:
        for dialect in ("unified", "ai-patch"):
            out[f"polypatch static {dialect} fsync=none"] = (
                dialect, lambda d, p, dialect=dialect:
                [str(STATIC), "apply", "--format", dialect, "--fsync", "none", "--root", str(d), str(p)])
    if BASELINE:
        for dialect in ("unified", "ai-patch"):
            out[f"baseline {dialect} fsync=none"] = (
                dialect, lambda d, p, dialect=dialect:
                [str(BASELINE), "apply", "--format", dialect, "--fsync", "none", "--root", str(d), str(p)])
    out["git apply"] = ("unified", lambda d, p: ["git", "apply", str(p)])
    out["GNU patch"] = ("unified", lambda d, p: ["patch", "-p1", "-s", "-i", str(p)])
    if codex is not None:
        link = bindir / "apply_patch"
        if not link.exists():
            link.symlink_to(codex)
        out["codex apply_patch"] = ("ai-patch", lambda d, p: [str(link), p.read_text()])
    return out


def lay_out(d: Path, files: dict[str, bytes]) -> None:
    if d.exists():
        shutil.rmtree(d)
    d.mkdir()
    for rel, data in files.items():
        (d / rel).write_bytes(data)


def tree(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}


def time_group(title: str, cases: list[Case], runs: int, table: dict, tmp: Path, codex, check: bool) -> None:
    """Times every tool on every case, `runs` rounds, alternating; fills `table[title]`."""
    ts = tools(codex, tmp, check)
    times = {name: [] for name in ts}
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(tmp), LC_ALL="C")
    env.pop("POLYPATCH_FSYNC", None)
    names = list(ts)
    shuffler = random.Random(SEED)
    for _ in range(runs):
        for case in cases:
            order = list(names)
            shuffler.shuffle(order)
            for name in order:
                dialect, argv = ts[name]
                d = tmp / "root"
                lay_out(d, case.before)
                p = tmp / f"patch.{dialect}"
                p.write_text(case.patches[dialect])
                cmd = argv(d, p)
                start = time.perf_counter()
                proc = subprocess.run(cmd, cwd=d, env=env, stdin=subprocess.DEVNULL, capture_output=True)
                times[name].append(time.perf_counter() - start)
                want = case.before if check else case.after
                if proc.returncode != 0 or tree(d) != want:
                    sys.exit(f"{name} on {case.name}: exit {proc.returncode}, "
                             f"{'same' if tree(d) == want else 'other'} bytes than expected\n"
                             f"{proc.stderr.decode(errors='replace')[:2000]}")
    table[title] = {name: statistics.median(t) for name, t in times.items()}


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
    ap.add_argument("--cases", default="small,100k,1m,check")
    ap.add_argument("--codex", help="the Codex CLI binary (it runs apply_patch through a symlink of that name)")
    ap.add_argument("--no-build", action="store_true", help="use target/release/polypatch as it is")
    ap.add_argument("--static", action="store_true", help="also time the static build (cargo build-static)")
    ap.add_argument("--baseline", type=Path, help="another polypatch binary (an older build) timed alongside")
    ap.add_argument("--fsync", default="none,full", help="the durability policies polypatch runs with")
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
    with tempfile.TemporaryDirectory(prefix="ppcmp-") as tmp:
        tmp = Path(tmp)
        creation = creation_cost(tmp)
        POLYPATCH, STATIC, BASELINE = (copied(b, tmp, n) for b, n in
                                       ((POLYPATCH, "new"), (STATIC, "static"), (BASELINE, "baseline")))
        if "small" in wanted:
            time_group("20 small real edits (per edit)", small_cases(20), args.runs, table, tmp, codex, False)
        if "100k" in wanted:
            time_group("100,000 lines, 50 hunks", [big_case("100k", 100_000, 50)], args.runs, table, tmp, codex, False)
        if "1m" in wanted:
            time_group("1,000,000 lines, 50 hunks", [big_case("1m", 1_000_000, 50)], max(3, args.runs // 3),
                       table, tmp, codex, False)
        if "check" in wanted:
            time_group("check only, 100,000 lines, 50 hunks", [big_case("100k", 100_000, 50)], args.runs,
                       table, tmp, codex, True)
    load = os.getloadavg()
    print(f"runs {args.runs}, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, codex {codex or 'not found'}, "
          f"creating a file in the runs' directory: {creation:.0f} µs")
    for title, medians in table.items():
        print(f"\n{title}")
        ours = {n: t for n, t in medians.items() if n.startswith("polypatch")}
        peers = {n: t for n, t in medians.items() if not n.startswith("polypatch")}
        print(f"  {'tool':36} {'median':>10}  " + "  ".join(f"/{p:>18}" for p in peers))
        for name, t in medians.items():
            ratios = "  ".join(f"{t / pt:19.2f}" for pt in peers.values()) if name in ours else ""
            print(f"  {name:36} {t * 1000:8.1f} ms  {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
