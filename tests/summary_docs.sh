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
# A summary computed in process (the trace given) and the same summary saved and read back
# (api/summary_read.c) give the same bytes from compare, track, query and report.
r0=$d/hta__trace_filter__sampled_rank-0.json.gz r1=$d/hta__trace_filter__sampled_rank-1.json.gz
if [ -f "$r0" ] && [ -f "$r1" ]; then
    "$PROFQ" summarize "$r0" -o "$work/r0.json" >/dev/null &&
        "$PROFQ" summarize "$r1" -o "$work/r1.json" >/dev/null
    same=1
    for c in "compare @A @B" "compare --format text @A @B" "track @A @B --label L" \
        "query @B --question @GAP" "query @B --question hierarchical" "report @A"; do
        in=() sv=()
        for w in $c; do
            case "$w" in
            @A) in+=("$r0") sv+=("$work/r0.json") ;;
            @B) in+=("$r1") sv+=("$work/r1.json") ;;
            @GAP) in+=("gap before nccl") sv+=("gap before nccl") ;;
            *) in+=("$w") sv+=("$w") ;;
            esac
        done
        "$PROFQ" "${in[@]}" >"$work/in.out" 2>&1
        "$PROFQ" "${sv[@]}" >"$work/sv.out" 2>&1
        if ! cmp -s "$work/in.out" "$work/sv.out" || [ ! -s "$work/in.out" ]; then
            same=0
            echo "FAIL: profq $c: the in-process summaries and the saved ones answer differently"
        fi
    done
    [ $same = 1 ] && passed=$((passed + 1)) || failed=$((failed + 1))
fi
echo "summary_docs: $passed passed, $failed failed"
[ $failed -eq 0 ]
