"""Real edits: the hunks between two released versions of each pinned project.

A *base edit* is one real file's old version and the same file with some of the
version diff's hunks applied: a single hunk (``kind == "hunk"``), or every hunk of a
file that changed in 2-4 hunks (``kind == "multi"``). Its ``after`` is the intended
result of applying the edit, so every case built from it has a well-defined answer.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

#: Files larger than this (bytes) are skipped.
MAX_FILE_BYTES = 200_000
#: Files with a line longer than this (characters) are skipped (minified code, maps).
MAX_LINE_CHARS = 400
#: A hunk that removes plus adds more lines than this is not a "modest" edit.
MAX_CHANGED_LINES = 30
#: Hunks taken from one project at most, and from one file at most.
CAP_PER_PROJECT = 48
CAP_PER_FILE = 6
#: Multi-hunk base edits taken from one project at most.
CAP_MULTI_PER_PROJECT = 4
#: Characters that YAML, terminals or line splitting treat specially: files holding
#: them are skipped (control characters other than tab, NEL, line/paragraph separators).
_BAD_CHARS = {chr(c) for c in range(32) if c not in (9, 10)} | {"\x7f", "\x85", "\u2028", "\u2029", "\ufeff"}


@dataclass(frozen=True)
class BaseEdit:
    """One self-contained real edit of one file."""

    project: str
    n: int  # index within the project, stable across runs
    path: str  # relative path of the file inside the package
    before: str
    after: str
    kind: str  # "hunk" or "multi"

    @property
    def id(self) -> str:
        """The case id shared by every row built from this edit: ``<project>_<nnn>``."""
        return f"{self.project}_{self.n:03d}"


def split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only, keeping each line's ``\\n`` (``str.splitlines`` splits on more)."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def read_text_files(root: Path) -> dict[str, str]:
    """Every usable text file under ``root`` by relative path (UTF-8, LF, no odd characters)."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            full = Path(dirpath) / name
            rel = full.relative_to(root).as_posix()
            if rel == ".complete" or full.is_symlink():
                continue
            text = _usable_text(full)
            if text is not None:
                files[rel] = text
    return files


def _usable_text(path: Path) -> str | None:
    """The file's text, or None when it is binary, huge, CRLF or holds odd characters."""
    data = path.read_bytes()
    if len(data) > MAX_FILE_BYTES or b"\0" in data or b"\r" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if any(ch in _BAD_CHARS for ch in text):
        return None
    if any(len(line) > MAX_LINE_CHARS for line in text.split("\n")):
        return None
    return text


def line_opcodes(a: list[str], b: list[str]) -> list[tuple]:
    """difflib's opcodes for two line lists, computed on the part between their common
    first and last lines only (the same answer for a local edit, and far faster)."""
    n = min(len(a), len(b))
    head = 0
    while head < n and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < n - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail], autojunk=False)
    ops = [("equal", 0, head, 0, head)] if head else []
    ops += [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in middle.get_opcodes()]
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    merged: list[tuple] = []
    for op in ops:
        if merged and op[0] == "equal" and merged[-1][0] == "equal":
            prev = merged.pop()
            op = ("equal", prev[1], op[2], prev[3], op[4])
        merged.append(op)
    return merged or [("equal", 0, 0, 0, 0)]


def hunk_groups(a: list[str], b: list[str], context: int = 3) -> list[list[tuple]]:
    """The diff of two line lists as opcode groups, one group per hunk, each with up to
    ``context`` equal lines around its changes (difflib's ``get_grouped_opcodes``)."""
    codes = line_opcodes(a, b)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    groups, group = [], []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - context), max(j1, j2 - context)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def apply_groups(a: list[str], b: list[str], groups: list[list[tuple]]) -> list[str]:
    """``a`` with only the given hunk groups of the ``a``→``b`` diff applied."""
    out, pos = [], 0
    for group in groups:
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.extend(a[pos:i1])
        out.extend(b[j1:j2])
        pos = i2
    out.extend(a[pos:])
    return out


def _group_ok(a: list[str], b: list[str], group: list[tuple]) -> bool:
    """A hunk is usable: modest, and every line it shows (context included) ends in ``\\n``."""
    i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
    changed = sum((op[2] - op[1]) + (op[4] - op[3]) for op in group if op[0] != "equal")
    if changed == 0 or changed > MAX_CHANGED_LINES:
        return False
    return all(line.endswith("\n") for line in a[i1:i2] + b[j1:j2])


def project_edits(project: str, old: dict[str, str], new: dict[str, str]) -> list[BaseEdit]:
    """The base edits of one project: single hunks round-robin over files, then multi-hunk files."""
    per_file: dict[str, list[tuple[str, str]]] = {}
    multi: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for path in sorted(set(old) & set(new)):
        if old[path] == new[path] or not old[path]:
            continue
        a, b = split_lines(old[path]), split_lines(new[path])
        groups = hunk_groups(a, b)
        good = [g for g in groups if _group_ok(a, b, g)]
        singles = []
        for g in good:
            key = ("".join(a[g[0][1]:g[-1][2]]), "".join(b[g[0][3]:g[-1][4]]))
            if key in seen:
                continue  # the same hunk in another file (PKG-INFO copies): keep one
            seen.add(key)
            singles.append((old[path], "".join(apply_groups(a, b, [g]))))
        if singles:
            per_file[path] = singles[:CAP_PER_FILE]
        if 2 <= len(groups) <= 4 and len(good) == len(groups):
            multi.append((path, old[path], new[path]))
    edits = _round_robin(per_file, CAP_PER_PROJECT)
    edits += [(p, bf, af, "multi") for p, bf, af in multi[:CAP_MULTI_PER_PROJECT]]
    return [BaseEdit(project, n, p, bf, af, kind) for n, (p, bf, af, kind) in enumerate(edits, 1)]


def _round_robin(per_file: dict[str, list[tuple[str, str]]], cap: int) -> list[tuple[str, str, str, str]]:
    """Take the first hunk of every file, then the second of every file, … up to ``cap``."""
    out = []
    depth = 0
    while len(out) < cap and any(len(v) > depth for v in per_file.values()):
        for path in sorted(per_file):
            if depth < len(per_file[path]) and len(out) < cap:
                before, after = per_file[path][depth]
                out.append((path, before, after, "hunk"))
        depth += 1
    return out
