#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs taken from spec-fixtures/ (run from
# anywhere; existing corpus files are kept). The apply target's seeds follow the input
# layout of `polypatch::fuzzing::apply_patch`: a flags byte (the format: 1 ai-patch,
# 2 unified, 3 ap), the patch, then up to three `\0 path \n content` files from before/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fx="$root/spec-fixtures"
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/{unified,aipatch,ap,detect,apply}

seed() { # seed <target> <dialect> <flags> <case dir> <patch file>
    local target=$1 dialect=$2 flag=$3 case=$4 patch=$5
    local name="$dialect-$(basename "$case")-$(basename "$patch")"
    cp "$patch" "$corpus/$target/$name"
    cp "$patch" "$corpus/detect/$name"
    {
        printf "\\x0$flag"
        cat "$patch"
        if [ -d "$case/before" ]; then
            (cd "$case/before" && find . -type f | sed 's|^\./||' | sort | head -n 3) | while read -r f; do
                printf '\0%s\n' "$f"
                tr -d '\0' < "$case/before/$f"
            done
        fi
    } > "$corpus/apply/$name"
}

for pair in ai-patch:aipatch:1 unified:unified:2 ap:ap:3; do
    IFS=: read -r dialect target flag <<< "$pair"
    for case in "$fx/$dialect"/*/; do
        [ -f "$case/patch" ] && seed "$target" "$dialect" "$flag" "${case%/}" "$case/patch"
    done
    for case in "$fx/equivalence"/*/; do
        [ -f "$case/patch.$dialect" ] && seed "$target" "$dialect" "$flag" "${case%/}" "$case/patch.$dialect"
    done
done
for t in unified aipatch ap detect apply; do
    echo "$t: $(ls "$corpus/$t" | wc -l) inputs"
done
