#!/usr/bin/env bash
# `profq export` round trip: every XPlane in $SHARED/data (and the legacy run directory)
# is exported to trace.json and trace.json.gz; Python's json (standard library) and profq's
# own streaming trace reader (through `profq summarize`) parse both,
# they are equal, and every XPlane line gets exactly as many trace events ("X" or "i") as
# `profq info` counts XEvents on it -- one trace event per XPlane event, no cap. Every pid
# and tid used is named by a metadata event. Exit 0 pass, 1 fail, 77 skip without data.
set -u
SUITE=export_roundtrip
. "$(dirname "$0")/lib.sh"
data="$SHARED/data/xplane"
require_data "$data"
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-export-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
for src in "$data"/*.xplane.pb "$data"/mi300x8_jax_conv_legacy; do
  "$PROFQ" export -o "$work/t.json" "$src" &&
    "$PROFQ" export -o "$work/t.json.gz" "$src" &&
    "$PROFQ" info --format json --no-hash "$src" >"$work/info.json" &&
    "$PROFQ" summarize -o "$work/s.json" "$work/t.json" >/dev/null &&
    "$PROFQ" summarize -o "$work/sgz.json" "$work/t.json.gz" >/dev/null || { fail=1; continue; }
  python3 - "$work" "$src" <<'PY' || fail=1
import gzip, json, sys
work, src = sys.argv[1], sys.argv[2]
a = json.load(open(f"{work}/t.json"))
b = json.load(gzip.open(f"{work}/t.json.gz"))
assert a == b, "the .json and .json.gz exports differ"
info = json.load(open(f"{work}/info.json"))
want, pid = {}, 0
for s in info["sources"]:
    for pl in s["planes"]:
        pid += 1
        for i, ln in enumerate(pl["lines"]):
            want[(pid, i + 1)] = ln["events"]
got, named_p, named_t, tname = {}, set(), set(), {}
for e in a["traceEvents"]:
    if e["ph"] == "M":
        (named_p if e["name"] == "process_name" else named_t).add(
            e["pid"] if e["name"] == "process_name" else (e["pid"], e.get("tid")))
        if e["name"] == "thread_name":
            tname[(e["pid"], e["tid"])] = e["args"]["name"]
        continue
    assert e["ph"] in ("X", "i"), e
    assert isinstance(e["ts"], (int, float)) and isinstance(e["name"], str)
    if e["ph"] == "X":
        assert e["dur"] > 0
    got[(e["pid"], e["tid"])] = got.get((e["pid"], e["tid"]), 0) + 1
want = {k: v for k, v in want.items() if v}
n = sum(got.values())
# Overlapping events of a line go to extra threads "<line> (k)" after the plane's lines
# (issue 16 item 8): count them with their line.
import re
for (p, t) in [k for k in got if k not in want]:
    m = re.fullmatch(r"(.*) \((\d+)\)", tname.get((p, t), ""))
    line = [k for k in want if k[0] == p and m and tname.get(k) == m.group(1)]
    if line:
        got[line[0]] = got.get(line[0], 0) + got.pop((p, t))
if got != want:
    print(f"export_roundtrip: FAIL: {src}: per-line event counts differ")
    sys.exit(1)
assert {p for p, _ in got} <= named_p and set(got) <= {t for t in named_t if t[1]}
assert n == info["totals"]["events"], (n, info["totals"]["events"])
# profq's own trace reader (the one `summarize` streams with) reads the export back: every
# trace event, X and i, plus the metadata events, and nothing else.
meta = sum(1 for e in a["traceEvents"] if e["ph"] == "M")
nx = sum(1 for e in a["traceEvents"] if e["ph"] == "X")
for name in ("s.json", "sgz.json"):
    ov = json.load(open(f"{work}/{name}"))["trace_overview"]
    assert ov["num_events_total"] - meta == n, (name, ov["num_events_total"], meta, n)
    assert ov["num_complete_events"] == nx, (name, ov["num_complete_events"], nx)
print(f"export_roundtrip: {src.split('/')[-1]}: {n} events = {n} trace events, json == json.gz,"
      f" read back by profq's trace reader and Python's json")
PY
done
[ $fail -eq 0 ] && echo "export_roundtrip: all match"
exit $fail
