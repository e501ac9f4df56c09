#!/usr/bin/env python3
"""The public API of the workspace's library crates, one line per item, for review and
for a semver check.

    python3 scripts/public_api.py            # writes api/<crate>.txt
    python3 scripts/public_api.py --check    # compares with api/<crate>.txt, exit 1 on a change
    python3 scripts/public_api.py --count    # how many items of each kind, per crate

It builds each crate's rustdoc JSON with the nightly toolchain (`cargo +nightly rustdoc
-- --output-format json`, all features) and walks it from the crate's root through its
public modules and re-exports: every module, function (with its signature), struct (its
public fields), enum (its variants and their fields), trait (its methods), constant,
type alias and re-export, every inherent method and every trait a public type implements
by hand, and whether each struct, enum and variant is `#[non_exhaustive]`. A re-export of
another crate's item is listed as a `use` line (that crate's listing has the item).

A change to a listing is a change to the API: CI runs `--check`, so a breaking change is a
decision (the listing updated in the same commit), not an accident. Without the nightly
toolchain the check says so and is skipped.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = [
    "polypatch-core",
    "polypatch-aipatch",
    "polypatch-unified",
    "polypatch-ap",
    "polypatch-applydiff",
    "polypatch-aptix",
    "polypatch-search-replace",
    "polypatch-lazy",
    "polypatch-toolcall",
    "polypatch",
    "polypatch-mcp",
]
# Traits implemented by derive or blanket impls that say nothing about the API's shape
# beyond what the type's own lines say; listed only when written by hand would be noise.
AUTO = {"Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe", "Freeze", "StructuralPartialEq"}


def build(crate, target):
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), RUSTDOCFLAGS="")
    subprocess.run(
        ["cargo", "+nightly", "rustdoc", "-q", "-p", crate, "--all-features", "--lib", "--",
         "-Z", "unstable-options", "--output-format", "json"],
        cwd=ROOT, env=env, check=True,
    )
    return json.loads((Path(target) / "doc" / (crate.replace("-", "_") + ".json")).read_text())


class Render:
    def __init__(self, doc):
        self.doc = doc
        self.idx = doc["index"]

    def item(self, i):
        return self.idx.get(str(i))

    def ty(self, t):
        if t is None:
            return "()"
        (k, v), = t.items()
        if k == "primitive":
            return v
        if k == "generic":
            return v
        if k == "resolved_path":
            # By name: where a type is defined inside its crate is not part of the API.
            return v["path"].split("::")[-1] + self.args(v.get("args"))
        if k == "borrowed_ref":
            life = (v["lifetime"] + " ") if v.get("lifetime") else ""
            return "&" + life + ("mut " if v["is_mutable"] else "") + self.ty(v["type"])
        if k == "raw_pointer":
            return ("*mut " if v["is_mutable"] else "*const ") + self.ty(v["type"])
        if k == "slice":
            return "[" + self.ty(v) + "]"
        if k == "array":
            return "[" + self.ty(v["type"]) + "; " + v["len"] + "]"
        if k == "tuple":
            return "(" + ", ".join(self.ty(x) for x in v) + ")"
        if k == "impl_trait":
            return "impl " + " + ".join(self.bound(b) for b in v)
        if k == "dyn_trait":
            return "dyn " + " + ".join(p["trait"]["path"] + self.args(p["trait"].get("args")) for p in v["traits"])
        if k == "qualified_path":
            return "<" + self.ty(v["self_type"]) + (" as " + v["trait"]["path"] if v.get("trait") else "") + ">::" + v["name"]
        if k == "function_pointer":
            return "fn(" + ", ".join(self.ty(x[1]) for x in v["sig"]["inputs"]) + ") -> " + self.ty(v["sig"]["output"])
        return k

    def args(self, a):
        if not a:
            return ""
        if "angle_bracketed" in a:
            ab = a["angle_bracketed"]
            parts = []
            for x in ab["args"]:
                if "type" in x:
                    parts.append(self.ty(x["type"]))
                elif "lifetime" in x:
                    parts.append(x["lifetime"])
                elif "const" in x:
                    parts.append(str(x["const"].get("expr", "_")))
            for c in ab.get("constraints", []):
                binding = c.get("binding", {})
                if "equality" in binding:
                    eq = binding["equality"]
                    parts.append(c["name"] + " = " + (self.ty(eq["type"]) if "type" in eq else "_"))
                else:
                    parts.append(c["name"] + ": " + " + ".join(self.bound(b) for b in binding.get("constraint", [])))
            return "<" + ", ".join(parts) + ">" if parts else ""
        if "parenthesized" in a:
            p = a["parenthesized"]
            return "(" + ", ".join(self.ty(x) for x in p["inputs"]) + ")" + (" -> " + self.ty(p["output"]) if p.get("output") else "")
        return ""

    def bound(self, b):
        if "trait_bound" in b:
            tb = b["trait_bound"]
            return ("?" if tb.get("modifier") == "maybe" else "") + tb["trait"]["path"] + self.args(tb["trait"].get("args"))
        if "outlives" in b:
            return b["outlives"]
        return "use<..>"

    def generics(self, g):
        params = []
        for p in g.get("params", []):
            kind = p["kind"]
            if "lifetime" in kind:
                params.append(p["name"])
            elif "type" in kind:
                if kind["type"].get("is_synthetic"):
                    continue
                bounds = kind["type"].get("bounds", [])
                params.append(p["name"] + (": " + " + ".join(self.bound(b) for b in bounds) if bounds else ""))
            elif "const" in kind:
                params.append("const " + p["name"] + ": " + self.ty(kind["const"]["type"]))
        where = []
        for w in g.get("where_predicates", []):
            if "bound_predicate" in w:
                bp = w["bound_predicate"]
                where.append(self.ty(bp["type"]) + ": " + " + ".join(self.bound(b) for b in bp["bounds"]))
        return ("<" + ", ".join(params) + ">" if params else ""), (" where " + ", ".join(where) if where else "")

    def sig(self, f):
        params, where = self.generics(f["generics"])
        inputs = ", ".join((name + ": " if name != "self" else "") + self.ty(t) for name, t in f["sig"]["inputs"])
        out = f["sig"]["output"]
        header = f.get("header", {})
        pre = ("const " if header.get("is_const") else "") + ("unsafe " if header.get("is_unsafe") else "")
        return pre, params + "(" + inputs + ")" + (" -> " + self.ty(out) if out else "") + where


def non_exhaustive(item):
    return any("non_exhaustive" in (a if isinstance(a, str) else json.dumps(a)) for a in item.get("attrs", []))


def listing(doc):
    r = Render(doc)
    out = set()
    seen = set()

    def fields(path, ids):
        for fid in ids:
            f = r.item(fid)
            if f and f.get("visibility") == "public":
                out.add(f"field {path}.{f['name']}: {r.ty(f['inner']['struct_field'])}")

    def impls(path, ids):
        for iid in ids:
            imp = r.item(iid)
            if not imp:
                continue
            im = imp["inner"]["impl"]
            if im.get("is_synthetic") or im.get("blanket_impl"):
                continue
            if im.get("trait"):
                name = im["trait"]["path"]
                if name in AUTO:
                    continue
                neg = "!" if im.get("is_negative") else ""
                out.add(f"impl {neg}{name}{r.args(im['trait'].get('args'))} for {path}")
                continue
            for mid in im["items"]:
                m = r.item(mid)
                if not m or m.get("visibility") != "public":
                    continue
                if "function" in m["inner"]:
                    pre, s = r.sig(m["inner"]["function"])
                    out.add(f"fn {pre}{path}::{m['name']}{s}")
                elif "assoc_const" in m["inner"] or "constant" in m["inner"]:
                    t = m["inner"].get("assoc_const", m["inner"].get("constant", {})).get("type")
                    out.add(f"const {path}::{m['name']}: {r.ty(t)}")

    def walk(item_id, path):
        it = r.item(item_id)
        if it is None or (item_id, path) in seen:
            return
        seen.add((item_id, path))
        (kind, inner), = it["inner"].items()
        name = it.get("name")
        here = f"{path}::{name}" if path and name else (path or name)
        if kind == "module":
            out.add(f"mod {here}")
            for child in inner["items"]:
                c = r.item(child)
                if c and c.get("visibility") == "public":
                    walk(child, here)
        elif kind == "use":
            target = r.item(inner["id"]) if inner.get("id") is not None else None
            if inner.get("is_glob"):
                out.add(f"use {path}::* = {inner['source']}")
            elif target is not None and target["crate_id"] == 0:
                # Our own item under another name or place: listed where it is reached.
                walk_as(inner["id"], path, inner["name"])
            else:
                summary = doc["paths"].get(str(inner.get("id")), {})
                what = summary.get("kind", "item")
                # Named by its crate and name, not by the private modules it is defined in.
                where = summary.get("path", [inner["source"]])
                shown = where[0] + "::" + where[-1] if len(where) > 1 else where[0]
                out.add(f"use {path}::{inner['name']} = {what} {shown}")
        elif kind == "function":
            pre, s = r.sig(inner)
            out.add(f"fn {pre}{here}{s}")
        elif kind == "struct":
            params, where = r.generics(inner["generics"])
            ne = " #[non_exhaustive]" if non_exhaustive(it) else ""
            k = inner["kind"]
            shape = "unit" if k == "unit" else ("tuple" if "tuple" in k else "plain")
            out.add(f"struct {here}{params}{where} ({shape}){ne}")
            if "plain" in k:
                fields(here, k["plain"]["fields"])
                if k["plain"].get("has_stripped_fields"):
                    out.add(f"field {here}.. (private fields)")
            elif "tuple" in k:
                for n, fid in enumerate(k["tuple"]):
                    f = r.item(fid) if fid is not None else None
                    if f and f.get("visibility") == "public":
                        out.add(f"field {here}.{n}: {r.ty(f['inner']['struct_field'])}")
            impls(here, inner["impls"])
        elif kind == "enum":
            params, where = r.generics(inner["generics"])
            ne = " #[non_exhaustive]" if non_exhaustive(it) else ""
            out.add(f"enum {here}{params}{where}{ne}")
            for vid in inner["variants"]:
                v = r.item(vid)
                vk = v["inner"]["variant"]["kind"]
                vne = " #[non_exhaustive]" if non_exhaustive(v) else ""
                if vk == "plain":
                    out.add(f"variant {here}::{v['name']}{vne}")
                elif "tuple" in vk:
                    tys = [r.ty(r.item(f)["inner"]["struct_field"]) if f is not None else "_" for f in vk["tuple"]]
                    out.add(f"variant {here}::{v['name']}({', '.join(tys)}){vne}")
                else:
                    out.add(f"variant {here}::{v['name']} {{..}}{vne}")
                    fields(f"{here}::{v['name']}", vk["struct"]["fields"])
            impls(here, inner["impls"])
        elif kind == "trait":
            params, where = r.generics(inner["generics"])
            out.add(f"trait {here}{params}{where}")
            for mid in inner["items"]:
                m = r.item(mid)
                if m and "function" in m["inner"]:
                    pre, s = r.sig(m["inner"]["function"])
                    provided = " (provided)" if m["inner"]["function"].get("has_body") else ""
                    out.add(f"trait-fn {pre}{here}::{m['name']}{s}{provided}")
                elif m and "assoc_type" in m["inner"]:
                    out.add(f"trait-type {here}::{m['name']}")
        elif kind in ("constant", "static"):
            t = inner.get("type") or inner.get("constant", {}).get("type") if isinstance(inner, dict) else None
            out.add(f"const {here}: {r.ty(t) if t else '_'}")
        elif kind == "type_alias":
            out.add(f"type {here} = {r.ty(inner['type'])}")
        elif kind == "macro":
            out.add(f"macro {here}")
        else:
            out.add(f"{kind} {here}")

    def walk_as(item_id, path, name):
        it = r.item(item_id)
        saved = it.get("name")
        it["name"] = name
        walk(item_id, path)
        it["name"] = saved

    walk(doc["root"], None)
    return sorted(out)


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--write"
    ok = subprocess.run(["cargo", "+nightly", "--version"], capture_output=True).returncode == 0
    if not ok:
        print("skipped: the public API listing needs the nightly toolchain (rustdoc JSON)")
        return 0
    target = ROOT / "target" / "public-api"
    api = ROOT / "api"
    api.mkdir(exist_ok=True)
    changed = []
    for crate in CRATES:
        lines = listing(build(crate, target))
        text = "".join(line + "\n" for line in lines)
        path = api / f"{crate}.txt"
        if mode == "--count":
            counts = {}
            for line in lines:
                counts[line.split(" ", 1)[0]] = counts.get(line.split(" ", 1)[0], 0) + 1
            print(crate, len(lines), dict(sorted(counts.items())))
        elif mode == "--check":
            old = path.read_text() if path.exists() else ""
            if old != text:
                changed.append(crate)
                import difflib
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), f"api/{crate}.txt (committed)", f"api/{crate}.txt (now)"))
        else:
            path.write_text(text)
    if changed:
        print(f"\nthe public API of {', '.join(changed)} changed: if that is meant, run "
              "`python3 scripts/public_api.py` and commit api/ with the change (a breaking change "
              "is a decision: say it in CHANGELOG.md)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
