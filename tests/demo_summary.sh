#!/usr/bin/env bash
# tests/demo_summary.sh - the demo run's summary from its XPlane and from its
# perfetto_trace.json.gz agree on hot-op self times within 1% (issue 4 acceptance).
#
# Suite contract (tests/run.sh): exit 0 pass, 77 skip (with a message), anything else fail.
# The demo program (scripts/demo_program.py: JAX on CPU, jax.profiler.trace with
# create_perfetto_trace=True) writes a fresh run into build/test-demo/trace with the demo
# venv (build/venv-demo, made by scripts/venv.sh from scripts/demo-requirements.txt;
# skipped only when PyPI cannot be reached). A CPU run has no device planes: its XLA ops
# are XLA:CPU thunk events on host threads, with args hlo_op/hlo_module in the Perfetto
# trace and stats hlo_op/hlo_module in the XPlane; summarize takes those as the device ops
# when no device-op track exists. Checks:
#  1. both summaries have hot ops (not the empty list a device-only rule gives);
#  2. the same top-10 hot ops in the same order, at least 90% of the hot-op names shared;
#  3. every shared hot op's exclusive (self) time, total time and count within 1%;
#  4. the hot ops are XLA ops of the demo's modules (dot / fusion names), not Python or
#     runtime events;
#  5. `profq ops` of the trace JSON and of the XPlane (issue 11): the same op set, keyed by
#     (module name, op name), with self times within 1% and the same occurrences.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
export SOURCE_DATE_EPOCH=1700000000
if ! py=$("$top/scripts/venv.sh" demo "$top/scripts/demo-requirements.txt" 2>/tmp/profq-demo-venv.$$); then
    echo "demo_summary: SKIP: the demo venv (JAX from PyPI) is unavailable: $(tail -n 1 /tmp/profq-demo-venv.$$)"
    rm -f /tmp/profq-demo-venv.$$
    exit 77
fi
rm -f /tmp/profq-demo-venv.$$
out="$top/build/test-demo"
rm -rf "$out"
mkdir -p "$out"
if ! "$py" "$top/scripts/demo_program.py" "$out/trace" >"$out/program.log" 2>&1; then
    echo "FAIL: the demo program failed:"
    tail -n 20 "$out/program.log"
    exit 1
fi
run=$(ls -d "$out"/trace/plugins/profile/*/ | sort | tail -n 1)
perfetto=$(ls "$run"*perfetto_trace.json.gz | head -n 1)
xplane=$(ls "$run"*.xplane.pb | head -n 1)
"$PROFQ" summarize --warmup-steps 1 -o "$out/perfetto.summary.json" "$perfetto" >/dev/null ||
    { echo "FAIL: summarize $perfetto: exit $?"; exit 1; }
"$PROFQ" summarize --warmup-steps 1 -o "$out/xplane.summary.json" "$xplane" >/dev/null ||
    { echo "FAIL: summarize $xplane: exit $?"; exit 1; }
python3 "$here/hot_ops_agree.py" "$out/perfetto.summary.json" "$out/xplane.summary.json" || exit 1
"$PROFQ" ops --format json "$perfetto" >"$out/perfetto.ops.json" ||
    { echo "FAIL: ops $perfetto: exit $?"; exit 1; }
"$PROFQ" ops --format json "$xplane" >"$out/xplane.ops.json" ||
    { echo "FAIL: ops $xplane: exit $?"; exit 1; }
python3 - "$out/perfetto.ops.json" "$out/xplane.ops.json" <<'PY'
import json, sys
# The trace JSON names a module (hlo_module) but not its program id, and JAX runs modules of
# one name under several ids (jit__normal(9), jit__normal(11)): both sides are summed per
# (module name, op name), the finest key the trace has.
def ops(path):
    d = json.load(open(path))
    out = {}
    for r in d["rows"]:
        if r["name"] == "IDLE":
            continue
        k = (r["program"], r["name"])
        o = out.setdefault(k, {"self_time_ps": 0, "occurrences": 0})
        o["self_time_ps"] += r["self_time_ps"]
        o["occurrences"] += r["occurrences"]
    return out
t, x = ops(sys.argv[1]), ops(sys.argv[2])
fails = []
if not t:
    fails.append("no ops from the trace JSON")
if set(t) != set(x):
    fails.append("op sets differ: only in the trace %s, only in the XPlane %s" %
                 (sorted(set(t) - set(x))[:5], sorted(set(x) - set(t))[:5]))
worst = 0.0
for k in set(t) & set(x):
    a, b = t[k]["self_time_ps"], x[k]["self_time_ps"]
    d = abs(a - b) / max(b, 1)
    worst = max(worst, d)
    if d > 0.01 or t[k]["occurrences"] != x[k]["occurrences"]:
        fails.append("%s: trace %d ps x%d, XPlane %d ps x%d" %
                     (k, a, t[k]["occurrences"], b, x[k]["occurrences"]))
for f in fails[:10]:
    print("FAIL: ops: " + f)
print("ops: %d ops from the trace JSON, %d from the XPlane; largest self-time difference %.4f%%"
      % (len(t), len(x), 100 * worst))
sys.exit(1 if fails else 0)
PY
