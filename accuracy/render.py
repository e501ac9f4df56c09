"""Render a before/after pair into each dialect, as a careful model would write it.

Patches are kept as small structures (``DiffPatch`` for ``unified``, ``ai-patch``,
``applydiff``, ``aptix`` and ``search-replace``, ``ApPatch`` for ``ap``) so that defects can be applied to their lines before they are
turned into text. Lines are held without their ``\\n``.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from dataclasses import dataclass, field, replace

from corpus import hunk_groups, split_lines

#: Context lines around each hunk (git's and Codex's default).
CONTEXT = 3
#: How far a renderer widens a block (lines each side) to make it unique.
MAX_WIDEN = 8


@dataclass
class Hunk:
    """One hunk: its place in the old and new file and its tagged lines (`` ``, ``-``, ``+``)."""

    old_start: int  # 1-based
    new_start: int
    lines: list[tuple[str, str]]
    header: str = ""  # ai-patch: the text after "@@ " (a context line or ":N")

    def old_lines(self) -> list[str]:
        """The lines the hunk expects in the file (context and removed)."""
        return [t for tag, t in self.lines if tag != "+"]


@dataclass
class DiffPatch:
    """A one-file patch in a line-diff dialect (``unified``, ``ai-patch``, ``applydiff`` or
    ``aptix``; an ApplyDiff block and an Aptix find/replace are a hunk written as its old
    and its new side)."""

    path: str
    hunks: list[Hunk]
    dialect: str  # "unified", "ai-patch", "applydiff", "aptix" or "search-replace"
    line_offset: int = 0  # added to every hunk's line numbers when rendered
    fenced: bool = False  # aptix, tool-call: in a ```json fence after a sentence of prose
    shape: str = ""  # tool-call: "multiedit" or "tool_use"


@dataclass
class Mod:
    """One ``ap`` modification."""

    action: str
    snippet: list[str]
    content: list[str] | None
    anchor: list[str] | None = None
    leading_blank: int = 0
    trailing_blank: int = 0
    at: int = 0  # where the snippet's first line is in the file (not part of the patch)


@dataclass
class ApPatch:
    """A one-file ``ap`` patch."""

    path: str
    mods: list[Mod] = field(default_factory=list)


def lines_of(text: str) -> list[str]:
    """A file's lines without their ``\\n``."""
    return [line.rstrip("\n") for line in split_lines(text)]


# --- unified and ai-patch -------------------------------------------------------------


def diff_hunks(before: list[str], after: list[str], context: int = CONTEXT) -> list[Hunk]:
    """The hunks of the ``before``→``after`` line diff, with ``context`` lines around each."""
    hunks = []
    for group in hunk_groups(before, after, context):
        lines = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [(" ", t) for t in before[i1:i2]]
            else:
                lines += [("-", t) for t in before[i1:i2]]
                lines += [("+", t) for t in after[j1:j2]]
        hunks.append(Hunk(group[0][1] + 1, group[0][3] + 1, lines))
    return hunks


def render_unified(before: str, after: str, path: str) -> DiffPatch:
    """The git-style diff of one file."""
    return DiffPatch(path, diff_hunks(lines_of(before), lines_of(after)), "unified")


def render_aipatch(before: str, after: str, path: str) -> DiffPatch | None:
    """The AI-PATCH of one file: plain ``@@`` hunks whose old block is unique in the file,
    an ``@@ <line>`` header where it is not, else more context; None when nothing works."""
    old = lines_of(before)
    new = lines_of(after)
    for context in range(CONTEXT, CONTEXT + MAX_WIDEN):
        hunks = diff_hunks(old, new, context)
        if all(_make_findable(old, h) for h in hunks):
            return DiffPatch(path, hunks, "ai-patch")
    return None


