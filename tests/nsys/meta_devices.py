"""The GPUs of a newer nsys-jax archive's device-metadata.parquet as profq's model devices
(`profq info --format json`: sources[].trace.devices), against the parquet read with pyarrow.

Archives are built from the shared archive's rows (newer_archive.py) with a device-metadata
member whose rows differ (names, memory, a float column, a null, cuDevice out of order), one
process and two combined (nsys-jax-combine: one directory of per-process members, the second
process's launchers at global devices 4..7 with locals 0..3). Expected: each global device of
the XlaLauncher rows once, in their order, id G, kind GPU, the name and every other column of
the row whose cuDevice is the launcher's local device (key K of "('TARGET_INFO_GPU', 'K')",
nulls left out)."""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile

import pandas as pd
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import newer_archive  # noqa: E402

LAUNCHER = re.compile(r"^XlaLauncher:#global=(\d+),local=(\d+),process=(\d+),(?:partition|slice)=(\d+)#$")


def device_table(process):
    rows = [3, 1, 0, 2]  # cuDevice in file order
    return newer_archive._pandas_parquet(pd.DataFrame({
        "('TARGET_INFO_GPU', 'name')": [f"GPU p{process} d{d}" for d in rows],
        "('TARGET_INFO_GPU', 'totalMemory')": [80_000_000_000 + 1000 * d + process for d in rows],
        "('TARGET_INFO_GPU', 'smCount')": pd.array([132, None, 114, 132], dtype="Int64"),
        "('TARGET_INFO_GPU', 'clockRate')": [1.98e9 + d for d in rows],
        "busLocation": [f"0000:{d:02x}:00.0" for d in rows],
        "cuDevice": rows}), "cuDevice")


def expected(members_list):
    out = []
    for members in members_list:
        threads = pq.read_table(io.BytesIO(members["thread-metadata.parquet"])).to_pylist()
        gpus = pq.read_table(io.BytesIO(members["device-metadata.parquet"])).to_pylist()
        seen = set()
        for t in threads:
            m = LAUNCHER.match(t["Name"])
            if not m:
                continue
            g, local = int(m.group(1)), int(m.group(2))
            if g in seen:
                continue
            seen.add(g)
            row = next((r for r in gpus if r["cuDevice"] == local), None)
            if row is None:
                continue
            caps = {}
            for k, v in row.items():
                if k in ("cuDevice", "('TARGET_INFO_GPU', 'name')") or v is None:
                    continue
                mm = re.match(r"^\('TARGET_INFO_GPU', '(.*)'\)$", k)
                caps[mm.group(1) if mm else k] = v
            out.append({"id": g, "kind": "GPU", "name": row["('TARGET_INFO_GPU', 'name')"],
                        "capabilities": caps})
    return out


def profq_devices(profq, path):
    r = subprocess.run([profq, "info", "--format", "json", "--no-hash", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"meta_devices: FAIL: profq info {path}: {r.stderr.strip()}")
    srcs = json.loads(r.stdout)["sources"]
    return [d for s in srcs for d in s["trace"].get("devices", [])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--archive", required=True)
    a = ap.parse_args()
    fails, checks = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        one = newer_archive.newer_members(a.archive)
        one["device-metadata.parquet"] = device_table(0)
        path = os.path.join(tmp, "one.zip")
        newer_archive.write_zip(path, one)
        cases = [("one archive", path, [one])]
        two = newer_archive.newer_members(a.archive, process=1, pid_offset=100000, scale=1.01)
        two["device-metadata.parquet"] = device_table(1)
        comb = {}
        for slug, m in (("p0", one), ("p1", two)):
            for name, data in m.items():
                comb[f"{name}/{slug}" if name.endswith(".parquet") else name] = data
        path2 = os.path.join(tmp, "combined.zip")
        newer_archive.write_zip(path2, comb)
        cases.append(("two combined", path2, [one, two]))
        for label, p, ms in cases:
            want, got = expected(ms), profq_devices(a.profq, p)
            checks += 1
            if not want or got != want:
                fails += 1
                print(f"meta_devices: FAIL: {label}: profq {json.dumps(got)[:400]} "
                      f"expected {json.dumps(want)[:400]}")
            else:
                print(f"meta_devices: {label}: {len(got)} devices equal device-metadata.parquet")
    print(f"meta_devices: {checks - fails} of {checks} cases pass")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
