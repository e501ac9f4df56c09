"""Tables, lists and fixture dumps from the results of a run."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from cases import MUST_FAIL, NOT_APPLICABLE, ROWS, Case
from tools import TOOL_DIALECTS, Outcome, Verdict

TOOL_TITLES = {"polypatch": "polypatch", "git": "git apply", "gnu": "GNU patch -F3", "codex": "Codex apply_patch",
               "aider": "Aider editblock", "mpatch": "mpatch",
               # Aider reads a lazy snippet with its whole-file applier (``peers.py``).
               ("aider", "lazy"): "Aider whole-file"}
VERDICTS = ("correct", "failed", "WRONG")


@dataclass
class Result:
    """One tool's run of one case."""

    case: Case
    tool: str
    outcome: Outcome
    verdict: Verdict


def tables(results: list[Result], dialects, rows, tools, markdown: bool) -> str:
    """One table per dialect: a line per row, a ``correct / failed / WRONG (% correct)``
    column per tool that reads the dialect, and a total line."""
    counts: dict[tuple, Counter] = defaultdict(Counter)
    cases_per_row: dict[tuple, set] = defaultdict(set)
    for r in results:
        counts[(r.case.dialect, r.case.row, r.tool)][r.verdict.verdict] += 1
        cases_per_row[(r.case.dialect, r.case.row)].add(r.case.edit.id)
    out = []
    for dialect in dialects:
        cols = [t for t in tools if dialect in TOOL_DIALECTS[t]]
        if not cols:
            continue
        header = ["row", "cases"] + [TOOL_TITLES.get((t, dialect), TOOL_TITLES[t]) for t in cols]
        lines = []
        totals = {t: Counter() for t in cols}
        total_cases = 0
        for row in rows:
            if (dialect, row) in NOT_APPLICABLE:
                lines.append([row, "n/a"] + ["n/a"] * len(cols))
                continue
            n = len(cases_per_row[(dialect, row)])
            # The lazy dialect has rows of its own; the others' rows are not its, nor its theirs.
            if (dialect == "lazy") != row.startswith("lazy_"):
                continue
            total_cases += n
            label = row + (" (must fail)" if row in MUST_FAIL else "")
            cells = []
            for t in cols:
                c = counts[(dialect, row, t)]
                totals[t].update(c)
                cells.append(_cell(c))
            lines.append([label, str(n)] + cells)
        lines.append(["total", str(total_cases)] + [_cell(totals[t]) for t in cols])
        title = f"{dialect} — correct / failed / WRONG (% correct)"
        out.append(_markdown(title, header, lines) if markdown else _plain(title, header, lines))
    return "\n".join(out)


def lazy_reach(results: list[Result], markdown: bool, tool: str = "polypatch") -> str:
    """The lazy rows by whether the snippet pins its places (``lazycases.pinned``): the
    first-try goal's share is the pinned cases merged right; an unpinned case (two places
    fit the lines the snippet shows) is right refused, never merged elsewhere. The last
    columns read the same with ``lazycases.pinned_in_order`` (without the file's distances
    across removed lines, which the snippet does not show)."""
    by_row: dict[str, dict[bool, Counter]] = defaultdict(lambda: defaultdict(Counter))
    by_order: dict[str, dict[bool, Counter]] = defaultdict(lambda: defaultdict(Counter))
    for r in results:
        if r.tool == tool and r.case.dialect == "lazy" and r.case.pinned is not None:
            by_row[r.case.row][r.case.pinned][r.verdict.verdict] += 1
            by_order[r.case.row][bool(r.case.pinned_order)][r.verdict.verdict] += 1
    if not by_row:
        return ""
    header = ["row", "pinned", "first try (pinned)", "not pinned", "refused (not pinned)",
              "pinned in order", "first try (in order)"]
    lines = []
    total = [Counter(), Counter(), Counter()]
    for row in rows_in_order(by_row):
        if row in MUST_FAIL:
            continue
        p, u, o = by_row[row][True], by_row[row][False], by_order[row][True]
        for t, c in zip(total, (p, u, o)):
            t.update(c)
        lines.append([row, str(sum(p.values())), _cell(p), str(sum(u.values())), _cell(u),
                      str(sum(o.values())), _cell(o)])
    p, u, o = total
    lines.append(["total", str(sum(p.values())), _cell(p), str(sum(u.values())), _cell(u),
                  str(sum(o.values())), _cell(o)])
    title = "lazy, by whether the snippet's shown lines pin its places — correct / failed / WRONG"
    return _markdown(title, header, lines) if markdown else _plain(title, header, lines)


