#!/usr/bin/env python3
"""Whole-process peak memory of `polypatch apply` against the size of its input.

For each case a generated file (100,000 or 1,000,000 lines) and a patch of it (unified or
AI-PATCH, exact hunks with 3 context lines per side) are written to a temporary directory;
the release CLI applies the patch to a fresh copy of the file under `/usr/bin/time -f %M`
(peak resident set size, KiB). Every run's result is checked byte for byte. The script
prints the median peak of the runs and its ratio to the input (file + patch); the goal of
issue 14 is a ratio of at most 3.

    cargo build --release -p polypatch-cli
    python3 benches/memory.py [--runs 3] [--binary PATH]

`--binary` measures another build of the CLI (a copy of an earlier one, to compare).
"""

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
POLYPATCH = ROOT / "target" / "release" / "polypatch"
TIME = Path("/usr/bin/time")
CONTEXT = 3
CASES = [  # (lines, hunks, dialect)
    (100_000, 50, "unified"),
    (100_000, 50, "ai-patch"),
    (1_000_000, 50, "unified"),
    (1_000_000, 1_000, "unified"),
    (1_000_000, 1_000, "ai-patch"),
]


def source(lines: int) -> list[str]:
    rng = random.Random(7)
    words = ["buffer", "cache", "config", "entry", "frame", "index", "node", "queue", "state", "token"]
    return [f"    let {rng.choice(words)}_{i} = {rng.choice(words)}.get({rng.randrange(1000)})?;" for i in range(lines)]


def patch(before: list[str], hunks: int, dialect: str) -> tuple[str, list[str]]:
    """The patch text and the lines after it; hunk h changes the line in the middle of slot h."""
    after = list(before)
    stride = len(before) // hunks
    out = ["--- a/big.rs\n+++ b/big.rs\n" if dialect == "unified" else "*** Begin Patch\n*** Update File: big.rs\n"]
    for h in range(hunks):
        at = h * stride + stride // 2
        after[at] = f"    changed_{h}();"
        n = 2 * CONTEXT + 1
        out.append(f"@@ -{at - CONTEXT + 1},{n} +{at - CONTEXT + 1},{n} @@\n" if dialect == "unified" else "@@\n")
        out.extend(f" {line}\n" for line in before[at - CONTEXT : at])
        out.append(f"-{before[at]}\n+{after[at]}\n")
        out.extend(f" {line}\n" for line in before[at + 1 : at + 1 + CONTEXT])
    if dialect == "ai-patch":
        out.append("*** End Patch\n")
    return "".join(out), after


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--binary", type=Path, default=POLYPATCH, help="the polypatch binary to measure")
    args = ap.parse_args()
    for need, how in [(args.binary, "cargo build --release -p polypatch-cli"), (TIME, "apt-get install time")]:
        if not need.exists():
            print(f"{need} is missing: {how}", file=sys.stderr)
            return 2
    print(f"{'lines':>9} {'hunks':>5} {'dialect':9} {'file+patch MiB':>14} {'peak MiB':>9} {'ratio':>6}  (goal <= 3)")
    sources: dict[int, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for lines, hunks, dialect in CASES:
            before = sources.setdefault(lines, source(lines))
            text, after = patch(before, hunks, dialect)
            original = ("\n".join(before) + "\n").encode()
            target = ("\n".join(after) + "\n").encode()
            patch_file = tmp / "change.patch"
            patch_file.write_text(text)
            peaks = []
            for run in range(args.runs):
                d = tmp / f"run-{run}"
                d.mkdir()
                (d / "big.rs").write_bytes(original)
                command = [str(TIME), "-f", "%M", str(args.binary), "apply", "--root", str(d), str(patch_file)]
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0 or (d / "big.rs").read_bytes() != target:
                    print(f"{lines} lines, {dialect}: the apply failed or wrote other bytes\n{done.stderr}", file=sys.stderr)
                    return 1
                peaks.append(int(done.stderr.strip().splitlines()[-1]) * 1024)
                (d / "big.rs").unlink()
                d.rmdir()
            peak = statistics.median(peaks)
            size = len(original) + len(text.encode())
            ratio = peak / size
            mib = 1024 * 1024
            print(f"{lines:>9} {hunks:>5} {dialect:9} {size / mib:>14.1f} {peak / mib:>9.1f} {ratio:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
