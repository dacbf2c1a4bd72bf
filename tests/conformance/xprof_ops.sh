#!/usr/bin/env bash
# Conformance suite: XProf itself (pip `xprof`, pinned in tests/xprof-requirements.txt, in
# build/venv-xprof) computes hlo_stats, op_profile and roofline_model for every XPlane in
# $SHARED/data that has device ops, and profq must agree: same op set, occurrences, total and
# self times and FLOP/byte totals within 0.1%, same bound-by; and on the project's own JAX
# run on CPU, where XProf's tables are empty and profq's --format xprof must be too
# (tests/conformance/xprof_ops.py
# says exactly what is compared, and what XProf computes that profq does not).
# Exit 0 all match, 1 any mismatch, 77 (skip, with a message) when $SHARED/data is absent or
# PyPI cannot be reached -- except under CI=true, where those fail (exit 1).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
PROFQ=${PROFQ:-$top/$BUILD/profq}
SHARED=${SHARED:-$top/../shared}
data="$SHARED/data/xplane"

skip() {
  echo "xprof_ops: SKIP: $*"
  if [ "${CI:-}" = "true" ]; then
    echo "xprof_ops: CI=true forbids skipping"
    exit 1
  fi
  exit 77
}

[ -d "$data" ] || skip "$data is absent (real profiles live in ../shared/data)"
if [ ! -x "$PROFQ" ]; then
  echo "xprof_ops: FAIL: no profq binary at $PROFQ (build it first: make BUILD=$BUILD all)"
  exit 1
fi
python=$(scripts/venv.sh xprof tests/xprof-requirements.txt) ||
  skip "could not create the XProf venv from tests/xprof-requirements.txt (is PyPI reachable?)"
# The project's own JAX run (scripts/demo_program.py, JAX on CPU): the one tests/demo_summary.sh
# wrote just before (tests/run.sh runs it first) when it is newer than the program, else a
# fresh one in build/conformance-jax.
jax=()
run=$(ls -d build/test-demo/trace/plugins/profile/*/ 2>/dev/null | sort | tail -n 1)
if [ -z "$run" ] || [ scripts/demo_program.py -nt "$run" ]; then
  demo_py=$(scripts/venv.sh demo scripts/demo-requirements.txt) ||
    skip "could not create the demo venv (JAX) from scripts/demo-requirements.txt"
  rm -rf build/conformance-jax
  mkdir -p build/conformance-jax
  "$demo_py" scripts/demo_program.py build/conformance-jax/trace > build/conformance-jax/program.log 2>&1 ||
    { echo "xprof_ops: FAIL: the JAX program failed (build/conformance-jax/program.log)"; exit 1; }
  run=$(ls -d build/conformance-jax/trace/plugins/profile/*/ | sort | tail -n 1)
fi
for f in "$run"*.xplane.pb; do jax+=(--jax-run "$f"); done
exec "$python" tests/conformance/xprof_ops.py --profq "$PROFQ" --data "$data" "${jax[@]}"
