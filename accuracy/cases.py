"""Cases: a base edit rendered into one dialect, with one defect (or none) applied.

A case is a tree before, a patch text and what must happen: ``apply`` (the tree must
become ``intended``), ``refuse`` (a must-fail row: nothing may change) or
``apply_or_refuse`` (either the intended tree or no change; a line-numbered or anchored
patch against a duplicated block). Patch defects touch the patch's context and removed
lines only, except the whole-hunk rows (re-indent, tabs/spaces), which shift every line
of the hunk as a model re-indenting a whole block does; the intended tree is always the
real new file.
"""

from __future__ import annotations

import copy
import difflib
import random
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

import lazycases
import render
from corpus import BaseEdit, hunk_groups, line_opcodes
from render import ApPatch, DiffPatch

DIALECTS = ("unified", "ai-patch", "ap", "applydiff", "aptix", "search-replace", "tool-call", "lazy")

ROWS = (
    "clean",
    "reindent+2", "reindent-2", "reindent+4", "reindent-4",
    "tabs_to_spaces", "spaces_to_tabs",
    "trailing_ws_added", "trailing_ws_removed",
    "wrong_line_numbers", "typo_context", "typo_removed_line", "unicode_lookalike", "crlf_target",
    "blank_dropped", "blank_added", "mixed_tabs",
    "unrelated_file", "duplicated_block",
    "reapplied_blank_dropped",
)
MUST_FAIL = ("unrelated_file", "duplicated_block")
# A model's reply cut off by its output limit, in the middle of a line (issue 26, point 2).
ROWS += ("truncated_reply",)
MUST_FAIL += ("truncated_reply",)
ROWS += lazycases.ROWS
MUST_FAIL += lazycases.MUST_FAIL
#: Rows that shift or convert every line of a hunk, new lines included.
WHOLE_HUNK_ROWS = ("reindent+2", "reindent-2", "reindent+4", "reindent-4", "tabs_to_spaces", "spaces_to_tabs")
#: Rows a dialect cannot express (``ap``, ApplyDiff and Aptix have no line numbers), or
#: where the row's outcome is not the one it measures: an Aptix ``find`` with ``limit:
#: "once"`` takes the first occurrence (file spec §2.3), so a duplicated block is no error
#: there (see the README).
NOT_APPLICABLE = {("ap", "wrong_line_numbers"), ("applydiff", "wrong_line_numbers"),
                  ("aptix", "wrong_line_numbers"), ("aptix", "duplicated_block"),
                  ("tool-call", "wrong_line_numbers")}
#: Dialects whose blocks do not mark their kept lines (an old and a new side).
TWO_SIDED = ("applydiff", "aptix", "search-replace", "tool-call")

SEED = 20261123
TAB_WIDTH = 4

_TO_TYPOGRAPHIC = {"'": "\u2019", "-": "\u2013"}
_TO_ASCII = {"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'",
             "\u2013": "-", "\u2014": "-", "\u00a0": " "}


@dataclass
class Case:
    """One (dialect, row, base edit) triple, ready to run."""

    dialect: str
    row: str
    edit: BaseEdit
    files: dict[str, bytes]
    patch: str
    expect: str  # "apply", "refuse" or "apply_or_refuse"
    intended: dict[str, bytes] | None
    #: The ``--format`` polypatch is given, when not the dialect's name (``auto`` for a
    #: chat reply read as a reply).
    format: str | None = None
    #: For a lazy case: whether the lines its snippet shows stand, as they are spaced in the
    #: file, at one place only (``lazycases.pinned``); the first-try goal counts these.
    pinned: bool | None = None
    #: As ``pinned`` without the file's distances across removed lines
    #: (``lazycases.pinned_in_order``).
    pinned_order: bool | None = None

    @property
    def id(self) -> str:
        """``<dialect>/<row>/<project>_<n>``."""
        return f"{self.dialect}/{self.row}/{self.edit.id}"


def build_cases(edits: list[BaseEdit], project_files: dict[str, dict[str, str]],
                dialects=DIALECTS, rows=ROWS) -> list[Case]:
    """Every case of the given dialects and rows, in a fixed order."""
    cases = []
    for dialect in dialects:
        if dialect == "lazy":
            # Lazy snippets have rows of their own (lazycases.ROWS).
            cases += lazycases.build(edits, project_files, rows, _lazy_case)
            continue
        for edit in edits:
            clean = render_patch(dialect, edit.before, edit.after, edit.path)
            if clean is None:
                continue
            for row in rows:
                if (dialect, row) in NOT_APPLICABLE or row in lazycases.ROWS:
                    continue
                case = make_case(edit, dialect, row, project_files[edit.project], clean)
                if case is not None:
                    cases.append(case)
    return cases


