"""`profq nsys --section flame` on an nsys-jax archive against the notebook's flame-graph
cell (Analysis.ipynb: src_runtime and op_name_runtime), written here over the archive's
after-optimisation HloProtos decoded with protobuf (tests/nsys/hloproto.py). The weights
fed to it are profq's own per-thunk totals (JSON thunks[], checked against the loader by
the communication tests) and runtime definitions; what is checked here is the location
logic: instruction + called computations' instructions, stack frames as
file:line[:column][function], op_name fallback, [Unknown], equal split over distinct
locations, op_name split on '/', the two idle entries.
Compared: the set of folded stacks of each graph and every weight (1e-6 relative), and that
`--format svg` is one <svg> document whose frame titles cover the stacks' frames."""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import hloproto  # noqa: E402
from checklib import check, close, finish  # noqa: E402

def frames_of(module, frame_id):
    idx = module.stack_frame_index
    out = []
    while frame_id > 0:
        fr = idx.stack_frames[frame_id - 1]
        loc = idx.file_locations[fr.file_location_id - 1]
        col = f":{loc.column}" if loc.column else ""
        out.append(f"{idx.file_names[loc.file_name_id - 1]}:{loc.line}{col}"
                   f"[{idx.function_names[loc.function_name_id - 1]}]")
        frame_id = fr.parent_frame_id
    return out[::-1]


def notebook(thunks, runtime, protos):
    active, unknown = ["[GPU active]"], ["[GPU active]", "[Unknown]"]
    src, opn = defaultdict(float), defaultdict(float)
    for t in thunks:
        ms = t["total_ms"]
        prefs = (set(), set(), {tuple(unknown)})
        opprefs = (set(), {tuple(unknown)})
        proto = protos.get(t["program_id"])
        if proto is not None:
            m = proto.hlo_module
            comps = {c.id: c for c in m.computations}
            inst = next((i for c in m.computations for i in c.instructions
                         if i.name == t["name"]), None)
            insts = [] if inst is None else [inst] + [
                i for cid in inst.called_computation_ids for i in comps[cid].instructions]
            for i in insts:
                op = [i.metadata.op_name] if i.metadata.op_name else []
                fr = frames_of(m, i.metadata.stack_frame_id)
                if fr:
                    prefs[0].add(tuple(active + fr + op))
                if op:
                    prefs[1].add(tuple(unknown + op))
                    opprefs[0].add(tuple(active + op[0].split("/")))
        for dst, ps in ((src, prefs), (opn, opprefs)):
            for locs in ps:
                if locs:
                    for loc in locs:
                        dst[loc] += ms / len(locs)
                    break
    for dst in (src, opn):
        dst[("[GPU idle during module execution]",)] += max(
            0.0, runtime["modules_ms"] - runtime["thunks_ms"])
        dst[("[GPU idle between module executions]",)] += max(
            0.0, runtime["wall_ms"] - runtime["modules_ms"])
    return src, opn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    a = ap.parse_args()
    p = subprocess.run([a.profq, "nsys", "--section", "flame", "--section", "runtime",
                        "--format", "json", a.archive], capture_output=True, text=True)
    check(p.returncode == 0, f"profq nsys --section flame exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    with tempfile.TemporaryDirectory() as tmp:
        hlo_pb2, dumps = hloproto.load(a.archive, tmp)
        check(hlo_pb2 is not None, "the archive's hlo.proto compiles")
        if hlo_pb2 is None:
            return
        protos = {}
        for prog in {t["program_id"] for t in doc["thunks"]}:
            if prog in dumps:
                protos[prog] = hlo_pb2.HloProto()
                protos[prog].ParseFromString(dumps[prog])
        src, opn = notebook(doc["thunks"], doc["runtime"], protos)
    for key, want in (("source", src), ("op_name", opn)):
        got = {tuple(s["stack"]): s["ms"] for s in doc["flame"][key]}
        check(set(got) == set(want), f"{key}: {len(want)} folded stacks (profq {len(got)}; "
              f"missing {len(set(want) - set(got))}, extra {len(set(got) - set(want))})")
        bad = [k for k in want if k in got and not close(got[k], want[k])]
        check(not bad, f"{key}: every weight within 1e-6 ({len(bad)} differ"
              + (f", e.g. {bad[0][-1][:60]}: {want[bad[0]]} vs {got[bad[0]]})" if bad else ")"))
    q = subprocess.run([a.profq, "nsys", "--section", "flame", "--format", "svg", a.archive],
                       capture_output=True, text=True)
    svg = q.stdout
    check(q.returncode == 0 and svg.startswith("<svg") and svg.count("<svg") == 1
          and "<script" not in svg, "--format svg: one <svg> document, no script")
    check("[GPU active]" in svg and "Source code flamegraph" in svg and "op_name flamegraph" in svg,
          "--format svg: both graphs, with their root frame")


main()
finish("flame_notebook")
