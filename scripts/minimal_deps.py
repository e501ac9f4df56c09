#!/usr/bin/env python3
"""The crates a one-dialect build of the library compiles, for review of its build weight.

    python3 scripts/minimal_deps.py            # writes api/minimal-deps.txt
    python3 scripts/minimal_deps.py --check    # compares with api/minimal-deps.txt, exit 1 on a change

A program that depends on `polypatch` with `default-features = false, features =
["unified"]` compiles the crates `cargo tree` lists for that build (normal and build
dependencies, proc-macros included; dev-dependencies are not compiled for it). Each
crate costs the embedder compile time (BENCHMARKS.md, "Build weight"): CI runs `--check`,
so a crate added to that build (a new dependency, a feature that pulls more, a test-only
crate listed as a normal dependency) is a decision made in the same commit, with the
listing updated. Names only, without versions: an update of `Cargo.lock` is not a change
of the list.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LISTING = ROOT / "api" / "minimal-deps.txt"
HEADER = (
    "# The crates a program depending on polypatch with `default-features = false,\n"
    "# features = [\"unified\"]` compiles (scripts/minimal_deps.py; BENCHMARKS.md, \"Build weight\").\n"
)


def crates():
    out = subprocess.run(
        ["cargo", "tree", "--offline", "-p", "polypatch", "--no-default-features", "--features", "unified",
         "--edges", "normal,build", "--prefix", "none", "--format", "{p}"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout
    # `name vX.Y.Z (path)`, `(*)` for a crate listed before, `(proc-macro)` for a macro crate.
    return sorted({line.split()[0] for line in out.splitlines() if line.strip()})


def main():
    text = HEADER + "".join(name + "\n" for name in crates())
    if "--check" in sys.argv[1:]:
        if not LISTING.exists() or LISTING.read_text() != text:
            old = set(LISTING.read_text().splitlines()[2:]) if LISTING.exists() else set()
            new = set(text.splitlines()[2:])
            for name in sorted(new - old):
                print(f"+ {name}")
            for name in sorted(old - new):
                print(f"- {name}")
            print(
                f"{LISTING.relative_to(ROOT)} is not the one-dialect build's crates: if the change is "
                "meant, run `python3 scripts/minimal_deps.py` and commit the listing with it",
                file=sys.stderr,
            )
            sys.exit(1)
        return
    LISTING.write_text(text)


if __name__ == "__main__":
    main()
