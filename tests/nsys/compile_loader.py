"""`profq nsys --section compile` against the archive-era nsys-jax loader (JAX-Toolbox
283578bd, ../shared/peers/nsys-jax/archive-era) run as the oracle on the shared archive
(tests/nsys/archive.sh runs this in build/venv-nsysloader).

What is run: the loader's push/pop loader (the compile frame), the current loader's
remove_autotuning_detail for the compile frame (its two remove_child_ranges calls, written
here over the archive-era utils.remove_child_ranges: the archive-era loader has no such
function), the loader's generate_compilation_statistics and the notebook's compile summary
cell (clean_compilation_range_name, group, sort, the 97% cut).
Compared: frames.{all,init}.compile_rows (steady 0), compile.total_s, and per pass of the
97% list its name, non_child_s and share (within 1e-6 relative), in order.
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

def oracle(loader_dir, prefix):
    display = types.ModuleType("IPython.display")
    display.display = display.IFrame = lambda *a, **k: None
    sys.modules.setdefault("IPython", types.ModuleType("IPython"))
    sys.modules["IPython.display"] = display
    sys.path.insert(0, str(loader_dir))
    from jax_nsys import analysis, data_loaders, utils  # noqa: E402

    compile_df = data_loaders._load_nvtx_pushpop_trace(prefix, {"compile"})
    rows = len(compile_df)
    # remove_autotuning_detail of the current loader (compile frame only).
    mask = compile_df["Name"].str.startswith("XlaAutotunerMeasurement")
    compile_df.loc[mask, "Name"] = "XlaAutotunerMeasurement"
    compile_df = utils.remove_child_ranges(compile_df, mask)
    compile_df = utils.remove_child_ranges(compile_df,
                                           compile_df["Name"] == "XlaAutotunerCompilation")
    stats = analysis.generate_compilation_statistics(compile_df)

    def clean(name):
        if name.startswith("XlaAutotunerMeasurement"):
            name = "XlaAutotunerMeasurement"
        return name.removesuffix(":#module=split_module#")

    summary = stats.groupby(clean).agg("sum").sort_values(by=["DurNonChildNs"], ascending=False)
    total = summary["DurNonChildNs"].sum()
    summary["Frac"] = summary["DurNonChildNs"] / total
    top = summary[summary["Frac"].cumsum() <= 0.97]
    return rows, len(compile_df), total, [(n, r.DurNonChildNs, r.Frac) for n, r in top.iterrows()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    ap.add_argument("--loader", required=True, help="the directory holding jax_nsys/")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(a.archive) as z:
            z.extractall(tmp)
        rows, rows_removed, total, top = oracle(pathlib.Path(a.loader), pathlib.Path(tmp))
    p = subprocess.run([a.profq, "nsys", "--section", "compile", "--format", "json", a.archive],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"profq nsys --section compile exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    fr = doc["frames"]
    for name, want in (("all", rows), ("init", rows), ("steady", 0)):
        check(fr[name].get("compile_rows") == want,
              f"frames.{name}.compile_rows = {want} (profq {fr[name].get('compile_rows')})")
    c = doc["compile"]
    check(c["rows_autotuning_detail_removed"] == rows_removed,
          f"compile rows after remove_autotuning_detail = {rows_removed} "
          f"(profq {c['rows_autotuning_detail_removed']})")
    check(close(c["total_s"], total / 1e9), f"compile.total_s = {total / 1e9:.9f} (profq {c['total_s']:.9f})")
    got = c["passes"]
    check(len(got) == len(top), f"{len(top)} passes cover 97% (profq {len(got)})")
    for k, (name, ns, frac) in enumerate(top):
        g = got[k] if k < len(got) else {"name": None, "non_child_s": float("nan"), "share": float("nan")}
        check(g["name"] == name and close(g["non_child_s"], ns / 1e9) and close(g["share"], frac),
              f"pass {k}: {name} {ns / 1e9:.9f} s {frac:.9f} "
              f"(profq {g['name']} {g['non_child_s']:.9f} {g['share']:.9f})")
    # The text form prints the same list.
    p = subprocess.run([a.profq, "nsys", "--section", "compile", a.archive], capture_output=True,
                       text=True)
    check(p.returncode == 0 and f"of {total / 1e9:.2f} s compilation time" in p.stdout
          and all(name in p.stdout for name, _, _ in top),
          "text: the total and every pass of the 97% list")


main()
finish("compile_loader")
