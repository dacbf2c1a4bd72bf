#!/usr/bin/env bash
# Conformance: profq memory-viewer --format xprof against XProf itself (pip xprof,
# xspace_to_tools_data, tool memory_viewer) on every module and memory space of every
# XPlane and standalone HloProto in ../shared/data. Compare rules: memviewer_xprof.py and
# docs/internals/memviewer.md. Skips (77) when ../shared/data or PyPI is absent.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${SHARED:-$top/../shared}
PROFQ=${PROFQ:-$top/build/profq}
if [ ! -d "$SHARED/data" ]; then
  echo "skip: $SHARED/data is absent"; exit 77
fi
py=$("$top/scripts/venv.sh" xprof "$top/tests/requirements-xprof.txt") || {
  echo "skip: could not install XProf from PyPI"; exit 77; }
exec "$py" "$top/tests/conformance/memviewer_xprof.py" "$PROFQ" "$SHARED/data" "$top/build/conformance-xprof" \
  "$top/fuzz/corpus/hlo" "$top/tests/fixtures" "$@"
