#!/usr/bin/env python3
"""Compares the hot ops of two profile_summary.v1 documents of the same run (one from the
Perfetto trace JSON, one from the XPlane): prints the top-10 table and exits 1 unless they agree
(the same top 10 in order, >= 90% of names shared, self time, total time and count of
every shared op within 1%). Used by tests/demo_summary.sh and scripts/demo.sh.

Usage: hot_ops_agree.py PERFETTO_SUMMARY XPLANE_SUMMARY
"""

import json
import sys

TOLERANCE = 0.01


def rel(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-12)


def main():
    pa, pb = sys.argv[1], sys.argv[2]
    a, b = (json.load(open(p)) for p in (pa, pb))
    ha = {h["name"]: h for h in a["hot_ops"]}
    hb = {h["name"]: h for h in b["hot_ops"]}
    fails = []
    if not ha or not hb:
        fails.append("hot ops empty: %d from %s, %d from %s" % (len(ha), a["source_format"],
                                                                  len(hb), b["source_format"]))
    top_a = [h["name"] for h in a["hot_ops"][:10]]
    top_b = [h["name"] for h in b["hot_ops"][:10]]
    if top_a != top_b:
        fails.append("top-10 differ: %s vs %s" % (top_a, top_b))
    common = [h["name"] for h in a["hot_ops"] if h["name"] in hb]
    if ha and len(common) < 0.9 * max(len(ha), len(hb)):
        fails.append("only %d of %d/%d hot ops shared" % (len(common), len(ha), len(hb)))
    print("%-36s %14s %14s %8s  (self time, %s vs %s)" % ("hot op", a["source_format"],
                                                          b["source_format"], "diff",
                                                          "µs", "µs"))
    worst = 0.0
    for n in common:
        x, y = ha[n], hb[n]
        d = rel(x["exclusive_duration"], y["exclusive_duration"])
        worst = max(worst, d)
        if n in top_a:
            print("%-36s %14.3f %14.3f %7.3f%%" % (n[:36], x["exclusive_duration"],
                                                   y["exclusive_duration"], 100 * d))
        for k in ("exclusive_duration", "total_duration", "count"):
            if rel(x[k], y[k]) > TOLERANCE:
                fails.append("%s: %s %s vs %s" % (n, k, x[k], y[k]))
    xla_like = [n for n in top_a if any(s in n for s in ("dot", "fusion", "convolution"))]
    if top_a and len(xla_like) < len(top_a) // 2:
        fails.append("the top hot ops are not XLA ops: %s" % top_a)
    print("hot ops: %d from the Perfetto trace, %d from the XPlane, %d shared; largest "
          "self-time difference %.4f%% (limit %.0f%%)" % (len(ha), len(hb), len(common),
                                                          100 * worst, 100 * TOLERANCE))
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
