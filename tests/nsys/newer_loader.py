"""`profq nsys` on newer nsys-jax archives against the CURRENT nsys-jax loader (JAX-Toolbox
HEAD, ../shared/peers/nsys-jax/head) run as the oracle (tests/nsys/archive.sh runs this in
build/venv-nsysloader: pandas, pyarrow, numpy; the HEAD loader is imported from its source
directory, it needs no install).

The archives are built by tests/nsys/newer_archive.py from the shared archive's rows (the
transformation is documented there): thread-metadata with XlaLauncher thread names,
device/system metadata, STORED members, the newer trace.parquet column set (with Domain, and
without), the push/pop report as parquet and as csv.xz. Cases:
- one archive (.zip), each column set;
- one archive cut to the first execution of each module per thread (every program compiled
  in the profile: the HEAD rule leaves nothing steady, the loader warns and takes every row
  as steady; profq's text warns too);
- the same archive extracted into a directory;
- two archives of one job (processes 0 and 1: other PIDs/TIDs, devices 4-7, durations
  scaled), given together on the command line, and as a directory holding them plus a
  byte-identical copy of one (nsys-jax-combine de-duplicates identical files: counted once),
  and as nsys-jax-combine's output directory, which the oracle reads in every case
  (trace.parquet/, thread-metadata.parquet/ and report_nvtx_pushpop_trace.parquet/
  directories with one file per process, the other members once).

The archives carry the shared archive's dumps (dump/*.hlo.pb.xz) and protos/, compiled
here with grpcio-tools (the loader wants a protoc binary): HEAD's own `_remap_program_id`
names each program by its dump's fingerprint_before_lhs ("unknown" without program_id=) and
its communication classification runs (the HEAD warm-up rule's second init execution).
profq's program ids are those fingerprints (run_id "N:E:FINGERPRINT"). A last pair of
archives numbers process 1's programs 100 higher (names, dump names, HloModuleProto ids):
equal fingerprints are one program for HEAD and for profq.

Compared, within 1e-6 relative, `profq nsys` (its default warm-up rule on these archives is
the HEAD loader's, JSON warmup.rule "head", text header "HEAD warm-up rule") against the
oracle: frames.{all,steady,init}.{module,thunk}_rows; per program id in the steady frame
(modules[], fingerprints): rows and total ms, and the steady total ms (the sum of modules[].total_ms and the
text header). On profq's module and thunk slices (`profq export`: run_id "PROGRAM:EXECUTION",
device tracks named "device G ..."), split with the HEAD loader's rule (the oracle's compiled
program ids; executions below compiled + communication are init): per (program id, device)
the module rows of all frames (the XlaLauncher device mapping); per (program id, thunk name)
the steady total ms of the computation thunks (HEAD rewrites communication durations).
`--warmup archive-era` overrides the default: warmup.rule "archive-era" and the steady/init module and thunk rows of the archive-era rule (execution 0
of a compiled program init, 1 neither) counted on the slices.
"""
import argparse
import collections
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import types

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import newer_archive  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


_loaded = {}


def compile_protos(shared_zip, out):
    """The shared archive's protos/ compiled to Python with grpcio-tools into OUT and put on
    sys.path (the HEAD loader compiles them with a protoc binary, which this venv lacks;
    its ensure_compiled_protos_are_importable then finds them importable)."""
    import zipfile
    from grpc_tools import protoc
    src = pathlib.Path(out) / "protos"
    with zipfile.ZipFile(shared_zip) as z:
        names = [n for n in z.namelist() if n.startswith("protos/") and n.endswith(".proto")]
        for n in names:
            (pathlib.Path(out) / n).parent.mkdir(parents=True, exist_ok=True)
            (pathlib.Path(out) / n).write_bytes(z.read(n))
    gen = pathlib.Path(out) / "gen"
    gen.mkdir()
    rels = [n[len("protos/"):] for n in names]
    import grpc_tools
    inc = pathlib.Path(grpc_tools.__file__).parent / "_proto"  # google/protobuf/*.proto
    rc = protoc.main(["protoc", f"-I{src}", f"-I{inc}", f"--python_out={gen}", *rels])
    check(rc == 0, f"protos compiled with grpcio-tools ({len(rels)} files, rc {rc})")
    sys.path.insert(0, str(gen))


