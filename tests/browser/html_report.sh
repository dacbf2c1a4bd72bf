#!/usr/bin/env bash
# tests/browser/html_report.sh - the `profq html` report in headless Chromium (Debian package
# `chromium`), loaded from disk (file://, no server), for an XPlane of a TPU, an XPlane of a
# GPU, an nsys-jax archive, an HloProto and Kineto traces from ../shared/data, and a trace
# whose op name, device name and path hold <script>alert(1)</script>: the page's script runs
# to the end (body[data-ready]), the console shows no message, the page has exactly one
# <script> element (profq's own), every section the input feeds (`profq tools --format
# json`) is present and drawn (SVG with data points), clicking a column head sorts the op
# table both ways, clicking a buffer at the peak shows its span, and the numbers equal
# `profq ops --format json` (op rows, the first op's self time, the idle time), `profq
# summarize` (hot ops) and `profq nsys` (the steady modules). Two runs give the same bytes.
# SCREENSHOTS=DIR also writes the top of each page there (docs/img/html_*.png come from it).
# Suite contract: 0 pass, 77 skip (no chromium, or no $SHARED; failures under CI=true).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "browser: SKIP: chromium is not installed (scripts/deps.sh test installs it)"
    exit 77
fi
if [ ! -d "$SHARED/data/xplane" ]; then
    echo "browser: SKIP: $SHARED/data is absent"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-html-XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

# The probe appended to a copy of the page: sorts the op table by "Total self time" twice
# and clicks the first buffer row, then states what it saw on <body>.
probe='<script>window.addEventListener("load",function(){var out=[];
var t=document.getElementById("ops-table");
function col(name){var h=t.tHead.rows[0].cells;for(var i=0;i<h.length;i++)if(h[i].textContent.replace(/[\u25B2\u25BC ]+$/,"")===name)return i;return -1;}
function vals(c){var r=t.tBodies[0].rows,v=[];for(var i=0;i<r.length;i++)v.push(parseFloat(r[i].cells[c].getAttribute("data-v")));return v;}
function sorted(v,d){for(var i=1;i<v.length;i++){if(d?v[i]>v[i-1]:v[i]<v[i-1])return false;}return true;}
if(t){var c=col("#Occurrences");if(c<0)out.push("no-column");else{var h=t.tHead.rows[0].cells[c];
h.click();if(!sorted(vals(c),true)||h.getAttribute("aria-sort")!=="descending")out.push("desc");
h.click();if(!sorted(vals(c),false)||h.getAttribute("aria-sort")!=="ascending")out.push("asc");}}
var b=document.querySelector("tr.buf");if(b){b.click();var s=document.getElementById(b.getAttribute("data-chart")+"-span");
if(!s||s.hasAttribute("visibility")||!(parseFloat(s.getAttribute("width"))>0))out.push("span");}
document.body.setAttribute("data-probe",out.join(" ")||"ok");});</script>'

