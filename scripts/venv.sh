#!/usr/bin/env bash
# Creates (once) the Python virtualenv build/venv-NAME from a requirements file and prints
# its python. Python is for tests, oracles, benchmarks and the demo only, never for profq.
#   scripts/venv.sh NAME REQUIREMENTS_FILE
# Exits 1 with a message when PyPI cannot be reached (callers turn that into a skip,
# except under CI=true where a skip is a failure).
set -euo pipefail
name=$1 req=$2
top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build/venv-$name"
stamp="$dir/.req.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$dir/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$dir/bin/python"
  exit 0
fi
rm -rf "$dir"
python3 -m venv "$dir" >&2
if ! "$dir/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2; then
  echo "profq: could not install $req from PyPI into $dir" >&2
  rm -rf "$dir"
  exit 1
fi
echo "$want" > "$stamp"
echo "$dir/bin/python"
