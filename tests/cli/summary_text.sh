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

# --- 5. the text of compare, track and query, byte for byte ---------------------------------
# On the two summaries above, an XPlane's and five edited copies of the first (long C++
# names, nulls, empty lists, several step classes, rows whose table does not fit 120
# columns), every question kind, text and --wide: stdout, stderr and exit code of each
# command against summary_text.sha256 (recorded with the binary of 3aac841, before the text
# was written from the result structs; RECORD=1 records anew). Paths are relative to a
# scratch directory, so the bytes do not depend on the checkout.
x_in=$SHARED/data/xplane/mi300x8_jax_conv.xplane.pb
sums=$top/tests/cli/summary_text.sha256
mkdir -p "$work/run/e" && ln -s "$SHARED/data" "$work/run/data"
(
    cd "$work/run" || exit 1
    "$PROFQ" summarize data/trace-json/hta__trace_filter__sampled_rank-0.json.gz -o a.json &&
        "$PROFQ" summarize data/trace-json/hta__trace_filter__sampled_rank-1.json.gz -o b.json &&
        { [ ! -f "$x_in" ] || "$PROFQ" summarize data/xplane/mi300x8_jax_conv.xplane.pb -o x.json; }
) >/dev/null 2>&1 || bad "summarize in the scratch directory"
python3 - "$work/run/a.json" "$work/run/e" <<'PY' || bad "edited summaries"
import copy, json, sys
d = json.load(open(sys.argv[1]))
def w(name, doc):
    json.dump(doc, open(f"{sys.argv[2]}/{name}.json", "w"), indent=2, sort_keys=True)
name = ("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<"
        "at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&)::{lambda(int)#1}>(int, "
        + "x" * 200 + ")")
L = copy.deepcopy(d)  # long names and paths, markdown characters, long prose
for i, h in enumerate(L["hot_ops"]):
    h["name"], h["canonical_name"] = name + str(i), "canon|`" + name
    h["shape_signature"] = "[" + ",".join(["[1024,1024]"] * 20) + "]"
for f in L["semantic_families"]:
    f["example_op"], f["dominant_shape_signature"] = name, "s" * 150
    f["flop_proxy_total"], f["time_per_flop_proxy"] = 1.5e12, 2.5e-9
for g in L["gap_before_ops"][:5]:
    g["name"], g["marker_op"] = name, "m" * 140
for c in L["gap_region_contexts"][:5]:
    c["op_name"], c["region_path"] = name, "aten::" + "=>".join("seg%d" % k for k in range(40))
for r in L["hierarchical_regions"][:6]:
    r["path"] = "at=>native=>" + "q" * 150
L["run_metadata"]["run_id"], L["trace_provenance"]["trace_sha256"] = "run-" + "r" * 150, "f" * 64
for c in L["optimization_candidates"]:
    c["rationale"] = " ".join(["word"] * 80) + " " + "z" * 300
    c["evidence"].append("e" * 400)
w("long", L)
N = copy.deepcopy(d)  # nulls where the document allows them
for k in ("all_steps", "steady_state_steps"):
    for s in N["step_time"][k]:
        if s != "count":
            N["step_time"][k][s] = None
for c in N["step_time"]["classes"]:
    c["periodicity"], c["representative_duration"] = 3, None
for h in N["hot_ops"][:3]:
    h["name"] = h["avg_duration"] = h["category"] = None
for f in N["semantic_families"]:
    f["example_op"] = f["share_of_total"] = None
N["run_metadata"]["run_id"] = N["trace_provenance"]["trace_sha256"] = None
for c in N["time_breakdown"].values():
    if isinstance(c, dict):
        c["share_of_total"] = None
for g in N["gap_before_ops"][:2]:
    g["name"] = g["max_gap_duration"] = None
for c in N["gap_region_contexts"][:2]:
    c["region_path"] = None
w("nulls", N)
E = copy.deepcopy(d)  # every list empty
for k in ("hot_ops", "semantic_families", "communication_ops", "gap_before_ops",
          "hierarchical_regions", "gap_region_contexts", "device_op_region_aggregates",
          "optimization_candidates"):
    E[k] = []
