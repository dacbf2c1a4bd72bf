#!/usr/bin/env bash
# tests/golden/run.sh - golden cases for the profq command line.
#
# Suite contract (tests/run.sh): exit 0 pass, 77 skip (with a message), anything else fail.
# Uses $PROFQ (the binary; default <repo>/build/profq) and $SHARED (default <repo>/../shared).
# Needs python3 (standard library only) to synthesize inputs and to check JSON.
#
# What it checks:
#  1. Synthesized inputs (written here with python3 struct/bytes, byte by byte) whose
#     outputs were written by hand from how they were built: cases/*.expected, compared
#     byte for byte. Commands run from a fixed working directory with relative paths, so
#     the paths in the output are stable.
#  2. Bad inputs: exit 3 and exactly one stderr line "profq: <path>: offset N: expected ...".
#  3. Usage errors exit 2; help exits 0.
#  4. Real XPlanes from $SHARED: info/scan/tools JSON are deterministic, parse, follow the
#     schema, and agree with an independent stdlib-only protobuf decoder written below
#     (planes, lines, event counts, time spans, stats, programs, hosts, sha256, and the
#     memory-viewer / memory-profile verdicts).
#  5. Output handling: -o FILE is atomic and quiet on stdout; a full device exits 4.
# Without $SHARED/data the real-file checks are skipped (exit 77 at the end), except under
# CI=true, where a missing shared folder fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
cases=$here/cases

if [ ! -x "$PROFQ" ]; then
    echo "golden: $PROFQ is not built"
    exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
    echo "golden: SKIP: python3 is not installed"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/profq-golden-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
skipped=""

ok() { passed=$((passed + 1)); }
bad() {
    failed=$((failed + 1))
    echo "FAIL: $*"
}

# ---------------------------------------------------------------------------------------
# Synthesized inputs.
# tiny.xplane.pb: a TPU plane with capability stats and two lines, /host:metadata with two
# programs and one program id collision, /host:CPU with one event (no allocator events),
# a hostname and a profiler error holding a control byte and an invalid UTF-8 byte.
# run/: a run directory with an old and a new plugins/profile/<ts>/ folder.
python3 - "$work" <<'PY' || { echo "golden: cannot synthesize inputs"; exit 1; }
import os, struct, sys

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)

def tag(f, w): return varint((f << 3) | w)
def vf(f, v): return tag(f, 0) + varint(v)
def lf(f, b): return tag(f, 2) + varint(len(b.encode() if isinstance(b, str) else b)) + (b.encode() if isinstance(b, str) else b)
def df(f, d): return tag(f, 1) + struct.pack("<d", d)
def smeta(k, name): return lf(5, vf(1, k) + lf(2, vf(1, k) + lf(2, name)))
def emeta(k, name, body=b""): return lf(4, vf(1, k) + lf(2, vf(1, k) + lf(2, name) + body))
def stat_u(f, mid, v): return lf(f, vf(1, mid) + vf(3, v))
def stat_d(f, mid, d): return lf(f, vf(1, mid) + df(2, d))
def stat_s(f, mid, s): return lf(f, vf(1, mid) + lf(5, s))
def stat_b(f, mid, b): return lf(f, vf(1, mid) + lf(6, b))
def event(mid, off, dur, stats=b""): return lf(4, vf(1, mid) + vf(2, off) + vf(3, dur) + stats)

out = sys.argv[1]
HLO1 = lf(1, lf(1, "jit_train") + vf(5, 12))             # 15 bytes, no buffer assignment
HLO2 = lf(1, lf(1, "jit_eval")) + lf(3, lf(4, b""))      # 16 bytes, BA with a heap trace
HLO3 = lf(1, lf(1, "jit_train_dup"))                     # 17 bytes, loses the collision
tpu = (vf(1, 0) + lf(2, "/device:TPU:0")
       + smeta(1, "peak_teraflops_per_second") + smeta(2, "memory_size")
       + smeta(3, "device_type_string") + smeta(4, "flops")
       + stat_d(6, 1, 197.5) + stat_u(6, 2, 17179869184) + stat_s(6, 3, "TPU v4")
       + emeta(1, "fusion.1", lf(4, "fusion")) + emeta(2, "copy.3")
       + lf(3, vf(1, 1) + vf(10, 5) + lf(2, "XLA Ops") + lf(11, "XLA Ops (core 0)")
            + vf(3, 1000) + vf(9, 9000)
            + event(1, 100000, 400000, stat_u(4, 4, 1024)) + event(2, 600000, 200000)
            + event(1, 1000000, 3000000))
       + lf(3, vf(1, 2) + lf(2, "XLA Modules") + vf(3, 1000) + event(1, 50, 2000000000)))
