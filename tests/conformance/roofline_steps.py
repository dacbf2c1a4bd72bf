"""profq's roofline_model and hlo_stats against XProf's on XPlanes with step markers.

Usage: roofline_steps.py PROFQ CASE...   (a CASE is one XPlane, or several joined by ','
that XProf and profq are given together, as hosts of one run: XProf combines their op stats
and intersects their steps; each case in a directory of its own: XProf writes its caches
next to it; a CASE prefixed "nosteps=" is one where XProf must find no steps)

For each XPlane, XProf's roofline_model (both tables: the records, the step diagnostics)
and hlo_stats from xspace_to_tools_data, and profq's `roofline --format xprof` and
`ops --format xprof`: the same columns, the same number of rows in the same order, every
cell equal (strings, booleans and integral numbers exactly, other numbers within 1e-6
relative), the table properties equal; and op_profile in its three groupings, whose op
leaves the merged rows also change, with xprof_all.py's op_profile tree comparison at 1e-6.
It also checks that the inputs do have steps (check_steps), so that a run where neither side
found steps cannot pass. Prints the fields compared per tool; exit 1 on any difference.
"""
import json
import os
import subprocess
import sys

from xprof.convert import _pywrap_profiler_plugin as plugin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xprof_all  # noqa: E402  (op_profile's tree comparison)

REL = 1e-6
xprof_all.REL = REL


def xprof(path, tool, **opts):
    opts["use_saved_result"] = False
    data, ok = plugin.xspace_to_tools_data(path.split(","), tool, opts)
    if not ok:
        raise RuntimeError(f"xprof {tool} failed on {path}")
    return json.loads(data.decode() if isinstance(data, bytes) else data)


def profq(exe, cmd, path, *more):
    r = subprocess.run([exe, cmd, "--format", "xprof", *more, *path.split(",")],
                       capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError(f"profq {cmd} {path}: exit {r.returncode}: {r.stderr}")
    return json.loads(r.stdout)


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return a == b and type(a) is type(b)
    if a is None or b is None:
        return a is b
    if float(a).is_integer() and float(b).is_integer():
        return a == b
    return abs(a - b) <= REL * max(abs(a), abs(b))


def compare_table(what, x, p, bad):
    n = 0
    xc = [c["id"] for c in x["cols"]]
    pc = [c["id"] for c in p["cols"]]
    n += 1
    if xc != pc:
        bad.append(f"{what}: columns xprof {xc} profq {pc}")
        return n
    n += 1
    if x.get("p", {}) != p.get("p", {}):
        bad.append(f"{what}: properties xprof {x.get('p')} profq {p.get('p')}")
    n += 1
    if len(x["rows"]) != len(p["rows"]):
        bad.append(f"{what}: {len(x['rows'])} rows in xprof, {len(p['rows'])} in profq")
    for i, (xr, pr) in enumerate(zip(x["rows"], p["rows"])):
        for col, xv, pv in zip(xc, [c.get("v") for c in xr["c"]], [c.get("v") for c in pr["c"]]):
            n += 1
            if not same(xv, pv):
                bad.append(f"{what}: row {i} {col}: xprof {xv!r} profq {pv!r}")
    return n


def xprof_steps(path):
    """The step names of XProf's input_pipeline_analyzer (its step database)."""
    t = xprof(path, "input_pipeline_analyzer")
    return [r["c"][0]["v"] for r in t[1]["rows"]] if len(t) > 1 else []


def check_steps(name, path, xr, bad, none):
    """That XProf did find steps, so that a run where neither side found any cannot pass:
    on a device, Program records under step numbers and no step diagnostic; host-only
    (XProf's roofline_model is empty on CPU: ConvertOpStatsToRooflineModel returns an empty
    database unless the hardware is GPU or TPU), steps in XProf's step database."""
    steps = [r["c"][0]["v"] for r in xr[0]["rows"] if r["c"][0]["v"] not in ("Total", "Average")]
    if none:  # a case where XProf must find none (a host without steps empties the intersection)
        if steps or not xr[1]["rows"]:
            bad.append(f"{name}: XProf was to find no steps, it has {steps}, diagnostics "
                       f"{xr[1]['rows']}")
        return "no steps in XProf (the diagnostic)"
    if xr[0]["rows"]:
        if not steps or xr[1]["rows"]:
            bad.append(f"{name}: XProf found no steps (step rows {steps}, diagnostics "
                       f"{xr[1]['rows']}): the input is not what this test needs")
        return f"{len(set(steps))} steps ({', '.join(sorted(set(steps), key=int)[:3])}...)"
    host = xprof_steps(path)
    if not host or xr[1]["rows"]:
        bad.append(f"{name}: host-only, but XProf's step database is {host} and its "
                   f"diagnostics {xr[1]['rows']}: the input is not what this test needs")
    return f"host-only, no roofline rows in XProf; {len(host)} steps in its step database"


def main():
    exe, paths = sys.argv[1], sys.argv[2:]
    bad, counts = [], {"roofline_model": 0, "hlo_stats": 0, "op_profile": 0}
    for path in paths:
        none = path.startswith("nosteps=")
        path = path[len("nosteps="):] if none else path
        files = path.split(",")
        name = os.path.basename(os.path.dirname(files[0]))
        if len(files) > 1:
            name += f" ({len(files)} hosts)"
        xr, pr = xprof(path, "roofline_model"), profq(exe, "roofline", path)
        what = check_steps(name, path, xr, bad, none)
        for k in range(2):
            counts["roofline_model"] += compare_table(f"{name} roofline_model[{k}]", xr[k], pr[k], bad)
        xh, ph = xprof(path, "hlo_stats"), profq(exe, "ops", path)
        xh = xh[0] if isinstance(xh, list) else xh
        ph = ph[0] if isinstance(ph, list) else ph
        counts["hlo_stats"] += compare_table(f"{name} hlo_stats", xh, ph, bad)
        for group in ("program", "category", "provenance"):
            t = xprof_all.Tool("op_profile")
            c = xprof_all.Cmp(t, f"{name} op_profile[{group}]")
            x = xprof(path, "op_profile", group_by=group)
            p = profq(exe, "ops", path, "--view", "op_profile", "--by", group)
            trees = [k for k in sorted(set(x) | set(p)) if isinstance(x.get(k, p.get(k)), dict)]
            c.tree("", {k: v for k, v in x.items() if k not in trees},
                   {k: v for k, v in p.items() if k not in trees})
            for k in trees:
                if k in x and k in p:
                    xprof_all.op_node(c, f".{k}", x[k], p[k])
            counts["op_profile"] += t.fields
            bad.extend(f"{where}: {msg}" for where, msg in t.bad)
        print(f"roofline_steps: {name}: {what}, {len(xh['rows'])} hlo_stats rows")
    for tool, n in counts.items():
        print(f"roofline_steps: {tool}: {n} fields compared")
    for b in bad[:40]:
        print("roofline_steps: DIFF", b)
    if bad:
        print(f"roofline_steps: FAIL: {len(bad)} differences")
        return 1
    print("roofline_steps: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