def head_loader(head_dir):
    if _loaded:
        return _loaded["dl"], _loaded["an"], _loaded["pd"]
    display = types.ModuleType("IPython.display")
    display.display = display.IFrame = lambda *a, **k: None
    sys.modules.setdefault("IPython", types.ModuleType("IPython"))
    sys.modules["IPython.display"] = display
    sys.path.insert(0, str(head_dir))
    from nsys_jax import analysis, data_loaders  # noqa: E402
    from nsys_jax.utils import ProfilerData  # noqa: E402

    _loaded.update(dl=data_loaders, an=analysis, pd=ProfilerData)
    return data_loaders, analysis, ProfilerData


def oracle(head_dir, prefix):
    data_loaders, analysis, ProfilerData = head_loader(head_dir)
    # _remap_program_id caches per (program, name, prefix): a fresh cache per archive.
    data_loaders._remap_program_id.cache_clear()
    data_loaders._hlo_cache.clear()
    frames = data_loaders._load_nvtx_gpu_proj_trace(pathlib.Path(prefix), {"module", "thunk"})
    compile_df = data_loaders._load_nvtx_pushpop_trace(pathlib.Path(prefix), {"compile"})
    # The dumps classify communication (as load_profiler_data does): the HEAD rule's second
    # warm-up execution.
    comm = data_loaders.calculate_collective_metrics(frames["thunk"], prefix=pathlib.Path(prefix))
    all_ = ProfilerData(compile=compile_df, module=frames["module"], thunk=frames["thunk"],
                        communication=comm)
    init, steady = analysis.apply_warmup_heuristics(all_)
    return all_, init, steady


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def exported(profq, paths):
    """profq's thunk and module slices: (program, exec, device, name, dur_ms, is_thunk)."""
    p = run([profq, "export", *paths])
    check(p.returncode == 0, f"profq export exits 0 ({p.returncode}: {p.stderr.strip()[:300]})")
    if p.returncode:
        return []
    doc = json.loads(p.stdout)
    names = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            names[(e["pid"], e.get("tid"))] = e["args"]["name"]
    out = []
    for e in doc["traceEvents"]:
        run_id = e.get("args", {}).get("run_id") if e.get("ph") == "X" else None
        if not run_id or run_id.startswith("compiled:"):  # a compilation range
            continue
        m = re.match(r"^device (\d+)", names.get((e["pid"], e["tid"]), ""))
        # "P:E:FINGERPRINT": HEAD's program id (the dump's fingerprint, or "unknown")
        prog, ex, *key = run_id.split(":")
        prog = key[0] if key else prog
        name = e["name"]
        tm = re.match(r"^(?:TSL:)?Thunk:#(?:name=.*?,|)hlo_op=([a-z0-9._-]+)#$", name)
        out.append((prog, int(ex), int(m.group(1)) if m else None,
                    tm.group(1) if tm else name, e["dur"] / 1e3, tm is not None))
    return out