def _make_findable(file: list[str], hunk: Hunk) -> bool:
    """True when the hunk's old block is unique, or can be made so with an ``@@`` header."""
    block = hunk.old_lines()
    places = find_block(file, block)
    if places == [hunk.old_start - 1]:
        return True
    for q in range(hunk.old_start - 2, -1, -1):
        line = file[q]
        if not line.strip() or file.count(line) != 1:
            continue
        after_header = [p for p in places if p > q]
        if after_header and after_header[0] == hunk.old_start - 1:
            hunk.header = line
            return True
    return False


def find_block(file: list[str], block: list[str]) -> list[int]:
    """Every 0-based index where ``block`` occurs in ``file`` line for line."""
    n = len(block)
    if n == 0:
        return []
    first = block[0]
    return [i for i in range(len(file) - n + 1) if file[i] == first and file[i:i + n] == block]


def unified_text(patch: DiffPatch) -> str:
    """The patch as a git diff (no ``index`` line: a model does not know the blob ids)."""
    p = patch.path
    out = [f"diff --git a/{p} b/{p}\n", f"--- a/{p}\n", f"+++ b/{p}\n"]
    for h in patch.hunks:
        old_n = sum(1 for tag, _ in h.lines if tag != "+")
        new_n = sum(1 for tag, _ in h.lines if tag != "-")
        old_s = _range(h.old_start + patch.line_offset, old_n)
        new_s = _range(h.new_start + patch.line_offset, new_n)
        out.append(f"@@ -{old_s} +{new_s} @@\n")
        out += [f"{tag}{text}\n" for tag, text in h.lines]
    return "".join(out)


def _range(start: int, count: int) -> str:
    """A hunk header range as git writes it (``5``, ``5,3``; an empty side names the line before)."""
    if count == 0:
        return f"{start - 1},0"
    return str(start) if count == 1 else f"{start},{count}"


def aipatch_text(patch: DiffPatch) -> str:
    """The patch in OpenAI Codex's ``*** Begin Patch`` format."""
    out = ["*** Begin Patch\n", f"*** Update File: {patch.path}\n"]
    for h in patch.hunks:
        out.append(f"@@ {h.header}\n" if h.header else "@@\n")
        out += [f"{tag}{text}\n" for tag, text in h.lines]
    out.append("*** End Patch\n")
    return "".join(out)


# --- applydiff ------------------------------------------------------------------------


def render_applydiff(before: str, after: str, path: str) -> DiffPatch | None:
    """The ApplyDiff v3.0 patch of one file: one ``mode=patch`` block per hunk, with 3
    lines of context (spec §2) and no line numbers. The blocks apply in order, each on the
    result of the one before, and each block's from lines must occur exactly once there;
    where one does not, every block gets more context (the spec's remedy for an ambiguous
    match). None when nothing works, when a block would have no from lines (an empty
    ``--- from`` creates a file) or when a line reads as one of the format's markers."""
    old = lines_of(before)
    new = lines_of(after)
    if any(_applydiff_marker(line) for line in old + new):
        return None
    for context in range(CONTEXT, CONTEXT + MAX_WIDEN):
        hunks = diff_hunks(old, new, context)
        if hunks and all(h.old_lines() for h in hunks) and _applydiff_unique(old, hunks):
            return DiffPatch(path, hunks, "applydiff")
    return None


def _applydiff_marker(line: str) -> bool:
    """True for a line the ApplyDiff syntax would read as a header, section or closer."""
    return line.rstrip() in ("--- from", "--- to", "<", "<<<") or line.lstrip().startswith(">>> file:")


def _applydiff_unique(file: list[str], hunks: list[Hunk]) -> bool:
    """True when, applying the blocks in order, each block's from lines occur once in the
    file as the blocks before it left it, at the hunk's own place."""
    state, delta = list(file), 0
    for h in hunks:
        block = h.old_lines()
        new = [t for tag, t in h.lines if tag != "-"]
        at = h.old_start - 1 + delta
        if find_block(state, block) != [at]:
            return False
        state[at:at + len(block)] = new
        delta += len(new) - len(block)
    return True


