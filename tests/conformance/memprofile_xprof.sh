#!/usr/bin/env bash
# Conformance: profq memory-profile --format xprof against XProf's memory_profile (pip
# xprof) on every XPlane in ../shared/data. Skips (77) without ../shared/data or PyPI.
set -u
SUITE=memprofile_xprof
. "$(dirname "$0")/lib.sh"
require_data "$SHARED/data"
use_venv xprof tests/xprof-requirements.txt
exec "$python" "$top/tests/conformance/memprofile_xprof.py" "$PROFQ" "$SHARED/data" \
  "$top/build/conformance-xprof-mp"
