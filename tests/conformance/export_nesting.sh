#!/usr/bin/env bash
# `profq export` writes slices that nest on every thread (issue 16 item 8): Chrome trace JSON
# requires the X events of one (pid, tid) to nest, and XPlane lines (XLA Ops, Async XLA Ops)
# and some Kineto threads hold partly overlapping events, which go to extra threads named
# after their line ("XLA Ops (2)"). For every shared XPlane and trace JSON: sorted by start
# (longer first), each X event starts at or after the previous one ends or ends within its
# enclosing event (exact decimal arithmetic, no float rounding); every extra thread is named
# "<line> (k)" after a thread of its process; and no event is lost or doubled (XPlane: X + i
# events = `profq info` events; trace JSON: X events = the slices `profq info` counts).
# Exit 0 pass, 1 fail, 77 skip without data.
set -u
SUITE=export_nesting
. "$(dirname "$0")/lib.sh"
require_data "$SHARED/data/xplane"
require_data "$SHARED/data/trace-json"
require_profq
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-nesting-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0 n=0
for src in "$SHARED"/data/xplane/*.xplane.pb "$SHARED"/data/xplane/mi300x8_jax_conv_legacy \
  "$SHARED"/data/trace-json/*; do
  "$PROFQ" info --format json --no-hash "$src" >"$work/info.json" 2>/dev/null || continue
  "$PROFQ" export -o "$work/t.json" "$src" || { echo "$SUITE: FAIL: export of $src"; fail=1; continue; }
  n=$((n + 1))
  python3 - "$work" "$src" <<'PY' || fail=1
import json, re, sys
from collections import defaultdict
from decimal import Decimal
work, src = sys.argv[1], sys.argv[2]
name = src.split("/")[-1]
t = json.load(open(f"{work}/t.json"), parse_float=Decimal)
info = json.load(open(f"{work}/info.json"))
tracks, names, ninst = defaultdict(list), {}, 0
for e in t["traceEvents"]:
    if e["ph"] == "X":
        tracks[(e["pid"], e["tid"])].append((Decimal(e["ts"]), Decimal(e["ts"]) + Decimal(e["dur"])))
    elif e["ph"] == "i":
        ninst += 1
    elif e["ph"] == "M" and e["name"] == "thread_name":
        names[(e["pid"], e["tid"])] = e["args"]["name"]
bad, worst = 0, Decimal(0)
for key, evs in tracks.items():
    evs.sort(key=lambda x: (x[0], -x[1]))
    open_ends = []
    for start, end in evs:
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        if open_ends and end > open_ends[-1]:
            bad += 1
            worst = max(worst, end - open_ends[-1])
        open_ends.append(end)
nx = sum(len(v) for v in tracks.values())
ok = True
if bad:
    print(f"export_nesting: FAIL: {name}: {bad} X events overlap an enclosing one (by up to {worst} us)")
    ok = False
srcs = info["sources"]
if all(s["format"] == "trace_json" for s in srcs):
    want, got = sum(s["trace"]["slices"] for s in srcs), nx
else:
    want, got = info["totals"]["events"], nx + ninst
if got != want:
    print(f"export_nesting: FAIL: {name}: {got} events exported, {want} in the profile")
    ok = False
extra = 0
for (pid, tid), nm in names.items():
    m = re.fullmatch(r"(.*) \((\d+)\)", nm)
    if m and int(m.group(2)) >= 2 and any(p == pid and v == m.group(1) for (p, _), v in names.items()):
        extra += 1
for key in tracks:
    if key not in names:
        print(f"export_nesting: FAIL: {name}: thread {key} has no name")
        ok = False
if not ok:
    sys.exit(1)
print(f"export_nesting: {name}: {nx} X events on {len(tracks)} threads ({extra} extra lanes) all nest")
PY
done
[ $n -gt 0 ] || { echo "$SUITE: FAIL: nothing exported"; exit 1; }
[ $fail -eq 0 ] && echo "$SUITE: every exported thread nests ($n exports)"
exit $fail
