"""profq memory-viewer vs XProf's memory_viewer, field for field.

Usage: memviewer_xprof.py PROFQ DATA_DIR WORK_DIR [EXTRA_HLO_DIR...] [--time]

For every XPlane (data/xplane/*.xplane.pb, data/xplane/*/*.xplane.pb; not corrupt/) and
every standalone HloProto (data/hlo/*, and the project's own small HloProtos in the
EXTRA_HLO_DIRs: fuzz/corpus/hlo, tests/fixtures), every module profq lists and every memory space
of that module: run XProf (xspace_to_tools_data, tool memory_viewer) and
`profq memory-viewer --format xprof`, parse both, compare every field. Numbers compare
within 1e-9 relative. Orders XProf leaves unspecified (absl hash maps) compare by the rule
in docs/internals/memviewer.md:
  - maxHeap: objects of indefinite allocations (groupName not Temporary) as a multiset,
    the peak-live objects and the small aggregate in order; `numbered` must be a
    permutation of 0..n-1 (its values follow the hash order).
  - maxHeapBySize: same multiset; sizes in the same (descending) sequence.
  - maxHeapToBySize / bySizeToMaxHeap: each side's pair must be inverse permutations
    that map maxHeap onto maxHeapBySize.
  - indefiniteLifetimes: multiset.
  - bufferBlocks: with one allocation block, in order, every field; a color is compared
    only for buffers whose maxHeap `numbered` agrees on both sides (it is the palette
    index). With several allocation blocks: multiset without offset and color.
Exit 0 with zero differences, 1 otherwise.
"""
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import time

from xprof.convert import _pywrap_profiler_plugin as pw

PROFQ, DATA, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
TIME = "--time" in sys.argv
EXTRA = [a for a in sys.argv[4:] if a != "--time"]


def num_eq(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return True
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b))
    return False


