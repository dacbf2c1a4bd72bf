#!/usr/bin/env python3
"""Conformance: profq's XSpace reader against Python's protobuf runtime.

Every *.xplane.pb under DATA_DIR (recursively) is decoded twice:
  * by Python protobuf, from a .proto written below from the field table in
    spec/xprof-tools.md section 1 (compiled at run time with grpcio-tools'
    protoc into a temporary directory), and
  * by `profq info --format json --no-hash FILE` (schema profq.info.v1).
The structural facts both must agree on are compared: planes, lines, events,
time spans, metadata counts, hostnames, stat totals and the HloProto programs
located on /host:metadata (spec 1.4). Run directories given with --run-dir are
compared as a whole (profq loads them as one profile). Files given with
--corrupt must be refused by BOTH decoders (Python raises, profq exits 3).

Usage: xplane_counts.py --profq PATH --data DIR [--run-dir DIR]... [--corrupt FILE]...
Exit status: 0 all match, 1 any mismatch or unexpected failure.
"""

import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile

# The XSpace schema, written from the spec's field table (section 1). Only the
# wire layout matters for decoding, so the package name is our own. Strings are
# declared `string` as in the spec: proto3 then also checks they are UTF-8,
# which is the semantics profq's inputs are held to.
XSPACE_PROTO = """
syntax = "proto3";
package profq.conformance;

// A whole profile: one plane per device or host component.
message XSpace {
  repeated XPlane planes = 1;
  repeated string errors = 2;
  repeated string warnings = 3;
  repeated string hostnames = 4;
}

// One device or host component with its timelines and metadata tables.
message XPlane {
  int64 id = 1;
  string name = 2;
  repeated XLine lines = 3;
  map<int64, XEventMetadata> event_metadata = 4;
  map<int64, XStatMetadata> stat_metadata = 5;
  repeated XStat stats = 6;
}

// One timeline (a thread or a stream); event offsets are relative to timestamp_ns.
message XLine {
  int64 id = 1;
  string name = 2;
  int64 timestamp_ns = 3;
  repeated XEvent events = 4;
  reserved 5, 6, 7, 8;
  int64 duration_ps = 9;
  int64 display_id = 10;
  string display_name = 11;
}

message XEvent {
  int64 metadata_id = 1;
  oneof data {
    int64 offset_ps = 2;
    int64 num_occurrences = 5;
  }
  int64 duration_ps = 3;
  repeated XStat stats = 4;
}

// A typed value; its name is stat_metadata[metadata_id].name.
message XStat {
  int64 metadata_id = 1;
  oneof value {
    double double_value = 2;
    uint64 uint64_value = 3;
    int64 int64_value = 4;
    string str_value = 5;
    bytes bytes_value = 6;
    uint64 ref_value = 7;
  }
}

message XEventMetadata {
  int64 id = 1;
  string name = 2;
  bytes metadata = 3;
  string display_name = 4;
  repeated XStat stats = 5;
  repeated int64 child_id = 6;
}

message XStatMetadata {
  int64 id = 1;
  string name = 2;
  string description = 3;
}
"""

METADATA_PLANE = "/host:metadata"
HLO_STAT = "Hlo Proto"
LEGACY_HLO_STAT = "HLO Proto"  # libtpu 0.0.37 spelling (spec 1.4)
PROGRAM_ID_STAT = "program_id"
LEGACY_NAME_RE = re.compile(r".*\((\d+)\)", re.DOTALL)  # must match the whole name
NAME_SUFFIX_RE = re.compile(r"^(.*)\((\d+)\)$", re.DOTALL)
U64 = 1 << 64
# The per-line keys of profq.info.v1 that line_facts() computes.
LINE_KEYS = ("id", "name", "timestamp_ns", "duration_ps", "events", "event_stats",
             "display_id", "display_name", "first_ps", "end_ps")


def compile_schema(tmp):
    """Writes XSPACE_PROTO into TMP, runs protoc on it, imports and returns the module."""
    from grpc_tools import protoc  # imported here: only the venv has it

    proto = os.path.join(tmp, "profq_xspace.proto")
    with open(proto, "w", encoding="utf-8") as f:
        f.write(XSPACE_PROTO)
    # protoc's own include dir (well-known types) is not needed: the schema imports nothing.
    rc = protoc.main(["protoc", "-I" + tmp, "--python_out=" + tmp, proto])
    if rc != 0:
        raise SystemExit(f"xplane_counts: protoc failed on {proto} (exit {rc})")
    sys.path.insert(0, tmp)
    return importlib.import_module("profq_xspace_pb2")


# ---------------------------------------------------------------------------
# The oracle: what profq info must report, computed from the Python decode.
# ---------------------------------------------------------------------------


