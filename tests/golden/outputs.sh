#!/usr/bin/env bash
# tests/golden/outputs.sh - every command's output on every shared file, byte for byte.
#
# tests/golden/outputs/commands.txt lists every command of profq on every file of
# ../shared/data and tests/fixtures, in every format, grouping and view (written once by
# make_commands.sh). expected.tsv holds, per command, its exit code and the sha256 and size
# of its stdout and the sha256 of its stderr as recorded. A redesign keeps every one of them:
# this suite fails on the first byte that moved.
#
#   tests/golden/outputs.sh                      compare (the suite; exit 0/1/77)
#   KEEP=DIR tests/golden/outputs.sh             also keep every output in DIR/<n>.{out,err}
#   RECORD=1 REASON="why" tests/golden/outputs.sh
#                                                record anew; REASON is appended to CHANGES.md
#   ONLY="12 40-55" tests/golden/outputs.sh      compare (or record) only these command numbers
#
# Commands run in a scratch directory where data/ is ../shared/data and fixtures/ is
# tests/fixtures, so the paths printed are the same in every checkout; SOURCE_DATE_EPOCH=0
# fixes the timestamps summaries carry.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
dir=$here/outputs
if [ ! -d "$SHARED/data" ]; then
    echo "outputs: SKIP: $SHARED/data is absent (the recorded outputs are of its files)"
    exit 77
fi
case "$PROFQ" in /*) ;; *) PROFQ=$(cd "$(dirname "$PROFQ")" && pwd)/$(basename "$PROFQ") ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-outputs-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/run/s" "$work/run/tt" "$work/res"
ln -s "$SHARED/data" "$work/run/data"
ln -s "$top/tests/fixtures" "$work/run/fixtures"

in_only() {
    [ -z "${ONLY:-}" ] && return 0
    local r
    for r in $ONLY; do
        case "$r" in
        *-*) [ "$1" -ge "${r%-*}" ] && [ "$1" -le "${r#*-}" ] && return 0 ;;
        *) [ "$1" -eq "$r" ] && return 0 ;;
        esac
    done
    return 1
}

# Commands run in order (later ones read the summaries earlier ones wrote), all of them even
# with ONLY, which chooses what is compared or recorded.
n=0
while IFS= read -r line; do
    n=$((n + 1))
    (cd "$work/run" && P=$PROFQ SOURCE_DATE_EPOCH=0 TZ=UTC LC_ALL=C.UTF-8 \
        timeout 300 bash -c "$line" >"$work/res/$n.out" 2>"$work/res/$n.err" </dev/null)
    echo $? >"$work/res/$n.rc"
done <"$dir/commands.txt"

: >"$work/got.tsv"
for k in $(seq 1 "$n"); do
    in_only "$k" || continue
    printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$(cat "$work/res/$k.rc")" \
        "$(sha256sum <"$work/res/$k.out" | cut -c1-64)" "$(wc -c <"$work/res/$k.out")" \
        "$(sha256sum <"$work/res/$k.err" | cut -c1-64)" >>"$work/got.tsv"
done
if [ -n "${KEEP:-}" ]; then
    mkdir -p "$KEEP" && cp "$work"/res/* "$KEEP"/
fi

if [ "${RECORD:-}" = 1 ]; then
    if [ -z "${REASON:-}" ]; then
        echo "outputs: RECORD=1 needs REASON=\"why the outputs change\"" >&2
        exit 2
    fi
    if [ -n "${ONLY:-}" ] && [ -f "$dir/expected.tsv" ]; then
        awk -F'\t' 'NR==FNR {g[$1]=$0; next} ($1 in g) {print g[$1]; delete g[$1]; next}
            {print} END {for (k in g) print g[k]}' \
            "$work/got.tsv" "$dir/expected.tsv" | sort -n >"$work/merged.tsv"
        mv "$work/merged.tsv" "$work/got.tsv"
    fi
    cp "$work/got.tsv" "$dir/expected.tsv"
    printf -- '- %s (%s): %s\n' "$(date -u +%Y-%m-%d)" "${ONLY:-all}" "$REASON" >>"$dir/CHANGES.md"
    echo "outputs: recorded $(wc -l <"$dir/expected.tsv") commands"
    exit 0
fi

same=0 differ=0
while IFS=$'\t' read -r k rc sha bytes esha; do
    exp=$(awk -F'\t' -v k="$k" '$1 == k {print; exit}' "$dir/expected.tsv")
    if [ "$exp" = "$(printf '%s\t%s\t%s\t%s\t%s' "$k" "$rc" "$sha" "$bytes" "$esha")" ]; then
        same=$((same + 1))
        continue
    fi
    differ=$((differ + 1))
    if [ $differ -le 20 ]; then
        echo "DIFF #$k: $(sed -n "${k}p" "$dir/commands.txt")"
        echo "  recorded: exit/sha/bytes/stderr $(echo "$exp" | cut -f2-5 | tr '\t' ' ')"
        echo "  now:      exit/sha/bytes/stderr $rc ${sha:0:12} $bytes ${esha:0:12}"
        head -c 300 "$work/res/$k.err" | sed 's/^/  stderr: /'
    fi
done <"$work/got.tsv"
echo "outputs: $n commands, $same identical, $differ differ"
[ $differ -eq 0 ]
