#!/usr/bin/env bash
# tests/summary_docs.sh - profq's own summaries are always accepted back (issue 16 item 3):
# for every trace of ../shared/data/trace-json, `summarize -o S` then report, query, compare
# and track on S exit 0 and answer from the summary (not by summarising it as a trace).
# Before the fix, 7 of the 20 traces' summaries were refused: a byte search for
# "schema_version" in the first 64 KiB missed the key that sorted keys put near the end.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
d=$SHARED/data/trace-json
[ -d "$d" ] || { echo "summary_docs: SKIP: $d is absent"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-summary-docs-XXXXXX")
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=0
passed=0 failed=0
n=0
for f in "$d"/*; do
    case "$f" in *_et.json.gz | *memory_timeline.raw.gz) continue ;; esac
    n=$((n + 1))
    s=$work/$n.json
    "$PROFQ" summarize "$f" -o "$s" >/dev/null 2>&1 || { failed=$((failed + 1)); echo "FAIL: summarize $f"; continue; }
    if "$PROFQ" report "$s" 2>"$work/err" | head -1 | grep -q '^# Profile Report (profile_summary.v1)$' &&
        "$PROFQ" query "$s" --question "top ops" >/dev/null 2>>"$work/err" &&
        "$PROFQ" compare "$s" "$s" >/dev/null 2>>"$work/err" &&
        "$PROFQ" track "$s" "$s" >/dev/null 2>>"$work/err"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $(basename "$f"): its summary was not accepted back ($(head -c 200 "$work/err"))"
    fi
done
echo "summary_docs: $passed passed, $failed failed"
[ $failed -eq 0 ]
