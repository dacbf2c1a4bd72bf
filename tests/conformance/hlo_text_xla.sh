#!/usr/bin/env bash
# Conformance suite: profq's HLO instruction text (src/analysis/hlo_text.c, the expressions of
# hlo_stats and op_profile) against XLA's own printer, on a JAX program compiled for the CPU
# at test time (scan, while, cond, sort, gather, scatter, concatenate, dynamic slices, dot,
# reductions; tests/conformance/hlo_text_xla.py says what is compared).
# Exit 0 all equal, 1 any differs, 77 (skip, with a message) when the JAX venv cannot be made
# -- except under CI=true, where that fails (exit 1).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
dump="$top/$BUILD/tests/hlo_text_dump"

skip() {
  echo "hlo_text_xla: SKIP: $*"
  if [ "${CI:-}" = "true" ]; then
    echo "hlo_text_xla: CI=true forbids skipping"
    exit 1
  fi
  exit 77
}

if [ ! -x "$dump" ]; then
  echo "hlo_text_xla: FAIL: no $dump (make $BUILD/tests/hlo_text_dump)"
  exit 1
fi
python=$(scripts/venv.sh demo scripts/demo-requirements.txt) ||
  skip "could not create the demo venv (JAX) from scripts/demo-requirements.txt"
JAX_PLATFORMS=cpu exec "$python" tests/conformance/hlo_text_xla.py "$dump"
