#!/usr/bin/env bash
# Conformance suite: every real XSpace under $SHARED/data/xplane decoded by Python's
# protobuf (schema compiled from the spec's field table) and by `profq info`, and the
# structural counts compared (tests/conformance/xplane_counts.py says what exactly).
# Exit 0 all match, 1 any mismatch, 77 (skip, with a message) when $SHARED/data is
# absent or PyPI cannot be reached -- except under CI=true, where those fail (exit 1).
set -u
SUITE=xplane_counts
. "$(dirname "$0")/lib.sh"
cd "$top"
data="$SHARED/data/xplane"
require_data "$data"
require_profq
use_venv test tests/requirements.txt

exec "$python" tests/conformance/xplane_counts.py \
  --profq "$PROFQ" \
  --data "$data" \
  --run-dir "$data/mi300x8_jax_conv_legacy" \
  --corrupt "$data/corrupt/tpu_inference_2.utf8-mangled.xplane.pb"