def line_facts(line):
    """Per-line counts and the absolute time span in ps (spec 1: offsets are line-relative)."""
    facts = {
        "id": line.id,
        "name": line.name,
        "timestamp_ns": line.timestamp_ns,
        "duration_ps": line.duration_ps,
        "events": len(line.events),
        "event_stats": sum(len(e.stats) for e in line.events),
    }
    if line.display_id:
        facts["display_id"] = line.display_id
    if line.display_name:
        facts["display_name"] = line.display_name
    if line.events:
        base = line.timestamp_ns * 1000
        # An aggregated event (num_occurrences set) has no offset: it reads as 0.
        facts["first_ps"] = base + min(e.offset_ps for e in line.events)
        facts["end_ps"] = max(base + e.offset_ps + e.duration_ps for e in line.events)
    return facts


def programs_of(space):
    """HloProtos on /host:metadata, located as XProf does (spec 1.4).

    Each event metadata whose first "Hlo Proto" (or legacy "HLO Proto") stat holds
    bytes is one program. program_id: the "program_id" stat (int or uint, read as
    uint64) if present; else, for the legacy stat name with a name matching
    ".*\\((\\d+)\\)", that number (the fixer rewrites the id); else the metadata id.
    Metadata are visited in id order; the first one wins a program-id collision.
    Returns (programs sorted by program id, number of duplicates dropped).
    """
    plane = next((p for p in space.planes if p.name == METADATA_PLANE), None)
    if plane is None:
        return [], 0
    stat_names = {k: v.name for k, v in plane.stat_metadata.items()}
    found = {}
    duplicates = 0
    for key in sorted(plane.event_metadata):
        meta = plane.event_metadata[key]
        hlo = None
        pid = None
        for st in meta.stats:
            name = stat_names.get(st.metadata_id, "")
            if hlo is None and name in (HLO_STAT, LEGACY_HLO_STAT):
                hlo = st
            elif pid is None and name == PROGRAM_ID_STAT:
                pid = st
        if hlo is None or hlo.WhichOneof("value") != "bytes_value":
            continue
        legacy = stat_names.get(hlo.metadata_id) == LEGACY_HLO_STAT
        if pid is not None and pid.WhichOneof("value") in ("int64_value", "uint64_value"):
            program_id = getattr(pid, pid.WhichOneof("value")) % U64
        else:
            m = LEGACY_NAME_RE.fullmatch(meta.name) if legacy else None
            # XProf reads XEventMetadata.id (equal to the map key in every real file);
            # TPU writers store uint64 program ids there as negative int64s.
            program_id = int(m.group(1)) if m else meta.id % U64
        if program_id in found:
            duplicates += 1
            continue
        suffix = NAME_SUFFIX_RE.match(meta.name)
        found[program_id] = {
            "name": suffix.group(1) if suffix else meta.name,
            "program_id": str(program_id),
            "hlo_proto_bytes": len(hlo.bytes_value),
        }
    return [found[k] for k in sorted(found)], duplicates


def space_facts(space):
    """Everything compared for one XSpace, in the shape of profq.info.v1."""
    planes = []
    total_stats = 0
    for p in space.planes:
        meta_stats = sum(len(m.stats) for m in p.event_metadata.values())
        event_stats = sum(len(e.stats) for ln in p.lines for e in ln.events)
        total_stats += len(p.stats) + meta_stats + event_stats
        planes.append(
            {
                "id": p.id,
                "name": p.name,
                "events": sum(len(ln.events) for ln in p.lines),
                "event_metadata": len(p.event_metadata),  # a map: unique keys
                "stat_metadata": len(p.stat_metadata),
                "lines": [line_facts(ln) for ln in p.lines],
            }
        )
    programs, duplicates = programs_of(space)
    return {
        "hostnames": list(space.hostnames),
        "events": sum(pl["events"] for pl in planes),
        "stats": total_stats,
        "planes": planes,
        "programs": programs,
        "duplicate_programs_ignored": duplicates,
    }


def profq_facts(src):
    """The same facts, taken from one source of profq's JSON."""
    planes = []
    for p in src["planes"]:
        # Optional keys (display_id, display_name, first_ps, end_ps) are absent in both
        # when they do not apply, so "absent" compares equal to "absent".
        lines = [{k: ln[k] for k in LINE_KEYS if k in ln} for ln in p["lines"]]
        planes.append(
            {
                "id": p["id"],
                "name": p["name"],
                "events": p["events"],
                "event_metadata": p["event_metadata"],
                "stat_metadata": p["stat_metadata"],
                "lines": lines,
            }
        )
    return {
        "hostnames": src["hostnames"],
        "events": src["events"],
        "stats": src["stats"],
        "planes": planes,
        "programs": [
            {k: prog[k] for k in ("name", "program_id", "hlo_proto_bytes")}
            for prog in src["programs"]
        ],
        "duplicate_programs_ignored": src.get("duplicate_programs_ignored", 0),
    }


