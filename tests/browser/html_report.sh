#!/usr/bin/env bash
# tests/browser/html_report.sh - the `profq html` report in headless Chromium (Debian package
# `chromium`), loaded from disk (file://, no server), for an XPlane of a TPU, an XPlane of a
# GPU, an nsys-jax archive, an HloProto and Kineto traces from ../shared/data, and a trace
# whose op name, device name and path hold <script>alert(1)</script>: the page's script runs
# to the end (body[data-ready]), the console shows no message, the page has exactly one
# <script> element (profq's own), every section the input feeds (`profq tools --format
# json`) is present and drawn (SVG with data points), clicking a column head sorts the op
# table both ways, clicking a buffer at the peak shows its span, clicking a closed op tree
# node opens it, a table of more than 100 rows is paged (next, the count, filtering over all
# rows), each line/point chart zooms (buttons, wheel, reset), and the numbers equal `profq ops --format json` (op rows, the first op's
# self time, the idle time), `profq ops --format xprof --view op_profile` (the tree's
# programs), `profq memory` (the attribution's bytes), `profq summarize` (hot ops, the
# steps drawn and their mean) and `profq nsys` (the steady modules; bus bandwidth points,
# flame graphs, variability). Two runs give the same bytes. The comparison page (`html
# --compare`) of two ranks and of the <script> trace: its medians, p90s, share changes and
# first regressed op equal `profq compare --format json`. <script> placed in an op, module,
# kernel and device name and in the source path shows as text.
# SCREENSHOTS=DIR also writes the top of each page there (docs/img/html_*.png come from it).
# Suite contract: 0 pass, 77 skip (no chromium, or no $SHARED; failures under CI=true).
set -u
. "$(dirname "$0")/lib.sh"
browser_init browser html
[ -d "$SHARED/data/xplane" ] || skip "$SHARED/data is absent"

