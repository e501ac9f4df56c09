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
import selectors
import shutil
import subprocess
import sys
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
    "aider": ("search-replace", "lazy"),
    "mpatch": ("search-replace", "unified"),
}
#: The pinned PyPI versions of the Python peers (``aider-chat``'s editblock applier and
#: ``mpatch``), installed into ``.cache/peers`` by ``install_peers`` and run by ``peers.py``.
PEER_PACKAGES = ("aider-chat==0.86.2", "mpatch==1.8.1")
PEERS = ("aider", "mpatch")
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

    def __init__(self, codex_bin: Path | None, peer_python: Path | None = None):
        self.dir = Path(tempfile.mkdtemp(prefix="ppacc-"))
        self.peer_python = peer_python
        self.peer: subprocess.Popen | None = None
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
        """Delete the scratch folder (and stop the peers' worker)."""
        self.stop_peer()
        shutil.rmtree(self.dir, ignore_errors=True)

    def stop_peer(self) -> None:
        """Stop the Python peers' worker, if one runs."""
        if self.peer is not None:
            self.peer.kill()
            self.peer.wait()
            self.peer = None

    def ask_peer(self, tool: str, dialect: str) -> tuple[bool | None, str]:
        """Have the peers' worker (``peers.py``, started on first use) apply the patch with
        ``tool`` (its applier for ``dialect``); ``(None, why)`` when it does not answer
        within the time limit."""
        if self.peer is None:
            if self.peer_python is None:
                raise ValueError("the Python peers are not installed")
            self.peer = subprocess.Popen([str(self.peer_python), str(Path(__file__).with_name("peers.py"))],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                         cwd=self.dir, text=True, env=dict(os.environ, LC_ALL="C.UTF-8"))
        req = {"tool": tool, "dialect": dialect, "root": str(self.root), "patch": str(self.patch)}
        self.peer.stdin.write(json.dumps(req) + "\n")
        self.peer.stdin.flush()
        sel = selectors.DefaultSelector()
        sel.register(self.peer.stdout, selectors.EVENT_READ)
        # the first request also pays for the worker's start and imports
        ready = sel.select(TIMEOUT * 3)
        sel.close()
        if not ready:
            self.stop_peer()
            return None, f"timed out after {TIMEOUT * 3:.0f} s"
        line = self.peer.stdout.readline()
        if not line:
            self.stop_peer()
            return False, "the peer's worker exited"
        answer = json.loads(line)
        return answer["ok"], answer["detail"]


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
    elif tool in PEERS:
        ok, detail = scratch.ask_peer(tool, case.dialect)
        if ok is None:
            return Outcome(False, scratch.tree(), detail)
        return Outcome(ok, scratch.tree(), f"{'ok' if ok else 'failed'}: {detail}")
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


def find_peers(cache: Path) -> Path | None:
    """The interpreter of the peers' virtual environment, when both peers import there."""
    python = cache / "peers" / "bin" / "python"
    if not python.is_file():
        return None
    probe = subprocess.run([str(python), "-c", "import aider.coders.editblock_coder, mpatch"],
                           capture_output=True, check=False)
    return python if probe.returncode == 0 else None


def install_peers(cache: Path) -> Path | None:
    """Make ``.cache/peers`` (a virtual environment) and ``pip install`` the pinned peers
    into it (once)."""
    found = find_peers(cache)
    if found is None:
        subprocess.run([sys.executable, "-m", "venv", str(cache / "peers")], check=False)
        subprocess.run([str(cache / "peers" / "bin" / "pip"), "install", "--quiet", *PEER_PACKAGES], check=False)
        found = find_peers(cache)
    return found


def tool_version(tool: str, polypatch: Path, codex: Path | None) -> str:
    """The version line of a tool, for the benchmark record."""
    if tool in PEERS:
        return next(p for p in PEER_PACKAGES if p.startswith(tool)).replace("==", " ")
    argv = {"polypatch": [str(polypatch), "--version"], "git": ["git", "--version"],
            "gnu": ["patch", "--version"], "codex": [str(codex), "--version"] if codex else None}[tool]
    if argv is None:
        return "not available"
    try:
        proc = subprocess.run(argv, capture_output=True, timeout=TIMEOUT)
    except OSError:
        return "not available"
    return _first_line(proc.stdout or proc.stderr)
