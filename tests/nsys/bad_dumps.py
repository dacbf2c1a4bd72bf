"""Bad HLO dumps in an nsys-jax archive (tests/nsys/archive.sh): the archive of
xss_archive.py with its after-optimisation dump replaced by bytes that are not xz, and by an
xz of a truncated HloProto; `profq nsys` exits 3 naming ARCHIVE:MEMBER, the offset and what
was expected; the untouched archive exits 0. Usage: bad_dumps.py --profq P"""
import argparse
import lzma
import pathlib
import subprocess
import sys
import tempfile
import zipfile

here = pathlib.Path(__file__).resolve().parent
ap = argparse.ArgumentParser()
ap.add_argument("--profq", required=True)
a = ap.parse_args()
failures = 0
with tempfile.TemporaryDirectory() as tmp:
    good = f"{tmp}/good.zip"
    subprocess.run([sys.executable, str(here / "xss_archive.py"), good], check=True)
    p = subprocess.run([a.profq, "nsys", good], capture_output=True, text=True)
    print(("ok   " if p.returncode == 0 else "FAIL ") + f"intact dump: exit {p.returncode}")
    failures += p.returncode != 0
    src = zipfile.ZipFile(good)
    cases = (("not xz", b"not xz at all", "xz"),
             ("truncated HloProto", lzma.compress(b"\x0a\xff\xff\xff"), "expected"))
    for label, data, what in cases:
        path = f"{tmp}/bad.zip"
        with zipfile.ZipFile(path, "w") as z:
            for i in src.infolist():
                z.writestr(i.filename, data if i.filename.startswith("dump/") else src.read(i.filename))
        p = subprocess.run([a.profq, "nsys", path], capture_output=True, text=True)
        member = "bad.zip:dump/module_0005.jit_f.sm_9.0_gpu_after_optimizations.hlo.pb.xz: offset "
        ok = p.returncode == 3 and member in p.stderr and what in p.stderr
        print(("ok   " if ok else "FAIL ") + f"{label}: exit {p.returncode}, {p.stderr.strip()}")
        failures += not ok
if failures:
    print(f"bad_dumps: {failures} check(s) failed")
    sys.exit(1)
print("bad_dumps: all checks passed")
