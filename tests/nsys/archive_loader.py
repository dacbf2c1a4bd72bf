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

Compared: frames.{all,steady,init}.{module_rows,thunk_rows}; per program id in the steady
frame: rows and total ms (within 1e-6 relative), the module name, and the share.
"""
import argparse
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    ap.add_argument("--loader", required=True, help="the directory holding jax_nsys/")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(a.archive) as z:
            z.extractall(tmp)
        all_, init, steady = oracle(pathlib.Path(a.loader), pathlib.Path(tmp))

    p = subprocess.run([a.profq, "nsys", "--format", "json", a.archive], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"profq nsys exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    check(doc.get("schema") == "profq.nsys.v1", "schema profq.nsys.v1")
    for fname, fr in (("all", all_), ("steady", steady), ("init", init)):
        for kind in ("module", "thunk"):
            want = len(getattr(fr, kind))
            got = doc["frames"][fname][f"{kind}_rows"]
            check(got == want, f"frames.{fname}.{kind}_rows = {want} (profq {got})")

    compiled = len(all_.compile["ProgramId"].unique())
    check(doc["compiled_programs"] == compiled,
          f"{compiled} programs compiled in the profile (profq {doc['compiled_programs']})")

    mod = steady.module
    by_prog = mod.groupby(level="ProgramId")
    want = {}
    total = float(mod["ProjDurNs"].sum()) / 1e6
    for prog, df in by_prog:
        want[str(prog)] = (len(df), float(df["ProjDurNs"].sum()) / 1e6, df["Name"].iloc[0])
    got = {m["program_id"]: m for m in doc["modules"]}
    check(set(got) == set(want), f"steady program ids {sorted(want)} (profq {sorted(got)})")
    for prog, (rows, ms, name) in sorted(want.items(), key=lambda kv: -kv[1][1]):
        g = got.get(prog)
        if g is None:
            continue
        check(g["rows"] == rows and close(g["total_ms"], ms) and g["name"] == name
              and close(g["share"], ms / total),
              f"program {prog} {name}: {rows} rows, {ms:.9f} ms, share {ms / total:.9f} "
              f"(profq {g['rows']}, {g['total_ms']:.9f}, {g['name']}, {g['share']:.9f})")


main()
if failures:
    print(f"archive_loader: {len(failures)} check(s) failed")
    sys.exit(1)
print("archive_loader: all checks passed")
