"""Apply edits written by language models to files, exactly and atomically.

polypatch reads the patch dialects models write (AI-PATCH ``*** Begin Patch``, unified
diffs, 'ap' YAML, ApplyDiff, Aptix JSON, and any dialect added to the library), or a whole
chat reply with several patch blocks in it, locates every edit (exactly, or at a lenient
tier that the report names, never at an ambiguous place), and writes all the files or
none of them. A failure says which file and edit, why, the closest place in the file and
what to do next: ``str(report)`` is that text, ready to hand back to the model.

>>> import pathlib, tempfile, polypatch
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "greet.py").write_text("def hi():\\n    print('hi')\\n")
>>> patch = '''*** Begin Patch
... *** Update File: greet.py
... @@ def hi():
... -    print('hi')
... +    print('hello')
... *** End Patch
... '''
>>> report = polypatch.apply(patch, root)
>>> report.status
'applied'
>>> (root / "greet.py").read_text()
"def hi():\\n    print('hello')\\n"
>>> print(report)
applied: modify greet.py
  hunk 1: applied at line 2
<BLANKLINE>

A patch that does not apply raises :class:`ApplyError` (nothing is written); a malformed
one raises :class:`PatchError`. Both are :class:`PolypatchError`.
"""

from __future__ import annotations

import builtins
import os

from . import _native

# `typing` is for type checkers only (they read `TYPE_CHECKING` as true): importing it, and
# what it imports, would triple the time `import polypatch` takes. The annotations are
# never evaluated (`from __future__ import annotations`).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

    StrPath = Union[str, os.PathLike[str]]

__version__: str = _native.__version__

__all__ = [
    "ApplyError",
    "Block",
    "BlockResult",
    "Closest",
    "EditResult",
    "Failure",
    "FileResult",
    "LineRange",
    "PatchError",
    "PolypatchError",
    "Report",
    "apply",
    "apply_to_files",
    "check",
    "convert",
    "detect",
    "extract",
    "formats",
    "hash",
    "prompt",
    "schema",
]


# json is imported when a document is first read, not with the package: an agent that only
# applies patches and prints reports does not pay for it.
def _loads(text: str) -> Any:
    import json

    return json.loads(text)


def _dumps(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


# ---------------------------------------------------------------------------------------
# Results


class _Record:
    """An immutable record: its fields are its ``__slots__``, given in order or by name;
    compared, hashed and shown by them."""

    __slots__: Tuple[str, ...] = ()

    def __init__(self, *values: Any, **named: Any) -> None:
        names = self.__slots__
        if len(values) + len(named) != len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} fields: {', '.join(names)}")
        for i, name in enumerate(names):
            object.__setattr__(self, name, values[i] if i < len(values) else named[name])

    def _values(self) -> Tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self) or not isinstance(other, _Record):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return builtins.hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class LineRange(_Record):
    """Lines ``start`` to ``end`` of a file, 1-based and inclusive.

    An empty range (an insertion point) has ``end == start - 1``; ``str()`` says it as the
    report does (``line 3``, ``lines 3-5``, ``before line 3``).
    """

    __slots__ = ("start", "end")
    start: int
    end: int

    def __str__(self) -> str:
        if self.end < self.start:
            return f"before line {self.start}"
        if self.end == self.start:
            return f"line {self.start}"
        return f"lines {self.start}-{self.end}"

    @classmethod
    def _of(cls, value: Optional[Dict[str, Any]]) -> Optional[LineRange]:
        return None if value is None else cls(value["start"], value["end"])


class Closest(_Record):
    """The region of the file most like an edit's target that was not found."""

    __slots__ = ("lines", "similarity", "diff")
    lines: LineRange
    similarity: float
    diff: str
    """A short unified diff from what the patch expected (``-``) to the file (``+``)."""


class Failure(_Record):
    """Why an edit or a file operation failed, written for the patch's writer.

    ``kind`` is a stable name: ``not_found``, ``ambiguous``, ``file_missing``,
    ``file_exists``, ``not_a_file``, ``path_escapes_root``, ``not_text``,
    ``invalid_plan``, ``elision``, ``io``, ``search_skipped``, ``already_applied``,
    ``changed_since_read``.
    """

    __slots__ = ("kind", "message", "next_step", "candidates", "candidates_total", "closest")
    kind: str
    message: str
    next_step: str
    candidates: List[LineRange]
    """For an ambiguous target: the places it matched (the first ten)."""
    candidates_total: int
    closest: Optional[Closest]

    @classmethod
    def _of(cls, value: Optional[Dict[str, Any]]) -> Optional[Failure]:
        if value is None:
            return None
        closest = value.get("closest")
        return cls(
            kind=value["kind"],
            message=value["message"],
            next_step=value.get("next_step", ""),
            candidates=[LineRange(c["start"], c["end"]) for c in value.get("candidates", [])],
            candidates_total=value.get("candidates_total", 0),
            closest=None
            if closest is None
            else Closest(LineRange(closest["lines"]["start"], closest["lines"]["end"]), closest["similarity"], closest["diff"]),
        )