def applydiff_text(patch: DiffPatch) -> str:
    """The patch as ApplyDiff blocks: ``>>> file:``, ``--- from`` (context and removed
    lines), ``--- to`` (context and added lines), ``<``."""
    out = []
    for h in patch.hunks:
        out.append(f">>> file: {patch.path}\n--- from\n")
        out += [f"{t}\n" for tag, t in h.lines if tag != "+"]
        out.append("--- to\n")
        out += [f"{t}\n" for tag, t in h.lines if tag != "-"]
        out.append("<\n")
    return "".join(out)


# --- search-replace ------------------------------------------------------------------


def render_search_replace(before: str, after: str, path: str) -> DiffPatch | None:
    """SEARCH/REPLACE blocks as Aider's "diff" format has them: the path alone on a line,
    a fence, one block per hunk (SEARCH: the hunk's context and removed lines; REPLACE: its
    context and added lines), 3 lines of context, no line numbers. The blocks apply in
    order, each on the result of the ones before, and each SEARCH must occur exactly once
    there; where one does not, every block gets more context (Aider's prompt: "include
    enough lines to uniquely match"). None when nothing works, when a block would have an
    empty SEARCH (an append), or when a line of a block reads as a marker of the format
    (a line of the file outside the blocks may)."""
    old = lines_of(before)
    new = lines_of(after)
    for context in range(CONTEXT, CONTEXT + MAX_WIDEN):
        hunks = diff_hunks(old, new, context)
        if any(_search_replace_marker(t) for h in hunks for _, t in h.lines):
            return None
        if (hunks and all(h.old_lines() and not _dashes(h.old_lines()[0]) for h in hunks)
                and _applydiff_unique(old, hunks)):
            return DiffPatch(path, hunks, "search-replace")
    return None


def _search_replace_marker(line: str) -> bool:
    """True for a line the SEARCH/REPLACE syntax would read as a marker, an elision or a
    line hint: a ``=====`` run, a SEARCH or REPLACE marker (Aider's or Cline's), a lone
    ``...``, ``:start_line:``."""
    t = line.rstrip()
    words = t.lstrip("<>-+ ").strip()
    return ((t[:1] in "<>-+" and len(t) - len(t.lstrip(t[:1])) >= 3 and words in ("SEARCH", "REPLACE"))
            or t.startswith((":start_line:", ":end_line:"))
            or (len(t) >= 5 and set(t) == {"="}) or t.strip() == "...")


def _dashes(line: str) -> bool:
    """A ``-----`` line, which right after ``<<<<<<< SEARCH`` reads as Roo Code's separator."""
    t = line.rstrip()
    return len(t) >= 5 and set(t) == {"-"}


def search_replace_text(patch: DiffPatch) -> str:
    """The patch as Aider writes it: the path line, a fence, the blocks, the closing fence.
    A hunk with a header (``wrong_line_numbers``) carries it as Roo Code's ``:start_line:N``
    and ``-------`` lines."""
    out = [f"{patch.path}\n```\n"]
    for h in patch.hunks:
        out.append("<<<<<<< SEARCH\n")
        if h.header:
            out.append(f":start_line:{h.header}\n-------\n")
        out += [f"{t}\n" for tag, t in h.lines if tag != "+"]
        out.append("=======\n")
        out += [f"{t}\n" for tag, t in h.lines if tag != "-"]
        out.append(">>>>>>> REPLACE\n")
    out.append("```\n")
    return "".join(out)


# --- aptix ---------------------------------------------------------------------------