# The probe appended to a copy of the page: sorts the op table by "#Occurrences" twice; of an
# op table of more than 100 rows, checks its pages (100 rows shown, next shows rows 101..,
# the count, a filter counts all rows and goes back to page 1); zooms each chart of lines
# or points (+ halves the viewBox, the wheel zooms further, - twice and reset give the
# drawn box back); clicks the first buffer row; then states what it saw on <body>.
probe='<script>window.addEventListener("load",function(){var out=[];
var t=document.getElementById("ops-table");
function col(name){var h=t.tHead.rows[0].cells;for(var i=0;i<h.length;i++)if(h[i].textContent.replace(/[\u25B2\u25BC ]+$/,"")===name)return i;return -1;}
function vals(c){var r=t.tBodies[0].rows,v=[];for(var i=0;i<r.length;i++)v.push(parseFloat(r[i].cells[c].getAttribute("data-v")));return v;}
function sorted(v,d){for(var i=1;i<v.length;i++){if(d?v[i]>v[i-1]:v[i]<v[i-1])return false;}return true;}
if(t){var c=col("#Occurrences");if(c<0)out.push("no-column");else{var h=t.tHead.rows[0].cells[c];
h.click();if(!sorted(vals(c),true)||h.getAttribute("aria-sort")!=="descending")out.push("desc");
h.click();if(!sorted(vals(c),false)||h.getAttribute("aria-sort")!=="ascending")out.push("asc");}}
var pgr=document.getElementById("ops-table-pager");
var vis=function(){var r=t.tBodies[0].rows,v=[];for(var i=0;i<r.length;i++)if(!r[i].hidden)v.push(i);return v;};
if(t&&t.tBodies[0].rows.length>100){if(!pgr)out.push("no-pager");else{var N=t.tBodies[0].rows.length,v=vis();
if(v.length!==100||v[0]!==0||pgr.querySelector("button.prev").disabled!==true)out.push("page1");
pgr.querySelector("button.next").click();v=vis();
if(v.length!==Math.min(100,N-100)||v[0]!==100)out.push("page2");
if(pgr.querySelector(".pgc").textContent!=="rows 101\u2013"+Math.min(200,N)+" of "+N)out.push("count");
var f=document.querySelector("input.flt[data-for=ops-table]");f.value="a";f.dispatchEvent(new Event("input"));
var m=0,r=t.tBodies[0].rows;for(var i=0;i<r.length;i++)if(r[i].textContent.toLowerCase().indexOf("a")>=0)m++;
v=vis();if(v.length!==Math.min(100,m)||v.length&&v[0]!==0&&r[v[0]].textContent.toLowerCase().indexOf("a")<0||
document.getElementById("ops-table-shown").textContent!==String(m))out.push("filter");
f.value="";f.dispatchEvent(new Event("input"));if(vis().length!==100)out.push("unfilter");}}
else if(pgr)out.push("pager-of-few-rows");
var d=document.querySelector("#op-tree details.tnode:not([open])");if(d){d.querySelector("summary").click();if(!d.open)out.push("tree");}
var zl=document.querySelectorAll("svg.chart");for(var zi=0;zi<zl.length;zi++){var s=zl[zi];
if(!s.querySelector("polyline,circle"))continue;var vb0=s.getAttribute("viewBox"),w0=parseFloat(vb0.split(" ")[2]);
var wv=function(){return parseFloat(s.getAttribute("viewBox").split(" ")[2]);};var zb=s.nextElementSibling;
if(!zb||zb.className!=="zoom"){out.push("no-zoom:"+s.id);continue;}
zb.querySelector("button.zin").click();if(Math.abs(wv()-w0/2)>0.2||s.getAttribute("data-zoom")!=="2.00")out.push("zoom-in:"+s.id);
var rc=s.getBoundingClientRect();s.dispatchEvent(new WheelEvent("wheel",{deltaY:-100,clientX:rc.left+rc.width/3,clientY:rc.top+rc.height/2,bubbles:true,cancelable:true}));
if(!(wv()<w0/2-0.1))out.push("wheel:"+s.id);
zb.querySelector("button.zout").click();zb.querySelector("button.zout").click();if(s.getAttribute("viewBox")!==vb0)out.push("zoom-out:"+s.id);
zb.querySelector("button.zin").click();zb.querySelector("button.zreset").click();if(s.getAttribute("viewBox")!==vb0)out.push("zoom-reset:"+s.id);}
var b=document.querySelector("tr.buf");if(b){b.click();var s=document.getElementById(b.getAttribute("data-chart")+"-span");
if(!s||s.hasAttribute("visibility")||!(parseFloat(s.getAttribute("width"))>0))out.push("span");}
document.body.setAttribute("data-probe",out.join(" ")||"ok");});</script>'

# ready_page HTML LABEL: the page's DOM after its script ran into $work/dom.html; fails when
# the script did not finish or the console shows a message.
ready_page() {
    load_page "$1" "$work/dom.html" "$work/console.txt"
    grep -q 'data-ready="1"' "$work/dom.html" || bad "$2: the page's script did not finish"
    [ -s "$work/console.txt" ] && { bad "$2: console messages:"; cat "$work/console.txt"; }
}

