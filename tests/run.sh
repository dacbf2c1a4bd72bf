#!/usr/bin/env bash
# Runs every test suite of profq and prints one closing line "N passed, N failed, N skipped".
# A suite exits 0 (pass), 77 (skip, with a message saying why) or anything else (fail).
# Under CI=true a skip counts as a failure: CI has ../shared and PyPI.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
export PROFQ="$top/$BUILD/profq" BUILD SHARED="${SHARED:-$top/../shared}"
passed=0 failed=0 skipped=0
failures=""

run_suite() {
  local name=$1; shift
  echo "=== $name"
  "$@"
  local rc=$?
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1)); echo "--- PASS $name"
  elif [ $rc -eq 77 ]; then
    if [ "${CI:-}" = "true" ]; then
      failed=$((failed + 1)); failures="$failures $name"; echo "--- FAIL $name (skipped, and CI=true forbids skips)"
    else
      skipped=$((skipped + 1)); echo "--- SKIP $name"
    fi
  else
    failed=$((failed + 1)); failures="$failures $name"; echo "--- FAIL $name (exit $rc)"
  fi
}

for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  run_suite "unit/$(basename "$t")" "$t"
done
for s in tests/lib/*.sh; do
  [ -x "$s" ] && run_suite "lib/$(basename "$s" .sh)" "$s"
done
[ -x tests/golden/run.sh ] && run_suite golden tests/golden/run.sh
run_suite golden-outputs tests/golden/outputs.sh
run_suite partial tests/partial.sh
run_suite trace-model tests/trace_model.sh
run_suite trace-devices tests/trace_devices.sh
run_suite summary-set tests/summary_set.sh
run_suite summary-gpu-work tests/summary_gpu_work.sh
run_suite summary-docs tests/summary_docs.sh
run_suite wrong-inputs tests/wrong_inputs.sh
run_suite tt-model tests/tt_model.sh
run_suite memory-cli tests/memory_cli.sh
for s in tests/cli/*.sh; do
  [ -x "$s" ] && run_suite "cli/$(basename "$s" .sh)" "$s"
done
run_suite wandb tests/wandb.sh
run_suite demo-summary tests/demo_summary.sh
run_suite fuzz-replay "$BUILD/fuzz_replay" fuzz/corpus/xspace "$SHARED/data/xplane" "$SHARED/data/hlo"
run_suite fuzz-replay-hlo "$BUILD/fuzz_replay_hlo" fuzz/corpus/hlo "$SHARED/data/hlo"
run_suite fuzz-replay-ttlog "$BUILD/fuzz_replay_ttlog" fuzz/corpus/ttlog "$SHARED/data/tenstorrent"
[ -x tests/tt/run.sh ] && run_suite tt tests/tt/run.sh
[ -x tests/browser/tt_report.sh ] && run_suite browser/tt_report tests/browser/tt_report.sh
[ -x tests/browser/nsys_flame.sh ] && run_suite browser/nsys_flame tests/browser/nsys_flame.sh
[ -x tests/browser/nsys_svg.sh ] && run_suite browser/nsys_svg tests/browser/nsys_svg.sh
[ -x tests/browser/html_report.sh ] && run_suite browser/html_report tests/browser/html_report.sh
[ -x tests/browser/html_all.sh ] && run_suite browser/html_all tests/browser/html_all.sh
[ -x tests/golden/summary.sh ] && run_suite golden-summary tests/golden/summary.sh
run_suite fuzz-replay-trace-json "$BUILD/fuzz_replay_trace_json" fuzz/corpus/trace_json \
  "$SHARED/data/trace-json"
for t in parquet zip pushpop nsysjax nsyshlo partial xz; do
  run_suite "fuzz-replay-$t" "$BUILD/fuzz_replay_$t" "fuzz/corpus/$t"
done
run_suite fuzz-replay-sqlite "$BUILD/fuzz_replay_sqlite" fuzz/corpus/sqlite "$SHARED/data/nsys"
for s in tests/nsys/*.sh; do
  [ -x "$s" ] && run_suite "nsys/$(basename "$s" .sh)" "$s"
done
for s in tests/conformance/*.sh; do
  [ -x "$s" ] && run_suite "conformance/$(basename "$s" .sh)" "$s"
done

[ -n "$failures" ] && echo "failed suites:$failures"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
