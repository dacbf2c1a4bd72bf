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
# and taken out of both texts before the rest is compared: (XLA pattern, profq pattern, why).
# Empty: shardings and mesh-axes replica groups are printed (XProf 2.24.2's graph_viewer
# prints both the same way as this jaxlib).
KNOWN = []

# Shardings and collective device lists the compiled programs do not have, written as HLO
# text, parsed by XLA (which canonicalizes them, as it does a proto it reads) and printed by
# both: tuple, maximal, replicated, manual, unknown, unreduced, explicit and iota tile
# assignments (with transposes XLA folds), last_tile_dim_replicate, last_tile_dims, shard
# groups; mesh replica groups with device ids and sub-axes.
SHARDINGS = """HloModule shardings, replica_count=1, num_partitions=8

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[8,2]{1,0} parameter(0), sharding={devices=[2,1,4]<=[2,4]T(1,0) last_tile_dims={manual}}
  q = (f32[8,2]{1,0}, f32[]) parameter(1), sharding={{replicated}, {maximal device=5}}
  c = f32[] constant(0), sharding={manual}
  r = f32[8]{0} reduce(p, c), dimensions={1}, to_apply=add, sharding={devices=[4,2]0,2,1,3,4,6,5,7 last_tile_dim_replicate shard_as 3}, frontend_attributes={x="y"}, control-predecessors={c}
  n1 = f32[8,2]{1,0} negate(p), sharding={devices=[4,2]<=[4,2]T(0,1)}
  n2 = f32[8,2]{1,0} negate(n1), sharding={devices=[2,4]<=[2,1,4]T(2,1,0)}
  n3 = f32[8,2]{1,0} negate(n2), sharding={devices=[2,2,2]<=[2,2,2]T(2,0,1)}
  n4 = f32[8,2]{1,0} negate(n3), sharding={devices=[1,2,4]<=[8] last_tile_dims={manual, replicated}}
  n5 = f32[8,2]{1,0} negate(n4), sharding={unknown shard_like 4}
  n6 = f32[8,2]{1,0} negate(n5), sharding={unreduced}
  n7 = f32[8,2]{1,0} negate(n6), sharding={replicated}
  g1 = f32[64,2]{1,0} all-gather(n7), channel_id=2, replica_groups=mesh['a'=2,'b'=4], device_ids=(7,6,5,4,3,2,1,0) {'b':(2)2,'a'}, dimensions={0}, use_global_device_ids=true
  g2 = f32[16,2]{1,0} all-gather(n7), channel_id=3, replica_groups=mesh['a'=4,'b'=2] {'b'}, dimensions={0}, use_global_device_ids=true
  ROOT t = (f32[64,2]{1,0}, f32[16,2]{1,0}, f32[8]{0}) tuple(g1, g2, r)
}
"""

# An iota replica group list (IotaReplicaGroupListProto, field 92 of the instruction),
# async collectives with XLA's syntax sugar (async-start/-done of a wrapped collective print
# as <op>-start/<op>-done with the wrapped op's attributes), a plain reduce-scatter, and
# bf16/f16 constants (printed with their own max_digits10, not f32's round trip).
ASYNC_CONSTANTS = """HloModule async_constants, replica_count=1, num_partitions=4

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  p = f32[8,2]{1,0} parameter(0)
  rs = f32[2,2]{1,0} reduce-scatter(p), channel_id=3, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  rss = ((f32[8,2]{1,0}), f32[2,2]{1,0}) reduce-scatter-start(p), channel_id=4, replica_groups={{0,1,2,3}}, use_global_device_ids=true, dimensions={0}, to_apply=add
  rsd = f32[2,2]{1,0} reduce-scatter-done(rss)
  a2a = ((f32[8,2]{1,0}), f32[8,2]{1,0}) all-to-all-start(p), channel_id=5, replica_groups={{0,1,2,3}}, dimensions={0}
  a2ad = f32[8,2]{1,0} all-to-all-done(a2a)
  ar = f32[8,2]{1,0} all-reduce(p), channel_id=6, replica_groups=[2,2]<=[2,2]T(1,0), use_global_device_ids=true, to_apply=add
  b1 = bf16[] constant(-2.379e+38)
  b2 = bf16[3]{0} constant({0.1, 0.01978, 1.5e10})
  h1 = f16[] constant(0.1)
  h2 = f16[4]{0} constant({3.14159, 1e-5, 65504, 6e-8})
  ROOT t = (f32[2,2]{1,0}, f32[2,2]{1,0}, f32[8,2]{1,0}, bf16[], bf16[3]{0}, /*index=5*/f16[], f16[4]{0}, f32[8,2]{1,0}) tuple(rs, rsd, a2ad, b1, b2, h1, h2, ar)
}
"""


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def fields(b):
    """(field number, wire type, value) of a serialized protobuf message."""
    out, i = [], 0

    def var(i):
        r = sh = 0
        while True:
            x = b[i]
            i += 1
            r |= (x & 0x7F) << sh
            sh += 7
            if x < 0x80:
                return r, i
    while i < len(b):
        k, i = var(i)
        n, w = k >> 3, k & 7
        if w == 0:
            v, i = var(i)
        elif w == 2:
            ln, i = var(i)
            v, i = b[i:i + ln], i + ln
        elif w in (1, 5):
            v, i = b[i:i + (8 if w == 1 else 4)], i + (8 if w == 1 else 4)
        else:
            raise ValueError(f"wire type {w}")
        out.append((n, w, v))
    return out


