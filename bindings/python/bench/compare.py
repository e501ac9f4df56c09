"""polypatch side by side with codex-apply-patch and mpatch (PyPI), on the same in-memory
edits: one hunk on a 200-line file, and 50 hunks on a 100,000-line file.

Each library is given the patch in the dialect it reads: codex-apply-patch the AI-PATCH
text (`*** Begin Patch`), mpatch the unified diff; polypatch is timed on both. Every
result is checked against the expected text before anything is timed. The calls are
interleaved round by round (so a drift of the machine's speed touches all of them alike),
and the table gives each call's median and its ratio to polypatch's median on the same
patch text, measured in this one run.

    pip install codex-apply-patch mpatch      # the peers, where they install
    python bindings/python/bench/compare.py   # with polypatch built (maturin develop --release)
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable, Dict, List, Tuple

import polypatch

PATH = "src/big.py"


def make_file(lines: int) -> List[str]:
    """A file of distinct Python-like lines (every line unique, so every hunk has one
    place)."""
    out = []
    for i in range(lines):
        if i % 10 == 0:
            out.append(f"def function_{i}(value):\n")
        else:
            out.append(f"    value = value * {i % 7 + 1} + {i}  # step {i}\n")
    return out


def make_edits(lines: List[str], hunks: int) -> Tuple[str, str, str]:
    """`hunks` one-line changes spread evenly over the file: the new text, the AI-PATCH
    patch and the unified diff (three lines of context each)."""
    new = list(lines)
    step = len(lines) // (hunks + 1)
    at = [step * (k + 1) + 5 for k in range(hunks)]
    aipatch = [f"*** Begin Patch\n*** Update File: {PATH}\n"]
    diff = [f"--- a/{PATH}\n+++ b/{PATH}\n"]
    for n in at:
        new[n] = lines[n].replace("value = value", "value = value - 1")
        before, after = lines[n - 3 : n], lines[n + 1 : n + 4]
        aipatch.append("@@\n")
        aipatch += [" " + line for line in before]
        aipatch += ["-" + lines[n], "+" + new[n]]
        aipatch += [" " + line for line in after]
        diff.append(f"@@ -{n - 2},7 +{n - 2},7 @@\n")
        diff += [" " + line for line in before]
        diff += ["-" + lines[n], "+" + new[n]]
        diff += [" " + line for line in after]
    aipatch.append("*** End Patch\n")
    return "".join(new), "".join(aipatch), "".join(diff)


def peers() -> Dict[str, object]:
    found = {}
    for name in ("codex_apply_patch", "mpatch"):
        try:
            found[name] = __import__(name)
        except ImportError:
            print(f"({name} is not installed: left out)", file=sys.stderr)
    return found


def case(lines: int, hunks: int, runs: int) -> List[Tuple[str, float, str]]:
    text = "".join(make_file(lines))
    expected, aipatch, diff = make_edits(make_file(lines), hunks)
    found = peers()
    calls: Dict[str, Callable[[], str]] = {
        "polypatch (AI-PATCH)": lambda: polypatch.apply_to_files(aipatch, {PATH: text})[0][PATH],
        "polypatch (unified)": lambda: polypatch.apply_to_files(diff, {PATH: text})[0][PATH],
    }
    if "codex_apply_patch" in found:
        codex = found["codex_apply_patch"]
        calls["codex-apply-patch (AI-PATCH)"] = lambda: codex.apply_patch_in_memory(aipatch, {PATH: text}).files[PATH]
    if "mpatch" in found:
        mpatch = found["mpatch"]
        calls["mpatch (unified)"] = lambda: mpatch.patch_content(diff, text)
    for name, call in calls.items():
        got = call()
        assert got == expected, f"{name} gave another text"
    times: Dict[str, List[float]] = {name: [] for name in calls}
    for _ in range(runs):
        for name, call in calls.items():
            start = time.perf_counter_ns()
            call()
            times[name].append((time.perf_counter_ns() - start) / 1000)
    medians = {name: statistics.median(t) for name, t in times.items()}
    rows = []
    for name, median in medians.items():
        ours = medians["polypatch (AI-PATCH)" if "AI-PATCH" in name else "polypatch (unified)"]
        rows.append((name, median, f"{median / ours:.2f}"))
    return rows


def main() -> None:
    cases = [
        ("1 hunk, 200-line file", 200, 1, 2000),
        ("50 hunks, 100,000-line file", 100_000, 50, 40),
    ]
    print(f"python {sys.version.split()[0]}, polypatch {polypatch.__version__}")
    for title, lines, hunks, runs in cases:
        print(f"\n{title} ({runs} runs each, interleaved)")
        print(f"| call | median (µs) | × polypatch on the same text |\n|---|---:|---:|")
        for name, median, ratio in case(lines, hunks, runs):
            print(f"| {name} | {median:,.1f} | {ratio} |")


if __name__ == "__main__":
    main()
