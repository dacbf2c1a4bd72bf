#!/usr/bin/env bash
# The memory-viewer benchmark (part of `make bench`): profq memory-viewer against XProf's
# memory_viewer (pip xprof in build/venv-xprof) on the same inputs, side by side in one
# run. Prints a Markdown table and saves it to build/bench/memviewer.md. Needs ../shared.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SHARED=${SHARED:-$top/../shared}
[ -d "$SHARED/data" ] || { echo "bench: $SHARED/data is absent; memory-viewer bench skipped" >&2; exit 0; }
py=$(scripts/venv.sh xprof tests/requirements-xprof.txt)
mkdir -p build/bench
"$py" bench/memviewer.py "$BUILD/profq" "$SHARED/data" build/bench/memviewer-runs 2>/dev/null \
  | tee build/bench/memviewer.md