class EditResult(_Record):
    """What happened to one edit of a file.

    ``status`` is ``applied`` (written), ``located`` (found, not written: a dry run, or
    another edit failed), ``already_applied``, ``skipped``, ``failed`` or
    ``not_attempted``. ``tier`` says how strictly the target matched (``exact``,
    ``trailing_whitespace``, ``indentation``, ``trimmed``, ``blank_lines``, ``unicode``,
    ``prefix``, ``fuzzy``) and ``confidence`` how sure the match is (0 to 1).
    """

    __slots__ = ("index", "label", "status", "lines", "tier", "confidence", "failure", "notes")
    index: int
    label: str
    status: str
    lines: Optional[LineRange]
    tier: Optional[str]
    confidence: Optional[float]
    failure: Optional[Failure]
    notes: List[str]

    @property
    def name(self) -> str:
        """The edit's name in messages: its label (``hunk 2``), or ``edit N``."""
        return self.label or f"edit {self.index}"

    @classmethod
    def _of(cls, value: Dict[str, Any]) -> EditResult:
        return cls(
            index=value["index"],
            label=value.get("label", ""),
            status=value["status"],
            lines=LineRange._of(value.get("lines")),
            tier=value.get("tier"),
            confidence=value.get("confidence"),
            failure=Failure._of(value.get("failure")),
            notes=list(value.get("notes", [])),
        )


class FileResult(_Record):
    """What happened to one file operation (``create``, ``delete``, ``replace``,
    ``modify``, ``binary``; a move is a ``modify`` or ``replace`` with ``moved_to``).

    ``block`` is the 1-based index of the reply's block it belongs to, ``None`` for a
    patch read whole.
    """

    __slots__ = ("path", "operation", "status", "moved_to", "edits", "failure", "block")
    path: str
    operation: str
    status: str
    moved_to: Optional[str]
    edits: List[EditResult]
    failure: Optional[Failure]
    block: Optional[int]

    @classmethod
    def _of(cls, value: Dict[str, Any], block: Optional[int]) -> FileResult:
        return cls(
            path=value["path"],
            operation=value["operation"],
            status=value["status"],
            moved_to=value.get("moved_to"),
            edits=[EditResult._of(e) for e in value.get("edits", [])],
            failure=Failure._of(value.get("failure")),
            block=block,
        )


class BlockResult(_Record):
    """What happened to one patch block of a chat reply: where it is in the reply, its
    dialect, and its own files."""

    __slots__ = ("index", "dialect", "status", "lines", "fence", "warnings", "files")
    index: int
    dialect: str
    status: str
    lines: Optional[LineRange]
    fence: Optional[str]
    warnings: List[str]
    files: List[FileResult]