def render_aptix(before: str, after: str, path: str) -> DiffPatch | None:
    """The Aptix file bundle of one file: one ``operation: "patch"`` entry whose
    ``patches`` hold one ``{find, replace, limit: "once"}`` per hunk, in file order. A
    ``find`` is the hunk's context and removed lines (whole lines, each ending in ``\\n``),
    its ``replace`` the context and added lines; 3 lines of context. ``find`` is a literal
    substring and ``limit: "once"`` takes its first occurrence (file spec §2.3), applied in
    order, each on the result of the one before; a careful model makes every ``find``
    occur exactly once (§2.4), as a substring, in the file as the edits before left it —
    where one does not, every hunk gets more context. About half the bundles are written
    bare, the others in a ```` ```json ```` fence after a sentence of prose, as a chat
    reply has them (which ones: a checksum of path and file, the same every run). None
    when nothing works or when a hunk would have an empty ``find``."""
    old = lines_of(before)
    new = lines_of(after)
    fenced = zlib.crc32(f"{path}\0{before}".encode()) % 2 == 1
    for context in range(CONTEXT, CONTEXT + MAX_WIDEN):
        hunks = diff_hunks(old, new, context)
        if hunks and all(h.old_lines() for h in hunks) and _aptix_unique(before, hunks):
            return DiffPatch(path, hunks, "aptix", fenced=fenced)
    return None


def aptix_pair(h: Hunk) -> tuple[str, str]:
    """A hunk's ``find`` (context and removed lines) and ``replace`` (context and added
    lines), each line ending in ``\\n``."""
    find = "".join(f"{t}\n" for tag, t in h.lines if tag != "+")
    repl = "".join(f"{t}\n" for tag, t in h.lines if tag != "-")
    return find, repl


def substring_places(text: str, find: str) -> list[int]:
    """Every offset where ``find`` occurs in ``text`` (overlapping occurrences too)."""
    out, i = [], text.find(find)
    while find and i >= 0:
        out.append(i)
        i = text.find(find, i + 1)
    return out


def _aptix_unique(before: str, hunks: list[Hunk]) -> bool:
    """True when, applying the finds in order, each one occurs exactly once as a substring
    of the file as the edits before it left it, at the hunk's own place."""
    state, delta = before, 0
    for h in hunks:
        find, repl = aptix_pair(h)
        at_line = h.old_start - 1 + delta
        offset = sum(len(line) for line in split_lines(state)[:at_line])
        if substring_places(state, find) != [offset]:
            return False
        state = state[:offset] + repl + state[offset + len(find):]
        delta += repl.count("\n") - find.count("\n")
    return True


def aptix_text(patch: DiffPatch) -> str:
    """The patch as an Aptix file bundle, ``json.dumps(indent=2)`` (SYS-004 §7: pretty
    printed, one field per line, line breaks and tabs escaped; other characters as they
    are, as a model writes them), bare or in a ```` ```json ```` fence after a sentence."""
    doc = {
        "root": ".",
        "files": [{
            "path": patch.path,
            "operation": "patch",
            "patches": [dict(zip(("find", "replace"), aptix_pair(h)), limit="once") for h in patch.hunks],
        }],
    }
    body = json.dumps(doc, indent=2, ensure_ascii=False)
    if patch.fenced:
        return f"Here is the change to `{patch.path}` as an Aptix file bundle:\n\n```json\n{body}\n```\n"
    return body + "\n"


# --- tool-call ------------------------------------------------------------------------


def render_toolcall(before: str, after: str, path: str) -> DiffPatch | None:
    """The edit as JSON tool calls: one old/new text pair per hunk, in file order, the old
    text a hunk's context and removed lines, the new text its context and added lines
    (whole lines, each ending in ``\n``), 3 lines of context. Each old text must occur
    exactly once in the file as the edits before it left it (the tools' own rule) — where
    one would not, every hunk gets more context. Two shapes, chosen by a checksum of path
    and file: a Claude Code MultiEdit call (``file_path``, ``edits``), or an array of
    Anthropic ``tool_use`` blocks of the text editor's ``str_replace``; about half in a
    ```` ```json ```` fence after a sentence of prose, as a chat reply has them."""
    old = lines_of(before)
    new = lines_of(after)
    sum_ = zlib.crc32(f"{path}\0{before}".encode())
    for context in range(CONTEXT, CONTEXT + MAX_WIDEN):
        hunks = diff_hunks(old, new, context)
        if hunks and all(h.old_lines() for h in hunks) and _aptix_unique(before, hunks):
            shape = "tool_use" if (sum_ >> 1) % 2 else "multiedit"
            return DiffPatch(path, hunks, "tool-call", fenced=sum_ % 2 == 1, shape=shape)
    return None


