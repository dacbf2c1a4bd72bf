"""`profq nsys` against the archive-era nsys-jax loader (JAX-Toolbox 283578bd, in
../shared/peers/nsys-jax/archive-era) run as the oracle on the shared archive
(tests/nsys/archive.sh runs this in build/venv-nsysloader).

The loader reads an extracted archive: the archive is extracted into a temporary directory
here. IPython.display (imported by the package's notebook helpers; only the notebook uses it)
is stood in for.

1. Module tables (compare): its trace.parquet loader (module and thunk frames), its push/pop
   loader (compile frame) and apply_warmup_heuristics, with the communication classification
   stubbed (it changes no row or module duration), on the shared archive and on a synthetic
   one built here that exercises the loader's edge rules (see synthetic()):
   frames.{all,steady,init}.{module_rows,thunk_rows}, the number of programs compiled in the
   profile, and per program id in the steady frame: rows and total ms (within 1e-6
   relative), the module name, the share, thunks per execution (mean and sample std, as the
   notebook's module table), and the top module ids covering 99%.
2. Communication (compare_communication): the notebook's first cells unchanged on the shared
   archive, with the archive's protos/ compiled by grpcio-tools' protoc:
   load_profiler_data (Communication, ProjDurHidden, message sizes, bandwidths),
   align_profiler_data_timestamps, apply_warmup_heuristics; then the notebook's cells
   recomputed from its frames: communication and thunk rows per frame, per-device alignment
   corrections, the three runtime definitions and idle times, hidden/exposed communication,
   per-thunk totals, runtime by opcode, per-instance bus bandwidth and straggler wait (0.1%),
   per-kind aggregates, variability groups and top 10, module wait shares and the per-device
   bias scores of the top modules (1e-6 relative).
"""
import argparse
import io
import json
import os
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


def compile_archive_protos(prefix, out):
    """The archive's protos/ compiled to Python as the loader's compile_protos does, with
    grpcio-tools' protoc (the loader looks for a protoc binary; the venv has the module)."""
    import importlib.resources
    from grpc_tools import protoc

    files = sorted(str(p.relative_to(prefix / "protos")) for p in (prefix / "protos").rglob("*.proto"))
    include = str(importlib.resources.files("grpc_tools") / "_proto")
    rc = protoc.main(["protoc", f"-I{prefix / 'protos'}", f"-I{include}", f"--python_out={out}"] + files)
    if rc != 0:
        raise RuntimeError(f"protoc exited {rc}")


def full_oracle(loader_dir, prefix, protos_out):
    """The notebook's first cells unchanged: load_profiler_data (with the HLO protos, so the
    Communication flag, ProjDurHidden, message sizes and bandwidths are the loader's own),
    align_profiler_data_timestamps, apply_warmup_heuristics. The loader reads dump/ relative to
    the working directory, as the notebook does."""
    oracle(loader_dir, prefix)  # installs the IPython stand-in and the import path
    compile_archive_protos(prefix, protos_out)
    sys.path.insert(0, str(protos_out))
    import importlib
    from jax_nsys import analysis, data_loaders  # noqa: E402

    importlib.reload(data_loaders)  # undo the classification stub of oracle()
    cwd = os.getcwd()
    os.chdir(prefix)
    try:
        all_ = data_loaders.load_profiler_data(prefix)
        all_, meta = analysis.align_profiler_data_timestamps(all_)
        init, steady = analysis.apply_warmup_heuristics(all_)
    finally:
        os.chdir(cwd)
    return all_, meta, init, steady


def notebook_runtime(steady, top):
    """Cell 16: per-thunk totals and the three runtime definitions over the top modules."""
    top_thunks = steady.thunk.loc[top]
    top_mods = steady.module.loc[top]
    top_mods["ProjEndNs"] = top_mods["ProjStartNs"] + top_mods["ProjDurNs"]
    totals = top_thunks.groupby(["ProgramId", "Name"]).agg({"ProjDurNs": "sum"})["ProjDurNs"]
    d1 = float(totals.sum())
    d2 = float(top_mods["ProjDurNs"].sum())
    per_dev = top_mods.groupby("Device").agg({"ProjStartNs": "min", "ProjEndNs": "max"})
    d3 = float((per_dev["ProjEndNs"] - per_dev["ProjStartNs"]).sum())
    return totals, d1, d2, d3


