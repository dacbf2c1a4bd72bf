"""GPU FLOPs and bytes per op: profq's C cost rules (src/analysis/hlo_cost.c) against XLA's
GPU HloCostAnalysis as XProf runs it (XprofGpuCostAnalysis inside xspace_to_tools_data).

Usage: gpu_cost.py --profq PROFQ [--xplane FILE_OR_RUN_DIR]... [--hlo HLOPROTO]...
                   [--xplane-hlos FILE]...

Two kinds of inputs:
  --xplane   a real GPU XPlane (a file or a run directory): its kernels as profiled.
  --hlo      an HloProto (xla.HloProto, as XProf stores it in /host:metadata), and
  --xplane-hlos  every HloProto on the /host:metadata plane of an XPlane (CPU ones too):
             a GPU XPlane is written here with that HloProto on its metadata plane and one
             kernel per instruction of every computation (hlo_op = the instruction's name),
             so that XLA prices every instruction, not only those that ran as kernels.

For every op XProf lists in op_profile (grouped by program), the same op in profq's
`ops --format xprof --view op_profile` must have, per occurrence:
  FLOPs       rawFlops / occurrences                      (XLA flop_count)
  HBM bytes   sum(rawBytesAccessedArray) / occurrences    (XLA bytes read + written, memory
                                                           space 0)
  bytes       hlo_stats measured_memory_bw x total time   (XLA bytes_accessed)
exactly, after rounding to an integer (XProf computes these from int64 counts; the rates
it prints are doubles). hlo_stats keeps bytes accessed as a rate that passed through a
float: its bytes compare at float precision (2^-24 relative). The op sets must be equal.
Prints the number of ops compared and each difference; exit 0 with 0 differences.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from xprof.convert import _pywrap_profiler_plugin as plugin

REL = 1e-12  # the rates are doubles: rate x time gives the count back
OPCODES = set()  # the opcodes of the ops compared
FLOAT_REL = 2.0 ** -23  # hlo_stats' bytes accessed passed through a float

# ---- protobuf wire format (only what is needed: no schema compiler in this venv) ----


def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(num, v):
    return varint(num << 3) + varint(v)


def field_bytes(num, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(num << 3 | 2) + varint(len(b)) + b


def fields(buf):
    """Yields (number, wire type, value) of one message's fields."""
    i, n = 0, len(buf)
    while i < n:
        key, i = read_varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            v, i = read_varint(buf, i)
        elif wire == 2:
            ln, i = read_varint(buf, i)
            v, i = buf[i:i + ln], i + ln
        elif wire == 1:
            v, i = buf[i:i + 8], i + 8
        elif wire == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield num, wire, v


def read_varint(buf, i):
    shift = v = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


# ---- HloProto: module name, id and every instruction's name ----


def hlo_summary(proto):
    """(module name, module id, [instruction names]) of an xla.HloProto."""
    module = next((v for num, w, v in fields(proto) if num == 1 and w == 2), b"")
    name, mid, names = "", 0, []
    for num, w, v in fields(module):
        if num == 1 and w == 2:
            name = v.decode()
        elif num == 5 and w == 0:
            mid = v
        elif num == 3 and w == 2:  # HloComputationProto
            for cnum, cw, cv in fields(v):
                if cnum == 2 and cw == 2:  # HloInstructionProto
                    for inum, iw, iv in fields(cv):
                        if inum == 1 and iw == 2:
                            names.append(iv.decode())
                            break
    return name, mid, names


def plane_names(data):
    """The names of an XSpace's planes."""
    out = []
    for num, w, plane in fields(data):
        if num == 1 and w == 2:
            out += [v.decode(errors="replace") for n, _, v in fields(plane) if n == 2]
    return out


