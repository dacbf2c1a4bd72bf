"""profq ops/roofline against XProf's own hlo_stats, op_profile and roofline_model.

Every *.xplane.pb under --data (and every run directory of them) whose device planes carry
ops is copied to a scratch directory (XProf writes its caches next to the XSpace; the data
is read-only) and converted by xprof's xspace_to_tools_data. Compared:

  hlo_stats        the same (program id, op name) set; occurrences equal; total time and
                   self time within 0.1%; the same category, framework op name and
                   expression (HLO text); FLOPs
                   (model GFLOP/s x time), bytes accessed (measured GiB/s x time) and HBM
                   bytes within 0.1%; the same bound-by and source info.
  roofline_model   the whole DataTable pair: columns, row order, every cell (numbers within
                   0.1%), the diagnostics table and the peaks table "p".
  op_profile       grouped by program, category and provenance, the whole Profile JSON: both
                   trees (with and without IDLE), every node's name, numChildren, xla fields
                   and metrics (rawTime, occurrences, avgTimePs, normalizedTimePs,
                   rawFlops, bf16Flops, flops, uncappedFlops, bandwidthUtils,
                   rawBytesAccessedArray; numbers within 0.1%), children matched by name
                   and program id and in XProf's order (rawTime descending; rawFlops
                   under fusions; ties in either order), including the instructions
                   fused into a TPU fusion leaf (from the HloProto, time 0) and the HLO
                   text (expression) of every op, which XProf prints from the HloProto on
                   GPUs and for fused instructions.

GPU FLOPs and bytes are XLA's GPU HLO cost analysis of the HloProto in both (XProf runs XLA's
code; profq its own C rules, src/analysis/hlo_cost.c); GPU peaks come from the plane's core
count, clock and architecture, GPU source info from the HloProto's metadata and stack frames,
in both. The GPU HLO text (hlo_stats hlo_op_expression, op_profile xla.expression) is
XLA's HloInstruction::ToString in XProf and src/analysis/hlo_text.c in profq.
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


DUP = " and its duplicate(s)"


def node_key(n):
    return (n.get("name"), n.get("xla", {}).get("programId"))


def op_profile_node(c, what, x, p, tpu):
    """Compares one node and, recursively, its children (matched by name and program id;
    the order must be XProf's: rawTime descending, rawFlops under fusions)."""
    c.eq(f"{what} name", x.get("name"), p.get("name"))
    xm, pm = x.get("metrics", {}), p.get("metrics", {})
    for k in sorted(set(xm) | set(pm)):
        a, b = xm.get(k), pm.get(k)
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for i, (u, v) in enumerate(zip(a, b)):
                c.near(f"{what} {k}[{i}]", u, v)
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
            c.near(f"{what} {k}", a, b)
        else:
            c.eq(f"{what} {k}", a, b)
    c.eq(f"{what} has xla", "xla" in x, "xla" in p)
    if "xla" in x and "xla" in p:
        for k in sorted(set(x["xla"]) | set(p["xla"])):
            c.eq(f"{what} xla.{k}", x["xla"].get(k), p["xla"].get(k))
    # A fusion leaf's children are the instructions fused into it (TPU; from the HloProto,
    # time 0), compared like any other node.
    xk, pk = x.get("children", []), p.get("children", [])
    c.eq(f"{what} numChildren", x.get("numChildren", 0), p.get("numChildren", 0))
    # under a fusion XProf orders by rawFlops; a duplicates group (a fusion-category node
    # holding the programs' copies of one fusion) is ordered by rawTime like any other
    by_flops = ("xla" in p and p["xla"].get("category", "").endswith(" fusion")
                and not p.get("name", "").endswith(DUP))
    order = [n.get("metrics", {}).get("rawFlops" if by_flops else "rawTime", 0) for n in pk]
    if any(a < b * (1 - 1e-9) for a, b in zip(order, order[1:])):
        c.bad.append(f"{what}: children not sorted: {order[:10]}")
    xs = {node_key(n): n for n in xk}
    ps = {node_key(n): n for n in pk}
    c.eq(f"{what} children", sorted(xs, key=str), sorted(ps, key=str))
    for k in sorted(set(xs) & set(ps), key=str):
        op_profile_node(c, f"{what}/{k[0]}", xs[k], ps[k], tpu)


def op_profile_compare(c, what, x, p, tpu):
    c.eq(f"{what} keys", sorted(x), sorted(p))
    c.eq(f"{what} deviceType", x.get("deviceType"), p.get("deviceType"))
    c.near(f"{what} aggDvfsTimeScaleMultiplier", x.get("aggDvfsTimeScaleMultiplier", 0),
           p.get("aggDvfsTimeScaleMultiplier", 0))
    for k in sorted(set(x) & set(p)):
        if isinstance(x[k], dict):
            op_profile_node(c, f"{what}.{k}", x[k], p[k], tpu)


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
    if pq_json["hardware"] == "cpu":
        # A JAX-on-CPU run: XProf has no device table for it (its tools come out empty, with
        # deviceType CPU_ONLY); profq's --format xprof must be the same, while profq's own
        # formats list the XLA:CPU ops (checked here to be non-empty).
        c.eq("profq's own ops on a CPU run", len(pq_json["rows"]) > 0, True)

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
        c.eq(f"{k} expression", x["hlo_op_expression"], p["hlo_op_expression"])
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

    for group in ("program", "category", "provenance"):
        x = json.loads(xprof(path, "op_profile", group_by=group))
        p = json.loads(profq(exe, path, "ops", "--format", "xprof", "--view", "op_profile",
                             "--by", group))
        op_profile_compare(c, f"op_profile[{group}]", x, p, tpu)
    status = "ok" if not c.bad else "MISMATCH"
    print(f"{name}: {len(xs)} ops, {c.n} checks, {status}")
    for b in c.bad[:20]:
        print("   ", b)
    return not c.bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--jax-run", action="append", default=[],
                    help="an XPlane of the project's own JAX-on-CPU run (scripts/demo_program.py)")
    a = ap.parse_args()
    inputs = list(a.jax_run)
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
