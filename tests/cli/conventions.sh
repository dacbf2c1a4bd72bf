#!/usr/bin/env bash
# tests/cli/conventions.sh - the command-line conventions (issue 11 item 5, issue 16 items
# 15, 17, 19): getopt_long forms (--top=3, -oFILE, options after paths), `-` for stdin,
# `cmd | head` exits 4, --format errors name the command's formats, bounded reads of pipes
# and devices, directories and FIFOs named for what they are. Exit 0 pass, 1 fail.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-cli-XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
# same NAME CMD1 -- CMD2: both exit 0 with the same stdout
same() {
    local name=$1
    shift
    local a=() b=()
    while [ "$1" != "--" ]; do a+=("$1"); shift; done
    shift
    b=("$@")
    "$PROFQ" "${a[@]}" >"$work/a" 2>"$work/ae"
    local ra=$?
    "$PROFQ" "${b[@]}" >"$work/b" 2>"$work/be"
    local rb=$?
    if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ -s "$work/a" ] && cmp -s "$work/a" "$work/b"; then
        ok
    else
        bad "$name: exit $ra/$rb, $(cmp "$work/a" "$work/b" 2>&1 | head -1) $(head -c 300 "$work/be")"
    fi
}

SHARED=${SHARED:-$top/../shared}
if [ ! -d "$SHARED/data/xplane" ]; then
    echo "cli: SKIP: $SHARED/data is absent (the inputs of these checks)"
    exit 77
