"""Writes the seed corpus of the HloProto fuzz target (fuzz/corpus/hlo): small HloProtos
built byte by byte (XProf's worked example, a SHARE_WITH chain, nested tuple shapes with
tiled layouts and a stack frame index). Deterministic; run from the repository root:
    python3 fuzz/make_hlo_seeds.py
"""
import os


from pbwrite import fl as f_len, fv as f_int


def shape(t, dims=(), layout=None, tup=()):
    s = f_int(2, t) + b"".join(f_int(3, d) for d in dims) + b"".join(f_len(4, x) for x in tup)
    if layout is not None:
        s += f_len(5, layout)
    return s


def layout(m2m, tiles=(), space=0):
    b = b"".join(f_int(1, x) for x in m2m)
    b += b"".join(f_len(6, b"".join(f_int(1, d) for d in t)) for t in tiles)
    if space:
        b += f_int(8, space)
    return b


def instr(name, iid, shp, op_name="jit(f)/op", frame=0):
    md = f_len(2, op_name) + (f_int(15, frame) if frame else b"")
    return f_len(1, name) + f_len(2, "fusion") + f_len(3, shp) + f_len(7, md) + f_int(35, iid)


def lb(i, size, ins, index=()):
    loc = f_int(4, ins) + b"".join(f_int(3, x) for x in index)
    return f_int(1, i) + f_int(2, size) + f_len(3, loc)


def alloc(index, size, assigned, **flags):
    b = f_int(1, index) + f_int(2, size)
    for k, n in (("thread_local", 3), ("param", 5), ("live_out", 7), ("constant", 12)):
        if flags.get(k):
            b += f_int(n, 1)
    if flags.get("color"):
        b += f_int(8, flags["color"])
    for (l, s) in assigned:
        b += f_len(9, f_int(1, l) + f_int(3, s))
    return b


def trace(events):
    b = b""
    for kind, bid, share in events:
        e = f_int(1, kind) + f_int(2, bid) + f_len(4, "fusion")
        if kind == 2:
            e += f_int(5, share)
        b += f_len(1, e)
    return b


def module(instrs, stack=b""):
    comp = f_len(1, "main") + b"".join(f_len(2, i) for i in instrs)
    m = f_len(1, "jit_f") + f_len(2, "main") + f_len(3, comp) + f_int(5, 7)
    if stack:
        m += f_len(17, stack)
    return m


def hlo(mod, lbs, allocs, traces):
    ba = b"".join(f_len(1, x) for x in lbs) + b"".join(f_len(3, x) for x in allocs)
    ba += b"".join(f_len(4, t) for t in traces)
    return f_len(1, mod) + f_len(3, ba)


u64t = shape(13, tup=[shape(9)])
tiled = shape(11, (8, 256), layout((1, 0), [(8, 128)]))
seeds = {
    "worked_example": hlo(
        module([instr("a", 1, u64t), instr("b", 2, u64t), instr("c", 3, u64t)]),
        [lb(1, 524288, 1), lb(2, 524288, 2), lb(3, 1048576, 3)],
        [alloc(0, 1048576, [(1, 524288), (2, 524288)]),
         alloc(1, 1048576, [(3, 1048576)], constant=1)],
        [trace([(0, 1, 0), (2, 2, 1), (1, 1, 0), (1, 2, 0)])]),
    "share_chain": hlo(
        module([instr("a", 1, u64t), instr("b", 2, u64t), instr("c", 3, u64t)]),
        [lb(1, 524288, 1), lb(2, 524288, 2), lb(3, 524288, 3)],
        [alloc(0, 1048576, [(1, 524288), (2, 524288), (3, 524288)])],
        [trace([(0, 1, 0), (2, 2, 1), (1, 1, 0), (1, 2, 0), (2, 3, 2), (1, 3, 0)])]),
    "tuples_params_stack": hlo(
        module([instr("p", 1, shape(13, tup=[tiled, tiled, shape(16, (4,), layout((0,), space=1))])),
                instr("f", 2, tiled, "params['w']", frame=2)],
               stack=f_len(1, "model.py") + f_len(2, "f") +
               f_len(3, f_int(1, 1) + f_int(2, 1) + f_int(3, 12) + f_int(4, 3)) +
               f_len(4, f_int(1, 1)) + f_len(4, f_int(1, 1) + f_int(2, 1))),
        [lb(1, 65536, 1, (0,)), lb(2, 65536, 1, (1,)), lb(3, 8192, 2), lb(4, 64, 1, (2,))],
        [alloc(0, 131072, [(1, 65536), (2, 65536)], param=1),
         alloc(1, 65536, [(3, 8192)]),
         alloc(2, 64, [(4, 64)], color=1, thread_local=1)],
        [trace([(0, 3, 0), (1, 3, 0)])]),
}
out = os.path.join("fuzz", "corpus", "hlo")
os.makedirs(out, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(out, name + ".hlo_proto.pb"), "wb") as f:
        f.write(data)
