#!/usr/bin/env bash
# The nsys readers against pyarrow / Python's zipfile (tests/nsys/parquet_pyarrow.py says what
# is compared): pyarrow-written parquet files in every supported combination, refused ones,
# and the shared nsys-jax archive's trace.parquet, pushpop csv.xz and member list.
# pyarrow comes from build/venv-nsys (scripts/venv.sh, pinned in tests/nsys-requirements.txt).
# Exit 0 all equal, 1 a difference, 77 skip (no PyPI, or no ../shared: then only the
# generated files are checked and the suite still fails on a difference).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SHARED=${SHARED:-$top/../shared}
pqdump="$top/$BUILD/tests/nsys_pqdump"
[ -x "$pqdump" ] || { echo "parquet_pyarrow: FAIL: no $pqdump (make $BUILD/tests/nsys_pqdump)"; exit 1; }
python=$(scripts/venv.sh nsys tests/nsys-requirements.txt) || {
  echo "parquet_pyarrow: SKIP: could not create the venv from tests/nsys-requirements.txt (is PyPI reachable?)"
  exit 77
}
archive="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip"
if [ -f "$archive" ]; then
  exec "$python" tests/nsys/parquet_pyarrow.py --pqdump "$pqdump" --archive "$archive"
fi
"$python" tests/nsys/parquet_pyarrow.py --pqdump "$pqdump" || exit 1
echo "parquet_pyarrow: SKIP: $archive is absent (generated files checked)"
exit 77