fi
xp=$SHARED/data/xplane/mi300_jax08_attention.xplane.pb
big=$SHARED/data/xplane/tpu_inference_2.xplane.pb
tj=$(ls -S "$SHARED"/data/trace-json/*.json.gz | tail -1)
ttlog=$(ls -S "$SHARED"/data/tenstorrent/*.log | tail -1)
export SOURCE_DATE_EPOCH=0

# --- 1. option forms (getopt_long) --------------------------------------------------------
same "ops --top=3 equals --top 3" ops --top 3 "$xp" -- ops --top=3 "$xp"
same "ops: options after the path" ops --top 3 --format json "$xp" -- ops "$xp" --format=json --top=3
same "info -fjson equals --format json" info --format json --no-hash "$xp" -- info -fjson --no-hash "$xp"
same "memory-viewer --format=xprof" memory-viewer --format xprof "$big" -- memory-viewer "$big" --format=xprof
"$PROFQ" info --no-hash -o"$work/o1.txt" "$xp" && "$PROFQ" info --no-hash "$xp" >"$work/o2.txt" &&
    cmp -s "$work/o1.txt" "$work/o2.txt" && ok || bad "-oFILE"
"$PROFQ" info --no-hash --output="$work/o3.txt" "$xp" && cmp -s "$work/o3.txt" "$work/o2.txt" &&
    ok || bad "--output=FILE"
# -- ends the options: what follows is a path even if it starts with -
"$PROFQ" info -- --top=3 >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 3 ] && grep -q "^profq: --top=3: cannot open" "$work/err" && ok || bad "-- then a path: exit $rc"
# unknown options and missing values: usage (exit 2)
for args in "ops --bogus $xp" "ops --top" "roofline --by op $xp" "info --no-hash=1 $xp" "report -x"; do
    "$PROFQ" $args >"$work/out" 2>"$work/err"
    rc=$?
    [ $rc -eq 2 ] && [ ! -s "$work/out" ] && [ -s "$work/err" ] && ok || bad "profq $args: exit $rc"
done
# --format errors name the formats of that command
check_formats() {
    local cmd=$1 want=$2
    "$PROFQ" $cmd --format yaml "$xp" >/dev/null 2>"$work/err"
    local rc=$?
    if [ $rc -eq 2 ] && grep -qF "unknown format 'yaml' (expected $want)" "$work/err"; then
        ok
    else
        bad "$cmd --format yaml: exit $rc: $(cat "$work/err")"
    fi
}
check_formats info "text or json"
check_formats ops "text, json or xprof"
check_formats roofline "text, json or xprof"
check_formats memory-viewer "text, json or xprof"
check_formats memory-profile "text, json or xprof"
check_formats memory "text, json, tsv or md"
check_formats heap "text, json, tsv or svg"

# --- 2. `-` for stdin ----------------------------------------------------------------------
# A profile on stdin: the same output but the source's name.
"$PROFQ" info --no-hash "$xp" | sed 1d >"$work/a"
"$PROFQ" info --no-hash - <"$xp" | sed 1d >"$work/b"
"$PROFQ" info --no-hash - <"$xp" | head -1 | grep -q "<stdin>" && cmp -s "$work/a" "$work/b" &&
    [ -s "$work/a" ] && ok || bad "info - (stdin, redirected)"
cat "$xp" | "$PROFQ" ops - >"$work/b" && "$PROFQ" ops "$xp" >"$work/a" && cmp -s "$work/a" "$work/b" &&
    ok || bad "ops - (stdin, a pipe)"
cat "$xp" | "$PROFQ" scan --format json - | grep -v '"path"' >"$work/b"
"$PROFQ" scan --format json "$xp" | grep -v '"path"' >"$work/a"
cmp -s "$work/a" "$work/b" && ok || bad "scan - (stdin)"
"$PROFQ" info - "$xp" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "info - PATH: a stream is read alone"
if true; then
    "$PROFQ" summarize "$tj" | grep -v '"source_path"' >"$work/a"
    cat "$tj" | "$PROFQ" summarize - | grep -v '"source_path"' >"$work/b"
    [ -s "$work/a" ] && cmp -s "$work/a" "$work/b" && ok || bad "summarize - (trace JSON on stdin)"
    "$PROFQ" summarize -o "$work/s.json" "$tj" >/dev/null
    same "report - (summary on stdin)" report "$work/s.json" -- report - <"$work/s.json"
    cat "$work/s.json" | "$PROFQ" compare "$work/s.json" - >"$work/c" && ok || bad "compare SUMMARY -"
    cat "$work/s.json" | "$PROFQ" query - --question "top ops" >"$work/q" && ok || bad "query -"
fi
if true; then
    # the same summary but its title, which names the log (stdin)
    "$PROFQ" tt summary "$ttlog" | sed 1d >"$work/a"
    "$PROFQ" tt summary - <"$ttlog" >"$work/b"
    head -1 "$work/b" | grep -q "stdin" && sed 1d "$work/b" | cmp -s "$work/a" - && [ -s "$work/a" ] &&
        ok || bad "tt summary - (log on stdin)"
fi
# a summary-reading command on an empty pipe: exit 3 naming <stdin>, no temporary path
: | "$PROFQ" report - >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 3 ] && grep -q "^profq: <stdin>" "$work/err" && ok || bad "report - on empty stdin: $rc $(cat "$work/err")"

# --- 3. a closed pipe: exit 4, no message ------------------------------------------------
set -o pipefail
"$PROFQ" export "$big" 2>"$work/err" | head -c 10 >/dev/null
rc=$?
set +o pipefail
[ $rc -eq 4 ] && [ ! -s "$work/err" ] && ok || bad "export | head -c 10: exit $rc (want 4), stderr $(head -c 200 "$work/err")"
"$PROFQ" export "$big" 2>/dev/null | head -c 10 >/dev/null
[ "${PIPESTATUS[0]}" -eq 4 ] && ok || bad "PIPESTATUS of export | head: ${PIPESTATUS[0]}"

# --- 4. endless and non-regular inputs: bounded, exit 3 naming the limit ------------------
# Peak RSS through /usr/bin/time; a cap of 2 GB of address space guards the machine should
# the bound break, except for a sanitizer build (its shadow memory needs the space).
cap=2000000
grep -q __asan_init "$PROFQ" && cap=unlimited
for cmd in info summarize memory-viewer report "tt summary"; do
    s=$(date +%s)
    echo 0 >"$work/rss"
    timer=""
    [ -x /usr/bin/time ] && timer="/usr/bin/time -f %M -o $work/rss"
    PROFQ_STREAM_LIMIT=32M timeout 20 bash -c "ulimit -v $cap; exec $timer \"$PROFQ\" $cmd /dev/zero" \
        >/dev/null 2>"$work/err"
    rc=$?
    e=$(($(date +%s) - s))
    rss=$(tail -1 "$work/rss")
    if [ $rc -eq 3 ] && grep -q "more than 32 MiB from a pipe or device" "$work/err" && [ $e -lt 15 ] &&
        [ "${rss:-0}" -lt 600000 ]; then
        ok
    else
        bad "$cmd /dev/zero: exit $rc after ${e}s, peak RSS ${rss} KiB: $(head -c 300 "$work/err")"
    fi
done
head -c $((40 << 20)) /dev/zero | PROFQ_STREAM_LIMIT=32M "$PROFQ" info - >/dev/null 2>"$work/err"
[ $? -eq 3 ] && grep -q "<stdin>: more than 32 MiB" "$work/err" && ok || bad "40 MiB on stdin past a 32 MiB limit"
yes '{"a": 1}' | PROFQ_STREAM_LIMIT=1M "$PROFQ" history - >/dev/null 2>"$work/err"
[ $? -eq 3 ] && grep -q "<stdin>: more than 1 MiB" "$work/err" && ok || bad "history - past a 1 MiB limit"
PROFQ_STREAM_LIMIT= "$PROFQ" info /dev/null >/dev/null 2>"$work/err"
[ $? -eq 3 ] && ok || bad "info /dev/null: not exit 3"

# --- 5. what the path is: a folder, a FIFO without a writer ------------------------------
mkdir -p "$work/dir.json"
"$PROFQ" info "$work/dir.json" >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 3 ] && grep -q "is a directory holding no profile" "$work/err" && ok ||
    bad "info DIR.json: exit $rc: $(cat "$work/err")"
mkfifo "$work/fifo"
for cmd in info report; do # each waits 10 s
    timeout 30 "$PROFQ" $cmd "$work/fifo" >/dev/null 2>"$work/err"
    rc=$?
    grep -q "^profq: $work/fifo: a FIFO with no writer (waited 10 s)" "$work/err" && [ $rc -eq 3 ] && ok ||
        bad "$cmd FIFO without a writer: exit $rc: $(cat "$work/err")"
done
# a writer that comes after profq opened the FIFO is waited for
("$PROFQ" info --no-hash "$work/fifo" >"$work/late" 2>&1; echo $? >"$work/late.rc") &
sleep 1
cat "$xp" >"$work/fifo"
wait
[ "$(cat "$work/late.rc")" = 0 ] && grep -q "^source $work/fifo" "$work/late" && ok ||
    bad "info FIFO with a late writer: $(cat "$work/late.rc") $(head -c 200 "$work/late")"

# --- 6. progress on a terminal only ------------------------------------------------------
# A FIFO whose writer waits 2 s: work over a second. Under `script` stderr is a terminal.
slow() { (sleep 2; cat "$xp") >"$work/slow" & }
mkfifo "$work/slow"
if command -v script >/dev/null; then
    slow
    env -u CI script -qec "'$PROFQ' info --no-hash '$work/slow' >/dev/null" /dev/null >"$work/tty" 2>&1
    grep -q "profq info: .* MiB read, .* s" "$work/tty" && ok || bad "no progress line on a terminal"
    slow
    CI=true script -qec "'$PROFQ' info --no-hash '$work/slow' >/dev/null" /dev/null >"$work/tty" 2>&1
    grep -q "MiB read" "$work/tty" && bad "progress shown under CI" || ok
fi
slow
"$PROFQ" info --no-hash "$work/slow" >/dev/null 2>"$work/err"
[ $? -eq 0 ] && [ ! -s "$work/err" ] && ok || bad "progress (or a message) on stderr that is a file"
wait

# --- the man page: each command of the SYNOPSIS starts its own line (.br before it) ------
awk '/^\.SH SYNOPSIS/{on=1; next} /^\.SH/{on=0} on' "$top/docs/profq.1" >"$work/syn"
n=$(grep -c '^\.B profq ' "$work/syn")
joined=$(awk 'prev != ".br" && /^\.B profq / && seen {print} /^\.B profq /{seen=1} {prev=$0}' "$work/syn")
[ "$n" -ge 20 ] && [ -z "$joined" ] && ok || bad "man SYNOPSIS: commands run together: $joined"

echo "cli: $pass passed, $fail failed"
[ $fail -eq 0 ]
