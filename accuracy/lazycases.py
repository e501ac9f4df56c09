"""Lazy edit cases: each base edit rendered as a lazy snippet (``// ... existing code ...``
markers standing for the unchanged runs), as models write them for Cursor, Continue,
Copilot and the fast-apply services, with the defects they make.

The snippet of an edit: for each group of changed lines, the new lines with 1-3 unchanged
non-blank lines around them (and the blank lines among those), the groups in file order,
an elision marker between them in the file's comment syntax (text and style varied by a
checksum), and one before the first group and after the last unless that group starts
(ends) at the file's start (end); about a quarter of the snippets leave the first or the
last marker out (the reader then assumes it). The snippet is a fenced block naming the
path (in the info string, ``path=`` or on the line above, varied), after a sentence.

The ``lazy_whole_function`` row rewrites the whole block around each change instead (see
``whole_function``): from its header line to its end, found by indentation alone, with
markers inside it for the unchanged runs longer than a few lines.
"""

from __future__ import annotations

import random
import zlib
from pathlib import PurePosixPath

from corpus import BaseEdit, line_opcodes

ROWS = (
    "lazy_clean",
    "lazy_reindent+4",
    "lazy_typo_context",
    "lazy_blank_dropped",
    "lazy_silent_deletion",
    "lazy_crlf_target",
    "lazy_whole_function",
    "lazy_unrelated_file",
    "lazy_two_places",
)
MUST_FAIL = ("lazy_unrelated_file", "lazy_two_places")

SEED = 20261128

_HASH = {".py", ".toml", ".yml", ".yaml", ".cfg", ".sh", ".txt", ".in", ".gitignore"}
_SLASH = {".rs", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".json", ".jsx", ".c", ".h", ".go", ".java", ".stderr"}
_HTML = {".md", ".html", ".rst", ".xml"}
_TEXTS = ["... existing code ...", "...existing code...", "... rest of the code ...", "...",
          "… existing code …", "... unchanged ...", "... rest of the file ..."]


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    return parts[:-1] if text.endswith("\n") else parts


def _join(lines: list[str], final_newline: bool = True) -> str:
    return "\n".join(lines) + ("\n" if final_newline and lines else "")


def _style(path: str) -> tuple[str, str]:
    name = PurePosixPath(path).name
    suffix = PurePosixPath(path).suffix or name
    if suffix in _HASH or name in ("PKG-INFO", "SOURCES.txt", ".gitignore", "Makefile"):
        return "# ", ""
    if suffix in _HTML:
        return "<!-- ", " -->"
    if suffix in _SLASH:
        return "// ", ""
    return "# ", ""


def _marker(path: str, rng: random.Random, indent: str) -> str:
    lead, close = _style(path)
    text = rng.choice(_TEXTS)
    if lead == "// " and rng.random() < 0.15:
        lead, close = "/* ", " */"
    return f"{indent}{lead}{text}{close}"


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _groups(before: list[str], after: list[str], rng: random.Random):
    """The change groups: (a0, a1, b0, b1) spans in before/after, with their context."""
    changes = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in line_opcodes(before, after) if tag != "equal"]
    if not changes:
        return []
    spans = []
    for i1, i2, _, _ in changes:
        ctx_up, ctx_down = rng.randint(1, 3), rng.randint(1, 3)
        spans.append(list(_context(before, i1, i2, ctx_up, ctx_down)))
    merged = [spans[0]]
    for s in spans[1:]:
        if s[0] <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], s[1])
        else:
            merged.append(s)
    # The new file's span of each group from its old one (the spans' context lines are
    # unchanged lines, the same in both): merged spans whose ends came from different
    # changes would otherwise show a changed line as context.
    ops = line_opcodes(before, after)
    return [(a0, a1, _after_start(ops, a0), _after_end(ops, a1)) for a0, a1 in merged]