def diff(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a:
                out.append(f"{path}.{k}: missing in profq (xprof {str(b[k])[:80]})")
            elif k not in b:
                out.append(f"{path}.{k}: extra in profq ({str(a[k])[:80]})")
            else:
                diff(a[k], b[k], f"{path}.{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: length {len(a)} vs xprof {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if not num_eq(a, b):
            out.append(f"{path}: {a!r} vs xprof {b!r}")
    elif a != b:
        out.append(f"{path}: {str(a)[:120]!r} vs xprof {str(b)[:120]!r}")


def canon(o):
    return json.dumps(o, sort_keys=True)


def strip(o, keys):
    return {k: v for k, v in o.items() if k not in keys}


def multiset_diff(a, b, path, out):
    ca = sorted(canon(x) for x in a)
    cb = sorted(canon(x) for x in b)
    if len(ca) != len(cb):
        out.append(f"{path}: {len(ca)} items vs xprof {len(cb)}")
        return
    for i, (x, y) in enumerate(zip(ca, cb)):
        diff(json.loads(x), json.loads(y), f"{path}{{sorted {i}}}", out)


def check_perm(d, who, out):
    mh, bs = d.get("maxHeap", []), d.get("maxHeapBySize", [])
    m2b, b2m = d.get("maxHeapToBySize", []), d.get("bySizeToMaxHeap", [])
    n = len(mh)
    if sorted(o.get("numbered", 0) for o in mh) != list(range(n)):
        out.append(f"{who}: maxHeap numbered is not a permutation")
    if sorted(m2b) != list(range(n)) or sorted(b2m) != list(range(n)):
        out.append(f"{who}: index maps are not permutations")
        return
    for j in range(n):
        if canon(bs[j]) != canon(mh[b2m[j]]) or m2b[b2m[j]] != j:
            out.append(f"{who}: bySizeToMaxHeap[{j}] does not map maxHeapBySize onto maxHeap")
            return


def compare(ours, ref):
    out = []
    a, b = dict(ours), dict(ref)
    for d, who in ((a, "profq"), (b, "xprof")):
        check_perm(d, who, out)
    # maxHeap
    def split(mh):
        ind = [strip(o, {"numbered"}) for o in mh
               if o.get("logicalBufferId", 0) != -1 and o.get("groupName") != "Temporary"]
        seq = [strip(o, {"numbered"}) for o in mh
               if not (o.get("logicalBufferId", 0) != -1 and o.get("groupName") != "Temporary")]
        return ind, seq
    ia, sa = split(a.get("maxHeap", []))
    ib, sb = split(b.get("maxHeap", []))
    multiset_diff(ia, ib, "maxHeap(indefinite)", out)
    diff(sa, sb, "maxHeap(peak)", out)
    multiset_diff([strip(o, {"numbered"}) for o in a.get("maxHeapBySize", [])],
                  [strip(o, {"numbered"}) for o in b.get("maxHeapBySize", [])], "maxHeapBySize", out)
    diff([o.get("logicalBufferSizeMib", 0) for o in a.get("maxHeapBySize", [])],
         [o.get("logicalBufferSizeMib", 0) for o in b.get("maxHeapBySize", [])],
         "maxHeapBySize.sizes", out)
    multiset_diff(a.get("indefiniteLifetimes", []), b.get("indefiniteLifetimes", []),
                  "indefiniteLifetimes", out)
    # bufferBlocks
    ba, bb = a.get("bufferBlocks", []), b.get("bufferBlocks", [])
    na = {o.get("logicalBufferId"): o.get("numbered") for o in a.get("maxHeap", [])}
    nb = {o.get("logicalBufferId"): o.get("numbered") for o in b.get("maxHeap", [])}
    containers = sum(1 for x in bb if x.get("logicalBufferId") == -1)
    if containers <= 1 and len(ba) == len(bb):
        for i, (x, y) in enumerate(zip(ba, bb)):
            lb = y.get("logicalBufferId")
            keys = set()
            if lb in nb and na.get(lb) != nb.get(lb):
                keys = {"color"}
            diff(strip(x, keys), strip(y, keys), f"bufferBlocks[{i}]", out)
    else:
        multiset_diff([strip(x, {"offset", "color"}) for x in ba],
                      [strip(x, {"offset", "color"}) for x in bb], "bufferBlocks", out)
    for k in ("maxHeap", "maxHeapBySize", "maxHeapToBySize", "bySizeToMaxHeap",
              "indefiniteLifetimes", "bufferBlocks"):
        a.pop(k, None)
        b.pop(k, None)
    diff(a, b, "", out)
    return out


def profq_modules(path):
    r = subprocess.run([PROFQ, "memory-viewer", "--format", "json", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"profq failed to list {path}: {r.stderr}")
    return json.loads(r.stdout)["modules"]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    inputs = sorted(glob.glob(os.path.join(DATA, "xplane", "*.xplane.pb")) +
                    glob.glob(os.path.join(DATA, "xplane", "*", "*.xplane.pb")))
    inputs = [p for p in inputs if "/corrupt/" not in p]
    hlos = sorted(glob.glob(os.path.join(DATA, "hlo", "*")))
    for d in EXTRA:
        hlos += sorted(glob.glob(os.path.join(d, "**", "*.hlo_proto.pb"), recursive=True) +
                       glob.glob(os.path.join(d, "**", "*.hlo.pb"), recursive=True))
    cases = 0
    failures = 0
    t_xprof = t_profq = 0.0
    for n, path in enumerate(inputs + hlos):
        run = os.path.join(WORK, f"run{n}")
        os.makedirs(run)
        mods = profq_modules(path)
        if path in inputs:
            xs = os.path.join(run, os.path.basename(path))
            os.symlink(os.path.abspath(path), xs)
            pw.xspace_to_tools_data([xs], "tool_names", {})
        else:
            xs = os.path.join(run, "host.xplane.pb")
            open(xs, "wb").close()
            for m in mods:
                os.symlink(os.path.abspath(path), os.path.join(run, m["module"] + ".hlo_proto.pb"))
        for m in mods:
            for space in m["memory_spaces"]:
                cases += 1
                t0 = time.perf_counter()
                raw, ok = pw.xspace_to_tools_data(
                    [xs], "memory_viewer",
                    {"module_name": m["module"], "memory_space": str(space)})
                t1 = time.perf_counter()
                r = subprocess.run([PROFQ, "memory-viewer", "--format", "xprof", "--module",
                                    m["module"], "--memory-space", str(space), path],
                                   capture_output=True, text=True)
                t2 = time.perf_counter()
                t_xprof += t1 - t0
                t_profq += t2 - t1
                name = f"{os.path.basename(path)} {m['module']} space {space}"
                if not ok:
                    if r.returncode == 3:
                        continue
                    failures += 1
                    print(f"FAIL {name}: xprof refused ({raw[:200]!r}), profq exit {r.returncode}")
                    continue
                if r.returncode != 0:
                    failures += 1
                    print(f"FAIL {name}: profq exit {r.returncode}: {r.stderr.strip()}")
                    continue
                out = compare(json.loads(r.stdout), json.loads(raw))
                if out:
                    failures += 1
                    print(f"FAIL {name}: {len(out)} differences")
                    for line in out[:10]:
                        print("    " + line)
    print(f"memory-viewer conformance: {cases} module/memory-space cases, "
          f"{failures} with differences")
    if TIME:
        print(f"time: xprof {t_xprof:.3f}s, profq {t_profq:.3f}s")
    return 1 if failures or cases == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
