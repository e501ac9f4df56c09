#!/usr/bin/env python3
"""polypatch accuracy harness: real edits, rendered into every dialect with the defects
models make, applied by polypatch and by its peers; prints one table per dialect.

    python3 accuracy/run.py                       # everything, text tables
    python3 accuracy/run.py --markdown            # the tables as Markdown (BENCHMARKS.md)
    python3 accuracy/run.py --only-dialect ap --only-defect clean,typo_context --tools polypatch

See accuracy/README.md for what is measured and how.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases as cases_mod  # noqa: E402
import corpus  # noqa: E402
import fetch  # noqa: E402
import report  # noqa: E402
import tools  # noqa: E402

CACHE = HERE / ".cache"
CODEX_VERSION = "0.169.0"


def parse_args(argv=None) -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--polypatch", type=Path, default=HERE.parent / "target" / "release" / "polypatch",
                   help="the polypatch binary to measure (default: target/release/polypatch of this repository)")
    p.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    p.add_argument("--limit", type=int, default=0, help="base edits per project at most (0: all)")
    p.add_argument("--only-dialect", default="", help="comma-separated dialects (unified, ai-patch, ap, applydiff, aptix, search-replace, tool-call, lazy)")
    p.add_argument("--only-defect", default="", help="comma-separated rows (clean, typo_context, …)")
    p.add_argument("--tools", default="polypatch,git,gnu,codex,aider,mpatch",
                   help="comma-separated: polypatch, git, gnu, codex, aider, mpatch")
    p.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    p.add_argument("--dump-wrong", type=Path, help="write every polypatch WRONG case here as a spec-fixture folder")
    p.add_argument("--dump-clean-failures", type=Path,
                   help="write every clean case polypatch refused here as a spec-fixture folder")
    p.add_argument("--dump-failures", type=Path,
                   help="write every case polypatch refused, of any row, here as a spec-fixture folder")
    p.add_argument("--json", type=Path, help="write every result (case, tool, verdict, reason) as JSON here")
    p.add_argument("--codex-version", default=CODEX_VERSION, help="the @openai/codex npm version to install")
    p.add_argument("--lazy-seed", type=int, default=None,
                   help="render the lazy rows with this seed instead of lazycases.SEED (held-out renderings of the same edits)")
    args = p.parse_args(argv)
    args.polypatch = args.polypatch.resolve()
    return args


def _selected(value: str, allowed, what: str) -> list[str]:
    """The comma-separated selection, checked against ``allowed`` (all when empty)."""
    if not value:
        return list(allowed)
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in allowed]
    if unknown:
        sys.exit(f"unknown {what}: {', '.join(unknown)} (choose from {', '.join(allowed)})")
    return [v for v in allowed if v in chosen]


def load_edits(limit: int) -> tuple[list[corpus.BaseEdit], dict[str, dict[str, str]]]:
    """Every project's base edits, and each project's old files (for the unrelated-file row)."""
    edits, old_files = [], {}
    for project in fetch.load_projects(HERE / "projects.toml"):
        old_dir, new_dir = fetch.fetch_project(project, CACHE)
        old, new = corpus.read_text_files(old_dir), corpus.read_text_files(new_dir)
        old_files[project.name] = old
        found = corpus.project_edits(project.name, old, new)
        edits += found[:limit] if limit else found
    return edits, old_files


def prepare_tools(selected: list[str], args) -> tuple[list[str], Path | None, Path | None]:
    """The tools that can run here (with a note on stderr for each one that cannot), the
    Codex binary and the Python peers' interpreter."""
    ready, codex, peers = [], None, None
    for tool in selected:
        if tool == "polypatch" and not args.polypatch.is_file():
            sys.exit(f"no polypatch binary at {args.polypatch}: "
                     "build it (cargo build --release -p polypatch-cli) or pass --polypatch")
        if tool == "git" and not shutil.which("git") or tool == "gnu" and not shutil.which("patch"):
            print(f"note: {tool} is not installed; its column is left out", file=sys.stderr)
            continue
        if tool == "codex":
            codex = tools.install_codex(CACHE, args.codex_version)
            if codex is None:
                print("note: the Codex CLI binary could not be installed from npm; its column is left out",
                      file=sys.stderr)
                continue
        if tool in tools.PEERS:
            peers = peers or tools.install_peers(CACHE)
            if peers is None:
                print(f"note: {tool} could not be installed from PyPI; its column is left out", file=sys.stderr)
                continue
        ready.append(tool)
    return ready, codex, peers


