"""The appliers under test, run on a scratch copy of a case's tree, and the verdicts.

Each tool runs as a subprocess with a time limit in its own scratch root; what it
reports (its exit code) and what the tree holds afterwards decide the verdict:

- ``correct``: it reported success and the tree is byte for byte the intended one (for a
  must-fail row: it refused and changed nothing);
- ``failed``: it reported failure and the tree is exactly as before, no stray file;
- ``WRONG``: anything else (success with other bytes, a failure that wrote something,
  a must-fail patch applied).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cases import Case

TIMEOUT = 10.0
#: Which dialects each tool reads.
TOOL_DIALECTS = {
    "polypatch": ("unified", "ai-patch", "ap", "applydiff", "aptix", "search-replace", "tool-call", "lazy"),
    "git": ("unified",),
    "gnu": ("unified",),
    "codex": ("ai-patch",),
}
TOOLS = tuple(TOOL_DIALECTS)


@dataclass
class Outcome:
    """What one tool did with one case."""

    ok: bool  # the tool reported success
    tree: dict[str, bytes]  # every regular file under the root afterwards
    detail: str  # a short account (polypatch's JSON status and tiers, or the tool's message)


@dataclass
class Verdict:
    """The classification of one outcome."""

    verdict: str  # "correct", "failed" or "WRONG"
    reason: str


class Scratch:
    """A private scratch folder (one per worker thread) holding ``root/`` and the patch."""

    def __init__(self, codex_bin: Path | None):
        self.dir = Path(tempfile.mkdtemp(prefix="ppacc-"))
        self.root = self.dir / "root"
        self.patch = self.dir / "patch"
        self.apply_patch = None
        if codex_bin is not None:
            self.apply_patch = self.dir / "bin" / "apply_patch"
            self.apply_patch.parent.mkdir()
            self.apply_patch.symlink_to(codex_bin)

    def reset(self, files: dict[str, bytes], patch: str) -> None:
        """Lay out a fresh root holding ``files`` and write the patch beside it."""
        if self.root.exists():
            shutil.rmtree(self.root)
        self.root.mkdir()
        for rel, data in files.items():
            target = self.root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        self.patch.write_bytes(patch.encode())

    def tree(self) -> dict[str, bytes]:
        """Every file under the root, by relative path (symlinks and others read as files)."""
        out = {}
        for dirpath, _, filenames in os.walk(self.root):
            for name in filenames:
                full = Path(dirpath) / name
                out[full.relative_to(self.root).as_posix()] = full.read_bytes() if full.is_file() else b"<not a file>"
        return out

    def remove(self) -> None:
        """Delete the scratch folder."""
        shutil.rmtree(self.dir, ignore_errors=True)


def run_tool(tool: str, case: Case, scratch: Scratch, polypatch: Path) -> Outcome:
    """Apply the case's patch with ``tool`` in a fresh scratch root."""
    scratch.reset(case.files, case.patch)
    if tool == "polypatch":
        argv = [str(polypatch), "apply", "--root", str(scratch.root), "--format", case.format or case.dialect,
                "--json", str(scratch.patch)]
    elif tool == "git":
        argv = ["git", "apply", str(scratch.patch)]
    elif tool == "gnu":
        argv = ["patch", "-p1", "-F3", "-N", "--no-backup-if-mismatch", "-r", "/dev/null",
                "-s", "-i", str(scratch.patch)]
    elif tool == "codex":
        argv = [str(scratch.apply_patch), case.patch]
    else:
        raise ValueError(f"unknown tool {tool!r}")
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(scratch.dir), LC_ALL="C")
    try:
        proc = subprocess.run(argv, cwd=scratch.root, env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return Outcome(False, scratch.tree(), f"timed out after {TIMEOUT:.0f} s")
    detail = _polypatch_detail(proc.stdout) if tool == "polypatch" else _first_line(proc.stderr or proc.stdout)
    return Outcome(proc.returncode == 0, scratch.tree(), f"exit {proc.returncode}: {detail}")


def _polypatch_detail(stdout: bytes) -> str:
    """``status`` and the tier (or failure kind) of every edit from polypatch's JSON report."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        return _first_line(stdout)
    if "error" in doc:
        return f"{doc['status']} ({doc['error'].get('kind', '')}: {doc['error'].get('message', '')[:120]})"
    parts = []
    for f in doc.get("report", {}).get("files", []):
        for e in f.get("edits", []):
            how = e.get("tier") or e.get("kind") or (e.get("failure") or {}).get("kind") or ""
            parts.append(f"{e.get('status')}" + (f"/{how}" if how else ""))
    return f"{doc.get('status')} [{', '.join(parts)}]"


def _first_line(data: bytes) -> str:
    """The first non-empty line of a tool's message, shortened."""
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip():
            return line.strip()[:160]
    return ""


def classify(case: Case, out: Outcome) -> Verdict:
    """The verdict on one outcome (see the module docs)."""
    unchanged = out.tree == case.files
    intended = out.ok and case.intended is not None and out.tree == case.intended
    if case.expect == "apply":
        if intended:
            return Verdict("correct", "")
        if not out.ok and unchanged:
            return Verdict("failed", out.detail)
    elif case.expect == "refuse":
        if not out.ok and unchanged:
            return Verdict("correct", "")
    elif intended or (not out.ok and unchanged):
        return Verdict("correct", "")
    return Verdict("WRONG", _wrong_reason(case, out, unchanged))


def _wrong_reason(case: Case, out: Outcome, unchanged: bool) -> str:
    """One line on what went wrong."""
    if not out.ok:
        return f"reported failure but changed the tree ({out.detail})"
    if case.expect != "apply":
        if case.row == "truncated_reply":
            return f"applied a reply cut off mid-line ({out.detail})" if not unchanged else \
                f"reported success on a reply cut off mid-line ({out.detail})"
        if case.row == "typo_removed_line":
            return f"applied over a line that differs from the one the patch removes ({out.detail})"
        if case.row == "duplicated_block" and case.intended is not None and out.tree == case.intended:
            return f"applied at the first of two identical places instead of refusing ({out.detail})"
        if case.row == "duplicated_block":
            return f"applied, but not at the original place ({out.detail}); {_first_diff(case.intended, out.tree)}"
        if unchanged:
            return f"reported success on an unrelated file and wrote nothing ({out.detail})"
        return f"applied to an unrelated file ({out.detail})"
    if unchanged:
        return f"reported success but wrote nothing ({out.detail})"
    return f"reported success with other bytes ({out.detail}); {_first_diff(case.intended, out.tree)}"


def _first_diff(want: dict[str, bytes] | None, got: dict[str, bytes]) -> str:
    """Where the tree first differs from the intended one, as ``line N: got … want …``."""
    if want is None:
        return ""
    for path in sorted(set(want) | set(got)):
        if want.get(path) == got.get(path):
            continue
        if path not in got or path not in want:
            return f"{path} {'missing' if path not in got else 'unexpected'}"
        w = want[path].split(b"\n")
        g = got[path].split(b"\n")
        for i, (x, y) in enumerate(zip(w, g)):
            if x != y:
                return f"line {i + 1}: got {y[:60]!r} want {x[:60]!r}"
        return f"{len(g)} lines, want {len(w)}"
    return ""


def find_codex(cache: Path) -> Path | None:
    """The Linux binary inside the npm package ``@openai/codex`` under ``.cache/node``."""
    base = cache / "node" / "node_modules" / "@openai"
    for candidate in sorted(base.glob("codex*/vendor/*linux*/**/codex")):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def install_codex(cache: Path, version: str) -> Path | None:
    """``npm install`` the pinned ``@openai/codex`` into ``.cache/node`` (once)."""
    found = find_codex(cache)
    if found is None:
        subprocess.run(["npm", "install", "--silent", "--prefix", str(cache / "node"),
                        f"@openai/codex@{version}"], check=False)
        found = find_codex(cache)
    return found


def tool_version(tool: str, polypatch: Path, codex: Path | None) -> str:
    """The version line of a tool, for the benchmark record."""
    argv = {"polypatch": [str(polypatch), "--version"], "git": ["git", "--version"],
            "gnu": ["patch", "--version"], "codex": [str(codex), "--version"] if codex else None}[tool]
    if argv is None:
        return "not available"
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=TIMEOUT)
    except OSError:
        return "not available"
    return _first_line(proc.stdout or proc.stderr)