# check HTML LABEL TOOLS_JSON OPS_JSON(or empty)
check() {
    local html=$1 label=$2
    python3 - "$html" "$work/probe.html" "$probe" <<'PY'
import sys
page = open(sys.argv[1]).read()
open(sys.argv[2], 'w').write(page.replace('</body>', sys.argv[3] + '</body>'))
PY
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
        --virtual-time-budget=3000 --dump-dom "file://$html" >"$work/dom.html" 2>"$work/stderr"
    grep 'CONSOLE' "$work/stderr" >"$work/console.txt"
    grep -q 'data-ready="1"' "$work/dom.html" || bad "$label: the report's script did not finish"
    [ -s "$work/console.txt" ] && { bad "$label: console messages:"; cat "$work/console.txt"; }
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$work/profile" --virtual-time-budget=3000 \
        --dump-dom "file://$work/probe.html" >"$work/probe.dom" 2>/dev/null
    grep -q 'data-probe="ok"' "$work/probe.dom" ||
        bad "$label: sorting or the buffer click: $(grep -o 'data-probe="[^"]*"' "$work/probe.dom")"
    python3 - "$work/dom.html" "$label" "$work/tools.json" "$work/ops.json" "$work/sum.json" "$work/nsys.json" <<'PY' || bad "$label: DOM checks"
import json, os, re, sys
dom, label = open(sys.argv[1]).read(), sys.argv[2]
tools = json.load(open(sys.argv[3]))
feeds = set(tools['inputs'][0]['feeds'])
scripts = len(re.findall(r'<script[\s>]', dom))
assert scripts == 1, ('script elements', scripts)
assert 'id="overview"' in dom, 'no overview'
def svg(i):
    m = re.search(r'<svg[^>]*id="%s".*?</svg>' % i, dom, re.S)
    assert m, ('no chart', i)
    return m.group(0)
said = []
if 'ops' in feeds:
    ops = json.load(open(sys.argv[4]))
    t = re.search(r'<table class="st" id="ops-table">.*?</table>', dom, re.S).group(0)
    rows = re.findall(r'<tr( class="idle")?><td class="n" data-v="\d+">\d+</td>(.*?)</tr>', t, re.S)
    real = [r for r in rows if not r[0]]
    assert len(real) == len(ops['rows']), ('op rows', len(real), len(ops['rows']))
    first = re.findall(r'data-v="([^"]*)"', real[0][1])
    # the cells: program id, #occurrences, total, avg, self time...
    assert float(first[4]) == ops['rows'][0]['self_time_ps'], ('first self time', first[4])
    idle = re.search(r'id="card-idle" data-ps="(\d+)"', dom).group(1)
    assert int(idle) == ops['windows']['idle_ps'], ('idle', idle, ops['windows']['idle_ps'])
    pts = len(re.findall(r'<circle class="op"', svg('roofline')))
    with_rate = [r for r in ops['rows'] if (r['gflops_per_s'] or 0) > 0 and (r['operational_intensity'] or 0) > 0]
    assert pts >= min(len(with_rate), 1), ('roofline points', pts)
    bars = len(re.findall(r'<rect class="bar"', svg('by-program')))
    assert bars == min(len(ops['programs']), 16), ('program bars', bars, len(ops['programs']))
    said.append('%d op rows, %d roofline points, %d program bars' % (len(real), pts, bars))
if 'memory-viewer' in feeds:
    assert 'id="memory-viewer"' in dom, 'no memory viewer section'
    charts = re.findall(r'<svg[^>]*id="heap-\d+".*?</svg>', dom, re.S)
    assert charts and all('<polyline' in c for c in charts), 'no heap chart drawn'
    said.append('%d heap chart(s)' % len(charts))
if 'memory-profile' in feeds:
    assert 'id="memory-profile"' in dom, 'no memory profile section'
    said.append('memory profile')
if 'nsys' in feeds:
    ns = json.load(open(sys.argv[6]))
    t = re.search(r'<table class="st" id="nsys-modules">.*?</table>', dom, re.S).group(0)
    n = len(re.findall(r'<tr>', t.split('<tbody>')[1]))
    assert n == len(ns['modules']), ('nsys modules', n, len(ns['modules']))
    said.append('%d nsys modules' % n)
if os.path.getsize(sys.argv[5]) > 0:
    summ = json.load(open(sys.argv[5]))
    assert 'id="traces"' in dom, 'no traces section'
    assert '<rect class="cat"' in svg('breakdown'), 'no breakdown bar'
    t = re.search(r'<table class="st" id="hot-ops">.*?</table>', dom, re.S).group(0)
    n = len(re.findall(r'<tr>', t.split('<tbody>')[1]))
    assert n == len(summ['hot_ops']), ('hot ops', n, len(summ['hot_ops']))
    said.append('%d hot ops' % n)
print('%s: 1 script element, %s' % (label, ', '.join(said) or 'overview only'))
PY
}

report() { # PATH LABEL
    local path=$1 label=$2
    "$PROFQ" tools --format json "$path" >"$work/tools.json" || { bad "$label: tools"; return; }
    "$PROFQ" ops --format json "$path" >"$work/ops.json" 2>/dev/null || : >"$work/ops.json"
    : >"$work/sum.json"
    "$PROFQ" nsys --section modules --format json "$path" >"$work/nsys.json" 2>/dev/null || : >"$work/nsys.json"
    case "$path" in *.json | *.json.gz) "$PROFQ" summarize "$path" -o "$work/sum.json" >/dev/null || bad "$label: summarize" ;; esac
    "$PROFQ" html "$path" -o "$work/$label.html" || { bad "$label: profq html exit $?"; return; }
    "$PROFQ" html "$path" >"$work/$label.again.html" || bad "$label: second run"
    cmp -s "$work/$label.html" "$work/$label.again.html" || bad "$label: two runs differ"
    check "$work/$label.html" "$label"
    # SCREENSHOTS=DIR: the top of the page as DIR/html_LABEL.png (the README's pictures)
    # (of a page made inside $SHARED, so that it shows the path data/...)
    if [ -n "${SCREENSHOTS:-}" ] && [ "${path#"$SHARED"/}" != "$path" ]; then
        (cd "$SHARED" && "$PROFQ" html "${path#"$SHARED"/}" -o "$work/shot.html") || bad "$label: shot"
        timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
            --user-data-dir="$work/profile" --window-size=1280,1300 --hide-scrollbars \
            --virtual-time-budget=3000 --screenshot="$SCREENSHOTS/html_$label.png" \
            "file://$work/shot.html" >/dev/null 2>&1 || bad "$label: screenshot"
    fi
}

report "$SHARED/data/xplane/tpu_inference_2.xplane.pb" tpu_xplane
report "$SHARED/data/xplane/mi300_jax08_attention.xplane.pb" gpu_xplane
report "$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip" nsys_jax
report "$SHARED/data/hlo/mi300x8_jax_conv_legacy__jit_forward_3d_conv(15).hlo_proto.pb" hlo_proto
report "$SHARED/data/trace-json/kineto__docs__traces__before_fix_trace.json" kineto
report "$SHARED/data/trace-json/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz" kineto_gz

# <script> in an op name, a device name and the source path: shown as text.
mkdir -p "$work/<script>alert(1)<"
xss="$work/<script>alert(1)</script>.json"
python3 - "$xss" <<'PY'
import json, sys
s = '<script>alert(1)</script>'
ev = [{"ph": "X", "cat": "kernel", "name": s, "pid": 1, "tid": 7, "ts": 10 + i * 20, "dur": 10,
       "args": {"device": 0, "stream": 7, "correlation": i}} for i in range(5)]
ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
        "ts": 9 + i * 20, "dur": 1, "args": {"correlation": i}} for i in range(5)]
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": s + " GPU"}],
           "traceEvents": ev}, open(sys.argv[1], 'w'))
PY
report "$xss" xss
n=$(grep -o '&lt;script&gt;alert(1)&lt;/script&gt;' "$work/dom.html" | wc -l)
[ "$n" -ge 4 ] || bad "xss: the name is shown as text $n times (want the title, header, path, op and device)"
grep -q '<td class="w">&lt;script&gt;alert(1)&lt;/script&gt;</td>' "$work/dom.html" ||
    bad "xss: the op name is not a text cell"

if [ $failed -ne 0 ]; then
    echo "browser: $failed failure(s)"
    exit 1
fi
echo "browser: all checks passed"
