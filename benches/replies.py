#!/usr/bin/env python3
"""Whole-process time of `polypatch extract` and `polypatch check`/`apply` against the size of
a model's reply (issue 25, point 8: an 812 KB reply took 19 s in `extract`).

Each shape is a reply generated at 400 KB, 800 KB and 1.6 MB (by default); every doubling
of the input must cost at most 3x the time. The shapes: ordinary fenced diffs with prose
(`fenced`, each block edits one of 50 small files, line 1 to the next version), the same
without fences (`bare`), and shapes that each made the scan quadratic before: lines that
open a JSON value and never close it (`braces`), nested fences with an info string and no
close (`fences`), nested unclosed `md` fences (`markdown`), `---`/`+++` pairs without a hunk
(`headers`) and JSON objects nested in one that is no patch (`objects`).

    cargo build --release -p polypatch-cli
    python3 benches/replies.py [--binary PATH] [--runs 3] [--sizes 400000,800000,1600000]
                               [--shapes fenced,braces] [--verbs extract,check,apply] [--cpu]

Prints one row per shape and verb: the median wall time of the runs at each size (with
`--cpu`, the processor time, user + system, steadier on a busy machine) and the ratio of
each doubling; exits 1 when a ratio is above 3. `apply` runs on a fresh copy of
the files each time (the copy is not timed). Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYPATCH = ROOT / "target" / "release" / "polypatch"
FILES = 50
LIMIT = 3.0


def piece(shape: str, i: int) -> str:
    """The `i`-th repeated piece of a reply of `shape`."""
    name, version = f"f{i % FILES}.txt", i // FILES
    diff = f"--- a/{name}\n+++ b/{name}\n@@ -1,2 +1,2 @@\n-v{version}\n+v{version + 1}\n keep\n"
    if shape == "fenced":
        return f"Step {i}: bump `{name}`.\n\n```diff\n{diff}```\n\n"
    if shape == "bare":
        return f"Step {i}:\n\n{diff}\n"
    if shape == "braces":
        return f'{{ "step": {i}, "values": [1, 2,\n'
    if shape == "fences":
        return f"```step{i}\n"
    if shape == "markdown":
        return "```md\n"
    if shape == "headers":
        return f"--- a/{name}\n+++ b/{name}\n"
    if shape == "objects":
        return f'{{"step{i}":\n'
    raise ValueError(shape)


SHAPES = ["fenced", "bare", "braces", "fences", "markdown", "headers", "objects"]


def reply(shape: str, size: int) -> str:
    out, total, i = [], 0, 0
    while total < size:
        text = piece(shape, i)
        out.append(text)
        total += len(text)
        i += 1
    if shape == "objects":
        out.append("}\n" * i)
    return "Here are the changes:\n\n" + "".join(out)


def root(path: Path) -> None:
    """The 50 files the `fenced` and `bare` replies edit."""
    path.mkdir()
    for k in range(FILES):
        (path / f"f{k}.txt").write_text("v0\nkeep\n")


def timed(command: list[str], fresh: Path | None, pristine: Path) -> tuple[float, float, int]:
    """The run's wall time, its processor time (user + system, from `wait4`) and exit code."""
    if fresh is not None:
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.copytree(pristine, fresh)
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, child.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=POLYPATCH)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", default="400000,800000,1600000")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--verbs", default="extract,check,apply")
    parser.add_argument("--timeout", type=float, default=120.0, help="skip the larger sizes after a run this slow")
    parser.add_argument("--cpu", action="store_true", help="processor time (user + system) instead of wall time")
    args = parser.parse_args()
    if not args.binary.exists():
        subprocess.run(["cargo", "build", "--release", "-p", "polypatch-cli"], cwd=ROOT, check=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    broken = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        pristine = tmp / "pristine"
        root(pristine)
        print(f"{'shape':10} {'verb':8} " + " ".join(f"{s // 1000:>9} KB" for s in sizes) + "  ratios  (exit)")
        for shape in args.shapes.split(","):
            paths = []
            for size in sizes:
                path = tmp / f"{shape}-{size}.md"
                path.write_text(reply(shape, size))
                paths.append(path)
            for verb in args.verbs.split(","):
                medians, codes = [], set()
                for path in paths:
                    if medians and medians[-1] > args.timeout:
                        break
                    fresh = tmp / "root" if verb == "apply" else None
                    command = [str(args.binary), verb, str(path)]
                    if verb != "extract":
                        command[2:2] = ["--root", str(fresh or pristine)]
                    runs = [timed(command, fresh, pristine) for _ in range(args.runs)]
                    medians.append(statistics.median(cpu if args.cpu else wall for wall, cpu, _ in runs))
                    codes.update(code for _, _, code in runs)
                ratios = [b / a for a, b in zip(medians, medians[1:])]
                broken |= any(r > LIMIT for r in ratios)
                cells = " ".join(f"{m:>10.3f}s" for m in medians)
                marks = " ".join(f"{r:.2f}x" + ("!" if r > LIMIT else "") for r in ratios)
                print(f"{shape:10} {verb:8} {cells}  {marks}  ({','.join(map(str, sorted(codes)))})", flush=True)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