class Report:
    """What applying did, per file and per edit.

    ``str(report)`` is the text to hand back to the model (the command line's report);
    :meth:`to_json` is the versioned JSON document ``polypatch apply --json`` prints, and
    :meth:`to_dict` the same document as Python values.

    ``status`` is ``applied``, ``already_applied``, ``dry_run`` or ``failed``.
    ``files`` lists every file operation (of every block, for a reply); ``blocks`` the
    reply's blocks (empty for a patch read whole).
    """

    __slots__ = ("_outcome", "_document", "_blocks", "_files")

    def __init__(self, outcome: _native.Outcome) -> None:
        self._outcome = outcome
        # Read from the document on first use.
        self._document: Optional[Dict[str, Any]] = None
        self._blocks: Optional[List[BlockResult]] = None
        self._files: Optional[List[FileResult]] = None

    @property
    def status(self) -> str:
        """How the run ended: ``applied``, ``already_applied``, ``dry_run`` or ``failed``."""
        return self._outcome.status

    @property
    def ok(self) -> bool:
        """Whether every edit was located (and written, unless a dry run)."""
        return self._outcome.status in ("applied", "already_applied", "dry_run")

    def to_json(self) -> str:
        """The JSON document (one line), as ``polypatch apply --json`` prints it; its
        ``version`` changes only when a field changes meaning or goes away."""
        return self._outcome.json()

    def to_dict(self) -> Dict[str, Any]:
        """The JSON document as Python values (a new copy each call)."""
        doc: Dict[str, Any] = _loads(self._outcome.json())
        return doc

    @property
    def _doc(self) -> Dict[str, Any]:
        if self._document is None:
            self._document = self.to_dict()
        return self._document

    @property
    def dry_run(self) -> bool:
        """Whether nothing was written on purpose."""
        return self._outcome.status == "dry_run" or bool(self._doc.get("report", {}).get("dry_run"))

    @property
    def committed(self) -> bool:
        """Whether the changes were written (for :func:`apply_to_files`: delivered)."""
        return self._outcome.status == "applied"

    @property
    def warnings(self) -> List[str]:
        """What the parser accepted that the writer should fix, and what was recovered
        before applying."""
        return list(self._doc.get("warnings", []))

    @property
    def blocks(self) -> List[BlockResult]:
        """The reply's blocks, in order; empty for a patch read whole."""
        if self._blocks is None:
            self._blocks = self._read_blocks()
        return self._blocks

    def _read_blocks(self) -> List[BlockResult]:
        out = []
        for b in self._doc.get("blocks", []):
            files = [FileResult._of(f, b["index"]) for f in b["report"].get("files", [])]
            out.append(
                BlockResult(
                    index=b["index"],
                    dialect=b["dialect"],
                    status=b["status"],
                    lines=LineRange._of(b.get("lines")),
                    fence=b.get("fence"),
                    warnings=list(b.get("warnings", [])),
                    files=files,
                )
            )
        return out

    @property
    def files(self) -> List[FileResult]:
        """Every file operation, in order (a reply's: block after block)."""
        if self._files is None:
            self._files = self._read_files()
        return self._files

    def _read_files(self) -> List[FileResult]:
        if "report" in self._doc:
            return [FileResult._of(f, None) for f in self._doc["report"].get("files", [])]
        return [f for b in self.blocks for f in b.files]

    @property
    def first_failure(self) -> Optional[Tuple[FileResult, Optional[EditResult], Failure]]:
        """The first failure: the file, the edit (``None`` when the file operation
        itself failed) and why; ``None`` when nothing failed."""
        for f in self.files:
            if f.failure is not None:
                return (f, None, f.failure)
            for e in f.edits:
                if e.failure is not None:
                    return (f, e, e.failure)
        return None

    def __str__(self) -> str:
        return self._outcome.text

    def __repr__(self) -> str:
        return f"<polypatch.Report {self.status}: {len(self.files)} file(s)>"


# ---------------------------------------------------------------------------------------
# Errors


class PolypatchError(Exception):
    """A patch was not applied: malformed (:class:`PatchError`) or not applicable
    (:class:`ApplyError`). Nothing was written."""

    message: str

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class PatchError(PolypatchError):
    """The patch (or a block of the reply) could not be parsed; nothing was written.

    ``kind`` is stable and machine-readable (``missing_end``, ``invalid_header``,
    ``unknown_format``, ``no_patch``, ``truncated``, …); ``line`` and ``column`` (1-based,
    in the text given) point at the offending text when known; ``block`` is the reply's
    block (1-based) it is in. ``str(err)`` shows the line with a caret under the spot.

    >>> try:
    ...     polypatch.apply("*** Begin Patch\\n*** Update File: a.txt\\n", ".")
    ... except polypatch.PatchError as err:
    ...     print(err.kind, err.dialect, err.line)
    missing_end ai-patch 2
    """

    kind: str
    dialect: Optional[str]
    line: Optional[int]
    column: Optional[int]
    block: Optional[int]
    document: Dict[str, Any]

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        dialect: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        block: Optional[int] = None,
        document: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.dialect = dialect
        self.line = line
        self.column = column
        self.block = block
        self.document = document or {}

    def to_json(self) -> str:
        """The JSON document (``status: malformed``), as ``polypatch apply --json``
        prints it."""
        return _dumps(self.document)


class ApplyError(PolypatchError):
    """The patch could not be applied; nothing was written. ``report`` says which file
    and edit failed, why, the closest place and the next step (``str(err.report)`` is
    the text for the model).

    When every edit was located but writing failed, ``commit_error`` says why and
    ``rolled_back`` whether every file was restored.
    """

    report: Report
    commit_error: Optional[str]
    rolled_back: Optional[bool]

    def __init__(self, message: str, report: Report) -> None:
        super().__init__(message)
        self.report = report
        doc = report.to_dict()
        self.commit_error = doc.get("commit_error")
        self.rolled_back = doc.get("rolled_back")


