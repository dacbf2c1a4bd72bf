"""profq memory-profile --format xprof vs XProf's memory_profile, field for field.

Usage: memprofile_xprof.py PROFQ DATA_DIR WORK_DIR
Every XPlane in data/xplane (not corrupt/): XProf's xspace_to_tools_data(memory_profile)
and profq, parsed, compared with memviewer_xprof.diff (numbers within 1e-9 relative).
Snapshots with equal times have no defined order in XProf (std::sort); where the
sequences differ only by such a reordering, they compare as multisets per time. Active
allocations with equal sort keys collapse into one entry whose representative snapshot
XProf takes in hash-map order: for entries with numOccurrences > 1 the snapshot compares
without its time, address and aggregation stats (docs/internals/memviewer.md).
Exit 0 with zero differences.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from memviewer_xprof import diff  # noqa: E402

from xprof.convert import _pywrap_profiler_plugin as pw  # noqa: E402

PROFQ, DATA, WORK = sys.argv[1:4]


def by_time(snaps):
    return sorted(json.dumps(s, sort_keys=True) for s in snaps)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    inputs = sorted(glob.glob(os.path.join(DATA, "xplane", "*.xplane.pb")) +
                    glob.glob(os.path.join(DATA, "xplane", "*", "*.xplane.pb")))
    inputs = [p for p in inputs if "/corrupt/" not in p]
    failures = 0
    for n, path in enumerate(inputs):
        run = os.path.join(WORK, f"run{n}")
        os.makedirs(run)
        xs = os.path.join(run, os.path.basename(path))
        os.symlink(os.path.abspath(path), xs)
        raw, ok = pw.xspace_to_tools_data([xs], "memory_profile", {})
        r = subprocess.run([PROFQ, "memory-profile", "--format", "xprof", path],
                           capture_output=True, text=True)
        name = os.path.basename(path)
        if not ok or r.returncode != 0:
            failures += 1
            print(f"FAIL {name}: xprof ok={ok}, profq exit {r.returncode} {r.stderr.strip()}")
            continue
        if not raw.strip() and not r.stdout.strip():
            print(f"ok   {name}: no /host:CPU plane, both empty")
            continue
        a, b = json.loads(r.stdout), json.loads(raw)
        out = []
        for k in sorted(set(a.get("memoryProfilePerAllocator", {})) |
                        set(b.get("memoryProfilePerAllocator", {}))):
            x = a.get("memoryProfilePerAllocator", {}).get(k, {})
            y = b.get("memoryProfilePerAllocator", {}).get(k, {})
            sx, sy = x.pop("sampledTimelineSnapshots", []), y.pop("sampledTimelineSnapshots", [])
            for z in (x, y):
                snaps = z.get("memoryProfileSnapshots", [])
                for act in z.get("activeAllocations", []):
                    i = int(act["snapshotIndex"])
                    if int(act["numOccurrences"]) > 1 and 0 <= i < len(snaps):
                        snaps[i].pop("timeOffsetPs", None)
                        snaps[i].pop("aggregationStats", None)
                        snaps[i]["activityMetadata"].pop("address", None)
            d = []
            diff(sx, sy, f".{k}.sampledTimelineSnapshots", d)
            if d and by_time(sx) != by_time(sy):
                out += d
            diff(x, y, f".{k}", out)
        a.pop("memoryProfilePerAllocator", None)
        b.pop("memoryProfilePerAllocator", None)
        diff(a, b, "", out)
        if out:
            failures += 1
            print(f"FAIL {name}: {len(out)} differences")
            for line in out[:10]:
                print("    " + line)
        else:
            print(f"ok   {name}")
    print(f"memory-profile conformance: {len(inputs)} XPlanes, {failures} with differences")
    return 1 if failures or not inputs else 0


if __name__ == "__main__":
    sys.exit(main())
