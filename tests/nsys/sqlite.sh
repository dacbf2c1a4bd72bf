#!/usr/bin/env bash
# Nsight SQLite exports as profq sources (issue 12): tests/nsys/sqlite_check.py checks the
# shared exports against direct SQL (Python's sqlite3, no venv) and bad exports for exit 3;
# tests/nsys/sqlite_nsys.py checks `profq nsys` on an export given XLA ranges against SQL.
# Also: build/profq does not link libsqlite3 (it is dlopened on first use, io/lazylib.c).
# Exit 0 all hold, 1 a difference, 77 skip (no ../shared).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SHARED=${SHARED:-$top/../shared}
profq="$top/$BUILD/profq"
[ -x "$profq" ] || { echo "sqlite: FAIL: no $profq (make $BUILD/profq)"; exit 1; }
exports=("$SHARED"/data/nsys/gtx1060_con_kernel.sqlite "$SHARED"/data/nsys/gtx1060_concurrent_profile1.sqlite)
for f in "${exports[@]}"; do
  [ -f "$f" ] || { echo "sqlite: SKIP: $f is absent"; exit 77; }
done
python3 -c 'import sqlite3' || { echo "sqlite: FAIL: python3 has no sqlite3 module"; exit 1; }
rc=0
if readelf -d "$profq" | grep -q 'libsqlite3'; then
  echo "sqlite: FAIL: $profq links libsqlite3 (it should be dlopened on first use)"
  rc=1
fi
python3 tests/nsys/sqlite_check.py --profq "$profq" "${exports[@]}" || rc=1
python3 tests/nsys/sqlite_nsys.py --profq "$profq" "${exports[@]}" || rc=1
exit $rc