# check HTML LABEL TOOLS_JSON OPS_JSON(or empty)
check() {
    local html=$1 label=$2
    python3 - "$html" "$work/probe.html" "$probe" <<'PY'
import sys
page = open(sys.argv[1]).read()
open(sys.argv[2], 'w').write(page.replace('</body>', sys.argv[3] + '</body>'))
PY
    ready_page "$html" "$label"
    chrome --virtual-time-budget=3000 --dump-dom "file://$work/probe.html" >"$work/probe.dom" 2>/dev/null
    grep -q 'data-probe="ok"' "$work/probe.dom" ||
        bad "$label: sorting or the buffer click: $(grep -o 'data-probe="[^"]*"' "$work/probe.dom")"
    python3 - "$work/dom.html" "$label" "$work/tools.json" "$work/ops.json" "$work/sum.json" "$work/nsys.json" "$work/opprof.json" "$work/mem.json" <<'PY' || bad "$label: DOM checks"
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
    rows = re.findall(r'<tr( class="idle")?(?: hidden="")?><td class="n" data-v="\d+">\d+</td>(.*?)</tr>', t, re.S)
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
    # the op_profile tree: its first level equals XProf's op_profile JSON (byProgramExcludeIdle)
    tree = re.search(r'<div class="tree" id="op-tree">\n(.*?)\n</div>', dom, re.S)
    assert tree or 'No op to group' in dom, 'no op tree'
    top = re.findall(r'^<details class="tnode" open(?:="")?><summary><span class="tn">(.*?)</span> <span class="tt" data-ps="(\d+)">', tree.group(1) if tree else '', re.M)
    if os.path.getsize(sys.argv[7]) > 0:
        prof = json.load(open(sys.argv[7]))['byProgramExcludeIdle']
        kids = prof.get('children', [])
        if kids:  # (XProf's op_profile reads device planes only: none for a trace JSON)
            assert len(top) == len(kids), ('tree programs', len(top), len(kids))
            for (name, ps), k in zip(top, kids):
                assert int(ps) == int(k['metrics']['rawTime']), ('tree time', name, ps, k['metrics']['rawTime'])
    said.append('op tree of %d programs' % len(top))
if 'memory-viewer' in feeds:
    assert 'id="memory-viewer"' in dom, 'no memory viewer section'
    charts = re.findall(r'<svg[^>]*id="heap-\d+".*?</svg>', dom, re.S)
    assert charts and all('<polyline' in c for c in charts), 'no heap chart drawn'
    said.append('%d heap chart(s)' % len(charts))
if 'memory' in feeds:
    mem = json.load(open(sys.argv[8]))
    t = re.search(r'<table class="st" id="memattr-table">.*?</table>', dom, re.S).group(0)
    rows = [r for r in re.findall(r'<tr><td class="w">.*?</tr>', t, re.S) if '(ran nothing)' not in r]
    assert len(rows) == len(mem['rows']), ('memory rows', len(rows), len(mem['rows']))
    for r, m in zip(rows, mem['rows']):
        v = [float(x) for x in re.findall(r'data-v="([^"]*)"', r)]
        want = [m['peak_bytes']] + list(m['buckets'].values())
        assert v == want, ('memory bytes', m['device'], v, want)
    segs = re.findall(r'<rect class="seg" data-bytes="(\d+)"', svg('memattr-bars'))
    assert segs or all(m['peak_bytes'] == 0 for m in mem['rows']), 'no attribution bars'
    said.append('%d attribution rows, %d bar segments' % (len(rows), len(segs)))
if 'memory-profile' in feeds:
    assert 'id="memory-profile"' in dom, 'no memory profile section'
    said.append('memory profile')
if 'nsys' in feeds:
    ns = json.load(open(sys.argv[6]))
    t = re.search(r'<table class="st" id="nsys-modules">.*?</table>', dom, re.S).group(0)
    n = len(re.findall(r'<tr>', t.split('<tbody>')[1]))
    assert n == len(ns['modules']), ('nsys modules', n, len(ns['modules']))
    said.append('%d nsys modules' % n)
    if ns.get('collectives'):
        pts = len(re.findall(r'<circle', svg('nsys-busbw')))
        assert pts > 0, 'no bus bandwidth points'
        said.append('%d bus bandwidth points' % pts)
    if label == 'nsys_jax':
        fl = re.search(r'<div class="embed" id="nsys-flame-box">(.*?)</div>', dom, re.S)
        assert fl and len(re.findall(r'<rect', fl.group(1))) > 10, 'no flame graph'
        assert re.search(r'<pre class="nsys-text">[^<]*variability', dom), 'no variability'
        said.append('flame graphs of %d frames' % len(re.findall(r'<rect', fl.group(1))))
if os.path.getsize(sys.argv[5]) > 0:
    summ = json.load(open(sys.argv[5]))
    assert 'id="traces"' in dom, 'no traces section'
    assert '<rect class="cat"' in svg('breakdown'), 'no breakdown bar'
    t = re.search(r'<table class="st" id="hot-ops">.*?</table>', dom, re.S).group(0)
    n = len(re.findall(r'<tr>', t.split('<tbody>')[1]))
    assert n == len(summ['hot_ops']), ('hot ops', n, len(summ['hot_ops']))
    said.append('%d hot ops' % n)
    st = summ['step_time']['all_steps']
    if st['count']:
        c = svg('step-time')
        ys = [float(y) for y in re.findall(r'<circle class="pt"[^>]*data-y="([^"]*)"', c)]
        pts = re.search(r'<polyline class="data"[^>]*points="([^"]*)"', c).group(1).split()
        assert len(pts) == min(st['count'], 2000), ('step points', len(pts), st['count'])
        if st['count'] <= 300:
            assert len(ys) == st['count'], ('step dots', len(ys))
            mean = sum(ys) / len(ys) * 1e3  # ms on the page, µs in the summary
            assert abs(mean - st['mean']) <= 1e-9 * max(1, abs(st['mean'])), ('step mean', mean, st['mean'])
        said.append('%d steps drawn' % len(pts))
print('%s: 1 script element, %s' % (label, ', '.join(said) or 'overview only'))
PY
}

# shrink PNG: 64 colours, no metadata (when ImageMagick is installed), in place
shrink() {
    convert -version >/dev/null 2>&1 || return 0
    convert "$1" -strip -colors 64 "PNG8:$1.small" && mv "$1.small" "$1"
}

report() { # PATH LABEL
    local path=$1 label=$2
    "$PROFQ" tools --format json "$path" >"$work/tools.json" || { bad "$label: tools"; return; }
    "$PROFQ" ops --format json "$path" >"$work/ops.json" 2>/dev/null || : >"$work/ops.json"
    : >"$work/sum.json"
    "$PROFQ" nsys --section modules --section collectives --format json "$path" >"$work/nsys.json" 2>/dev/null || : >"$work/nsys.json"
    "$PROFQ" ops --format xprof --view op_profile "$path" >"$work/opprof.json" 2>/dev/null || : >"$work/opprof.json"
    "$PROFQ" memory --format json "$path" >"$work/mem.json" 2>/dev/null || : >"$work/mem.json"
    case "$path" in *.json | *.json.gz) "$PROFQ" summarize "$path" -o "$work/sum.json" >/dev/null || bad "$label: summarize" ;; esac
    "$PROFQ" html "$path" -o "$work/$label.html" || { bad "$label: profq html exit $?"; return; }
    "$PROFQ" html "$path" >"$work/$label.again.html" || bad "$label: second run"
    cmp -s "$work/$label.html" "$work/$label.again.html" || bad "$label: two runs differ"
    check "$work/$label.html" "$label"
    # SCREENSHOTS=DIR: the top of the page as DIR/html_LABEL.png (the README's pictures)
    # (of a page made inside $SHARED, so that it shows the path data/...)
    # (the README's: a TPU and a GPU XPlane, a Kineto trace with steps, an nsys-jax archive
    # at its Nsight section; made smaller with ImageMagick's convert when it is there)
    local only=""
    case $label in
    tpu_xplane | kineto_steps) ;;
    gpu_xplane) only=ops ;;
    nsys_jax) only=nsys ;;
    *) return ;;
    esac
    if [ -n "${SCREENSHOTS:-}" ] && [ "${path#"$SHARED"/}" != "$path" ]; then
        (cd "$SHARED" && "$PROFQ" html "${path#"$SHARED"/}" -o "$work/shot.html") || bad "$label: shot"
        # ONLY: that section alone under the header (a style added to the copy shot)
        [ -z "$only" ] || sed -i "s|</head>|<style>main>section{display:none}main>section#$only{display:block}</style></head>|" "$work/shot.html"
        chrome --window-size=1100,1000 --hide-scrollbars --virtual-time-budget=3000 --screenshot="$SCREENSHOTS/html_$label.png" \
            "file://$work/shot.html" >/dev/null 2>&1 || bad "$label: screenshot"
        shrink "$SCREENSHOTS/html_$label.png"
    fi
}

