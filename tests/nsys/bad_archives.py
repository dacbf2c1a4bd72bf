"""Bad nsys-jax inputs given to the profq CLI (tests/nsys/archive.sh runs this in
build/venv-nsysloader): each must exit 3 with a message naming the file (and the member or
byte offset) and what was expected. Built here from a newer archive made of the shared
archive's rows (tests/nsys/newer_archive.py):
- zips with a `../` member, an absolute member path, a symlink member, and a truncated zip;
- trace.parquet with a corrupt footer, an unknown codec (BROTLI), and a data page whose
  compressed size runs past its column chunk;
- trace.parquet in a schema profq does not know: a newer column set with an extra column, one
  without TID, one with Start as strings;
- thread-metadata.parquet without a TID column, and one that names no XlaLauncher thread while
  a multi-device module runs on several threads.
The unit tests (tests/unit/test_zip.c, test_parquet.c) check the same refusals on the
library API with byte offsets; this checks them end to end, on real archive-sized members.
"""
import argparse
import io
import pathlib
import subprocess
import sys
import tempfile
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import newer_archive  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def expect3(profq, path, label, *needles):
    p = subprocess.run([profq, "info", str(path)], capture_output=True, text=True)
    msg = p.stderr.strip()
    ok = p.returncode == 3 and str(path) in msg and all(n in msg for n in needles)
    check(ok, f"{label}: exit 3 naming {needles} ({p.returncode}: {msg[:300]})")


def zip_with(path, members, extra=()):
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)
        for info, data in extra:
            z.writestr(info, data)


def varint(buf, i):
    v = shift = 0
    start = i
    while True:
        b = buf[i]
        v |= (b & 0x7F) << shift
        i += 1
        if not b & 0x80:
            return v, start, i
        shift += 7


def overrun_page(data):
    """DATA (a parquet file) with its first column's first page header claiming the most
    compressed bytes its varint's width allows (past the chunk's end)."""
    md = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    off = md.dictionary_page_offset or md.data_page_offset
    buf = bytearray(data)
    i = off
    for field in range(3):  # type, uncompressed_page_size, compressed_page_size (i32s)
        assert buf[i] == 0x15, hex(buf[i])
        v, s, i = varint(buf, i + 1)
    width = i - s
    assert (1 << (7 * width)) - 2 > 2 * md.total_compressed_size
    new = (1 << (7 * width)) - 2  # zigzag of the largest positive value of that width
    for k in range(width):
        buf[s + k] = ((new >> (7 * k)) & 0x7F) | (0x80 if k < width - 1 else 0)
    return bytes(buf)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    a = ap.parse_args()
    members = newer_archive.newer_members(a.archive)
    trace_name = "nvtx_gpu_proj_trace/trace.parquet"
    trace = pq.read_table(io.BytesIO(members[trace_name]))
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        z = t / "dotdot.zip"
        zip_with(z, members, [("../evil.txt", b"x")])
        expect3(a.profq, z, "a ../ member", "../evil.txt", "..")
        z = t / "absolute.zip"
        zip_with(z, members, [("/etc/evil", b"x")])
        expect3(a.profq, z, "an absolute member", "/etc/evil", "relative path")
        info = zipfile.ZipInfo("link")
        info.create_system = 3
        info.external_attr = 0o120777 << 16
        z = t / "symlink.zip"
        zip_with(z, members, [(info, b"/etc/passwd")])
        expect3(a.profq, z, "a symlink member", "link", "symbolic link")
        good = t / "good.zip"
        zip_with(good, members)
        data = good.read_bytes()
        z = t / "truncated.zip"
        z.write_bytes(data[: len(data) - 1000])
        expect3(a.profq, z, "a truncated zip", "expected")

        def with_trace(name, tdata):
            m = dict(members)
            m[trace_name] = tdata
            path = t / name
            zip_with(path, m)
            return path

        td = members[trace_name]
        bad = bytearray(td)
        bad[-8:-4] = (len(td) * 2).to_bytes(4, "little")
        expect3(a.profq, with_trace("footer.zip", bytes(bad)), "a corrupt parquet footer",
                trace_name, "footer length")
        buf = io.BytesIO()
        pq.write_table(trace, buf, compression="brotli")
        expect3(a.profq, with_trace("codec.zip", buf.getvalue()), "an unknown codec",
                trace_name, "codec", "expected codec UNCOMPRESSED, SNAPPY or ZSTD")
        buf = io.BytesIO()
        pq.write_table(trace, buf, compression="none", use_dictionary=False)
        expect3(a.profq, with_trace("overrun.zip", overrun_page(buf.getvalue())),
                "a page overrunning its chunk", trace_name, "column 'Text'",
                "ends inside its column chunk")

        def table_zip(name, table):
            b = io.BytesIO()
            pq.write_table(table, b)
            return with_trace(name, b.getvalue())

        expect3(a.profq, table_zip("extra.zip", trace.append_column("Foo", trace["TID"])),
                "a newer column set with an extra column", trace_name, '"Foo"', "expected")
        expect3(a.profq, table_zip("notid.zip", trace.drop_columns(["TID"])),
                "a newer column set without TID", trace_name, '"TID"', "expected")
        i = trace.column_names.index("Start")
        as_text = trace.set_column(i, "Start", pa.array([str(x) for x in trace["Start"].to_pylist()]))
        expect3(a.profq, table_zip("starttext.zip", as_text), "Start as strings", trace_name,
                '"Start"', "INT32, INT64 or DOUBLE")

        meta = pq.read_table(io.BytesIO(members["thread-metadata.parquet"]))
        b = io.BytesIO()
        pq.write_table(meta.drop_columns(["TID"]), b)
        m = dict(members)
        m["thread-metadata.parquet"] = b.getvalue()
        z = t / "meta-notid.zip"
        zip_with(z, m)
        expect3(a.profq, z, "thread-metadata without TID", "thread-metadata.parquet", '"TID"')
        names = ["python3"] * len(meta)
        b = io.BytesIO()
        pq.write_table(meta.set_column(0, "Name", pa.array(names)), b)
        m["thread-metadata.parquet"] = b.getvalue()
        z = t / "meta-unnamed.zip"
        zip_with(z, m)
        expect3(a.profq, z, "no XlaLauncher thread for a multi-device module", trace_name,
                "XlaLauncher:#global=G", "thread")


main()
if failures:
    print(f"bad_archives: {len(failures)} check(s) failed")
    sys.exit(1)
print("bad_archives: all checks passed")