def compare(profq, paths, prefix, head_dir, label):
    all_, init, steady = oracle(head_dir, prefix)

    def pid(p):  # HEAD's program ids (fingerprints, "unknown") are profq's
        return str(p)

    compiled = {pid(p) for p in all_.compile["ProgramId"].unique()}
    check(all(re.fullmatch(r"[0-9a-f]{32}|unknown", p) for p in compiled),
          f"{label}: HEAD's compiled program ids are fingerprints ({sorted(compiled)[:3]})")
    p = run([profq, "nsys", "--format", "json", *paths])
    check(p.returncode == 0, f"{label}: profq nsys exits 0 ({p.returncode}: {p.stderr.strip()})")
    if p.returncode != 0:
        return
    doc = json.loads(p.stdout)
    for kind in ("module", "thunk"):
        want, got = len(getattr(all_, kind)), doc["frames"]["all"][f"{kind}_rows"]
        check(got == want, f"{label}: nsys frames.all.{kind}_rows = {want} (profq {got})")
    check(doc["compiled_programs"] == len(compiled),
          f"{label}: {len(compiled)} programs compiled (profq {doc['compiled_programs']})")

    check(doc.get("warmup", {}).get("rule") == "head",
          f"{label}: default warm-up rule head (profq {doc.get('warmup')})")
    for fname, fr in (("all", all_), ("steady", steady), ("init", init)):
        for kind in ("module", "thunk"):
            want, got = len(getattr(fr, kind)), doc["frames"][fname][f"{kind}_rows"]
            check(got == want, f"{label}: nsys frames.{fname}.{kind}_rows = {want} (profq {got})")

    want = {}
    for prog, df in steady.module.groupby(level="ProgramId"):
        want[pid(prog)] = (len(df), float(df["ProjDurMs"].sum()))
    got = {m["program_id"]: (m["rows"], m["total_ms"]) for m in doc["modules"]}
    check(set(got) == set(want),
          f"{label}: nsys steady program ids {sorted(want)} (profq {sorted(got)})")
    for prog, (rows, ms) in sorted(want.items(), key=lambda kv: -kv[1][1]):
        g = got.get(prog, (0, 0.0))
        check(g[0] == rows and close(g[1], ms),
              f"{label}: nsys steady program {prog}: {rows} rows, {ms:.9f} ms "
              f"(profq {g[0]}, {g[1]:.9f})")
    total = float(steady.module["ProjDurMs"].sum())
    got_total = sum(m["total_ms"] for m in doc["modules"])
    check(close(got_total, total, 1e-9 * len(want) + 1e-6),
          f"{label}: nsys steady total {total:.6f} ms (profq {got_total:.6f})")
    p = run([profq, "nsys", "--section", "modules", *paths])
    hm = re.search(r"^steady modules \(([0-9.]+) ms; (HEAD warm-up rule)", p.stdout, re.M)
    check(p.returncode == 0 and hm is not None and abs(float(hm.group(1)) - total) <= 5e-4,
          f"{label}: nsys text: steady modules ({total:.3f} ms; HEAD warm-up rule ...) "
          f"(profq {hm.group(0) if hm else p.stdout[:200]!r})")

    # profq's module and thunk slices, split with the HEAD loader's warm-up rule (executions
    # below (compiled in the profile) + (communication) are init).
    slices = exported(profq, paths)

    has_comm = 1 if all_.communication is not None and len(all_.communication) else 0
    check(has_comm == 1, f"{label}: the dumps classify communication in HEAD")

    def is_init(prog, ex):
        return ex < (prog in compiled) + has_comm

    # The explicit override: the archive-era rule (execution 0 init, 1 neither, 2+ steady).
    p = run([profq, "nsys", "--warmup", "archive-era", "--format", "json", *paths])
    era = json.loads(p.stdout) if p.returncode == 0 else {"frames": {}}
    check(era.get("warmup", {}).get("rule") == "archive-era",
          f"{label}: --warmup archive-era: rule archive-era (profq {era.get('warmup')})")
    for fname, keep in (("steady", lambda p_, e: p_ not in compiled or e > 1),
                        ("init", lambda p_, e: p_ in compiled and e == 0)):
        for kind, thunk in (("module", False), ("thunk", True)):
            want_n = sum(1 for p_, e, _, _, _, t in slices if t == thunk and keep(p_, e))
            got_n = era["frames"].get(fname, {}).get(f"{kind}_rows")
            check(got_n == want_n, f"{label}: --warmup archive-era: frames.{fname}.{kind}_rows "
                  f"= {want_n} (profq {got_n})")

    # Module rows per (program, device), all frames: the device mapping.
    want_dev = collections.Counter(
        (pid(p), int(d)) for p, _, d in all_.module.index.to_list())
    got_dev = collections.Counter((p, d) for p, _, d, _, _, thunk in slices if not thunk)
    check(want_dev == got_dev,
          f"{label}: module rows per (program, device) over {len(want_dev)} pairs "
          f"(differ: {sorted(set(want_dev.items()) ^ set(got_dev.items()))[:6]})")
    # Steady thunk totals per (program, thunk name) of the computation thunks (HEAD's
    # _classify_comms rewrites the durations of communication thunks; the communication
    # tables are tests/nsys/archive_loader.py's on the archive era).
    want_t = collections.defaultdict(float)
    comm_names = set()
    for (prog, _, name, _, _), ms, c in zip(steady.thunk.index, steady.thunk["ProjDurMs"],
                                            steady.thunk["Communication"]):
        if c:
            comm_names.add((pid(prog), name))
            continue
        want_t[(pid(prog), name)] += float(ms)
    got_t = collections.defaultdict(float)
    # HEAD: a thunk frame left without steady rows is taken as steady whole.
    thunks_all_steady = not any(t and not is_init(p_, e) for p_, e, _, _, _, t in slices)
    for prog, ex, _, name, ms, thunk in slices:
        if thunk and (thunks_all_steady or not is_init(prog, ex)) and (
                (prog, name) not in comm_names):
            got_t[(prog, name)] += ms
    bad = [k for k in set(want_t) | set(got_t) if not close(want_t.get(k, -1), got_t.get(k, -2))]
    check(not bad and want_t,
          f"{label}: steady thunk totals of {len(want_t)} (program, thunk) groups "
          f"(differ: {[(k, want_t.get(k), got_t.get(k)) for k in sorted(bad)[:4]]})")