report "$SHARED/data/xplane/tpu_inference_2.xplane.pb" tpu_xplane
report "$SHARED/data/xplane/mi300_jax08_attention.xplane.pb" gpu_xplane
report "$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip" nsys_jax
report "$SHARED/data/hlo/mi300x8_jax_conv_legacy__jit_forward_3d_conv(15).hlo_proto.pb" hlo_proto
report "$SHARED/data/trace-json/kineto__docs__traces__before_fix_trace.json" kineto
report "$SHARED/data/trace-json/kineto__tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz" kineto_steps
report "$SHARED/data/trace-json/hta__trace_filter__sampled_rank-0.json.gz" kineto_paged
report "$SHARED/data/trace-json/hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz" kineto_gz

# A GPU XPlane with step markers (scripts/add_step_markers.py, in the test venv when it is
# there): the overview's step chart has a point per step of roofline_model's step rows.
protopy=$top/build/venv-test/bin/python
if [ -x "$protopy" ]; then
    "$protopy" "$top/scripts/add_step_markers.py" "$SHARED/data/xplane/mi300x8_jax_conv.xplane.pb" \
        "$work/marked.xplane.pb" 3 >/dev/null || bad "xplane_steps: add_step_markers.py"
    report "$work/marked.xplane.pb" xplane_steps
    "$PROFQ" roofline --format xprof "$work/marked.xplane.pb" >"$work/rm.json" || bad "xplane_steps: roofline"
    python3 - "$work/dom.html" "$work/rm.json" <<'PY' || bad "xplane_steps: the step chart"
