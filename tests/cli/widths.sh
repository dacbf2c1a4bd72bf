#!/usr/bin/env bash
# tests/cli/widths.sh - default text fits a terminal (issue 16 item 10): every text-producing
# command (info, tools, scan, nsys and its sections, memory-viewer, memory text/md, heap, memory-profile, ops by op,
# category and program, roofline, tt summary) on every file of ../shared/data (xplane, hlo,
# trace-json, nsys, tenstorrent) and tests/fixtures, and the summary family (report, query,
# compare and track text on the summaries of the traces and XPlanes), prints no line wider than 120 columns
# (characters, not bytes: "…" is one column). With --wide, names are whole: no "…" at all,
# and the op and program names of the JSON appear in the text. memory --format tsv is for
# programs (one line per row, in bytes) and is not checked. Exit 0 pass, 1 fail, 77 skip
# without ../shared/data (tests/fixtures are still checked, then skip is not claimed).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
case "$PROFQ" in /*) ;; *) PROFQ=$PWD/$PROFQ ;; esac
SHARED=${SHARED:-$top/../shared}
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-widths-XXXXXX")
trap 'rm -rf "$work"' EXIT
export LC_ALL=C.UTF-8
fail=0 runs=0 widest=0 last_rc=0
# Paths as a user types them (data/..., fixtures/...): commands run in a scratch directory.
mkdir -p "$work/run"
ln -s "$top/tests/fixtures" "$work/run/fixtures"
[ -d "$SHARED/data" ] && ln -s "$SHARED/data" "$work/run/data"
files=()
for f in "$work"/run/fixtures/jax_cpu/*/*.hlo.pb "$work"/run/data/xplane/*.xplane.pb \
    "$work"/run/data/xplane/mi300x8_jax_conv_legacy "$work"/run/data/hlo/* \
    "$work"/run/data/trace-json/* "$work"/run/data/nsys/*; do
    [ -e "$f" ] && files+=("${f#"$work"/run/}")
done
# cols FILE: the widest line of FILE in characters
cols() { python3 -c 'import sys; print(max([len(l) for l in open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")] + [0]))' "$1"; }
# check WHAT CMD...: runs CMD (any exit status) and fails when a line of its stdout is wider
# than 120 columns (stderr names the input as given and is not checked)
check() {
    local what=$1
    shift
    (cd "$work/run" && "$@" >"$work/out" 2>/dev/null </dev/null)
    last_rc=$?
    runs=$((runs + 1))
    local w
    w=$(cols "$work/out")
    [ "$w" -gt "$widest" ] && widest=$w
    if [ "$w" -gt 120 ]; then
        fail=1
        echo "FAIL: $w columns: $what"
        python3 -c 'import sys
for l in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if len(l.rstrip("\n")) > 120: print("  " + l.rstrip("\n")[:160]); break' "$work/out"
    fi
}
for f in "${files[@]}"; do
    b=$f
    for c in info tools scan memory-profile heap roofline nsys; do
        check "$c $b" "$PROFQ" "$c" --format text "$f"
    done
    for fmt in text md; do check "memory --format $fmt $b" "$PROFQ" memory --format "$fmt" "$f"; done
    for by in op category program; do check "ops --by $by $b" "$PROFQ" ops --by "$by" "$f"; done
    check "memory-viewer $b" "$PROFQ" memory-viewer --format text "$f"
    (cd "$work/run" && "$PROFQ" memory-viewer --format json "$f" 2>/dev/null) | python3 -c 'import json, sys
for m in json.load(sys.stdin).get("modules", []): print(m["module"])' 2>/dev/null >"$work/mods"
    while IFS= read -r m; do
        check "memory-viewer --module $m $b" "$PROFQ" memory-viewer --format text --module "$m" "$f"
    done <"$work/mods"
done
# every section of profq nsys on the nsys-jax archives (the default above prints them all)
for f in "$work"/run/data/nsys/*.zip; do
    [ -e "$f" ] || continue
    for sec in modules compile runtime opcodes collectives variability bias heap flame; do
        check "nsys --section $sec ${f#"$work"/run/}" "$PROFQ" nsys --section "$sec" "${f#"$work"/run/}"
    done
done
for f in "$work"/run/data/tenstorrent/*.log; do
    [ -e "$f" ] && check "tt summary ${f#"$work"/run/}" "$PROFQ" tt summary "${f#"$work"/run/}"
done

# The summary family (issue 16 items 10, 13): report (markdown), query, compare and track text
# on the summary of every trace-json and xplane file (compare and track on neighbouring pairs).
# These must succeed (exit 0, or 1 for a failed track gate) and print something: a command
# that refuses --format text fails here too.
# check_ok WHAT CMD...: check, and the command exits 0 or 1 with a non-empty stdout
check_ok() {
    local what=$1
    shift
    check "$what" "$@"
    local rc=$last_rc
    if [ $rc -gt 1 ] || [ ! -s "$work/out" ]; then
        fail=1
        echo "FAIL: exit $rc or empty output: $what"
    fi
}
mkdir -p "$work/run/sum"
sums=()
for f in "${files[@]}"; do
    case "$f" in data/trace-json/* | data/xplane/*) ;; *) continue ;; esac
    s=sum/${#sums[@]}.json
    (cd "$work/run" && "$PROFQ" summarize "$f" -o "$s" >/dev/null 2>&1) || continue
    sums+=("$s")
    check_ok "report $f" "$PROFQ" report "$s"
    for q in 'top ops' 'is communication dominating compute' 'collective breakdown' \
        'gap before all-reduce' 'hierarchical regions' 'memory-bound ops' 'what to optimize'; do
        check_ok "query '$q' $f" "$PROFQ" query --format text --question "$q" "$s"
    done
done
for ((i = 1; i < ${#sums[@]}; i++)); do
    a=${sums[$((i - 1))]} b=${sums[$i]}
    check_ok "compare $a $b" "$PROFQ" compare --format text "$a" "$b"
    check_ok "track $a $b" "$PROFQ" track --format text "$a" "$b"
done
# --wide keeps the report's and the compare text's names whole
for s in "${sums[@]}"; do
    (cd "$work/run" && "$PROFQ" report --wide "$s") >"$work/wide" 2>/dev/null
    if grep -q '…' "$work/wide"; then
        fail=1
        echo "FAIL: report --wide shortened a name: $s"
    fi
done
if [ ${#sums[@]} -gt 1 ]; then
    (cd "$work/run" && "$PROFQ" compare --wide --format text "${sums[0]}" "${sums[1]}") >"$work/wide" 2>/dev/null
    if grep -q '…' "$work/wide"; then
        fail=1
        echo "FAIL: compare --wide shortened a name"
    fi
fi

# --wide keeps names whole: no "…", and every op and program name of the JSON is in the text.
cd "$work/run" || exit 1
for f in "${files[@]}"; do
    b=$f
    "$PROFQ" ops --wide --format text "$f" >"$work/wide" 2>/dev/null || continue
    "$PROFQ" ops --format json "$f" >"$work/json" 2>/dev/null || continue
    if grep -q '…' "$work/wide"; then
        fail=1
        echo "FAIL: ops --wide shortened a name: $b"
    fi
    python3 - "$work/json" "$work/wide" "$b" <<'PY' || fail=1
import json, sys
j, text, name = json.load(open(sys.argv[1])), open(sys.argv[2], encoding="utf-8").read(), sys.argv[3]
names = [o["name"] for o in j.get("ops", [])] + [p["name"] for p in j.get("programs", [])]
missing = [n for n in names if n not in text]
if missing:
    print(f"FAIL: ops --wide lacks {len(missing)} whole names on {name}, e.g. {missing[0]!r}")
    sys.exit(1)
PY
    for c in roofline memory memory-viewer; do
        "$PROFQ" $c --wide --format text "$f" >"$work/wide" 2>/dev/null
        if grep -q '…' "$work/wide"; then
            fail=1
            echo "FAIL: $c --wide shortened a name: $b"
        fi
    done
done
[ -d "$SHARED/data" ] || echo "widths: $SHARED/data is absent: only tests/fixtures checked"
echo "widths: $runs text outputs, widest line $widest columns (limit 120)"
[ $runs -gt 0 ] || fail=1
exit $fail
