#!/usr/bin/env python3
"""Writes the hand-made seed inputs of fuzz/corpus/xspace (small XSpaces, one idea each).

Synthesized from the field numbers of spec/xprof-tools.md section 1, with a tiny protobuf
writer (stdlib only), so the corpus holds no third-party data. Deterministic: running it
again rewrites the same bytes.   python3 fuzz/make_seeds.py [OUTDIR]
"""
import os
import sys

from pbwrite import f32, fd, fl, fv, varint


# XStat: metadata_id 1, double 2, uint64 3, int64 4, str 5, bytes 6, ref 7
def stat(mid, kind, v):
    num, write = STAT_VALUE[kind]
    return fv(1, mid) + write(num, v)


STAT_VALUE = {"d": (2, fd), "u": (3, fv), "i": (4, fv), "s": (5, fl), "b": (6, fl), "r": (7, fv)}


def event(mid, off, dur, stats=(), occ=None):
    body = fv(1, mid)
    body += fv(5, occ) if occ is not None else fv(2, off)
    body += fv(3, dur)
    for s in stats:
        body += fl(4, s)
    return body


def line(lid, name, ts_ns, events, display_name=None, display_id=None, dur_ps=None):
    body = fv(1, lid) + fl(2, name) + fv(3, ts_ns)
    if dur_ps is not None:
        body += fv(9, dur_ps)
    if display_id is not None:
        body += fv(10, display_id)
    if display_name is not None:
        body += fl(11, display_name)
    for e in events:
        body += fl(4, e)
    return body


def emeta(mid, name, display_name=None, stats=(), children=(), packed=True, metadata=None):
    body = fv(1, mid) + fl(2, name)
    if metadata is not None:
        body += fl(3, metadata)
    if display_name is not None:
        body += fl(4, display_name)
    for s in stats:
        body += fl(5, s)
    if children:
        if packed:
            body += fl(6, b"".join(varint(c) for c in children))
        else:
            body += b"".join(fv(6, c) for c in children)
    return body


def smeta(mid, name, description=None):
    body = fv(1, mid) + fl(2, name)
    if description is not None:
        body += fl(3, description)
    return body


def entry(key, value):  # map<int64, Msg> entry
    return fv(1, key) + fl(2, value)


def plane(pid, name, lines=(), emetas=(), smetas=(), stats=()):
    body = fv(1, pid) + fl(2, name)
    for ln in lines:
        body += fl(3, ln)
    for key, m in emetas:
        body += fl(4, entry(key, m))
    for key, m in smetas:
        body += fl(5, entry(key, m))
    for s in stats:
        body += fl(6, s)
    return body


def space(planes=(), hostnames=("host0",), errors=(), warnings=()):
    body = b""
    for p in planes:
        body += fl(1, p)
    for e in errors:
        body += fl(2, e)
    for w in warnings:
        body += fl(3, w)
    for h in hostnames:
        body += fl(4, h)
    return body


def stat_table(names, first=1):
    ids = {n: first + i for i, n in enumerate(names)}
    return ids, [(i, smeta(i, n)) for n, i in ids.items()]


def hlo_proto(name, module_id, ncomp=1):
    comps = b"".join(fl(3, fl(1, "comp.%d" % k) + fv(5, k + 1)) for k in range(ncomp))
    module = fl(1, name) + fl(2, "main") + comps + fv(5, module_id)
    return fl(1, module)


CAPS = ["peak_teraflops_per_second", "peak_hbm_bw_gigabytes_per_second", "memory_size",
        "clock_rate", "core_count", "memory_bandwidth", "device_type_string",
        "peak_vmem_rd_bw_gigabytes_per_second"]
OPSTATS = ["program_id", "symbol_id", "flops", "bytes_accessed", "hlo_category", "tf_op",
           "run_id", "group_id", "step_num", "hlo_module", "kLoop", "fusion", "jit_step/dot"]