def toolcall_text(patch: DiffPatch) -> str:
    """The patch as tool calls, ``json.dumps(indent=2)`` (line breaks and tabs escaped,
    other characters as they are), bare or in a ```` ```json ```` fence after a sentence."""
    pairs = [aptix_pair(h) for h in patch.hunks]
    if patch.shape == "tool_use":
        doc = [
            {"type": "tool_use", "id": f"toolu_{i + 1:02}", "name": "str_replace_based_edit_tool",
             "input": {"command": "str_replace", "path": patch.path, "old_str": f, "new_str": r}}
            for i, (f, r) in enumerate(pairs)
        ]
    else:
        doc = {"file_path": patch.path, "edits": [{"old_string": f, "new_string": r} for f, r in pairs]}
    body = json.dumps(doc, indent=2, ensure_ascii=False)
    if patch.fenced:
        return f"I'll edit `{patch.path}`:\n\n```json\n{body}\n```\n"
    return body + "\n"


# --- ap -------------------------------------------------------------------------------


def render_ap(before: str, after: str, path: str, absolute: bool = False) -> ApPatch | None:
    """The ``ap`` patch of one file: one modification per hunk, applied in sequence.

    Pure insertions become INSERT_AFTER (or INSERT_BEFORE at the top), pure deletions
    DELETE, the rest REPLACE; blank lines at a block's ends are taken with
    ``include_*_blank_lines``. A block that is not unique is widened with context (REPLACE,
    INSERT) or given an anchor. Content is written relative to the snippet's first line
    (§3.3), or, with ``absolute`` or where relative indentation cannot express it, with the
    file's own indentation (a ``|N`` block). None when no unique locator exists."""
    old = lines_of(before)
    new = lines_of(after)
    closed = not before or before.endswith("\n")
    state, delta, patch = list(old), 0, ApPatch(path)
    for group in hunk_groups(old, new, 0):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        s, e = i1 + delta, i2 + delta
        mod = _ap_mod(state, s, e, new[j1:j2], closed, absolute)
        if mod is None:
            return None
        patch.mods.append(mod)
        state[s:e] = new[j1:j2]
        delta += (j2 - j1) - (i2 - i1)
    return patch


def _ap_mod(file: list[str], s: int, e: int, new: list[str], closed: bool, absolute: bool) -> Mod | None:
    """The modification that turns ``file[s:e]`` into ``new``. A change of blank lines
    only has no snippet of its own (and blank content would count as already there): it
    becomes a REPLACE of the non-blank lines around it."""
    nonblank = [i for i in range(s, e) if file[i].strip()]
    mod = None
    if s == e and any(x.strip() for x in new):
        mod = _ap_insert(file, s, new, closed)
    elif nonblank:
        a, b = nonblank[0], nonblank[-1] + 1
        action, content = ("REPLACE", list(new)) if new else ("DELETE", None)
        mod = _ap_located(file, action, a, b, content, a - s, e - b, closed)
    if mod is None:
        mod = _ap_replace_with_context(file, s, e, new, closed)
    if mod is not None and not absolute and not _relative_ok(mod):
        mod = _widen_for_relative(file, mod) or mod
    return mod and _indent(mod, absolute)


def _relative_ok(mod: Mod) -> bool:
    """True when every content line starts with the snippet's first line's indentation,
    so the content can be written relative to it (§3.3)."""
    ind = _lead(mod.snippet[0])
    return all(c.startswith(ind) for c in (mod.content or []) if c.strip())