def xplane_hlos(data):
    """The HloProtos of an XSpace's /host:metadata plane."""
    out = []
    for num, w, plane in fields(data):
        if num != 1 or w != 2:
            continue
        pf = list(fields(plane))
        if not any(n == 2 and v == b"/host:metadata" for n, _, v in pf):
            continue
        stat_names = {}
        for n, _, v in pf:
            if n == 5:  # map<int64, XStatMetadata>
                entry = dict((k, val) for k, _, val in fields(v))
                md = dict((k, val) for k, _, val in fields(entry.get(2, b"")))
                stat_names[entry.get(1, 0)] = md.get(2, b"").decode()
        for n, _, v in pf:
            if n != 4:  # map<int64, XEventMetadata>
                continue
            entry = dict((k, val) for k, _, val in fields(v))
            for k, _, st in fields(entry.get(2, b"")):
                if k != 5:
                    continue
                s = dict((sk, sv) for sk, _, sv in fields(st))
                if stat_names.get(s.get(1)) in ("Hlo Proto", "HLO Proto") and 6 in s:
                    out.append(s[6])
    return out


def synth_xspace(proto, program_id):
    """An XSpace: the HloProto on /host:metadata and one GPU kernel per instruction."""
    name, mid, names = hlo_summary(proto)
    pid = mid or program_id
    stats = ["Hlo Proto", "hlo_op", "hlo_module", "program_id", "correlation_id",
             "device_vendor", "compute_cap_major", "compute_cap_minor", "clock_rate",
             "core_count"]
    sid = {s: i + 1 for i, s in enumerate(stats)}

    def stat_md(s):
        return field_bytes(5, field_varint(1, sid[s]) +
                           field_bytes(2, field_varint(1, sid[s]) + field_bytes(2, s)))

    def stat(s, kind, v):
        body = field_varint(1, sid[s])
        body += field_bytes(5, v) if kind == "str" else (
            field_bytes(6, v) if kind == "bytes" else field_varint(4, v))
        return body

    meta = field_varint(1, 1) + field_bytes(2, "/host:metadata")
    md = field_varint(1, pid) + field_bytes(2, f"{name}({pid})") + \
        field_bytes(5, stat("Hlo Proto", "bytes", proto))
    meta += field_bytes(4, field_varint(1, pid) + field_bytes(2, md))
    meta += stat_md("Hlo Proto")

    dev = field_varint(1, 2) + field_bytes(2, "/device:GPU:0")
    for s in stats:
        dev += stat_md(s)
    dev += field_bytes(6, stat("device_vendor", "str", "Nvidia"))
    dev += field_bytes(6, stat("compute_cap_major", "int", 9))
    dev += field_bytes(6, stat("compute_cap_minor", "int", 0))
    dev += field_bytes(6, stat("clock_rate", "int", 1980000))
    dev += field_bytes(6, stat("core_count", "int", 132))
    events = b""
    for i, op in enumerate(names):
        emd = field_varint(1, i + 1) + field_bytes(2, op)
        dev += field_bytes(4, field_varint(1, i + 1) + field_bytes(2, emd))
        ev = field_varint(1, i + 1) + field_varint(2, 1000000 * (2 * i + 1)) + \
            field_varint(3, 1000000)
        ev += field_bytes(4, stat("hlo_op", "str", op))
        ev += field_bytes(4, stat("hlo_module", "str", name))
        ev += field_bytes(4, stat("program_id", "int", pid))
        ev += field_bytes(4, stat("correlation_id", "int", i + 1))
        events += field_bytes(4, ev)
    line = field_varint(1, 1) + field_bytes(2, "Stream #1(Kernel)") + \
        field_varint(3, 1000) + events
    dev += field_bytes(3, line)
    return field_bytes(1, meta) + field_bytes(1, dev) + field_bytes(4, "host")


# ---- the comparison ----


def table(text):
    d = json.loads(text)
    d = d[0] if isinstance(d, list) else d
    cols = [c["id"] for c in d["cols"]]
    return [dict(zip(cols, [c.get("v") for c in r["c"]])) for r in d["rows"]]


def xprof(path, tool, **opts):
    opts["use_saved_result"] = False
    data, ok = plugin.xspace_to_tools_data([path], tool, opts)
    if not ok:
        raise RuntimeError(f"xprof {tool} failed on {path}")
    return data.decode() if isinstance(data, bytes) else data


