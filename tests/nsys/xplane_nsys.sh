#!/usr/bin/env bash
# `profq nsys` on JAX XPlane GPU profiles (issue 12 Deliver 4): tests/nsys/xplane_nsys.py
# recomputes the module table of every GPU XPlane under ../shared/data/xplane from the
# protobuf (decoded by Python's protobuf runtime with the conformance suite's schema) and
# compares it with `profq nsys --format json`; bad uses exit 3. tests/nsys/xplane_comm.py does
# the same for runtime, opcodes, collectives (and a synthetic 2-GPU all-reduce) and variability.
# Exit 0 all equal, 1 a difference, 77 skip (no ../shared or PyPI; a failure under CI=true).
set -u
SUITE=xplane_nsys
. "$(dirname "$0")/../conformance/lib.sh"
cd "$top"
data="$SHARED/data/xplane"
require_data "$data"
require_profq
use_venv test tests/requirements.txt
archive="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip" # carries XLA's protos
[ -f "$archive" ] || skip "$archive is absent (real profiles live in ../shared/data)"
rc=0
"$python" tests/nsys/xplane_nsys.py --profq "$PROFQ" --data "$data" || rc=1
"$python" tests/nsys/xplane_comm.py --profq "$PROFQ" --data "$data" --archive "$archive" || rc=1
exit $rc