def _context(lines: list[str], i1: int, i2: int, up: int, down: int) -> tuple[int, int]:
    """The span ``lines[i1:i2]`` widened by ``up`` non-blank lines above and ``down`` below
    (and the blank lines among them)."""
    start, n = i1, 0
    while start > 0 and n < up:
        start -= 1
        n += bool(lines[start].strip())
    end, n = i2, 0
    while end < len(lines) and n < down:
        n += bool(lines[end].strip())
        end += 1
    return start, end


def _after_start(ops, i: int) -> int:
    """The new file's index of old line ``i``, the first of a span (an unchanged line, or
    the first a change replaces; lines a change inserts right there are in the span)."""
    at = [j1 + (i - i1) for tag, i1, i2, j1, _ in ops if tag == "equal" and i1 <= i < i2]
    at += [j1 for tag, i1, _, j1, _ in ops if tag != "equal" and i == i1]
    return min(at, default=ops[-1][4] if ops else 0)


def _after_end(ops, i: int) -> int:
    """The new file's index after old line ``i - 1``, the last of a span (lines a change
    inserts right after it are in the span)."""
    at = [j2 - (i2 - i) for tag, i1, i2, _, j2 in ops if tag == "equal" and i1 < i <= i2]
    at += [j2 for tag, _, i2, _, j2 in ops if tag != "equal" and i == i2]
    return max(at, default=0)


class Rendered:
    """A snippet: its segments (lines of the new file) and where markers stand."""

    def __init__(self, edit: BaseEdit, rng: random.Random):
        self.path = edit.path
        self.before = _lines(edit.before)
        self.after = _lines(edit.after)
        self.groups = _groups(self.before, self.after, rng)
        self.segments = [list(self.after[b0:b1]) for (_, _, b0, b1) in self.groups]
        first, last = self.groups[0], self.groups[-1]
        self.open_start = first[2] > 0
        self.open_end = last[3] < len(self.after)
        roll = rng.random()
        # Sometimes the first or last marker is left out (the reader assumes it).
        self.mark_start = self.open_start and not roll < 0.125
        self.mark_end = self.open_end and not 0.125 <= roll < 0.25
        self.rng = rng
        self.markers = [self._marker_for(k) for k in range(len(self.segments) + 1)]

    def _marker_for(self, k: int) -> str:
        near = self.segments[min(k, len(self.segments) - 1)]
        ref = near[0] if k < len(self.segments) and near else (near[-1] if near else "")
        return _marker(self.path, self.rng, _indent(ref))

    def text_lines(self) -> list[str]:
        out = []
        for k, seg in enumerate(self.segments):
            if k > 0 or self.mark_start:
                out.append(self.markers[k])
            out.extend(seg)
        if self.mark_end:
            out.append(self.markers[-1])
        return out

    def fenced(self, lines: list[str]) -> str:
        lang = {".py": "python", ".rs": "rust", ".js": "javascript", ".ts": "typescript", ".md": "markdown",
                ".toml": "toml", ".json": "json", ".yml": "yaml", ".yaml": "yaml"}.get(
            PurePosixPath(self.path).suffix, "")
        how = zlib.crc32(self.path.encode()) % 3
        body = _join(lines)
        # A snippet that holds fence lines of its own (Markdown) is fenced with more backticks.
        ticks = "````" if any(x.lstrip().startswith("```") for x in lines) else "```"
        if how == 0:
            return f"Here is the change:\n\n{ticks}{lang} {self.path}\n{body}{ticks}\n"
        if how == 1:
            return f"Updated:\n\n{ticks}{lang or 'text'} path={self.path}\n{body}{ticks}\n"
        return f"The edit:\n\n{self.path}\n{ticks}{lang}\n{body}{ticks}\n"


def reachable(r: Rendered) -> bool:
    """Whether a lazy snippet can say the edit: not when it changes or deletes the file's
    first (last) line, since a snippet that does not start (end) at the file's first (last)
    line has a marker assumed there, which keeps it."""
    ops = [op for op in line_opcodes(r.before, r.after) if op[0] != "equal"]
    first, last = ops[0], ops[-1]
    if first[1] == 0 and first[2] > first[1]:
        return False
    return not (last[2] == len(r.before) and last[2] > last[1])


