#!/usr/bin/env bash
# tests/browser/tt_report.sh - the `profq tt` HTML report in headless Chromium (Debian
# package `chromium`, installed by `scripts/deps.sh test`), loaded from disk (file://, no
# server): the page's script runs to the end (body[data-ready]), the DRAM chart has one point
# per operation, the console shows no message at all (no error, no warning), and a log whose
# op text contains <script>alert(1)</script> shows it as text: the page has exactly one
# <script> element (profq's own) and the dumped DOM holds the escaped text; at a 1400 px
# window no table is wider than its card (issue 16 item 14).
# Suite contract: 0 pass, 77 skip (no chromium, or no $SHARED; both failures under CI=true).
set -u
. "$(dirname "$0")/lib.sh"
browser_init browser browser

# check HTML EXPECTED_OPS LABEL
check() {
    local html=$1 want=$2 label=$3
    load_page "$html" "$work/dom.html" "$work/console.txt"
    grep -q 'data-ready="1"' "$work/dom.html" || bad "$label: the report's script did not finish"
    [ -s "$work/console.txt" ] && { bad "$label: console messages:"; cat "$work/console.txt"; }
    python3 - "$work/dom.html" "$want" "$label" <<'PY' || bad "$label: DOM checks"
import re, sys
dom, want, label = open(sys.argv[1]).read(), int(sys.argv[2]), sys.argv[3]
m = re.search(r'<svg[^>]*id="chart-dram".*?</svg>', dom, re.S)
assert m, 'no DRAM chart'
points = len(re.findall(r'<circle class="pt"', m.group(0)))
assert points == want, ('DRAM chart points', points, 'operations', want)
scripts = len(re.findall(r'<script[\s>]', dom))
assert scripts == 1, ('script elements', scripts)
print('%s: %d DRAM chart points = %d operations, 1 script element' % (label, points, want))
PY
}

# fit HTML LABEL: at 1400 px, with every detail row shown, no table is wider than the content
# box of its card (issue 16 item 14). Measured in a copy with one more script appended.
fit() {
    local html=$1 label=$2
    python3 - "$html" "$work/fit.html" <<'PY'
import sys
page = open(sys.argv[1]).read()
js = ("<script>window.addEventListener('load',function(){"
      "var d=document.querySelectorAll('tr.det');for(var i=0;i<d.length;i++)d[i].hidden=false;"
      "var out=[],ts=document.querySelectorAll('table');"
      "for(var i=0;i<ts.length;i++){var t=ts[i],s=t.closest('section'),cs=getComputedStyle(s);"
      "var inner=s.clientWidth-parseFloat(cs.paddingLeft)-parseFloat(cs.paddingRight);"
      "var w=t.getBoundingClientRect().width;"
      "if(w>inner+0.5)out.push((t.id||'table'+i)+':'+Math.round(w)+'>'+Math.round(inner));}"
      "document.body.setAttribute('data-wide',out.join(' ')||'none');"
      "document.body.setAttribute('data-tables',String(ts.length));});</script>")
open(sys.argv[2], 'w').write(page.replace('</body>', js + '</body>'))
PY
    chrome --window-size=1400,900 --virtual-time-budget=3000 --dump-dom "file://$work/fit.html" > "$work/fit.dom" 2> /dev/null
    grep -q 'data-tables="[1-9]' "$work/fit.dom" || bad "$label: table widths not measured"
    grep -q 'data-wide="none"' "$work/fit.dom" ||
        bad "$label: tables wider than their card at 1400 px: $(grep -o 'data-wide="[^"]*"' "$work/fit.dom")"
}

# 1. A log whose op text (loc and attributes) carries <script>alert(1)</script>.
python3 - "$work/xss.log" <<'PY'
import sys
A = '                 Always |     INFO | '
R = '            RuntimeTTNN |    DEBUG | '
def block(h, a):
    s = A + h + '\n'
    for t in ('DRAM', 'L1', 'L1_SMALL', 'TRACE'):
        s += A + ('Device %s memory state: MemoryView{numBanks: 12, totalBytesPerBank: 1024.000 MB, '
                  'totalBytesAllocatedPerBank: %s MB, totalBytesFreePerBank: 1.000 MB, '
                  'largestContiguousBytesFreePerBank: 1.000 MB}\n' % (t, a))
    return s
out = ''
for i in range(5):
    out += (R + 'Executing operation: %%%d = "ttnn.neg"(%%%d) <{note = "<script>alert(1)</script>"}> : '
            '(tensor<2xf32>) -> tensor<2xf32> loc("<script>alert(1)</script>")\n' % (i + 1, i))
    out += block('Device memory state before operation <script>alert(1)</script>', '%d.000' % i)
open(sys.argv[1], 'w').write(out)
PY
"$PROFQ" tt analyze "$work/xss.log" -o "$work/xss" > /dev/null || bad "tt analyze xss.log: exit $?"
check "$work/xss/xss_report.html" 5 xss
fit "$work/xss/xss_report.html" xss
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$work/dom.html" || bad "xss: the op text is not shown as text"

# 2. Every real log.
skipped=0
if [ -d "$SHARED/data/tenstorrent" ]; then
    for log in "$SHARED"/data/tenstorrent/*.log; do
        name=$(basename "$log" .log)
        "$PROFQ" tt analyze "$log" -o "$work/real" > /dev/null || { bad "analyze $log"; continue; }
        ops=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' \
            "$work/real/${name}_operations.json")
        check "$work/real/${name}_report.html" "$ops" "$name"
        fit "$work/real/${name}_report.html" "$name"
    done
else
    skipped=1
fi
if [ $failed -ne 0 ]; then
    echo "browser: $failed failure(s)"
    exit 1
fi
if [ $skipped = 1 ]; then
    echo "browser: SKIP: $SHARED/data/tenstorrent is missing (real logs not checked)"
    exit 77
fi
echo "browser: all checks passed"