meta = (vf(1, 1) + lf(2, "/host:metadata") + smeta(1, "Hlo Proto") + smeta(2, "program_id")
        + emeta(7, "jit_train(12)", stat_b(5, 1, HLO1) + stat_u(5, 2, 12))
        + emeta(8, "jit_eval", stat_b(5, 1, HLO2))
        + emeta(9, "jit_train_dup(12)", stat_b(5, 1, HLO3) + stat_u(5, 2, 12)))
cpu = (vf(1, 2) + lf(2, "/host:CPU") + emeta(1, "ThreadpoolListener::Record")
       + lf(3, vf(1, 123) + lf(2, "main") + vf(3, 2000) + event(1, 0, 5)))
tiny = (lf(1, tpu) + lf(1, meta) + lf(1, cpu) + lf(4, "tiny-host")
        + lf(2, b"profiler error: bad\x01byte \xff"))
assert len(tiny) == 628 and (len(HLO1), len(HLO2), len(HLO3)) == (15, 16, 17)
open(os.path.join(out, "tiny.xplane.pb"), "wb").write(tiny)

host_a = lf(1, vf(1, 3) + lf(2, "/device:GPU:0")
            + lf(3, vf(1, 1) + lf(2, "Stream #1") + vf(3, 10) + event(1, 5, 10)))
host_b = lf(1, vf(1, 0) + lf(2, "/host:CPU")) + lf(4, "host-b")
assert (len(host_a), len(host_b)) == (44, 23)
old = os.path.join(out, "run/plugins/profile/2024_01_01_00_00_00")
new = os.path.join(out, "run/plugins/profile/2024_02_02_00_00_00")
os.makedirs(old)
os.makedirs(new)
open(os.path.join(old, "old.xplane.pb"), "wb").write(host_a)
open(os.path.join(new, "b.xplane.pb"), "wb").write(host_b)
open(os.path.join(new, "a.xplane.pb"), "wb").write(host_a)

os.makedirs(os.path.join(out, "noprofile/plugins/profile/2024"))
open(os.path.join(out, "noprofile/notes.txt"), "w").write("{}")
os.makedirs(os.path.join(out, "notrace"))
open(os.path.join(out, "notrace/config.json"), "w").write("{}")
open(os.path.join(out, "empty.xplane.pb"), "wb").close()
open(os.path.join(out, "trace.json"), "w").write('{"traceEvents": [{"ph": "X", "ts": 1}]}\n')
open(os.path.join(out, "notes.xplane.pb"), "w").write("this is a text file, not a profile\n")
open(os.path.join(out, "tiny-cut.xplane.pb"), "wb").write(tiny[:300])
state = 12345
rnd = bytearray()
for _ in range(3000):
    state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
    rnd.append(state >> 56)
rnd[0] = 0x0A  # field 1, length-delimited: get past detection into the decoder
open(os.path.join(out, "random.xplane.pb"), "wb").write(bytes(rnd))
PY

# Compares a command's stdout with an expected file, byte for byte; exit must be 0.
# Runs in $work so that relative paths in the output are stable.
golden() {
    local expected=$1
    shift
    (cd "$work" && "$PROFQ" "$@") >"$work/got" 2>"$work/err"
    local rc=$?
    if [ $rc -ne 0 ]; then
        bad "profq $*: exit $rc: $(head -1 "$work/err")"
    elif ! cmp -s "$work/got" "$cases/$expected"; then
        bad "profq $* differs from cases/$expected:"
        diff "$cases/$expected" "$work/got" | head -20
    else
        ok
    fi
}

golden tiny.info.json.expected info --format json --no-hash tiny.xplane.pb
golden tiny.info.txt.expected info --no-hash tiny.xplane.pb
golden tiny.scan.json.expected scan --format json tiny.xplane.pb
golden tiny.tools.json.expected tools --format json tiny.xplane.pb
golden run.info.json.expected info --format=json --no-hash run
golden run.info.json.expected info --format json --no-hash --threads 1 run/

