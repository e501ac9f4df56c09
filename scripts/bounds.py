#!/usr/bin/env python3
"""Runs the release CLI on hostile inputs and checks that every run stays bounded.

Issue 10 ("trust under faults"): a failure must be as fast as a success, never abort, and
never allocate by input size without a limit. Each case below is generated in a temporary
directory, run once with the release binary, and measured (wall time, peak RSS of the
child from wait4, bytes written to stdout and stderr, exit code). A case breaks a bound
when it is slower, larger or louder than its limit, or exits with another code than the
expected one (101 is a panic, 134 an abort).

    python3 scripts/bounds.py                   # builds target/release/polypatch first
    python3 scripts/bounds.py --binary PATH     # measures another build, no cargo
    python3 scripts/bounds.py --big             # adds the 1M-line, 1,000-hunk cases (slow)

Prints a table; exits 1 when any bound is broken. Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json as json_module
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
# No case may take more than this, whatever its limit: the run is killed and marked.
HARD_TIMEOUT = 180.0
# Address-space ceiling for every run, so a hostile case cannot take the machine down.
ADDRESS_LIMIT = 8 << 30


@dataclass
class Case:
    name: str
    # Writes the case's files into the directory; returns the CLI arguments after the binary.
    build: Callable[[Path], list[str]]
    expect: set[int]
    max_seconds: float = 2.0
    max_rss_mib: float = 200.0
    max_output_kib: float = 64.0
    # Checks the tree after the run; returns an error message or None.
    check: Callable[[Path], str | None] | None = None
    note: str = ""


@dataclass
class Result:
    case: Case
    seconds: float
    rss_mib: float
    output_kib: float
    code: int | str
    broken: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------
# Inputs


def minified_line(length: int, seed: int) -> str:
    """One line of minified JavaScript, `length` characters."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < length:
        a, b, c = rng.randrange(10_000), rng.randrange(100), rng.randrange(1000)
        token = f"var v{a}=function(x{b}){{return x{b}*{c}+k{a % 97}}};"
        parts.append(token)
        size += len(token)
    return "".join(parts)[:length]


def one_typo(line: str) -> str:
    """`line` with the character in its middle replaced by another one."""
    at = len(line) // 2
    while not line[at].isalnum():
        at += 1
    swap = "Q" if line[at] != "Q" else "W"
    return line[:at] + swap + line[at + 1 :]


HEAD, FOOT = "/* bundle v1 */", "//# sourceMappingURL=app.js.map"


def long_line_case(length: int, dialect: str, strict: bool, json: bool = False) -> Callable[[Path], list[str]]:
    def build(d: Path) -> list[str]:
        line = minified_line(length, seed=length)
        (d / "tree").mkdir()
        (d / "tree" / "app.min.js").write_text(f"{HEAD}\n{line}\n{FOOT}\n")
        typo = one_typo(line)
        if dialect == "ai-patch":
            patch = (
                "*** Begin Patch\n*** Update File: app.min.js\n@@\n"
                f" {HEAD}\n-{typo}\n+console.log(1);\n {FOOT}\n*** End Patch\n"
            )
        elif dialect == "applydiff":
            patch = (
                f">>> file: app.min.js\n--- from\n{HEAD}\n{typo}\n{FOOT}\n"
                f"--- to\n{HEAD}\nconsole.log(1);\n{FOOT}\n<\n"
            )
        elif dialect == "aptix":
            patch = aptix_find("app.min.js", typo, "console.log(1);")
        elif dialect == "aptix-exact":
            patch = aptix_find("app.min.js", line, "console.log(1);")
        else:
            patch = (
                "--- a/app.min.js\n+++ b/app.min.js\n@@ -1,3 +1,3 @@\n"
                f" {HEAD}\n-{typo}\n+console.log(1);\n {FOOT}\n"
            )
        (d / "p.patch").write_text(patch)
        args = ["apply", "--root", str(d / "tree"), str(d / "p.patch")]
        if strict:
            args.append("--strict")
        if json:
            args.append("--json")
        return args

    return build


def long_line_applied(d: Path) -> str | None:
    got = (d / "tree" / "app.min.js").read_text()
    want = f"{HEAD}\nconsole.log(1);\n{FOOT}\n"
    return None if got == want else "the file is not the expected result"