def tpu_plane(ordinal, nops=4):
    ids, smetas = stat_table(CAPS + OPSTATS)
    pstats = [stat(ids["peak_teraflops_per_second"], "d", 197.0),
              stat(ids["peak_hbm_bw_gigabytes_per_second"], "d", 819.0),
              stat(ids["memory_size"], "u", 17179869184),
              stat(ids["clock_rate"], "i", 1050000),
              stat(ids["core_count"], "u", 1),
              stat(ids["memory_bandwidth"], "u", 819000000000),
              stat(ids["device_type_string"], "s", "TPU v5 lite"),
              stat(ids["peak_vmem_rd_bw_gigabytes_per_second"], "d", 0.0)]
    emetas = [(1, emeta(1, "jit_step(7)", "jit_step", [stat(ids["program_id"], "u", 7)]))]
    for k in range(nops):
        mid = 10 + k
        emetas.append((mid, emeta(
            mid, "%%fusion.%d = f32[8,128]{1,0} fusion(%%p0), kind=kLoop" % k, "fusion.%d" % k,
            [stat(ids["program_id"], "u", 7), stat(ids["symbol_id"], "u", k + 1),
             stat(ids["flops"], "u", 1000 * (k + 1)), stat(ids["bytes_accessed"], "u", 4096),
             stat(ids["hlo_category"], "s" if k % 2 else "r",
                  "convolution" if k % 2 else ids["fusion"]),
             stat(ids["tf_op"], "r" if k % 2 else "s",
                  ids["jit_step/dot"] if k % 2 else "jit_step/add")],
            children=[mid + 100] if k == 0 else ())))
    emetas.append((2, emeta(2, "step 0")))
    ts = 1000000  # ns since the session start (XProf normalizes)
    modules = line(1, "XLA Modules", ts, [
        event(1, 0, 5000000, [stat(ids["run_id"], "i", 42), stat(ids["hlo_module"], "s", "jit_step")]),
        event(1, 6000000, 5000000, [stat(ids["run_id"], "i", 43)])])
    ops = line(2, "XLA Ops", ts, [event(10 + (k % nops), 400000 * k, 350000, [])
                                   for k in range(3 * nops)])
    steps = line(3, "Steps", ts, [event(2, 0, 11000000, [stat(ids["group_id"], "i", 0),
                                                          stat(ids["step_num"], "i", 0)])])
    return plane(ordinal, "/device:TPU:%d" % ordinal, [steps, modules, ops], emetas, smetas, pstats)