def notebook_instances(steady):
    """Cell 20: per collective instance, max busbw over devices and the straggler wait."""
    comm = steady.communication.copy()
    comm["ProjDurFullNs"] = comm["ProjDurNs"] + comm["ProjDurHiddenNs"]
    comm["ProjEndNs"] = comm["ProjStartNs"] + comm["ProjDurFullNs"]
    out = {}
    for kind, df in comm.groupby("Collective"):
        bw = df.groupby(["ProgramId", "ProgramExecution", "ThunkIndex"]).agg(
            {"BusBandwidthGBPerSec": "max", "MessageSize": "min", "ProjStartNs": "min",
             "ProjDurFullNs": "min", "ProjEndNs": "max"})
        wait = bw["ProjEndNs"] - bw["ProjStartNs"] - bw["ProjDurFullNs"]
        for idx, row in bw.iterrows():
            out[(kind, str(idx[0]), int(idx[1]), int(idx[2]))] = (
                float(row["BusBandwidthGBPerSec"]), float(wait[idx]) * 1e-6, int(row["MessageSize"]))
    return out


def notebook_variability(steady):
    """Cell 21: compute thunks by (ProgramId, Name): mean, std, std/mean > 0.10."""
    th = steady.thunk
    d = th.loc[~th["Communication"], ("Name", "ProjDurNs")].groupby(["ProgramId", "Name"])
    st = d["ProjDurNs"].agg(("mean", "std"))
    rel = st["std"] / st["mean"]
    over = st[rel > 0.10].sort_values("mean", ascending=False)
    return len(st), over


def notebook_bias(steady, program_id):
    """Cell 22: per device, sum over points of the max |bias| over executions."""
    import numpy as np
    th = steady.thunk
    time_df = th.loc[~th["Communication"], ("ProjStartNs", "ProjDurNs")]
    time_df["ProjEndNs"] = time_df["ProjStartNs"] + time_df.pop("ProjDurNs")

    def interleave(df):
        s, e = df["ProjStartNs"], df["ProjEndNs"]
        r = np.empty((s.size + e.size,), dtype=s.dtype)
        r[0::2] = s
        r[1::2] = e
        return r

    y = {}
    for _, exec_df in time_df.loc[program_id].groupby("ProgramExecution"):
        mean_times = interleave(exec_df.groupby("ThunkIndex").agg("mean"))
        for device, dv in exec_df.groupby("Device"):
            y.setdefault(device, []).append(interleave(dv) - mean_times)
    devices = sorted(y)
    vals = np.array([y[d] for d in devices])
    scores = np.sum(np.max(np.abs(vals), axis=1), axis=1)
    return {int(d): float(s) for d, s in zip(devices, scores)}, float(np.std(vals))


def compare_head_warmup(profq, archive, loader, all_):
    """--warmup head against the current loader's apply_warmup_heuristics (../shared/peers/
    nsys-jax/head) applied to the archive-era loader's aligned frames (the current loader
    cannot read this archive: it lacks thread-metadata.parquet)."""
    import importlib
    import types
    head = pathlib.Path(loader).resolve().parents[2] / "head" / "nsys_jax"  # next to archive-era/
    pkg = types.ModuleType("nsys_jax")
    pkg.__path__ = [str(head)]
    sys.modules["nsys_jax"] = pkg
    analysis = importlib.import_module("nsys_jax.analysis")
    init, steady = analysis.apply_warmup_heuristics(all_)
    p = subprocess.run([profq, "nsys", "--warmup", "head", "--format", "json", archive],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"head warm-up: profq exits 0 ({p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    check(doc["warmup"]["rule"] == "head" and doc["warmup"]["has_communication"],
          "head warm-up: rule head, profile has communication")
    for fname, fr in (("steady", steady), ("init", init)):
        for kind in ("module", "thunk", "communication"):
            want, got = len(getattr(fr, kind)), doc["frames"][fname][f"{kind}_rows"]
            check(got == want, f"head warm-up: frames.{fname}.{kind}_rows = {want} (profq {got})")
    got = {m["program_id"]: m for m in doc["modules"]}
    for prog, df in steady.module.groupby(level="ProgramId"):
        g = got.get(str(prog), {})
        ms = float(df["ProjDurNs"].sum()) / 1e6
        check(g.get("rows") == len(df) and close(g.get("total_ms", -1), ms),
              f"head warm-up: program {prog}: {len(df)} steady rows, {ms:.6f} ms (profq {g.get('rows')}, {g.get('total_ms')})")


