#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs taken from spec-fixtures/ (run from
# anywhere; existing corpus files are kept). The apply target's seeds follow the input
# layout of `polypatch::fuzzing::apply_patch`: a flags byte (the format: 1 ai-patch,
# 2 unified, 3 ap, 16 applydiff, 32 aptix, 64 search-replace; 0, detect, for tool-call), the patch, then up to three `\0 path \n content` files from before/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fx="$root/spec-fixtures"
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/{unified,aipatch,ap,applydiff,aptix,search_replace,toolcall,lazy,detect,apply}

seed() { # seed <target> <dialect> <flags> <case dir> <patch file>
    local target=$1 dialect=$2 flag=$3 case=$4 patch=$5
    local name="$dialect-$(basename "$case")-$(basename "$patch")"
    cp "$patch" "$corpus/$target/$name"
    cp "$patch" "$corpus/detect/$name"
    {
        printf "\\x$flag"
        cat "$patch"
        if [ -d "$case/before" ]; then
            (cd "$case/before" && find . -type f | sed 's|^\./||' | sort | head -n 3) | while read -r f; do
                printf '\0%s\n' "$f"
                tr -d '\0' < "$case/before/$f"
            done
        fi
    } > "$corpus/apply/$name"
}

for pair in ai-patch:aipatch:01 unified:unified:02 ap:ap:03 applydiff:applydiff:10 aptix:aptix:20 search-replace:search_replace:40 tool-call:toolcall:00; do
    IFS=: read -r dialect target flag <<< "$pair"
    for case in "$fx/$dialect"/*/; do
        [ -f "$case/patch" ] && seed "$target" "$dialect" "$flag" "${case%/}" "$case/patch"
    done
    for case in "$fx/equivalence"/*/; do
        [ -f "$case/patch.$dialect" ] && seed "$target" "$dialect" "$flag" "${case%/}" "$case/patch.$dialect"
    done
done
# Hand-written ApplyDiff seeds (spec-fixtures/applydiff/ adds more): prose around blocks,
# options, CRLF, `<<<`, an empty-from create, a whole-file replace, two blocks of one file.
hand() { # hand <name> <patch> <path> <content>: a parser seed and an apply seed (flags 0x10)
    printf '%b' "$2" > "$corpus/applydiff/hand-$1"
    cp "$corpus/applydiff/hand-$1" "$corpus/detect/applydiff-hand-$1"
    { printf '\x10%b\0%s\n%b' "$2" "$3" "$4"; } > "$corpus/apply/applydiff-hand-$1"
}
hand prose 'The fix:\n\n>>> file: src/app.py\n--- from\ndef main():\n    print(1)\n--- to\ndef main():\n    print(2)\n<\n\nDone.\n' \
    src/app.py 'import os\n\ndef main():\n    print(1)\n'
hand options '>>> file: a.rs | fuzz=0.9 | mode=patch\n--- from\nfn a() {\n    x();\n}\n--- to\nfn a() {\n    y();\n}\n<<<\n' \
    a.rs 'fn a() {\n    x();\n}\n'
hand crlf '>>> file: w.txt\r\n--- from\r\none\r\ntwo\r\n--- to\r\none\r\n2\r\n<\r\n' w.txt 'one\r\ntwo\r\nthree\r\n'
hand create '>>> file: new/n.txt\n--- from\n--- to\nhello\n<\n' other.txt 'x\n'
hand replace '>>> file: r.txt | mode=replace\n--- from\n--- to\nall\nnew\n<\n' r.txt 'old\r\nfile'
hand two '>>> file: t.py\n--- from\na = 1\n--- to\na = 10\n<\n>>> file: t.py\n--- from\n  c = 3\n--- to\n  c = 30\n<\n' \
    t.py 'a = 1\nb = 2\n    c = 3\n'
