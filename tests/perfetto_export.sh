#!/usr/bin/env bash
# Conformance: `profq export` of every XPlane in $SHARED/data loads in Perfetto's trace
# processor (pip `perfetto`, pinned in tests/perfetto-requirements.txt, in
# build/venv-perfetto) with one slice per XPlane event and the planes/lines as the
# processes/threads (tests/conformance/perfetto_export.py says what is compared).
# The trace processor downloads its native trace_processor_shell on first use, from a host
# outside the package registries; where that is blocked the suite exits 77 with a message
# (set PERFETTO_TP_SHELL to a local trace_processor_shell to run it anyway). It is not in
# tests/run.sh for that reason: under CI=true a skip is a failure. Run it by hand:
#   tests/perfetto_export.sh
# Exit 0 all match, 1 mismatch, 77 skip ($SHARED/data or PyPI absent, no trace processor).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
PROFQ=${PROFQ:-$top/$BUILD/profq}
SHARED=${SHARED:-$top/../shared}
data="$SHARED/data/xplane"
[ -d "$data" ] || { echo "perfetto_export: SKIP: $data is absent"; exit 77; }
[ -x "$PROFQ" ] || { echo "perfetto_export: FAIL: no profq at $PROFQ"; exit 1; }
python=$(scripts/venv.sh perfetto tests/perfetto-requirements.txt) || {
  echo "perfetto_export: SKIP: could not create the venv from tests/perfetto-requirements.txt (is PyPI reachable?)"
  exit 77
}
exec "$python" tests/conformance/perfetto_export.py --profq "$PROFQ" --data "$data"