def _windows(r: Rendered):
    """Per segment a pinning oracle reads: its old span ``a0..a1`` and the window
    ``lo..hi`` between its neighbours' spans; a segment at the file's start (end) without
    a marker there is pinned by it and left out."""
    for k, (a0, a1, _, _) in enumerate(r.groups):
        if (k == 0 and a0 == 0) or (k == len(r.groups) - 1 and a1 == len(r.before)):
            continue
        lo = r.groups[k - 1][1] if k > 0 else 0
        hi = r.groups[k + 1][0] if k + 1 < len(r.groups) else len(r.before)
        yield a0, a1, lo, hi


def pinned(r: Rendered) -> bool:
    """Whether every segment's place is pinned by the lines it shows: the file lines it
    keeps, at their distances from each other (the lines the edit removes or changes count
    as any line: a snippet does not show them, and no reader may match them by likeness),
    stand nowhere else between the places of the segments before and after it. A segment
    at the file's start (end) without a marker there is pinned by it. Where a second place
    fits, two merges fit the snippet equally: a refusal is the right answer, and such a case
    is not counted as reachable by the first-try goal."""
    kept = [False] * len(r.before)
    for tag, i1, i2, _, _ in line_opcodes(r.before, r.after):
        if tag == "equal":
            for i in range(i1, i2):
                kept[i] = True
    for a0, a1, lo, hi in _windows(r):
        shown = [(p - a0, r.before[p].rstrip()) for p in range(a0, a1) if kept[p]]
        for x in range(lo, hi - (a1 - a0) + 1):
            if x != a0 and all(r.before[x + d].rstrip() == line for d, line in shown):
                return False
    return True


def pinned_in_order(r: Rendered) -> bool:
    """As :func:`pinned`, without the file's distances across the lines the edit removes or
    changes (a snippet does not show how many there were): each run of lines the segment
    keeps next to each other in the file and in the snippet must stand at one place only,
    the runs in order, the file free to hold any number of lines between two runs. A
    segment that fits at a second place so is unclear to a reader of the snippet (which
    of its lines are new, this oracle still knows)."""
    ops = line_opcodes(r.before, r.after)
    for a0, a1, lo, hi in _windows(r):
        runs = []
        for tag, i1, i2, _, _ in ops:
            if tag == "equal" and max(i1, a0) < min(i2, a1):
                runs.append([r.before[p].rstrip() for p in range(max(i1, a0), min(i2, a1))])
        if not runs:
            continue
        stripped = [line.rstrip() for line in r.before]
        occ = [[x for x in range(lo, hi - len(run) + 1) if stripped[x:x + len(run)] == run] for run in runs]
        # The earliest end of each run placed after the ones before it, the latest start
        # of each placed before the ones after it.
        earliest, end = [], lo
        for run, places in zip(runs, occ):
            earliest.append(end)
            first = next((x for x in places if x >= end), None)
            end = hi + 1 if first is None else first + len(run)
        latest, start = [0] * len(runs), hi
        for i in range(len(runs) - 1, -1, -1):
            latest[i] = start
            last = next((x for x in reversed(occ[i]) if x + len(runs[i]) <= start), None)
            start = -1 if last is None else last
        for i, run in enumerate(runs):
            if sum(1 for x in occ[i] if x >= earliest[i] and x + len(run) <= latest[i]) > 1:
                return False
    return True


def _alpha_spot(line: str) -> bool:
    return sum(c.isalpha() for c in line) >= 4


def _typo(line: str, rng: random.Random) -> str:
    spots = [i for i, c in enumerate(line) if c.isascii() and c.isalpha() and c not in "zZ"]
    i = rng.choice(spots)
    return line[:i] + chr(ord(line[i]) + 1) + line[i + 1:]


