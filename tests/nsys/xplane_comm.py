#!/usr/bin/env python3
"""`profq nsys` runtime, opcodes, collectives and variability on JAX XPlane GPU profiles
(issue 12 Deliver 4) against an independent computation.

Each XSpace under DATA (a directory of one run loads as one profile) is decoded with Python's
protobuf runtime (the XSpace schema of tests/conformance/xplane_counts.py; the HloProtos on
/host:metadata with the XLA protos the shared nsys-jax archive carries, tests/nsys/hloproto.py).
The rows are rebuilt here from the protobufs, not from profq:
  * per /device:GPU:N plane with XLA kernels (stream lines, hlo_module + hlo_op stats), a
    device; kernels in start order; a module execution is a maximal run of kernels of one
    (program id, hlo_module): module row from its first start to its latest end (ns, truncated
    from ps); executions numbered per (device, program id);
  * a thunk = the kernels of one hlo_op in one execution: start = its first kernel's start,
    duration = the sum of its kernels' durations (ns, truncated from the ps sum);
  * the thunk's HLO instruction: the first instruction of that name in the program's HloProto
    (program id: the metadata's program_id stat, else its XEventMetadata id); its opcode; it
    is communication when the opcode is a collective (all-gather, all-reduce, all-to-all,
    collective-broadcast, collective-permute, reduce-scatter, or the -start forms of
    all-gather / all-reduce / collective-permute) or an async-start / fusion whose called
    computations (recursively) hold one (host offloads are not recomputed: a
    dynamic-(update-)slice between memory spaces would show as a mismatch).
Every row is steady (an XPlane shows no compilation). Compared with `profq nsys --format json`:
frames' communication_rows; runtime thunks_ms / modules_ms / wall_ms / idle (1e-9 relative,
over the top modules: modules by total taken while the share seen is below 99%); per-thunk
totals by (program id, name); runtime by opcode and its share of definition 2, plus "GPU idle
during modules"; collective instances (communication rows over devices, by (program,
execution, thunk index)); variability groups and those with std/mean > 0.10 (compute thunks
by (program id, name), sample std). On the shared profiles no kernel is a collective (single
device programs, and an 8-GPU convolution run as 8 independent programs), so collectives are
0 there: the comparison still checks that profq finds none. Also: the "unavailable" key names
bias, compile, heap and flame; `--section compile` exits 3.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
sys.path.insert(0, HERE)
import hloproto  # noqa: E402
from checklib import unique_keys  # noqa: E402
import xplane_counts  # noqa: E402
import xplane_nsys  # noqa: E402  (kernels(): the XLA kernels of a plane)

COLL = ("all-gather", "all-reduce", "all-to-all", "collective-broadcast", "collective-permute",
        "reduce-scatter")
STARTS = ("all-gather-start", "all-reduce-start", "collective-permute-start")


def programs(space, hlo_pb2):
    """{program id: HloProto} from /host:metadata (first one of an id wins)."""
    out = {}
    for plane in space.planes:
        if plane.name != "/host:metadata":
            continue
        names = {k: v.name for k, v in plane.stat_metadata.items()}
        for mid in sorted(plane.event_metadata):
            md = plane.event_metadata[mid]
            blob, pid = None, None
            for s in md.stats:
                n = names.get(s.metadata_id, "")
                if n == "Hlo Proto" and s.WhichOneof("value") == "bytes_value":
                    blob = s.bytes_value
                elif n == "program_id" and s.WhichOneof("value") in ("int64_value", "uint64_value"):
                    pid = getattr(s, s.WhichOneof("value"))
            if blob is None:
                continue
            pid = md.id if pid is None else pid
            if pid not in out:
                p = hlo_pb2.HloProto()
                p.ParseFromString(blob)
                out[pid] = p
    return out


class Module:
    def __init__(self, proto):
        m = proto.hlo_module
        self.by_name, self.comps = {}, {}
        for c in m.computations:
            self.comps[c.id] = c
            for i in c.instructions:
                self.by_name.setdefault(i.name, i)

    def wraps_collective(self, comp_id, depth=0):
        c = self.comps.get(comp_id)
        if c is None or depth > 32:
            return False
        for i in c.instructions:
            if i.opcode in COLL or any(self.wraps_collective(k, depth + 1)
                                       for k in i.called_computation_ids):
                return True
        return False

    def classify(self, name):
        """(opcode or '', communication)."""
        i = self.by_name.get(name)
        if i is None:
            return "", False
        if i.opcode in COLL or i.opcode in STARTS:
            return i.opcode, True
        if i.opcode in ("async-start", "fusion"):
            return i.opcode, any(self.wraps_collective(k) for k in i.called_computation_ids)
        return i.opcode, False


def rows(space, hlo_pb2):
    """Module rows (program, exec, dev, start, dur) and thunk rows (program, exec, dev, name,
    start, dur, opcode, comm, hidden) of one XSpace; devices numbered from 0; a communication
    thunk's dur has its overlap with the execution's compute thunks (hidden) subtracted."""
    mods = {pid: Module(p) for pid, p in programs(space, hlo_pb2).items()}
    mrows, trows, dev = [], [], 0
    for plane in space.planes:
        if not plane.name.startswith("/device:GPU:"):
            continue
        ks = xplane_nsys.kernels(plane)
        if not ks:
            continue
        execs, i = {}, 0
        while i < len(ks):
            j = i
            while j < len(ks) and ks[j][2:4] == ks[i][2:4]:
                j += 1
            run, prog = ks[i:j], ks[i][2]
            ex = execs[prog] = execs.get(prog, -1) + 1
            end = max(k[1] for k in run)
            mrows.append((prog, ex, dev, run[0][0] // 1000, (end - run[0][0]) // 1000))
            th = []
            for op in sorted({k[4] for k in run}):
                mine = [k for k in run if k[4] == op]
                opcode, comm = mods[prog].classify(op) if prog in mods else ("", False)
                th.append((prog, ex, dev, op, min(k[0] for k in mine) // 1000,
                           sum(k[1] - k[0] for k in mine) // 1000, opcode, comm))
            for t in th:  # overlap with compute thunks subtracted from communication
                hidden = sum(max(0, min(o[4] + o[5], t[4] + t[5]) - max(o[4], t[4]))
                             for o in th if not o[7]) if t[7] else 0
                trows.append(t[:5] + (t[5] - hidden,) + t[6:] + (hidden,))
            i = j
        dev += 1
    return mrows, trows


def expected(mrows, trows):
    tot = {}
    for m in mrows:
        tot[m[0]] = tot.get(m[0], 0) + m[4]
    allt = sum(tot.values())
    top, seen = [], 0.0
    for p in sorted(tot, key=lambda p: (-tot[p], p)):
        if seen >= 0.99:
            break
        top.append(p)
        seen += tot[p] / allt
    topm = [m for m in mrows if m[0] in top]
    topt = [t for t in trows if t[0] in top]
    thunks_ns = sum(t[5] for t in topt)
    modules_ns = sum(m[4] for m in topm)
    span = {}
    for m in topm:
        lo, hi = span.get(m[2], (m[3], m[3] + m[4]))
        span[m[2]] = (min(lo, m[3]), max(hi, m[3] + m[4]))
    wall = sum(hi - lo for lo, hi in span.values())
    per_thunk, per_op = {}, {}
    for t in topt:
        per_thunk[(str(t[0]), t[3])] = per_thunk.get((str(t[0]), t[3]), 0) + t[5]
        op = t[6] or "[unknown]"
        per_op[op] = per_op.get(op, 0) + t[5]
    per_op["GPU idle during modules"] = modules_ns - thunks_ns
    groups = {}
    for t in trows:
        if not t[7]:
            groups.setdefault((t[0], t[3]), []).append(t[5])
    over = 0
    for v in groups.values():
        if len(v) > 1:
            mean = sum(v) / len(v)
            sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1))
            over += mean > 0 and sd / mean > 0.10
    comm = [t for t in trows if t[7]]
    return {"thunks_ms": thunks_ns / 1e6, "modules_ms": modules_ns / 1e6, "wall_ms": wall / 1e6,
            "idle_in": (modules_ns - thunks_ns) / 1e6, "idle_between": (wall - modules_ns) / 1e6,
            "per_thunk": per_thunk, "per_op": per_op, "modules_ns": modules_ns,
            "var_groups": len(groups), "var_over": over, "comm_rows": len(comm)}


# A synthetic two-GPU XSpace with an all-reduce: nothing in the shared data communicates.
# (offset ns, duration ns, stream, hlo_op) per device; two executions of program 5, the
# second 20 us later; the all-reduce overlaps fusion.2 on another stream.
SYNTH = {0: [(0, 1000, 1, "fusion.1"), (1000, 2000, 2, "all-reduce-start.1"),
             (1500, 1000, 1, "fusion.2"), (2600, 300, 1, "fusion.2")],
         1: [(100, 1000, 1, "fusion.1"), (1300, 1900, 2, "all-reduce-start.1"),
             (1600, 1100, 1, "fusion.2")]}
BITS = {1: 8, 2: 8, 3: 16, 4: 32, 5: 64, 6: 8, 7: 16, 8: 32, 9: 64, 10: 16, 11: 32, 12: 64,
        16: 16}  # PrimitiveType -> bits (PRED, S8..S64, U8..U64, F16, F32, F64, BF16)


def synth_hlo(hlo_pb2):
    p = hlo_pb2.HloProto()
    m = p.hlo_module
    m.name, m.id, m.entry_computation_id = "jit_step", 5, 1
    c = m.computations.add()
    c.name, c.id, c.root_id = "main", 1, 4
    for iid, name, op, dims, operands in ((1, "p0", "parameter", [1024], []),
                                          (2, "all-reduce-start.1", "all-reduce-start", [1024], [1]),
                                          (3, "fusion.1", "fusion", [1024], [1]),
                                          (4, "fusion.2", "fusion", [1024], [2])):
        i = c.instructions.add()
        i.name, i.opcode, i.id = name, op, iid
        i.shape.element_type = 11  # F32
        i.shape.dimensions.extend(dims)
        i.operand_ids.extend(operands)
        if op == "all-reduce-start":
            i.replica_groups.add().replica_ids.extend([0, 1])
            i.channel_id = 1
    return p


def synth_space(pb2, hlo_pb2):
    sp = pb2.XSpace()
    meta = sp.planes.add()
    meta.id, meta.name = 1, "/host:metadata"
    meta.stat_metadata[1].id, meta.stat_metadata[1].name = 1, "Hlo Proto"
    em = meta.event_metadata[5]
    em.id, em.name = 5, "jit_step(5)"
    st = em.stats.add()
    st.metadata_id, st.bytes_value = 1, synth_hlo(hlo_pb2).SerializeToString()
    for dev, kernels in SYNTH.items():
        pl = sp.planes.add()
        pl.id, pl.name = 10 + dev, f"/device:GPU:{dev}"
        for sid, name in ((1, "hlo_module"), (2, "hlo_op"), (3, "program_id")):
            pl.stat_metadata[sid].id, pl.stat_metadata[sid].name = sid, name
        ids = {}
        lines = {}
        pl.event_metadata[99].id, pl.event_metadata[99].name = 99, "other_kernel"
        for ex in range(2):
            for off, dur, stream, op in kernels:
                if stream not in lines:
                    ln = lines[stream] = pl.lines.add()
                    ln.id, ln.name, ln.timestamp_ns = stream, f"Stream #{stream}(Kernel)", 1000
                if op not in ids:
                    ids[op] = len(ids) + 1
                    e = pl.event_metadata[ids[op]]
                    e.id, e.name = ids[op], op + "_kernel"
                ev = lines[stream].events.add()
                ev.metadata_id = ids[op]
                ev.offset_ps, ev.duration_ps = (off + ex * 20000) * 1000, dur * 1000
                for sid, val in ((1, "jit_step"), (2, op)):
                    x = ev.stats.add()
                    x.metadata_id, x.str_value = sid, val
                x = ev.stats.add()
                x.metadata_id, x.int64_value = 3, 5
            ev = lines[1].events.add()  # another program between the executions
            ev.metadata_id, ev.offset_ps, ev.duration_ps = 99, (10000 + ex * 20000) * 1000, 500000
            for sid, val in ((1, "jit_other"), (2, "fusion.9")):
                x = ev.stats.add()
                x.metadata_id, x.str_value = sid, val
            x = ev.stats.add()
            x.metadata_id, x.int64_value = 3, 6
        for ln in pl.lines:  # events in start order within a line, as profilers write them
            evs = sorted(ln.events, key=lambda e: e.offset_ps)
            del ln.events[:]
            ln.events.extend(evs)
    return sp


def synth_expected(mrows, trows, hlo):
    """Overlap, alignment and the collective instances, by the loader's formulas."""
    ins = {i.name: i for i in hlo.hlo_module.computations[0].instructions}
    by_id = {i.id: i for i in ins.values()}
    rows = []
    for key in sorted({t[:3] for t in trows}):
        grp = sorted((t for t in trows if t[:3] == key), key=lambda t: t[4])
        for idx, t in enumerate(grp):
            if not t[7]:
                continue
            hidden, full = t[8], t[5] + t[8]
            c = ins[t[3]]
            size = len(c.replica_groups[0].replica_ids)
            msg = sum(math.prod(by_id[o].shape.dimensions) * BITS[by_id[o].shape.element_type] // 8
                      for o in c.operand_ids)
            busbw = msg / full * 2 * (size - 1) / size  # all-reduce: BwCorr 1, BusCorr 2(n-1)/n
            rows.append({"key": (t[0], t[1], idx), "dev": t[2], "start": t[4], "full": full,
                         "hidden": hidden, "msg": msg, "size": size, "busbw": busbw})
    ndev = 1 + max(m[2] for m in mrows)
    corr = [0.0] * ndev
    if rows and max(r["size"] for r in rows) == ndev:
        mean = {}
        for r in rows:
            mean.setdefault(r["key"], []).append(r["start"] + r["full"])
        skew = {d: sorted(r["start"] + r["full"] - sum(mean[r["key"]]) / len(mean[r["key"]])
                          for r in rows if r["dev"] == d) for d in range(ndev)}
        for d, v in skew.items():
            corr[d] = (v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2) if v else 0.0
    inst = {}
    for r in rows:
        inst.setdefault(r["key"], []).append(r)
    out = []
    for key, rs in sorted(inst.items()):
        first = min(r["start"] - corr[r["dev"]] for r in rs)
        last = max(r["start"] - corr[r["dev"]] + r["full"] for r in rs)
        out.append({"key": key, "devices": len(rs), "message_bytes": min(r["msg"] for r in rs),
                    "collective_size": rs[0]["size"], "busbw": max(r["busbw"] for r in rs),
                    "wait_ns": last - first - min(r["full"] for r in rs)})
    hidden = sum(r["hidden"] for r in rows)
    exposed = sum(r["full"] - r["hidden"] for r in rows)
    return out, corr, hidden, exposed


