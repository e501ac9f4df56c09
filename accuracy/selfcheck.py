#!/usr/bin/env python3
"""Check the renderers without polypatch: apply every clean rendering with small
reference appliers written from the specs, and compare with the intended result.

    python3 accuracy/selfcheck.py

A mismatch here is a renderer bug (or a reference-applier bug), never an engine defect,
so a clean case polypatch gets wrong while this check passes points at the engine.
Exit code 0 when every rendering reproduces its intended file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import render  # noqa: E402
import run  # noqa: E402
from render import ApPatch, DiffPatch  # noqa: E402


def apply_diff(before: str, patch: DiffPatch) -> str | None:
    """A unified diff or AI-PATCH applied strictly: each hunk's old lines exactly where
    the dialect says (unified: its line number; AI-PATCH: the first occurrence after the
    previous hunk, after its ``@@ <line>`` header when it has one)."""
    lines = render.lines_of(before)
    out, pos = [], 0
    for h in patch.hunks:
        old = h.old_lines()
        if patch.dialect == "unified":
            at = h.old_start - 1 if old else h.old_start
        else:
            start = pos
            if h.header:
                header = [i for i in range(pos, len(lines)) if lines[i] == h.header]
                if not header:
                    return None
                start = header[0] + 1
            found = [i for i in render.find_block(lines, old) if i >= start]
            if not found:
                return None
            at = found[0]
        if lines[at:at + len(old)] != old or at < pos:
            return None
        out += lines[pos:at] + [t for tag, t in h.lines if tag != "-"]
        pos = at + len(old)
    out += lines[pos:]
    return _join(out, before)


def apply_applydiff(before: str, text: str) -> str | None:
    """ApplyDiff blocks applied as the spec's Tier 1 reads them, from the patch text: each
    block's from text (its lines, each with its ``\\n``) must occur exactly once as a
    substring of the file as the blocks before it left it, starting at a line start, and
    is replaced there by the block's to text."""
    blocks, cur, section = [], None, None
    for line in text.split("\n")[:-1]:
        if line.startswith(">>> file: "):
            cur, section = ([], []), None
        elif line == "--- from" and cur is not None and section is None:
            section = cur[0]
        elif line == "--- to" and section is cur[0]:
            section = cur[1]
        elif line == "<" and section is cur[1]:
            blocks.append(cur)
            cur = section = None
        elif section is not None:
            section.append(line + "\n")
        else:
            return None
    if cur is not None or not blocks:
        return None
    return _apply_blocks(before, blocks)


def _apply_blocks(before: str, blocks: list[tuple[list[str], list[str]]]) -> str | None:
    """Each block's old lines (joined) replaced by its new lines where they occur exactly
    once as a substring of the file as the blocks before it left it, starting at a line
    start; ``None`` when one does not."""
    file = before
    for old, new in blocks:
        old_text, new_text = "".join(old), "".join(new)
        haystack = "\n" + file
        places = [i for i in range(len(haystack)) if haystack.startswith("\n" + old_text, i)]
        if len(places) != 1:
            return None
        at = places[0]
        file = file[:at] + new_text + file[at + len(old_text):]
    return file


def apply_search_replace(before: str, text: str) -> str | None:
    """SEARCH/REPLACE blocks applied as Aider's editblock coder reads an exact block, from
    the patch text (the path line, a fence, the blocks): each SEARCH text (its lines, each
    with its ``\\n``) must occur exactly once as a substring of the file as the blocks
    before it left it, starting at a line start, and is replaced there by the REPLACE text."""
    lines = text.split("\n")[:-1]
    if len(lines) < 2 or lines[1] != "```" or lines[-1] != "```":
        return None
    blocks, cur, section = [], None, None
    for line in lines[2:-1]:
        if line == "<<<<<<< SEARCH" and cur is None:
            cur = ([], [])
            section = cur[0]
        elif line == "=======" and cur is not None and section is cur[0]:
            section = cur[1]
        elif line == ">>>>>>> REPLACE" and cur is not None and section is cur[1]:
            blocks.append(cur)
            cur = section = None
        elif section is not None:
            section.append(line + "\n")
        else:
            return None
    if cur is not None or not blocks:
        return None
    return _apply_blocks(before, blocks)


def apply_aptix(before: str, text: str) -> str | None:
    """An Aptix file bundle applied as the file spec's §2.3 reads it, from the patch
    text: the JSON (bare, or inside the reply's ```` ```json ```` fence) is parsed, and
    each ``{find, replace, limit: "once"}`` of the one ``patch`` entry replaces the first
    occurrence of ``find`` (``str.replace(find, replace, 1)``), in order; a ``find`` that
    does not occur fails."""
    if not text.startswith("{"):
        start = text.index("```json\n") + len("```json\n")
        text = text[start:text.index("\n```", start)]
    doc = json.loads(text)
    if doc.get("root") != "." or len(doc["files"]) != 1 or doc["files"][0]["operation"] != "patch":
        return None
    file = before
    for p in doc["files"][0]["patches"]:
        if p["limit"] != "once" or p["find"] not in file:
            return None
        file = file.replace(p["find"], p["replace"], 1)
    return file