def make_case(edit: BaseEdit, dialect: str, row: str, others: dict[str, str], clean) -> Case | None:
    """The case for one base edit in one dialect and row, given the edit's clean
    rendering in that dialect; None where the row does not apply to the edit."""
    rng = random.Random(f"{SEED}:{dialect}:{row}:{edit.id}")
    clean_text = patch_text(clean)
    if row == "clean":
        return _case(edit, dialect, row, edit.before, clean_text, edit.after)
    if row == "crlf_target":
        return _case(edit, dialect, row, to_crlf(edit.before), clean_text, to_crlf(edit.after))
    if row == "mixed_tabs":
        return _mixed_case(edit, dialect, clean_text)
    if row == "truncated_reply":
        return _truncated_case(edit, dialect, clean_text)
    if row == "unrelated_file":
        return _unrelated_case(edit, dialect, clean, clean_text, others)
    if row == "duplicated_block":
        return _duplicated_case(edit, dialect, clean, clean_text)
    if row == "reapplied_blank_dropped":
        return _reapplied_case(edit, dialect, clean, rng)
    if row == "typo_removed_line":
        return _typo_removed_case(edit, dialect, clean, clean_text, rng)
    if row in WHOLE_HUNK_ROWS:
        if dialect == "ap":  # a whole-block shift means something only in absolute form
            clean = render.render_ap(edit.before, edit.after, edit.path, absolute=True)
            if clean is None:
                return None
    patched = _patch_defect(clean, row, rng, edit)
    if patched is None and row == "trailing_ws_removed":
        case = _trailing_ws_file_case(edit, dialect, clean_text)
        return case if dialect not in TWO_SIDED or kept_lines_clear(clean, case.files[edit.path].decode()) else None
    if patched is None:
        return None
    text = patch_text(patched)
    if text == clean_text:
        return None
    if dialect in TWO_SIDED and row == "trailing_ws_removed" and not kept_lines_clear(patched, edit.before):
        return None
    return _case(edit, dialect, row, edit.before, text, edit.after)


def render_patch(dialect: str, before: str, after: str, path: str):
    """The clean rendering of one file's change in ``dialect`` (None if it has none)."""
    if dialect == "unified":
        return render.render_unified(before, after, path)
    if dialect == "ai-patch":
        return render.render_aipatch(before, after, path)
    if dialect == "applydiff":
        return render.render_applydiff(before, after, path)
    if dialect == "aptix":
        return render.render_aptix(before, after, path)
    if dialect == "search-replace":
        return render.render_search_replace(before, after, path)
    if dialect == "tool-call":
        return render.render_toolcall(before, after, path)
    return render.render_ap(before, after, path)


def patch_text(patch) -> str:
    """The text of a rendered patch in its dialect."""
    if isinstance(patch, ApPatch):
        return render.ap_text(patch)
    if patch.dialect == "unified":
        return render.unified_text(patch)
    if patch.dialect == "applydiff":
        return render.applydiff_text(patch)
    if patch.dialect == "aptix":
        return render.aptix_text(patch)
    if patch.dialect == "search-replace":
        return render.search_replace_text(patch)
    if patch.dialect == "tool-call":
        return render.toolcall_text(patch)
    return render.aipatch_text(patch)


def _lazy_case(edit, row, before: str, patch: str, after: str | None, expect: str) -> Case:
    """A lazy case (see lazycases)."""
    return _case(edit, "lazy", row, before, patch, after, expect=expect)


def _case(edit, dialect, row, before: str, patch: str, after: str | None, expect="apply") -> Case:
    """A case on a one-file tree; ``ap`` cases expect the spec's trailing-whitespace removal."""
    intended = None
    if after is not None:
        if dialect == "ap":
            after = strip_trailing_ws(after)
        intended = {edit.path: after.encode()}
    return Case(dialect, row, edit, {edit.path: before.encode()}, patch, expect, intended)


def to_crlf(text: str) -> str:
    """Every ``\\n`` written as ``\\r\\n``."""
    return text.replace("\n", "\r\n")


def strip_trailing_ws(text: str) -> str:
    """What the ap spec's §3.5 leaves of a modified file: no spaces or tabs at line ends."""
    out = []
    for line in text.split("\n"):
        cr = line.endswith("\r")
        body = line[:-1] if cr else line
        out.append(body.rstrip(" \t") + ("\r" if cr else ""))
    return "\n".join(out)


# --- blocks: the editable lines of a patch ---------------------------------------------