def synth_check(profq, pb2, hlo_pb2, tmp):
    path = os.path.join(tmp, "synth_2gpu_allreduce.xplane.pb")
    sp = synth_space(pb2, hlo_pb2)
    with open(path, "wb") as f:
        f.write(sp.SerializeToString())
    mrows, trows = rows(sp, hlo_pb2)
    want, corr, hidden, exposed = synth_expected(mrows, trows, synth_hlo(hlo_pb2))
    r = subprocess.run([profq, "nsys", "--format", "json", path], capture_output=True, text=True)
    if r.returncode != 0:
        return [f"synthetic: exit {r.returncode}: {r.stderr.strip()}"]
    g = json.loads(r.stdout, object_pairs_hook=unique_keys)
    bad = check_json(g, expected(mrows, trows))
    got = g["collective_instances"]
    if len(got) != len(want) or len(want) != 2:
        return bad + [f"synthetic: {len(got)} instances != {len(want)} (want 2)"]
    for w, x in zip(want, got):
        have = (int(x["program_id"]), x["execution"], x["thunk_index"], x["devices"],
                x["message_bytes"], x["collective_size"], x["collective"])
        if have != w["key"] + (w["devices"], w["message_bytes"], w["collective_size"],
                               "all-reduce"):
            bad.append(f"synthetic instance {have} != {w}")
        if not close(x["busbw_gbps"], w["busbw"], 1e-6) or not close(x["wait_ms"],
                                                                     w["wait_ns"] / 1e6, 1e-6):
            bad.append(f"synthetic busbw/wait {x['busbw_gbps']}/{x['wait_ms']} != "
                       f"{w['busbw']}/{w['wait_ns'] / 1e6}")
    al = g["alignment"]
    if not al["aligned"] or any(not close(a, b, 1e-9) for a, b in zip(al["corrections_ns"], corr)):
        bad.append(f"synthetic alignment {al} != corrections {corr}")
    rt = g["runtime"]
    if not close(rt["comm_hidden_ms"], hidden / 1e6) or not close(rt["comm_exposed_ms"],
                                                                    exposed / 1e6):
        bad.append(f"synthetic hidden/exposed {rt['comm_hidden_ms']}/{rt['comm_exposed_ms']} != "
                   f"{hidden / 1e6}/{exposed / 1e6}")
    if not any(m["wait_share"] is not None for m in g["modules"]):
        bad.append("synthetic: no wait_share on a module with communication")
    print(f"xplane_comm: synthetic 2-GPU all-reduce: {len(want)} instances, "
          f"{want[0]['message_bytes']} B, corrections {corr}: {'ok' if not bad else 'DIFFER'}")
    return bad


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300) or abs(a - b) < 1e-12


