#!/usr/bin/env python3
"""Lists the dependencies between the modules of one crate and fails on a cycle.

Issue 27 ("core in folders without cycles"): a module's dependencies are the `crate::`,
`super::` and `self::` paths its code names (in `use` trees and inline), each resolved to
the module that defines the item, through the `pub use` re-exports of the module it is
named from. The graph is checked one folder at a time: a dependency of `a::x` on `b::y`
counts as `a -> b` among the crate root's children, and `a::x -> a::z` among `a`'s. A module
naming an item of its own parent (`super::Thing` from `disk/commit.rs`) or a parent naming its
child's items is the ordinary shape of a Rust module tree and is not an edge. Comments, doc
comments and strings are left out; code under `#[cfg(test)]` too, unless `--tests`.

    python3 scripts/modgraph.py crates/polypatch-core/src            # cycles only; exit 1 on one
    python3 scripts/modgraph.py --edges crates/polypatch-core/src    # and every edge
    python3 scripts/modgraph.py --edges --tests crates/polypatch-core/src

A textual reading, not a compiler's: names brought in by `use super::*` and macros are not
followed, and `#[path]` attributes are not read. Python 3.8+, standard library only.
"""

from __future__ import annotations

import argparse
import os
import re
import sys


def strip(src: str) -> str:
    """Blanks out comments, strings and char literals, keeping every offset and newline."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif m := re.match(r'b?r(#*)"', src[i:i + 260]) if c in "rb" and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")) else None:
            end = '"' + m.group(1)
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == '"' or (c == "b" and src.startswith('b"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_"))):
            j = i + (2 if c == "b" else 1)
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}'), or a lifetime ('a): only the first is blanked.
            m = re.match(r"'(\\(u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'])'", src[i:i + 14])
            if m:
                out.append(" " * m.end())
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def parse_use_tree(text: str) -> list[list[str]]:
    """`crate::a::{b, c::{self, D}}` -> [[crate,a,b], [crate,a,c], [crate,a,c,D]] (aliases dropped)."""
    text = re.sub(r"\s+", "", re.sub(r"\s+as\s+\w+", "", text))
    paths: list[list[str]] = []

    def walk(s: str, prefix: list[str]) -> None:
        depth, start, parts = 0, 0, []
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            if "{" in part:
                head, _, rest = part.partition("{")
                segs = [x for x in head.split("::") if x]
                walk(rest[: rest.rfind("}")], prefix + segs)
            else:
                segs = [x for x in part.split("::") if x]
                if segs == ["self"]:
                    paths.append(prefix)
                else:
                    paths.append(prefix + segs)

    walk(text, [])
    return paths


class Crate:
    def __init__(self, src_dir: str, tests: bool):
        self.modules: dict[tuple, str] = {}  # module path -> file
        self.reexports: dict[tuple, dict[str, list[str]]] = {}  # module -> name -> absolute path
        self.refs: dict[tuple, set[tuple]] = {}  # module -> resolved target modules
        self.raw: dict[tuple, list[tuple[tuple, list[str]]]] = {}  # module -> (scope, path)
        self.tests = tests
        for root, _, files in os.walk(src_dir):
            for f in files:
                if f.endswith(".rs"):
                    rel = os.path.relpath(os.path.join(root, f), src_dir)
                    self.modules[self.module_of(rel)] = os.path.join(root, f)
        # Files that are only reached through a `#[cfg(test)] mod x;` declaration are test code.
        self.test_files: set[tuple] = set()
        for mod in sorted(self.modules, key=len):
            self.read(mod)
        if not tests:
            for mod in self.test_files:
                self.raw.pop(mod, None)

    @staticmethod
    def module_of(rel: str) -> tuple:
        parts = rel[:-3].split(os.sep)
        if parts[-1] in ("lib", "main", "mod"):
            parts = parts[:-1]
        return tuple(parts)

    def read(self, mod: tuple) -> None:
        src = strip(open(self.modules[mod], encoding="utf-8").read())
        # Inline `mod name { ... }` blocks and `#[cfg(test)]` regions, by brace depth.
        scopes: list[tuple[int, tuple, bool]] = []  # (depth at open, module path, is test)
        depth = 0
        pending: tuple | None = None
        self.raw.setdefault(mod, [])
        self.reexports.setdefault(mod, {})
        token = re.compile(r"(#\[cfg\((?:all\()?test\b[^\]]*\]\s*(?:#\[[^\]]*\]\s*)*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*([;{])|[{}]|\b(pub(?:\([^)]*\))?\s+)?use\s+([^;]+);|\b(?:crate|super|self)(?:\s*::\s*\w+)+")
        for m in token.finditer(src):
            text = m.group(0)
            cur_mod = scopes[-1][1] if scopes else mod
            in_test = any(s[2] for s in scopes) or mod in self.test_files
            if m.group(2):
                is_test = bool(m.group(1))
                child = cur_mod + (m.group(2),)
                if m.group(3) == "{":
                    depth += 1
                    scopes.append((depth, child, is_test or in_test))
                elif (is_test or in_test) and child in self.modules:
                    self.test_files.add(child)
                    self.mark_test_children(child)
            elif text == "{":
                depth += 1
            elif text == "}":
                if scopes and scopes[-1][0] == depth:
                    scopes.pop()
                depth -= 1
            elif m.group(5) is not None:
                for path in parse_use_tree(m.group(5)):
                    if not path:
                        continue
                    absolute = self.absolute(cur_mod, path)
                    if m.group(4) and absolute and not in_test:
                        self.reexports.setdefault(cur_mod, {})[path[-1]] = absolute
                    if path[0] in ("crate", "super", "self") and (self.tests or not in_test):
                        self.raw[mod].append((cur_mod, path))
            elif self.tests or not in_test:
                self.raw[mod].append((cur_mod, [x.strip() for x in text.split("::")]))

    def mark_test_children(self, parent: tuple) -> None:
        for other in self.modules:
            if other[: len(parent)] == parent and other != parent:
                self.test_files.add(other)

    def absolute(self, scope: tuple, path: list[str]) -> list[str] | None:
        if path[0] == "crate":
            return path[1:]
        base = list(scope)
        i = 0
        while i < len(path) and path[i] in ("super", "self"):
            if path[i] == "super":
                if not base:
                    return None
                base.pop()
            i += 1
        if i == 0:
            return None  # an external crate or a local name
        return base + path[i:]

    def resolve(self, absolute: list[str], seen: int = 0) -> tuple | None:
        """The file module defining the item (or module) that `absolute` names."""
        mod: tuple = ()
        for k, seg in enumerate(absolute):
            if mod + (seg,) in self.modules:
                mod = mod + (seg,)
                continue
            target = self.reexports.get(mod, {}).get(seg)
            if target is not None and seen < 16:
                return self.resolve(target + absolute[k + 1:], seen + 1)
            return mod
        return mod

    def edges(self) -> dict[tuple, set[tuple]]:
        out: dict[tuple, set[tuple]] = {}
        for mod, refs in self.raw.items():
            for scope, path in refs:
                absolute = self.absolute(scope, path)
                if absolute is None:
                    continue
                target = self.resolve(absolute)
                if target is not None and target != mod:
                    out.setdefault(mod, set()).add(target)
        return out


def lift(a: tuple, b: tuple) -> tuple[tuple, str, str] | None:
    """The edge a -> b as one between two children of their common parent, if it is one."""
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    if k == len(a) or k == len(b):
        return None  # an ancestor and its descendant
    return a[:k], a[k], b[k]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in nodes:
        if v not in index:
            visit(v)
    return found


def name(mod: tuple) -> str:
    return "::".join(mod) or "crate"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src", help="the crate's src directory")
    ap.add_argument("--edges", action="store_true", help="print every module's dependencies")
    ap.add_argument("--tests", action="store_true", help="count #[cfg(test)] code too")
    args = ap.parse_args()
    crate = Crate(args.src, args.tests)
    edges = crate.edges()
    if args.edges:
        for mod in sorted(edges):
            print(f"{name(mod)} -> {', '.join(sorted(name(t) for t in edges[mod]))}")
    levels: dict[tuple, dict[str, set[str]]] = {}
    why: dict[tuple, list[str]] = {}
    for a, targets in edges.items():
        for b in targets:
            lifted = lift(a, b)
            if lifted:
                parent, x, y = lifted
                levels.setdefault(parent, {}).setdefault(x, set()).add(y)
                why.setdefault((parent, x, y), []).append(f"{name(a)} -> {name(b)}")
    bad = 0
    for parent in sorted(levels):
        for comp in cycles(levels[parent]):
            bad += 1
            print(f"cycle in {name(parent)}: {' <-> '.join(comp)}")
            for x in comp:
                for y in comp:
                    for w in why.get((parent, x, y), []):
                        print(f"    {w}")
    if not bad:
        print(f"no module cycles in {args.src} ({len(crate.modules)} files)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