def long_line_untouched(d: Path) -> str | None:
    got = (d / "tree" / "app.min.js").read_text()
    return None if got.startswith(HEAD) and "console.log(1);" not in got else "the file was changed"


def file_line(i: int, rng: random.Random) -> str:
    return f'    let value_{i} = compute_{i % 97}(alpha_{i}, "{rng.choice(WORDS)}-{rng.randrange(1000)}");'


WORDS = ["north", "south", "east", "west", "amber", "cobalt", "ivory", "onyx", "pearl", "slate"]


def not_found_case(hunk: int, lines: int, dialect: str, json: bool = False) -> Callable[[Path], list[str]]:
    """A hunk of `hunk` lines, similar in shape to the file's but in it nowhere."""

    def build(d: Path) -> list[str]:
        rng = random.Random(hunk * 7 + lines)
        (d / "tree").mkdir()
        (d / "tree" / "big.rs").write_text("".join(file_line(i, rng) + "\n" for i in range(lines)))
        body = [file_line(lines + 1000 + i, rng).replace("alpha", "beta") for i in range(hunk)]
        mid = hunk // 2
        old = [f" {t}" for t in body[:mid]] + [f"-{body[mid]}"] + [f" {t}" for t in body[mid + 1 :]]
        new_line = f"+{body[mid].replace('let', 'let mut')}"
        diff = old[: mid + 1] + [new_line] + old[mid + 1 :]
        if dialect == "ai-patch":
            patch = "*** Begin Patch\n*** Update File: big.rs\n@@\n" + "\n".join(diff) + "\n*** End Patch\n"
        elif dialect == "applydiff":
            old_side = [t[1:] for t in diff if t[0] in " -"]
            new_side = [t[1:] for t in diff if t[0] in " +"]
            patch = ">>> file: big.rs\n--- from\n" + "\n".join(old_side) + "\n--- to\n" + "\n".join(new_side) + "\n<\n"
        elif dialect == "aptix":
            old_side = [t[1:] for t in diff if t[0] in " -"]
            new_side = [t[1:] for t in diff if t[0] in " +"]
            patch = aptix_find("big.rs", "\n".join(old_side), "\n".join(new_side))
        else:
            patch = f"--- a/big.rs\n+++ b/big.rs\n@@ -{lines // 2},{hunk} +{lines // 2},{hunk} @@\n" + "\n".join(diff) + "\n"
        (d / "p.patch").write_text(patch)
        args = ["apply", "--root", str(d / "tree"), str(d / "p.patch")]
        return args + ["--json"] if json else args

    return build


def repeated_lines_case(hunk: int, lines: int, dialect: str = "ai-patch") -> Callable[[Path], list[str]]:
    """A file made of `hunk` distinct lines, each repeated about 64 times in random order,
    and a hunk of those lines in another order with a typo: every pattern line seeds the
    fuzzy tier at many places, and no window is close."""

    def build(d: Path) -> list[str]:
        rng = random.Random(hunk + lines)
        vocab = [file_line(i, rng) for i in range(hunk)]
        text = [vocab[i % hunk] for i in range(lines)]
        rng.shuffle(text)
        (d / "tree").mkdir()
        (d / "tree" / "rep.rs").write_text("\n".join(text) + "\n")
        body = vocab[:]
        rng.shuffle(body)
        body[0] = one_typo(body[0])
        patch = "*** Begin Patch\n*** Update File: rep.rs\n@@\n" + "".join(f" {t}\n" for t in body[:-1])
        patch += f"-{body[-1]}\n+    changed();\n*** End Patch\n"
        if dialect == "applydiff":
            patch = ">>> file: rep.rs\n--- from\n" + "".join(f"{t}\n" for t in body)
            patch += "--- to\n" + "".join(f"{t}\n" for t in body[:-1]) + "    changed();\n<\n"
        (d / "p.patch").write_text(patch)
        return ["apply", "--root", str(d / "tree"), str(d / "p.patch")]

    return build


