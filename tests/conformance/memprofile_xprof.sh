#!/usr/bin/env bash
# Conformance: profq memory-profile --format xprof against XProf's memory_profile (pip
# xprof) on every XPlane in ../shared/data. Skips (77) without ../shared/data or PyPI.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${SHARED:-$top/../shared}
PROFQ=${PROFQ:-$top/build/profq}
if [ ! -d "$SHARED/data" ]; then
  echo "skip: $SHARED/data is absent"; exit 77
fi
py=$("$top/scripts/venv.sh" xprof "$top/tests/requirements-xprof.txt") || {
  echo "skip: could not install XProf from PyPI"; exit 77; }
exec "$py" "$top/tests/conformance/memprofile_xprof.py" "$PROFQ" "$SHARED/data" \
  "$top/build/conformance-xprof-mp"
