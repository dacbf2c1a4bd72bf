"""Writes the seed corpus of the nsys-jax HLO dump fuzz target (fuzz/corpus/nsyshlo, see
fuzz/fuzz_nsyshlo.c: the first byte odd = an xz member as stored, even = an HloProto the
target compresses):
- the small after-optimisation dumps of the shared archive
  ../shared/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip (under 64 KiB each; the two large
  ones are left out), as stored (xz) and one of them decompressed;
- a generated HloProto with the collectives the communication rules look at (all-gather-start
  with replica groups and a channel, a fusion calling an all-reduce with an iota device
  list, a fusion calling a host-offload dynamic-slice), built byte by byte (fuzz/pbwrite.py).
Deterministic; run from the repository root: python3 fuzz/make_nsyshlo_seeds.py
"""
import lzma
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwrite import fl, fv  # noqa: E402

ARCHIVE = os.path.join("..", "shared", "data", "nsys", "nsys-jax_h100_maxtext_fsdp4.zip")
SUFFIX = "_gpu_after_optimizations.hlo.pb.xz"
LIMIT = 64 << 10
F32 = 11


def shape(dims, space=0):
    s = fv(2, F32) + b"".join(fv(3, d) for d in dims)
    return s + (fl(5, fv(1, 0) + fv(8, space)) if space else b"")


def inst(name, iid, opcode, shp, operands=(), called=(), extra=b""):
    b = fl(1, name) + fl(2, opcode) + fl(3, shp) + fl(7, fl(2, "jit(f)/" + name)) + fv(35, iid)
    b += b"".join(fv(36, o) for o in operands) + b"".join(fv(38, c) for c in called)
    return b + extra


def comp(name, cid, insts, root):
    return fl(1, name) + b"".join(fl(2, i) for i in insts) + fv(5, cid) + fv(6, root)


def collectives():
    groups = fl(49, b"".join(fv(1, r) for r in range(4)))
    fused = comp("fused_all_reduce", 2, [
        inst("param.0", 10, "parameter", shape([16])),
        inst("all-reduce.1", 11, "all-reduce", shape([16]), [10],
             extra=fv(26, 2) + fl(87, fl(2, fv(1, 1) + fv(2, 4)))),
    ], 11)
    offload = comp("fused_offload", 3, [
        inst("param.1", 20, "parameter", shape([16])),
        inst("dynamic-slice.1", 21, "dynamic-slice", shape([4], space=5), [20]),
    ], 21)
    main = comp("main", 1, [
        inst("p0", 1, "parameter", shape([16])),
        inst("all-gather-start.4", 2, "all-gather-start", shape([64]), [1],
             extra=fv(26, 1) + groups),
        inst("all-gather-done.4", 3, "all-gather-done", shape([64]), [2]),
        inst("fusion.2", 4, "fusion", shape([16]), [1], [2]),
        inst("offload", 5, "fusion", shape([4], space=5), [1], [3]),
    ], 4)
    module = fl(1, "jit_f") + fl(2, "main") + fl(3, fused) + fl(3, offload) + fl(3, main)
    module += fv(5, 7) + fv(6, 1)
    return fl(1, module)


def main():
    out = os.path.join("fuzz", "corpus", "nsyshlo")
    os.makedirs(out, exist_ok=True)
    seeds = {"collectives.hlo": b"\0" + collectives()}
    if os.path.exists(ARCHIVE):
        with zipfile.ZipFile(ARCHIVE) as z:
            for name in sorted(z.namelist()):
                if not name.startswith("dump/") or not name.endswith(SUFFIX):
                    continue
                data = z.read(name)
                if len(data) >= LIMIT:
                    continue
                short = name[len("dump/"):].split(".")[0]
                seeds[short + ".xz"] = b"\1" + data
                if short == "module_0013":  # the largest small one, decompressed
                    seeds[short + ".hlo"] = b"\0" + lzma.decompress(data)
    for name, data in seeds.items():
        assert len(data) < LIMIT, name
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"fuzz/corpus/nsyshlo: {len(seeds)} seeds")


main()
