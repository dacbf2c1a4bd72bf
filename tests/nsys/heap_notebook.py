"""`profq nsys --section heap` on an nsys-jax archive against the notebook's heap cell
(Analysis.ipynb, "heap simulator trace": per heap-simulator trace of each top module's
after-optimisation HloProto, the usage after every first ALLOC / last FREE of a
(SHARE_WITH-aliased) allocation) written here over protobuf-decoded dumps, with the XLA
protos the archive carries compiled by grpc_tools.protoc; and against `profq heap` on the
same dump extracted and decompressed (the existing heap analysis, usage before every event).
Run by tests/nsys/archive.sh in build/venv-test (protobuf, grpcio-tools).

Compared per top module: the number of traces, each trace's peak (the notebook's max of its
usage curve), and profq nsys's traces equal to profq heap's (events, peak, peak position,
every usage point)."""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import hloproto  # noqa: E402
from checklib import check, close, finish  # noqa: E402,F401

def notebook_usage(trace, sizes, kinds):
    """Usage after each change: first use of an allocation adds its size, its last FREE
    removes it; SHARE_WITH makes a buffer an alias of its canonical buffer."""
    users, alias, out = defaultdict(int), {}, [0]
    for ev in trace.events:
        if ev.kind == kinds.FREE:
            a = alias.pop(ev.buffer_id, ev.buffer_id)
            users[a] -= 1
            if users[a] == 0:
                out.append(out[-1] - sizes[a])
            continue
        if ev.kind == kinds.SHARE_WITH:
            a = ev.share_with_canonical_id
            alias[ev.buffer_id] = a
        else:
            a = ev.buffer_id
        users[a] += 1
        if users[a] == 1:
            out.append(out[-1] + sizes[a])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    a = ap.parse_args()
    p = subprocess.run([a.profq, "nsys", "--section", "heap", "--format", "json", a.archive],
                       capture_output=True, text=True)
    check(p.returncode == 0, f"profq nsys --section heap exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    heap = {m["program_id"]: m for m in doc["heap"]["modules"]}
    check(list(heap) == doc["top_module_ids"],
          f"heap modules are the top module ids {doc['top_module_ids']} (profq {list(heap)})")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        hlo_pb2, dumps = hloproto.load(a.archive, tmp)
        check(hlo_pb2 is not None, "the archive's hlo.proto compiles")
        if hlo_pb2 is None:
            return
        kinds = hlo_pb2.HeapSimulatorTrace.Event
        for prog, m in heap.items():
            check(m["has_dump"] == (prog in dumps), f"module {prog}: has_dump {prog in dumps}")
            if prog not in dumps:
                continue
            proto = hlo_pb2.HloProto()
            proto.ParseFromString(dumps[prog])
            ba = proto.buffer_assignment
            sizes = {b.id: b.size for b in ba.logical_buffers}
            traces = [t for t in ba.heap_simulator_traces if len(t.events)]
            check(len(m["traces"]) == len(traces),
                  f"module {prog}: {len(traces)} traces with events (profq {len(m['traces'])})")
            for t, g in zip(traces, m["traces"]):
                want = max(notebook_usage(t, sizes, kinds))
                check(g["peak_bytes"] == want,
                      f"module {prog} trace {g['index']}: peak {want} B (profq {g['peak_bytes']})")
            hp = tmp / f"module_{prog}.hlo.pb"
            hp.write_bytes(dumps[prog])
            q = subprocess.run([a.profq, "heap", "--format", "json", str(hp)], capture_output=True,
                               text=True)
            ref = json.loads(q.stdout)["modules"][0]["traces"] if q.returncode == 0 else []
            keys = ("index", "events", "peak_bytes", "peak_position", "peak_instruction",
                    "usage_bytes")
            same = len(ref) == len(m["traces"]) and all(
                all(r[k] == g[k] for k in keys) for r, g in zip(ref, m["traces"]))
            check(same, f"module {prog}: traces equal `profq heap` on the extracted dump")


main()
finish("heap_notebook")
