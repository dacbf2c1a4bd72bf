"""Checks tests/summary_gpu_work.sh describes: the summary's GPU compute, ops and regions
of every Kineto trace with GPU kernels, against sums computed here from the JSON itself."""
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

WORK = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
STALL = re.compile(r"wait|barrier|dependency-wait|donation holds|semaphore|acquire|idle|blocked|sleep", re.I)
COMM = ("all-reduce", "all_gather", "all-gather", "reduce-scatter", "all-to-all", "alltoall",
        "collective", "collective-permute", "permute", "psum", "send", "recv", "nccl",
        "allgather", "allreduce", "reducescatter")


def events(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        doc = json.loads(raw)
    except ValueError:
        return None
    ev = doc if isinstance(doc, list) else doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(ev, list):
        return None
    return [e for e in ev if isinstance(e, dict) and e.get("ph") == "X"
            and isinstance(e.get("name"), str) and e["name"]
            and isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur"), (int, float))
            and e["dur"] > 0]


def self_times(evs):
    """Spec 1.5 per track: sorted by (ts, -end), a stack, partial overlap is a sibling."""
    out = {}
    tracks = {}
    for i, e in enumerate(evs):
        tracks.setdefault((e["pid"], e["tid"]), []).append(i)
    for idx in tracks.values():
        idx.sort(key=lambda i: (evs[i]["ts"], -(evs[i]["ts"] + evs[i]["dur"]), i))
        stack, child = [], {}

        def pop():
            t = stack.pop()
            out[t] = max(0.0, evs[t]["dur"] - child.get(t, 0.0))
            if stack:
                child[stack[-1]] = child.get(stack[-1], 0.0) + evs[t]["dur"]
        for i in idx:
            s, end = evs[i]["ts"], evs[i]["ts"] + evs[i]["dur"]
            while stack and s >= evs[stack[-1]]["ts"] + evs[stack[-1]]["dur"]:
                pop()
            while stack and end > evs[stack[-1]]["ts"] + evs[stack[-1]]["dur"]:
                pop()
            stack.append(i)
        while stack:
            pop()
    return out


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def synthetic(profq, tmp):
    """A GPU (pid 1) with nested annotations on stream 7, a cuda_sync record and a kernel on
    stream 8; a host aten:: range open over both kernels. The nested annotation is the
    region of the stream-7 kernel (deeper path, before the host range); the stream-8 kernel,
    with no annotation on its own stream, keeps the host range; nothing but the two kernels
    is an op; compute is the kernels' time."""
    ev = [
        {"ph": "M", "name": "process_name", "pid": 100, "args": {"name": "python"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": 0, "dur": 200},
        {"ph": "X", "cat": "gpu_user_annotation", "name": "outer", "pid": 1, "tid": 7, "ts": 10, "dur": 100},
        {"ph": "X", "cat": "gpu_user_annotation", "name": "inner", "pid": 1, "tid": 7, "ts": 20, "dur": 50},
        {"ph": "X", "cat": "kernel", "name": "k1", "pid": 1, "tid": 7, "ts": 30, "dur": 10},
        {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": 1, "tid": 7, "ts": 80, "dur": 20},
        {"ph": "X", "cat": "kernel", "name": "k2", "pid": 1, "tid": 8, "ts": 40, "dur": 6},
    ]
    path = os.path.join(tmp, "synthetic.json")
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)
    r = subprocess.run([profq, "summarize", path], capture_output=True, text=True)
    if r.returncode != 0:
        return ["synthetic: summarize exit %d: %s" % (r.returncode, r.stderr.strip())]
    s = json.loads(r.stdout)
    fails = []
    rows = sorted((o["op_name"], o["region_path"]) for o in s["device_op_region_aggregates"])
    if rows != [("k1", "outer=>inner"), ("k2", "aten=>mm")]:
        fails.append("synthetic: op regions %r, want k1 in outer=>inner, k2 in aten=>mm" % rows)
    ops = sorted(o["name"] for o in s["hot_ops"])
    if ops != ["k1", "k2"]:
        fails.append("synthetic: hot_ops %r, want k1 and k2" % ops)
    got = s["time_breakdown"]["compute"]["total_duration"]
    if got != 16.0:
        fails.append("synthetic: compute %r, want 16.0" % got)
    return fails


def main():
    profq = os.environ["PROFQ"]
    fails, checked, annotated = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        fails += synthetic(profq, tmp)
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*"))):
        evs = events(path)
        if not evs:
            continue
        work = [e for e in evs if e.get("cat") in WORK]
        if not work:
            continue
        base = os.path.basename(path)
        gpu_pids = {e["pid"] for e in work}
        not_work = {e["name"] for e in evs if e["pid"] in gpu_pids and e.get("cat") not in WORK}
        work_names = {e["name"] for e in work}
        annots = [e for e in evs if e.get("cat") == "gpu_user_annotation"]
        r = subprocess.run([profq, "summarize", "--hot-op-limit", "100000", path],
                           capture_output=True, text=True,
                           env=dict(os.environ, SOURCE_DATE_EPOCH="0"))
        if r.returncode != 0:
            fails.append("%s: summarize exit %d: %s" % (base, r.returncode, r.stderr.strip()))
            continue
        s = json.loads(r.stdout)
        checked += 1
        # Ops: GPU work only, every work name present.
        hot = {o["name"] for o in s["hot_ops"]}
        region_ops = {o["op_name"] for o in s.get("device_op_region_aggregates") or []}
        for label, names in (("hot_ops", hot), ("device_op_region_aggregates", region_ops)):
            bad = sorted((names - work_names) | (names & (not_work - work_names)))
            if bad:
                fails.append("%s: %s holds names that are not GPU work: %s" % (base, label, bad[:5]))
        if work_names - hot:
            fails.append("%s: hot_ops misses GPU work names: %s" % (base, sorted(work_names - hot)[:5]))
        # Totals: self time of the work events per stream, by the spec's name classes.
        st = self_times(work)
        want = {"compute": 0.0, "communication": 0.0, "stall": 0.0}
        for i, e in enumerate(work):
            low = e["name"].lower()
            cat = "stall" if STALL.search(e["name"]) else \
                "communication" if any(p in low for p in COMM) else "compute"
            want[cat] += st[i]
        tb = s["time_breakdown"]
        for cat in ("compute", "communication"):
            got = tb[cat]["total_duration"]
            if not close(got, want[cat]):
                fails.append("%s: %s total %.3f, GPU work gives %.3f" % (base, cat, got, want[cat]))
        got_ops = sum(o["exclusive_duration"] for o in s["hot_ops"])
        if not close(got_ops, sum(st.values())):
            fails.append("%s: hot_ops self time %.3f, GPU work gives %.3f" % (base, got_ops, sum(st.values())))
        # Annotation ranges are regions of the op-region rows.
        if annots:
            annotated += 1
            names = {e["name"] for e in annots}
            regions = {o["region_path"] for o in s.get("device_op_region_aggregates") or []}
            hit = {n for n in names if any(n in rp.split("=>") for rp in regions)}
            if not hit:
                fails.append("%s: no GPU annotation (%s) is a region of device_op_region_aggregates"
                             % (base, sorted(names)[:3]))
        print("ok %s: %d ops, compute %.3f, communication %.3f, %d annotations" % (
            base, len(hot), want["compute"], want["communication"], len(annots))
            if not any(f.startswith(base) for f in fails) else "FAIL %s" % base)
    for f in fails:
        print("FAIL:", f)
    if checked < 10 or annotated < 4:
        print("FAIL: checked %d traces with GPU work (want >= 10), %d with annotations (want >= 4)"
              % (checked, annotated))
        return 1
    print("summary_gpu_work: %d traces, %d with GPU annotations, %d failures" % (checked, annotated, len(fails)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
