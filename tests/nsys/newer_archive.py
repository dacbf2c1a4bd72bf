"""Builds nsys-jax archives in the newer layout (mid-2024 on) from the rows of the shared
archive-era archive, with pyarrow; tests/nsys/newer_loader.py reads them with profq and with
the current (HEAD) nsys-jax loader. Also a command: newer_archive.py SHARED.zip OUT.zip.

The transformation (what changes, what is kept):
- nvtx_gpu_proj_trace/trace.parquet: the newer column set `Text, Start, End, Children Count,
  Range ID, Parent ID, PID, Range Stack (list), Stack Level, TID, Rank`, plus `Domain` for the
  2026.1.1 set (domain=True): Text = Name without its "TSL:" or "NCCL:" domain prefix (every
  name of the shared archive has one of the two), Domain = that domain; Start = Projected Start, End = Projected Start + Projected
  Duration (ns); Range ID / Parent ID as int64 (Parent ID null for roots); Range Stack as a
  list of int64 parsed from ":A:B"; Stack Level = Lvl; the row without a RangeId is dropped
  (the newer recipe writes none). Orig Start/Duration, Style and NumGPUOps do not exist in this
  set, so the loader's "edge effect" test uses the projected start and no module is dropped as
  cut short.
- thread-metadata.parquet (Name, Priority, PID, TID): the threads that launched
  jit_train_step's thunks are `XlaLauncher:#global=G,local=L,process=P,slice=0#` (local L in
  TID order, G = P*4 + L), written in the order given by `launcher_order` so that the first
  launcher row (the loader's "zeroth device" for the main thread's single-device modules) need
  not be global 0; the main thread is named "python3".
- device-metadata.parquet (one row per GPU, columns like "('TARGET_INFO_GPU', 'name')" and
  cuDevice) and system-metadata.parquet (name, nameEnum, value).
- report_nvtx_pushpop_trace.parquet replaces the csv.xz (pushpop="parquet"): the csv read as
  nsys-jax does (PID, Lvl, NameTree dropped, RangeId the index written as an int32 column);
  pushpop="csv.xz" keeps the csv.xz.
- process: PID and TIDs may be offset (a second process of the same job), and durations scaled
  (End = Start + dur * scale) so that the processes differ.
- every parquet member is STORED (zip method 0); dump/, protos/ and sources/ are left out: the
  HEAD loader needs protoc-compiled protos to read the HloProtos, so the test stubs its program
  id remapping and communication classification, and an archive without HloProtos makes profq
  see no communication either (the warm-up split then depends on compilation only, for both).
"""
import io
import lzma
import sys
import zipfile

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq


def _parquet(table, compression="snappy"):
    buf = io.BytesIO()
    pq.write_table(table, buf, compression=compression)
    return buf.getvalue()


def _pandas_parquet(df, index):
    """As nsys-jax writes its metadata (pandas to_parquet; INDEX columns as the index)."""
    buf = io.BytesIO()
    (df.set_index(index) if index is not None else df).to_parquet(buf)
    return buf.getvalue()


