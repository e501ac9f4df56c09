"""The Python peers, run by their own code in a long-lived worker (one per benchmark thread).

Started by ``tools.py`` with the interpreter of the peers' virtual environment
(``accuracy/.cache/peers``, made by ``tools.install_peers``). It reads one JSON request per line
on standard input — ``{"tool": "aider" | "mpatch", "dialect": NAME, "root": DIR, "patch": FILE}`` — applies
the patch file to the tree under ``root`` the way that peer does, and answers one JSON line:
``{"ok": bool, "detail": str}``. A worker saves the interpreter's start and imports (about a
second for Aider) on each of thousands of cases; what each peer does to the files is its own
code, unchanged:

- ``aider``: aider-chat's ``EditBlockCoder`` — the path its chat loop takes for the "diff"
  edit format (``Coder.apply_updates``): ``get_edits`` (``find_original_update_blocks``), a dry
  run of ``apply_edits``, then ``apply_edits`` writing through Aider's own ``InputOutput``. The
  files in the chat are the existing files the blocks name (the files a user would have added).
  Aider's ``prepare_to_edit`` (asking to add files to the chat, git commits) is left out: it
  only asks questions.
- ``aider`` on the ``lazy`` rows: aider-chat's ``WholeFileCoder`` — the "whole" edit format,
  the one of its appliers that reads a fenced file with its path (on the line above the
  fence, else the one file in the chat) and no SEARCH half: ``get_edits``, then
  ``apply_edits``, which writes the block as the file. Its editblock applier's ``...``
  handling needs the old text in a SEARCH half, which a lazy snippet does not have. The
  files in the chat are every file under the root (the file the user would have added).
- ``mpatch``: ``mpatch.apply_directory(text, root, atomic=True)``, the whole-directory call
  with its default fuzz factor (0.7), all or nothing; success is its ``True``.
"""

from __future__ import annotations

import io
import json
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path


def _coder(cls, root: Path, text: str):
    """An Aider coder of class ``cls`` over ``root`` holding the reply ``text``, made without
    its chat session (no model, no git): what its appliers read."""
    from aider.io import InputOutput

    coder = cls.__new__(cls)
    coder.root = str(root)
    coder.abs_root_path_cache = {}
    coder.fence = ("`" * 3, "`" * 3)
    coder.io = InputOutput(pretty=False, yes=True, fancy_input=False)
    coder.partial_response_content = text
    return coder


def _refused(err: ValueError) -> tuple[bool, str]:
    """An Aider applier's refusal: its message's first line."""
    return False, str(err).strip().splitlines()[0] if str(err).strip() else "ValueError"


def _aider(root: Path, text: str) -> tuple[bool, str]:
    from aider.coders.editblock_coder import EditBlockCoder, find_original_update_blocks

    coder = _coder(EditBlockCoder, root, text)
    coder.shell_commands = []
    named = {e[0] for e in find_original_update_blocks(text, coder.fence) if e[0]}
    coder.abs_fnames = {str((root / n).resolve()) for n in named if (root / n).is_file()}
    try:
        edits = coder.get_edits()
        edits = coder.apply_edits_dry_run(edits)
        coder.apply_edits(edits)
    except ValueError as err:
        return _refused(err)
    return True, f"{len(edits)} blocks"


def _aider_whole(root: Path, text: str) -> tuple[bool, str]:
    from aider.coders.wholefile_coder import WholeFileCoder

    coder = _coder(WholeFileCoder, root, text)
    coder.multi_response_content = ""
    coder.abs_fnames = {str(p.resolve()) for p in root.rglob("*") if p.is_file()}
    try:
        edits = coder.get_edits()
        coder.apply_edits(edits)
    except ValueError as err:
        return _refused(err)
    return True, f"{len(edits)} files written whole"


def _mpatch(root: Path, text: str) -> tuple[bool, str]:
    import mpatch

    try:
        ok = mpatch.apply_directory(text, str(root), atomic=True)
    except mpatch.MpatchError as err:
        return False, f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    return bool(ok), "applied" if ok else "not all hunks applied"


def main() -> int:
    for line in sys.stdin:
        req = json.loads(line)
        sink = io.StringIO()
        try:
            with redirect_stdout(sink), redirect_stderr(sink):
                if req["tool"] == "aider":
                    run = _aider_whole if req.get("dialect") == "lazy" else _aider
                else:
                    run = _mpatch
                ok, detail = run(Path(req["root"]), Path(req["patch"]).read_text())
        except Exception as err:  # a peer's crash is its failure to apply, reported as such
            ok, detail = False, f"{type(err).__name__}: {err} ({traceback.format_exc().splitlines()[-2].strip()})"
        sys.stdout.write(json.dumps({"ok": ok, "detail": detail[:200]}) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
