#!/usr/bin/env bash
# Conformance: profq memory-viewer --format xprof against XProf itself (pip xprof,
# xspace_to_tools_data, tool memory_viewer) on every module and memory space of every
# XPlane and standalone HloProto in ../shared/data. Compare rules: memviewer_xprof.py and
# docs/internals/memviewer.md. Skips (77) when ../shared/data or PyPI is absent.
set -u
SUITE=memviewer_xprof
. "$(dirname "$0")/lib.sh"
require_data "$SHARED/data"
use_venv xprof tests/xprof-requirements.txt
exec "$python" "$top/tests/conformance/memviewer_xprof.py" "$PROFQ" "$SHARED/data" "$top/build/conformance-xprof" \
  "$top/fuzz/corpus/hlo" "$top/tests/fixtures" "$@"