def host_plane(nthreads=3, nevents=4):
    ids, smetas = stat_table(["group_id", "step_num", "_r", "_ct", "correlation_id",
                              "allocator_name", "bytes_allocated", "fragmentation",
                              "region_type", "output", "tf_op"])
    emetas = [(1, emeta(1, "ExecutorState::Process")), (2, emeta(2, "TraceMe")),
              (3, emeta(3, "MemoryAllocation")), (4, emeta(4, "MemoryDeallocation")),
              (5, emeta(5, "PjitFunction(step)"))]
    lines = []
    ts = 1000000  # ns since the session start (XProf normalizes)
    for t in range(nthreads):
        evs = []
        for k in range(nevents):
            evs.append(event(1 + (k % 5), 2000 * k, 1500, [
                stat(ids["group_id"], "i", k // 2),
                stat(ids["step_num"], "i", k),
                stat(ids["region_type"], "r", ids["output"]),
                stat(ids["fragmentation"], "d", 0.25 * k),
                stat(ids["bytes_allocated"], "u", 256 * k),
                stat(ids["allocator_name"], "s", "GPU_0_bfc")]))
        lines.append(line(1000 + t, "python3" if t == 0 else "tf_pool/%d" % t, ts + t, evs))
    return plane(2, "/host:CPU", lines, emetas, smetas)


def metadata_plane(legacy=False, n=2, with_pid=True):
    name = "HLO Proto" if legacy else "Hlo Proto"
    ids, smetas = stat_table([name, "program_id"])
    emetas = []
    for k in range(n):
        pid = 100 + k
        st = [stat(ids[name], "b", hlo_proto("jit_f%d" % k, pid, 1 + k))]
        if with_pid and not legacy:
            st.append(stat(ids["program_id"], "u", pid))
        key = pid if legacy else k + 1
        emetas.append((key, emeta(key, "jit_f%d(%d)" % (k, pid), None if legacy else
                                  "jit_f%d(%d)" % (k, pid), st)))
    return plane(3, "/host:metadata", [], emetas, smetas)


def gpu_plane():
    ids, smetas = stat_table(["clock_rate", "core_count", "memory_bandwidth", "memory_size",
                              "compute_cap_major", "compute_cap_minor", "device_vendor",
                              "correlation_id", "kernel_details", "hlo_op", "hlo_module",
                              "stream"])
    pstats = [stat(ids["clock_rate"], "u", 1980000), stat(ids["core_count"], "u", 132),
              stat(ids["memory_bandwidth"], "u", 3350000000000),
              stat(ids["memory_size"], "u", 85899345920),
              stat(ids["compute_cap_major"], "i", 9), stat(ids["compute_cap_minor"], "i", 0),
              stat(ids["device_vendor"], "s", "Nvidia")]
    emetas = [(1, emeta(1, "loop_add_fusion")), (2, emeta(2, "MemcpyH2D"))]
    ts = 1000000  # ns since the session start (XProf normalizes)
    lines = [line(7, "Stream #7(Compute)", ts, [
        event(1, 10, 20, [stat(ids["correlation_id"], "u", 5),
                          stat(ids["kernel_details"], "s", "regs:32 grid:1,1,1 block:128,1,1"),
                          stat(ids["hlo_op"], "s", "add.1"),
                          stat(ids["hlo_module"], "s", "jit_f(3)")]),
        event(2, 40, 5, [stat(ids["correlation_id"], "u", 6)])]),
        line(0xdeadbeef, "Steps", ts, [event(1, 0, 100)], display_name="Steps")]
    return plane(4, "/device:GPU:0", lines, emetas, smetas, pstats)


def odd_encodings():
    """Legal but unusual encodings a reader must take: unknown fields of every wire type,
    known fields with unexpected wire types, unpacked child_id, map entries missing their
    key or value, duplicate keys (the last wins), sparse and negative ids, value-less
    stats, aggregated events (num_occurrences), ten-byte negative varints."""
    ids, smetas = stat_table(["a", "b", "c"], first=1 << 40)
    smetas.append((-5, smeta(-5, "negative")))
    smetas.append((1 << 40, smeta(1 << 40, "a_again", "the later duplicate wins")))
    em = emeta(7, "op", "op", [stat(ids["a"], "u", 1), fv(1, ids["b"])],
               children=[1, 2, 300], packed=False)
    em += fv(99, 1) + fd(98, 1.5) + f32(97, 7) + fl(96, b"\x00\x01")  # unknown fields
    emetas = [(7, em), (1 << 50, emeta(1 << 50, "sparse", children=[5, 6], packed=True))]
    pl = plane(-1, "/device:TPU:0", [], emetas, smetas)
    pl += fl(4, fl(2, emeta(0, "no key"))) + fl(4, fv(1, 9))  # entry w/o key; entry w/o value
    pl += fl(5, b"")  # empty stat_metadata entry
    pl += f32(1, 3) + fv(2, 5) + fv(3, 1)  # known fields, wrong wire types: skipped
    pl += fl(6, stat(ids["c"], "i", -1))  # negative int64: ten-byte varint
    pl += fl(6, fv(1, -5))  # stat with no value
    ts = 1000
    ln = line(-3, "XLA Ops", ts, [
        event(7, 0, 10, [stat(ids["a"], "r", -5)]),
        event(7, 0, 10, [], occ=1000),
        event(7, (1 << 40), 1, [stat(ids["b"], "d", float("inf")), stat(ids["b"], "d", float("nan"))]),
        event(12345, 5, 0, [stat(999, "s", "unknown stat id")]),
    ], display_name="", display_id=0, dur_ps=1 << 40)
    ln += fl(12, b"zz") + fv(5, 1) + f32(6, 1)  # reserved/unknown line fields
    pl += fl(3, ln) + fl(3, b"")  # and an empty line
    return space([pl, plane(9, "/device:TPU:0 SparseCore 0"), plane(10, "#Chip 0 HBM"),
                  plane(11, "/device:CUSTOM:MOSAIC:1"), plane(12, "/host:CUPTI"),
                  plane(13, "")],
                 hostnames=("", "second"), errors=("profiler error",),
                 warnings=("w1", "w2")) + fv(5, 1) + fl(6, b"x")


def seeds():
    return {
        "empty_space.xplane.pb": space(planes=(), hostnames=()) + fl(4, ""),
        "one_plane.xplane.pb": space([plane(1, "/device:TPU:0")]),
        "tpu_device.xplane.pb": space([tpu_plane(0)]),
        "tpu_two_chips.xplane.pb": space([tpu_plane(0, 2), tpu_plane(1, 3), metadata_plane()]),
        "host_cpu.xplane.pb": space([host_plane()]),
        "host_metadata.xplane.pb": space([metadata_plane(n=3)]),
        "host_metadata_legacy.xplane.pb": space([metadata_plane(legacy=True)]),
        "host_metadata_no_pid.xplane.pb": space([metadata_plane(n=2, with_pid=False),
                                                 metadata_plane(n=1)]),
        "gpu_device.xplane.pb": space([gpu_plane(), host_plane(1, 2)]),
        "odd_encodings.xplane.pb": odd_encodings(),
        # Epoch nanoseconds overflow int64 picoseconds: rejected with an offset.
        "epoch_timestamp.xplane.pb": space([plane(1, "/host:CPU", [
            line(1, "t", 1700000000000000000, [event(1, 0, 1)])], [(1, emeta(1, "e"))])]),
        "full_small.xplane.pb": space([metadata_plane(), tpu_plane(0, 3), host_plane(2, 3),
                                       gpu_plane()]),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                             "corpus", "xspace")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print("%6d %s" % (len(data), name))


if __name__ == "__main__":
    main()
