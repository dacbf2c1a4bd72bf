# setup.bash - sourced by the tests/lib suites: strict mode, the repository top as the working
# directory, BUILD and CC, a temporary directory removed on exit ($tmp), and fail MESSAGE
# (prints "<suite>: MESSAGE" on stderr and exits 1).
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
CC=${CC:-cc}
suite=$(basename "$0" .sh)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "$suite: $*" >&2
  exit 1
}