def with_dumps(shared_zip, **opts):
    """A newer archive's members (newer_archive.newer_members) plus the shared archive's
    HloProto dumps (dump/*.hlo.pb.xz) and protos/ (the HEAD loader compiles them to read the
    dumps: its _remap_program_id names each program by its dump's fingerprint)."""
    import zipfile
    members = newer_archive.newer_members(shared_zip, **opts)
    with zipfile.ZipFile(shared_zip) as z:
        for name in z.namelist():
            if (name.startswith("dump/") and name.endswith(".hlo.pb.xz")) or (
                    name.startswith("protos/") and not name.endswith("/")):
                members[name] = z.read(name)
    return members


def renumbered(members, offset):
    """MEMBERS with every program number N made N + OFFSET (the ranges' program_id=N, the
    dumps' module_NNNN names and their HloModuleProto.id), as a process of a job that is
    not strictly SPMD numbers the same programs: HEAD's fingerprints make them one program
    with another process's."""
    import io
    import lzma
    import pyarrow as pa
    import pyarrow.parquet as pq
    from xla.service import hlo_pb2

    def sub(text):
        return re.sub(r"program_id=(\d+)", lambda m: f"program_id={int(m.group(1)) + offset}",
                      text) if text is not None else None

    out = {}
    for name, data in members.items():
        m = re.match(r"^dump/module_(\d+)\.(.*)$", name)
        if m:
            data = lzma.decompress(data)
            if name.endswith(".hlo.pb.xz"):
                h = hlo_pb2.HloProto()
                h.ParseFromString(data)
                h.hlo_module.id += offset
                data = h.SerializeToString()
            out[f"dump/module_{int(m.group(1)) + offset:04d}.{m.group(2)}"] = lzma.compress(data)
        elif name in ("nvtx_gpu_proj_trace/trace.parquet", "report_nvtx_pushpop_trace.parquet"):
            t = pq.read_table(io.BytesIO(data))
            cols = [pa.array([sub(v) for v in c.to_pylist()], type=c.type)
                    if pa.types.is_string(c.type) else c for c in t.columns]
            b = io.BytesIO()
            pq.write_table(pa.Table.from_arrays(cols, schema=t.schema), b, compression="snappy")
            out[name] = b.getvalue()
        else:
            out[name] = data
    return out


