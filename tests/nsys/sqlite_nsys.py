#!/usr/bin/env python3
"""`profq nsys` on Nsight SQLite exports (issue 12) against direct SQL (Python's sqlite3).

The shared exports hold no XLA ranges: `profq nsys` must exit 3 naming the file and what it
expected. A copy of an export gets XLA ranges inserted into NVTX_EVENTS on the thread that
launches its kernels: every two consecutive kernel launches (CUDA runtime calls correlated
with a kernel) form one module range "TSL:XlaModule:#hlo_module=M,program_id=P#"
(programs 7 and 8 alternating), each launch its own thunk range "TSL:Thunk:#hlo_op=fusion.K#",
and a host range "TSL:XlaCompileBackend:#module=jit_step,program_id=7#" says program 7 was
compiled in the profile. The expected tables are computed here from SQL rows, not from profq:
  * a range's GPU projection per device: first start and last end of the kernels correlated
    with the runtime calls that start inside it on its thread (same process);
  * a thunk range belongs to the module range on its thread whose host span holds its start
    (the latest such); executions numbered per (thread, program id) in host start order;
  * the archive-era warm-up: execution 0 of a compiled program is init, 1 neither, 2+ steady;
  * steady module rows, total ms (exact ns), share, thunks per execution; frames' module and
    thunk rows; runtime over the top modules (thunks, modules, wall per device); opcodes (no
    HLO: every thunk "[unknown]"); communication none.
Checked against `profq nsys --format json`, plus the "unavailable" sections (compile, heap,
flame) and `--section compile` exiting 3.
"""

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import unique_keys  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("sqlite_nsys: FAIL: " + what)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def launches(con):
    return con.execute(
        "SELECT r.start, r.end, r.globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
        "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId "
        "AND k.globalPid = (r.globalTid >> 24) << 24 ORDER BY r.start").fetchall()


