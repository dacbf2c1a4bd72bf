#!/usr/bin/env bash
# `make demo`: profile a small JAX program on CPU, then show what profq reads from it.
#   1. build/venv-demo gets JAX (scripts/demo-requirements.txt, pinned) from PyPI, once;
#   2. scripts/demo_program.py trains a tiny MLP under jax.profiler.trace, writing
#      build/demo/trace/plugins/profile/<timestamp>/<host>.xplane.pb (fresh each run);
#   3. `profq info` and `profq tools` run on the log directory (profq picks the newest run);
#   4. `profq memory` shows the attribution table of the inference loop (run_scan);
#   5. `profq ops` shows the op table and the windows (idle first).
#   6. `profq summarize` turns the run's perfetto_trace.json.gz and its XPlane into
#      profile_summary.v1 (the seed's artifact shape) and `profq report` renders the report;
#      the hot-op self times of both are printed side by side (tests/hot_ops_agree.py).
# Needs only Debian's python3 + venv (scripts/deps.sh demo) and PyPI. BUILD selects the
# profq build (default build/); PROFQ overrides the binary.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
PROFQ=${PROFQ:-$top/$BUILD/profq}
logdir="$top/build/demo/trace"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }
heading() { printf '\n==== %s\n\n' "$*"; }

if [ ! -x "$PROFQ" ]; then
  echo "demo: no profq at $PROFQ; build it first (make BUILD=$BUILD all)" >&2
  exit 1
fi

t0=$(now)
heading "Setting up Python with JAX (CPU) in build/venv-demo (first run downloads ~100 MB)"
t=$(now)
if ! python=$(scripts/venv.sh demo scripts/demo-requirements.txt); then
  echo "demo: could not install JAX from PyPI (see the pip message above)" >&2
  exit 1
fi
echo "python: $python ($(since "$t"))"

heading "Profiling a tiny MLP training run with jax.profiler.trace (scripts/demo_program.py)"
t=$(now)
rm -rf "$logdir"
mkdir -p "$logdir"
"$python" scripts/demo_program.py "$logdir"
run=$(ls -d "$logdir"/plugins/profile/*/ | sort | tail -n 1)
echo "run directory: ${run#"$top"/}"
for f in "$run"*; do
  printf '  %-40s %10s bytes\n' "$(basename "$f")" "$(stat -c %s "$f")"
done
echo "(the perfetto_trace.json.gz opens in the Perfetto UI; profq reads both)"
echo "profiled in $(since "$t")"

heading "profq info build/demo/trace -- what the profile contains: planes (host threads, XLA metadata), lines with event counts and time spans, and the XLA programs whose HloProtos JAX stored"
t=$(now)
"$PROFQ" info "$logdir"
echo "(profq info took $(since "$t"))"

heading "profq tools build/demo/trace -- which analyses this profile can feed, and why the others cannot (a CPU run has no device planes)"
"$PROFQ" tools "$logdir"

heading "profq memory --module jit_run_scan build/demo/trace -- where the inference loop's memory goes at peak: KV cache (init_carry[2], init_carry[3]), model params, temporaries, with the sanity checks"
"$PROFQ" memory --module jit_run_scan "$logdir"
heading "profq ops build/demo/trace --top 15 -- where the time goes: XLA ops (XLA:CPU thunks on host threads here; TPU XLA Ops or GPU kernels on accelerators), windows and idle first"
t=$(now)
"$PROFQ" ops --top 15 "$logdir"
echo "(profq ops took $(since "$t"))"

heading "profq ops --by program build/demo/trace -- the same time per XLA program"
"$PROFQ" ops --by program --top 10 "$logdir"
perfetto=$(ls "$run"*perfetto_trace.json.gz 2>/dev/null | head -n 1 || true)
if [ -n "$perfetto" ]; then
  heading "profq summarize ${perfetto#"$top"/} -- profile_summary.v1 from the Perfetto trace (streamed), key sections"
  t=$(now)
  "$PROFQ" summarize --warmup-steps 1 -o "$top/build/demo/summary.json" "$perfetto" >/dev/null
  echo "(profq summarize took $(since "$t"); full document: build/demo/summary.json)"
  python3 - "$top/build/demo/summary.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("trace_overview:", json.dumps(d["trace_overview"], sort_keys=True))
print("step_time.steady_state_steps:", json.dumps(d["step_time"]["steady_state_steps"], sort_keys=True))
tb = d["time_breakdown"]
print("time_breakdown:", ", ".join("%s %.3f (%.1f%%)" % (k, tb[k]["total_duration"], 100 * tb[k]["share_of_total"])
                                  for k in ("compute", "communication", "host", "stall", "other")))
print("optimization_candidates:", [c["candidate_id"] for c in d["optimization_candidates"]])
PY
  heading "profq report build/demo/summary.json -- the deterministic markdown report"
  "$PROFQ" report --top-k 5 "$top/build/demo/summary.json"
  heading "profq summarize on the XPlane of the same run: hot-op self times agree with the Perfetto trace's within 1% (a CPU run's XLA ops are XLA:CPU thunk events on host threads, hlo_op in both)"
  "$PROFQ" summarize --warmup-steps 1 -o "$top/build/demo/summary.xplane.json" "$logdir" >/dev/null
  python3 tests/hot_ops_agree.py "$top/build/demo/summary.json" "$top/build/demo/summary.xplane.json" ||
    echo "demo: the two summaries disagree (see FAIL above)"
fi

heading "demo done in $(since "$t0")"
