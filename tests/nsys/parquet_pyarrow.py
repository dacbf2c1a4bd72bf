"""Checks profq's parquet, zip and pushpop readers (through build/tests/nsys_pqdump) against
pyarrow and Python's zipfile/lzma/csv: every value equal, not only counts.

1. pyarrow writes one table (every supported physical type, required and optional columns,
   nulls, NaN/inf, unicode and empty strings) in every supported combination: codec
   none/snappy/zstd x data page v1/v2 x dictionary on/off, with several row groups and small
   pages; pqdump must return exactly pyarrow's values.
2. Unsupported files (gzip/brotli/lz4 codecs, DELTA encodings, a nested list column) must be
   refused with exit 3 naming the column and what was expected.
3. The shared archive's nvtx_gpu_proj_trace/trace.parquet, read from the zip by profq's zip
   reader: every value, plus row count, per-column sums / string counts / null counts.
4. The shared archive's report_nvtx_pushpop_trace.csv.xz, and a pushpop parquet written from
   it like nsys-jax does (no PID/Lvl/NameTree, RangeId int32, ParentId double with nulls).
5. The zip member list equals zipfile's (names, sizes, methods).
"""
import argparse
import csv
import io
import lzma
import math
import os
import subprocess
import sys
import tempfile
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(pqdump, *args):
    p = subprocess.run([pqdump, *args], capture_output=True)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def parse_dump(text):
    """rows N, then per column 'col NAME TYPE NULLS' and its values."""
    lines = text.split("\n")
    assert lines[0].startswith("rows "), lines[0]
    rows = int(lines[0][5:])
    cols, i = {}, 1
    while i < len(lines) and lines[i]:
        head = lines[i]
        assert head.startswith("col "), head
        name, typ, nulls = head[4:].rsplit(" ", 2)
        cols[name] = (typ, int(nulls), lines[i + 1 : i + 1 + rows])
        i += 1 + rows
    return rows, cols


def same_value(typ, got, want):
    if want is None:
        return got == "-"
    if got == "-":
        return False
    if typ == "BYTE_ARRAY":
        return bytes.fromhex(got) == (want.encode() if isinstance(want, str) else want)
    if typ == "BOOLEAN":
        return int(got) == int(want)
    if typ in ("FLOAT", "DOUBLE"):
        g = float(got)
        if typ == "FLOAT":
            import numpy as np

            g = float(np.float32(g))
        if math.isnan(want):
            return math.isnan(g)
        return g == want
    return int(got) == want


def compare_table(label, table, dump_text):
    rows, cols = parse_dump(dump_text)
    if rows != table.num_rows:
        fail(f"{label}: rows {rows} != pyarrow {table.num_rows}")
        return
    for name in table.column_names:
        if name not in cols:
            fail(f"{label}: column {name} missing in profq's output")
            continue
        typ, nulls, got = cols[name]
        want = table.column(name).to_pylist()
        if nulls != table.column(name).null_count:
            fail(f"{label}: {name}: nulls {nulls} != {table.column(name).null_count}")
        bad = [k for k in range(rows) if not same_value(typ, got[k], want[k])]
        if bad:
            k = bad[0]
            fail(f"{label}: {name}: {len(bad)} values differ, first row {k}: {got[k]!r} vs {want[k]!r}")


