#!/usr/bin/env bash
# tests/cli/timing.sh - the hidden --timing option (src/cli/main.c, common.c; used by
# bench/memviewer.sh): the same stdout and exit code as without it, one "profq timing:" line
# on stderr with the phases exec, open, compute, write, free and total, each CPU ms/wall
# ms/faults, whose CPU times add up to the total; after "--" it is a path, not the option.
# Exit 0 pass, 1 fail, 77 skip (no shared data).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-timing-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
hlo=$(ls "$SHARED"/data/hlo/h100_* 2>/dev/null | head -1)
xp="$SHARED/data/xplane/tpu_inference_2.xplane.pb"
if [ -z "$hlo" ] || [ ! -f "$xp" ]; then
    echo "timing: SKIP: $SHARED/data is absent"
    exit 77
fi
check() { # NAME ARGS...: with and without --timing
    local name=$1
    shift
    "$PROFQ" "$@" >"$work/a" 2>"$work/ae"
    local ra=$?
    "$PROFQ" "$@" --timing >"$work/b" 2>"$work/be"
    local rb=$?
    [ $ra -eq $rb ] || bad "$name: exit $ra without --timing, $rb with"
    cmp -s "$work/a" "$work/b" || bad "$name: stdout differs with --timing"
    [ "$(grep -c '^profq timing: ' "$work/be")" = 1 ] || bad "$name: no timing line: $(cat "$work/be")"
    grep -v '^profq timing: ' "$work/be" | cmp -s - "$work/ae" || bad "$name: other stderr changed"
    python3 - "$work/be" "$name" <<'PY' || fail=$((fail + 1))
import re, sys
line = [l for l in open(sys.argv[1]) if l.startswith("profq timing: ")][0]
f = dict(re.findall(r"(\w+)=([-0-9./]+)", line))
want = ["exec", "open", "compute", "write", "free", "total"]
if sorted(f) != sorted(want):
    sys.exit(f"FAIL: {sys.argv[2]}: phases {sorted(f)}")
cpu = {k: float(v.split("/")[0]) for k, v in f.items()}
parts = sum(cpu[k] for k in want[:-1])
if any(v < 0 for v in cpu.values()) or abs(parts - cpu["total"]) > 0.01 + 1e-3 * cpu["total"]:
    sys.exit(f"FAIL: {sys.argv[2]}: phases {cpu} do not add up")
if cpu["exec"] <= 0:
    sys.exit(f"FAIL: {sys.argv[2]}: exec is 0: {line}")
PY
}
check memory-viewer memory-viewer --format xprof --module 'jit_train_step(16)' "$hlo"
check ops-xprof ops --format xprof "$xp"
check roofline roofline --format xprof "$xp"
check info info "$xp"
"$PROFQ" info -- --timing >/dev/null 2>"$work/e"
grep -q '^profq timing' "$work/e" && bad "--timing after -- was taken as the option"
[ $fail -eq 0 ] && echo "timing: all checks passed"
[ $fail -eq 0 ]
