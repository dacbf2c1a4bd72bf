#!/usr/bin/env bash
# tests/trace_model.sh - trace-event JSON in the profile model (issue 11): every trace of
# ../shared/data/trace-json loads as a profile; info, tools, scan and export succeed on it;
# the tracks and slices the model holds equal an independent count in Python (stdlib only)
# of the events the reader accepts (X with a positive duration and a name on integer
# pid/tid >= 0, digit strings as their integer; B/E pairs matched last-open-first per
# thread); the export parses, holds one X event per slice, and reloads with the same counts.
# `profq ops` holds, per GPU stream, the kernel/memcpy/memset count and total time Python
# counts (user annotations are ranges, not work: left out). The two shared files that are
# JSON but not trace events are refused with exit 3.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
dir=$SHARED/data/trace-json
if [ ! -d "$dir" ]; then
    echo "trace_model: SKIP: $dir is absent"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-trace-model-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

for f in "$dir"/*; do
    b=$(basename "$f")
    case "$b" in
    hta__execution_trace__benchmark_simple_add_et.json.gz | hta__memory_analysis__memory_timeline.raw.gz)
        for c in info tools scan export; do
            "$PROFQ" $c "$f" >/dev/null 2>"$work/err"
            rc=$?
            if [ $rc -eq 3 ] && grep -q "offset 0: expected Chrome trace events" "$work/err"; then
                ok
            else
                bad "$c $b: exit $rc, want 3 with 'expected Chrome trace events'"
            fi
        done
        continue
        ;;
    esac
    for c in info tools scan ops roofline; do
        if "$PROFQ" $c --format json "$f" >"$work/$c.json" 2>"$work/err"; then ok; else
            bad "$c $b: exit $? ($(head -c 200 "$work/err"))"
        fi
    done
    if "$PROFQ" export -o "$work/export.json" "$f" >/dev/null 2>"$work/err"; then ok; else
        bad "export $b: exit $? ($(head -c 200 "$work/err"))"
        continue
    fi
    if "$PROFQ" info --format json "$work/export.json" >"$work/info2.json" 2>"$work/err"; then ok; else
        bad "info of the export of $b: exit $? ($(head -c 200 "$work/err"))"
        continue
    fi
    python3 - "$f" "$work" <<'PY'
import gzip, json, sys
path, work = sys.argv[1], sys.argv[2]
raw = open(path, "rb").read()
if raw[:2] == b"\x1f\x8b":
    raw = gzip.decompress(raw)
doc = json.loads(raw)
events = doc["traceEvents"] if isinstance(doc, dict) else doc
sids = {}
def ident(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        if v and len(v) <= 15 and v.isdigit():
            return int(v)
        if v not in sids:
            sids[v] = (1 << 40) + len(sids)
        return sids[v]
    return None
def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)
count = {}
gpu = set()
opened = []
for e in events:
    if not isinstance(e, dict):
        continue
    ph = e.get("ph")
    pid, tid = ident(e.get("pid")), ident(e.get("tid"))
    if ph not in ("X", "B", "E") or pid is None or tid is None or pid < 0 or tid < 0:
        continue
    if not num(e.get("ts")):
        continue
    key = (pid, tid)
    if ph == "B":
        opened.append((key, e["ts"], e.get("name") or ""))
        continue
    if ph == "E":
        for k in range(len(opened) - 1, -1, -1):
            if opened[k][0] == key:
                _, ts, name = opened.pop(k)
                if e["ts"] - ts > 0 and name:
                    count[key] = count.get(key, 0) + 1
                break
        continue
    if not num(e.get("dur")) or not e.get("name") or not e["dur"] > 0:
        continue
    count[key] = count.get(key, 0) + 1
    if e.get("cat") in ("kernel", "Kernel", "Memcpy", "Memset", "gpu_memcpy", "gpu_memset"):
        gpu.add(key)
def tracks(info):
    t = {}
    g = set()
    for s in info["sources"]:
        for p in s["trace"]["processes"]:
            for th in p["threads"]:
                t[(p["pid"], th["tid"])] = th["slices"]
                if th["gpu_stream"]:
                    g.add((p["pid"], th["tid"]))
    return t, g
info = json.load(open(work + "/info.json"))
got, got_gpu = tracks(info)
fails = []
if got != count:
    diff = sorted(set(got.items()) ^ set(count.items()))[:5]
    fails.append("slices per (pid, tid) differ from Python's count: %s" % diff)
if got_gpu != gpu:
    fails.append("GPU streams %s, Python %s" % (sorted(got_gpu)[:5], sorted(gpu)[:5]))
scan = json.load(open(work + "/scan.json"))
if scan["events"] != len(events):
    fails.append("scan events %s, traceEvents %d" % (scan["events"], len(events)))
if scan["lines"] != len(got):
    fails.append("scan lines %s, tracks %d" % (scan["lines"], len(got)))
tools = {t["name"]: t for t in json.load(open(work + "/tools.json"))["tools"]}
for name in ("info", "scan", "summarize", "export"):
    if not tools[name]["available"]:
        fails.append("tools says %s is not available" % name)
exp = json.load(open(work + "/export.json"))
xs = [e for e in exp["traceEvents"] if e.get("ph") == "X"]
if len(xs) != sum(count.values()):
    fails.append("export: %d X events for %d slices" % (len(xs), sum(count.values())))
info2 = json.load(open(work + "/info2.json"))
t2, _ = tracks(info2)
# export puts slices that overlap without nesting on extra threads "<thread> (k)" of the
# same process (issue 16 item 8): count them with their thread.
import re
for s in info2["sources"]:
    for p in s["trace"]["processes"]:
        names = {th["name"]: th["tid"] for th in p["threads"]}
        for th in p["threads"]:
            m = re.fullmatch(r"(.*) \((\d+)\)", th["name"])
            if m and m.group(1) in names and names[m.group(1)] != th["tid"]:
                t2[(p["pid"], names[m.group(1)])] += t2.pop((p["pid"], th["tid"]))
if sorted(t2.values()) != sorted(count.values()):
    fails.append("reloaded export: slices per thread %s, want %s" %
                 (sorted(t2.values())[:8], sorted(count.values())[:8]))
# Kineto's GPU work per stream (HTA's kernel breakdown), against `profq ops`.
work_cats = ("kernel", "Kernel", "Memcpy", "Memset", "gpu_memcpy", "gpu_memset")
streams = {}
for e in events:
    if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in work_cats:
        continue
    pid, tid = ident(e.get("pid")), ident(e.get("tid"))
    if pid is None or tid is None or pid < 0 or tid < 0 or not num(e.get("ts")):
        continue
    if not num(e.get("dur")) or not e["dur"] > 0 or not e.get("name"):
        continue
    c = streams.setdefault((pid, tid), [0, 0])
    c[0] += 1
    c[1] += round(e["dur"] * 1e6)
ops = json.load(open(work + "/ops.json"))
has_xla = any(isinstance(e, dict) and isinstance(e.get("args"), dict) and "hlo_op" in e["args"]
              for e in events)
if not has_xla:
    per = {}
    for r in ops["rows"]:
        if r["name"] == "IDLE":
            continue
        c = per.setdefault(r["program_id"], [0, 0])
        c[0] += r["occurrences"]
        c[1] += r["time_ps"]
    if sorted(map(tuple, per.values())) != sorted(map(tuple, streams.values())):
        fails.append("ops per stream (kernels, ps) %s, Python %s" %
                     (sorted(map(tuple, per.values()))[:4], sorted(map(tuple, streams.values()))[:4]))
for f in fails:
    print(path.rsplit("/", 1)[-1] + ": " + f)
sys.exit(1 if fails else 0)
PY
    if [ $? -eq 0 ]; then ok; else bad "$b: model and Python disagree"; fi
done
echo "trace_model: $passed passed, $failed failed"
[ $failed -eq 0 ]