def async_hidden(mod):
    """Names of the instructions of the computations an async-start calls (XLA's async
    syntax sugar folds them into <op>-start and does not print them), from the module's
    proto: HloModuleProto.computations 3 {name 1, instructions 2 {name 1, opcode 2,
    called_computation_ids 38}, id 5}."""
    comps, called = {}, set()
    for n, w, v in fields(mod.as_serialized_hlo_module_proto()):
        if n != 3:
            continue
        cid, names = 0, []
        for n2, w2, v2 in fields(v):
            if n2 == 5:
                cid = v2
            elif n2 == 2:
                f = {k: x for k, _, x in fields(v2) if k in (1, 2)}
                names.append(f.get(1, b"").decode())
                if f.get(2) == b"async-start":
                    for k, w3, x in fields(v2):
                        if k == 38 and w3 == 0:
                            called.add(x)
                        elif k == 38 and w3 == 2:  # packed
                            j = 0
                            while j < len(x):
                                r = sh = 0
                                while True:
                                    c = x[j]
                                    j += 1
                                    r |= (c & 0x7F) << sh
                                    sh += 7
                                    if c < 0x80:
                                        break
                                called.add(r)
        comps[cid] = names
    return {name for cid in called for name in comps.get(cid, [])}


def compare(dump, what, mod):
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
    # profq's driver prints every instruction of the proto; XLA hides the computations its
    # async syntax sugar folds into <op>-start, so only those may be profq's alone
    missing = sorted(set(xla) - set(pq))
    extra = sorted(set(pq) - set(xla))
    hidden = async_hidden(mod)
    opcodes = sorted({re.search(r" ([a-z][a-z0-9-]*)\(", t).group(1) for t in xla.values()})
    print(f"hlo_text_xla: {what}: {len(xla)} instructions ({len(opcodes)} opcodes: {' '.join(opcodes)}), "
          f"{len(bad)} differ, {len(missing)} missing in profq"
          + (f", {len(extra)} in async-wrapped computations XLA does not print" if extra else ""))
    for why, ks in sorted(known.items()):
        print(f"  known, not compared: {why}: {' '.join(ks)}")
    for k in bad[:20]:
        print(f"  xla   {xla[k]}\n  profq {pq.get(k)}")
    for k in missing[:10]:
        print(f"  missing in profq: {k}")
    bad_extra = [k for k in extra if k not in hidden]
    for k in bad_extra[:10]:
        print(f"  only in profq (not in an async-wrapped computation): {k}")
    return not bad and not missing and not bad_extra


def main():
    dump = sys.argv[1]
    def compiled(f, args):
        return jax.jit(f).lower(*args).compile().runtime_executable().hlo_modules()[0]

    ok = compare(dump, "program", compiled(program, ARGS["program"]))
    ok = compare(dump, "collectives", compiled(collectives, ARGS["collectives"])) and ok
    ok = compare(dump, "shardings", H.hlo_module_from_text(SHARDINGS)) and ok
    ok = compare(dump, "async and constants", H.hlo_module_from_text(ASYNC_CONSTANTS)) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
