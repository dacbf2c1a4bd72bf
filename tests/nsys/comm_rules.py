"""The communication rules of `profq nsys` on hand-encoded HLO dumps (tests/nsys/archive.sh;
spec/nsys-jax.md section 4; the HEAD loader's HloInstruction.communication_proto and
_get_message_size): an async-start wrapping a reduce-scatter whose group size comes from
collective_device_list's iota list (message = operand bytes / size), a fusion wrapping a
dynamic-slice from device memory into host memory space 5 (device-to-host, the result's
bytes, size 1), a dynamic-update-slice into a host buffer from a device one inside an
async-start, a collective-permute-start (size 2), an all-reduce-start over {0,1},{2,3} (size
2, bus factor 2(n-1)/n), a plain fusion (computation). Checked in profq's JSON
(collective_sizes, thunks[].communication). Usage: comm_rules.py --profq P"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from xss_archive import field, instruction, shape, vfield, write_archive  # noqa: E402

F32, BF16 = 11, 16


def computation(name, cid, insts, root):
    return field(1, name) + b"".join(field(2, i) for i in insts) + vfield(5, cid) + vfield(6, root)


def dump():
    p0 = instruction("p0", "parameter", 1, shape(F32, [1024]))  # 4096 B
    p1 = instruction("p1", "parameter", 2, shape(BF16, [512]))  # 1024 B
    host = instruction("h0", "parameter", 3, shape(F32, [256], memory_space=5))
    entry = [
        p0, p1, host,
        instruction("reduce-scatter-start.1", "async-start", 10, shape(F32, [512]), [1],
                    called=[2]),
        instruction("fusion.offload", "fusion", 11, shape(F32, [256], memory_space=5), [1],
                    called=[3]),
        instruction("dus-start.1", "async-start", 12, shape(F32, [256], memory_space=5), [3, 1],
                    called=[4]),
        instruction("collective-permute-start.1", "collective-permute-start", 13,
                    shape(BF16, [512]), [2], channel=3),
        instruction("all-reduce-start.2", "all-reduce-start", 14, shape(BF16, [512]), [2],
                    channel=4, groups=[[0, 1], [2, 3]]),
        instruction("fusion.plain", "fusion", 15, shape(F32, [1024]), [1]),
    ]
    rs = [instruction("q0", "parameter", 20, shape(F32, [1024])),
          instruction("reduce-scatter.1", "reduce-scatter", 21, shape(F32, [512]), [20],
                      channel=2, iota=(1, 2))]
    off = [instruction("r0", "parameter", 30, shape(F32, [1024])),
           instruction("ds.1", "dynamic-slice", 31, shape(F32, [256], memory_space=5), [30])]
    dus = [instruction("s0", "parameter", 40, shape(F32, [256], memory_space=5)),
           instruction("s1", "parameter", 41, shape(F32, [64])),  # 256 B copied to the host
           instruction("dus.1", "dynamic-update-slice", 42, shape(F32, [256], memory_space=5),
                       [40, 41])]
    comps = (field(3, computation("main", 1, entry, 15)) + field(3, computation("rs", 2, rs, 21))
             + field(3, computation("off", 3, off, 31)) + field(3, computation("dus", 4, dus, 42)))
    module = field(1, "jit_f") + field(2, "main") + comps + vfield(5, 5) + vfield(6, 1)
    return field(1, module)


WANT = {  # hlo_op: (collective, message bytes, collective size)
    "reduce-scatter-start.1": ("reduce-scatter", 2048, 2),
    "fusion.offload": ("device-to-host", 1024, 1),
    "dus-start.1": ("device-to-host", 256, 1),
    "collective-permute-start.1": ("collective-permute", 1024, 2),
    "all-reduce-start.2": ("all-reduce", 1024, 2),
    "fusion.plain": None,
}

ap = argparse.ArgumentParser()
ap.add_argument("--profq", required=True)
a = ap.parse_args()
failures = 0
with tempfile.TemporaryDirectory() as tmp:
    path = f"{tmp}/rules.zip"
    write_archive(path, dump(), ops=tuple(WANT))
    p = subprocess.run([a.profq, "nsys", "--format", "json", path], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print(f"FAIL profq exit {p.returncode}: {p.stderr.strip()}")
        sys.exit(1)
    doc = json.loads(p.stdout)
    comm = {t["name"]: t["communication"] for t in doc["thunks"]}
    sizes = {(s["collective"], s["message_bytes"], s["collective_size"]): s["rows"]
             for s in doc["collective_sizes"]}
    for op, want in WANT.items():
        ok = comm.get(op) == (want is not None) and (want is None or sizes.get(want) == 8)
        print(("ok   " if ok else "FAIL ") + f"{op}: {want or 'computation'} "
              f"(profq communication={comm.get(op)}, sizes {sorted(sizes)})")
        failures += not ok
    ar = next(s for s in doc["collective_sizes"] if s["collective"] == "all-reduce")
    inst = [x for x in doc["collective_instances"] if x["collective"] == "all-reduce"]
    ok = len(inst) == 4 and all(x["devices"] == 2 for x in inst) and ar["rows"] == 8
    print(("ok   " if ok else "FAIL ") + "all-reduce: 4 instances over 2 devices")
    failures += not ok
if failures:
    print(f"comm_rules: {failures} check(s) failed")
    sys.exit(1)
print("comm_rules: all checks passed")