import json, re, sys
dom, rm = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
steps = sorted({int(r['c'][0]['v']) for r in rm[0]['rows'] if r['c'][0]['v'] != 'Total'})
c = re.search(r'<svg[^>]*id="step-time".*?</svg>', dom, re.S)
assert c, 'no step chart'
xs = [int(x) for x in re.findall(r'<circle class="pt"[^>]*data-x="(\d+)"', c.group(0))]
assert steps and xs == steps, ('steps drawn', xs[:5], steps[:5])
assert "of the XPlane's step markers" in dom, 'no step note'
print('xplane_steps: %d steps drawn, those of roofline_model' % len(xs))
PY
else
    echo "note: no build/venv-test: the XPlane step chart is not checked"
fi

# <script> in an op name, a device name and the source path: shown as text.
mkdir -p "$work/<script>alert(1)<"
xss="$work/<script>alert(1)</script>.json"
python3 - "$xss" <<'PY'
import json, sys
s = '<script>alert(1)</script>'
ev = [{"ph": "X", "cat": "kernel", "name": s, "pid": 1, "tid": 7, "ts": 10 + i * 20, "dur": 10 + i,
       "args": {"device": 0, "stream": 7, "correlation": i, "hlo_module": s + "module",
                "hlo_op": s, "source": s + "/model.py:12"}} for i in range(7)]
ev += [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 100,
        "tid": 100, "ts": 5 + i * 20, "dur": 19} for i in range(7)]
ev += [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100,
        "ts": 9 + i * 20, "dur": 1, "args": {"correlation": i}} for i in range(7)]
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": s + " GPU"}],
           "traceEvents": ev}, open(sys.argv[1], 'w'))
PY
report "$xss" xss
n=$(grep -o '&lt;script&gt;alert(1)&lt;/script&gt;' "$work/dom.html" | wc -l)
[ "$n" -ge 4 ] || bad "xss: the name is shown as text $n times (want the title, header, path, op and device)"
grep -q '<td class="w">&lt;script&gt;alert(1)&lt;/script&gt;</td>' "$work/dom.html" ||
    bad "xss: the op name is not a text cell"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;module' "$work/dom.html" || bad "xss: the module name"
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;/model.py:12' "$work/dom.html" || bad "xss: the source path"