# The sha256 of a source is that of its bytes (checked against Python's hashlib).
(cd "$work" && "$PROFQ" info --format json tiny.xplane.pb) >"$work/hashed.json"
if python3 - "$work/hashed.json" "$work/tiny.xplane.pb" <<'PY'; then ok; else bad "sha256 of tiny.xplane.pb"; fi
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
want = hashlib.sha256(open(sys.argv[2], "rb").read()).hexdigest()
sys.exit(0 if d["sources"][0]["sha256"] == want else 1)
PY

# ---------------------------------------------------------------------------------------
# Bad input: exit 3 and exactly one line on stderr, nothing on stdout.

# expect_offset_error LABEL PATH CMD...: the line must be "profq: PATH: offset N: expected ..."
# with N inside the file.
expect_offset_error() {
    local label=$1 path=$2
    shift 2
    "$PROFQ" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    local lines
    lines=$(wc -l <"$work/err")
    if [ $rc -ne 3 ]; then
        bad "$label: exit $rc, want 3 ($(head -1 "$work/err"))"
        return
    fi
    if [ -s "$work/out" ]; then
        bad "$label: wrote to stdout"
        return
    fi
    if [ "$lines" -ne 1 ]; then
        bad "$label: $lines lines on stderr, want 1"
        cat "$work/err"
        return
    fi
    local line rest
    line=$(cat "$work/err")
    case "$line" in
    "profq: $path: offset "*) rest=${line#"profq: $path: offset "} ;;
    *)
        bad "$label: stderr '$line' does not start with 'profq: $path: offset '"
        return
        ;;
    esac
    if ! [[ "$rest" =~ ^([0-9]+):\ expected\  ]]; then
        bad "$label: stderr '$line' does not match 'offset [0-9]+: expected '"
        return
    fi
    local size
    size=$(wc -c <"$path")
    if [ "${BASH_REMATCH[1]}" -gt "$size" ]; then
        bad "$label: offset ${BASH_REMATCH[1]} beyond the file ($size bytes)"
        return
    fi
    ok
}

# expect_exact_error LABEL LINE CMD...: exit 3 and exactly that one line on stderr.
expect_exact_error() {
    local label=$1 want=$2
    shift 2
    "$PROFQ" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ $rc -ne 3 ] || [ -s "$work/out" ] || [ "$(cat "$work/err")" != "$want" ] ||
        [ "$(wc -l <"$work/err")" -ne 1 ]; then
        bad "$label: exit $rc, stderr '$(cat "$work/err")', want exit 3 and '$want'"
        return
    fi
    ok
}

for f in empty.xplane.pb notes.xplane.pb tiny-cut.xplane.pb random.xplane.pb; do
    for cmd in info scan tools; do
        expect_offset_error "$cmd $f" "$work/$f" "$cmd" "$work/$f"
    done
done
# trace.json is trace-event JSON with one event that is not a slice (no pid, no dur): read,
# counted, and holding no slice.
if "$PROFQ" info "$work/trace.json" 2>"$work/err" | grep -q "^  1 trace events, 0 slices on 0 tracks$"; then
    ok
else
    bad "info trace.json: want '1 trace events, 0 slices on 0 tracks' ($(head -c 200 "$work/err"))"
fi
expect_offset_error "info --format json (bad input)" "$work/tiny-cut.xplane.pb" \
    info --format json "$work/tiny-cut.xplane.pb"
expect_exact_error "info on a folder without profiles" \
    "profq: $work/noprofile: is a directory holding no profile (no *.xplane.pb, nsys-jax archive or trace JSON under it)" info "$work/noprofile"
expect_exact_error "scan on a folder without profiles" \
    "profq: $work/noprofile: is a directory holding no profile (no *.xplane.pb, nsys-jax archive or trace JSON under it)" scan "$work/noprofile"
expect_exact_error "info on a folder whose only JSON is no trace" \
    "profq: $work/notrace/config.json: offset 0: expected Chrome trace events; this is a JSON object without a traceEvents list" info "$work/notrace"
expect_exact_error "info on a missing file" \
    "profq: $work/missing.xplane.pb: cannot open: No such file or directory" \
    info "$work/missing.xplane.pb"

# A failed run with -o leaves an existing output file alone.
echo "previous" >"$work/keep.json"
"$PROFQ" info -o "$work/keep.json" "$work/tiny-cut.xplane.pb" 2>/dev/null
if [ "$(cat "$work/keep.json")" = "previous" ]; then ok; else bad "-o clobbered on bad input"; fi

