#!/usr/bin/env python3
"""Nsight SQLite exports as profq sources (issue 12), checked against direct SQL.

On each export given: kernel, memcpy, memset, CUDA runtime call and NVTX range counts
(`profq info --format json`), kernel count and total kernel time per device and per stream
(`profq ops --format json`: rows of category kernel, summed per stream), and the GPU
projection of NVTX ranges (`profq export`: the slices on the "GPU D NVTX (projected)" tracks)
against a projection computed here in Python from the runtime calls' correlation ids. The
export file is unchanged afterwards (sha256). Then, built here with sqlite3 in a scratch
directory: XLA module/thunk ranges renamed into a copy (info counts them), and bad inputs
(no kernel table, truncated, not an nsys export) that must exit 3 with one line naming the
file and the table or what was expected. Exit 0 when all hold, 1 otherwise.
"""
import argparse
import collections
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(profq, *args):
    p = subprocess.run([profq, *args], capture_output=True)
    return p.returncode, p.stdout, p.stderr


def connect(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    con.text_factory = bytes  # exports carry non-UTF-8 text
    return con


def tables(con):
    return {r[0].decode() for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def count(con, t, where=""):
    return con.execute("SELECT COUNT(*) FROM %s %s" % (t, where)).fetchone()[0] if t in tables(con) else 0


def projection(con):
    """(globalTid, device) -> sorted [(first kernel start, last kernel end, text)] per range."""
    if not {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"} <= tables(con):
        return collections.Counter()
    strings = dict(con.execute("SELECT id, value FROM StringIds"))
    kernels = {}
    for corr, pid, dev, s, e in con.execute(
            "SELECT correlationId, globalPid, deviceId, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"):
        kernels[(pid, corr)] = (dev, s, e)
    calls = collections.defaultdict(list)
    for tid, s, corr in con.execute(
            "SELECT globalTid, start, correlationId FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
        calls[tid].append((s, corr))
    out = collections.Counter()
    for s, e, tid, text, text_id in con.execute(
            "SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS "
            "WHERE eventType IN (59, 60) AND end IS NOT NULL"):
        name = text if text is not None else strings.get(text_id, b"")
        per_dev = {}
        for cs, corr in calls[tid]:
            k = kernels.get(((tid >> 24) << 24, corr))
            if s <= cs <= e and k:
                lo, hi = per_dev.get(k[0], (k[1], k[2]))
                per_dev[k[0]] = (min(lo, k[1]), max(hi, k[2]))
        for dev, (lo, hi) in per_dev.items():
            out[(dev, lo, hi, name)] += 1
    return out


def exported_projection(profq, path):
    rc, out, _ = run(profq, "export", path)
    check(rc == 0, "%s: export exit %d" % (path, rc))
    d = json.loads(out) if rc == 0 else {"traceEvents": []}
    got = collections.Counter()
    # "GPU D NVTX (projected)", and the export's extra lanes "... (2)" for partial overlaps.
    lanes = {(ev["pid"], ev["tid"]): int(ev["args"]["name"].split()[1]) for ev in d["traceEvents"]
             if ev.get("ph") == "M" and ev["name"] == "thread_name"
             and "NVTX (projected)" in ev["args"]["name"]}
    for ev in d["traceEvents"]:
        if ev.get("ph") == "X" and (ev["pid"], ev["tid"]) in lanes:
            start = round(float(ev["ts"]) * 1000)
            got[(lanes[(ev["pid"], ev["tid"])], start, start + round(float(ev["dur"]) * 1000),
                 ev["name"].encode("utf-8", "surrogateescape"))] += 1
    return got


def check_export(profq, path):
    name = os.path.basename(path)
    sha = hashlib.sha256(open(path, "rb").read()).hexdigest()
    con = connect(path)
    rc, out, err = run(profq, "info", "--format", "json", path)
    check(rc == 0, "%s: info exit %d: %s" % (name, rc, err[:300]))
    if rc:
        return
    x = json.loads(out)["sources"][0]["nsys_sqlite"]
    # The same export piped to stdin (deserialized from memory, not opened by path).
    with open(path, "rb") as f:
        p = subprocess.run([profq, "info", "--format", "json", "-"], stdin=f, capture_output=True)
    check(p.returncode == 0 and json.loads(p.stdout)["sources"][0]["nsys_sqlite"] == x,
          "%s: info on stdin exit %d differs from the file's" % (name, p.returncode))
    want = {
        "kernels": count(con, "CUPTI_ACTIVITY_KIND_KERNEL"),
        "memcpys": count(con, "CUPTI_ACTIVITY_KIND_MEMCPY"),
        "memsets": count(con, "CUPTI_ACTIVITY_KIND_MEMSET"),
        "runtime_calls": count(con, "CUPTI_ACTIVITY_KIND_RUNTIME"),
        "nvtx_ranges": count(con, "NVTX_EVENTS", "WHERE eventType IN (59, 60) AND end IS NOT NULL"),
    }
    for k, v in want.items():
        check(x[k] == v, "%s: info %s %s, SQL says %s" % (name, k, x[k], v))
    gpus = {g["id"]: g for g in x["gpus"]}
    for gid, gname, mem, sms in con.execute("SELECT id, name, totalMemory, smCount FROM TARGET_INFO_GPU"):
        g = gpus.get(gid, {})
        check(g.get("name", "").encode() == gname, "%s: GPU %d name %r" % (name, gid, g.get("name")))
        check(g.get("memory_bytes", 0) == (mem or 0), "%s: GPU %d memory" % (name, gid))
        check(g.get("sm_count", 0) == (sms or 0), "%s: GPU %d SMs" % (name, gid))
    per_dev_sql = dict(con.execute(
        "SELECT deviceId, COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY deviceId"))
    for gid, g in gpus.items():
        check(g["kernels"] == per_dev_sql.get(gid, 0), "%s: GPU %d kernels" % (name, gid))

    # Kernel time per stream and per device: `profq ops` against SUM(end - start).
    rc, out, err = run(profq, "ops", "--format", "json", path)
    check(rc == 0, "%s: ops exit %d: %s" % (name, rc, err[:300]))
    if rc == 0:
        stream_ps, stream_n = collections.Counter(), collections.Counter()
        for r in json.loads(out)["rows"]:
            if r["category"] == "kernel":
                stream_ps[r["program"]] += r["time_ps"]
                stream_n[r["program"]] += r["occurrences"]
        want_ps, want_n, dev_ps = collections.Counter(), collections.Counter(), collections.Counter()
        for dev, stream, n, ns in con.execute(
                "SELECT deviceId, streamId, COUNT(*), SUM(end - start) FROM "
                "CUPTI_ACTIVITY_KIND_KERNEL GROUP BY deviceId, streamId"):
            key = "GPU %d stream %d" % (dev, stream)
            want_ps[key], want_n[key] = ns * 1000, n
            dev_ps[dev] += ns * 1000
        check(stream_ps == want_ps, "%s: kernel ps per stream %s, SQL says %s" % (name, dict(stream_ps), dict(want_ps)))
        check(stream_n == want_n, "%s: kernels per stream %s, SQL says %s" % (name, dict(stream_n), dict(want_n)))
        got_dev = collections.Counter()
        for k, v in stream_ps.items():
            got_dev[int(k.split()[1])] += v
        check(got_dev == dev_ps, "%s: kernel ps per device %s, SQL says %s" % (name, dict(got_dev), dict(dev_ps)))
        check(sum(stream_n.values()) == want["kernels"], "%s: ops kernel count" % name)

    want_proj = projection(con)
    got_proj = exported_projection(profq, path)
    check(got_proj == want_proj, "%s: projected NVTX ranges differ: profq %d, Python %d; only profq %s; only Python %s"
          % (name, sum(got_proj.values()), sum(want_proj.values()),
             list((got_proj - want_proj).items())[:3], list((want_proj - got_proj).items())[:3]))
    check(x["projected_ranges"] == sum(want_proj.values()), "%s: info projected_ranges" % name)
    con.close()
    check(hashlib.sha256(open(path, "rb").read()).hexdigest() == sha, "%s: the file changed" % name)
    print("%s: %d kernels, %d NVTX ranges, %d projected" % (name, want["kernels"], want["nvtx_ranges"],
                                                           sum(want_proj.values())))


def with_xla_ranges(src, dst):
    """A copy whose outermost projected range is an XLA module and one range inside it a thunk."""
    shutil.copy(src, dst)
    os.chmod(dst, 0o644)
    con = sqlite3.connect(dst)
    rows = con.execute("SELECT rowid, start, end, globalTid FROM NVTX_EVENTS WHERE eventType = 59 "
                       "AND end IS NOT NULL ORDER BY start, end DESC").fetchall()
    proj = projection(connect(src))
    names = {n for (_, _, _, n) in proj}
    texts = dict(con.execute("SELECT rowid, text FROM NVTX_EVENTS"))
    inner = [r for r in rows if texts[r[0]] and texts[r[0]].encode() in names and texts[r[0]].endswith("kernel0")]
    assert inner, "no projected kernel0 range"
    thunk = inner[0]
    module = max((r for r in rows if r[1] <= thunk[1] and thunk[2] <= r[2] and r[0] != thunk[0]
                  and r[3] == thunk[3]), key=lambda r: r[1])
    con.execute("UPDATE NVTX_EVENTS SET text = 'TSL:XlaModule:#hlo_module=jit_step,program_id=7#' "
                "WHERE rowid = ?", (module[0],))
    con.execute("UPDATE NVTX_EVENTS SET text = 'TSL:Thunk:#hlo_op=fusion.1#' WHERE rowid = ?", (thunk[0],))
    con.commit()
    con.close()


def expect_exit3(profq, path, pattern, label):
    rc, out, err = run(profq, "info", path)
    lines = err.decode(errors="replace").strip().split("\n")
    ok = rc == 3 and not out and len(lines) == 1 and path in lines[0] and pattern in lines[0]
    check(ok, "%s: exit %d, stderr %r" % (label, rc, err[:400]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("exports", nargs="+")
    a = ap.parse_args()
    for p in a.exports:
        check_export(a.profq, p)
    work = tempfile.mkdtemp(prefix="profq-sqlite-")
    try:
        src = next(p for p in a.exports if "NVTX_EVENTS" in tables(connect(p)))
        xla = os.path.join(work, "xla.sqlite")
        with_xla_ranges(src, xla)
        rc, out, err = run(a.profq, "info", "--format", "json", xla)
        check(rc == 0, "xla copy: info exit %d %s" % (rc, err[:300]))
        if rc == 0:
            x = json.loads(out)["sources"][0]["nsys_sqlite"]
            check(x["module_ranges"] == 1 and x["thunk_ranges"] == 1,
                  "xla copy: module_ranges %d thunk_ranges %d, want 1 and 1" % (x["module_ranges"], x["thunk_ranges"]))
        rc, out, err = run(a.profq, "nsys", "--format", "json", xla)
        check(rc == 0 and [m["rows"] for m in json.loads(out)["modules"]] == [1],
              "nsys on the export with one module range: exit %d %r" % (rc, err))

        nokernel = os.path.join(work, "nokernel.sqlite")
        shutil.copy(a.exports[0], nokernel)
        os.chmod(nokernel, 0o644)
        con = sqlite3.connect(nokernel)
        con.execute("DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL")
        con.commit()
        con.execute("VACUUM")
        con.close()
        expect_exit3(a.profq, nokernel, "CUPTI_ACTIVITY_KIND_KERNEL", "no kernel table")

        data = open(a.exports[0], "rb").read()
        trunc = os.path.join(work, "truncated.sqlite")
        open(trunc, "wb").write(data[:len(data) // 2])
        expect_exit3(a.profq, trunc, "truncated", "truncated export")
        short = os.path.join(work, "short.sqlite")
        open(short, "wb").write(data[:60])
        expect_exit3(a.profq, short, "100-byte header", "60-byte export")

        other = os.path.join(work, "other.sqlite")
        con = sqlite3.connect(other)
        con.execute("CREATE TABLE t (x INTEGER)")
        con.execute("INSERT INTO t VALUES (1)")
        con.commit()
        con.close()
        expect_exit3(a.profq, other, "expected an Nsight Systems SQLite export", "not an nsys export")
    finally:
        shutil.rmtree(work)
    print("sqlite: %s" % ("%d failure(s)" % len(FAILS) if FAILS else "all checks pass"))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