def ambiguity_case(places: int, json: bool = False, dialect: str = "ai-patch") -> Callable[[Path], list[str]]:
    """A line that stands at `places` places, written without the file's indentation."""

    def build(d: Path) -> list[str]:
        (d / "tree").mkdir()
        (d / "tree" / "calls.c").write_text("    call_something();\n" * places)
        patch = "*** Begin Patch\n*** Update File: calls.c\n@@\n-call_something();\n+call_other();\n*** End Patch\n"
        if dialect == "applydiff":
            patch = ">>> file: calls.c\n--- from\ncall_something();\n--- to\ncall_other();\n<\n"
        (d / "p.patch").write_text(patch)
        args = ["apply", "--root", str(d / "tree"), str(d / "p.patch")]
        return args + ["--json"] if json else args

    return build


def aptix_find(path: str, find: str, replace: str, limit: str = "once") -> str:
    """An Aptix structured patch bundle with one flat find/replace entry."""
    entry = {"path": path, "find": find, "replace": replace, "limit": limit}
    return json_module.dumps({"root": ".", "patches": [entry]}, indent=2) + "\n"


def aptix_all_case(places: int) -> Callable[[Path], list[str]]:
    """A `find` that stands at `places` places, replaced everywhere (`limit: all`)."""

    def build(d: Path) -> list[str]:
        (d / "tree").mkdir()
        (d / "tree" / "calls.c").write_text("    call_something();\n" * places)
        (d / "p.patch").write_text(aptix_find("calls.c", "call_something", "call_other", "all"))
        return ["apply", "--root", str(d / "tree"), str(d / "p.patch")]

    return build


def all_replaced(places: int) -> Callable[[Path], str | None]:
    def check(d: Path) -> str | None:
        got = (d / "tree" / "calls.c").read_text()
        return None if got == "    call_other();\n" * places else "not every place was replaced"

    return check


def aptix_huge_case(size: int) -> Callable[[Path], list[str]]:
    """A file bundle of `size` bytes (one entry whose content is that big)."""

    def build(d: Path) -> list[str]:
        (d / "tree").mkdir()
        # No line break after the JSON: the bundle is the file's `size` bytes.
        head, foot = '{"root": ".", "files": [{"path": "big.txt", "content": "', '"}]}'
        with open(d / "p.patch", "w") as f:
            f.write(head)
            left = size - len(head) - len(foot)
            chunk = "x" * MIB
            while left > 0:
                f.write(chunk[: min(left, MIB)])
                left -= MIB
            f.write(foot)
        return ["apply", "--root", str(d / "tree"), str(d / "p.patch")]

    return build


def aptix_deep_case(depth: int) -> Callable[[Path], list[str]]:
    """A file bundle whose content nests `depth` arrays deep."""

    def build(d: Path) -> list[str]:
        (d / "tree").mkdir()
        value = "[" * depth + "1" + "]" * depth
        (d / "p.patch").write_text('{"root": ".", "files": [{"path": "a.txt", "content": ' + value + "}]}\n")
        return ["apply", "--root", str(d / "tree"), str(d / "p.patch")]

    return build


def base85_lines(data: bytes) -> str:
    alphabet = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
    out = []
    for start in range(0, len(data), 52):
        chunk = data[start : start + 52]
        n = len(chunk)
        line = bytearray([ord("A") + n - 1 if n <= 26 else ord("a") + n - 27])
        for g in range(0, n, 4):
            word = int.from_bytes(chunk[g : g + 4].ljust(4, b"\0"), "big")
            digits = bytearray(5)
            for k in range(4, -1, -1):
                digits[k] = alphabet[word % 85]
                word //= 85
            line += digits
        out.append(line.decode())
    return "\n".join(out) + "\n"


def binary_case(size: int, extra: list[str] | None = None, files: int = 1) -> Callable[[Path], list[str]]:
    """A git binary patch creating `files` files of `size` zero bytes each (the data
    deflates ~1000:1)."""

    def build(d: Path) -> list[str]:
        comp = zlib.compressobj(1)
        sha = hashlib.sha1(f"blob {size}\0".encode())
        chunk = bytes(MIB)
        deflated = bytearray()
        left = size
        while left:
            n = min(left, len(chunk))
            deflated += comp.compress(chunk[:n])
            sha.update(chunk[:n])
            left -= n
        deflated += comp.flush()
        (d / "tree").mkdir()
        data = base85_lines(bytes(deflated))
        patch = "".join(
            f"diff --git a/{name} b/{name}\nnew file mode 100644\n"
            f"index 0000000000000000000000000000000000000000..{sha.hexdigest()}\n"
            f"GIT binary patch\nliteral {size}\n{data}\n"
            "literal 0\nHcmV?d00001\n\n"
            for name in (["zeros.bin"] if files == 1 else [f"zeros{i}.bin" for i in range(1, files + 1)])
        )
        (d / "p.patch").write_text(patch)
        return ["apply", "--root", str(d / "tree"), str(d / "p.patch"), *(extra or [])]

    return build