def diff(want, got, path, out, limit=10):
    """Appends 'path: python=X profq=Y' lines to OUT for every difference (up to LIMIT)."""
    if len(out) >= limit:
        return
    if isinstance(want, dict) and isinstance(got, dict):
        for k in list(want) + [k for k in got if k not in want]:
            diff(want.get(k, "<absent>"), got.get(k, "<absent>"), f"{path}.{k}", out, limit)
    elif isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            out.append(f"{path}: python has {len(want)} items, profq has {len(got)}")
        for i, (w, g) in enumerate(zip(want, got)):
            diff(w, g, f"{path}[{i}]", out, limit)
    elif want != got or type(want) is not type(got):
        out.append(f"{path}: python={want!r} profq={got!r}")


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def run_profq(profq, path):
    """Runs `profq info --format json --no-hash PATH`; returns (exit code, stdout, stderr)."""
    r = subprocess.run([profq, "info", "--format", "json", "--no-hash", path],
                       capture_output=True, check=False)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace").strip()


def decode(pb2, path):
    space = pb2.XSpace()
    with open(path, "rb") as f:
        space.ParseFromString(f.read())
    return space


def summary_line(label, facts):
    lines = sum(len(p["lines"]) for p in facts["planes"])
    emeta = sum(p["event_metadata"] for p in facts["planes"])
    smeta = sum(p["stat_metadata"] for p in facts["planes"])
    return (f"{label}: {len(facts['planes'])} planes, {lines} lines, {facts['events']} events, "
            f"{facts['stats']} stats, {emeta} event_metadata, {smeta} stat_metadata, "
            f"{len(facts['programs'])} programs")


def check_sources(pb2, profq, label, arg, files):
    """Compares profq's sources for ARG (a file or run directory) with FILES decoded in Python.
    Returns a list of difference lines (empty when everything matched)."""
    problems = []
    rc, out, err = run_profq(profq, arg)
    if rc != 0:
        return [f"profq exited {rc}: {err}"]
    doc = json.loads(out)
    if doc.get("schema") != "profq.info.v1":
        return [f"unexpected schema {doc.get('schema')!r}"]
    srcs = doc["sources"]
    if len(srcs) != len(files):
        return [f"sources: python found {len(files)} files, profq loaded {len(srcs)}"]
    by_path = {os.path.realpath(s["path"]): s for s in srcs}
    for f in files:
        src = by_path.get(os.path.realpath(f))
        if src is None:
            problems.append(f"profq did not load {f}")
            continue
        want = space_facts(decode(pb2, f))
        diff(want, profq_facts(src), os.path.basename(f), problems)
        if not problems:
            print(f"ok   {summary_line(label if len(files) == 1 else f, want)}")
    return problems


def check_corrupt(pb2, profq, path):
    """Both decoders must refuse PATH: Python raises DecodeError, profq exits 3 (bad input)."""
    from google.protobuf.message import DecodeError

    problems = []
    py_err = None
    try:
        decode(pb2, path)
    except DecodeError as e:
        py_err = str(e) or type(e).__name__
    if py_err is None:
        problems.append("Python protobuf parsed it without error")
    rc, _, err = run_profq(profq, path)
    if rc != 3:
        problems.append(f"profq exited {rc}, expected 3 (bad input): {err}")
    if not problems:
        print(f"ok   {path}: refused by both (python: {py_err}; profq exit 3: {err})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True, help="folder searched recursively for *.xplane.pb")
    ap.add_argument("--run-dir", action="append", default=[], help="also check as one profile")
    ap.add_argument("--corrupt", action="append", default=[], help="must be refused by both")
    args = ap.parse_args()

    corrupt = {os.path.realpath(c) for c in args.corrupt}
    files = sorted(
        os.path.join(d, n)
        for d, _, names in os.walk(args.data)
        for n in names
        if n.endswith(".xplane.pb") and os.path.realpath(os.path.join(d, n)) not in corrupt
    )
    if not files:
        print(f"xplane_counts: no *.xplane.pb under {args.data}")
        return 1

    failed = []
    with tempfile.TemporaryDirectory(prefix="profq-xspace-") as tmp:
        pb2 = compile_schema(tmp)
        checks = [(f, f, [f]) for f in files]
        for d in args.run_dir:
            # A run directory is one profile: every *.xplane.pb in it is one source.
            inside = sorted(f for f in files if os.path.realpath(f).startswith(
                os.path.realpath(d) + os.sep))
            checks.append((d + "/ (run directory)", d, inside))
        for label, arg, srcs in checks:
            try:
                problems = check_sources(pb2, args.profq, label, arg, srcs)
            except Exception as e:  # a Python-side decode error is a finding, not a crash
                problems = [f"{type(e).__name__}: {e}"]
            if problems:
                failed.append(label)
                print(f"FAIL {label}")
                for p in problems:
                    print(f"       {p}")
        for c in args.corrupt:
            problems = check_corrupt(pb2, args.profq, c)
            if problems:
                failed.append(c)
                print(f"FAIL {c}")
                for p in problems:
                    print(f"       {p}")

    total = len(files) + len(args.run_dir) + len(args.corrupt)
    print(f"xplane_counts: {total - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