def build(edits: list[BaseEdit], project_files: dict[str, dict[str, str]], rows, make_case):
    """The lazy cases of the given rows; ``make_case(edit, row, before, patch, after, expect)``
    builds one."""
    cases = []
    for edit in edits:
        for row in rows:
            if row not in ROWS:
                continue
            rng = random.Random(f"{SEED}:{row}:{edit.id}")
            r = Rendered(edit, rng)
            if not r.segments or not reachable(r):
                continue
            case = _row(edit, row, r, rng, project_files[edit.project], make_case)
            if case is not None:
                # The whole_function row's segments are not the groups `pinned` reads.
                case.pinned = pinned(r) if row != "lazy_whole_function" else None
                case.pinned_order = pinned_in_order(r) if row != "lazy_whole_function" else None
                cases.append(case)
    return cases


def _row(edit, row, r: Rendered, rng, others, make_case):
    lines = r.text_lines()
    if row == "lazy_clean":
        return make_case(edit, row, edit.before, r.fenced(lines), edit.after, "apply")
    if row == "lazy_crlf_target":
        crlf = lambda t: t.replace("\n", "\r\n")  # noqa: E731
        return make_case(edit, row, crlf(edit.before), r.fenced(lines), crlf(edit.after), "apply")
    if row == "lazy_reindent+4":
        if any(line.startswith("\t") for line in lines) or any("\t" in _indent(x) for x in r.before):
            return None
        shifted = [("    " + x) if x.strip() else x for x in lines]
        return make_case(edit, row, edit.before, r.fenced(shifted), edit.after, "apply")
    if row == "lazy_typo_context":
        # The outermost context line of a segment (its first or last line), when unchanged.
        spots = []
        for k, (a0, a1, b0, b1) in enumerate(r.groups):
            seg = r.segments[k]
            if seg and r.before[a0] == seg[0] and _alpha_spot(seg[0]):
                spots.append((k, 0))
            if seg and r.before[a1 - 1] == seg[-1] and _alpha_spot(seg[-1]):
                spots.append((k, len(seg) - 1))
        if not spots:
            return None
        k, j = rng.choice(spots)
        r.segments[k][j] = _typo(r.segments[k][j], rng)
        return make_case(edit, row, edit.before, r.fenced(r.text_lines()), edit.after, "apply")
    if row == "lazy_blank_dropped":
        # A blank context line (not next to the segment's edge) left out; not for edits
        # that change blank lines only (without the line the snippet reads as applied).
        if all(not x.strip() for tag, i1, i2, j1, j2 in line_opcodes(r.before, r.after) if tag != "equal"
               for x in r.before[i1:i2] + r.after[j1:j2]):
            return None
        # Both lines around it unchanged too: next to a changed line, the snippet without it
        # says another edit as well (one that also deletes a blank line of the rewritten
        # lines), and no reader can tell which; nor when it then shows no change at all.
        spots = []
        for k, (a0, a1, b0, b1) in enumerate(r.groups):
            seg = r.segments[k]
            for j in range(1, len(seg) - 1):
                i = b0 + j
                if (not seg[j].strip() and all(_unchanged_after(edit, r, x) for x in (i - 1, i, i + 1))
                        and seg[:j] + seg[j + 1:] != r.before[a0:a1]):
                    spots.append((k, j))
        if not spots:
            return None
        k, j = rng.choice(spots)
        del r.segments[k][j]
        return make_case(edit, row, edit.before, r.fenced(r.text_lines()), edit.after, "apply")
    if row == "lazy_silent_deletion":
        # After a marker, the model also left out the segment's first (context) line: the
        # marker then covers it; applied, it must be kept (as the snippet says) or refused.
        spots = [k for k, (a0, a1, b0, b1) in enumerate(r.groups)
                 if (k > 0 or r.mark_start) and len(r.segments[k]) > 2 and r.before[a0] == r.segments[k][0]
                 and a0 + 1 < a1 and r.before[a0 + 1] == r.segments[k][1] and r.segments[k][1].strip()]
        if not spots:
            return None
        k = rng.choice(spots)
        del r.segments[k][0]
        return make_case(edit, row, edit.before, r.fenced(r.text_lines()), edit.after, "apply")
    if row == "lazy_whole_function":
        whole = whole_function(r, rng)
        if whole is None:
            return None
        return make_case(edit, row, edit.before, r.fenced(whole), edit.after, "apply")
    if row == "lazy_unrelated_file":
        if edit.kind != "hunk":
            return None
        ext = PurePosixPath(edit.path).suffix
        wanted = {x.strip() for x in lines if len(x.strip()) >= 8}
        paths = sorted(others)
        start = paths.index(edit.path) if edit.path in paths else 0
        for p in paths[start + 1:] + paths[:start]:
            text = others[p]
            if PurePosixPath(p).suffix != ext or text == edit.before or not text:
                continue
            if wanted & {x.strip() for x in _lines(text)}:
                continue
            return make_case(edit, row, text, r.fenced(lines), None, "refuse")
        return None
    if row == "lazy_two_places":
        # The region the (one) segment shows stands twice in the file: at its place and again
        # at the end, after a blank line. Both markers written: two merges fit.
        if len(r.groups) != 1 or not (r.open_start and r.open_end):
            return None
        a0, a1, _, _ = r.groups[0]
        copy = r.before[a0:a1]
        before = edit.before + ("" if edit.before.endswith("\n") else "\n") + "\n" + _join(copy)
        r.mark_start = r.mark_end = True
        return make_case(edit, row, before, r.fenced(r.text_lines()), None, "refuse")
    return None


