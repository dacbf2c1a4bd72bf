#!/usr/bin/env bash
# Conformance: roofline_model's step rows and the op rows that step groups change (issue 13
# item 5; docs/internals/ops.md, "Step rows"), against XProf 2.24.2 (pip xprof,
# build/venv-xprof) on profiles made at test time:
# - one host: scripts/add_step_markers.py adds JAX-style step markers to two shared MI300
#   XPlanes (2 markers a launch line on mi300_jax08_attention, 3 on mi300x8_jax_conv: its
#   steps past 5 lose the first and last), and the first without its step 1 markers
#   (step_hosts.py: ungrouped kernels between grouped ones);
# - TPU: device step lines added to tpu_inference_2 by scripts/add_tpu_steps.py;
# - TensorFlow grouping events added by scripts/add_tf_steps.py (TF loop iterations,
#   roots with a step_id, tf.data functions): XProf 2.24.2 groups by the `_r` roots alone;
# - several hosts of one run given together (XProf combines their op stats and intersects
#   their steps): the marked attention XPlane with copies made by step_hosts.py (the same;
#   another clock 10 ms and 20 ms later; without step 0's markers; without any, which
#   leaves no steps and XProf's diagnostic), and three hosts (one
#   3 ms later, one 10 ms later without step 0's markers), and two copies of tpu_inference_2
#   (no TPU steps: XProf's combined peaks, without VMEM);
# - several TPU hosts with device Steps lines (XProf's StepIntersection over the hosts' step
#   times, each step's op stats summed over the hosts, numbered 0..n-1): two copies of the
#   4-step XSpace; the 3-step one (a core without its line: its steps span least, so it is
#   the chief) and the 7-step one; the 7-step one and a copy a step (11.7 s) later
#   (step_hosts.py: 6 shared steps); the 7-step one and a copy 200 s later (no overlap:
#   aligned at the start); the 3-step, 7-step and 7-step-later hosts together; a 4-step
#   host with the Steps-less one (a host without steps leaves none: the diagnostic). Hosts
#   whose steps span equal times are the chief in XProf's hash order, in profq's path order:
#   the cases leave the chief unique or do not depend on it;
# - host-only: a JAX CPU program with jax.profiler.StepTraceAnnotation steps
#   (steps_programs.py jax), alone and as two hosts of one run, and a TF Keras program with
#   TF step markers (steps_programs.py tf, build/venv-tf).
# roofline_steps.py compares XProf's roofline_model, hlo_stats and op_profile with profq's
# `roofline --format xprof` and `ops --format xprof` field by field: exact strings and
# integers, floats within 1e-6 relative. Skips (77) without ../shared/data or PyPI (fails
# under CI=true).
set -u
SUITE=roofline_steps
. "$(dirname "$0")/lib.sh"
data="$SHARED/data/xplane"
require_data "$data"
require_profq
use_venv test tests/requirements.txt
protopy=$python
use_venv demo scripts/demo-requirements.txt
jax_py=$python
use_venv tf tests/tf-requirements.txt
tf_py=$python
use_venv xprof tests/xprof-requirements.txt
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-roofline-steps.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
fail() { echo "$SUITE: FAIL: $*"; exit 1; }
cases=()
for spec in mi300_jax08_attention:2 mi300x8_jax_conv:3; do
  name=${spec%%:*} steps=${spec##*:}
  in="$data/$name.xplane.pb"
  [ -f "$in" ] || fail "$in is missing"
  mkdir -p "$work/$name"
  "$protopy" "$top/scripts/add_step_markers.py" "$in" "$work/$name/$name.xplane.pb" "$steps" ||
    fail "add_step_markers.py on $name"
  cases+=("$work/$name/$name.xplane.pb")
done
# TPU: device "Steps" lines and group_ids on the TensorCore planes (scripts/add_tpu_steps.py)
# of tpu_inference_2: 4 steps (XProf's per-step Program records and the "Average" one, over
# each step's own ops); 7 steps (none dropped on TPU); 3 steps with /device:TPU:1 left without
# its Steps line (its ops count in no step).
tpu="$data/tpu_inference_2.xplane.pb"
[ -f "$tpu" ] || fail "$tpu is missing"
for spec in tpu_steps4:4: tpu_steps7:7: tpu_steps3_bare1:3:/device:TPU:1; do
  IFS=: read -r name steps bare <<< "$spec"
  mkdir -p "$work/$name"
  "$protopy" "$top/scripts/add_tpu_steps.py" "$tpu" "$work/$name/$name.xplane.pb" "$steps" \
    $bare || fail "add_tpu_steps.py for $name"
  cases+=("$work/$name/$name.xplane.pb")
done
# Two TPU hosts of one run (tpu_inference_2 under two names, no Steps lines): XProf's
# CombinePerfEnv keeps no has_cmem/has_merged_vmem/megacore of several XSpaces, so its
# roofline_model has no VMEM peaks (issue 13).
mkdir -p "$work/tpu_hosts"
cp "$tpu" "$work/tpu_hosts/host0.xplane.pb"
cp "$tpu" "$work/tpu_hosts/host1.xplane.pb"
cases+=("nosteps=$work/tpu_hosts/host0.xplane.pb,$work/tpu_hosts/host1.xplane.pb")
s4="$work/tpu_steps4/tpu_steps4.xplane.pb" s7="$work/tpu_steps7/tpu_steps7.xplane.pb"
s3="$work/tpu_steps3_bare1/tpu_steps3_bare1.xplane.pb"
tpu_hosts() { # NAME FILE...: a directory of hosts host0, host1, ... (copies of FILE...)
  local name=$1 i=0 f list=
  shift
  mkdir -p "$work/$name"
  for f in "$@"; do
    cp "$f" "$work/$name/host$i.xplane.pb"
    list="$list${list:+,}$work/$name/host$i.xplane.pb"
    i=$((i + 1))
  done
  echo "$list"
}
shifted() { # OUT SHIFT_NS: the 7-step XSpace with its clock moved
  "$protopy" "$top/tests/conformance/step_hosts.py" "$s7" "$1" 0 "$2" ||
    fail "step_hosts.py for $1"
}
shifted "$work/s7_step.xplane.pb" 11700000000
shifted "$work/s7_far.xplane.pb" 200000000000
cases+=("$(tpu_hosts tpu_steps_copies "$s4" "$s4")" "$(tpu_hosts tpu_steps_3_7 "$s3" "$s7")"
        "$(tpu_hosts tpu_steps_shift "$s7" "$work/s7_step.xplane.pb")"
        "$(tpu_hosts tpu_steps_far "$s7" "$work/s7_far.xplane.pb")"
        "$(tpu_hosts tpu_steps_three "$s3" "$s7" "$work/s7_step.xplane.pb")"
        "nosteps=$(tpu_hosts tpu_steps_bare "$s4" "$tpu")")
# Several hosts: NAME FIRST_STEP SHIFT_NS (the second host from the marked attention XPlane).
att="$work/mi300_jax08_attention/mi300_jax08_attention.xplane.pb"
# One host without its step 1 markers: their kernels take the group of the kernel before.
mkdir -p "$work/nostep1"
"$protopy" "$top/tests/conformance/step_hosts.py" "$att" "$work/nostep1/nostep1.xplane.pb" -1 0 ||
  fail "step_hosts.py for nostep1"
cases+=("$work/nostep1/nostep1.xplane.pb")
# TensorFlow grouping events (scripts/add_tf_steps.py), where XProf 2.24.2 groups by the `_r`
# roots alone: TF loop iterations (ExecutorState::Process with step_id/iter_num) around the
# launches of the marked attention XPlane (the train steps stay); the same loop without any
# `_r` root (no steps, XProf's diagnostic); the iterations as `_r` roots, tf.data ones
# included (4 steps of 6 groups, not tsl's 3 loop iterations); the marked conv XPlane's
# roots with step_ids, one of a tf.data function (none skipped).
tfsteps() { # NAME IN MODE N
  mkdir -p "$work/$1"
  "$protopy" "$top/scripts/add_tf_steps.py" "$2" "$work/$1/$1.xplane.pb" "$3" "$4" ||
    fail "add_tf_steps.py for $1"
}
tfsteps tf_loop_train "$att" loop 3
tfsteps tf_loop "$data/mi300_jax08_attention.xplane.pb" loop 3
tfsteps tf_loop_roots "$data/mi300_jax08_attention.xplane.pb" rootloop 3
tfsteps tf_data "$work/mi300x8_jax_conv/mi300x8_jax_conv.xplane.pb" tfdata 0
cases+=("$work/tf_loop_train/tf_loop_train.xplane.pb" "nosteps=$work/tf_loop/tf_loop.xplane.pb"
        "$work/tf_loop_roots/tf_loop_roots.xplane.pb" "$work/tf_data/tf_data.xplane.pb")
for spec in hosts_same:0:0 hosts_10ms:0:10000000 hosts_20ms:0:20000000 hosts_nostep0:1:2000 \
  hosts_nosteps:99:0 hosts_nostep1:-1:5000000; do
  IFS=: read -r name first shift <<< "$spec"
  mkdir -p "$work/$name"
  cp "$att" "$work/$name/host0.xplane.pb"
  "$protopy" "$top/tests/conformance/step_hosts.py" "$att" "$work/$name/host1.xplane.pb" \
    "$first" "$shift" || fail "step_hosts.py for $name"
  case $name in hosts_nosteps) pre=nosteps= ;; *) pre= ;; esac
  cases+=("$pre$work/$name/host0.xplane.pb,$work/$name/host1.xplane.pb")
