#!/usr/bin/env bash
# Conformance: GPU FLOPs and bytes per op, profq's C rules (src/analysis/hlo_cost*.c) against
# XLA's GPU HloCostAnalysis as XProf runs it (pip xprof, xspace_to_tools_data, hlo_stats). On
# the kernels of every GPU XPlane in ../shared/data, and on a synthesized GPU XPlane with one
# kernel per instruction of every HloProto: those of the GPU and CPU XPlanes in
# ../shared/data/xplane, ../shared/data/hlo, tests/fixtures, the project's JAX run on CPU
# (scripts/demo_program.py) and small JAX programs compiled at test time
# (tests/conformance/gpu_cost_programs.py: while, conditional, sort, gather, scatter,
# reduce-window, select-and-scatter, collectives on 4 host devices, ...) and the cases of
# tests/unit/test_hlo_cost_rules.c (PQ_HLO_COST_DUMP). Exact, except
# hlo_stats' bytes accessed at float precision (gpu_cost.py says why). Prints the number of
# ops compared and every difference; exit 0 with none. Skips (77) when ../shared/data or
# PyPI is absent -- except under CI=true, where that fails.
set -u
SUITE=gpu_cost
. "$(dirname "$0")/lib.sh"
cd "$top"
data="$SHARED/data"
require_data "$data"
require_profq
use_venv xprof tests/xprof-requirements.txt
xprof_py=$python
use_venv demo scripts/demo-requirements.txt
demo_py=$python
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-gpu-cost.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
JAX_PLATFORMS=cpu "$demo_py" tests/conformance/gpu_cost_programs.py "$work/programs" > "$work/programs.log" 2>&1 ||
  { cat "$work/programs.log"; echo "gpu_cost: FAIL: the JAX programs did not compile"; exit 1; }
# The project's own JAX run on CPU: the one tests/demo_summary.sh wrote (tests/run.sh runs it
# first) when it is newer than the program, else a fresh one here.
run=$(ls -d build/test-demo/trace/plugins/profile/*/ 2>/dev/null | sort | tail -n 1)
if [ -z "$run" ] || [ scripts/demo_program.py -nt "$run" ]; then
  "$demo_py" scripts/demo_program.py "$work/demo" > "$work/demo.log" 2>&1 ||
    { cat "$work/demo.log"; echo "gpu_cost: FAIL: the JAX program failed"; exit 1; }
  run=$(ls -d "$work"/demo/plugins/profile/*/ | sort | tail -n 1)
fi
args=()
for f in "$data"/xplane/*.xplane.pb "$data"/xplane/*/; do
  case "$f" in */corrupt/) continue ;; esac
  args+=(--xplane "$f")
  for x in $( [ -d "$f" ] && ls "$f"*.xplane.pb || echo "$f"); do args+=(--xplane-hlos "$x"); done
done
for f in "$run"*.xplane.pb; do args+=(--xplane-hlos "$f"); done
# The unit test's cases (tests/unit/test_hlo_cost_rules.c), priced by XProf too.
rules="$top/$BUILD/tests/test_hlo_cost_rules"
if [ ! -x "$rules" ]; then
  echo "gpu_cost: FAIL: no $rules (make $BUILD/tests/test_hlo_cost_rules)"
  exit 1
fi
mkdir -p "$work/rules"
PQ_HLO_COST_DUMP="$work/rules" "$rules" > "$work/rules.log" 2>&1 ||
  { cat "$work/rules.log"; echo "gpu_cost: FAIL: $rules"; exit 1; }
for f in "$data"/hlo/*.pb tests/fixtures/*/*/*.hlo.pb "$work"/programs/*.hlo.pb "$work"/rules/*.hlo.pb; do args+=(--hlo "$f"); done
exec nice "$xprof_py" tests/conformance/gpu_cost.py --profq "$PROFQ" "${args[@]}"
