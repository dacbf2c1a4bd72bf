# tests/conformance/lib.sh - sourced by the conformance suites (bash): where profq, the
# build and ../shared are, and the skip rule. Set SUITE (the suite's name, for messages)
# before sourcing. Suite contract (tests/run.sh): exit 0 pass, 1 fail, 77 skip with a
# message -- except under CI=true, where a skip fails (CI has ../shared and PyPI).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
PROFQ=${PROFQ:-$top/$BUILD/profq}
SHARED=${SHARED:-$top/../shared}

# skip MESSAGE...: exits 77 with the message (1 under CI=true).
skip() {
  echo "$SUITE: SKIP: $*"
  if [ "${CI:-}" = "true" ]; then
    echo "$SUITE: CI=true forbids skipping"
    exit 1
  fi
  exit 77
}

# require_data DIR: skips when DIR (real profiles from ../shared/data) is absent.
require_data() {
  [ -d "$1" ] || skip "$1 is absent (real profiles live in ../shared/data)"
}

# require_profq: fails when the profq binary is not built.
require_profq() {
  if [ ! -x "$PROFQ" ]; then
    echo "$SUITE: FAIL: no profq binary at $PROFQ (build it first: make BUILD=$BUILD all)"
    exit 1
  fi
}

# use_venv NAME REQUIREMENTS: sets $python to the python of build/venv-NAME (made once from
# the requirements file by scripts/venv.sh); skips when PyPI cannot be reached.
use_venv() {
  python=$("$top/scripts/venv.sh" "$1" "$top/$2") ||
    skip "could not create the $1 venv from $2 (is PyPI reachable?)"
}