# The comparison page: one script, the numbers of `profq compare --format json` (steady
# median and p90, share changes, the first regressed op), two runs alike; and of the xss
# trace against the rank-0 trace, the names as text.
compare_page() { # BEFORE AFTER LABEL
    "$PROFQ" html --compare "$1" "$2" -o "$work/$3.html" || { bad "$3: exit $?"; return; }
    "$PROFQ" html --compare "$1" "$2" >"$work/$3.again.html"
    cmp -s "$work/$3.html" "$work/$3.again.html" || bad "$3: two runs differ"
    "$PROFQ" compare "$1" "$2" --format json >"$work/cmp.json" || bad "$3: profq compare"
    ready_page "$work/$3.html" "$3"
    python3 - "$work/dom.html" "$work/cmp.json" "$3" <<'PY' || bad "$3: DOM checks"
import html, json, re, sys
dom, cmp, label = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3]
assert len(re.findall(r'<script[\s>]', dom)) == 1, 'script elements'
st = cmp['step_time']
def row(name):
    r = re.search(r'<tr><td>%s</td>(.*?)</tr>' % name, dom).group(1)
    return [float(x) for x in re.findall(r'data-v="([^"]*)"', r)]
for k in ('median', 'p90'):
    b, a = st['steady_state_%s_before' % k], st['steady_state_%s_after' % k]
    if b is None:
        continue
    got = row(k)
    assert got[0] == b * 1e6 and got[1] == a * 1e6, (k, got, b, a)
t = re.search(r'<table class="st" id="cmp-shares-table">.*?</table>', dom, re.S).group(0)
for cat, d in cmp['time_breakdown_share_delta'].items():
    v = [float(x) for x in re.findall(r'data-v="([^"]*)"', re.search(r'<tr><td>%s</td>(.*?)</tr>' % cat, t).group(1))]
    assert abs(v[2] - d * 100) < 1e-9, ('share', cat, v, d)
svgs = re.findall(r'<svg[^>]*id="step-time-(?:before|after)"', dom)
if cmp['regressed_ops']:
    t = re.search(r'<table class="st" id="cmp-regressed">.*?</table>', dom, re.S).group(0)
    first = re.search(r'<tbody>\s*<tr><td class="w">(.*?)</td>(.*?)</tr>', t, re.S)
    names = [o['name'] for o in cmp['regressed_ops']]
    assert html.unescape(first.group(1)) in names, ('first regressed op', first.group(1)[:80])
print('%s: 1 script element, %d step chart(s), steady median and p90, shares, regressed ops equal profq compare' % (label, len(svgs)))
PY
}
compare_page "$SHARED/data/trace-json/hta__trace_filter__sampled_rank-0.json.gz" \
    "$SHARED/data/trace-json/hta__trace_filter__sampled_rank-1.json.gz" compare
compare_page "$SHARED/data/trace-json/hta__trace_filter__sampled_rank-0.json.gz" "$xss" compare_xss
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$work/dom.html" || bad "compare_xss: the op name is not text"
if [ -n "${SCREENSHOTS:-}" ]; then
    (cd "$SHARED" && "$PROFQ" html --compare data/trace-json/hta__trace_filter__sampled_rank-0.json.gz \
        data/trace-json/hta__trace_filter__sampled_rank-1.json.gz -o "$work/shot.html") || bad "compare: shot"
    chrome --window-size=1100,1000 --hide-scrollbars --virtual-time-budget=3000 --screenshot="$SCREENSHOTS/html_compare.png" \
        "file://$work/shot.html" >/dev/null 2>&1 || bad "compare: screenshot"
    shrink "$SCREENSHOTS/html_compare.png"
fi

if [ $failed -ne 0 ]; then
    echo "browser: $failed failure(s)"
    exit 1
fi
echo "browser: all checks passed"
