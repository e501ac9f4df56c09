#!/usr/bin/env python3
"""Runs the README's command-line cheat-sheet as written, as a new user would.

The `sh` block under "## The command line" is run line by line in one bash process (from
the repository root, so `examples/` is found; `d` set by its first line is kept), with the
`polypatch` of target/release first on PATH (or POLYPATCH_BIN's folder). Each line must exit
0, and print what its comment says: for the lines below, the text that must appear in
their output (a comment that promises `…` is checked up to it). A line of the block this
script does not know is run and must exit 0; the script names it so that its expectation
is added here.

    cargo build --release -p polypatch-cli && python3 scripts/readme_cli.py
"""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The start of a command line → texts its output must hold.
EXPECT = {
    "d=$(mktemp -d)": [],
    "polypatch check ": ["located: modify src/calc.py", "dry run: would apply 3 edits in 2 files, nothing written"],
    "polypatch diff ": ["diff --git a/src/calc.py b/src/calc.py", "diff --git a/tests/test_calc.py b/tests/test_calc.py"],
    "polypatch convert --to applydiff": [">>> file: src/calc.py", ">>> file: tests/test_calc.py"],
    "polypatch apply --root \"$d\" examples/demo.patch": ["applied 3 edits in 2 files"],
    "polypatch apply --root \"$d\" --json": ['{"version":1,"status":"already_applied"'],
    "polypatch apply --stat ": ["src/calc.py ", "tests/test_calc.py ", "2 files changed, 19 insertions(+), 2 deletions(-)"],
    "polypatch apply -R ": ["applied 3 edits in 2 files"],
    "polypatch detect ": ["applydiff"],
    "polypatch extract ": ["=== block 1: aptix, lines 4-29, fenced ```json ==="],
    "polypatch hash ": ["sha256:"],
    "polypatch formats": ["ai-patch", "unified", "ap", "applydiff", "aptix", "search-replace", "tool-call",
                          "(also: aipatch, codex"],
    "polypatch prompt --format ai-patch": ["*** Begin Patch"],
    "polypatch recover ": ["nothing to recover"],
}


def block() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## The command line\n", 1)[1]
    body = re.search(r"^```sh\n(.*?)^```", section, re.S | re.M).group(1)
    return [line for line in body.splitlines() if line.strip()]


def main() -> int:
    binary = Path(os.environ.get("POLYPATCH_BIN", ROOT / "target" / "release" / "polypatch"))
    if not binary.is_file():
        print(f"no polypatch at {binary}: build it (cargo build --release -p polypatch-cli) or set POLYPATCH_BIN")
        return 2
    lines = block()
    script = []
    for i, line in enumerate(lines):
        script.append(f"echo '@@@ {i}'")
        script.append(line)
        script.append("echo \"@@@ rc $?\"")
    env = dict(os.environ, PATH=f"{binary.parent}{os.pathsep}{os.environ['PATH']}")
    run = subprocess.run(["bash", "-c", "\n".join(script)], cwd=ROOT, env=env, capture_output=True, text=True)
    outputs = re.split(r"^@@@ \d+\n", run.stdout, flags=re.M)[1:]
    failed = 0
    for line, out in zip(lines, outputs):
        out, _, rc = out.rpartition("@@@ rc ")
        command = re.split(r"\s+# ", line)[0].strip()
        known = [texts for start, texts in EXPECT.items() if command.startswith(start)]
        missing = [t for texts in known for t in texts if t not in out]
        status = "ok"
        if rc.strip() != "0":
            status = f"exit {rc.strip()}"
        elif missing:
            status = f"missing {missing}"
        elif not known:
            status = "ok (exit 0; no expectation in scripts/readme_cli.py: add one)"
        failed += status != "ok" and not status.startswith("ok ")
        print(f"{status:>8}  {command}")
    if len(outputs) != len(lines):
        print(f"ran {len(outputs)} of {len(lines)} lines; stderr:\n{run.stderr}")
        return 1
    print(f"{len(lines) - failed} of {len(lines)} lines ran and printed what the README says")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
