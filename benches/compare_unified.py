#!/usr/bin/env python3
"""Side-by-side timing of `polypatch apply`, `git apply` and GNU `patch` on the same git diff.

A generated 100,000-line file gets a 50-hunk diff made by `git diff` (3 context lines).
Each tool applies it to a fresh copy of the file; the runs are interleaved (polypatch, git,
patch, polypatch, ...) so that machine noise hits all three alike, and the script prints the
median wall time of each and its ratio to polypatch's. Every run's result is checked to be
byte-identical to the diff's target.

    cargo build --release -p polypatch-cli
    python3 benches/compare_unified.py [--runs 15] [--lines 100000] [--hunks 50]
"""

import argparse
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


def source(lines: int, rng: random.Random) -> list[str]:
    words = ["buffer", "cache", "config", "entry", "frame", "index", "node", "queue", "state", "token"]
    out = []
    for i in range(lines):
        a, b = rng.choice(words), rng.choice(words)
        out.append(f"    let {a}_{i} = {b}.get({rng.randrange(1000)})?;\n")
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--hunks", type=int, default=50)
    args = ap.parse_args()
    if not POLYPATCH.exists():
        print(f"build it first: cargo build --release -p polypatch-cli ({POLYPATCH} is missing)", file=sys.stderr)
        return 2
    rng = random.Random(7)
    before = source(args.lines, rng)
    after = list(before)
    stride = args.lines // args.hunks
    for h in range(args.hunks):
        at = h * stride + stride // 2
        after[at] = f"    changed_{h}();\n"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        repo = tmp / "repo"
        repo.mkdir()
        env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin"}
        git = lambda *a: subprocess.run(["git", *a], cwd=repo, check=True, capture_output=True, env=env)
        (repo / "big.rs").write_text("".join(before))
        git("init", "-q")
        git("add", ".")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "before")
        (repo / "big.rs").write_text("".join(after))
        diff = git("diff").stdout
        patch_file = tmp / "change.diff"
        patch_file.write_bytes(diff)
        target = "".join(after).encode()
        tools = {
            "polypatch": lambda d: [str(POLYPATCH), "apply", "--root", str(d), str(patch_file)],
            "git apply": lambda d: ["git", "apply", str(patch_file)],
            "GNU patch": lambda d: ["patch", "-p1", "-s", "-i", str(patch_file)],
        }
        times = {name: [] for name in tools}
        for run in range(args.runs):
            for name, command in tools.items():
                d = tmp / f"run-{run}-{name.replace(' ', '_')}"
                d.mkdir()
                (d / "big.rs").write_text("".join(before))
                start = time.perf_counter()
                subprocess.run(command(d), cwd=d, check=True, capture_output=True)
                times[name].append(time.perf_counter() - start)
                if (d / "big.rs").read_bytes() != target:
                    print(f"{name} produced other bytes", file=sys.stderr)
                    return 1
                shutil.rmtree(d)
        base = statistics.median(times["polypatch"])
        print(f"{args.lines} lines, {args.hunks} hunks, {len(diff)} bytes of diff, {args.runs} interleaved runs")
        for name, ts in times.items():
            m = statistics.median(ts)
            print(f"{name:10} median {m * 1000:8.1f} ms   ratio to polypatch {m / base:5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
