#!/usr/bin/env bash
# tests/browser/html_all.sh - `profq html` of EVERY file under ../shared/data that `profq tools
# --format json` says feeds at least one analysis (the files it cannot read are skipped, each
# with tools' reason), each page loaded in headless Chromium from disk (file://, offline):
# html exits 0, the page's script runs to the end (body[data-ready]), the console is empty,
# and every section the file feeds is listed, present and drawn:
#   ops            -> #ops: the by-category, by-program and roofline charts with data marks
#   memory-viewer  -> #memory-viewer: a buffers table, and a heap chart (polyline) per module
#                     when tools also says `heap` (a heap-simulator trace)
#   memory-profile -> #memory-profile: a timeline chart with a polyline
#   memory         -> #memory-attribution: the attribution table and bars
#   nsys           -> #nsys: the module table
#   summarize of a trace JSON source -> #traces: the breakdown bar
# (the feeds info, scan, export and tt have no html section: the Tenstorrent report is `profq
# tt --format html`, tested by tt_report.sh). html_report.sh checks the numbers of a subset;
# this one checks that no shared file breaks the page. BREAK=SECTION drops that section from
# each page before loading it (to see this test fail).
# Suite contract: 0 pass, 77 skip (no chromium, or no $SHARED; failures under CI=true).
set -u
. "$(dirname "$0")/lib.sh"
browser_init browser htmlall
[ -d "$SHARED/data/xplane" ] || skip "$SHARED/data is absent"
checked=0 skipped=0

while IFS= read -r -d '' path; do
    rel=${path#"$SHARED"/}
    if ! "$PROFQ" tools --format json "$path" >"$work/tools.json" 2>"$work/tools.err"; then
        skipped=$((skipped + 1))
        echo "skip $rel: $(head -1 "$work/tools.err" | sed 's/^profq: [^:]*: //' | cut -c1-240)"
        continue
    fi
    feeds=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["inputs"][0]["feeds"]))' "$work/tools.json")
    if [ -z "$feeds" ]; then
        skipped=$((skipped + 1))
        echo "skip $rel: tools says it feeds no analysis"
        continue
    fi
    checked=$((checked + 1))
    "$PROFQ" html "$path" -o "$work/page.html" 2>"$work/html.err" ||
        { bad "$rel: profq html exit $?: $(head -1 "$work/html.err")"; continue; }
    if [ -n "${BREAK:-}" ]; then
        sed -i "s/id=\"$BREAK\"/id=\"broken\"/" "$work/page.html"
    fi
    load_page "$work/page.html" "$work/dom.html" "$work/console.txt"
    grep -q 'data-ready="1"' "$work/dom.html" || bad "$rel: the page's script did not finish"
    [ -s "$work/console.txt" ] && { bad "$rel: console messages:"; head -5 "$work/console.txt"; }
    : >"$work/ops.json"
    case " $feeds " in *" ops "*) "$PROFQ" ops --format json "$path" >"$work/ops.json" 2>/dev/null ;; esac
    python3 - "$work/dom.html" "$rel" "$feeds" "$work/ops.json" <<'PY' || bad "$rel: sections"
import json, os, re, sys
dom, rel, feeds = open(sys.argv[1]).read(), sys.argv[2], set(sys.argv[3].split())
ops = json.load(open(sys.argv[4])) if os.path.getsize(sys.argv[4]) else {'rows': []}
anchors = ['ops', 'memory-viewer', 'memory-profile', 'memory-attribution', 'traces', 'nsys']
pos = {}
for a in anchors + ['overview']:
    m = re.search(r'<(?:section|div|h2)[^>]* id="%s"' % a, dom)
    if m:
        pos[a] = m.start()
end = dom.find('</main>')
def part(a):
    """The HTML of section A: from its anchor to the next section's anchor."""
    assert a in pos, 'section #%s is missing' % a
    after = [p for p in pos.values() if p > pos[a]] + [end if end > 0 else len(dom)]
    return dom[pos[a]:min(after)]
def drawn(html, ids, marks):
    """Every chart of IDS (regexes) in HTML has at least one data mark of MARKS."""
    for i in ids:
        svgs = re.findall(r'<svg[^>]*id="%s".*?</svg>' % i, html, re.S)
        assert svgs, 'no chart %s' % i
        for s in svgs:
            assert re.search(marks, s), 'chart %s has no data' % i
    return len(ids)
want = {'ops': 'ops', 'memory-viewer': 'memory-viewer', 'memory-profile': 'memory-profile',
        'memory': 'memory-attribution', 'nsys': 'nsys'}
if 'summarize' in feeds and '/trace-json/' in '/' + rel:
    want['summarize'] = 'traces'
said = []
for feed, a in want.items():
    if feed not in feeds:
        continue
    assert '<a href="#%s">' % a in dom, 'overview does not list #%s' % a
    assert not re.search(r'<a href="#%s">[^<]*</a> \(failed\)' % a, dom), '#%s failed' % a
    h = part(a)
    if a == 'ops':
        n = drawn(h, ['by-category', 'by-program'], r'<rect class="bar"')
        # a point per op with a FLOP rate (a trace JSON has none: then the axes alone)
        rated = [r for r in ops['rows'] if (r.get('gflops_per_s') or 0) > 0 and (r.get('operational_intensity') or 0) > 0]
        n += drawn(h, ['roofline'], r'<circle class="op"' if rated else r'<g class="points">')
        assert re.search(r'<table class="st" id="ops-table">.*?<td', h, re.S), 'no op rows'
    elif a == 'memory-viewer':
        assert re.search(r'<table class="st" id="buffers-\d+">.*?<td', h, re.S), 'no buffer rows'
        # per module shown: its heap chart drawn, or the note that it has no heap-simulator
        # trace (tools' `heap` says some module of the file has one; one at least is drawn
        # when the first modules shown have it)
        blocks = [b for b in re.split(r'<h3>', h)[1:] if not b.startswith('Every module')]
        n = 0
        for blk in blocks:
            if 'No heap-simulator trace' not in blk:
                n += drawn(blk, [r'heap-\d+'], r'<polyline[^>]*points="[^"]+"')
        assert blocks, 'no module in the memory viewer'
    elif a == 'memory-profile':
        n = drawn(h, [r'memprofile-\d+-\d+'], r'<polyline[^>]*points="[^"]+"')
    elif a == 'memory-attribution':
        assert re.search(r'<table class="st" id="memattr-table">.*?<td', h, re.S), 'no attribution rows'
        n = drawn(h, ['memattr-bars'], r'<rect class="seg"|<text')
    elif a == 'traces':
        n = drawn(h, ['breakdown'], r'<rect class="cat"')
    elif a == 'nsys':
        assert re.search(r'<table class="st" id="nsys-modules">.*?<td', h, re.S), 'no module rows'
        n = len(re.findall(r'<svg', h))
    said.append('%s (%d chart%s)' % (a, n, '' if n == 1 else 's'))
print('ok %s: %s' % (rel, ', '.join(said) or 'overview only (feeds: %s)' % ' '.join(sorted(feeds))))
PY
done < <(find "$SHARED/data" -type f -print0 | sort -z)

echo "browser: html of $checked file(s) checked, $skipped skipped (tools cannot read them: reasons above)"
[ "$checked" -gt 0 ] || bad "no file checked"
if [ $failed -ne 0 ]; then
    echo "browser: $failed failure(s)"
    exit 1
fi
echo "browser: all checks passed"