_CLOSERS = ("}", ")", "]")
# An enclosing block shorter than this is widened to the next one out (an `if` inside a
# function gives the function), unless that one is longer than _WIDEST.
_SHORTEST = 8
_WIDEST = 60
# An unchanged run inside the block longer than this (its context lines apart) is a marker.
_RUN = 3


def _width(line: str) -> int:
    return len(_indent(line).expandtabs(4))


def _enclosing(before: list[str], h_below: int, e_from: int, ind: int):
    """The block whose body holds lines ``h_below..e_from`` indented at least ``ind``:
    ``(h, e)``, its header and the line after its end, or None at the top level."""
    h = h_below - 1
    while h >= 0 and (not before[h].strip() or _width(before[h]) >= ind):
        h -= 1
    if h < 0:
        return None
    hw = _width(before[h])
    e = e_from
    while e < len(before) and (not before[e].strip() or _width(before[e]) > hw):
        e += 1
    if e < len(before) and _width(before[e]) == hw and before[e].lstrip().startswith(_CLOSERS):
        e += 1
    else:
        while e > e_from and not before[e - 1].strip():
            e -= 1
    return h, e


def _block(before: list[str], i1: int, i2: int, changed: list[str]):
    """The whole block around a change of ``before[i1:i2]`` (``changed``: its old and new
    lines), by indentation alone, whatever the language: the header is the nearest line
    above the change indented less than every changed line; the block runs to the next
    non-blank line indented no more than the header, which it takes in when that line
    starts with a closing bracket (``}``, ``)``, ``]``: braces), and otherwise ends at its
    last non-blank line (Python, YAML). A block shorter than _SHORTEST lines is widened to
    the one around it while that is at most _WIDEST lines. None for a change at the top
    level (a changed line not indented)."""
    ind = min((_width(x) for x in changed if x.strip()), default=0)
    if ind == 0:
        return None
    block = _enclosing(before, i1, i2, ind)
    while block is not None and block[1] - block[0] < _SHORTEST:
        hw = _width(before[block[0]])
        wider = _enclosing(before, block[0], block[1], hw) if hw > 0 else None
        if wider is None or wider[1] - wider[0] > _WIDEST:
            break
        block = wider
    return block


