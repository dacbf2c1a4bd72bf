"""Writes the seed corpora of the nsys fuzz targets (fuzz/corpus/{parquet,zip,pushpop}):
small files generated here with pyarrow, zipfile and lzma, never copied from shared data.

    build/venv-nsys/bin/python tests/nsys/gen_corpus.py [fuzz/corpus]

Deterministic: the same pyarrow version writes the same bytes (crasher files that the
fuzzers found are kept beside these, under crash-* names, and are not touched).
"""
import io
import lzma
import os
import sys
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq

out = sys.argv[1] if len(sys.argv) > 1 else "fuzz/corpus"


def parquet_bytes(table, **kw):
    b = io.BytesIO()
    pq.write_table(table, b, **kw)
    return b.getvalue()


def small_table(n=12):
    return pa.table(
        {
            "i32": pa.array(list(range(n)), pa.int32()),
            "i64": pa.array([k * 1000003 for k in range(n)], pa.int64()),
            "f": pa.array([k / 4 for k in range(n)], pa.float32()),
            "d": pa.array([None if k % 3 == 0 else k * 0.5 for k in range(n)], pa.float64()),
            "b": pa.array([k % 2 == 0 for k in range(n)]),
            "s": pa.array([None if k % 4 == 1 else "TSL:Thunk:#%d#" % (k % 3) for k in range(n)]),
        }
    )


PUSHPOP_CSV = (
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
    "NumChild,RangeId,ParentId,RangeStack,NameTree\n"
    "100,900,800,300,500,TSL:XlaCompile:#module=jit_f#,7,7,0,1,1,,:1,TSL:XlaCompile:#module=jit_f#\n"
    '200,500,300,0,300,"TSL:XlaCompileBackend:#module=jit_f,program_id=3#",7,7,1,0,2,1,:1:2,'
    '"--TSL:XlaCompileBackend:#module=jit_f,program_id=3#"\n'
    '600,700,100,0,100,"a ""quoted"" name",7,9,0,0,3,,:3,x\r\n'
)


def pushpop_parquet():
    return parquet_bytes(
        pa.table(
            {
                "Start (ns)": pa.array([100, 200], pa.int64()),
                "End (ns)": pa.array([900, 500], pa.int64()),
                "Duration (ns)": pa.array([800, 300], pa.int64()),
                "DurChild (ns)": pa.array([300, 0], pa.int64()),
                "DurNonChild (ns)": pa.array([500, 300], pa.int64()),
                "Name": ["TSL:XlaCompile:#module=jit_f#", "TSL:XlaPass:#name=x#"],
                "TID": pa.array([7, 7], pa.int64()),
                "NumChild": pa.array([1, 0], pa.int64()),
                "ParentId": pa.array([None, 1.0], pa.float64()),
                "RangeStack": [":1", ":1:2"],
                "RangeId": pa.array([1, 2], pa.int32()),
            }
        )
    )


def zip_bytes(entries):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        for info, data in entries:
            z.writestr(info, data)
    return b.getvalue()


def info(name, method=zipfile.ZIP_STORED, mode=None):
    i = zipfile.ZipInfo(name, date_time=(2024, 6, 5, 0, 0, 0))
    i.compress_type = method
    if mode is not None:
        i.create_system = 3
        i.external_attr = mode << 16
    return i


def main():
    files = {}
    t = small_table()
    for codec in ("NONE", "SNAPPY", "ZSTD"):
        for v in ("1.0", "2.0"):
            for d in (True, False):
                files[f"parquet/{codec.lower()}_v{v[0]}_{'dict' if d else 'plain'}.parquet"] = parquet_bytes(
                    t, compression=codec, data_page_version=v, use_dictionary=d
                )
    files["parquet/rowgroups.parquet"] = parquet_bytes(t, row_group_size=5, data_page_size=64)
    files["parquet/empty.parquet"] = parquet_bytes(t.slice(0, 0))
    files["pushpop/report.csv"] = PUSHPOP_CSV.encode()
    files["pushpop/report.csv.xz"] = lzma.compress(PUSHPOP_CSV.encode(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64)
    files["pushpop/report.parquet"] = pushpop_parquet()
    files["pushpop/int_names.parquet"] = parquet_bytes(
        pa.table({c: pa.array([1, 2], pa.int64()) for c in PUSHPOP_CSV.split("\n")[0].split(",")})
    )
    pp = files["parquet/snappy_v1_dict.parquet"]
    files["zip/archive.zip"] = zip_bytes(
        [
            (info("dump/"), b""),
            (info("dump/module_0001.jit_f.autotune_results.pbtxt.xz"), lzma.compress(b"version: 3\n")),
            (info("nvtx_gpu_proj_trace/trace.parquet", zipfile.ZIP_DEFLATED), pp),
            (info("report_nvtx_pushpop_trace.csv.xz", zipfile.ZIP_DEFLATED), files["pushpop/report.csv.xz"]),
            (info("sources/a.py", zipfile.ZIP_DEFLATED), b"print('x')\n" * 20),
        ]
    )
    files["zip/stored.zip"] = zip_bytes([(info("thread-metadata.parquet"), pp)])
    files["zip/dotdot.zip"] = zip_bytes([(info("../evil.txt"), b"x")])
    files["zip/absolute.zip"] = zip_bytes([(info("/tmp/evil.txt"), b"x")])
    files["zip/symlink.zip"] = zip_bytes([(info("link", mode=0o120777), b"/etc/passwd")])
    files["zip/empty.zip"] = zip_bytes([])
    for rel, data in files.items():
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    print(f"gen_corpus: {len(files)} seeds under {out}")


if __name__ == "__main__":
    main()
