#!/usr/bin/env bash
# tests/wrong_inputs.sh - a file of another kind gets exit 3 and one line that says what was
# found and what the command takes (issue 16 item 9): an Nsight Systems .nsys-rep is named
# as such with the command that makes it readable (it used to be "a corrupt XSpace"); report,
# query and summarize name the inputs they take (a summary; a trace JSON, XPlane or profile
# directory) instead of "expected an XSpace protobuf or an HloProto".
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
d=$SHARED/data
[ -d "$d/nsys" ] || { echo "wrong_inputs: SKIP: $d is absent"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-wrong-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
# expect LABEL PATTERN CMD...: exit 3, nothing on stdout, one stderr line matching PATTERN.
expect() {
    local label=$1 pat=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ $rc -eq 3 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
        grep -q -- "$pat" "$work/err"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $label: exit $rc, stderr: $(head -c 300 "$work/err")"
    fi
}
for f in "$d"/nsys/*.nsys-rep; do
    for c in info scan tools ops memory-viewer summarize report; do
        expect "$c $(basename "$f")" "found an Nsight Systems report (.nsys-rep).*nsys export --type sqlite" \
            "$PROFQ" $c "$f"
    done
done
log=$d/tenstorrent/qwen_run_noconsteval.log
sq=$(ls "$d"/nsys/*.sqlite | head -1)
for f in "$log" "$sq"; do
    expect "summarize $(basename "$f")" \
        "expected a trace-event JSON (.json, .json.gz), an XSpace (\*.xplane.pb) or a profile directory to summarize, found" \
        "$PROFQ" summarize "$f"
    for c in report "query --question x"; do
        # shellcheck disable=SC2086
        expect "$c $(basename "$f")" \
            "expected a profile_summary.v1 JSON, or a trace JSON, XPlane or profile directory to summarize, found" \
            "$PROFQ" $c "$f"
    done
done
# (A Tenstorrent log is a profile source since the model redesign: tests/tt_model.sh; an
# Nsight SQLite export since issue 12: tests/nsys/sqlite.sh.)
echo "wrong_inputs: $passed passed, $failed failed"
[ $failed -eq 0 ]