def newer_members(shared_zip, *, process=0, pid_offset=0, scale=1.0, domain=True,
                  launcher_order=(2, 0, 1, 3), devices_per_process=4, pushpop="parquet"):
    """The members {name: bytes} of a newer archive made from SHARED_ZIP's rows."""
    with zipfile.ZipFile(shared_zip) as z:
        trace = pq.read_table(io.BytesIO(z.read("nvtx_gpu_proj_trace/trace.parquet")))
        csv = lzma.decompress(z.read("report_nvtx_pushpop_trace.csv.xz"))
    t = trace.to_pydict()
    keep = [i for i, r in enumerate(t["RangeId"]) if r is not None]
    col = {k: [t[k][i] for i in keep] for k in t}
    text, dom = [], []
    for name in col["Name"]:
        d, _, rest = name.partition(":")
        assert d in ("TSL", "NCCL") and rest, name
        text.append(rest)
        dom.append(d)
    start = col["Projected Start"]
    end = [s + int(round(d * scale)) for s, d in zip(start, col["Projected Duration"])]
    pid = [p + pid_offset for p in col["PID"]]
    tid = [x + pid_offset for x in col["TID"]]
    stack = [[int(x) for x in s.split(":")[1:]] for s in col["RangeStack"]]
    cols = {
        "Text": pa.array(text, pa.string()),
        "Start": pa.array(start, pa.int64()),
        "End": pa.array(end, pa.int64()),
        "Children Count": pa.array(col["NumChild"], pa.int64()),
        "Range ID": pa.array([int(r) for r in col["RangeId"]], pa.int64()),
        "Parent ID": pa.array([None if p is None else int(p) for p in col["ParentId"]],
                              pa.int64()),
        "PID": pa.array(pid, pa.int64()),
        "Range Stack": pa.array(stack, pa.list_(pa.int64())),
        "Stack Level": pa.array([int(x) for x in col["Lvl"]], pa.int64()),
        "TID": pa.array(tid, pa.int64()),
    }
    if domain:
        cols["Domain"] = pa.array(dom, pa.string())
    cols["Rank"] = pa.array([process] * len(text), pa.int64())
    members = {"nvtx_gpu_proj_trace/trace.parquet": _parquet(pa.table(cols))}

    # The device threads: those that launched thunks of a module run by several threads.
    by_module = {}
    for name, th in zip(text, col["TID"]):
        if name.startswith("XlaModule:"):
            by_module.setdefault(name, set()).add(th)
    launchers = sorted(set().union(*(s for s in by_module.values() if len(s) > 1)))
    assert len(launchers) == devices_per_process, launchers
    main = sorted(set(col["TID"]) - set(launchers))
    names, prio, mpid, mtid = [], [], [], []
    for local in launcher_order:
        g = process * devices_per_process + local
        names.append(f"XlaLauncher:#global={g},local={local},process={process},slice=0#")
        prio.append(0)
        mpid.append(col["PID"][0] + pid_offset)
        mtid.append(launchers[local] + pid_offset)
    for th in main:
        names.append("python3")
        prio.append(0)
        mpid.append(col["PID"][0] + pid_offset)
        mtid.append(th + pid_offset)
    members["thread-metadata.parquet"] = _pandas_parquet(
        pd.DataFrame({"Name": names, "Priority": prio, "PID": mpid, "TID": mtid}),
        ["PID", "TID"])
    n = devices_per_process
    members["device-metadata.parquet"] = _pandas_parquet(pd.DataFrame({
        "('TARGET_INFO_GPU', 'name')": ["NVIDIA H100 80GB HBM3"] * n,
        "('TARGET_INFO_GPU', 'totalMemory')": [85520809984] * n,
        "('TARGET_INFO_GPU', 'smCount')": [132] * n,
        "cuDevice": list(range(n))}), "cuDevice")
    members["system-metadata.parquet"] = _pandas_parquet(pd.DataFrame({
        "name": ["Hostname", "OS"], "nameEnum": [1, 2], "value": [f"node{process}", "Linux"]}),
        "nameEnum")

    if pushpop != "parquet":  # the csv.xz form, its TIDs moved with the process
        if pid_offset:
            pp = pacsv.read_csv(io.BytesIO(csv))
            for k in ("PID", "TID"):
                i = pp.column_names.index(k)
                pp = pp.set_column(i, k, pa.array([x + pid_offset for x in pp[k].to_pylist()]))
            out = io.BytesIO()
            pacsv.write_csv(pp, out)
            csv = out.getvalue()
        members["report_nvtx_pushpop_trace.csv.xz"] = lzma.compress(csv)
        return members
    # As nsys-jax writes it: PID, Lvl and NameTree dropped, RangeId the (int32) index.
    df = pd.read_csv(io.BytesIO(csv), dtype={"RangeId": np.int32}, index_col="RangeId",
                     usecols=lambda c: c not in {"PID", "Lvl", "NameTree"})
    df["TID"] += pid_offset
    members["report_nvtx_pushpop_trace.parquet"] = _pandas_parquet(df, None)
    return members


def write_zip(path, members):
    """Every member STORED (method 0), as newer nsys-jax does for its parquet files."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name, data)


def write_dir(path, members):
    """An extracted archive: the members as files under PATH."""
    import os
    for name, data in members.items():
        full = os.path.join(path, name)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write_zip(sys.argv[2], newer_members(sys.argv[1]))
