#!/usr/bin/env bash
# The memory-viewer benchmark (part of `make bench`): profq memory-viewer against XProf's
# memory_viewer (pip xprof in build/venv-xprof) on the same inputs, side by side in one
# run: XProf from the file (first request) and cached, profq as a process and in process
# (bench/memviewer_inproc.c over build/libprofq.a). Prints Markdown tables and saves them to
# build/bench/memviewer.md. Needs ../shared. BENCH_RUNS (default 20) runs of each, and
# BENCH_INPROC_RUNS (default 1000) of the in-process loop.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SHARED=${SHARED:-$top/../shared}
[ -d "$SHARED/data" ] || { echo "bench: $SHARED/data is absent; memory-viewer bench skipped" >&2; exit 0; }
py=$(scripts/venv.sh xprof tests/xprof-requirements.txt)
mkdir -p build/bench "$BUILD/bench"
inproc="$BUILD/bench/memviewer_inproc"
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -Iinclude \
  -o "$inproc" bench/memviewer_inproc.c "$BUILD/libprofq.a" -llzma -lz -lzstd -ldeflate -lpthread -lm
"$py" bench/memviewer.py "$BUILD/profq" "$inproc" "$SHARED/data" build/bench/memviewer-runs \
  tests/fixtures 2>/dev/null | tee build/bench/memviewer.md
