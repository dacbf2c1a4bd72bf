#!/usr/bin/env bash
# Conformance: roofline_model's step rows and the GPU op rows that step groups change
# (issue 13 item 5; docs/internals/ops.md, "Step rows"). scripts/add_step_markers.py adds
# JAX-style step markers to two shared MI300 XPlanes (2 markers a launch line on
# mi300_jax08_attention, 3 on mi300x8_jax_conv: its steps past 5 lose the first and last);
# XProf's roofline_model and hlo_stats (pip xprof, build/venv-xprof) on them are compared
# with profq's `roofline --format xprof` and `ops --format xprof` field by field: exact
# strings and integers, floats within 1e-6 relative. Skips (77) without ../shared/data or
# PyPI (fails under CI=true).
set -u
SUITE=roofline_steps
. "$(dirname "$0")/lib.sh"
data="$SHARED/data/xplane"
require_data "$data"
require_profq
use_venv test tests/requirements.txt
protopy=$python
use_venv xprof tests/xprof-requirements.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-roofline-steps.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
for spec in mi300_jax08_attention:2 mi300x8_jax_conv:3; do
  name=${spec%%:*} steps=${spec##*:}
  in="$data/$name.xplane.pb"
  [ -f "$in" ] || { echo "$SUITE: FAIL: $in is missing"; exit 1; }
  mkdir -p "$work/$name"
  "$protopy" "$top/scripts/add_step_markers.py" "$in" "$work/$name/$name.xplane.pb" "$steps" ||
    { echo "$SUITE: FAIL: add_step_markers.py on $name"; exit 1; }
done
exec "$python" "$top/tests/conformance/roofline_steps.py" "$PROFQ" "$work"/*/*.xplane.pb
