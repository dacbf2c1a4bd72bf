"""Writes a small nsys-jax archive whose HLO dump carries <script> in its metadata, for the
headless-browser check of `profq nsys --format svg` (tests/browser/nsys_svg.sh).

Two devices (TIDs 201, 202) run program 5 (jit_f) four times; each execution has a compute
thunk fusion.1 and a communication thunk all-gather-start.3. The after-optimisation dump
dump/module_0005.jit_f.sm_9.0_gpu_after_optimizations.hlo.pb.xz is a hand-encoded HloProto
(field numbers of the archive's protos/xla/service/hlo.proto): a parameter f32[1024], the
all-gather-start over replica group {0,1} (channel 1) whose op_name holds
<script>alert(1)</script>, and the fusion. Usage: xss_archive.py OUT.zip
"""
import io
import lzma
import sys
import zipfile

import pyarrow as pa
import pyarrow.parquet as pq

SCRIPT = "<script>alert(1)</script>"


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(num, payload):
    """A length-delimited field (bytes or str payload)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vfield(num, v):
    return varint(num << 3) + varint(v)


def shape(element_type, dims, memory_space=0):
    layout = b"".join(vfield(1, i) for i in reversed(range(len(dims))))
    if memory_space:
        layout += vfield(8, memory_space)
    return vfield(2, element_type) + b"".join(vfield(3, d) for d in dims) + field(5, layout)


def instruction(name, opcode, iid, shp, operands=(), op_name="", channel=0, groups=(),
                called=(), iota=None):
    s = field(1, name) + field(2, opcode) + field(3, shp)
    if op_name:
        s += field(7, field(1, opcode) + field(2, op_name))
    if channel:
        s += vfield(26, channel)
    s += vfield(35, iid)
    for o in operands:
        s += vfield(36, o)
    for c in called:
        s += vfield(38, c)
    for g in groups:
        s += field(49, b"".join(vfield(1, r) for r in g))
    if iota:  # collective_device_list { iota_replica_group_list { groups, per group } }
        s += field(87, field(2, vfield(1, iota[0]) + vfield(2, iota[1])))
    return s


def hlo_dump():
    f32 = 11
    insts = [
        instruction("p0", "parameter", 1, shape(f32, [1024])),
        instruction("all-gather-start.3", "all-gather-start", 2, shape(f32, [2048]),
                    operands=[1], op_name="jit(f)/" + SCRIPT, channel=1, groups=[[0, 1]]),
        instruction("fusion.1", "fusion", 3, shape(f32, [1024]), operands=[1],
                    op_name=SCRIPT + "/fusion"),
    ]
    comp = field(1, "main") + b"".join(field(2, i) for i in insts) + vfield(5, 1) + vfield(6, 3)
    module = field(1, "jit_f") + field(2, "main") + field(3, comp) + vfield(5, 5) + vfield(6, 1)
    return field(1, module)


def trace_parquet(ops=("fusion.1", "all-gather-start.3")):
    rows = []

    def add(name, tid, parent, lvl, start, dur):
        rid = len(rows) + 1
        rows.append(dict(Name=name, PS=start, PD=dur, OS=float(start), OD=float(dur), TID=tid,
                         Ops=2, Lvl=float(lvl), Rid=float(rid),
                         Par=None if parent is None else float(parent), Stack=f":{rid}"))
        return rid

    for ex in range(4):
        for k, tid in enumerate((201, 202)):
            t0 = 1_000_000 * (ex + 1) + 500 * k
            m = add("TSL:XlaModule:#hlo_module=jit_f,program_id=5#", tid, None, 0, t0, 90_000)
            for j, op in enumerate(ops):  # the first overlaps the second
                add(f"TSL:Thunk:#hlo_op={op}#", tid, m, 1, t0 + 1_000 + 19_000 * j,
                    30_000 + 1_000 * ex if j == 0 else 10_000 + 3_000 * k)
    n = len(rows)
    col = lambda k: [r[k] for r in rows]  # noqa: E731
    table = pa.table({
        "Name": pa.array(col("Name"), pa.string()),
        "Projected Start": pa.array(col("PS"), pa.int64()),
        "Projected Duration": pa.array(col("PD"), pa.int64()),
        "Orig Start": pa.array(col("OS"), pa.float64()),
        "Orig Duration": pa.array(col("OD"), pa.float64()),
        "Style": pa.array(["PushPop"] * n, pa.string()),
        "PID": pa.array([77] * n, pa.int64()),
        "TID": pa.array(col("TID"), pa.int64()),
        "NumGPUOps": pa.array(col("Ops"), pa.int64()),
        "Lvl": pa.array(col("Lvl"), pa.float64()),
        "NumChild": pa.array([0] * n, pa.int64()),
        "RangeId": pa.array(col("Rid"), pa.float64()),
        "ParentId": pa.array(col("Par"), pa.float64()),
        "RangeStack": pa.array(col("Stack"), pa.string()),
        "Rank": pa.array([0] * n, pa.int64()),
    })
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="snappy")
    return buf.getvalue()


CSV = ("Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
       "NumChild,RangeId,ParentId,RangeStack,NameTree\n"
       "10,900,890,0,890,\"TSL:XlaCompile:#module=jit_g#\",77,100,0,0,1,,:1,"
       "\"TSL:XlaCompile:#module=jit_g#\"\n")


def write_archive(path, dump, ops=("fusion.1", "all-gather-start.3")):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("nvtx_gpu_proj_trace/trace.parquet", trace_parquet(ops))
        z.writestr("report_nvtx_pushpop_trace.csv.xz", lzma.compress(CSV.encode()))
        z.writestr("dump/module_0005.jit_f.sm_9.0_gpu_after_optimizations.hlo.pb.xz",
                   lzma.compress(dump))


if __name__ == "__main__":
    write_archive(sys.argv[1], hlo_dump())