def nothing_written(d: Path) -> str | None:
    return None if not any((d / "tree").iterdir()) else "a file was written"


def many_hunks_case(lines: int, hunks: int, typo: bool) -> Callable[[Path], list[str]]:
    def build(d: Path) -> list[str]:
        rng = random.Random(lines + hunks)
        text = [file_line(i, rng) for i in range(lines)]
        (d / "tree").mkdir()
        (d / "tree" / "huge.rs").write_text("\n".join(text) + "\n")
        out = ["*** Begin Patch", "*** Update File: huge.rs"]
        step = lines // hunks
        for h in range(hunks):
            at = h * step + step // 2
            ctx = text[at - 2 : at + 3]
            old = ctx[2]
            out += ["@@", f" {ctx[0]}", f" {ctx[1] if not typo else one_typo(ctx[1])}", f"-{old}"]
            out += [f"+{old.replace('let', 'let mut')}", f" {ctx[3]}", f" {ctx[4]}"]
        out.append("*** End Patch")
        (d / "p.patch").write_text("\n".join(out) + "\n")
        return ["apply", "--root", str(d / "tree"), str(d / "p.patch")]

    return build


def typo_hunks_case(lines: int, hunks: int, shape: str, json: bool = False) -> Callable[[Path], list[str]]:
    """An AI-PATCH of `hunks` hunks spread over a file of `lines` lines (every 50th line is
    `    Ok(out)`), each with a one-character typo. `short`: the hunk removes an `Ok(out)`
    line written with a typo, too short to be similar enough, so every hunk fails (issue
    25: each cost a whole similarity search and a closest-region search before).
    `first-fails`: the first hunk's lines are not in the file, every later one has a typo
    in a context line (found by similarity, were it searched). `bare`: one line each,
    with a typo, no context (a similarity search of the file for every hunk)."""

    def build(d: Path) -> list[str]:
        rng = random.Random(lines + hunks)
        text = ["    Ok(out)" if i % 50 == 49 else file_line(i, rng) for i in range(lines)]
        (d / "tree").mkdir()
        (d / "tree" / "big.rs").write_text("\n".join(text) + "\n")
        out = ["*** Begin Patch", "*** Update File: big.rs"]
        step = lines // hunks
        for h in range(hunks):
            at = h * step + step // 2
            if text[at] == "    Ok(out)":
                at += 1
            if shape == "short":
                ok = (h * step // 50) * 50 + 49
                out += ["@@", f"-{one_typo(text[ok])}", "+    Ok(out) // done"]
            elif shape == "bare":
                out += ["@@", f"-{one_typo(text[at])}", f"+{text[at]} // checked"]
            else:
                before = [text[at - 2], one_typo(text[at - 1])]
                removed = text[at] if h > 0 else "    let nothing = nowhere(input, 0)?;"
                out += ["@@"] + [f" {t}" for t in before] + [f"-{removed}", f"+{text[at]} // checked", f" {text[at + 1]}"]
        out.append("*** End Patch")
        (d / "p.patch").write_text("\n".join(out) + "\n")
        args = ["check", "--root", str(d / "tree"), str(d / "p.patch")]
        return args + ["--json"] if json else args

    return build


def cases(big: bool) -> list[Case]:
    out = [
        Case("long line 60k, one typo (ai-patch)", long_line_case(60_000, "ai-patch", False), {0}, check=long_line_applied),
        Case("long line 60k, one typo, --strict", long_line_case(60_000, "ai-patch", True), {1}, check=long_line_untouched),
        Case("long line 60k, --strict --json", long_line_case(60_000, "ai-patch", True, json=True), {1}),
        Case("long line 10k, one typo (unified)", long_line_case(10_000, "unified", False), {0}, check=long_line_applied),
        Case("long line 20k, one typo (unified)", long_line_case(20_000, "unified", False), {0}, check=long_line_applied),
        Case("long line 20k, one typo, --strict", long_line_case(20_000, "unified", True), {1}, check=long_line_untouched),
        Case("long line 60k, one typo (applydiff)", long_line_case(60_000, "applydiff", False), {0}, check=long_line_applied),
        Case("long line 60k, --strict (applydiff)", long_line_case(60_000, "applydiff", True), {1}, check=long_line_untouched),
        Case("long line 60k, --strict --json (applydiff)", long_line_case(60_000, "applydiff", True, json=True), {1}),
    ]
    for hunk, lines in [(50, 5_000), (100, 5_000), (300, 20_000)]:
        for dialect in ["unified", "ai-patch", "applydiff"]:
            out.append(Case(f"not found {hunk} lines / {lines:,} ({dialect})", not_found_case(hunk, lines, dialect), {1}))
    out += [
        Case("not found 300 / 20,000 --json", not_found_case(300, 20_000, "unified", json=True), {1}),
        Case("not found, 300 lines x64 shuffled / 19,200", repeated_lines_case(300, 19_200), {1}),
        Case("ambiguity, 100,000 places", ambiguity_case(100_000), {1}),
        Case("ambiguity, 100,000 places --json", ambiguity_case(100_000, json=True), {1}),
        Case("not found 300 / 20,000 --json (applydiff)", not_found_case(300, 20_000, "applydiff", json=True), {1}),
        Case("ambiguity, 100,000 places (applydiff)", ambiguity_case(100_000, dialect="applydiff"), {1}),
        Case("not found, 300 x64 shuffled (applydiff)", repeated_lines_case(300, 19_200, "applydiff"), {1}),
        Case("long line 60k, find the line (aptix)", long_line_case(60_000, "aptix-exact", False), {0}, check=long_line_applied),
        Case("long line 60k, find with one typo (aptix)", long_line_case(60_000, "aptix", False), {1}, check=long_line_untouched),
        Case("long line 60k, one typo --json (aptix)", long_line_case(60_000, "aptix", False, json=True), {1}),
        Case("not found 300 / 20,000 (aptix)", not_found_case(300, 20_000, "aptix"), {1}),
        Case("not found 300 / 20,000 --json (aptix)", not_found_case(300, 20_000, "aptix", json=True), {1}),
        Case("find at 100,000 places, limit all (aptix)", aptix_all_case(100_000), {0}, check=all_replaced(100_000)),
        Case(
            "bundle of 64 MiB + 1 (aptix)",
            aptix_huge_case(64 * MIB + 1),
            {2},
            check=nothing_written,
            note="refused before JSON parsing: exit 2, kind too_large",
        ),
        Case(
            "bundle of 64 MiB, at the limit (aptix)",
            aptix_huge_case(64 * MIB),
            {0},
            max_rss_mib=320.0,
            note="accepted and written; about four copies of the content at the peak (text, JSON value, entry, plan)",
        ),
        Case("JSON 10,000 deep (aptix)", aptix_deep_case(10_000), {2}, check=nothing_written),
        Case(
            "binary literal 1e9 zeros",
            binary_case(1_000_000_000),
            {2},
            check=nothing_written,
            note="refused while parsing: exit 2, kind binary_too_large",
        ),
        Case(
            "40 binary literals of 64 MiB (a 15 MB diff)",
            binary_case(64 * MIB, files=40),
            {2},
            max_seconds=5.0,
            max_rss_mib=600.0,
            check=nothing_written,
            note="refused at the fifth while parsing (256 MiB for the whole patch): exit 2, kind binary_total_too_large",
        ),
        Case(
            "binary literal 8 MiB, limit raised",
            binary_case(8 * MIB, ["--max-binary-size", str(16 * MIB)]),
            {0},
            max_rss_mib=200.0,
        ),
    ]
    # Issue 25: after the first failure no similarity search runs, and failures past the
    # tenth are listed without details (about 100 bytes of text, 180 of JSON, per hunk).
    for shape in ["short", "first-fails"]:
        for json in [False, True]:
            out.append(
                Case(
                    f"2,000 typo hunks / 100,000 ({shape}{' --json' if json else ''})",
                    typo_hunks_case(100_000, 2_000, shape, json),
                    {1},
                    max_output_kib=512.0,
                    note="a line or two per hunk",
                )
            )
    if big:
        out += [
            # A report line per hunk: the output grows with the patch, as it should.
            Case("1M lines, 1,000 hunks exact", many_hunks_case(1_000_000, 1_000, False), {0}, 30.0, 1024.0, 256.0),
            Case("1M lines, 1,000 hunks one typo", many_hunks_case(1_000_000, 1_000, True), {0}, 180.0, 1024.0, 256.0),
            # The plan's budget for similarity searches runs out (a search of the whole
            # file for each one-line hunk): the plan fails, saying to split it.
            Case(
                "1M lines, 1,000 one-line hunks with a typo",
                typo_hunks_case(1_000_000, 1_000, "bare"),
                {1},
                60.0,
                1024.0,
                256.0,
                note="fails where the plan's search budget runs out: search_skipped, split the patch",
            ),
        ]
    return out


# ---------------------------------------------------------------------------------------
# Running


def limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))


