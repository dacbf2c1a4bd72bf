"""`profq nsys --section compile` against the archive-era nsys-jax loader (JAX-Toolbox
283578bd, ../shared/peers/nsys-jax/archive-era) run as the oracle, on the shared archive and
on a synthetic one with a parallel compilation region (tests/nsys/archive.sh runs this in
build/venv-nsysloader).

What is run: the archive-era push/pop loader (the compile frame, workers grafted), the
current loader's remove_autotuning_detail for the compile frame (its two remove_child_ranges
calls, written here over the archive-era utils.remove_child_ranges: the archive-era loader
has no such function), the current loader's generate_compilation_statistics (HEAD,
../shared/peers/nsys-jax/head; the archive-era one loses the launchers' recomputed times)
and the notebook's compile summary cell (clean_compilation_range_name, group, sort, the 97%
cut).
Compared: frames.{all,init}.compile_rows (steady 0), rows after remove_autotuning_detail,
the parallel regions, compile.total_s, and per pass of the 97% list its name, non_child_s
and share (within 1e-6 relative), in order.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import types
import zipfile

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from checklib import check, close, finish  # noqa: E402

def oracle(loader_dir, head_dir, prefix):
    display = types.ModuleType("IPython.display")
    display.display = display.IFrame = lambda *a, **k: None
    sys.modules.setdefault("IPython", types.ModuleType("IPython"))
    sys.modules["IPython.display"] = display
    sys.path[:0] = [str(loader_dir), str(head_dir)]
    from jax_nsys import data_loaders, utils  # noqa: E402
    from nsys_jax import analysis as head_analysis  # noqa: E402

    compile_df = data_loaders._load_nvtx_pushpop_trace(prefix, {"compile"})
    rows = len(compile_df)
    # remove_autotuning_detail of the current loader (compile frame only).
    mask = compile_df["Name"].str.startswith("XlaAutotunerMeasurement")
    compile_df.loc[mask, "Name"] = "XlaAutotunerMeasurement"
    compile_df = utils.remove_child_ranges(compile_df, mask)
    compile_df = utils.remove_child_ranges(compile_df,
                                           compile_df["Name"] == "XlaAutotunerCompilation")
    # The current loader's generate_compilation_statistics (the archive-era one writes the
    # parallel launchers' recomputed times into a copy and then reads the NaN originals);
    # it names its columns in ms, the values here stay in ns.
    ms = compile_df.rename(columns={"StartNs": "StartMs", "DurNs": "DurMs",
                                    "DurChildNs": "DurChildMs", "DurNonChildNs": "DurNonChildMs"})
    stats = head_analysis.generate_compilation_statistics(ms).rename(
        columns={"DurNonChildMs": "DurNonChildNs", "DurChildMs": "DurChildNs"})

    def clean(name):
        if name.startswith("XlaAutotunerMeasurement"):
            name = "XlaAutotunerMeasurement"
        return name.removesuffix(":#module=split_module#")

    summary = stats.groupby(clean).agg("sum").sort_values(by=["DurNonChildNs"], ascending=False)
    total = summary["DurNonChildNs"].sum()
    summary["Frac"] = summary["DurNonChildNs"] / total
    top = summary[summary["Frac"].cumsum() <= 0.97]
    return rows, len(compile_df), total, [(n, r.DurNonChildNs, r.Frac) for n, r in top.iterrows()]


def compare(a, archive, label, parallel=0):
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
        rows, rows_removed, total, top = oracle(pathlib.Path(a.loader), pathlib.Path(a.head),
                                                pathlib.Path(tmp))
    p = subprocess.run([a.profq, "nsys", "--section", "compile", "--format", "json", archive],
                       capture_output=True, text=True)
    check(p.returncode == 0,
          f"{label}: profq nsys --section compile exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    fr = doc["frames"]
    for name, want in (("all", rows), ("init", rows), ("steady", 0)):
        check(fr[name].get("compile_rows") == want,
              f"{label}: frames.{name}.compile_rows = {want} (profq {fr[name].get('compile_rows')})")
    c = doc["compile"]
    check(c["rows_autotuning_detail_removed"] == rows_removed,
          f"{label}: compile rows after remove_autotuning_detail = {rows_removed} "
          f"(profq {c['rows_autotuning_detail_removed']})")
    check(c["parallel_regions"] == parallel,
          f"{label}: {parallel} parallel region(s) (profq {c['parallel_regions']})")
    check(close(c["total_s"], total / 1e9),
          f"{label}: compile.total_s = {total / 1e9:.9f} (profq {c['total_s']:.9f})")
    got = c["passes"]
    check(len(got) == len(top), f"{label}: {len(top)} passes cover 97% (profq {len(got)})")
    for k, (name, ns, frac) in enumerate(top):
        g = got[k] if k < len(got) else {"name": None, "non_child_s": float("nan"), "share": float("nan")}
        check(g["name"] == name and close(g["non_child_s"], ns / 1e9) and close(g["share"], frac),
              f"{label}: pass {k}: {name} {ns / 1e9:.9f} s {frac:.9f} "
              f"(profq {g['name']} {g['non_child_s']:.9f} {g['share']:.9f})")
    # The text form prints the same list.
    p = subprocess.run([a.profq, "nsys", "--section", "compile", archive], capture_output=True,
                       text=True)
    check(p.returncode == 0 and f"of {total / 1e9:.2f} s compilation time" in p.stdout
          and all(name in p.stdout for name, _, _ in top),
          f"{label}: text: the total and every pass of the 97% list")


def parallel_archive(path):
    """A compilation with a parallel region: on the main thread XlaCompile > XlaCompileBackend
    > XlaCompileGpuAsm (the launcher: one main-thread child before the workers run), and on
    two worker threads root ranges inside it (one with a child, one split_module name), plus
    a cuBLAS (non-TSL) range folded into its parent and an autotuner measurement with a
    child that remove_autotuning_detail drops. DurChild/NumChild are those of the nesting."""
    import io
    import lzma
    import pyarrow as pa
    import pyarrow.parquet as pq

    # (name, tid, start, end, parent index or None)
    R = [("TSL:XlaCompile:#module=jit_f#", 100, 1000, 9000, None),
         ("TSL:XlaCompileBackend:#module=jit_f,program_id=5#", 100, 1100, 8900, 0),
         ("TSL:XlaPass:#name=algsimp,module=jit_f,program_id=5#", 100, 1200, 1900, 1),
         ("cublasLtMatmul", 100, 1300, 1400, 2),
         ("TSL:XlaAutotunerMeasurement:#hlo_op=custom-call.1#", 100, 2000, 2600, 1),
         ("TSL:XlaModule:#hlo_module=autotune,program_id=77#", 100, 2100, 2500, 4),
         ("TSL:XlaCompileGpuAsm:#module=jit_f,program_id=5#", 100, 3000, 8000, 1),
         ("TSL:XlaEmitLlvmIr:#module=jit_f,program_id=5#", 100, 3100, 3500, 6),
         ("TSL:XlaOptimizeLlvmIr:#module=split_module#", 201, 3600, 6000, None),
         ("TSL:XlaEmitGpuAsm:#module=split_module#", 201, 4000, 5000, 8),
         ("TSL:XlaOptimizeLlvmIr:#module=split_module#", 202, 3700, 7500, None),
         ("TSL:XlaEmitGpuAsm:#module=split_module#", 201, 6100, 7900, None)]
    rid = [7000 + k for k in range(len(R))]
    csv = ["Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
           "NumChild,RangeId,ParentId,RangeStack,NameTree"]
    for k, (name, tid, s, e, par) in enumerate(R):
        kids = [j for j, r in enumerate(R) if r[4] == k]
        child = sum(R[j][3] - R[j][2] for j in kids)
        stack, lvl, q = [], 0, k
        while q is not None:
            stack.insert(0, f":{rid[q]}")
            q = R[q][4]
            lvl += 1
        csv.append(f"{s},{e},{e - s},{child},{e - s - child},\"{name}\",77,{tid},{lvl - 1},"
                   f"{len(kids)},{rid[k]},{'' if par is None else rid[par]},{''.join(stack)},"
                   f"\"{name}\"")
    table = pa.table({
        "Name": pa.array(["TSL:XlaModule:#hlo_module=jit_f,program_id=5#",
                          "TSL:Thunk:#hlo_op=fusion.1#"], pa.string()),
        "Projected Start": pa.array([20000, 20100], pa.int64()),
        "Projected Duration": pa.array([1000, 500], pa.int64()),
        "Orig Start": pa.array([19000.0, 19100.0], pa.float64()),
        "Orig Duration": pa.array([1000.0, 500.0], pa.float64()),
        "Style": pa.array(["PushPop"] * 2, pa.string()),
        "PID": pa.array([77, 77], pa.int64()),
        "TID": pa.array([300, 300], pa.int64()),
        "NumGPUOps": pa.array([1, 1], pa.int64()),
        "Lvl": pa.array([0.0, 1.0], pa.float64()),
        "NumChild": pa.array([1, 0], pa.int64()),
        "RangeId": pa.array([1.0, 2.0], pa.float64()),
        "ParentId": pa.array([None, 1.0], pa.float64()),
        "RangeStack": pa.array([":1", ":1:2"], pa.string()),
        "Rank": pa.array([0, 0], pa.int64()),
    })
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("nvtx_gpu_proj_trace/trace.parquet", buf.getvalue())
        z.writestr("report_nvtx_pushpop_trace.csv.xz",
                   lzma.compress(("\n".join(csv) + "\n").encode()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    ap.add_argument("--loader", required=True, help="the directory holding jax_nsys/")
    ap.add_argument("--head", required=True, help="the directory holding nsys_jax/ (HEAD)")
    a = ap.parse_args()
    compare(a, a.archive, "shared archive")
    with tempfile.TemporaryDirectory() as tmp:
        parallel_archive(f"{tmp}/parallel.zip")
        compare(a, f"{tmp}/parallel.zip", "parallel compilation", parallel=1)


main()
finish("compile_loader")
