#!/usr/bin/env bash
# Conformance suite: every real XSpace under $SHARED/data/xplane decoded by Python's
# protobuf (schema compiled from the spec's field table) and by `profq info`, and the
# structural counts compared (tests/conformance/xplane_counts.py says what exactly).
# Exit 0 all match, 1 any mismatch, 77 (skip, with a message) when $SHARED/data is
# absent or PyPI cannot be reached -- except under CI=true, where those fail (exit 1).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
PROFQ=${PROFQ:-$top/$BUILD/profq}
SHARED=${SHARED:-$top/../shared}
data="$SHARED/data/xplane"

skip() {
  echo "xplane_counts: SKIP: $*"
  if [ "${CI:-}" = "true" ]; then
    echo "xplane_counts: CI=true forbids skipping"
    exit 1
  fi
  exit 77
}

[ -d "$data" ] || skip "$data is absent (real profiles live in ../shared/data)"
if [ ! -x "$PROFQ" ]; then
  echo "xplane_counts: FAIL: no profq binary at $PROFQ (build it first: make BUILD=$BUILD all)"
  exit 1
fi
python=$(scripts/venv.sh test tests/requirements.txt) ||
  skip "could not create the test venv from tests/requirements.txt (is PyPI reachable?)"

exec "$python" tests/conformance/xplane_counts.py \
  --profq "$PROFQ" \
  --data "$data" \
  --run-dir "$data/mi300x8_jax_conv_legacy" \
  --corrupt "$data/corrupt/tpu_inference_2.utf8-mangled.xplane.pb"
