#!/usr/bin/env bash
# tests/browser/nsys_svg.sh - `profq nsys --format svg` (bus bandwidth vs message size) in
# headless Chromium (Debian package `chromium`), loaded from disk (file://): the console shows
# no message at all, the document is one <svg> with no <script> element, every collective
# instance is a point, and an archive whose HLO metadata holds <script>alert(1)</script>
# (tests/nsys/xss_archive.py) shows it as text in the point's tooltip. The shared h100 archive
# is checked the same way (one point per steady collective instance of `--format json`).
# Suite contract: 0 pass, 77 skip (no chromium, no PyPI for pyarrow, or no $SHARED; failures
# under CI=true).
set -u
. "$(dirname "$0")/lib.sh"
browser_init nsys_svg nsys-svg
python=$(cd "$top" && scripts/venv.sh nsys tests/nsys-requirements.txt) ||
    skip "could not create the venv from tests/nsys-requirements.txt"

# check ARCHIVE LABEL XSS: renders, loads, checks console, script elements, points.
check() {
    local archive=$1 label=$2 xss=$3
    "$PROFQ" nsys --format svg -o "$work/$label.svg" "$archive" || { bad "$label: profq exit $?"; return; }
    "$PROFQ" nsys --format json -o "$work/$label.json" "$archive" || { bad "$label: json exit $?"; return; }
    load_page "$work/$label.svg" "$work/dom.xml" "$work/console.txt"
    [ -s "$work/console.txt" ] && { bad "$label: console messages:"; cat "$work/console.txt"; }
    python3 - "$work/dom.xml" "$work/$label.json" "$label" "$xss" <<'PY' || bad "$label: DOM checks"
import json, re, sys
dom, doc, label, xss = open(sys.argv[1]).read(), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
assert re.search(r'<svg[^>]*id="nsys-busbw"', dom), 'no chart svg in the DOM'
assert not re.search(r'<script[\s>]', dom), 'a script element in the DOM'
points = len(re.findall(r'<circle', dom))
want = sum(1 for x in doc['collective_instances'] if x['message_bytes'] > 0)
assert points == want, ('points', points, 'instances', want)
if xss == '1':
    assert '&lt;script&gt;alert(1)&lt;/script&gt;' in dom, 'the <script> op_name is not shown as text'
print('%s: %d points = %d collective instances, no script element' % (label, points, want))
PY
}

"$python" "$top/tests/nsys/xss_archive.py" "$work/xss.zip" || bad "xss_archive.py exit $?"
check "$work/xss.zip" xss 1
archive="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip"
skipped=0
if [ -f "$archive" ]; then
    check "$archive" h100 0
else
    skipped=1
fi
if [ $failed -ne 0 ]; then
    echo "nsys_svg: $failed failure(s)"
    exit 1
fi
if [ $skipped = 1 ]; then
    echo "nsys_svg: SKIP: $archive is missing (the real archive not checked)"
    exit 77
fi
echo "nsys_svg: all checks passed"
