"""`profq nsys` against the archive-era nsys-jax loader (JAX-Toolbox 283578bd, in
../shared/peers/nsys-jax/archive-era) run as the oracle on the shared archive
(tests/nsys/archive.sh runs this in build/venv-nsysloader).

The loader reads an extracted archive: the archive is extracted into a temporary directory
here. What is run: its trace.parquet loader (module and thunk frames), its push/pop loader
(compile frame) and apply_warmup_heuristics. Two stand-ins, neither of which touches what is
compared: IPython.display (imported by the package's notebook helpers; only the notebook
uses it) and the communication classification of thunks, which needs protoc-compiled XLA
protos and only adds the Communication/ProjDurHidden columns (the warm-up split of this
loader version and the row counts and module durations do not read them).

Compared, on the shared archive and on a synthetic one built here that exercises the
loader's edge rules (see synthetic()): frames.{all,steady,init}.{module_rows,thunk_rows},
the number of programs compiled in the profile, and per program id in the steady frame:
rows and total ms (within 1e-6 relative), the module name, the share, thunks per execution
(mean and sample std, as the notebook's module table), and the top module ids covering 99%.
"""
import argparse
import io
import json
import pathlib
import subprocess
import sys
import tempfile
import types
import zipfile

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def oracle(loader_dir, prefix):
    display = types.ModuleType("IPython.display")
    display.display = display.IFrame = lambda *a, **k: None
    sys.modules.setdefault("IPython", types.ModuleType("IPython"))
    sys.modules["IPython.display"] = display
    sys.path.insert(0, str(loader_dir))
    from jax_nsys import analysis, data_loaders  # noqa: E402
    from jax_nsys.utils import ProfilerData  # noqa: E402

    def no_protos(thunk_df, prefix):
        thunk_df["Communication"] = False
        thunk_df["ProjDurHiddenNs"] = 0.0
        return thunk_df

    data_loaders._classify_comms = no_protos
    frames = data_loaders._load_nvtx_gpu_proj_trace(prefix, {"module", "thunk"})
    compile_df = data_loaders._load_nvtx_pushpop_trace(prefix, {"compile"})
    all_ = ProfilerData(compile=compile_df, module=frames["module"], thunk=frames["thunk"])
    init, steady = analysis.apply_warmup_heuristics(all_)
    return all_, init, steady