# ---------------------------------------------------------------------------------------
# Usage: exit 2, nothing on stdout, something on stderr. Help: exit 0.
expect_usage() {
    "$PROFQ" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [ $rc -ne 2 ] || [ -s "$work/out" ] || [ ! -s "$work/err" ]; then
        bad "profq $*: exit $rc (want 2), stdout $(wc -c <"$work/out") bytes"
        return
    fi
    ok
}
expect_usage
expect_usage frobnicate
expect_usage info --bogus "$work/tiny.xplane.pb"
expect_usage info --format bogus "$work/tiny.xplane.pb"
expect_usage info --format=yaml "$work/tiny.xplane.pb"
expect_usage info
expect_usage info --format
expect_usage info -o
expect_usage info --threads 0 "$work/tiny.xplane.pb"
expect_usage scan
expect_usage tools --no-hash "$work/tiny.xplane.pb"
expect_usage help nosuchcommand
expect_usage ops --by bogus "$work/tiny.xplane.pb"
expect_usage ops --top 0 "$work/tiny.xplane.pb"
expect_usage ops --peak-flops -1 "$work/tiny.xplane.pb"
expect_usage roofline --by op "$work/tiny.xplane.pb"

for c in info scan tools; do
    "$PROFQ" help "$c" >"$work/out" 2>"$work/err"
    rc=$?
    if [ $rc -eq 0 ] && head -1 "$work/out" | grep -q "^profq $c " && [ ! -s "$work/err" ]; then
        ok
    else
        bad "profq help $c: exit $rc"
    fi
done
"$PROFQ" info --help >"$work/out" 2>&1 && head -1 "$work/out" | grep -q "^profq info " && ok ||
    bad "profq info --help"
"$PROFQ" help >"$work/out" 2>&1 && grep -q "^  info " "$work/out" && ok || bad "profq help"
"$PROFQ" version | grep -Eq '^profq [0-9]+\.[0-9]+\.[0-9]+$' && ok || bad "profq version"

# ---------------------------------------------------------------------------------------
# Output handling.

# -o FILE: nothing on stdout, FILE equals what stdout would get, no temp file left, and an
# existing FILE is replaced.
mkdir -p "$work/odir"
echo "old content" >"$work/odir/info.json"
"$PROFQ" info --format json --no-hash -o "$work/odir/info.json" "$work/tiny.xplane.pb" \
    >"$work/out" 2>"$work/err"
rc=$?
"$PROFQ" info --format json --no-hash "$work/tiny.xplane.pb" >"$work/stdout.json"
if [ $rc -eq 0 ] && [ ! -s "$work/out" ] && [ ! -s "$work/err" ] &&
    cmp -s "$work/odir/info.json" "$work/stdout.json" &&
    [ "$(ls -A "$work/odir")" = "info.json" ]; then
    ok
else
    bad "info -o FILE: exit $rc, stdout $(wc -c <"$work/out") bytes, dir: $(ls -A "$work/odir")"
fi
# -o into a folder that does not exist: exit 4, one line, no file.
"$PROFQ" info -o "$work/nodir/x.json" "$work/tiny.xplane.pb" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 4 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && [ ! -e "$work/nodir" ]; then
    ok
else
    bad "info -o into a missing folder: exit $rc"
