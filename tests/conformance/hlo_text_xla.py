"""profq's HLO instruction text (src/analysis/hlo_text.c) against XLA's own.

The JAX programs of jax_cpu_program.py (scan, while, cond, sort, gather, scatter,
concatenate, dynamic slices, dot, reductions, pad, transpose; shard_map collectives on 4 host
devices) are compiled for the CPU (XLA's optimized module: fusions,
while loops, conditionals, sort comparators); its HloModuleProto is wrapped into an HloProto
and printed by profq's driver (build/tests/hlo_text_dump), one line per instruction. XLA
prints the same module with the options XProf uses for its op expressions
(print_metadata, print_backend_config off, print_operand_shape on, print_large_constants off:
xprof/utils/hlo_module_utils.h UncachedExpression); every instruction's text must be equal.
Exit 0 all equal, 1 any differs.
"""
import re
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jax_cpu_program import ARGS, collectives, jax, program  # noqa: E402  (sets XLA_FLAGS)
from jaxlib import _hlo as H  # noqa: E402


# What profq's printer does not print (docs/internals/hlo_text.md), listed with the reason
# and taken out of both texts before the rest is compared:
KNOWN = [
    # HloSharding::ToString (iota tile assignments, replication, manual): not in XProf's GPU
    # or TPU expressions of the shared profiles, which come from optimized modules
    (re.compile(r", sharding=\{[^{}]*\}"), re.compile(r"$^"),
     "sharding= (OpSharding) not printed"),
    # XLA's newer mesh-axes replica group list (CollectiveDeviceListProto v2), which XProf
    # 2.24.2 predates; profq prints the explicit or iota lists only
    (re.compile(r", replica_groups=mesh\[[^\]]*\] \{[^{}]*\}"), re.compile(r", replica_groups=\{\}"),
     "mesh-axes replica_groups not printed"),
]


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def compare(dump, what, comp):
    mod = comp.runtime_executable().hlo_modules()[0]
    o = H.HloPrintOptions()
    o.print_metadata = False
    o.print_backend_config = False
    o.print_operand_shape = True
    o.print_large_constants = False
    xla = {}
    for line in mod.to_string(o).splitlines():
        t = line.strip()
        if t.startswith("ROOT "):
            t = t[5:]
        if t.startswith("%") and " = " in t:
            xla[t[1:t.index(" = ")]] = t
    module = mod.as_serialized_hlo_module_proto()
    with tempfile.NamedTemporaryFile(suffix=".hlo.pb") as f:
        f.write(b"\x0a" + varint(len(module)) + module)  # HloProto.hlo_module = 1
        f.flush()
        out = subprocess.run([dump, f.name], capture_output=True, text=True, check=True).stdout
    pq = dict(line.split("\t", 1) for line in out.splitlines())
    known = {}
    for k in list(xla):
        for xpat, ppat, why in KNOWN:
            if xpat.search(xla[k]):
                known.setdefault(why, []).append(k)
                xla[k] = xpat.sub("", xla[k])
                if k in pq:
                    pq[k] = ppat.sub("", pq[k])
    bad = [k for k in sorted(xla) if xla[k] != pq.get(k)]
    missing = sorted(set(xla) ^ set(pq))
    opcodes = sorted({re.search(r" ([a-z][a-z0-9-]*)\(", t).group(1) for t in xla.values()})
    print(f"hlo_text_xla: {what}: {len(xla)} instructions ({len(opcodes)} opcodes: {' '.join(opcodes)}), "
          f"{len(bad)} differ, {len(missing)} only on one side")
    for why, ks in sorted(known.items()):
        print(f"  known, not compared: {why}: {' '.join(ks)}")
    for k in bad[:20]:
        print(f"  xla   {xla[k]}\n  profq {pq.get(k)}")
    for k in missing[:10]:
        print(f"  only on one side: {k}")
    return not bad and not missing


def main():
    dump = sys.argv[1]
    ok = compare(dump, "program", jax.jit(program).lower(*ARGS["program"]).compile())
    ok = compare(dump, "collectives",
                 jax.jit(collectives).lower(*ARGS["collectives"]).compile()) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
