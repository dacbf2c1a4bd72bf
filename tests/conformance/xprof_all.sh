#!/usr/bin/env bash
# Conformance: every field of every XProf tool profq reproduces (memory_viewer for every
# module and memory space, memory_profile, hlo_stats, op_profile in its three groupings,
# roofline_model) against XProf 2.24.2 (pip xprof, tests/xprof-requirements.txt), on every
# XPlane and HloProto in ../shared/data, tests/fixtures and fuzz/corpus/hlo, and on JAX
# programs profiled on the CPU now (tests/conformance/jax_cpu_program.py: scan, while, cond,
# sort, gather/scatter, concatenate, shard_map collectives on 4 host devices; and the demo's).
# tests/conformance/xprof_all.py says what is compared. Exit 0 no difference, 1 any, 77
# (skip, with a message) without ../shared/data or PyPI -- a failure under CI=true.
set -u
SUITE=xprof_all
. "$(dirname "$0")/lib.sh"
require_data "$SHARED/data/xplane"
require_profq
dump="$top/$BUILD/tests/hlo_text_dump"
[ -x "$dump" ] || { echo "$SUITE: FAIL: no $dump (make $BUILD/tests/hlo_text_dump)"; exit 1; }
use_venv xprof tests/xprof-requirements.txt
xprof_py=$python
use_venv demo scripts/demo-requirements.txt
jax_py=$python
scratch=$(mktemp -d "${TMPDIR:-/tmp}/profq-xprof-all.XXXXXX")
trap 'rm -rf -- "$scratch"' EXIT
# The JAX CPU runs: this suite's program and the demo's (scripts/demo_program.py: an MLP's
# training steps, a scan, a KV-cache inference loop), each profiled now.
jax=()
for prog in tests/conformance/jax_cpu_program.py scripts/demo_program.py; do
  name=$(basename "$prog" .py)
  JAX_PLATFORMS=cpu "$jax_py" "$top/$prog" "$scratch/$name" > "$scratch/$name.log" 2>&1 ||
    { cat "$scratch/$name.log"; echo "$SUITE: FAIL: the JAX program $prog failed"; exit 1; }
  n=${#jax[@]}
  for f in "$scratch/$name"/plugins/profile/*/*.xplane.pb; do
    [ -f "$f" ] && jax+=(--jax-run "$f")
  done
  [ ${#jax[@]} -gt "$n" ] || { echo "$SUITE: FAIL: $prog wrote no XPlane"; exit 1; }
done
"$xprof_py" "$top/tests/conformance/xprof_all.py" --profq "$PROFQ" --hlo-text-dump "$dump" \
  --data "$SHARED/data" \
  --hlo-dir "$top/tests/fixtures" --hlo-dir "$top/fuzz/corpus/hlo" "${jax[@]}" "$@" 2>"$scratch/xprof.log"
rc=$?
[ $rc -eq 0 ] || tail -n 20 "$scratch/xprof.log"
exit $rc
