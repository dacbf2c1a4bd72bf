#!/usr/bin/env bash
# The nsys-jax archive as a profq source (issue 12): tests/nsys/archive_ranges.py checks
# `profq info` on the shared archive against pyarrow and bad archives (truncated, no
# trace.parquet, another column set) for exit 3, tests/nsys/bad_dumps.py corrupt HLO dumps,
# tests/nsys/comm_rules.py the communication rules on hand-encoded HLO dumps;
# tests/nsys/archive_loader.py, when present, checks `profq nsys` (modules and the
# communication side: alignment, runtime, opcodes, collectives, variability, bias) against
# the archive-era nsys-jax loader run as the oracle; tests/nsys/newer_loader.py builds
# newer-layout archives from the shared one (tests/nsys/newer_archive.py) and checks profq
# against the current (HEAD) loader on them, one archive, an extracted archive directory and
# several archives combined; tests/nsys/bad_archives.py: unsafe, truncated and corrupt
# archives and unknown schemas exit 3.
# Venvs: build/venv-nsys (tests/nsys-requirements.txt: pyarrow) and build/venv-nsysloader
# (tests/nsys/loader-requirements.txt: the loader's pandas, pyarrow, numpy, protobuf and
# grpcio-tools to compile the archive's protos).
# Exit 0 all equal, 1 a difference, 77 skip (no PyPI, or no ../shared).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SHARED=${SHARED:-$top/../shared}
profq="$top/$BUILD/profq"
[ -x "$profq" ] || { echo "archive: FAIL: no $profq (make $BUILD/profq)"; exit 1; }
archive="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip"
[ -f "$archive" ] || { echo "archive: SKIP: $archive is absent"; exit 77; }
python=$(scripts/venv.sh nsys tests/nsys-requirements.txt) || {
  echo "archive: SKIP: could not create the venv from tests/nsys-requirements.txt (is PyPI reachable?)"
  exit 77
}
rc=0
"$python" tests/nsys/archive_ranges.py --profq "$profq" --archive "$archive" || rc=1
"$python" tests/nsys/bad_dumps.py --profq "$profq" || rc=1
"$python" tests/nsys/comm_rules.py --profq "$profq" || rc=1
if [ -f tests/nsys/archive_loader.py ]; then
  loader=$(scripts/venv.sh nsysloader tests/nsys/loader-requirements.txt) || {
    echo "archive: SKIP: could not create the venv from tests/nsys/loader-requirements.txt"
    exit 77
  }
  "$loader" tests/nsys/archive_loader.py --profq "$profq" --archive "$archive" \
    --loader "$SHARED/peers/nsys-jax/archive-era/python/jax_nsys" || rc=1
  "$loader" tests/nsys/newer_loader.py --profq "$profq" --archive "$archive" \
    --head "$SHARED/peers/nsys-jax/head" || rc=1
  "$loader" tests/nsys/bad_archives.py --profq "$profq" --archive "$archive" || rc=1
  "$loader" tests/nsys/meta_devices.py --profq "$profq" --archive "$archive" || rc=1
  "$loader" tests/nsys/compile_loader.py --profq "$profq" --archive "$archive" \
    --loader "$SHARED/peers/nsys-jax/archive-era/python/jax_nsys" \
    --head "$SHARED/peers/nsys-jax/head" || rc=1
fi
# The heap and flame sections against the notebook's cells (protobuf + grpcio-tools: build/venv-test).
protopy=$(scripts/venv.sh test tests/requirements.txt) || {
  echo "archive: SKIP: could not create the venv from tests/requirements.txt"
  exit 77
}
"$protopy" tests/nsys/heap_notebook.py --profq "$profq" --archive "$archive" || rc=1
"$protopy" tests/nsys/flame_notebook.py --profq "$profq" --archive "$archive" || rc=1
exit $rc
