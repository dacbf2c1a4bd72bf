#!/usr/bin/env bash
# tests/python.sh - the Python package (python/, README "Python"), as a user installs it:
# `pip install ./python` into the venv build/venv-python (tests/python-requirements.txt,
# pinned; built without build isolation so that the venv's pinned setuptools builds it and
# the build's own `make` makes $BUILD/libprofq.so), then `python -m pytest python/tests`:
# every function of the package on every file of ../shared/data compared with the CLI's
# JSON, missing and corrupt files, struct layouts against the C compiler's.
# Called by `make test` (Makefile test-run) after tests/run.sh. A skip (no ../shared/data, no
# PyPI) exits 0 with SKIP, or 1 under CI=true, where a skip is a failure. Under SANITIZE the
# sanitized library is loaded into Python with the sanitizer runtimes preloaded.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
export PROFQ=${PROFQ:-$top/$BUILD/profq} SHARED=${SHARED:-$top/../shared}

skip() {
  if [ "${CI:-}" = "true" ]; then
    echo "python: FAIL: skipped ($1), and CI=true forbids skips"; exit 1
  fi
  echo "python: SKIP: $1"; exit 0
}

[ -d "$SHARED/data" ] || skip "$SHARED/data is absent"
py=$(scripts/venv.sh python tests/python-requirements.txt) || skip "could not create the venv"
# The package's build runs make itself: not inside this make's jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! PROFQ_MAKE_BUILD=$BUILD "$py" -m pip install -q --disable-pip-version-check \
    --no-build-isolation --no-deps --force-reinstall ./python; then
  echo "python: FAIL: pip install ./python"; exit 1
fi
if [ -n "${SANITIZE:-}" ]; then
  pre=""
  for rt in asan ubsan; do
    case ",$SANITIZE," in *address*) [ $rt = asan ] && pre="$pre $(${CC:-cc} -print-file-name=libasan.so)" ;; esac
    case ",$SANITIZE," in *undefined*) [ $rt = ubsan ] && pre="$pre $(${CC:-cc} -print-file-name=libubsan.so)" ;; esac
  done
  # Python's own allocations are not profq's: leaks are checked by the C suites.
  export LD_PRELOAD="${pre# }" ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
fi
out=$(mktemp "${TMPDIR:-/tmp}/profq-python-XXXXXX")
trap 'rm -f "$out"' EXIT
"$py" -m pytest -q -p no:cacheprovider -rs python/tests 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if [ "$rc" -eq 0 ] && [ "${CI:-}" = "true" ] && grep -q " skipped" "$out"; then
  echo "python: FAIL: tests were skipped, and CI=true forbids skips"; exit 1
fi
exit "$rc"