def _widen_for_relative(file: list[str], mod: Mod) -> Mod | None:
    """A REPLACE or INSERT_AFTER whose snippet starts further up, at a line whose
    indentation all the content shares, so the content can be written relative to it."""
    if mod.action not in ("REPLACE", "INSERT_AFTER"):
        return None
    for q in range(mod.at - 1, max(-1, mod.at - 1 - 4 * MAX_WIDEN), -1):
        if not file[q].strip():
            continue
        if mod.action == "REPLACE":
            start = mod.at - mod.leading_blank
            cand = replace(mod, snippet=file[q:mod.at] + mod.snippet, content=file[q:start] + mod.content,
                           leading_blank=0, at=q)
        else:
            cand = replace(mod, snippet=file[q:mod.at] + mod.snippet, at=q)
        anchored = cand.anchor is not None and ap_find(file, cand.anchor)[0] < q
        places = ap_find(file, cand.snippet)
        if anchored:
            places = [p for p in places if p > ap_find(file, cand.anchor)[0]][:1]
        else:
            cand = replace(cand, anchor=None)
        if places == [q] and _relative_ok(cand):
            return cand
    return None


def _ap_insert(file: list[str], s: int, new: list[str], closed: bool) -> Mod | None:
    """INSERT_AFTER the last non-blank line before ``s`` (taking the blank lines between),
    or INSERT_BEFORE the first one after it at the top of a file."""
    above = [i for i in range(s) if file[i].strip()]
    if above:
        p = above[-1]
        return _ap_located(file, "INSERT_AFTER", p, p + 1, list(new), 0, s - 1 - p, closed)
    below = [i for i in range(s, len(file)) if file[i].strip()]
    if below:
        f = below[0]
        return _ap_located(file, "INSERT_BEFORE", f, f + 1, list(new), f - s, 0, closed)
    return None


def _ap_located(file, action, a, b, content, lead, trail, closed) -> Mod | None:
    """A modification whose snippet is ``file[a:b]`` (non-blank ends) with ``lead`` and
    ``trail`` blank lines taken around it. When the snippet is not unique it gets an
    anchor (the spec's way); failing that, REPLACE and INSERT snippets are widened with
    context lines (INSERT_AFTER upward, INSERT_BEFORE downward)."""
    snippet = file[a:b]
    if ap_find(file, snippet) == [a]:
        return Mod(action, snippet, content, None, lead, trail, a)
    anchor = _anchor(file, a, snippet)
    if anchor is not None:
        return Mod(action, snippet, content, [file[anchor]], lead, trail, a)
    up = action in ("REPLACE", "INSERT_AFTER")
    down = action in ("REPLACE", "INSERT_BEFORE")
    for _ in range(MAX_WIDEN):
        grown = _grow(file, a, b, closed, up, down)
        if grown is None:
            return None
        na, nb = grown
        if action == "REPLACE" and na < a:
            content, lead = file[na:a - lead] + content, 0
        if action == "REPLACE" and nb > b:
            content, trail = content + file[b + trail:nb], 0
        a, b = na, nb
        if ap_find(file, file[a:b]) == [a]:
            return Mod(action, file[a:b], content, None, lead, trail, a)
    return None


def _grow(file, a, b, closed, up, down) -> tuple[int, int] | None:
    """Widen ``[a, b)`` by one non-blank line upward (and downward), taking blank lines between."""
    na, nb = a, b
    if up:
        above = [i for i in range(a - 1, -1, -1) if file[i].strip()]
        if above:
            na = above[0]
    if down:
        limit = len(file) if closed else len(file) - 1
        below = [i for i in range(b, limit) if file[i].strip()]
        if below:
            nb = below[0] + 1
    return None if (na, nb) == (a, b) else (na, nb)


