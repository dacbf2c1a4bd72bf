"""profq ops/roofline against XProf's own hlo_stats, op_profile and roofline_model.

Every *.xplane.pb under --data (and every run directory of them) whose device planes carry
ops is copied to a scratch directory (XProf writes its caches next to the XSpace; the data
is read-only) and converted by xprof's xspace_to_tools_data. Compared:

  hlo_stats        the same (program id, op name) set; occurrences equal; total time and
                   self time within 0.1%; the same category and framework op name; FLOPs
                   (model GFLOP/s x time), bytes accessed (measured GiB/s x time) and HBM
                   bytes within 0.1%; the same bound-by and source info.
  roofline_model   the whole DataTable pair: columns, row order, every cell (numbers within
                   0.1%), the diagnostics table and the peaks table "p".
  op_profile       per category (byCategoryExcludeIdle) the same categories, time and FLOPs
                   within 0.1%; on GPU also the HBM bytes.

GPU FLOPs and bytes are XLA's GPU HLO cost analysis of the HloProto in both (XProf runs XLA's
code; profq its own C rules, src/analysis/hlo_cost.c); GPU peaks come from the plane's core
count, clock and architecture, GPU source info from the HloProto's metadata and stack frames,
in both. Nothing XProf computes for these tables is left out.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from xprof.convert import _pywrap_profiler_plugin as plugin

REL = 1e-3


def close(a, b):
    return abs(a - b) <= REL * max(abs(a), abs(b), 1e-9) or abs(a - b) < 1e-6


def table(text):
    d = json.loads(text)
    if isinstance(d, list):
        d = d[0]
    cols = [c["id"] for c in d["cols"]]
    return [dict(zip(cols, [c.get("v") for c in r["c"]])) for r in d["rows"]]


def xprof(path, tool, **opts):
    opts["use_saved_result"] = False
    data, ok = plugin.xspace_to_tools_data([path], tool, opts)
    if not ok:
        raise RuntimeError(f"xprof {tool} failed on {path}: {data[:200]!r}")
    return data.decode() if isinstance(data, bytes) else data


def profq(exe, path, *args):
    r = subprocess.run([exe, *args, path], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"profq {' '.join(args)} {path}: exit {r.returncode}: {r.stderr}")
    return r.stdout


class Check:
    def __init__(self, name):
        self.name, self.bad, self.n = name, [], 0

    def eq(self, what, a, b):
        self.n += 1
        if a != b:
            self.bad.append(f"{what}: xprof {a!r} profq {b!r}")

    def near(self, what, a, b):
        self.n += 1
        if not close(float(a), float(b)):
            self.bad.append(f"{what}: xprof {a!r} profq {b!r}")


def compare(exe, src, scratch):
    name = os.path.basename(src.rstrip("/"))
    d = os.path.join(scratch, name.replace(".xplane.pb", ""))
    os.makedirs(d)
    if os.path.isdir(src):
        files = sorted(f for f in os.listdir(src) if f.endswith(".xplane.pb"))
        for f in files:
            shutil.copy(os.path.join(src, f), d)
        path = os.path.join(d, files[0])
    else:
        path = os.path.join(d, "host.xplane.pb")
        shutil.copy(src, path)
    pq_json = json.loads(profq(exe, path, "ops", "--format", "json"))
    if pq_json["devices"] == 0:
        print(f"{name}: no device ops, not compared")
        return None
    tpu = pq_json["hardware"] == "tpu"
    c = Check(name)

    xs = {(r["program_id"], r["hlo_op_name"]): r for r in table(xprof(path, "hlo_stats"))}
    ps = {(r["program_id"], r["hlo_op_name"]): r
          for r in table(profq(exe, path, "ops", "--format", "xprof"))}
    c.eq("op set", sorted(xs), sorted(ps))
    for k in sorted(set(xs) & set(ps)):
        x, p = xs[k], ps[k]
        c.eq(f"{k} occurrences", x["occurrences"], p["occurrences"])
        c.near(f"{k} total time", x["total_time"], p["total_time"])
        c.near(f"{k} self time", x["total_self_time"], p["total_self_time"])
        c.near(f"{k} self %", x["total_self_time_percent"], p["total_self_time_percent"])
        c.eq(f"{k} category", x["category"], p["category"])
        c.eq(f"{k} framework op", x["tf_op_name"], p["tf_op_name"])
        c.eq(f"{k} source info", x["source_info"], p["source_info"])
        t = x["total_time"]
        c.near(f"{k} FLOPs", x["model_flop_rate"] * t, p["model_flop_rate"] * t)
        c.near(f"{k} bytes", x["measured_memory_bw"] * t, p["measured_memory_bw"] * t)
        c.near(f"{k} HBM bytes", x["hbm_bw"] * t, p["hbm_bw"] * t)
        c.eq(f"{k} bound by", x["bound_by"], p["bound_by"])

    xr = json.loads(xprof(path, "roofline_model"))
    pr = json.loads(profq(exe, path, "roofline", "--format", "xprof"))
    c.eq("roofline_model columns", xr[0]["cols"], pr[0]["cols"])
    c.eq("roofline_model rows", len(xr[0]["rows"]), len(pr[0]["rows"]))
    c.eq("roofline_model diagnostics", xr[1], pr[1])
    cols = [col["id"] for col in xr[0]["cols"]]
    c.eq("roofline_model p", xr[0].get("p"), pr[0].get("p"))
    for i, (ra, rb) in enumerate(zip(xr[0]["rows"], pr[0]["rows"])):
        for col, x, y in zip(cols, [v.get("v") for v in ra["c"]], [v.get("v") for v in rb["c"]]):
            what = f"roofline_model row {i} ({ra['c'][0]['v']} {ra['c'][3]['v']}) {col}"
            if isinstance(x, float) and not isinstance(x, bool):
                c.near(what, x, y)
            else:
                c.eq(what, x, y)

    op = json.loads(xprof(path, "op_profile", group_by="category"))
    cats = {n["name"]: n["metrics"] for n in op["byCategoryExcludeIdle"]["children"]}
    pq_cats = {r["name"]: r for r in json.loads(
        profq(exe, path, "ops", "--by", "category", "--format", "json"))["rows"]}
    c.eq("op_profile categories", sorted(cats), sorted(pq_cats))
    for k in sorted(set(cats) & set(pq_cats)):
        c.near(f"op_profile {k} time", float(cats[k].get("rawTime", 0)),
               pq_cats[k]["time_ps"])
        c.near(f"op_profile {k} FLOPs", float(cats[k].get("rawFlops", 0)),
               pq_cats[k]["model_flops"])
        # rawBytesAccessedArray[0]: HBM READ + WRITE bytes of the breakdown (op_profile
        # leaves out direction-less entries, which hlo_stats' HBM bytes count: TPU
        # copy-start/copy-done have those, so TPU is not compared); profq's JSON states HBM
        # GiB/s over the op time, which on GPU is exactly read + write
        if not tpu:
            c.near(f"op_profile {k} HBM bytes",
                   float((cats[k].get("rawBytesAccessedArray") or [0])[0]),
                   pq_cats[k]["hbm_gibps"] * pq_cats[k]["time_ps"] / 1e3 * (2**30 / 1e9))
    status = "ok" if not c.bad else "MISMATCH"
    print(f"{name}: {len(xs)} ops, {c.n} checks, {status}")
    for b in c.bad[:20]:
        print("   ", b)
    return not c.bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args()
    inputs = []
    for f in sorted(os.listdir(a.data)):
        p = os.path.join(a.data, f)
        if f.endswith(".xplane.pb"):
            inputs.append(p)
        elif os.path.isdir(p) and f != "corrupt":
            inputs.append(p)
    ok, compared = True, 0
    with tempfile.TemporaryDirectory(prefix="profq-xprof-") as scratch:
        for src in inputs:
            r = compare(a.profq, src, scratch)
            if r is not None:
                compared += 1
                ok = ok and r
    print(f"xprof_ops: {compared} profiles compared, {'all match' if ok else 'MISMATCH'}")
    return 0 if ok and compared else 1


if __name__ == "__main__":
    sys.exit(main())
