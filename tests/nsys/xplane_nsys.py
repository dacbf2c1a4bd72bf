#!/usr/bin/env python3
"""`profq nsys` on JAX XPlane GPU profiles against an independent computation.

Each XSpace under DATA (recursively; directories of one run load as one profile, as the
conformance suite does) is decoded with Python's protobuf runtime (the schema of
tests/conformance/xplane_counts.py, compiled by grpcio-tools' protoc). On every
/device:GPU:N plane, the kernels of the stream lines (not XProf's derived lines) that carry
hlo_module and hlo_op stats (event stats over metadata stats) are put in start order; a
module execution is a maximal run of consecutive kernels of one (program_id, hlo_module),
spanning its first start to its latest end. Checked against `profq nsys --format json`:
  * per module (program id, name): rows and total ms (1e-9 relative), share;
  * per module execution, its thunk count = the distinct hlo_op among the plane's kernels
    of that module that start inside the execution's time span (computed from the span, not
    from the run), compared through the module's thunks mean and std and the frames'
    thunk_rows; module_rows; every row steady, init empty;
  * top_module_ids: modules by total, taken while the share seen is below 99%.
Files whose GPU planes hold no XLA kernel (a TPU profile) must exit 3 naming the file and
what was expected; `--section compile` and the flame SVG on a GPU XPlane exit 3 (they need
an nsys-jax archive), and the text names the sections not available. The other sections are
checked by tests/nsys/xplane_comm.py.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
import xplane_counts  # noqa: E402  (the XSpace schema and its compilation)

DERIVED_MIN = 0xDEADBEEF


def kernels(plane):
    names = {k: v.name for k, v in plane.stat_metadata.items()}

    out = []
    for line in plane.lines:
        if DERIVED_MIN <= line.id < DERIVED_MIN + 64 or line.name in ("XLA Modules", "XLA Ops"):
            continue
        base = line.timestamp_ns * 1000
        for ev in line.events:
            vals = {}
            md = plane.event_metadata.get(ev.metadata_id)
            for s in list(md.stats if md else []) + list(ev.stats):
                n = names.get(s.metadata_id, "")
                kind = s.WhichOneof("value")
                if n in ("hlo_module", "hlo_op") and kind in ("str_value", "ref_value"):
                    vals[n] = s.str_value if kind == "str_value" else names.get(s.ref_value, "")
                elif n == "program_id" and kind in ("int64_value", "uint64_value"):
                    vals[n] = getattr(s, kind)
            if vals.get("hlo_module") and vals.get("hlo_op"):
                start = base + ev.offset_ps
                out.append((start, start + ev.duration_ps, vals.get("program_id", -1),
                            vals["hlo_module"], vals["hlo_op"]))
    out.sort(key=lambda k: k[0])  # stable: walk order among equal starts
    return out


def expected(pb2, files):
    mods = {}  # (program, name) -> [total_ps, [thunks per execution]]
    devices = 0
    for path in files:
        space = pb2.XSpace()
        with open(path, "rb") as f:
            space.ParseFromString(f.read())
        for plane in space.planes:
            if not plane.name.startswith("/device:GPU:"):
                continue
            ks = kernels(plane)
            devices += bool(ks)
            i = 0
            while i < len(ks):
                j = i
                while j < len(ks) and ks[j][2:4] == ks[i][2:4]:
                    j += 1
                s, e = ks[i][0], max(k[1] for k in ks[i:j])
                ops = {k[4] for k in ks if k[2:4] == ks[i][2:4] and s <= k[0] < e}
                m = mods.setdefault(ks[i][2:4], [0, []])
                m[0] += e - s
                m[1].append(len(ops))
                i = j
    return devices, mods


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check(profq, pb2, label, arg, files):
    devices, mods = expected(pb2, files)
    r = subprocess.run([profq, "nsys", "--format", "json", arg], capture_output=True, text=True)
    bad = []
    if not mods:
        if r.returncode != 3 or arg not in r.stderr or "GPU planes hold XLA kernels" not in r.stderr:
            bad.append(f"no XLA kernels: want exit 3 naming the file, got {r.returncode}: {r.stderr!r}")
        return bad, 0
    if r.returncode != 0:
        return [f"exit {r.returncode}: {r.stderr.strip()}"], 0
    got = json.loads(r.stdout)
    if got.get("schema") != "profq.nsys.v1" or got.get("input") != "xplane":
        bad.append(f"schema/input {got.get('schema')}/{got.get('input')}")
    if got["devices"] != devices:
        bad.append(f"devices {got['devices']} != {devices}")
    total_ps = sum(m[0] for m in mods.values())
    nrows = sum(len(m[1]) for m in mods.values())
    nthunks = sum(sum(m[1]) for m in mods.values())
    fr = got["frames"]
    for f, want in (("all", (nrows, nthunks)), ("steady", (nrows, nthunks)), ("init", (0, 0))):
        have = (fr[f]["module_rows"], fr[f]["thunk_rows"])
        if have != want:
            bad.append(f"frame {f}: {have} != {want}")
    seen = {}
    for row in got["modules"]:
        key = (int(row["program_id"]), row["name"])
        seen[key] = row
        if key not in mods:
            bad.append(f"module {key}: not in the XPlane")
            continue
        tot, th = mods[key]
        n = len(th)
        mean = sum(th) / n
        std = math.sqrt(sum((t - mean) ** 2 for t in th) / (n - 1)) if n > 1 else None
        if row["rows"] != n:
            bad.append(f"module {key}: rows {row['rows']} != {n}")
        if not close(row["total_ms"], tot / 1e9):
            bad.append(f"module {key}: total_ms {row['total_ms']} != {tot / 1e9}")
        if not close(row["share"], tot / total_ps):
            bad.append(f"module {key}: share {row['share']} != {tot / total_ps}")
        if not close(row["thunks_mean"], mean):
            bad.append(f"module {key}: thunks_mean {row['thunks_mean']} != {mean}")
        if (std is None) != (row["thunks_std"] is None) or (
                std is not None and abs(row["thunks_std"] - std) > 1e-9):
            bad.append(f"module {key}: thunks_std {row['thunks_std']} != {std}")
    for key in mods:
        if key not in seen:
            bad.append(f"module {key}: missing from profq")
    order = sorted(mods, key=lambda k: (-mods[k][0], k[0]))
    top, acc = [], 0.0
    for k in order:
        if acc >= 0.99:
            break
        top.append(str(k[0]))
        acc += mods[k][0] / total_ps
    if got["top_module_ids"] != top:
        bad.append(f"top_module_ids {got['top_module_ids']} != {top}")
    return bad, len(mods)


def refusals(profq, gpu_file):
    bad = []
    for extra in (["--section", "compile"], ["--section", "flame", "--format", "svg"]):
        r = subprocess.run([profq, "nsys", *extra, gpu_file], capture_output=True, text=True)
        if r.returncode != 3 or "nsys-jax archive" not in r.stderr:
            bad.append(f"{' '.join(extra)}: want exit 3, got {r.returncode}: {r.stderr!r}")
    r = subprocess.run([profq, "nsys", "--section", "modules", gpu_file], capture_output=True,
                       text=True)
    if r.returncode != 0 or "every execution is steady" not in r.stdout:
        bad.append(f"--section modules text: exit {r.returncode}, no steady note")
    r = subprocess.run([profq, "nsys", gpu_file], capture_output=True, text=True)
    if r.returncode != 0 or "not available on an XPlane: bias, compile, heap, flame" not in r.stdout:
        bad.append(f"text: exit {r.returncode}, no line naming the unavailable sections")
    return bad


def profiles(data):
    """(entry, path, its .xplane.pb files) per profile under DATA: a file, or a directory of
    one run (loaded as one profile); the corrupt/ directory is left out."""
    for entry in sorted(os.listdir(data)):
        full = os.path.join(data, entry)
        if entry == "corrupt":
            continue
        if os.path.isdir(full):
            yield entry, full, sorted(os.path.join(full, f) for f in os.listdir(full)
                                      if f.endswith(".xplane.pb"))
        elif entry.endswith(".xplane.pb"):
            yield entry, full, [full]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pb2 = xplane_counts.compile_schema(tmp)
        failures = 0
        gpu_seen = []
        for entry, full, files in profiles(a.data):
            bad, nmods = check(a.profq, pb2, entry, full, files)
            if nmods:
                gpu_seen.append(full)
            print(f"xplane_nsys: {entry}: {nmods} module(s): {'ok' if not bad else 'DIFFER'}")
            for b in bad[:10]:
                print(f"  {b}")
            failures += bool(bad)
        if not gpu_seen:
            print("xplane_nsys: no GPU XPlane with XLA kernels under", a.data)
            return 1
        bad = refusals(a.profq, gpu_seen[0])
        for b in bad:
            print(f"  refusal: {b}")
        failures += bool(bad)
    print(f"xplane_nsys: {len(gpu_seen)} GPU profile(s), {'FAIL' if failures else 'all equal'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