def compare(profq, archive, loader, label):
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
        all_, init, steady = oracle(pathlib.Path(loader), pathlib.Path(tmp))

    p = subprocess.run([profq, "nsys", "--format", "json", archive], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"{label}: profq nsys exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    check(doc.get("schema") == "profq.nsys.v1", f"{label}: schema profq.nsys.v1")
    for fname, fr in (("all", all_), ("steady", steady), ("init", init)):
        for kind in ("module", "thunk"):
            want = len(getattr(fr, kind))
            got = doc["frames"][fname][f"{kind}_rows"]
            check(got == want, f"{label}: frames.{fname}.{kind}_rows = {want} (profq {got})")
    compiled = len(all_.compile["ProgramId"].unique())
    check(doc["compiled_programs"] == compiled,
          f"{label}: {compiled} programs compiled in the profile (profq {doc['compiled_programs']})")

    mod = steady.module
    want = {}
    total = float(mod["ProjDurNs"].sum()) / 1e6
    thunks = {}
    for prog, df in mod.groupby(level="ProgramId"):
        want[str(prog)] = (len(df), float(df["ProjDurNs"].sum()) / 1e6, df["Name"].iloc[0])
        thunks[str(prog)] = (float(df["NumThunks"].mean()), float(df["NumThunks"].std()))
    got = {m["program_id"]: m for m in doc["modules"]}
    check(set(got) == set(want), f"{label}: steady program ids {sorted(want)} (profq {sorted(got)})")
    for prog, (rows, ms, name) in sorted(want.items(), key=lambda kv: -kv[1][1]):
        g = got.get(prog)
        if g is None:
            continue
        check(g["rows"] == rows and close(g["total_ms"], ms) and g["name"] == name
              and close(g["share"], ms / total),
              f"{label}: program {prog} {name}: {rows} rows, {ms:.9f} ms, share {ms / total:.9f} "
              f"(profq {g['rows']}, {g['total_ms']:.9f}, {g['name']}, {g['share']:.9f})")
        mean, std = thunks[prog]
        gstd = g["thunks_std"]
        check(close(g["thunks_mean"], mean)
              and ((gstd is None and std != std) or (gstd is not None and close(gstd, std))),
              f"{label}: program {prog}: thunks {mean}±{std} (profq {g['thunks_mean']}±{gstd})")
    # The notebook's top module ids: by total time, added while the share seen is < 99%.
    top, seen = [], 0.0
    for prog, (rows, ms, name) in sorted(want.items(), key=lambda kv: (-kv[1][1], int(kv[0]))):
        if seen < 0.99:
            top.append(prog)
        seen += ms / total
    check(doc["top_module_ids"] == top, f"{label}: top module ids {top} (profq {doc['top_module_ids']})")


def synthetic(path, reverse=False):
    """An archive exercising the loader's edge rules: a thunk before the first module (dropped),
    nested thunks (only the deepest counts), a module prefix holding commas, a module without
    program_id (-1), a last execution cut short (dropped with its thunks), a range on a thread
    that launched no thunk, two device threads, and compilation of two of the programs."""
    import lzma
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    t = [1000]

    def add(name, tid, parent, lvl, gpu_ops=1, dur=100, stack=""):
        rid = len(rows) + 1
        t[0] += 1000
        rows.append(dict(Name=name, PS=t[0] * 10, PD=dur, OS=float(t[0]), OD=float(dur),
                         TID=tid, Ops=gpu_ops, Lvl=float(lvl), Rid=float(rid),
                         Par=None if parent is None else float(parent),
                         Stack=f"{stack}:{rid}"))
        return rid, f"{stack}:{rid}"

    add("TSL:Thunk:#hlo_op=early#", 201, None, 1)
    f_name = "TSL:XlaModule:#prefix=jit(f)/a,b,hlo_module=jit_f,program_id=5#"
    for ex in range(4):
        for tid in (201, 202):
            cut = ex == 3 and tid == 202
            m, ms = add(f_name, tid, None, 0, gpu_ops=1 if cut else 3, dur=5000 + 100 * ex + tid)
            a, as_ = add("TSL:Thunk:#hlo_op=fusion.1#", tid, m, 1, dur=700 + ex, stack=ms)
            add("TSL:Thunk:#name=inner,hlo_op=fusion.2#", tid, a, 2, dur=300 + tid, stack=as_)
            add("TSL:Thunk:#hlo_op=all-gather-start.3#", tid, m, 1, dur=900 + 7 * ex, stack=ms)
            if ex == 2 and tid == 201:  # thunks per execution vary: a non-zero std
                add("TSL:Thunk:#hlo_op=extra.9#", tid, m, 1, dur=50, stack=ms)
    for ex in range(3):
        m, ms = add("TSL:XlaModule:#prefix=jit(h)/x,y,hlo_module=jit_h,program_id=7#", 100, None,
                    0, dur=2000 + 13 * ex)
        add("TSL:Thunk:#hlo_op=copy.1#", 100, m, 1, dur=400 + ex, stack=ms)
    m, ms = add("TSL:XlaModule:#hlo_module=jit_g#", 100, None, 0, dur=1234)
    add("TSL:Thunk:#hlo_op=add.7#", 100, m, 1, dur=321, stack=ms)
    add("TSL:XlaAutotunerMeasurement:#hlo_op=gemm#", 300, None, 0)
    n = len(rows)
    col = lambda k: [r[k] for r in rows]  # noqa: E731
    table = pa.table({
        "Name": pa.array(col("Name"), pa.string()),
        "Projected Start": pa.array(col("PS"), pa.int64()),
        "Projected Duration": pa.array(col("PD"), pa.int64()),
        "Orig Start": pa.array(col("OS"), pa.float64()),
        "Orig Duration": pa.array(col("OD"), pa.float64()),
        "Style": pa.array(["PushPop"] * n, pa.string()),
        "PID": pa.array([77] * n, pa.int64()),
        "TID": pa.array(col("TID"), pa.int64()),
        "NumGPUOps": pa.array(col("Ops"), pa.int64()),
        "Lvl": pa.array(col("Lvl"), pa.float64()),
        "NumChild": pa.array([0] * n, pa.int64()),
        "RangeId": pa.array(col("Rid"), pa.float64()),
        "ParentId": pa.array(col("Par"), pa.float64()),
        "RangeStack": pa.array(col("Stack"), pa.string()),
        "Rank": pa.array([0] * n, pa.int64()),
    })
    if reverse:  # the same rows, last first: the order must not matter
        table = table.take(pa.array(list(range(n - 1, -1, -1))))
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    csv = ["Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
           "NumChild,RangeId,ParentId,RangeStack,NameTree"]
    rid = 5000
    for mod, prog in (("jit_f", 5), ("jit_h", 7)):
        s0 = rid * 10
        csv.append(f"{s0},{s0 + 900},900,500,400,\"TSL:XlaCompile:#module={mod}#\",77,100,0,1,"
                   f"{rid},,:{rid},\"TSL:XlaCompile:#module={mod}#\"")
        csv.append(f"{s0 + 100},{s0 + 600},500,0,500,"
                   f"\"TSL:XlaCompileBackend:#module={mod},program_id={prog}#\",77,100,1,0,"
                   f"{rid + 1},{rid},:{rid}:{rid + 1},\" TSL:XlaCompileBackend\"")
        rid += 2
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("nvtx_gpu_proj_trace/trace.parquet", buf.getvalue())
        z.writestr("report_nvtx_pushpop_trace.csv.xz", lzma.compress(("\n".join(csv) + "\n").encode()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    ap.add_argument("--loader", required=True, help="the directory holding jax_nsys/")
    a = ap.parse_args()
    compare(a.profq, a.archive, a.loader, "shared archive")
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/synthetic.zip"
        synthetic(path)
        compare(a.profq, path, a.loader, "synthetic archive")
        synthetic(path, reverse=True)
        compare(a.profq, path, a.loader, "synthetic archive, rows reversed")

main()
if failures:
    print(f"archive_loader: {len(failures)} check(s) failed")
    sys.exit(1)
print("archive_loader: all checks passed")