E["step_time"]["classes"], E["trace_provenance"]["run_ids"] = [], []
w("empty", E)
M = copy.deepcopy(d)  # three step classes, another run, changed ops
base = M["step_time"]["classes"][0]
M["step_time"]["classes"] = []
for i, nm in enumerate(["typical", "slow", "outlier-with-a-rather-long-class-name"]):
    c = copy.deepcopy(base)
    c["name"], c["periodicity"] = nm, (i + 2) if i else None
    c["representative_step"], c["fraction_of_steady"] = 100 + i, 0.25 * (i + 1)
    M["step_time"]["classes"].append(c)
M["run_metadata"]["run_id"], M["trace_provenance"]["trace_sha256"] = "other-run", "a" * 64
for c in M["communication_ops"]:
    c["total_duration"] *= 3
for h in M["hot_ops"]:
    h["exclusive_duration"] *= 1.7
    h["flop_proxy_per_invocation"] = 1234567.0
w("more", M)
O = copy.deepcopy(d)  # a first row with a null name: its table may not shorten it
O["hierarchical_regions"][0]["path"] = None
for r in O["hierarchical_regions"][1:4]:
    r["path"] = "p" * 300
for c in O["optimization_candidates"]:
    c["evidence"], c["suggestions"], c["title"] = [], [], None
O["optimization_candidates"].append({"candidate_id": None, "title": "t " * 100, "rationale": None,
                                     "evidence": ["a|b`c"], "suggestions": ["x" * 500]})
for g in O["gap_before_ops"][:3]:
    g["marker_op"] = g["avg_gap_duration"] = None
O["gap_region_contexts"][0]["op_name"] = None
O["gap_region_contexts"][0]["region_path"] = "at=>native=>foo<int>"
O["communication_ops"] = []
O["hot_ops"][0]["count"], O["hot_ops"][0]["shape_signature"] = 0, "x" * 400
w("odd", O)
PY
qs=("top ops" "is communication dominating compute" "collective breakdown" "gap before all-reduce"
    "gap before nccl" "what is the gap before iota.296?" "gap before" "context for gap of copy.1"
    "context for gap of ncclKernel" "hierarchical regions" "memory-bound ops" "did it regress"
    "what is the step time")
got=$work/got.sha256
: >"$got"
# one NAME ARGS...: the sha256 of the command's stdout, stderr and exit code, under NAME
one() {
    local name=$1
    shift
    (cd "$work/run" && "$PROFQ" "$@" >"$work/o" 2>"$work/e")
    echo "rc=$?" >>"$work/e"
    echo "$(cat "$work/o" "$work/e" | sha256sum | cut -c1-64) $name" >>"$got"
}
for x in a b x e/long e/nulls e/empty e/more e/odd; do
    [ -f "$work/run/$x.json" ] || continue
    for m in text wide; do
        v=(--format text)
        [ $m = wide ] && v+=(--wide)
        for i in "${!qs[@]}"; do
            one "query.$x.$i.$m" query "$x.json" --question "${qs[$i]}" "${v[@]}"
        done
        one "query-top3.$x.$m" query "$x.json" --question "top ops" --top-k 3 "${v[@]}"
        one "compare.$x.$m" compare a.json "$x.json" "${v[@]}"
        one "compare-back.$x.$m" compare "$x.json" a.json --top-k 2 "${v[@]}"
        one "track.$x.$m" track a.json "$x.json" --label "L $x" "${v[@]}"
        one "track-fail.$x.$m" track "$x.json" b.json --label "$(printf 'long%.0s' {1..50})" \
            --max-step-median-regression-pct -100 --max-step-p90-regression-pct -100 \
            --max-communication-share-regression-abs -1 --max-stall-share-regression-abs -1 "${v[@]}"
    done
done
if [ "${RECORD:-}" = 1 ]; then
    cp "$got" "$sums"
    echo "summary_text: recorded $(grep -c '' "$sums") outputs in $sums"
fi
if [ -f "$x_in" ] && cmp -s "$got" "$sums"; then
    ok
elif [ -f "$x_in" ]; then
    bad "text of compare/track/query differs from $sums in $(diff "$got" "$sums" | grep -c '^<') of $(grep -c '' "$got") commands: $(diff "$got" "$sums" | grep '^<' | head -5 | cut -c68- | tr '\n' ' ')"
fi

echo "summary_text: $pass passed, $fail failed"
[ $fail -eq 0 ]