def apply_toolcall(before: str, text: str) -> str | None:
    """Tool calls applied as the tools themselves read them, from the patch text: the
    JSON (bare, or inside the reply's ```` ```json ```` fence) is parsed, and each old/new
    pair (a MultiEdit's ``edits``, or each ``tool_use`` block's ``str_replace`` input)
    replaces its old text, which must occur exactly once in the file as the pairs before
    left it (the tools' uniqueness rule), in order."""
    if not text.startswith(("{", "[")):
        start = text.index("```json\n") + len("```json\n")
        text = text[start:text.index("\n```", start)]
    doc = json.loads(text)
    if isinstance(doc, list):
        pairs = [(c["input"]["old_str"], c["input"]["new_str"]) for c in doc]
    else:
        pairs = [(e["old_string"], e["new_string"]) for e in doc["edits"]]
    file = before
    for old, new in pairs:
        if file.count(old) != 1:
            return None
        file = file.replace(old, new, 1)
    return file


def apply_ap(before: str, patch: ApPatch) -> str | None:
    """An ``ap`` patch applied as the spec says (§3.2, §3.3, §3.5), with polypatch's
    documented reading of absolute indentation (a snippet indented in the patch shifts
    the content by the difference to the file's indentation)."""
    lines = render.lines_of(before)
    for m in patch.mods:
        region = _locate(lines, m)
        if region is None:
            return None
        a, b = region
        content = _shape(m, lines[a]) if m.content is not None else []
        if content is None:
            return None
        if m.action == "REPLACE":
            lines[a - m.leading_blank:b + m.trailing_blank] = content
        elif m.action == "DELETE":
            lines[a - m.leading_blank:b + m.trailing_blank] = []
        elif m.action == "INSERT_AFTER":
            lines[b + m.trailing_blank:b + m.trailing_blank] = content
        else:
            lines[a - m.leading_blank:a - m.leading_blank] = content
    return cases.strip_trailing_ws(_join(lines, before))


def _locate(lines: list[str], m) -> tuple[int, int] | None:
    """The file lines ``[a, b)`` the snippet matches: unique in the file, or the first
    match after a unique anchor; the blank lines to include must be there."""
    places = render.ap_find(lines, m.snippet)
    if m.anchor is not None:
        anchors = render.ap_find(lines, m.anchor)
        if len(anchors) != 1:
            return None
        places = [p for p in places if p > anchors[0]][:1]
    if len(places) != 1:
        return None
    a = places[0]
    want = sum(1 for s in m.snippet if s.strip())
    b, seen = a, 0
    while seen < want:
        seen += bool(lines[b].strip())
        b += 1

    def blank(i: int) -> bool:
        return 0 <= i < len(lines) and not lines[i].strip()

    if not all(blank(a - 1 - k) for k in range(m.leading_blank)):
        return None
    if not all(blank(b + k) for k in range(m.trailing_blank)):
        return None
    return a, b


def _shape(m, first_line: str) -> list[str] | None:
    """The content as the patcher writes it, given the file's line the snippet starts on."""
    file_ind = _lead(first_line)
    patch_first = next(s for s in m.snippet if s.strip())
    patch_ind = _lead(patch_first)
    if not patch_ind:
        return [file_ind + c if c.strip() else "" for c in m.content]
    if file_ind.startswith(patch_ind):
        extra = file_ind[len(patch_ind):]
        return [extra + c if c.strip() else "" for c in m.content]
    if patch_ind.startswith(file_ind):
        cut = len(patch_ind) - len(file_ind)
        return [c[cut:] if c[:cut].isspace() else c.lstrip() for c in m.content]
    return None


def _lead(line: str) -> str:
    """A line's leading whitespace."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def _join(lines: list[str], before: str) -> str:
    """Lines joined with ``\\n``, ending the way the original file ends."""
    text = "\n".join(lines)
    return text + "\n" if before.endswith("\n") and lines else text


def main() -> int:
    """Check every clean rendering of every base edit; print the mismatches."""
    edits, _ = run.load_edits(0)
    bad = total = 0
    for edit in edits:
        for dialect, absolute in (("unified", False), ("ai-patch", False), ("ap", False), ("ap", True),
                                  ("applydiff", False), ("aptix", False), ("search-replace", False),
                                  ("tool-call", False)):
            if dialect in ("applydiff", "aptix", "search-replace", "tool-call"):
                apply_text = {"applydiff": apply_applydiff, "aptix": apply_aptix,
                              "search-replace": apply_search_replace, "tool-call": apply_toolcall}[dialect]
                patch = cases.render_patch(dialect, edit.before, edit.after, edit.path)
                want = edit.after
                got = patch and apply_text(edit.before, cases.patch_text(patch))
            elif dialect == "ap":
                patch = render.render_ap(edit.before, edit.after, edit.path, absolute=absolute)
                want = cases.strip_trailing_ws(edit.after)
                got = patch and apply_ap(edit.before, patch)
            else:
                patch = cases.render_patch(dialect, edit.before, edit.after, edit.path)
                want = edit.after
                got = patch and apply_diff(edit.before, patch)
            total += 1
            if patch is None:
                print(f"{dialect}{' (absolute)' if absolute else ''} {edit.id}: no rendering")
            elif got != want:
                bad += 1
                print(f"{dialect}{' (absolute)' if absolute else ''} {edit.id} ({edit.path}): "
                      f"{'not applicable' if got is None else 'other bytes'}")
    print(f"{total - bad} of {total} clean renderings reproduce their intended file")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
