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
#     runtime events.
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
python3 "$here/hot_ops_agree.py" "$out/perfetto.summary.json" "$out/xplane.summary.json"