def _blocks(patch) -> list[list[list[str]]]:
    """The patch's hunks (or ap modifications) as lists of ``[role, text]`` cells, roles
    ``context``, ``removed``, ``added`` and ``anchor`` (ap snippets count as context)."""
    if isinstance(patch, ApPatch):
        return [[["anchor", t] for t in (m.anchor or [])]
                + [["context", t] for t in m.snippet]
                + [["added", t] for t in (m.content or [])] for m in patch.mods]
    roles = {" ": "context", "-": "removed", "+": "added"}
    return [[[roles[tag], t] for tag, t in h.lines] for h in patch.hunks]


def _with_blocks(patch, blocks):
    """A copy of ``patch`` whose hunks or modifications hold ``blocks``' lines."""
    patch = copy.deepcopy(patch)
    if isinstance(patch, ApPatch):
        for m, block in zip(patch.mods, blocks):
            m.anchor = [t for r, t in block if r == "anchor"] if m.anchor is not None else None
            m.snippet = [t for r, t in block if r == "context"]
            if m.content is not None:
                m.content = [t for r, t in block if r == "added"]
        return patch
    tags = {"context": " ", "removed": "-", "added": "+"}
    for h, block in zip(patch.hunks, blocks):
        h.lines = [(tags[r], t) for r, t in block]
    return patch


def _patch_defect(patch, row: str, rng: random.Random, edit: BaseEdit):
    """``patch`` with the row's defect applied, or None where it cannot be."""
    if row == "wrong_line_numbers":
        return _wrong_numbers(patch, rng)
    original = _blocks(patch)
    blocks = copy.deepcopy(original)
    if row.startswith("reindent"):
        shift = int(row[len("reindent"):])
        changed = [_reindent(b, shift) for b in blocks]
    elif row == "tabs_to_spaces":
        changed = [_convert_indent(b, lambda ws: ws.replace("\t", " " * TAB_WIDTH)) for b in blocks]
    elif row == "spaces_to_tabs":
        unit = indent_unit(edit.before)
        changed = [_convert_indent(b, lambda ws: _spaces_to_tabs(ws, unit)) for b in blocks]
    elif row == "trailing_ws_added":
        changed = [_each_old_line(b, lambda t: t + " ") for b in blocks]
    elif row == "trailing_ws_removed":
        changed = [_each_old_line(b, lambda t: t.rstrip()) for b in blocks]
    else:
        # An ap snippet line that the modification replaces or deletes is no context line:
        # a typo there is the typo_removed_line row.
        context = _ap_context(patch, blocks) if isinstance(patch, ApPatch) and row == "typo_context" else None
        changed = _one_line_defect(blocks, row, rng, context)
    if not any(changed):
        return None
    if row in WHOLE_HUNK_ROWS and not all(_evidenced(a, b) for a, b in zip(original, blocks)):
        return None
    if isinstance(patch, ApPatch) and any(_reads_relative(a, b) for a, b in zip(original, blocks)):
        return None
    return _with_blocks(patch, blocks)


def _reads_relative(original, shifted) -> bool:
    """An ap modification in absolute form whose shift leaves the content's first line
    unindented: under the spec's §3.3 that text is relative content (the snippet line's
    indentation is prepended to it), another patch than the one the row means."""
    def first_added(block):
        return next((t for role, t in block if role == "added" and t.strip()), None)
    a, b = first_added(original), first_added(shifted)
    return a is not None and b is not None and _lead(a) != "" and _lead(b) == ""



def _evidenced(original, shifted) -> bool:
    """A re-indented block still says what the new lines' indentation must be: every
    indentation it gives an added line it also gives an old (context or removed) line
    that has that line's real indentation, so the file shows what it stands for. (Without
    this, a hunk whose old lines sit at column 0 would leave the new lines' tabs or
    spaces to guesswork.) A block the defect left alone is evidenced trivially."""
    if original == shifted:
        return True
    seen = {}
    for (role, a), (_, b) in zip(original, shifted):
        if role != "added" and a.strip():
            seen.setdefault(_lead(a), set()).add(_lead(b))
    if not any(_lead(a) != _lead(b) for (role, a), (_, b) in zip(original, shifted) if role != "added"):
        return False
    return all(not a.strip() or _lead(b) in seen.get(_lead(a), ())
               for (role, a), (_, b) in zip(original, shifted) if role == "added")