def run(binary: Path, case: Case) -> Result:
    with tempfile.TemporaryDirectory(prefix="bounds-") as tmp:
        d = Path(tmp)
        args = case.build(d)
        out_path, err_path = d / "stdout", d / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            start = time.monotonic()
            proc = subprocess.Popen([str(binary), *args], stdout=out, stderr=err, preexec_fn=limit_address_space)
            timer = threading.Timer(HARD_TIMEOUT, lambda: os.kill(proc.pid, signal.SIGKILL))
            timer.start()
            _, status, usage = os.wait4(proc.pid, 0)
            seconds = time.monotonic() - start
            timer.cancel()
            proc.returncode = os.waitstatus_to_exitcode(status)
        code: int | str = proc.returncode
        if isinstance(code, int) and code < 0:
            # As a shell shows it (134: SIGABRT, the allocation failure); a run past the
            # hard timeout was killed by this script.
            code = "timeout" if -code == signal.SIGKILL and seconds >= HARD_TIMEOUT else 128 - code
        output = out_path.stat().st_size + err_path.stat().st_size
        res = Result(case, seconds, usage.ru_maxrss / 1024, output / 1024, code)
        if code not in case.expect:
            res.broken.append(f"exit {code}, expected {sorted(case.expect)}")
        if seconds > case.max_seconds:
            res.broken.append(f"{seconds:.2f} s > {case.max_seconds} s")
        if res.rss_mib > case.max_rss_mib:
            res.broken.append(f"{res.rss_mib:.0f} MiB > {case.max_rss_mib:.0f} MiB")
        if res.output_kib > case.max_output_kib:
            res.broken.append(f"{res.output_kib:.0f} KiB output > {case.max_output_kib:.0f} KiB")
        if case.check and code in case.expect:
            problem = case.check(d)
            if problem:
                res.broken.append(problem)
        return res


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, help="the polypatch binary to measure (default: build the release CLI)")
    parser.add_argument("--big", action="store_true", help="add the 1M-line, 1,000-hunk cases (slow)")
    parser.add_argument("--only", help="run only the cases whose name contains this text")
    opts = parser.parse_args()
    binary = opts.binary
    if binary is None:
        subprocess.run(["cargo", "build", "--release", "-p", "polypatch-cli"], cwd=ROOT, check=True)
        binary = ROOT / "target" / "release" / "polypatch"
    binary = binary.resolve()
    if not binary.exists() or shutil.which(str(binary)) is None:
        print(f"no executable at {binary}", file=sys.stderr)
        return 2
    print(f"binary: {binary}")
    header = f"| {'case':<44} | {'exit':>6} | {'wall s':>7} | {'RSS MiB':>8} | {'out KiB':>8} | {'limits (s / MiB / KiB)':<22} | verdict"
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:]))
    broken = 0
    for case in cases(opts.big):
        if opts.only and opts.only not in case.name:
            continue
        res = run(binary, case)
        limits = f"{case.max_seconds:g} / {case.max_rss_mib:g} / {case.max_output_kib:g}"
        verdict = "ok" if not res.broken else "BROKEN: " + "; ".join(res.broken)
        broken += bool(res.broken)
        print(
            f"| {case.name:<44} | {res.code!s:>6} | {res.seconds:>7.2f} | {res.rss_mib:>8.1f} | {res.output_kib:>8.1f} | {limits:<22} | {verdict}",
            flush=True,
        )
    print(f"{broken} case(s) broke a bound" if broken else "every case stayed within its bounds")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