def _finish(outcome: _native.Outcome) -> Report:
    status = outcome.status
    if status == "malformed":
        doc = _loads(outcome.json())
        error = doc.get("error", {})
        block = error.get("block")
        raise PatchError(
            outcome.message,
            kind=error.get("kind", "malformed"),
            dialect=error.get("dialect"),
            line=error.get("line"),
            column=error.get("column"),
            block=None if block is None else block.get("index"),
            document=doc,
        )
    report = Report(outcome)
    if status == "failed":
        raise ApplyError(outcome.message, report)
    return report


def _hashes(read_hashes: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    return None if read_hashes is None else {str(k): str(v) for k, v in read_hashes.items()}


# ---------------------------------------------------------------------------------------
# Functions


def apply(
    patch: str,
    root: StrPath = ".",
    *,
    format: str = "auto",
    dry_run: bool = False,
    strict: bool = False,
    read_hashes: Optional[Mapping[str, str]] = None,
    stale_read: str = "refuse",
) -> Report:
    """Applies ``patch`` to the files under ``root``, as one transaction: every file or
    none.

    ``patch`` is a patch in any dialect (detected, or named by ``format``), or a model's
    whole reply: every patch block in it is applied, in order, each seeing the changes of
    the ones before. No path outside ``root`` is ever read or written. A file keeps its
    line endings (CRLF stays CRLF), byte order mark and final newline.

    ``dry_run`` locates everything and writes nothing (``report.status == "dry_run"``).
    ``strict`` allows exact matches only. ``read_hashes`` maps a path to the hash of the
    content the patch was written against (:func:`hash`): a file changed since is refused
    (``changed_since_read``), unless ``stale_read="exact"`` and its edits still match it
    exactly.

    Raises :class:`PatchError` (malformed), :class:`ApplyError` (not applied; nothing was
    written), ``ValueError`` (an unknown format, a bad hash) and ``OSError`` (the root
    cannot be opened).

    >>> import pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "a.txt").write_bytes(b"one\\r\\ntwo\\r\\n")
    >>> reply = "Fixed:\\n\\n```diff\\n--- a/a.txt\\n+++ b/a.txt\\n@@ -1,2 +1,2 @@\\n one\\n-two\\n+2\\n```\\n"
    >>> polypatch.apply(reply, root).status
    'applied'
    >>> (root / "a.txt").read_bytes()
    b'one\\r\\n2\\r\\n'
    """
    outcome = _native.apply(patch, os.fspath(root), format, dry_run, strict, _hashes(read_hashes), stale_read)
    return _finish(outcome)


def check(
    patch: str,
    root: StrPath = ".",
    *,
    format: str = "auto",
    strict: bool = False,
    read_hashes: Optional[Mapping[str, str]] = None,
    stale_read: str = "refuse",
) -> Report:
    """Whether ``patch`` applies to the files under ``root``: :func:`apply` with
    ``dry_run=True``. Nothing is written; raises as :func:`apply` does."""
    return apply(
        patch, root, format=format, dry_run=True, strict=strict, read_hashes=read_hashes, stale_read=stale_read
    )


def apply_to_files(
    patch: str,
    files: Mapping[str, str],
    *,
    format: str = "auto",
    strict: bool = False,
    read_hashes: Optional[Mapping[str, str]] = None,
    stale_read: str = "refuse",
) -> Tuple[Dict[str, Optional[str]], Report]:
    """Applies ``patch`` to files given as texts (path to text), in memory: for editors'
    buffers and sandboxes. Nothing on disk is read or written.

    Returns the files the patch changes, path to new text (``None`` for a deleted file; a
    move is the old path ``None`` and the new path's text), and the report. ``files`` is
    not changed. Raises as :func:`apply` does.

    >>> texts, report = polypatch.apply_to_files(
    ...     "--- a/a.txt\\n+++ b/a.txt\\n@@ -1 +1 @@\\n-one\\n+uno\\n", {"a.txt": "one\\n", "b.txt": "two\\n"}
    ... )
    >>> texts
    {'a.txt': 'uno\\n'}
    >>> report.files[0].edits[0].status, report.files[0].edits[0].tier
    ('applied', 'exact')
    """
    texts, outcome = _native.apply_to_files(patch, dict(files), format, strict, _hashes(read_hashes), stale_read)
    report = _finish(outcome)
    assert texts is not None  # a report that did not raise comes with the texts
    return texts, report


def detect(text: str) -> Optional[str]:
    """The dialect ``text`` looks most like (``ai-patch``, ``unified``, …), or ``None``.

    >>> polypatch.detect("--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n-a\\n+b\\n")
    'unified'
    """
    return _native.detect(text)


class Block(_Record):
    """One patch block found in a reply: its dialect, its text (without the fence), its
    lines in the reply, the fence's info string (``None`` outside a fence), how sure the
    dialect guess is (1-100), and whether the reply was cut off inside it."""

    __slots__ = ("dialect", "text", "lines", "fence", "confidence", "cut_off")
    dialect: str
    text: str
    lines: LineRange
    fence: Optional[str]
    confidence: int
    cut_off: bool


def extract(reply: str) -> List[Block]:
    """Every patch block in a model's reply, in order (empty when there is none).

    >>> reply = "Run:\\n\\n```sh\\nmake\\n```\\n\\n```diff\\n--- a/a\\n+++ b/a\\n@@ -1 +1 @@\\n-x\\n+y\\n```\\n"
    >>> [(b.dialect, b.fence, str(b.lines)) for b in polypatch.extract(reply)]
    [('unified', 'diff', 'lines 8-12')]
    """
    return [
        Block(dialect, text, LineRange(start, end), fence, confidence, cut_off)
        for dialect, text, start, end, fence, confidence, cut_off in _native.extract(reply)
    ]


def convert(
    patch: str,
    to: str,
    root: StrPath = ".",
    *,
    files: Optional[Mapping[str, str]] = None,
    format: str = "auto",
) -> str:
    """``patch`` rewritten in the dialect ``to``, resolved against the files under
    ``root`` (or the texts ``files``); nothing is written. The result is checked to give
    the same files at the exact tier. An empty string: the patch changes nothing.

    Raises :class:`PatchError`, :class:`ApplyError` (the patch does not apply to the
    files), or :class:`PolypatchError` (the target dialect cannot say what the patch
    does, e.g. deleting a file in ``ap``).

    >>> print(polypatch.convert("--- a/a.txt\\n+++ b/a.txt\\n@@ -1 +1 @@\\n-one\\n+uno\\n", "ai-patch",
    ...                         files={"a.txt": "one\\n"}), end="")
    *** Begin Patch
    *** Update File: a.txt
    @@
    -one
    +uno
    *** End of File
    *** End Patch
    """
    root_path = None if files is not None else os.fspath(root)
    text, outcome, refusal = _native.convert(patch, to, root_path, None if files is None else dict(files), format)
    if outcome is not None:
        _finish(outcome)
    if refusal is not None:
        raise PolypatchError(refusal)
    assert text is not None
    return text


def prompt(format: str) -> str:
    """The instructions to give a model so that it writes the dialect ``format`` well,
    ending with a worked example.

    >>> "*** Begin Patch" in polypatch.prompt("ai-patch")
    True
    """
    text = _native.prompt(format)
    if text is None:
        raise ValueError(f"unknown format `{format}`; known formats: {', '.join(formats())}")
    return text


def schema(format: Optional[str] = None) -> Dict[str, Any]:
    """The JSON Schema of the input of the dialect ``format`` (the ones written as JSON
    or YAML: ``aptix``, ``ap``), for structured outputs and tool calls; without
    ``format``, the schema of the report document (:meth:`Report.to_dict`).

    >>> polypatch.schema("aptix")["title"]
    'AptixBundle'
    """
    text = _native.schema(format)
    if text is None:
        with_schema = [name for name in formats() if _native.schema(name) is not None]
        raise ValueError(f"no JSON Schema for `{format}`; the formats with one: {', '.join(with_schema)}")
    result: Dict[str, Any] = _loads(text)
    return result


def formats() -> List[str]:
    """The dialects compiled in, in the order they are tried.

    >>> "unified" in polypatch.formats()
    True
    """
    return _native.formats()


def hash(data: Union[bytes, str]) -> str:
    """The stale-read guard's hash of a file's content as it was read (bytes, or text as
    UTF-8): ``sha256:`` and 64 hex digits, as ``polypatch hash FILE`` prints it. Give it
    in ``read_hashes`` when applying an edit written against that content.

    >>> polypatch.hash(b"hello\\n")
    'sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03'
    """
    return _native.hash(data)