def compare_communication(profq, archive, loader):
    """The communication side on the shared archive against the full loader pipeline."""
    label = "communication"
    with tempfile.TemporaryDirectory() as tmp:
        prefix = pathlib.Path(tmp) / "archive"
        with zipfile.ZipFile(archive) as z:
            z.extractall(prefix)
        protos_out = pathlib.Path(tmp) / "compiled_protos"
        protos_out.mkdir()
        all_, meta, init, steady = full_oracle(pathlib.Path(loader), prefix, protos_out)
        compare_head_warmup(profq, archive, loader, all_)
        p = subprocess.run([profq, "nsys", "--format", "json", archive], capture_output=True,
                           text=True)
        check(p.returncode == 0, f"{label}: profq nsys exits 0 ({p.stderr.strip()})")
        if p.returncode != 0:
            return
        doc = json.loads(p.stdout)
        for fname, fr in (("all", all_), ("steady", steady), ("init", init)):
            want, got = len(fr.communication), doc["frames"][fname]["communication_rows"]
            check(got == want, f"{label}: frames.{fname}.communication_rows = {want} (profq {got})")
            want, got = len(fr.thunk), doc["frames"][fname]["thunk_rows"]
            check(got == want, f"{label}: frames.{fname}.thunk_rows = {want} (profq {got})")
        corr = meta["device_corrections"]
        got = doc["alignment"]["corrections_ns"]
        check(len(got) == len(corr) and all(close(got[int(d)], float(v)) for d, v in corr.items()),
              f"{label}: alignment corrections {[float(v) for v in corr]} (profq {got})")
        top = [int(x) for x in doc["top_module_ids"]]
        totals, d1, d2, d3 = notebook_runtime(steady, top)
        rt = doc["runtime"]
        for key, want in (("thunks_ms", d1), ("modules_ms", d2), ("wall_ms", d3),
                          ("idle_in_modules_ms", d2 - d1), ("idle_between_modules_ms", d3 - d2)):
            check(close(rt[key], want / 1e6), f"{label}: runtime.{key} = {want / 1e6:.6f} (profq {rt[key]})")
        sc = steady.communication
        for key, want in (("comm_hidden_ms", sc["ProjDurHiddenNs"].sum()),
                          ("comm_exposed_ms", sc["ProjDurNs"].sum())):
            check(close(rt[key], float(want) / 1e6), f"{label}: runtime.{key} = {float(want) / 1e6:.6f} (profq {rt[key]})")
        gt = {(t["program_id"], t["name"]): t["total_ms"] for t in doc["thunks"]}
        bad = [k for k, v in totals.items() if not close(gt.get((str(k[0]), k[1]), -1.0), float(v) / 1e6)]
        check(len(gt) == len(totals) and not bad,
              f"{label}: per-thunk totals of {len(totals)} thunks (profq {len(gt)}; differ: {bad[:5]})")
        from jax_nsys.protobuf import xla_module_metadata  # noqa: E402
        ops = {}
        cwd = os.getcwd()
        os.chdir(prefix)
        try:  # cell 16: thunk -> after-optimisation instruction -> opcode
            for (prog, name), ns in totals.items():
                if prog != -1:
                    op = xla_module_metadata(int(prog)).find_instruction(name)[1].opcode
                    ops[op] = ops.get(op, 0.0) + float(ns)
        finally:
            os.chdir(cwd)
        ops["GPU idle during modules"] = d2 - d1
        go = {o["opcode"]: o for o in doc["opcodes"]}
        bad = [k for k, v in ops.items() if k not in go or not close(go[k]["total_ms"], v / 1e6)
               or not close(go[k]["share"], v / d2)]
        check(len(go) == len(ops) and not bad,
              f"{label}: runtime by opcode {sorted(ops)} (profq {sorted(go)}; differ: {bad})")
        inst = notebook_instances(steady)
        gi = {(x["collective"], x["program_id"], x["execution"], x["thunk_index"]): x
              for x in doc["collective_instances"]}
        bad = [k for k, (bw, wait, size) in inst.items()
               if k not in gi or not close(gi[k]["busbw_gbps"], bw, 1e-3)
               or not close(gi[k]["wait_ms"], wait, 1e-3) or gi[k]["message_bytes"] != size]
        check(len(gi) == len(inst) and not bad,
              f"{label}: {len(inst)} collective instances: busbw, wait within 0.1%, size (profq {len(gi)}; differ: {bad[:5]})")
        for kind in sorted({k[0] for k in inst}):
            xs = [v for k, v in inst.items() if k[0] == kind]
            row = next((c for c in doc["collectives"] if c["collective"] == kind), None)
            ok = row is not None and row["instances"] == len(xs) and close(
                row["busbw_mean_gbps"], sum(x[0] for x in xs) / len(xs), 1e-3) and close(
                row["busbw_max_gbps"], max(x[0] for x in xs), 1e-3) and close(
                row["wait_mean_ms"], sum(x[1] for x in xs) / len(xs), 1e-3) and close(
                row["wait_max_ms"], max(x[1] for x in xs), 1e-3)
            check(ok, f"{label}: collectives[{kind}]: {len(xs)} instances, busbw mean/max, wait mean/max")
        ngroups, over = notebook_variability(steady)
        var = doc["variability"]
        check(var["groups"] == ngroups and var["over_threshold"] == len(over),
              f"{label}: variability {len(over)} of {ngroups} groups (profq {var['over_threshold']} of {var['groups']})")
        top10 = list(over.iterrows())[:10]
        ok = len(var["top"]) == len(top10) and all(
            g["program_id"] == str(idx[0]) and g["name"] == idx[1] and close(g["mean_ms"], r["mean"] / 1e6)
            and close(g["std_ms"], r["std"] / 1e6) for g, (idx, r) in zip(var["top"], top10))
        check(ok, f"{label}: variability top {len(top10)} (program, name, mean, std)")
        mods = {m["program_id"]: m for m in doc["modules"]}
        for prog in steady.module.index.get_level_values("ProgramId").unique():
            want = None
            if steady.thunk.loc[prog, "Communication"].any():
                st = steady.module.loc[prog, "ProjStartNs"].groupby("ProgramExecution").agg(("max", "min"))
                want = float((st["max"] - st["min"]).sum() / steady.module.loc[prog, "ProjDurNs"].sum())
            got = mods[str(prog)]["wait_share"]
            check((want is None and got is None) or (want is not None and got is not None and close(got, want)),
                  f"{label}: program {prog} wait share {want} (profq {got})")
        for b in doc["bias"]:
            scores, std = notebook_bias(steady, int(b["program_id"]))
            got = {d["device"]: d["score_ms"] * 1e6 for d in b["devices"]}
            check(set(got) == set(scores) and all(close(got[d], scores[d]) for d in scores)
                  and close(b["std_ms"] * 1e6, std),
                  f"{label}: bias of program {b['program_id']}: device scores {scores}, std {std} (profq {got}, {b['std_ms'] * 1e6})")


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
    p = subprocess.run([profq, "info", "--format", "json", archive], capture_output=True, text=True)
    info = json.loads(p.stdout)["sources"][0]["nsys_jax"] if p.returncode == 0 else {}
    for key, fr in (("module_ranges", all_.module), ("thunk_ranges", all_.thunk)):
        check(info.get(key) == len(fr), f"{label}: info {key} = {len(fr)} (profq {info.get(key)})")
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
    compare_communication(a.profq, a.archive, a.loader)
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