def first_executions_only(members):
    """MEMBERS with trace.parquet cut to the first execution of each module per thread (and
    the ranges inside it): every program compiled in the profile then has execution 0 only,
    which the HEAD rule leaves without steady rows (warns, takes everything as steady)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    import io
    name = "nvtx_gpu_proj_trace/trace.parquet"
    t = pq.read_table(io.BytesIO(members[name]))
    text, rid, tid = t["Text"].to_pylist(), t["Range ID"].to_pylist(), t["TID"].to_pylist()
    start, stack = t["Start"].to_pylist(), t["Range Stack"].to_pylist()
    seen, dropped = set(), set()
    for i in sorted(range(len(text)), key=lambda i: start[i]):
        if text[i].startswith("XlaModule:"):
            if (tid[i], text[i]) in seen:
                dropped.add(rid[i])
            seen.add((tid[i], text[i]))
    keep = [rid[i] not in dropped and not dropped.intersection(stack[i] or [])
            for i in range(len(text))]
    out = io.BytesIO()
    pq.write_table(t.filter(pa.array(keep)), out, compression="snappy")
    members = dict(members)
    members[name] = out.getvalue()
    return members, len(dropped)


def combine_dir(path, archives):
    """The nsys-jax-combine layout of ARCHIVES {slug: members}: one file per process."""
    for slug, members in archives.items():
        for name, data in members.items():
            if name in ("nvtx_gpu_proj_trace/trace.parquet", "thread-metadata.parquet",
                        "report_nvtx_pushpop_trace.parquet"):
                full = os.path.join(path, name, slug)
            else:
                full = os.path.join(path, name)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True, help="the shared archive-era archive")
    ap.add_argument("--head", required=True, help="the directory holding nsys_jax/")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        t = pathlib.Path(tmp)
        (t / "protoc").mkdir()
        compile_protos(a.archive, t / "protoc")
        cases = {
            "newer archive (Domain column set, pushpop parquet)": dict(),
            "newer archive (Text column set, pushpop csv.xz)": dict(domain=False,
                                                                    pushpop="csv.xz"),
        }
        for k, (label, opts) in enumerate(cases.items()):
            members = with_dumps(a.archive, **opts)
            z = t / f"new{k}.zip"
            newer_archive.write_zip(z, members)
            ext = t / f"extracted{k}"
            newer_archive.write_dir(ext, members)
            compare(a.profq, [str(z)], ext, a.head, label)
            compare(a.profq, [str(ext)], ext, a.head, label + ", extracted directory")

        # Nothing steady under the HEAD rule: the loader warns and takes every row as steady.
        members, cut = first_executions_only(with_dumps(a.archive))
        check(cut > 0, f"first executions only: {cut} later module executions cut")
        z = t / "first.zip"
        newer_archive.write_zip(z, members)
        ext = t / "first"
        newer_archive.write_dir(ext, members)
        compare(a.profq, [str(z)], ext, a.head, "first executions only (nothing steady)")
        p = run([a.profq, "nsys", "--section", "modules", str(z)])
        check(p.returncode == 0 and "warning: the HEAD warm-up rule leaves no steady rows"
              in p.stdout, f"first executions only: text warns ({p.stdout[:300]!r})")
        p = run([a.profq, "nsys", "--section", "modules", str(t / "new0.zip")])
        check(p.returncode == 0 and "warning:" not in p.stdout,
              "newer archive with steady rows: no warning")

        procs = {
            "rank0": with_dumps(a.archive),
            "rank1": with_dumps(a.archive, process=1, pid_offset=100000,
                                                 scale=1.01, launcher_order=(0, 1, 2, 3)),
        }
        zips = []
        job = t / "job"
        job.mkdir()
        for slug, members in procs.items():
            newer_archive.write_zip(job / f"{slug}.zip", members)
            zips.append(str(job / f"{slug}.zip"))
        comb = t / "combined"
        combine_dir(comb, procs)
        compare(a.profq, zips, comb, a.head, "two archives on the command line")
        compare(a.profq, [str(comb)], comb, a.head, "the nsys-jax-combine output directory")
        shutil.copy(zips[0], job / "rank0-copy.zip")
        compare(a.profq, [str(job)], comb, a.head,
                "a directory of the two archives and an identical copy of one")
        compare(a.profq, zips + [str(job / "rank0-copy.zip")], comb, a.head,
                "the two archives and an identical copy on the command line")

        # Not strictly SPMD: process 1 numbers every program 100 higher. HEAD's
        # fingerprints make each one program with process 0's (one modules[] row).
        procs["rank1"] = renumbered(procs["rank1"], 100)
        job2 = t / "job2"
        job2.mkdir()
        zips = []
        for slug, members in procs.items():
            newer_archive.write_zip(job2 / f"{slug}.zip", members)
            zips.append(str(job2 / f"{slug}.zip"))
        comb2 = t / "combined2"
        combine_dir(comb2, procs)
        compare(a.profq, zips, comb2, a.head, "two archives numbering programs differently")
        compare(a.profq, [str(comb2)], comb2, a.head,
                "the nsys-jax-combine output of archives numbering programs differently")
        p = run([a.profq, "nsys", "--format", "json", str(comb2)])
        ids = [m["program_id"] for m in json.loads(p.stdout)["modules"]] if not p.returncode else []
        check(ids and len(ids) == len(set(ids)) and "7bfc001d01c11a054a2e8a5fd0482112" in ids,
              f"renumbered: one modules[] row per fingerprint, program 16's included ({ids})")


main()
if failures:
    print(f"newer_loader: {len(failures)} check(s) failed")
    sys.exit(1)
print("newer_loader: all checks passed")