def _cell(c: Counter) -> str:
    """``correct / failed / WRONG (pct %)``; ``-`` for an empty row."""
    n = sum(c.values())
    if not n:
        return "-"
    return f"{c['correct']} / {c['failed']} / {c['WRONG']} ({100 * c['correct'] / n:.1f} %)"


def _plain(title: str, header: list[str], lines: list[list[str]]) -> str:
    """A fixed-width text table."""
    widths = [max(len(r[i]) for r in [header] + lines) for i in range(len(header))]

    def fmt(r: list[str]) -> str:
        return "  ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(r, widths)))

    sep = "-" * len(fmt(header))
    return "\n".join([title, sep, fmt(header), sep] + [fmt(r) for r in lines[:-1]] + [sep, fmt(lines[-1]), ""])


def _markdown(title: str, header: list[str], lines: list[list[str]]) -> str:
    """A Markdown table under a bold title."""
    rows = [f"**{title}**", "", "| " + " | ".join(header) + " |",
            "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    for r in lines:
        cells = [f"**{x}**" if r[0] == "total" else x for x in r]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def wrong_list(results: list[Result], tool: str = "polypatch") -> list[Result]:
    """The tool's WRONG results in run order."""
    return [r for r in results if r.tool == tool and r.verdict.verdict == "WRONG"]


def clean_failures(results: list[Result], tool: str = "polypatch") -> list[Result]:
    """The tool's refusals of clean (defect-free) renderings: the engine's gaps."""
    return [r for r in results if r.tool == tool and r.case.row == "clean" and r.verdict.verdict == "failed"]


def describe(rs: list[Result]) -> str:
    """One line per result: case id, path, reason."""
    return "\n".join(f"{r.case.id}  ({r.case.edit.path})  {r.verdict.reason or r.outcome.detail}" for r in rs)


def dump_fixtures(rs: list[Result], folder: Path, measured: str) -> list[Path]:
    """Write each result as a spec-fixture folder ``<dialect>/<row>_<project>_<n>``:
    ``before/``, ``patch``, ``after/`` (the intended tree) or ``error.txt`` (a must-fail
    row), ``got/`` (what the tool left) and an ``expect`` of comments saying why."""
    written = []
    for r in rs:
        case = r.case
        d = folder / case.dialect / f"{case.row}_{case.edit.id}"
        _write_tree(d / "before", case.files)
        (d / "patch").write_text(case.patch)
        _write_tree(d / "got", r.outcome.tree)
        notes = [f"# accuracy harness case {case.id} ({case.edit.path}), measured with {measured}",
                 f"# {r.verdict.verdict}: {r.verdict.reason or r.outcome.detail}"]
        if case.expect == "refuse":
            kind = "ambiguous" if case.row == "duplicated_block" else "not_found"
            (d / "error.txt").write_text(f"failed:{kind}\n")
        else:
            _write_tree(d / "after", case.intended or {})
            if case.expect == "apply_or_refuse":
                notes.append("# after/ is the edit at its original place; refusing as ambiguous is right too")
        (d / "expect").write_text("\n".join(notes) + "\n")
        written.append(d)
    return written


def _write_tree(root: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` (relative path → bytes) under ``root``."""
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def summary_counts(results: list[Result]) -> dict:
    """Counts per dialect, row and tool for the JSON output."""
    out: dict = {}
    for r in results:
        cell = out.setdefault(r.case.dialect, {}).setdefault(r.case.row, {}).setdefault(
            r.tool, {v: 0 for v in VERDICTS})
        cell[r.verdict.verdict] += 1
    return out


def rows_in_order(selected) -> list[str]:
    """The selected rows in the harness's fixed order."""
    return [r for r in ROWS if r in selected]
