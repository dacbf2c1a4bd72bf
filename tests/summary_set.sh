#!/usr/bin/env bash
# tests/summary_set.sh - several trace files of one job are one profile with one source per
# file (issue 11): `profq summarize DIR` on a folder of the two sampled-rank traces gives
# profq.summary_set.v1 with two summaries and the cross-source table; each embedded summary,
# written as the seed writes (json.dumps indent=2 sort_keys), is byte for byte the summary of
# that file alone; the table's step medians are the summaries' own and the slowest source is
# the one with the largest median; no file is dropped (a third rank is a third source); info,
# ops, roofline, scan and tools of the folder are those of its two files named.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
d=$SHARED/data/trace-json
if [ ! -f "$d/hta__trace_filter__sampled_rank-0.json.gz" ]; then
    echo "summary_set: SKIP: $d is absent"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-summary-set-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ranks"
cp "$d"/hta__trace_filter__sampled_rank-[01].json.gz "$work/ranks/"
export SOURCE_DATE_EPOCH=0
cd "$work" || exit 1
fail=0
"$PROFQ" summarize ranks >set.json || { echo "FAIL: summarize ranks: exit $?"; exit 1; }
for r in 0 1; do
    "$PROFQ" summarize "ranks/hta__trace_filter__sampled_rank-$r.json.gz" >"single-$r.json" ||
        { echo "FAIL: summarize rank $r: exit $?"; exit 1; }
done
python3 - <<'PY' || fail=1
import json, sys
s = json.load(open("set.json"))
fails = []
if s.get("schema") != "profq.summary_set.v1":
    fails.append("schema %r" % s.get("schema"))
sums = s["summaries"]
rows = s["cross_source"]["sources"]
if len(sums) != 2 or len(rows) != 2:
    fails.append("%d summaries, %d rows, want 2 and 2" % (len(sums), len(rows)))
for r in range(min(2, len(sums))):
    want = open("single-%d.json" % r).read()
    got = json.dumps(sums[r], indent=2, sort_keys=True) + "\n"
    if got != want:
        fails.append("rank %d: the embedded summary differs from the file's own summary" % r)
    med = sums[r]["step_time"]["steady_state_steps"]["median"]
    if rows[r]["step_median_us"] != med or not rows[r]["path"].endswith("rank-%d.json.gz" % r):
        fails.append("row %d: %r, summary median %r" % (r, rows[r], med))
slow = max(rows, key=lambda x: x["step_median_us"])["path"]
if s["cross_source"]["slowest_source"] != slow:
    fails.append("slowest %r, want %r" % (s["cross_source"]["slowest_source"], slow))
for f in fails:
    print("FAIL: " + f)
sys.exit(1 if fails else 0)
PY
# The other commands take the folder as the files it holds: one source per rank, and the
# output of the folder is that of the two files given by name.
f0=ranks/hta__trace_filter__sampled_rank-0.json.gz f1=ranks/hta__trace_filter__sampled_rank-1.json.gz
n=$("$PROFQ" info --format json --no-hash ranks | python3 -c 'import json,sys; print(" ".join(s["path"] for s in json.load(sys.stdin)["sources"]))')
[ "$n" = "$f0 $f1" ] || { echo "FAIL: info ranks gave the sources '$n'"; fail=1; }
for cmd in "info --no-hash" ops roofline scan "tools"; do
    "$PROFQ" $cmd ranks >dir.out 2>&1; a=$?
    "$PROFQ" $cmd "$f0" "$f1" >files.out 2>&1; b=$?
    [ $a -eq 0 ] && [ $a -eq $b ] && cmp -s dir.out files.out ||
        { echo "FAIL: profq $cmd ranks (exit $a) differs from the two files (exit $b)"; fail=1; }
done
cp "$SHARED"/data/trace-json/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz ranks/rank-2.json.gz
n=$("$PROFQ" summarize ranks | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["summaries"]))')
[ "$n" = 3 ] || { echo "FAIL: three files gave $n summaries"; fail=1; }
[ $fail -eq 0 ] && echo "summary_set: 3 passed, 0 failed" || echo "summary_set: failed"
exit $fail
