#!/usr/bin/env bash
# tests/memory_cli.sh - the memory commands on real profiles: `profq memory` on the 4-TPU
# profile (one row per TPU, every check passing), on a run directory of several worker
# files (one row per worker and device, aggregates), with a user rules file, bad rules;
# `profq memory-viewer` module selection (key, bare name, XLA program id, XProf's
# substring rule, not found, ambiguous). Skips (77) without ../shared/data.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
TPU=$SHARED/data/xplane/tpu_inference_2.xplane.pb
if [ ! -f "$TPU" ]; then
  echo "memory_cli: SKIP: $TPU is absent"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-memory-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
check() { # name, command status (0 ok)
  if [ "$2" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}

"$PROFQ" memory --format json "$TPU" > "$work/tpu.json"
python3 - "$work/tpu.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "profq.memory.v1"
rows = d["rows"]
assert [r["device"] for r in rows] == [f"/device:TPU:{i}" for i in range(4)], rows
for r in rows:
    assert all(c["ok"] for c in r["checks"]), r["checks"]
    assert r["peak_bytes"] == sum(r["groups"].values())
    for k in ("host", "module", "program_id", "entry_params_bytes", "buckets", "gradient_hits"):
        assert k in r
assert set(d["aggregate"]["peak_bytes"]) == {"min", "avg", "max"}
PY
check "memory: tpu_inference_2 has 4 TPU rows, every check ok" $?

mkdir -p "$work/run"
ln -s "$TPU" "$work/run/worker0.xplane.pb"
ln -s "$TPU" "$work/run/worker1.xplane.pb"
"$PROFQ" memory --format json "$work/run" > "$work/run.json"
python3 - "$work/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["rows"]) == 8, len(d["rows"])
assert all(c["ok"] for r in d["rows"] for c in r["checks"])
a = d["aggregate"]["peak_bytes"]
assert a["min"] == a["max"] == d["rows"][0]["peak_bytes"]
PY
check "memory: a run dir of 2 workers gives 8 rows and aggregates" $?
"$PROFQ" memory "$work/run" | grep -q '^max ' 
check "memory: text table ends with min/avg/max" $?
"$PROFQ" memory --format tsv "$TPU" | head -1 | grep -q "$(printf 'host\tdevice\tmodule')"
check "memory: tsv header" $?
"$PROFQ" memory --format md "$TPU" | grep -q '^| figure | value | figure | value | figure | value |'
check "memory: markdown figures table" $?

MI=$SHARED/data/xplane/mi300x8_jax_conv.xplane.pb
printf '# every parameter is mine\nmine group=Parameter any regex .*\n' > "$work/rules.txt"
"$PROFQ" memory --rules "$work/rules.txt" --format json "$MI" > "$work/rules.json"
python3 - "$work/rules.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    assert r["buckets"]["mine"] > 0 and r["buckets"]["other_parameter"] == 0, r["buckets"]
    assert all(c["ok"] for c in r["checks"])
PY
check "memory: a user rule takes precedence over the defaults" $?
printf 'mine sideways exact x\n' > "$work/bad.txt"
"$PROFQ" memory --rules "$work/bad.txt" "$MI" > /dev/null 2> "$work/err"
[ $? -eq 3 ] && grep -q 'line 1: expected BUCKET' "$work/err"
check "memory: a bad rules file exits 3 with its line" $?

key='jit_f(12190760917235803885)'
"$PROFQ" memory-viewer --format xprof --module "$key" "$TPU" > "$work/a.json"
"$PROFQ" memory-viewer --format xprof --module jit_f "$TPU" > "$work/b.json"
"$PROFQ" memory-viewer --format xprof --program-id 12190760917235803885 "$TPU" > "$work/c.json"
"$PROFQ" memory-viewer --format xprof --module 'nope(1)' --program-id 1219076 "$TPU" > "$work/d.json"
cmp -s "$work/a.json" "$work/b.json" && cmp -s "$work/a.json" "$work/c.json" && cmp -s "$work/a.json" "$work/d.json"
check "memory-viewer: key, bare name, program id and id substring pick the same module" $?
"$PROFQ" memory-viewer --module nope "$TPU" > /dev/null 2>&1
[ $? -eq 3 ]
check "memory-viewer: an unknown module exits 3" $?
"$PROFQ" memory-viewer --module jit_forward_3d_conv "$SHARED/data/xplane/mi300x8_jax_conv_legacy" "$MI" > /dev/null 2>&1
check "memory-viewer: a bare name shared by two files with the same id is accepted" $?

"$PROFQ" heap --format json --module jit_f "$TPU" > "$work/heap.json"
"$PROFQ" memory-viewer --format xprof --module jit_f "$TPU" > "$work/mv.json"
python3 - "$work/heap.json" "$work/mv.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
mv = json.load(open(sys.argv[2]))
assert h["schema"] == "profq.heap.v1" and len(h["modules"]) == 1
m = h["modules"][0]
# the HBM trace's peak is the memory viewer's peak without the indefinite allocations
hbm = [t for t in m["traces"] if t["memory_space"] == 0][0]
want = (mv["peakHeapMib"] - mv.get("indefiniteBufferAllocationMib", 0)) * 2**20
assert abs(hbm["peak_bytes"] - want) < 1, (hbm["peak_bytes"], want)
assert len(hbm["usage_bytes"]) == hbm["events"] + 1
PY
check "heap: the HBM trace peak of jit_f equals the memory viewer's" $?
"$PROFQ" heap --format svg "$TPU" > "$work/heap.svg" && python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$work/heap.svg"
check "heap: the SVG chart is well-formed XML" $?
"$PROFQ" heap --format tsv --module jit_f "$TPU" | awk -F'\t' 'NR > 1 && NF != 5 {bad=1} END {exit bad || NR < 2}'
check "heap: tsv has five columns" $?

# issue 16 item 6: a --module that matches nothing is exit 3 with "no module matches" on
# every memory command (memory printed an empty table with exit 0).
for c in memory memory-viewer heap; do
  "$PROFQ" $c --module nosuch "$TPU" > "$work/nosuch.out" 2> "$work/nosuch.err"
  rc=$?
  [ $rc -eq 3 ] && [ ! -s "$work/nosuch.out" ] && grep -q "no module.*matches 'nosuch'" "$work/nosuch.err"
  check "$c: --module nosuch exits 3 with 'no module matches' and no output" $?
done

# issue 16 item 5: GPU:1-7 of the MI300 attention profile have no lines and no events: they
# are shown as having run nothing, with no figures, and left out of min/avg/max.
ATT=$SHARED/data/xplane/mi300_jax08_attention.xplane.pb
"$PROFQ" memory --format json "$ATT" > "$work/att.json"
python3 - "$work/att.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [r["device"] for r in d["rows"]] == ["/device:GPU:0"], d["rows"]
assert [i["device"] for i in d["idle_devices"]] == [f"/device:GPU:{i}" for i in range(1, 8)]
p = d["rows"][0]["peak_bytes"]
assert d["aggregate"]["peak_bytes"] == {"min": p, "avg": p, "max": p}
PY
check "memory: devices that ran nothing are listed apart and out of the aggregates" $?
"$PROFQ" memory "$ATT" > "$work/att.txt"
[ "$(grep -c '(ran nothing)' "$work/att.txt")" -eq 7 ] && ! grep -q '^max ' "$work/att.txt"
check "memory: the text table says which devices ran nothing, no min/avg/max of one device" $?

# issue 16 item 14 (heap parts): the chart's y labels fit left of the axis (12px text is at
# most 7px a character), every module has its own colour (9 modules here), the x axis has
# ticks between its ends; heap lists no empty trace (0 events, memory space -1).
"$PROFQ" heap --format svg "$ATT" > "$work/att.svg"
python3 - "$work/att.svg" <<'PY'
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
texts = d.getElementsByTagName("text")
ylab = [t for t in texts if t.getAttribute("class") == "ylabel"]
xlab = [t for t in texts if t.getAttribute("class") == "xlabel"]
assert len(ylab) >= 3, "no y labels"
for t in ylab:
    s = t.firstChild.data
    assert float(t.getAttribute("x")) - 7 * len(s) >= 0, ("cut y label", s, t.getAttribute("x"))
assert len(xlab) >= 3, [t.firstChild.data for t in xlab]
fills = [r.getAttribute("fill") for r in d.getElementsByTagName("rect") if r.getAttribute("class") == "key"]
assert len(fills) == 9 and len(set(fills)) == 9, fills
strokes = [p.getAttribute("stroke") for p in d.getElementsByTagName("polyline")]
assert strokes == fills, (strokes, fills)
PY
check "heap: SVG y labels fit, one colour per module, x axis ticks" $?
"$PROFQ" heap "$TPU" > "$work/heap.txt"
"$PROFQ" heap --format json "$TPU" > "$work/heapall.json"
! grep -q 'memory space -1' "$work/heap.txt" && python3 - "$work/heapall.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["modules"] and all(t["events"] > 0 for m in d["modules"] for t in m["traces"])
PY
check "heap: no empty (memory space -1) traces listed" $?

FIX=$top/tests/fixtures/jax_cpu
"$PROFQ" memory --format json "$FIX/inference/jit_run_scan.hlo.pb" > "$work/inf.json"
"$PROFQ" memory --format json "$FIX/training/jit_train_step.hlo.pb" > "$work/train.json"
python3 - "$FIX/expect.json" "$work/inf.json" "$work/train.json" <<'PY'
import json, sys
want = json.load(open(sys.argv[1]))
inf = json.load(open(sys.argv[2]))["rows"][0]
train = json.load(open(sys.argv[3]))["rows"][0]
assert inf["buckets"]["kv_cache"] == want["inference"]["kv_cache_bytes"], inf["buckets"]
assert inf["buckets"]["model_params"] == want["inference"]["model_params_bytes"], inf["buckets"]
assert inf["gradient_hits"] == 0 and not inf["gradients_present"]
assert train["gradients_present"] and train["buckets"]["gradients"] > 0
assert train["buckets"]["model_params"] == want["training"]["model_params_bytes"]
# the Adam moments (opt_state mu/nu) are the other entry parameters
assert train["buckets"]["other_parameter"] >= want["training"]["adam_state_bytes"]
assert all(c["ok"] for r in (inf, train) for c in r["checks"])
PY
check "memory: JAX fixtures give the KV cache, params and gradients the script created" $?

[ $fail -eq 0 ] && echo "memory_cli: all passed"
exit $fail
