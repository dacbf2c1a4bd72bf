"""The nsys-jax archive as a profq source (tests/nsys/archive.sh), against pyarrow.

1. `profq info --format json` on the archive: the ranges on each device track and on each
   host thread track equal a count of the archive's trace.parquet read by pyarrow, with the
   device of each thread worked out here from the rule of ../shared/spec/nsys-jax.md
   section 1 (per program id, the sorted distinct TIDs that launched its thunks get the
   ordinals 0..n-1; a thunk's program is that of its nearest XlaModule ancestor).
2. Bad archives exit 3 with the file and what was expected: a truncated copy, an archive
   without trace.parquet, and one whose trace.parquet has another column set or type (the
   column is named); `profq nsys` on a trace JSON exits 3, an unknown --section 2.
"""
import argparse
import collections
import io
import json
import re
import subprocess
import sys
import tempfile
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq

TRACE = "nvtx_gpu_proj_trace/trace.parquet"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def expected_counts(table):
    d = table.to_pydict()
    rows = [i for i, r in enumerate(d["RangeId"]) if r is not None]
    by_id = {int(d["RangeId"][i]): i for i in rows}
    mod_re = re.compile(r"^TSL:XlaModule:#(?:prefix=.*?,)?hlo_module=[a-z0-9._-]+(?:,program_id=(\d+))?#$")
    tids = collections.defaultdict(set)
    for i in rows:
        name = d["Name"][i] or ""
        if not name.startswith("TSL:Thunk:#"):
            continue
        j = i
        while j is not None and (d["Name"][j] or "").startswith("TSL:Thunk:#"):
            p = d["ParentId"][j]
            j = by_id.get(int(p)) if p is not None else None
        if j is None or not (d["Name"][j] or "").startswith("TSL:XlaModule:"):
            continue
        m = mod_re.match(d["Name"][j])
        prog = int(m.group(1)) if m and m.group(1) else -1
        tids[prog].add(d["TID"][i])
    device = {}
    for prog, ts in tids.items():
        for ordinal, tid in enumerate(sorted(ts)):
            device[tid] = ordinal
    counts = collections.Counter()
    for i in rows:
        tid = d["TID"][i]
        counts[("device", device[tid]) if tid in device else ("host", tid)] += 1
    return counts


def run(profq, path):
    p = subprocess.run([profq, "info", "--format", "json", path], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    a = ap.parse_args()

    with zipfile.ZipFile(a.archive) as z:
        raw = z.read(TRACE)
    table = pq.read_table(io.BytesIO(raw))
    want = expected_counts(table)

    rc, out, err = run(a.profq, a.archive)
    check(rc == 0, f"profq info on the archive exits 0 (got {rc}: {err.strip()})")
    if rc != 0:
        return
    src = json.loads(out)["sources"][0]
    check(src["format"] == "nsys_jax", "the source's format is nsys_jax")
    got = collections.Counter()
    pushpop_threads = set()
    for proc in src["trace"]["processes"]:
        for t in proc["threads"]:
            if t["tid"] >= 0:
                got[("device", t["tid"])] += t["slices"]
            else:
                pushpop_threads.add(-t["tid"])
    # Host thread tracks also hold the push/pop ranges: compare the projected ones through
    # nsys_jax.projected_ranges and the device tracks one by one.
    ndev = len([k for k in want if k[0] == "device"])
    check(src["nsys_jax"]["devices"] == ndev, f"{ndev} devices (got {src['nsys_jax']['devices']})")
    for k in sorted(want):
        if k[0] == "device":
            check(got[k] == want[k], f"device {k[1]}: {want[k]} ranges (profq {got[k]})")
    total = sum(want.values())
    check(src["nsys_jax"]["projected_ranges"] == total,
          f"{total} projected ranges (profq {src['nsys_jax']['projected_ranges']})")
    host = [k for k in want if k[0] == "host"]
    check(all(k[1] in pushpop_threads for k in host), "threads that launched no thunk are host tracks")

    with tempfile.TemporaryDirectory() as tmp:
        data = open(a.archive, "rb").read()
        bad = f"{tmp}/truncated.zip"
        open(bad, "wb").write(data[: len(data) // 2])
        rc, out, err = run(a.profq, bad)
        check(rc == 3 and bad in err and "expected" in err,
              f"a truncated archive exits 3 naming the file and what was expected ({rc}: {err.strip()})")

        empty = f"{tmp}/notrace.zip"
        with zipfile.ZipFile(empty, "w") as z:
            z.writestr("report_nvtx_pushpop_trace.csv", "Start (ns),End (ns)\n")
        rc, out, err = run(a.profq, empty)
        check(rc == 3 and empty in err and TRACE in err,
              f"an archive without {TRACE} exits 3 naming it ({rc}: {err.strip()})")

        newer = f"{tmp}/newer.zip"
        renamed = table.rename_columns(["Start" if c == "Projected Start" else c for c in table.column_names])
        buf = io.BytesIO()
        pq.write_table(renamed, buf, compression="snappy")
        with zipfile.ZipFile(newer, "w") as z:
            z.writestr(TRACE, buf.getvalue())
        rc, out, err = run(a.profq, newer)
        check(rc == 3 and newer in err and '"Projected Start"' in err,
              f"an unknown column set exits 3 naming the column ({rc}: {err.strip()})")

        trace = f"{tmp}/trace.json"
        open(trace, "w").write('{"traceEvents": [{"ph": "X", "pid": 1, "tid": 1, "name": "a", '
                               '"ts": 1, "dur": 2}]}')
        p = subprocess.run([a.profq, "nsys", trace], capture_output=True, text=True)
        check(p.returncode == 3 and trace in p.stderr and "expected an nsys-jax archive" in p.stderr,
              f"profq nsys on a trace JSON exits 3 asking for an archive ({p.returncode}: {p.stderr.strip()})")
        p = subprocess.run([a.profq, "nsys", "--section", "nope", a.archive], capture_output=True,
                           text=True)
        check(p.returncode == 2 and "--section" in p.stderr,
              f"profq nsys --section nope is a usage error ({p.returncode}: {p.stderr.strip()})")

        wrongtype = f"{tmp}/wrongtype.zip"
        cast = table.set_column(table.column_names.index("TID"), "TID",
                                table.column("TID").cast(pa.float64()))
        buf = io.BytesIO()
        pq.write_table(cast, buf, compression="snappy")
        with zipfile.ZipFile(wrongtype, "w") as z:
            z.writestr(TRACE, buf.getvalue())
        rc, out, err = run(a.profq, wrongtype)
        check(rc == 3 and '"TID"' in err and "INT64" in err,
              f"a column of another type exits 3 naming it ({rc}: {err.strip()})")


main()
if failures:
    print(f"archive_ranges: {len(failures)} check(s) failed")
    sys.exit(1)
print("archive_ranges: all checks passed")