def whole_function(r: Rendered, rng: random.Random):
    """The snippet of ``lazy_whole_function``: each change inside a block (``_block``) is
    written as the whole block of the new file, from its header to its end, each change
    with 1-2 unchanged non-blank lines around it (and the blank lines among them), and a
    marker for every other unchanged run of more than _RUN lines inside it (a run of _RUN
    or fewer is written out); a change at the top level keeps its 1-3 context lines. Markers between and around the blocks as for the
    other rows (a quarter leave the first or the last one out). None when no change is in
    a block."""
    before, after = r.before, r.after
    ops = line_opcodes(before, after)
    # Before index -> after index of the unchanged lines.
    same = {}
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i2 - i1):
                same[i1 + k] = j1 + k
    spans = []  # [a0, a1, b0, b1] in before and after
    blocks = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        block = _block(before, i1, i2, before[i1:i2] + after[j1:j2])
        if block and block[0] in same:
            h, e = block
            if e == i2:
                # The change ends the block: its next non-blank line too, so that no
                # marker follows a deletion (it would keep the deleted lines).
                while e < len(before) and not before[e].strip():
                    e += 1
                e = min(e + 1, len(before))
            if e == len(before) or e in same:
                spans.append([h, e, same[h], same[e] if e < len(before) else len(after)])
                blocks += 1
                continue
        # 1-3 non-blank context lines each side (and the blank lines among them), as the
        # other rows have: a blank line alone next to a deletion would not place it.
        up, down = rng.randint(1, 3), rng.randint(1, 3)
        a0, a1 = _context(before, i1, i2, up, down)
        spans.append([a0, a1, max(0, j1 - (i1 - a0)), min(len(after), j2 + (a1 - i2))])
    if not blocks:
        return None
    spans.sort()
    merged = [spans[0]]
    for s in spans[1:]:
        if s[0] <= merged[-1][1] or s[2] <= merged[-1][3]:
            m = merged[-1]
            m[0], m[1], m[2], m[3] = min(m[0], s[0]), max(m[1], s[1]), min(m[2], s[2]), max(m[3], s[3])
        else:
            merged.append(s)
    # The lines of the new file a change writes, and the places of deletions.
    visible = [False] * len(after)
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        # The new lines, with 1-2 non-blank unchanged lines each side (and the blank lines
        # among them): a blank line alone next to a deletion would not place it (the
        # snippet's blank line may be the file's blank line on the other side of the
        # deleted lines).
        up, down = rng.randint(1, 2), rng.randint(1, 2)
        start, end = _context(after, j1, j2, up, down)
        for j in range(start, end):
            visible[j] = True
    open_start = merged[0][2] > 0
    open_end = merged[-1][3] < len(after)
    roll = rng.random()
    mark_start = open_start and not roll < 0.125
    mark_end = open_end and not 0.125 <= roll < 0.25
    out = []
    for k, (_, _, b0, b1) in enumerate(merged):
        if k > 0 or mark_start:
            out.append(_marker(r.path, rng, _indent(after[b0])))
        shown = list(visible[b0:b1])
        shown[0] = shown[-1] = True
        j = 0
        while j < len(shown):
            if shown[j]:
                out.append(after[b0 + j])
                j += 1
                continue
            end = j
            while end < len(shown) and not shown[end]:
                end += 1
            if end - j <= _RUN:
                out.extend(after[b0 + j:b0 + end])
            else:
                # Indented as the body: the deeper of the lines around it.
                near = max(_indent(after[b0 + j - 1]), _indent(after[b0 + end]), key=len)
                out.append(_marker(r.path, rng, near))
            j = end
    if mark_end:
        out.append(_marker(r.path, rng, _indent(after[merged[-1][3] - 1])))
    return out


def _unchanged_after(edit, r: Rendered, i: int) -> bool:
    """Whether new-file line ``i`` is an unchanged line (not added by the edit)."""
    for tag, i1, i2, j1, j2 in line_opcodes(r.before, r.after):
        if j1 <= i < j2:
            return tag == "equal"
    return False