def sample_table(n=2500):
    strs = ["", "a", "TSL:Thunk:#hlo_op=fusion.1#", "é ü ✓", "x,y\"z", "long" * 50]
    data = {
        "i32": pa.array([(k * 7919) % 100003 - 50000 for k in range(n)], pa.int32()),
        "i64": pa.array([(k * 2654435761) % (1 << 50) - (1 << 49) for k in range(n)], pa.int64()),
        "f32": pa.array([k / 3.0 for k in range(n)], pa.float32()),
        "f64": pa.array(
            [float("nan") if k % 97 == 0 else (float("inf") if k % 89 == 0 else k * 1.1e-3) for k in range(n)],
            pa.float64(),
        ),
        "b": pa.array([k % 3 == 0 for k in range(n)], pa.bool_()),
        "s": pa.array([strs[k % len(strs)] + str(k % 11) for k in range(n)], pa.string()),
        "lowcard": pa.array([strs[k % 3] for k in range(n)], pa.string()),
        "opt_i64": pa.array([None if k % 5 == 0 else k for k in range(n)], pa.int64()),
        "opt_f64": pa.array([None if k % 7 == 1 else k * 0.5 for k in range(n)], pa.float64()),
        "opt_s": pa.array([None if k % 4 == 2 else strs[k % len(strs)] for k in range(n)], pa.string()),
        "opt_b": pa.array([None if k % 6 == 0 else k % 2 == 0 for k in range(n)], pa.bool_()),
        "opt_i32": pa.array([None if k < n // 2 else k for k in range(n)], pa.int32()),
        "all_null": pa.array([None] * n, pa.int64()),
        "bin": pa.array([bytes([k % 256, 0, 255]) for k in range(n)], pa.binary()),
    }
    fields = []
    for name, arr in data.items():
        fields.append(pa.field(name, arr.type, nullable=name.startswith(("opt_", "all_"))))
    return pa.Table.from_arrays(list(data.values()), schema=pa.schema(fields))


def check_combinations(pqdump, tmp):
    table = sample_table()
    n = 0
    for codec in ("NONE", "SNAPPY", "ZSTD"):
        for page_version in ("1.0", "2.0"):
            for dictionary in (True, False):
                for rg in (None, 700):
                    path = os.path.join(tmp, f"t_{codec}_{page_version}_{dictionary}_{rg}.parquet")
                    pq.write_table(
                        table,
                        path,
                        compression=codec,
                        data_page_version=page_version,
                        use_dictionary=dictionary,
                        row_group_size=rg,
                        data_page_size=4096,
                    )
                    rc, out, err = run(pqdump, path)
                    label = os.path.basename(path)
                    if rc != 0:
                        fail(f"{label}: exit {rc}: {err.strip()}")
                        continue
                    compare_table(label, table, out)
                    n += 1
    # An empty table and a one-row table.
    for k in (0, 1):
        path = os.path.join(tmp, f"t_rows{k}.parquet")
        pq.write_table(table.slice(0, k), path)
        rc, out, err = run(pqdump, path)
        if rc != 0:
            fail(f"rows{k}: exit {rc}: {err.strip()}")
        else:
            compare_table(f"rows{k}", table.slice(0, k), out)
        n += 1
    print(f"combinations: {n} files compared value by value")


def check_refused(pqdump, tmp):
    small = pa.table({"v": pa.array(list(range(100)), pa.int64()), "s": pa.array(["x"] * 100)})
    cases = []
    for codec in ("GZIP", "BROTLI", "LZ4"):
        path = os.path.join(tmp, f"bad_{codec}.parquet")
        pq.write_table(small, path, compression=codec)
        cases.append((path, "codec"))
    path = os.path.join(tmp, "bad_delta.parquet")
    pq.write_table(small, path, use_dictionary=False, column_encoding={"v": "DELTA_BINARY_PACKED"})
    cases.append((path, "encoding"))
    path = os.path.join(tmp, "bad_nested.parquet")
    pq.write_table(pa.table({"l": pa.array([[1, 2], [3]], pa.list_(pa.int64()))}), path)
    cases.append((path, "nested"))
    for path, what in cases:
        rc, out, err = run(pqdump, path)
        label = os.path.basename(path)
        if rc != 3:
            fail(f"{label}: expected exit 3, got {rc} ({err.strip()})")
        elif "column '" not in err or "expected" not in err or what not in err:
            fail(f"{label}: the error does not name the column, '{what}' and what was expected: {err.strip()}")
        elif what != "nested" and "@-1" in err:
            fail(f"{label}: the error has no byte offset: {err.strip()}")
    print(f"refused: {len(cases)} unsupported files checked")


def column_summary(typ, values):
    vals = [v for v in values if v is not None]
    if typ == "BYTE_ARRAY":
        return (len(vals), sum(len(v) for v in vals))
    if typ in ("DOUBLE", "FLOAT"):
        return (len(vals), math.fsum(vals))
    return (len(vals), sum(int(v) for v in vals))


def check_archive(pqdump, archive, tmp):
    member = "nvtx_gpu_proj_trace/trace.parquet"
    with zipfile.ZipFile(archive) as z:
        table = pq.read_table(io.BytesIO(z.read(member)))
        infos = [i for i in z.infolist()]
        csv_xz = z.read("report_nvtx_pushpop_trace.csv.xz")
    rc, out, err = run(pqdump, archive, member)
    if rc != 0:
        fail(f"trace.parquet: exit {rc}: {err.strip()}")
        return
    compare_table("trace.parquet", table, out)
    rows, cols = parse_dump(out)
    for name in table.column_names:
        typ, nulls, got = cols[name]
        mine = [None if g == "-" else (bytes.fromhex(g) if typ == "BYTE_ARRAY" else float(g) if typ == "DOUBLE" else int(g)) for g in got]
        ref = [v.encode() if isinstance(v, str) else v for v in table.column(name).to_pylist()]
        if column_summary(typ, mine) != column_summary(typ, ref) or nulls != table.column(name).null_count:
            fail(f"trace.parquet {name}: summary {column_summary(typ, mine)}/{nulls} != pyarrow's")
    print(f"trace.parquet: {rows} rows, {len(table.column_names)} columns equal pyarrow's "
          f"(nulls: {', '.join(f'{c}={table.column(c).null_count}' for c in table.column_names if table.column(c).null_count)})")
    # The member list.
    rc, out, err = run(pqdump, "--list", archive)
    got = [l.split(" ") for l in out.strip().split("\n")]
    want = [[i.filename, str(i.file_size), str(i.compress_type)] for i in infos]
    if rc != 0 or got != want:
        fail(f"zip list differs from zipfile's ({len(got)} vs {len(want)} members) {err.strip()}")
    else:
        print(f"zip: {len(got)} members equal zipfile's (names, sizes, methods)")
    check_pushpop(pqdump, archive, csv_xz, tmp)


PP_INT = ["Start (ns)", "End (ns)", "Duration (ns)", "DurChild (ns)", "DurNonChild (ns)", "TID", "NumChild", "RangeId"]


def check_pushpop(pqdump, archive, csv_xz, tmp):
    text = lzma.decompress(csv_xz).decode()
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    want = {c: [int(r[c]) for r in rows] for c in PP_INT}
    want["ParentId"] = [int(r["ParentId"]) if r["ParentId"] else None for r in rows]
    want["Name"] = [r["Name"] for r in rows]
    want["RangeStack"] = [r["RangeStack"] for r in rows]

    def compare(label, out):
        lines = out.split("\n")
        n = int(lines[0][5:])
        if n != len(rows):
            fail(f"{label}: rows {n} != {len(rows)}")
            return
        i = 1
        while i < len(lines) and lines[i]:
            name = lines[i][4:]
            got = lines[i + 1 : i + 1 + n]
            w = want[name]
            if name in ("Name", "RangeStack"):
                g = [bytes.fromhex(x).decode() for x in got]
            else:
                g = [None if x == "-" else int(x) for x in got]
            if g != w:
                k = next(k for k in range(n) if g[k] != w[k])
                fail(f"{label}: {name} differs at row {k}: {g[k]!r} vs {w[k]!r}")
            i += 1 + n
        print(f"{label}: {n} rows equal Python's csv")

    rc, out, err = run(pqdump, "--pushpop", archive, "report_nvtx_pushpop_trace.csv.xz")
    if rc != 0:
        fail(f"pushpop csv.xz: exit {rc}: {err.strip()}")
    else:
        compare("pushpop csv.xz", out)
    # The parquet form nsys-jax >= 2024-12 writes (pandas, RangeId as the index, int32).
    cols = {c: pa.array(want[c], pa.int64()) for c in PP_INT if c != "RangeId"}
    cols["Name"] = pa.array(want["Name"])
    cols["RangeStack"] = pa.array(want["RangeStack"])
    cols["ParentId"] = pa.array([None if v is None else float(v) for v in want["ParentId"]], pa.float64())
    cols["RangeId"] = pa.array(want["RangeId"], pa.int32())
    path = os.path.join(tmp, "report_nvtx_pushpop_trace.parquet")
    pq.write_table(pa.table(cols), path)
    rc, out, err = run(pqdump, "--pushpop", path)
    if rc != 0:
        fail(f"pushpop parquet: exit {rc}: {err.strip()}")
    else:
        compare("pushpop parquet", out)
    # A Name column of integers, and a missing TID column: refused, naming the column.
    cols["Name"] = pa.array(range(len(rows)), pa.int64())
    pq.write_table(pa.table(cols), path)
    rc, out, err = run(pqdump, "--pushpop", path)
    if rc != 3 or "column 'Name': expected strings" not in err:
        fail(f"pushpop parquet with integer names: exit {rc}: {err.strip()}")
    del cols["TID"]
    cols["Name"] = pa.array(want["Name"])
    pq.write_table(pa.table(cols), path)
    rc, out, err = run(pqdump, "--pushpop", path)
    if rc != 3 or "'TID' column" not in err:
        fail(f"pushpop parquet without TID: exit {rc}: {err.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pqdump", required=True)
    ap.add_argument("--archive")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        check_combinations(a.pqdump, tmp)
        check_refused(a.pqdump, tmp)
        if a.archive:
            check_archive(a.pqdump, a.archive, tmp)
    if failures:
        print(f"parquet_pyarrow: {len(failures)} failures")
        return 1
    print("parquet_pyarrow: all equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