def build(src, dst):
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    con = sqlite3.connect(dst)
    calls = launches(con)
    assert len(calls) >= 8, "too few kernel launches in %s" % src
    ins = "INSERT INTO NVTX_EVENTS (start, end, eventType, globalTid, text) VALUES (?, ?, 59, ?, ?)"
    tid = calls[0][2]
    con.execute(ins, (calls[0][0] - 1000, calls[0][0] - 500, tid,
                      "TSL:XlaCompileBackend:#module=jit_step,program_id=7#"))
    for m in range(len(calls) // 2):
        pair = calls[2 * m:2 * m + 2]
        prog, name = (7, "jit_step") if m % 2 == 0 else (8, "jit_other")
        con.execute(ins, (pair[0][0] - 1, pair[-1][1] + 1, pair[0][2],
                          "TSL:XlaModule:#hlo_module=%s,program_id=%d#" % (name, prog)))
        for k, c in enumerate(pair):
            con.execute(ins, (c[0], c[1], c[2], "TSL:Thunk:#hlo_op=fusion.%d#" % k))
    con.commit()
    con.close()


def projected(con):
    """[(rowid, globalTid, host start, host end, text, device, gpu start, gpu end)]."""
    kern = {}
    for corr, pid, dev, s, e in con.execute(
            "SELECT correlationId, globalPid, deviceId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        kern[(pid, corr)] = (dev, s, e)
    calls = con.execute("SELECT globalTid, start, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"
                        ).fetchall()
    out = []
    for rowid, s, e, g, text in con.execute(
            "SELECT rowid, start, end, globalTid, text FROM NVTX_EVENTS WHERE eventType = 59 "
            "AND end IS NOT NULL AND text LIKE 'TSL:%'"):
        per = {}
        for cg, cs, corr in calls:
            k = kern.get(((cg >> 24) << 24, corr))
            if cg == g and s <= cs <= e and k:
                lo, hi = per.get(k[0], (k[1], k[2]))
                per[k[0]] = (min(lo, k[1]), max(hi, k[2]))
        out += [(rowid, g, s, e, text, d, lo, hi) for d, (lo, hi) in per.items()]
    return out


def expected(con):
    rows = projected(con)
    compiled = {int(t.split("program_id=")[1].rstrip("#")) for (t,) in con.execute(
        "SELECT text FROM NVTX_EVENTS WHERE text LIKE 'TSL:XlaCompileBackend:%'")}
    mods = {}  # rowid -> (globalTid, host start, host end, program, name)
    for r in rows:
        if r[4].startswith("TSL:XlaModule:"):
            body = r[4][len("TSL:XlaModule:#"):-1]
            kv = dict(x.split("=") for x in body.split(","))
            mods[r[0]] = (r[1], r[2], r[3], int(kv["program_id"]), kv["hlo_module"])
    execs, count = {}, {}
    for rid in sorted(mods, key=lambda i: (mods[i][0], mods[i][1], -mods[i][2], i)):
        key = (mods[rid][0], mods[rid][3])
        execs[rid] = count[key] = count.get(key, -1) + 1

    def frame(rid):
        if mods[rid][3] not in compiled or execs[rid] > 1:
            return "steady"
        return "init" if execs[rid] == 0 else None

    def owner(r):
        cands = [i for i, m in mods.items() if m[0] == r[1] and m[1] <= r[2] <= m[2]]
        return max(cands, key=lambda i: (mods[i][1], -i)) if cands else None

    frames = {f: [0, 0] for f in ("all", "steady", "init")}
    per_mod, thunks_in = {}, {}
    trows = []
    for r in rows:
        is_thunk = r[4].startswith("TSL:Thunk:")
        rid = owner(r) if is_thunk else r[0]
        if rid is None or not (is_thunk or r[4].startswith("TSL:XlaModule:")):
            continue
        f = frame(rid)
        for name in ("all", f):
            if name:
                frames[name][is_thunk] += 1
        if is_thunk:
            thunks_in[(rid, r[5])] = thunks_in.get((rid, r[5]), 0) + 1
            trows.append((rid, r, f))
    mrows = [(r[0], r) for r in rows if r[0] in mods]
    for rid, r in mrows:
        if frame(rid) != "steady":
            continue
        p = per_mod.setdefault(mods[rid][3], {"name": mods[rid][4], "ns": 0, "th": []})
        p["ns"] += r[7] - r[6]
        p["th"].append(thunks_in.get((rid, r[5]), 0))
    total = sum(p["ns"] for p in per_mod.values())
    top, seen = [], 0.0
    for pid in sorted(per_mod, key=lambda p: (-per_mod[p]["ns"], p)):
        if seen >= 0.99:
            break
        top.append(pid)
        seen += per_mod[pid]["ns"] / total
    thunks_ns = sum(r[7] - r[6] for rid, r, f in trows if f == "steady" and mods[rid][3] in top)
    modules_ns, span = 0, {}
    for rid, r in mrows:
        if frame(rid) == "steady" and mods[rid][3] in top:
            modules_ns += r[7] - r[6]
            lo, hi = span.get(r[5], (r[6], r[7]))
            span[r[5]] = (min(lo, r[6]), max(hi, r[7]))
    wall = sum(hi - lo for lo, hi in span.values())
    return frames, per_mod, total, top, thunks_ns, modules_ns, wall


def compare(profq, path, con):
    frames, per_mod, total, top, thunks_ns, modules_ns, wall = expected(con)
    rc = subprocess.run([profq, "nsys", "--format", "json", path], capture_output=True, text=True)
    check(rc.returncode == 0, "nsys on the XLA export: exit %d %s" % (rc.returncode, rc.stderr))
    if rc.returncode:
        return
    g = json.loads(rc.stdout, object_pairs_hook=unique_keys)
    check(g.get("input") == "nsys-sqlite", "input %r" % g.get("input"))
    for f, (m, t) in frames.items():
        have = (g["frames"][f]["module_rows"], g["frames"][f]["thunk_rows"])
        check(have == (m, t), "frames.%s %s != %s" % (f, have, (m, t)))
    got = {int(m["program_id"]): m for m in g["modules"]}
    check(set(got) == set(per_mod), "modules %s != %s" % (sorted(got), sorted(per_mod)))
    for pid, p in per_mod.items():
        m = got.get(pid)
        if not m:
            continue
        n = len(p["th"])
        mean = sum(p["th"]) / n
        check(m["name"] == p["name"] and m["rows"] == n, "module %d: %s rows %d != %s %d"
              % (pid, m["name"], m["rows"], p["name"], n))
        check(close(m["total_ms"], p["ns"] / 1e6) and close(m["share"], p["ns"] / total),
              "module %d: total_ms %r share %r != %r %r" % (pid, m["total_ms"], m["share"],
                                                              p["ns"] / 1e6, p["ns"] / total))
        check(close(m["thunks_mean"], mean), "module %d: thunks_mean %r != %r"
              % (pid, m["thunks_mean"], mean))
    check(g["top_module_ids"] == [str(p) for p in top], "top %s != %s" % (g["top_module_ids"], top))
    rt = g["runtime"]
    for k, want in (("thunks_ms", thunks_ns), ("modules_ms", modules_ns), ("wall_ms", wall)):
        check(close(rt[k], want / 1e6), "runtime.%s %r != %r" % (k, rt[k], want / 1e6))
    ops = {o["opcode"]: o["total_ms"] for o in g["opcodes"]}
    check(set(ops) == {"[unknown]", "GPU idle during modules"} and
          close(ops["[unknown]"], thunks_ns / 1e6), "opcodes %s" % ops)
    check(all(g["frames"][f]["communication_rows"] == 0 for f in frames) and not g["collectives"],
          "communication found without HLO")
    check(g.get("unavailable", {}).get("sections") == ["compile", "heap", "flame"],
          "unavailable %r" % g.get("unavailable"))
    rc = subprocess.run([profq, "nsys", "--section", "compile", path], capture_output=True,
                        text=True)
    check(rc.returncode == 3 and "nsys-jax archive" in rc.stderr,
          "--section compile: exit %d %r" % (rc.returncode, rc.stderr))
    rc = subprocess.run([profq, "nsys", path], capture_output=True, text=True)
    check(rc.returncode == 0 and "not available on an Nsight SQLite export: compile, heap, flame"
          in rc.stdout, "text: exit %d, no unavailable line" % rc.returncode)
    print("sqlite_nsys: %s: %d module rows (%d steady), %d thunk rows, %d programs: compared"
          % (os.path.basename(path), frames["all"][0], frames["steady"][0], frames["all"][1],
             len(per_mod)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("exports", nargs="+")
    a = ap.parse_args()
    for p in a.exports:
        rc = subprocess.run([a.profq, "nsys", p], capture_output=True, text=True)
        check(rc.returncode == 3 and p in rc.stderr and "expected XLA module ranges" in rc.stderr,
              "%s without XLA ranges: exit %d %r" % (p, rc.returncode, rc.stderr))
    work = tempfile.mkdtemp(prefix="profq-sqlite-nsys-")
    try:
        src = next(p for p in a.exports if len(launches(sqlite3.connect(
            "file:%s?mode=ro&immutable=1" % p, uri=True))) >= 8)
        xla = os.path.join(work, "xla.sqlite")
        build(src, xla)
        con = sqlite3.connect(xla)
        compare(a.profq, xla, con)
        con.close()
    finally:
        shutil.rmtree(work)
    print("sqlite_nsys: %s" % ("%d failure(s)" % len(FAILS) if FAILS else "all checks pass"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