fi
# A full device on stdout: exit 4. (Never `-o /dev/full`: -o writes a temp file beside its
# target and renames it into place, which as root would replace the device node.)
for fmt in text json; do
    "$PROFQ" info --format "$fmt" "$work/tiny.xplane.pb" >/dev/full 2>"$work/err"
    rc=$?
    if [ $rc -eq 4 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
        grep -q "^profq: stdout: write failed: " "$work/err"; then
        ok
    else
        bad "info --format $fmt >/dev/full: exit $rc, stderr: $(cat "$work/err")"
    fi
done
"$PROFQ" scan "$work/tiny.xplane.pb" >/dev/full 2>/dev/null
rc=$?
if [ $rc -eq 4 ]; then ok; else bad "scan >/dev/full: exit $rc"; fi

# ---------------------------------------------------------------------------------------
# Real XPlanes.
xdir=$SHARED/data/xplane
if [ ! -d "$SHARED/data" ]; then
    if [ "${CI:-}" = "true" ]; then
        bad "$SHARED/data is missing, and CI=true forbids skipping"
    else
        skipped="$SHARED/data is missing"
    fi
else
    real=()
    while IFS= read -r f; do real+=("$f"); done < <(find "$xdir" -name '*.xplane.pb' \
        -not -path '*/corrupt/*' | LC_ALL=C sort)
    if [ ${#real[@]} -eq 0 ]; then
        bad "no *.xplane.pb under $xdir"
    fi
    checks=()
    i=0
    for f in "${real[@]}"; do
        i=$((i + 1))
        "$PROFQ" info --format json "$f" >"$work/r$i.info.json" 2>"$work/err"
        rc1=$?
        "$PROFQ" info --format json "$f" >"$work/r$i.info2.json" 2>>"$work/err"
        rc2=$?
        if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
            bad "info $f: exit $rc1/$rc2: $(head -1 "$work/err")"
            continue
        fi
        if cmp -s "$work/r$i.info.json" "$work/r$i.info2.json"; then ok; else
            bad "info --format json $f differs between two runs"
        fi
        "$PROFQ" scan --format json "$f" >"$work/r$i.scan.json" || bad "scan --format json $f"
        "$PROFQ" tools --format json "$f" >"$work/r$i.tools.json" || bad "tools --format json $f"
        "$PROFQ" scan "$f" >"$work/out" && grep -q " events$" "$work/out" && ok ||
            bad "scan $f (text)"
        "$PROFQ" info "$f" >"$work/out" && grep -q "^source $f$" "$work/out" && ok ||
            bad "info $f (text)"
        checks+=("$f" "$work/r$i.info.json" "$work/r$i.scan.json" "$work/r$i.tools.json")
    done

    # Checked against an independent decoder of the protobuf wire format.
    python3 - "${checks[@]}" <<'PY'
import hashlib, json, os, struct, sys

fails = 0
def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)

def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i

def fields(b):
    i, n = 0, len(b)
    while i < n:
        t, i = varint(b, i)
        f, w = t >> 3, t & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        elif w == 2:
            l, i = varint(b, i)
            v, i = b[i:i + l], i + l
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, v

def i64(v):
    return v - (1 << 64) if v >= 1 << 63 else v

def stat(b):
    s = {"mid": 0, "kind": None, "v": None}
    for f, w, v in fields(b):
        if f == 1 and w == 0: s["mid"] = i64(v)
        elif f == 2 and w == 1: s["kind"], s["v"] = "double", struct.unpack("<d", v)[0]
        elif f == 3 and w == 0: s["kind"], s["v"] = "uint64", v
        elif f == 4 and w == 0: s["kind"], s["v"] = "int64", i64(v)
        elif f == 5 and w == 2: s["kind"], s["v"] = "str", v
        elif f == 6 and w == 2: s["kind"], s["v"] = "bytes", v
        elif f == 7 and w == 0: s["kind"], s["v"] = "ref", v
    return s

def plane(b):
    p = {"id": 0, "name": "", "lines": [], "emeta": {}, "smeta": {}, "stats": []}
    for f, w, v in fields(b):
        if f == 1 and w == 0: p["id"] = i64(v)
        elif f == 2 and w == 2: p["name"] = v.decode("utf-8", "replace")
        elif f == 3 and w == 2: p["lines"].append(v)
        elif f in (4, 5) and w == 2:
            key, val = 0, b""
            for ef, ew, ev in fields(v):
                if ef == 1 and ew == 0: key = i64(ev)
                elif ef == 2 and ew == 2: val = ev
            p["emeta" if f == 4 else "smeta"][key] = val  # the last entry of a key wins
        elif f == 6 and w == 2: p["stats"].append(stat(v))
    names = {}
    for k, v in p["smeta"].items():
        names[k] = b"".join(fv for ff, fw, fv in fields(v) if ff == 2 and fw == 2)
    p["smeta"] = names
    em = {}
    for k, v in p["emeta"].items():
        m = {"name": b"", "stats": []}
        for ff, fw, fv in fields(v):
            if ff == 2 and fw == 2: m["name"] = fv
            elif ff == 5 and fw == 2: m["stats"].append(stat(fv))
        em[k] = m
    p["emeta"] = em
    out = []
    for lb in p["lines"]:
        l = {"id": 0, "display_id": 0, "name": b"", "display_name": b"", "ts": 0, "dur": 0,
             "events": 0, "event_stats": 0, "offs": [], "ends": [], "mids": []}
        for f, w, v in fields(lb):
            if f == 1 and w == 0: l["id"] = i64(v)
            elif f == 2 and w == 2: l["name"] = v
            elif f == 3 and w == 0: l["ts"] = i64(v)
            elif f == 9 and w == 0: l["dur"] = i64(v)
            elif f == 10 and w == 0: l["display_id"] = i64(v)
            elif f == 11 and w == 2: l["display_name"] = v
            elif f == 4 and w == 2:
                off = dur = mid = 0
                for ef, ew, ev in fields(v):
                    if ef == 1 and ew == 0: mid = i64(ev)
                    elif ef == 2 and ew == 0: off = i64(ev)
                    elif ef == 3 and ew == 0: dur = i64(ev)
                    elif ef == 4 and ew == 2: l["event_stats"] += 1
                l["events"] += 1
                l["offs"].append(off)
                l["ends"].append(off + dur)
                l["mids"].append(mid)
        out.append(l)
    p["lines"] = out
    return p

def programs(p):
    """spec/xprof-tools.md 1.4: HloProtos on /host:metadata, first one wins a collision."""
    by_name = {v: k for k, v in sorted(p["smeta"].items(), reverse=True)}  # lowest id wins
    new, old, pid = by_name.get(b"Hlo Proto"), by_name.get(b"HLO Proto"), by_name.get(b"program_id")
    if new is None and old is None:
        return [], 0
    found = []
    for key in sorted(p["emeta"]):
        m = p["emeta"][key]
        hlo, legacy, prog = None, False, None
        for s in m["stats"]:
            if s["kind"] == "bytes" and s["mid"] in (new, old):
                hlo, legacy = s["v"], s["mid"] != new
            elif pid is not None and s["mid"] == pid and s["kind"] in ("int64", "uint64"):
                prog = s["v"] % (1 << 64)
        if hlo is None:
            continue
        name = m["name"].decode("utf-8", "replace")
        stem, suffix = name, None
        if name.endswith(")") and "(" in name:
            digits = name[name.rindex("(") + 1:-1]
            if digits.isdigit() and int(digits) < 1 << 64:
                stem, suffix = name[:name.rindex("(")], int(digits)
        if prog is None:
            prog = suffix if (legacy and suffix is not None) else key % (1 << 64)
        found.append((prog, stem, name, hlo))
    progs, seen, dups = [], set(), 0
    for prog, stem, name, hlo in sorted(found, key=lambda x: x[0]):  # stable: metadata order
        if prog in seen:
            dups += 1
            continue
        seen.add(prog)
        progs.append((prog, stem, name, hlo))
    return progs, dups

def has_buffer_assignment(hlo):
    return any(f == 3 and w == 2 for f, w, v in fields(hlo))

def is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)

args = sys.argv[1:]
for k in range(0, len(args), 4):
    path, info_path, scan_path, tools_path = args[k:k + 4]
    data = open(path, "rb").read()
    name = os.path.basename(path)
    planes, hostnames = [], []
    for f, w, v in fields(data):
        if f == 1 and w == 2: planes.append(plane(v))
        elif f == 4 and w == 2: hostnames.append(v.decode("utf-8", "replace"))
    info = json.load(open(info_path))
    check(info.get("schema") == "profq.info.v1", name + ": schema")
    check(len(info["sources"]) == 1, name + ": one source")
    src = info["sources"][0]
    check(src["path"] == path, name + ": sources[].path")
    check(src["format"] == "xspace", name + ": format")
    check(src["bytes"] == len(data), name + ": bytes")
    check(src["sha256"] == hashlib.sha256(data).hexdigest(), name + ": sha256")
    check(src["hostnames"] == hostnames, name + ": hostnames")
    host = hostnames[0] if hostnames and hostnames[0] else name[:-len(".xplane.pb")]
    check(src["host"] == host, name + ": host %r, want %r" % (src["host"], host))
    check(isinstance(src["planes"], list) and len(src["planes"]) == len(planes),
          name + ": number of planes")
    total_events = total_stats = total_lines = 0
    alloc_events = 0
    for jp, p in zip(src["planes"], planes):
        what = "%s: plane %s" % (name, p["name"])
        check(isinstance(jp["name"], str) and jp["name"] == p["name"], what + ": name")
        check(jp["id"] == p["id"], what + ": id")
        check(jp["event_metadata"] == len(p["emeta"]), what + ": event_metadata")
        check(jp["stat_metadata"] == len(p["smeta"]), what + ": stat_metadata")
        check(len(jp["lines"]) == len(p["lines"]), what + ": number of lines")
        plane_events = 0
        alloc_ids = {k for k, m in p["emeta"].items()
                     if m["name"] in (b"MemoryAllocation", b"MemoryDeallocation")}
        for jl, l in zip(jp["lines"], p["lines"]):
            lw = "%s line %d" % (what, l["id"])
            check(isinstance(jl["name"], str), lw + ": name is a string")
            check(jl["name"] == l["name"].decode("utf-8", "replace"), lw + ": name")
            check(is_int(jl["events"]) and jl["events"] == l["events"], lw + ": events")
            check(jl["event_stats"] == l["event_stats"], lw + ": event_stats")
            check(jl["id"] == l["id"] and jl["timestamp_ns"] == l["ts"], lw + ": id, timestamp")
            check(jl["duration_ps"] == l["dur"], lw + ": duration_ps")
            check(jl.get("display_id", 0) == l["display_id"], lw + ": display_id")
            check(jl.get("display_name", "") == l["display_name"].decode("utf-8", "replace"),
                  lw + ": display_name")
            if l["events"]:
                first = l["ts"] * 1000 + min(l["offs"])
                end = l["ts"] * 1000 + max(l["ends"])
                check(jl["first_ps"] == first and jl["end_ps"] == end, lw + ": first/end_ps")
                check(jl["span_ps"] == end - first, lw + ": span_ps")
            else:
                check("first_ps" not in jl, lw + ": no span without events")
            plane_events += l["events"]
            total_stats += l["event_stats"]
            if p["name"] == "/host:CPU":
                alloc_events += sum(1 for m in l["mids"] if m in alloc_ids)
        check(jp["events"] == plane_events, what + ": events")
        total_events += plane_events
        total_lines += len(p["lines"])
        total_stats += len(p["stats"]) + sum(len(m["stats"]) for m in p["emeta"].values())
    check(is_int(src["events"]) and src["events"] == total_events, name + ": events")
    check(src["stats"] == total_stats, name + ": stats %d, want %d" % (src["stats"], total_stats))
    meta = [p for p in planes if p["name"] == "/host:metadata"]
    progs, dups = programs(meta[0]) if meta else ([], 0)
    check(len(src["programs"]) == len(progs), name + ": number of programs")
    for jprog, (prog, stem, key, hlo) in zip(src["programs"], progs):
        check(isinstance(jprog["program_id"], str) and jprog["program_id"] == str(prog),
              name + ": program_id %r, want %r" % (jprog["program_id"], str(prog)))
        check(isinstance(jprog["name"], str) and jprog["name"] == stem,
              name + ": program name %r, want %r" % (jprog["name"], stem))
        check(jprog["key"] == key and jprog["hlo_proto_bytes"] == len(hlo), name + ": program")
    check(src.get("duplicate_programs_ignored", 0) == dups, name + ": duplicates")
    t = info["totals"]
    check(t["planes"] == len(planes) and t["events"] == total_events and
          t["lines"] == total_lines and t["programs"] == len(progs) and t["bytes"] == len(data),
          name + ": totals")

    scan = json.load(open(scan_path))
    check(scan["schema"] == "profq.scan.v1", name + ": scan schema")
    check(scan["planes"] == len(planes) and scan["lines"] == total_lines and
          scan["events"] == total_events and scan["bytes"] == len(data), name + ": scan counts")
    check(scan["event_stats"] + scan["metadata_stats"] + scan["plane_stats"] == total_stats,
          name + ": scan stats")
    check(sum(scan["stats_by_kind"].values()) == total_stats, name + ": scan stats by kind")

    tools = {t["name"]: t for t in json.load(open(tools_path))["tools"]}
    with_ba = sum(1 for p in progs if has_buffer_assignment(p[3]))
    mv, mp = tools["memory-viewer"], tools["memory-profile"]
    check(mv["available"] == (with_ba > 0), name + ": memory-viewer availability")
    if with_ba:
        check(mv["reason"].startswith("%d of %d " % (with_ba, len(progs))),
              name + ": memory-viewer reason " + mv["reason"])
    check(mp["available"] == (alloc_events > 0), name + ": memory-profile availability")
    if alloc_events:
        check(mp["reason"].startswith("%d MemoryAllocation" % alloc_events),
              name + ": memory-profile reason " + mp["reason"])
    if name == "tpu_inference_2.xplane.pb":
        # data/INDEX.md: 4 HloProtos with buffer assignment, allocator events on /host:CPU.
        check(mv["available"] and mp["available"] and len(progs) == 4 and with_ba == 4,
              name + ": memory-viewer and memory-profile available")
    if name == "mi300x8_jax_conv.xplane.pb":
        # Its /host:CPU plane does carry allocator events (230, counted by the decoder
        # above), so memory-profile is available here too.
        check(mp["available"] and alloc_events == 230, name + ": memory-profile (230 events)")
    print("checked", name, "-", len(planes), "planes,", total_events, "events,",
          len(progs), "programs,", alloc_events, "allocator events")
sys.exit(1 if fails else 0)
PY
    if [ $? -eq 0 ]; then ok; else bad "real XPlanes disagree with the reference decoder"; fi

    # The corrupt upstream file, and a truncated real file.
    corrupt=$xdir/corrupt/tpu_inference_2.utf8-mangled.xplane.pb
    expect_offset_error "info corrupt" "$corrupt" info "$corrupt"
    expect_offset_error "scan corrupt" "$corrupt" scan "$corrupt"
    head -c 100000 "$xdir/tpu_inference_2.xplane.pb" >"$work/tpu-cut.xplane.pb"
    expect_offset_error "info truncated real file" "$work/tpu-cut.xplane.pb" \
        info "$work/tpu-cut.xplane.pb"
    # JSON that is not trace events (an execution-trace graph, a bare array): exit 3, offset 0
    # (trace-event JSON itself is read since the model redesign: tests/trace_model.sh).
    for f in "$SHARED"/data/trace-json/hta__execution_trace__benchmark_simple_add_et.json.gz \
        "$SHARED"/data/trace-json/hta__memory_analysis__memory_timeline.raw.gz; do
        expect_offset_error "info $(basename "$f")" "$f" info "$f"
        if grep -q ": offset 0: expected " "$work/err"; then ok; else bad "$f: offset not 0"; fi
    done

    # tools on the run directory of the legacy MI300X run, and on a standalone HloProto.
    legacy_hlo=$(find "$SHARED/data/hlo" -name 'mi300x8_jax_conv_legacy__*.hlo_proto.pb' |
        LC_ALL=C sort | head -1)
    if [ -n "$legacy_hlo" ]; then
        "$PROFQ" tools --format json "$legacy_hlo" >"$work/hlo.tools.json"
        if python3 - "$work/hlo.tools.json" <<'PY'; then ok; else bad "tools on an HloProto"; fi
import json, sys
t = {x["name"]: x for x in json.load(open(sys.argv[1]))["tools"]}
# A standalone HloProto (with buffer assignment, data/INDEX.md) has no events at all.
ok = (t["memory-viewer"]["available"] and not t["memory-profile"]["available"]
      and not t["scan"]["available"] and t["info"]["available"])
sys.exit(0 if ok else 1)
PY
    else
        bad "no mi300x8_jax_conv_legacy HloProto under $SHARED/data/hlo"
    fi
    "$PROFQ" info --format json "$xdir/mi300x8_jax_conv_legacy" >"$work/legacy.json" &&
        python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
s = d["sources"]
sys.exit(0 if len(s) == 1 and s[0]["path"].endswith("/chi-mi300x-013.xplane.pb") else 1)' \
            "$work/legacy.json" && ok || bad "info on the mi300x8_jax_conv_legacy run directory"

    # A large output to a full device: exit 4.
    "$PROFQ" info --format json "$xdir/tpu_inference_2.xplane.pb" >/dev/full 2>"$work/err"
    rc=$?
    if [ $rc -eq 4 ] && grep -q "^profq: stdout: write failed: " "$work/err"; then ok; else
        bad "info (large) >/dev/full: exit $rc"
    fi
    # Exactly one line: the failed write, with the system's reason.
    [ "$(wc -l <"$work/err")" -eq 1 ] && ok || bad "info (large) >/dev/full printed $(wc -l <"$work/err") stderr lines"
fi

echo "golden: $passed passed, $failed failed"
if [ $failed -ne 0 ]; then
    exit 1
fi
if [ -n "$skipped" ]; then
    echo "golden: SKIP real-file cases: $skipped"
    exit 77
fi
exit 0
