# tests/browser/lib.sh - what every headless-Chromium suite in tests/browser shares; sourced,
# never run. After `browser_init NAME PREFIX` a suite has: $top (the repository), $PROFQ,
# $SHARED, $browser (Debian's `chromium`), $work (a scratch directory removed on exit),
# bad() and $failed, skip() (prints "NAME: SKIP: why" and exits 77; tests/run.sh turns a
# skip into a failure under CI=true), and the two ways the suites drive Chromium:
#   chrome ARG...                   headless Chromium, offline, with a throw-away profile
#   load_page FILE DOM CONSOLE [MS] the page's DOM after MS ms of virtual time (3000) into
#                                   DOM, and its console messages (one a line) into CONSOLE
# Not here: what each suite checks of its pages.

# browser_init NAME PREFIX
browser_init() {
    suite=$1
    top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    PROFQ=${PROFQ:-$top/build/profq}
    SHARED=${SHARED:-$top/../shared}
    browser=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$browser" ] || skip "chromium is not installed (scripts/deps.sh test installs it)"
    work=$(mktemp -d "${TMPDIR:-/tmp}/profq-$2-XXXXXX")
    trap 'rm -rf "$work"' EXIT
    failed=0
}

skip() {
    echo "$suite: SKIP: $*"
    exit 77
}

bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

chrome() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/profile" "$@"
}

# load_page FILE DOM CONSOLE [MS]
load_page() {
    chrome --enable-logging=stderr --v=0 --virtual-time-budget="${4:-3000}" \
        --dump-dom "file://$1" >"$2" 2>"$work/stderr"
    grep 'CONSOLE' "$work/stderr" >"$3"
}
