#!/usr/bin/env bash
# tests/cli/summary_text.sh - text output of the summary family (issue 16 items 10, 11, 13):
# compare, track and query take --format text|json (text on a terminal, JSON in pipes, so
# piped bytes stay as they were); a failed track gate prints one stderr line per failed
# threshold (metric, value, threshold, baseline with units); report prints times with units
# and C++ region paths with "::". Exit 0 pass, 1 fail, 77 skip without ../shared/data.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-sumtext-XXXXXX")
trap 'rm -rf "$work"' EXIT
export LC_ALL=C.UTF-8 SOURCE_DATE_EPOCH=0
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
a_in=$SHARED/data/trace-json/hta__trace_filter__sampled_rank-0.json.gz
b_in=$SHARED/data/trace-json/hta__trace_filter__sampled_rank-1.json.gz
if [ ! -f "$a_in" ] || [ ! -f "$b_in" ]; then
    echo "summary_text: SKIP: $SHARED/data/trace-json is absent (the inputs of these checks)"
    exit 77
fi
a=$work/a.json b=$work/b.json
"$PROFQ" summarize "$a_in" -o "$a" >/dev/null && "$PROFQ" summarize "$b_in" -o "$b" >/dev/null ||
    { echo "FAIL: summarize"; exit 1; }
# widest FILE: its widest line in characters
widest() { python3 -c 'import sys; print(max([len(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")] + [0]))' "$1"; }
is_json() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

# --- 1. --format text|json of compare, track, query ------------------------------------------
for c in "compare $a $b" "track $a $b" "query $a --question top-ops" "query $a --question regions"; do
    set -- $c
    cmd=$1
    shift
    "$PROFQ" "$cmd" "$@" >"$work/piped" 2>/dev/null
    "$PROFQ" "$cmd" --format json "$@" >"$work/json" 2>/dev/null
    "$PROFQ" "$cmd" --format text "$@" >"$work/text" 2>/dev/null
    rc=$?
    # piped: JSON, the same bytes as --format json (track: but for its recorded_at_utc)
    if is_json "$work/piped" && is_json "$work/json"; then ok; else bad "$cmd: piped or --format json is not JSON"; fi
    if [ "$cmd" != track ]; then
        cmp -s "$work/piped" "$work/json" && ok || bad "$cmd: piped output differs from --format json"
    fi
    if [ $rc -le 1 ] && [ -s "$work/text" ] && ! is_json "$work/text"; then ok; else bad "$cmd --format text: exit $rc, not text"; fi
    w=$(widest "$work/text")
    [ "$w" -le 120 ] && ok || bad "$cmd --format text: $w columns"
    # figures carry units: a time in µs/ms/s
    grep -Eq '[0-9] (µs|ms|s)( |$)' "$work/text" && ok || bad "$cmd --format text: no time with a unit"
    "$PROFQ" "$cmd" --format text --wide "$@" >"$work/wide" 2>/dev/null
    grep -q '…' "$work/wide" && bad "$cmd --wide shortened a name" || ok
done
grep -q 'steady_state_median_before: 615.120 ms' <("$PROFQ" compare --format text "$a" "$b") && ok ||
    bad "compare text: steady-state median not 615.120 ms"
grep -q '^  communication: -0.40%$' <("$PROFQ" compare --format text "$a" "$b") && ok ||
    bad "compare text: breakdown share delta not a percentage"
"$PROFQ" compare --format yaml "$a" "$b" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && grep -q "expected text or json" "$work/err" && ok || bad "compare --format yaml: exit $rc"

# --- 2. text is the default on a terminal --------------------------------------------------
for c in "compare $a $b" "query $a --question top-ops"; do
    script -qec "$PROFQ $c" /dev/null >"$work/tty" 2>&1 </dev/null
    if [ -s "$work/tty" ] && ! grep -q '^{' "$work/tty" && grep -q 'ms' "$work/tty"; then ok; else
        bad "${c%% *} on a terminal is not text: $(head -c 200 "$work/tty")"
    fi
done

# --- 3. a failed track gate: exit 1, one stderr line per failed threshold -------------------
"$PROFQ" track "$a" "$b" --max-step-median-regression-pct 0.1 --max-step-p90-regression-pct 0.5 \
    >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "failing track: exit $rc"
[ "$(grep -c '' "$work/err")" -eq 2 ] && ok || bad "failing track: $(grep -c '' "$work/err") stderr lines, want 2"
grep -Eq '^track: fail: steady-state median step time \(steady_state_median_regression_pct\) regressed \+0\.67%, threshold 0\.10%; baseline 615\.120 ms, after 619\.271 ms$' "$work/err" &&
    ok || bad "failing track: median line: $(head -1 "$work/err")"
grep -Eq '^track: fail: steady-state p90 step time \(steady_state_p90_regression_pct\) regressed \+1\.13%, threshold 0\.50%; baseline 621\.366 ms, after 628\.365 ms$' "$work/err" &&
    ok || bad "failing track: p90 line: $(tail -1 "$work/err")"
is_json "$work/out" && ok || bad "failing track: stdout in a pipe is not the JSON record"
# only the median fails: one line
"$PROFQ" track "$a" "$b" --max-step-median-regression-pct 0.1 >/dev/null 2>"$work/err"
[ "$(grep -c '' "$work/err")" -eq 1 ] && grep -q 'steady_state_median_regression_pct' "$work/err" && ok ||
    bad "track, median only: $(cat "$work/err")"
# a passing gate: exit 0, stderr empty
"$PROFQ" track "$a" "$b" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$work/err" ] && ok || bad "passing track: exit $rc, stderr $(head -c 200 "$work/err")"

# --- 4. report: units and :: ----------------------------------------------------------------
"$PROFQ" report "$a" >"$work/report.md"
grep -q '^- Median: 615.120 ms$' "$work/report.md" && ok || bad "report: median without its unit"
grep -q '`void at::native`' "$work/report.md" && ok || bad "report: region path of a C++ name lost its ::"
grep -q 'void at=>' "$work/report.md" && bad "report: a C++ name split with =>" || ok
grep -q '^- Total gap: 1.356 s$' "$work/report.md" && ok || bad "report: evidence gap without its unit"
w=$(widest "$work/report.md")
[ "$w" -le 120 ] && ok || bad "report: $w columns"
"$PROFQ" report --wide "$a" >"$work/wide.md"
python3 - "$a" "$work/wide.md" <<'PY' && ok || bad "report --wide: names not whole"
import json, sys
doc, text = json.load(open(sys.argv[1])), open(sys.argv[2], encoding="utf-8").read()
names = [o["name"] for o in doc["hot_ops"][:10]]
missing = [n for n in names if n not in text]
sys.exit(1 if missing or "…" in text else 0)
PY

echo "summary_text: $pass passed, $fail failed"
[ $fail -eq 0 ]