def _reindent(block, shift: int) -> bool:
    """Shift every non-blank line by ``shift`` spaces; False (and no change) when a line
    is indented with tabs or, for a negative shift, by fewer spaces."""
    lines = [c for c in block if c[1].strip()]
    if any("\t" in _lead(t) for _, t in lines):
        return False
    if shift < 0 and any(len(_lead(t)) < -shift for _, t in lines):
        return False
    for c in lines:
        c[1] = " " * shift + c[1] if shift > 0 else c[1][-shift:]
    return bool(lines)


def _convert_indent(block, convert) -> bool:
    """Rewrite every line's leading whitespace with ``convert``; True if anything changed."""
    changed = False
    for c in block:
        lead = _lead(c[1])
        new = convert(lead)
        if new != lead:
            c[1] = new + c[1][len(lead):]
            changed = True
    return changed


def _spaces_to_tabs(ws: str, unit: int) -> str:
    """A leading run of spaces as tabs, one per ``unit`` spaces (the rest kept as spaces)."""
    if "\t" in ws:
        return ws
    return "\t" * (len(ws) // unit) + " " * (len(ws) % unit)


def indent_unit(text: str) -> int:
    """The file's indentation step in spaces: 2 when some indented line is not a
    multiple of 4, else 4."""
    leads = [len(_lead(line)) for line in text.split("\n") if line.strip() and not line.startswith("\t")]
    return 2 if any(n % 4 for n in leads if n) else 4


def _lead(text: str) -> str:
    """The leading whitespace of a line."""
    return text[: len(text) - len(text.lstrip(" \t"))]


def _each_old_line(block, change) -> bool:
    """Apply ``change`` to every context and removed line; True if anything changed."""
    changed = False
    for c in block:
        if c[0] in ("context", "removed"):
            new = change(c[1])
            changed |= new != c[1]
            c[1] = new
    return changed


def _one_line_defect(blocks, row: str, rng: random.Random, context=None) -> list[bool]:
    """Typos, look-alikes and blank lines: one place in one block, chosen at random
    (with ``context``, only at the cells it lists per block)."""
    finder = {"typo_context": _typo_spots, "unicode_lookalike": _unicode_spots,
              "blank_dropped": _blank_drop_spots, "blank_added": _blank_add_spots}[row]
    spots = [(bi, spot) for bi, block in enumerate(blocks) if _changes_text(block) for spot in finder(block)
             if context is None or spot[1] in context[bi]]
    if not spots:
        return [False]
    bi, (kind, index, value) = rng.choice(spots)
    block = blocks[bi]
    if kind == "set":
        block[index][1] = value if row != "typo_context" else _typo(block[index][1], rng)
    elif kind == "drop":
        del block[index]
    else:
        block.insert(index, ["context", ""])
    return [True]


def _ap_context(patch: ApPatch, blocks) -> list[set[int]]:
    """For each ``ap`` modification, its snippet cells that are context: an insertion's
    whole snippet, the lines of a ``REPLACE`` snippet that its content keeps."""
    out = []
    for m, block in zip(patch.mods, blocks):
        snippet = [i for i, (r, _) in enumerate(block) if r == "context"]
        out.append(set(snippet) if m.action not in ("REPLACE", "DELETE") else _ap_kept(block))
    return out


def _ap_kept(block) -> set[int]:
    """The snippet cells of a ``REPLACE`` block that its content keeps, aligned as the
    applier aligns them (the longest matching runs of the stripped lines)."""
    snippet = [i for i, (r, _) in enumerate(block) if r == "context"]
    added = [t.strip() for r, t in block if r == "added"]
    matcher = difflib.SequenceMatcher(None, [block[i][1].strip() for i in snippet], added, autojunk=False)
    return {snippet[a + k] for a, _, size in matcher.get_matching_blocks() for k in range(size)}


def _changes_text(block) -> bool:
    """True when the block removes or adds a non-blank line. A blank-lines-only change
    with a blank context line dropped or added can read as already applied, so its intent
    is no longer clear; such blocks are left out of the one-line rows."""
    return any(t.strip() for r, t in block if r in ("removed", "added")) or not any(
        r in ("removed", "added") for r, _ in block)


def _typo_spots(block):
    """Context lines (ap: snippet lines) with a few letters in which to change one."""
    return [("set", i, None) for i, (r, t) in enumerate(block)
            if r == "context" and sum(ch.isalpha() for ch in t) >= 4]


def _typo(text: str, rng: random.Random) -> str:
    """One ASCII letter replaced by the next letter of the alphabet (case kept)."""
    spots = [i for i, ch in enumerate(text) if ch.isascii() and ch.isalpha()]
    if not spots:
        return text
    i = rng.choice(spots)
    ch = text[i]
    base = "a" if ch.islower() else "A"
    return text[:i] + chr(ord(base) + (ord(ch) - ord(base) + 1) % 26) + text[i + 1:]


def _typo_removed_case(edit: BaseEdit, dialect: str, clean, clean_text: str, rng: random.Random) -> Case | None:
    """One ASCII letter changed in one line the edit removes or replaces (at least 4
    letters): the patch was written against other content (a typo, or a file changed
    since), and the file's line must not be overwritten — refused. ApplyDiff's spec
    mandates fuzzy matching of the whole ``from`` block (its tier 4), so there the edit
    applies as intended. Not a line the block writes back elsewhere (re-indented). ``ap``:
    a snippet line of a ``REPLACE`` or ``DELETE`` that the content does not keep (an
    insertion's snippet is its context)."""
    blocks = _blocks(clean)
    spots = []
    for bi, block in enumerate(blocks):
        if isinstance(clean, ApPatch):
            if clean.mods[bi].action not in ("REPLACE", "DELETE"):
                continue
            kept = _ap_kept(block)
            spots += [(bi, i) for i, (r, t) in enumerate(block)
                      if r == "context" and i not in kept and sum(ch.isalpha() for ch in t) >= 4]
        else:
            # A line the block writes back (at another indentation) is not destroyed: an
            # applier without explicit context may rightly take the typo there.
            added = {t.strip() for r, t in block if r == "added"}
            spots += [(bi, i) for i, (r, t) in enumerate(block)
                      if r == "removed" and t.strip() not in added and sum(ch.isalpha() for ch in t) >= 4]
    if not spots:
        return None
    bi, i = rng.choice(spots)
    blocks[bi][i][1] = _typo(blocks[bi][i][1], rng)
    text = patch_text(_with_blocks(clean, blocks))
    if text == clean_text:
        return None
    if dialect == "applydiff":
        return _case(edit, dialect, "typo_removed_line", edit.before, text, edit.after)
    return _case(edit, dialect, "typo_removed_line", edit.before, text, None, expect="refuse")


def _unicode_spots(block):
    """Context and removed lines with a character a model swaps for its look-alike."""
    out = []
    for i, (r, t) in enumerate(block):
        if r in ("context", "removed"):
            swapped = lookalike(t)
            if swapped != t:
                out.append(("set", i, swapped))
    return out


def lookalike(text: str) -> str:
    """The line as a model would retype it: typographic characters made ASCII when the
    line has some, else ASCII quotes curled, else hyphens made en dashes, else one
    inner space made a non-breaking space."""
    lead = _lead(text)
    body = text[len(lead):]
    if any(ch in _TO_ASCII for ch in body):
        return lead + "".join(_TO_ASCII.get(ch, ch) for ch in body)
    if '"' in body:
        parts = body.split('"')
        body = parts[0] + "".join(("\u201c" if k % 2 == 0 else "\u201d") + p for k, p in enumerate(parts[1:]))
        return lead + body
    for ascii_ch, typo_ch in _TO_TYPOGRAPHIC.items():
        if ascii_ch in body:
            return lead + body.replace(ascii_ch, typo_ch)
    inner = body.find(" ", 1)
    if 0 < inner < len(body.rstrip()) - 1:
        return lead + body[:inner] + "\u00a0" + body[inner + 1:]
    return text


def _blank_drop_spots(block):
    """Blank context lines (ap: blank snippet lines) a model might leave out, among other
    context lines only: next to an added or removed line, the patch without it would no
    longer say on which side of the blank line the change goes."""
    def context_at(i):
        return i < 0 or i >= len(block) or block[i][0] == "context"
    return [("drop", i, None) for i, (r, t) in enumerate(block)
            if r == "context" and not t.strip() and context_at(i - 1) and context_at(i + 1)]


def _blank_add_spots(block):
    """Places between two context lines where a model might add a blank one."""
    return [("insert", i, None) for i in range(1, len(block))
            if block[i - 1][0] == "context" and block[i][0] == "context"]


def _wrong_numbers(patch, rng: random.Random):
    """Line numbers off by 3-30 lines: unified hunk headers, AI-PATCH ``@@ :N`` hints.
    An AI-PATCH that needed an ``@@ <line>`` header keeps none to replace, so it is skipped."""
    if isinstance(patch, ApPatch):
        return None
    first = patch.hunks[0].old_start
    off = rng.randint(3, 30) * rng.choice((-1, 1))
    if first + off < 1:
        off = -off
    patch = copy.deepcopy(patch)
    if patch.dialect == "unified":
        patch.line_offset = off
        return patch
    if any(h.header for h in patch.hunks):
        return None
    if patch.dialect == "search-replace":
        # Roo Code's `:start_line:` hints, off by 5-40 lines (issue 29).
        off = rng.randint(5, 40) * (1 if off > 0 else -1)
        if first + off < 1:
            off = -off
        for h in patch.hunks:
            h.header = f"{h.old_start + off}"
        return patch
    for h in patch.hunks:
        h.header = f":{h.old_start + off}"
    return patch


# --- rows that change the file -----------------------------------------------------------


def _mixed_case(edit: BaseEdit, dialect: str, clean_text: str) -> Case | None:
    """The edit on a file whose hunk mixes tab- and space-indented lines: the real file
    when it does, else a copy whose odd-numbered space-indented lines are tab-indented
    (in the old file, and in the new file wherever the line is unchanged)."""
    old = render.lines_of(edit.before)
    regions = [range(g[0][1], g[-1][2]) for g in hunk_groups(old, render.lines_of(edit.after))]
    if any(_mixes(old[i] for i in r) for r in regions):
        return _case(edit, dialect, "mixed_tabs", edit.before, clean_text, edit.after)
    if any(line.startswith("\t") for line in old):
        return None
    before, after = _tabify_odd_lines(edit.before, edit.after, indent_unit(edit.before))
    new_old = render.lines_of(before)
    if not any(_mixes(new_old[i] for i in r) for r in regions):
        return None
    patch = render_patch(dialect, before, after, edit.path)
    if patch is None:
        return None
    return _case(edit, dialect, "mixed_tabs", before, patch_text(patch), after)


def kept_lines_clear(patch: DiffPatch, before: str) -> bool:
    """ApplyDiff's and Aptix's ``trailing_ws_removed`` row: True when the intended result
    does not hang on which lines a block keeps. An ApplyDiff block (an Aptix find/replace
    pair alike) does not mark its kept lines:
    an applier pairs its from and to lines itself and keeps the paired lines as the file
    has them (here: with the trailing whitespace the patch left out), writing the others
    as the patch has them. Where the lines pair in more than one way — several longest
    pairings (a line moved past another, repeated lines), or difflib's pairing, which the
    intended result follows, not being a longest one — and the ways write different
    bytes, the patch does not say which is meant; the case is left out. ``before`` is the
    file the patch meets."""
    file = render.lines_of(before)
    for h in patch.hunks:
        old = h.old_lines()
        new = [t for tag, t in h.lines if tag != "-"]
        at = h.old_start - 1
        intended, i = [], 0  # what difflib's pairing (the hunk's tags) writes per new line
        for tag, t in h.lines:
            if tag == " ":
                intended.append(file[at + i])
            elif tag == "+":
                intended.append(t)
            i += tag != "+"
        for j, (candidates, always) in enumerate(_pairings(old, new)):
            written = {file[at + i] for i in candidates} | {intended[j]}
            if not always:
                written.add(new[j])
            if len(written) > 1:
                return False
    return True


def _pairings(old: list[str], new: list[str]) -> list[tuple[list[int], bool]]:
    """For each new line: the old lines it is paired with in some longest common
    subsequence of ``old`` and ``new``, and whether every longest one pairs it."""
    n, m = len(old), len(new)
    pre = [[0] * (m + 1) for _ in range(n + 1)]  # pre[i][j]: LCS of old[:i], new[:j]
    for i in range(n):
        for j in range(m):
            pre[i + 1][j + 1] = pre[i][j] + 1 if old[i] == new[j] else max(pre[i][j + 1], pre[i + 1][j])
    suf = [[0] * (m + 1) for _ in range(n + 1)]  # suf[i][j]: LCS of old[i:], new[j:]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            suf[i][j] = suf[i + 1][j + 1] + 1 if old[i] == new[j] else max(suf[i + 1][j], suf[i][j + 1])
    best = pre[n][m]
    out = []
    for j in range(m):
        candidates = [i for i in range(n) if old[i] == new[j] and pre[i][j] + 1 + suf[i + 1][j + 1] == best]
        without = max(pre[i][j] + suf[i][j + 1] for i in range(n + 1))
        out.append((candidates, without < best))
    return out


def _trailing_ws_file_case(edit: BaseEdit, dialect: str, clean_text: str) -> Case:
    """Trailing whitespace the patch left out, where the real file has none: a copy of
    the file whose non-blank lines end in two spaces (kept lines keep them in the new
    file too), patched by the clean patch of the real file."""
    before, after = _restyle(edit.before, edit.after, lambda _, line: line + "  " if line.strip() else line)
    return _case(edit, dialect, "trailing_ws_removed", before, clean_text, after)


def _mixes(lines) -> bool:
    """True when some of the lines start with a tab and others with spaces."""
    leads = {line[:1] for line in lines if line.strip()}
    return "\t" in leads and " " in leads


def _tabify_odd_lines(before: str, after: str, unit: int) -> tuple[str, str]:
    """Tab-indent the odd-numbered (0-based) space-indented lines of ``before``, and the
    same lines where ``after`` keeps them unchanged."""
    return _restyle(before, after, lambda i, line: _tabify(line, unit) if i % 2 and line.startswith(" ") else line)


def _restyle(before: str, after: str, change) -> tuple[str, str]:
    """``change(i, line)`` applied to every line ``i`` of ``before``, and to the lines of
    ``after`` that the edit keeps (so the edit itself is unchanged)."""
    a, b = before.split("\n"), after.split("\n")
    new_a = [change(i, line) for i, line in enumerate(a)]
    new_b = list(b)
    for _, i1, i2, j1, _ in _equal_ops(a, b):
        new_b[j1:j1 + i2 - i1] = new_a[i1:i2]
    return "\n".join(new_a), "\n".join(new_b)


def _equal_ops(a: list[str], b: list[str]):
    """The ``equal`` opcodes of the ``a``→``b`` line diff."""
    return [op for op in line_opcodes(a, b) if op[0] == "equal"]


def _tabify(line: str, unit: int) -> str:
    """A space-indented line with its indentation written in tabs (leftover spaces kept)."""
    lead = _lead(line)
    return _spaces_to_tabs(lead, unit) + line[len(lead):]


def _unrelated_case(edit: BaseEdit, dialect: str, clean, clean_text: str, others: dict[str, str]) -> Case | None:
    """The clean patch meets another real file of the project at its path: the next file
    (in path order) of the same kind in which none of the patch's blocks occurs even
    with whitespace ignored, neither what it looks for nor what it writes (a file that
    holds the result already is one the patch was applied to, as far as it can tell)."""
    if edit.kind != "hunk":
        return None
    blocks = _old_blocks(clean) + [b for b in _new_blocks(clean) if any(x.strip() for x in b)]
    ext = PurePosixPath(edit.path).suffix
    paths = sorted(others)
    start = paths.index(edit.path) if edit.path in paths else 0
    ordered = paths[start + 1:] + paths[:start]
    for same_kind in (True, False):
        for p in ordered:
            text = others[p]
            if (PurePosixPath(p).suffix == ext) != same_kind or text == edit.before or not text:
                continue
            lines = render.lines_of(text)
            if any(render.ap_find(lines, block) for block in blocks):
                continue
            return _case(edit, dialect, "unrelated_file", text, clean_text, None, expect="refuse")
    return None


def _new_blocks(patch) -> list[list[str]]:
    """What each hunk or modification leaves in the file (its new side)."""
    if isinstance(patch, ApPatch):
        return [m.content for m in patch.mods if m.content]
    return [[t for tag, t in h.lines if tag != "-"] for h in patch.hunks]


def _old_blocks(patch) -> list[list[str]]:
    """What each hunk or modification looks for in the file."""
    if isinstance(patch, ApPatch):
        return [m.snippet for m in patch.mods]
    return [h.old_lines() for h in patch.hunks]


def _duplicated_case(edit: BaseEdit, dialect: str, clean, clean_text: str) -> Case | None:
    """The file holds the block the patch locates (context and removed lines; an ap
    snippet) once more at its end. Without a line number or anchor the patch must be
    refused; with one, applying at the original place is right too. Single hunks only."""
    if edit.kind != "hunk" or not edit.before.endswith("\n"):
        return None
    old = render.lines_of(edit.before)
    if isinstance(clean, ApPatch):
        mod = clean.mods[0]
        start = render.ap_find(old, mod.snippet)
        if len(clean.mods) != 1 or not start:
            return None
        if mod.anchor is not None:
            start = [p for p in start if p > render.ap_find(old, mod.anchor)[0]]
        block = old[start[0]:start[0] + len(mod.snippet)]
        located = mod.anchor is not None
    else:
        if len(clean.hunks) != 1:
            return None
        h = clean.hunks[0]
        block = h.old_lines()
        if h.old_start - 1 + len(block) == len(old):
            return None  # a hunk that ends the file: a copy after it would end it instead
        located = dialect == "unified" or bool(h.header)
    dup = "\n" + "".join(line + "\n" for line in block)
    expect = "apply_or_refuse" if located else "refuse"
    return _case(edit, dialect, "duplicated_block", edit.before + dup, clean_text,
                 edit.after + dup, expect=expect)


# --- a reply cut off ---------------------------------------------------------------------

#: The fence tag a model puts around each dialect in a chat reply.
_FENCE_TAGS = {"unified": "diff", "ai-patch": "", "ap": "yaml", "applydiff": "", "aptix": "json", "search-replace": "",
               "tool-call": "json"}


def _truncated_case(edit: BaseEdit, dialect: str, clean_text: str) -> Case | None:
    """The clean patch as a model's output limit leaves it: the text stops in the middle
    of the last line that writes new content (an added line; ApplyDiff: a ``--- to``
    line; Aptix: a ``replace`` string; ``ap``: a ``content`` line) that has more lines of
    its block after it, so what is left of the block is shorter than the block (a hunk
    shorter than its header, no ``*** End Patch``, no closing ``<``, an open JSON string).
    An ``ap`` plan has no end marker and YAML needs no final line break, so the cut shows
    only in the fence around it: its cases are always in an unclosed ```` ```yaml ````
    fence after a sentence. The others are in one for about half the edits (a checksum of
    the edit), as chat replies are, and bare otherwise (an Aptix bundle already rendered
    as a reply keeps its fence). Nothing may change: the row is a must-fail."""
    lines = clean_text.splitlines(keepends=True)
    spots = [i for i in range(len(lines) - 1) if _writes_content(dialect, lines, i) and _continues(dialect, lines, i + 1)]
    if not spots:
        return None
    i = spots[-1]
    line = lines[i].rstrip("\n")
    body = line.lstrip(" \t+")
    lead = len(line) - len(body)
    if len(body.strip()) < 4:
        return None
    cut = "".join(lines[:i]) + line[: lead + max(2, len(body) // 2)]
    fenced = dialect == "ap" or (zlib.crc32(edit.id.encode()) & 1 and "```" not in clean_text)
    if fenced:
        cut = f"Here is the change to `{edit.path}`:\n\n```{_FENCE_TAGS[dialect]}\n{cut}"
    case = _case(edit, dialect, "truncated_reply", edit.before, cut, None, expect="refuse")
    # A reply is applied as one (`--format auto`): the dialect's own parser would refuse
    # an 'ap' plan's prose before it saw the cut.
    case.format = "auto" if fenced else None
    return case


def _writes_content(dialect: str, lines: list[str], i: int) -> bool:
    """Whether line ``i`` of a clean patch text writes new content."""
    line = lines[i]
    if dialect in ("unified", "ai-patch"):
        return line.startswith("+") and not line.startswith("+++ ")
    if dialect == "applydiff":
        j = i
        while j >= 0 and lines[j].rstrip("\n") not in ("--- to", "--- from"):
            j -= 1
        return j >= 0 and lines[j].rstrip("\n") == "--- to" and line.rstrip("\n") != "<"
    if dialect == "aptix":
        return line.lstrip().startswith('"replace": "')
    if dialect == "search-replace":
        j = i
        while j >= 0 and lines[j].rstrip("\n") not in ("=======", "<<<<<<< SEARCH"):
            j -= 1
        return j >= 0 and lines[j].rstrip("\n") == "=======" and line.rstrip("\n") != ">>>>>>> REPLACE"
    if dialect == "tool-call":
        return line.lstrip().startswith(('"new_string": "', '"new_str": "'))
    # ap: a line of a ``content: |`` block (column 10), found by the key above it.
    j = i
    while j >= 0 and (lines[j].startswith("          ") or not lines[j].strip()):
        j -= 1
    return j >= 0 and j < i and lines[j].lstrip().startswith("content:") and bool(line.strip())


def _continues(dialect: str, lines: list[str], j: int) -> bool:
    """Whether line ``j`` still belongs to the block of the line before it: a cut before
    it leaves that block shorter than it is."""
    line = lines[j]
    if dialect == "unified":
        return line[:1] in (" ", "-", "+") and not line.startswith(("--- ", "+++ "))
    return True


def _reapplied_case(edit: BaseEdit, dialect: str, clean, rng: random.Random) -> Case | None:
    """The ``blank_dropped`` patch run again on the file it already changed (the intended
    new file): a re-run must change nothing (spec-mandated for ``ap``, §3.1, and what
    every dialect's "already applied" promises). Right is success with the tree as it was;
    a refusal counts as failed; anything written is WRONG (a second copy of the change)."""
    patched = _patch_defect(clean, "blank_dropped", rng, edit)
    if patched is None:
        return None
    files = {edit.path: edit.after.encode()}
    return Case(dialect, "reapplied_blank_dropped", edit, files, patch_text(patched), "apply", dict(files))