def run_all(jobs: list[tuple[cases_mod.Case, str]], workers: int, polypatch: Path,
            codex: Path | None, peers: Path | None = None) -> list[report.Result]:
    """Run every (case, tool) job on ``workers`` threads, each in its own scratch folder."""
    local = threading.local()
    scratches = []
    lock = threading.Lock()

    def one(job):
        case, tool = job
        if not hasattr(local, "scratch"):
            local.scratch = tools.Scratch(codex, peers)
            with lock:
                scratches.append(local.scratch)
        out = tools.run_tool(tool, case, local.scratch, polypatch)
        return report.Result(case, tool, out, tools.classify(case, out))

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            return list(pool.map(one, jobs))
    finally:
        for s in scratches:
            s.remove()


def write_json(path: Path, results: list[report.Result], meta: dict) -> None:
    """Every result, and the counts, as one JSON document."""
    doc = {
        "meta": meta,
        "counts": report.summary_counts(results),
        "results": [{"case": r.case.id, "path": r.case.edit.path, "tool": r.tool,
                     "verdict": r.verdict.verdict, "reason": r.verdict.reason, "detail": r.outcome.detail,
                     **({"pinned": r.case.pinned, "pinned_order": r.case.pinned_order}
                        if getattr(r.case, "pinned", None) is not None else {})}
                    for r in results],
    }
    path.write_text(json.dumps(doc, indent=1) + "\n")


def main(argv=None) -> int:
    """Build the cases, run the tools, print the tables and the lists."""
    args = parse_args(argv)
    if args.lazy_seed is not None:
        import lazycases
        lazycases.SEED = args.lazy_seed
    started = time.monotonic()
    dialects = _selected(args.only_dialect, cases_mod.DIALECTS, "dialect")
    rows = _selected(args.only_defect, cases_mod.ROWS, "row")
    chosen_tools, codex, peers = prepare_tools(_selected(args.tools, tools.TOOLS, "tool"), args)

    edits, old_files = load_edits(args.limit)
    all_cases = cases_mod.build_cases(edits, old_files, dialects, rows)
    jobs = [(c, t) for c in all_cases for t in chosen_tools if c.dialect in tools.TOOL_DIALECTS[t]]
    projects = sorted({e.project for e in edits})
    print(f"{len(edits)} base edits from {len(projects)} projects "
          f"({sum(e.kind == 'multi' for e in edits)} of them multi-hunk), "
          f"{len(all_cases)} cases, {len(jobs)} tool runs on {args.jobs} jobs", file=sys.stderr)

    results = run_all(jobs, args.jobs, args.polypatch, codex, peers)
    elapsed = time.monotonic() - started

    versions = {t: tools.tool_version(t, args.polypatch, codex) for t in chosen_tools}
    print(report.tables(results, dialects, rows, chosen_tools, args.markdown))
    if "lazy" in dialects:
        print(report.lazy_reach(results, args.markdown))
    for t in chosen_tools:
        print(f"{report.TOOL_TITLES[t].split()[0] if t == 'aider' else report.TOOL_TITLES[t]}: {versions[t]}")
    print(f"wall time {elapsed:.0f} s on {args.jobs} jobs ({platform.machine()}, {len(jobs)} tool runs)\n")

    wrong = report.wrong_list(results)
    refused = report.clean_failures(results)
    print(f"polypatch WRONG ({len(wrong)}):\n{report.describe(wrong)}\n")
    print(f"polypatch refused clean cases ({len(refused)}):\n{report.describe(refused)}\n")

    measured = f"{versions.get('polypatch', 'polypatch')} ({args.polypatch})"
    if args.dump_wrong:
        report.dump_fixtures(wrong, args.dump_wrong, measured)
        print(f"WRONG cases written to {args.dump_wrong}", file=sys.stderr)
    if args.dump_clean_failures:
        report.dump_fixtures(refused, args.dump_clean_failures, measured)
        print(f"refused clean cases written to {args.dump_clean_failures}", file=sys.stderr)
    if args.dump_failures:
        failed = [r for r in results if r.tool == "polypatch" and r.verdict.verdict == "failed"]
        report.dump_fixtures(failed, args.dump_failures, measured)
        print(f"refused cases written to {args.dump_failures}", file=sys.stderr)
    if args.json:
        meta = {"polypatch": str(args.polypatch), "versions": versions, "seconds": round(elapsed, 1),
                "jobs": args.jobs, "base_edits": len(edits), "cases": len(all_cases)}
        write_json(args.json, results, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
