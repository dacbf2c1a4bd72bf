"""The peer side of bench/nsys.sh: what `profq nsys` replaces, in one process - the
archive-era nsys-jax loader (JAX-Toolbox 283578bd, ../shared/peers/nsys-jax/archive-era)
loading every frame of an extracted archive (compile, module, thunk, communication with its
HLO-based classification), aligning timestamps, splitting warm-up from steady state, then
the notebook's summaries written here over its frames: the module table and top module ids,
the compile summary (generate_compilation_statistics, the 97% cut), the runtime definitions
and thunk totals, runtime by opcode, the source and op_name flame-graph weights, the
collective instances (bus bandwidth, straggler wait), thunk variability and the heap usage
of the top modules. Prints a one-line digest so that nothing is optimised away.
The archive is extracted and its protos compiled by bench/nsys.sh before (not timed)."""
import argparse
import os
import pathlib
import sys
import types
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loader", required=True)
    ap.add_argument("--prefix", required=True, help="the extracted archive")
    ap.add_argument("--protos", required=True, help="the compiled XLA protos (python)")
    a = ap.parse_args()
    display = types.ModuleType("IPython.display")
    display.display = display.IFrame = lambda *x, **k: None
    sys.modules.setdefault("IPython", types.ModuleType("IPython"))
    sys.modules["IPython.display"] = display
    sys.path[:0] = [os.path.abspath(a.loader), os.path.abspath(a.protos)]
    import numpy as np
    from jax_nsys import (align_profiler_data_timestamps, apply_warmup_heuristics,
                          generate_compilation_statistics, load_profiler_data,
                          xla_module_metadata)

    # The loader's message sizes read the dumps relative to the working directory.
    os.chdir(a.prefix)
    prefix = pathlib.Path(".")
    data = load_profiler_data(prefix)
    data, _ = align_profiler_data_timestamps(data)
    init, steady = apply_warmup_heuristics(data)

    # Module table and top module ids (99%).
    mod = steady.module
    stats = mod.groupby("ProgramId").agg({"Name": ("count", "first"), "ProjDurNs": "sum",
                                          "NumThunks": ("mean", "std")})
    stats = stats.sort_values(("ProjDurNs", "sum"), ascending=False)
    total = stats[("ProjDurNs", "sum")].sum()
    top, seen = [], 0.0
    for pid, row in stats.iterrows():
        if seen < 0.99:
            top.append(pid)
        seen += row[("ProjDurNs", "sum")] / total

    # Compile summary.
    comp = generate_compilation_statistics(init.compile)

    def clean(n):
        return "XlaAutotunerMeasurement" if n.startswith("XlaAutotunerMeasurement") else \
            n.removesuffix(":#module=split_module#")

    summary = comp.groupby(clean).agg("sum").sort_values(by=["DurNonChildNs"], ascending=False)
    frac = summary["DurNonChildNs"] / summary["DurNonChildNs"].sum()
    passes = summary[frac.cumsum() <= 0.97]

    # Runtime definitions, thunk totals, opcodes, flame weights.
    thunks = steady.thunk.loc[top]
    tmod = steady.module.loc[top].copy()
    tmod["ProjEndNs"] = tmod["ProjStartNs"] + tmod["ProjDurNs"]
    thunk_summary = thunks.groupby(["ProgramId", "Name"]).agg({"ProjDurNs": "sum"})
    r1 = thunk_summary["ProjDurNs"].sum()
    r2 = tmod["ProjDurNs"].sum()
    dev = tmod.groupby("Device").agg({"ProjStartNs": "min", "ProjEndNs": "max"})
    r3 = (dev["ProjEndNs"] - dev["ProjStartNs"]).sum()
    op_rt, src_rt, opn_rt = defaultdict(float), defaultdict(float), defaultdict(float)
    for row in thunk_summary.itertuples():
        pid, name = row.Index
        hlo = xla_module_metadata(pid, prefix=prefix)
        _, inst = hlo.find_instruction(name)
        insts = [inst] + [i for cid in inst.called_computation_ids
                          for i in hlo.find_computation(cid).instructions]
        op_rt[inst.opcode] += row.ProjDurNs
        src, opn = set(), set()
        for i in insts:
            frames = [str(f) for f in hlo.get_stack_frames(i.metadata.stack_frame_id)]
            op = [i.metadata.op_name] if i.metadata.op_name else []
            if frames:
                src.add(tuple(["[GPU active]"] + frames + op))
            if op:
                opn.add(tuple(["[GPU active]"] + op[0].split("/")))
        for locs, dst in ((src or {("[GPU active]", "[Unknown]")}, src_rt),
                          (opn or {("[GPU active]", "[Unknown]")}, opn_rt)):
            for loc in locs:
                dst[loc] += row.ProjDurNs / len(locs)

    # Collective instances: bus bandwidth (max over devices), straggler wait.
    comm = steady.communication.copy()
    comm["Full"] = comm["ProjDurNs"] + comm["ProjDurHiddenNs"]
    comm["End"] = comm["ProjStartNs"] + comm["Full"]
    inst = comm.groupby(["Collective", "ProgramId", "ProgramExecution", "ThunkIndex"]).agg(
        {"BusBandwidthGBPerSec": "max", "MessageSize": "min", "ProjStartNs": "min",
         "Full": "min", "End": "max"})
    inst["Wait"] = inst["End"] - inst["ProjStartNs"] - inst["Full"]
    per_kind = inst.groupby("Collective").agg({"BusBandwidthGBPerSec": ("mean", "max"),
                                               "Wait": ("mean", "max")})

    # Variability of compute thunks.
    comp_t = steady.thunk.loc[~steady.thunk["Communication"], ["Name", "ProjDurNs"]]
    vs = comp_t.groupby(["ProgramId", "Name"])["ProjDurNs"].agg(("mean", "std"))
    over = (vs["std"] / vs["mean"] > 0.10).sum()

    # Heap usage of the top modules (peak of each trace).
    peaks = []
    for pid in top:
        proto = xla_module_metadata(pid, prefix=prefix).proto()
        sizes = {b.id: b.size for b in proto.buffer_assignment.logical_buffers}
        for trace in proto.buffer_assignment.heap_simulator_traces:
            users, alias, cur, peak = defaultdict(int), {}, 0, 0
            for ev in trace.events:
                if ev.kind == 1:  # FREE
                    k = alias.pop(ev.buffer_id, ev.buffer_id)
                    users[k] -= 1
                    if users[k] == 0:
                        cur -= sizes[k]
                    continue
                k = ev.share_with_canonical_id if ev.kind == 2 else ev.buffer_id
                if ev.kind == 2:
                    alias[ev.buffer_id] = k
                users[k] += 1
                if users[k] == 1:
                    cur += sizes[k]
                    peak = max(peak, cur)
            peaks.append(peak)

    print(f"top {top} passes {len(passes)} runtime {r1:.0f} {r2:.0f} {r3:.0f} "
          f"opcodes {len(op_rt)} src {len(src_rt)} op_name {len(opn_rt)} "
          f"collectives {len(per_kind)} instances {len(inst)} variability {int(over)} "
          f"heap {peaks} {np.float64(total):.0f}")


main()
