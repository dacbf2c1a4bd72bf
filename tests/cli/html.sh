#!/usr/bin/env bash
# tests/cli/html.sh - `profq html` without a browser (tests/browser/html_report.sh opens the
# pages): two runs give the same bytes (-o FILE and stdout alike) for an XPlane, an HloProto
# and a trace JSON; a trace whose op name, device name and path hold
# <script>alert(1)</script> gives a page with exactly one <script> element, profq's own, and
# the name escaped; the page keeps --top rows and says what it left out; a bad --top is a
# usage error; a heap chart of more than 2000 points draws at most 2000 and says so;
# --compare gives the same bytes twice, escapes the names and wants BEFORE and AFTER. Exit 0 pass, 1 fail, 77 skip (no ../shared).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
if [ ! -d "$SHARED/data/xplane" ]; then
    echo "html: SKIP: $SHARED/data is absent"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-html-XXXXXX")
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in "$SHARED/data/xplane/mi300_jax08_attention.xplane.pb" \
    "$SHARED/data/hlo/mi300x8_jax_conv_legacy__jit_forward_3d_conv(15).hlo_proto.pb" \
    "$SHARED/data/trace-json/kineto__docs__traces__before_fix_trace.json"; do
    "$PROFQ" html "$f" -o "$work/a.html" && "$PROFQ" html "$f" >"$work/b.html" &&
        cmp -s "$work/a.html" "$work/b.html" && [ -s "$work/a.html" ] && ok ||
        bad "two runs on $(basename "$f") differ (or failed)"
    n=$(grep -c '<script' "$work/a.html")
    [ "$n" = 1 ] && ok || bad "$(basename "$f"): $n lines with <script"
done

mkdir -p "$work/<script>alert(1)<"
xss="$work/<script>alert(1)</script>.json"
python3 - "$xss" <<'PY'
import json, sys
s = '<script>alert(1)</script>'
ev = [{"ph": "X", "cat": "kernel", "name": s if i % 2 else "k%d" % i, "pid": 1, "tid": 7,
       "ts": 10 + i * 20, "dur": 10, "args": {"device": 0, "stream": 7}} for i in range(6)]
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": s}], "traceEvents": ev},
          open(sys.argv[1], 'w'))
PY
"$PROFQ" html "$xss" -o "$work/x.html" || bad "xss: exit $?"
n=$(grep -o '<script' "$work/x.html" | wc -l)
[ "$n" = 1 ] && ok || bad "xss: $n <script elements"
grep -q '<td class="w">&lt;script&gt;alert(1)&lt;/script&gt;</td>' "$work/x.html" && ok ||
    bad "xss: op name not escaped in its cell"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;.json' "$work/x.html" && ok || bad "xss: path"
# --top 1: one row of the five (four kernels, IDLE), and a note of the rest
"$PROFQ" html --top 1 "$xss" -o "$work/t.html" || bad "--top 1: exit $?"
grep -q '1 of 5 rows shown; the 4 rows after them (by self time)' "$work/t.html" && ok ||
    bad "--top 1: no note of the rows left out"
"$PROFQ" html --top 0 "$xss" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--top 0 is not a usage error"
# --compare: two runs alike, one <script>, the names escaped; one path is a usage error
r0="$SHARED/data/trace-json/hta__trace_filter__sampled_rank-0.json.gz"
"$PROFQ" html --compare "$r0" "$xss" -o "$work/c1.html" && "$PROFQ" html --compare "$r0" "$xss" >"$work/c2.html" &&
    cmp -s "$work/c1.html" "$work/c2.html" && ok || bad "--compare: two runs differ (or failed)"
n=$(grep -o '<script' "$work/c1.html" | wc -l)
[ "$n" = 1 ] && ok || bad "--compare: $n <script elements"
grep -q '<td class="w">&lt;script&gt;alert(1)&lt;/script&gt;</td>' "$work/c1.html" && ok ||
    bad "--compare: op name not escaped in its cell"
grep -q 'id="step-time-before"' "$work/c1.html" && ok || bad "--compare: no step chart of BEFORE"
"$PROFQ" html --compare "$r0" >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--compare with one path is not a usage error"
"$PROFQ" html >/dev/null 2>&1
[ $? = 2 ] && ok || bad "html without a path is not a usage error"
# charts downsample: the heap chart of a module with more points than 2000 draws fewer and
# says so
h100=$(ls "$SHARED"/data/hlo/h100_*.hlo.pb 2>/dev/null | head -1)
if [ -n "$h100" ]; then
    "$PROFQ" html "$h100" -o "$work/h.html" || bad "h100: exit $?"
    python3 - "$work/h.html" <<'PY' && ok || bad "h100: heap chart not downsampled as the page says"
import re, sys
page = open(sys.argv[1]).read()
m = re.search(r'(\d+) points, drawn as (\d+)', page)
assert m and int(m.group(2)) < int(m.group(1)) <= 10**7, m
svg = re.search(r'<svg[^>]*id="heap-0".*?</svg>', page, re.S).group(0)
pts = re.search(r'<polyline[^>]*points="([^"]*)"', svg).group(1).split()
assert len(pts) == int(m.group(2)) <= 2000, (len(pts), m.group(2))
PY
fi
echo "html: $pass passed, $fail failed"
[ $fail -eq 0 ]