def _ap_replace_with_context(file, s, e, new, closed) -> Mod | None:
    """A REPLACE that takes non-blank context lines on both sides into snippet and content."""
    a, b = s, e
    for _ in range(MAX_WIDEN):
        grown = _grow(file, a, b, closed, True, True)
        if grown is None:
            return None
        a, b = grown
        snippet = file[a:b]
        if not (snippet and snippet[0].strip() and snippet[-1].strip()):
            continue
        if ap_find(file, snippet) == [a]:
            return Mod("REPLACE", snippet, file[a:s] + list(new) + file[e:b], at=a)
    return None


def _anchor(file: list[str], start: int, snippet: list[str]) -> int | None:
    """The nearest line above ``start`` that is unique and after which the snippet's first
    occurrence is at ``start``."""
    places = ap_find(file, snippet)
    norm = [line.strip() for line in file]
    counts = Counter(norm)
    for q in range(start - 1, -1, -1):
        if not norm[q] or counts[norm[q]] != 1:
            continue
        after = [p for p in places if p > q]
        if after and after[0] == start:
            return q
    return None


def ap_find(file: list[str], snippet: list[str]) -> list[int]:
    """Where the spec's §3.2 normalized search finds ``snippet``: the file index of each
    match's first line (blank lines skipped, lines compared trimmed)."""
    want = [line.strip() for line in snippet if line.strip()]
    if not want:
        return []
    have = [(i, line.strip()) for i, line in enumerate(file) if line.strip()]
    texts = [t for _, t in have]
    n = len(want)
    return [have[k][0] for k in range(len(have) - n + 1) if texts[k] == want[0] and texts[k:k + n] == want]


def _indent(mod: Mod, absolute: bool) -> Mod:
    """Write the modification's blocks relative to the snippet's first line where that
    expresses the content, else with the file's own indentation."""
    ind = _lead(mod.snippet[0])
    if absolute or not ind or not _relative_ok(mod):
        return mod

    def rel(line: str) -> str:
        return line[len(ind):] if line.startswith(ind) else line

    return replace(
        mod,
        snippet=[rel(x) for x in mod.snippet],
        content=None if mod.content is None else [rel(x) for x in mod.content],
        anchor=None if mod.anchor is None else [x.strip() for x in mod.anchor],
    )


def _lead(line: str) -> str:
    """The leading whitespace of a line."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def ap_text(patch: ApPatch) -> str:
    """The patch as an ``ap`` v2.0 YAML document (literal blocks everywhere)."""
    out = ['version: "2.0"\n', "changes:\n", f"  - file_path: {json.dumps(patch.path)}\n",
           "    modifications:\n"]
    for m in patch.mods:
        out.append(f"      - action: {m.action}\n")
        if m.anchor is not None:
            out += _block("anchor", m.anchor)
        out += _block("snippet", m.snippet)
        if m.content is not None:
            out += _block("content", m.content)
        if m.leading_blank:
            out.append(f"        include_leading_blank_lines: {m.leading_blank}\n")
        if m.trailing_blank:
            out.append(f"        include_trailing_blank_lines: {m.trailing_blank}\n")
    return "".join(out)


def _block(key: str, lines: list[str]) -> list[str]:
    """One ``key: |`` literal block at column 8, its lines at column 10.

    An indentation indicator (``|2``) is written when the first non-blank line starts
    with whitespace or a blank line comes first; ``+`` keeps trailing blank lines. Blank
    lines are written empty (YAML cannot hold a whitespace-only line there reliably)."""
    lines = [line if line.strip() else "" for line in lines]
    if not lines:
        return [f'        {key}: ""\n']
    first = next((x for x in lines if x), "")
    indicator = "2" if (not lines[0] or first[:1] in (" ", "\t")) else ""
    chomp = "+" if not lines[-1] else ""
    out = [f"        {key}: |{indicator}{chomp}\n"]
    out += [f"          {x}\n" if x else "\n" for x in lines]
    return out