done
mkdir -p "$work/hosts_three"
cp "$att" "$work/hosts_three/host0.xplane.pb"
"$protopy" "$top/tests/conformance/step_hosts.py" "$att" "$work/hosts_three/host1.xplane.pb" 0 \
  3000000 || fail "step_hosts.py for hosts_three"
"$protopy" "$top/tests/conformance/step_hosts.py" "$att" "$work/hosts_three/host2.xplane.pb" 1 \
  10000000 || fail "step_hosts.py for hosts_three"
cases+=("$work/hosts_three/host0.xplane.pb,$work/hosts_three/host1.xplane.pb,$work/hosts_three/host2.xplane.pb")
# Host-only programs, profiled now; the JAX one twice for a two-host run.
profile() { # KIND PYTHON DIR: one XPlane of the program, printed
  "$2" "$top/tests/conformance/steps_programs.py" "$1" "$3" > "$3.log" 2>&1 ||
    { cat "$3.log"; fail "steps_programs.py $1"; }
  set -- "$3"/plugins/profile/*/*.xplane.pb
  [ -f "$1" ] || fail "steps_programs.py wrote no XPlane under $3"
  echo "$1"
}
mkdir -p "$work/jax_cpu" "$work/jax_cpu_hosts" "$work/tf_cpu"
p=$(profile jax "$jax_py" "$work/jax_run0") || exit 1
cp "$p" "$work/jax_cpu/jax_cpu.xplane.pb"
cp "$p" "$work/jax_cpu_hosts/host0.xplane.pb"
p=$(profile jax "$jax_py" "$work/jax_run1") || exit 1
cp "$p" "$work/jax_cpu_hosts/host1.xplane.pb"
p=$(profile tf "$tf_py" "$work/tf_run") || exit 1
cp "$p" "$work/tf_cpu/tf_cpu.xplane.pb"
cases+=("$work/jax_cpu/jax_cpu.xplane.pb"
        "$work/jax_cpu_hosts/host0.xplane.pb,$work/jax_cpu_hosts/host1.xplane.pb"
        "$work/tf_cpu/tf_cpu.xplane.pb")
"$python" "$top/tests/conformance/roofline_steps.py" "$PROFQ" "${cases[@]}" 2>"$work/xprof.log"
rc=$?
[ $rc -eq 0 ] || tail -n 5 "$work/xprof.log"
exit $rc