# Hand-written Aptix seeds (spec-fixtures/aptix/ adds more): both patch shapes mixed, every
# file operation under a root, a BOM and a fence with prose, unicode and escapes.
ahand() { # ahand <name> <patch> <path> <content>: a parser seed and an apply seed (flags 0x20)
    printf '%b' "$2" > "$corpus/aptix/hand-$1"
    cp "$corpus/aptix/hand-$1" "$corpus/detect/aptix-hand-$1"
    { printf '\x20%b\0%s\n%b' "$2" "$3" "$4"; } > "$corpus/apply/aptix-hand-$1"
}
ahand mixed '{"root": ".", "patches": [{"path": "a.cs", "replacements": [{"find": "Old", "replace": "Mid", "limit": "all"}]}, {"path": "a.cs", "find": "Mid()", "replace": "New()", "limit": "once"}]}' \
    a.cs 'void Old() {}\n// Old\n'
ahand ops '{"root": "./src", "files": [{"path": "a.txt", "content": "A\\n"}, {"path": "b.txt", "operation": "replace", "content": "B\\r\\n"}, {"path": "c.txt", "operation": "delete"}, {"path": "d.txt", "operation": "patch", "patches": [{"find": "x\\n", "replace": "y\\n"}]}, {"path": "e.txt", "operation": "gitPatch", "content": "--- a/e.txt\\n+++ b/e.txt\\n@@ -1 +1 @@\\n-e\\n+E\\n"}]}' \
    src/e.txt 'e\n'
ahand fence '\xef\xbb\xbfSure, here it is:\n\n```json\n{\n  "root": "lib",\n  "files": [\n    {"path": "\\u00e9t\\u00e9.txt", "operation": "create", "content": "caf\\u00e9 \\"q\\"\\t\\\\\\n"}\n  ]\n}\n```\n\nDone.\n' \
    lib/x.txt 'x\n'
# Lazy snippets: the `lazy` target's input is `snippet \0 content` (the content written at
# every path the snippet names). From the equivalence cases' `patch.lazy` with the first
# file of before/, and hand-written ones (markers of each comment style, a bare snippet,
# Morph's tags, a Continue call is in the toolcall corpus).
lazy_seed() { # lazy_seed <name> <patch file> <content file>
    cp "$2" "$corpus/detect/lazy-$1"
    { cat "$2"; printf '\0'; tr -d '\0' < "$3"; } > "$corpus/lazy/$1"
}
lazy_case() { # lazy_case <case dir> <patch file>: the first file of before/ as the content
    local first
    first=$( (cd "$1/before" 2>/dev/null && find . -type f | sed 's|^\./||' | sort | head -n 1) || true)
    [ -n "$first" ] && lazy_seed "$(basename "$1")" "$2" "$1/before/$first"
    return 0
}
for case in "$fx/lazy"/*/; do [ -f "$case/patch" ] && lazy_case "${case%/}" "$case/patch"; done
for case in "$fx/equivalence"/*/; do [ -f "$case/patch.lazy" ] && lazy_case "${case%/}" "$case/patch.lazy"; done
lhand() { # lhand <name> <snippet> <content>
    printf '%b\0%b' "$2" "$3" > "$corpus/lazy/hand-$1"
}
lhand python '```python src/calc.py\n# ... existing code ...\ndef add(a, b):\n    return a + b\n\ndef mul(a, b):\n# ... existing code ...\n```\n' \
    'import os\n\ndef add(a, b):\n    return a - b\n\ndef mul(a, b):\n    return a * b\n'
lhand braces 'x.js\n```js\n// ...existing code...\nfunction f() {\n  log();\n  return 1;\n}\n/* ... */\n```\n' \
    'function f() {\n  return 1;\n}\n\nfunction g() {\n  return 1;\n}\n'
lhand bare 'def mul(a, b):\n    return a * b\n\ndef neg(a):\n    return -a\n' 'def mul(a, b):\n    return a * b\n'
lhand morph '<code>old</code>\n<update>\n<!-- ... -->\n## Two\ntext\n<!-- ... -->\n</update>\n' '# One\n\n## Two\nold\n\n## Three\n'
lhand crlf '```text a.txt\r\n...\r\nb\r\nB2\r\nc\r\n...\r\n```\r\n' 'a\r\nb\r\nc\r\nd\r\n'
for t in unified aipatch ap applydiff aptix lazy detect apply; do
    echo "$t: $(ls "$corpus/$t" | wc -l) inputs"
done