def check(profq, arg, e):
    r = subprocess.run([profq, "nsys", "--format", "json", arg], capture_output=True, text=True)
    if r.returncode != 0:
        return [f"exit {r.returncode}: {r.stderr.strip()}"]
    return check_json(json.loads(r.stdout, object_pairs_hook=unique_keys), e)


def check_json(g, e):
    bad = []
    for f in ("all", "steady"):
        if g["frames"][f]["communication_rows"] != e["comm_rows"]:
            bad.append(f"frames.{f}.communication_rows {g['frames'][f]['communication_rows']} "
                       f"!= {e['comm_rows']}")
    rt = g["runtime"]
    for k, want in (("thunks_ms", e["thunks_ms"]), ("modules_ms", e["modules_ms"]),
                    ("wall_ms", e["wall_ms"]), ("idle_in_modules_ms", e["idle_in"]),
                    ("idle_between_modules_ms", e["idle_between"])):
        if not close(rt[k], want):
            bad.append(f"runtime.{k} {rt[k]} != {want}")
    got_thunks = {(t["program_id"], t["name"]): t["total_ms"] for t in g["thunks"]}
    if set(got_thunks) != set(e["per_thunk"]):
        bad.append(f"thunks: {sorted(set(got_thunks) ^ set(e['per_thunk']))[:5]} differ")
    for k, ns in e["per_thunk"].items():
        if k in got_thunks and not close(got_thunks[k], ns / 1e6):
            bad.append(f"thunk {k}: {got_thunks[k]} != {ns / 1e6}")
    got_ops = {o["opcode"]: o for o in g["opcodes"]}
    if set(got_ops) != set(e["per_op"]):
        bad.append(f"opcodes {sorted(got_ops)} != {sorted(e['per_op'])}")
    for op, ns in e["per_op"].items():
        o = got_ops.get(op)
        if o and not (close(o["total_ms"], ns / 1e6) and close(o["share"], ns / e["modules_ns"])):
            bad.append(f"opcode {op}: {o['total_ms']} ms share {o['share']} != {ns / 1e6}")
    n_inst = len(g.get("collective_instances", []))
    if e["comm_rows"] == 0 and (n_inst or g["collectives"]):
        bad.append(f"collectives: {n_inst} instance(s) where no thunk is communication")
    if e["comm_rows"] and not n_inst:
        bad.append("collectives: no instance although communication thunks exist")
    # The thunk totals and opcodes above subtract nothing: overlap is subtracted from
    # communication thunks, checked (hidden/exposed) by synth_check.
    v = g["variability"]
    if (v["groups"], v["over_threshold"]) != (e["var_groups"], e["var_over"]):
        bad.append(f"variability {v['groups']}/{v['over_threshold']} != "
                   f"{e['var_groups']}/{e['var_over']}")
    un = g.get("unavailable", {}).get("sections")
    if un != ["bias", "compile", "heap", "flame"]:
        bad.append(f"unavailable.sections {un}")
    if "bias" in g or "compile" in g:
        bad.append("bias or compile present on an XPlane")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--archive", required=True, help="an nsys-jax archive carrying XLA's protos")
    a = ap.parse_args()
    failures, seen = 0, []
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "x"))
        pb2 = xplane_counts.compile_schema(os.path.join(tmp, "x"))
        hlo_pb2, _ = hloproto.load(a.archive, os.path.join(tmp, "h"))
        if hlo_pb2 is None:
            print("xplane_comm: FAIL: the archive's XLA protos do not compile")
            return 1
        for entry, full, files in xplane_nsys.profiles(a.data):
            mrows, trows = [], []
            for path in files:
                space = pb2.XSpace()
                with open(path, "rb") as f:
                    space.ParseFromString(f.read())
                m, t = rows(space, hlo_pb2)
                base = 1 + max([r[2] for r in mrows], default=-1)
                mrows += [(r[0], r[1], r[2] + base) + r[3:] for r in m]
                trows += [(r[0], r[1], r[2] + base) + r[3:] for r in t]
            if not mrows:
                continue
            seen.append(full)
            e = expected(mrows, trows)
            bad = check(a.profq, full, e)
            print(f"xplane_comm: {entry}: {len(mrows)} module rows, {len(trows)} thunks, "
                  f"{e['comm_rows']} communication, {len(e['per_op']) - 1} opcode(s), "
                  f"{e['var_over']}/{e['var_groups']} variable: {'ok' if not bad else 'DIFFER'}")
            for b in bad[:10]:
                print(f"  {b}")
            failures += bool(bad)
        if not seen:
            print("xplane_comm: no GPU XPlane with XLA kernels under", a.data)
            return 1
        bad = synth_check(a.profq, pb2, hlo_pb2, tmp)
        for b in bad[:10]:
            print(f"  {b}")
        failures += bool(bad)
        r = subprocess.run([a.profq, "nsys", "--section", "compile", seen[0]], capture_output=True,
                           text=True)
        if r.returncode != 3 or "nsys-jax archive" not in r.stderr:
            print(f"  --section compile: want exit 3, got {r.returncode}: {r.stderr!r}")
            failures += 1
    print(f"xplane_comm: {len(seen)} GPU profile(s), {'FAIL' if failures else 'all equal'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