def profq(exe, path, *args):
    r = subprocess.run([exe, *args, path], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"profq {' '.join(args)} {path}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def per_occurrence(row):
    """FLOPs, HBM bytes and bytes accessed of one occurrence from an hlo_stats row (rates in
    GFLOP/s and GiB/s, times in us)."""
    t = row["total_time"] * 1e3 / (row["occurrences"] or 1)
    gib = (1 << 30) / 1e9
    return (row["model_flop_rate"] * t, row["hbm_bw"] * t * gib,
            row["measured_memory_bw"] * t * gib)


def near(a, b, rel):
    return abs(a - b) <= max(abs(a), abs(b)) * rel + 0.5


def compare(exe, path, label, bad):
    x = {(r["program_id"], r["hlo_op_name"]): r for r in table(xprof(path, "hlo_stats"))}
    p = {(r["program_id"], r["hlo_op_name"]): r
         for r in table(profq(exe, path, "ops", "--format", "xprof"))}
    n = 0
    for k in sorted(set(x) | set(p)):
        if k not in x or k not in p:
            bad.append(f"{label}: {k}: only in {'xprof' if k in x else 'profq'}")
            continue
        n += 1
        xf, xm, xb = per_occurrence(x[k])
        pf, pm, pb = per_occurrence(p[k])
        m = re.search(r"(?:\)|\]|\}) ([a-z][a-z0-9-]*)\(", x[k].get("hlo_op_expression", ""))
        OPCODES.add(m.group(1) if m else "?")
        what = f"{k[1]} ({m.group(1) if m else '?'}, program {k[0]})"
        for name, a, b, rel in (("FLOPs", xf, pf, REL), ("HBM bytes", xm, pm, REL),
                                ("bytes accessed", xb, pb, FLOAT_REL)):
            if not near(a, b, rel):
                bad.append(f"{label}: {what}: {name} xprof {a:.1f} profq {b:.1f}")
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--xplane", action="append", default=[])
    ap.add_argument("--hlo", action="append", default=[])
    ap.add_argument("--xplane-hlos", action="append", default=[])
    a = ap.parse_args()
    bad, total, inputs = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="profq-gpu-cost-") as scratch:
        for i, src in enumerate(a.xplane):
            first = src if not os.path.isdir(src) else os.path.join(
                src, sorted(f for f in os.listdir(src) if f.endswith(".xplane.pb"))[0])
            if not any(n.startswith("/device:GPU") for n in plane_names(open(first, "rb").read())):
                print(f"gpu_cost: {src}: no GPU plane: its kernels are not compared")
                continue
            d = os.path.join(scratch, f"x{i}")
            os.makedirs(d)
            if os.path.isdir(src):
                for f in sorted(os.listdir(src)):
                    if f.endswith(".xplane.pb"):
                        shutil.copy(os.path.join(src, f), d)
                path = os.path.join(d, sorted(os.listdir(d))[0])
            else:
                path = os.path.join(d, "host.xplane.pb")
                shutil.copy(src, path)
            n = compare(a.profq, path, os.path.basename(src.rstrip("/")), bad)
            print(f"gpu_cost: {src}: {n} ops (as profiled)")
            total, inputs = total + n, inputs + 1
        protos = [(f, open(f, "rb").read()) for f in a.hlo]
        for f in a.xplane_hlos:
            data = open(f, "rb").read()
            if any(n.startswith("/device:TPU") for n in plane_names(data)):
                # TPU modules: XProf prices them with TPU cost models, not this analysis
                print(f"gpu_cost: {f}: a TPU profile, its HloProtos are not GPU modules: skipped")
                continue
            protos += [(f"{f}#{j}", pr) for j, pr in enumerate(xplane_hlos(data))]
        for i, (src, proto) in enumerate(protos):
            d = os.path.join(scratch, f"h{i}")
            os.makedirs(d)
            path = os.path.join(d, "host.xplane.pb")
            with open(path, "wb") as f:
                f.write(synth_xspace(proto, i + 1))
            n = compare(a.profq, path, os.path.basename(src), bad)
            print(f"gpu_cost: {src}: {n} ops (every instruction as a kernel)")
            total, inputs = total + n, inputs + 1
    for b in bad:
        print("gpu_cost: DIFF", b)
    print(f"gpu_cost: opcodes compared: {' '.join(sorted(OPCODES))}")
    print(f"gpu_cost: {total} ops ({len(OPCODES)} opcodes) compared on {inputs} inputs, "
          f"{len(bad)} differences")
    return 0 if not bad and total else 1


if __name__ == "__main__":
    sys.exit(main())
