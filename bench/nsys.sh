#!/usr/bin/env bash
# The nsys-jax benchmark (`make bench` runs it after bench/summary.sh): on the shared
# archive ../shared/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip, in the same run,
#   profq nsys --format json ARCHIVE   every section (read in place from the .zip)
#   bench/peer_nsys.py                 the archive-era nsys-jax loader (JAX-Toolbox 283578bd):
#                                      load every frame + align + warm-up split + the
#                                      notebook's summaries (module table, compile, runtime,
#                                      opcodes, flame weights, collectives, variability, heap)
# The peer reads an extracted archive with compiled XLA protos: both are prepared once
# before timing (in its favour). profq runs BENCH_NSYS_RUNS (default 10) times, the peer
# BENCH_NSYS_PEER_RUNS (default 3): best wall time (to the millisecond, time.perf_counter),
# best CPU (user+system) time, highest peak RSS (the child's rusage). Prints a Markdown table with
# the ratio and saves it to build/bench/nsys.md. Venv: build/venv-nsysloader, the oracle's
# (tests/nsys/loader-requirements.txt).   BUILD=build bench/nsys.sh
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup
SHARED=${SHARED:-$top/../shared}
archive="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip"
loader="$SHARED/peers/nsys-jax/archive-era/python/jax_nsys"
if [ ! -f "$archive" ] || [ ! -d "$loader" ]; then
  echo "bench/nsys: $archive or $loader is missing; skipped" >&2
  exit 0
fi
if ! py=$(scripts/venv.sh nsysloader tests/nsys/loader-requirements.txt); then
  echo "bench/nsys: could not create build/venv-nsysloader (PyPI?); skipped" >&2
  exit 0
fi

# --- the peer's input, prepared once (not timed) ---------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-bench-nsys-XXXXXX")
trap 'rm -rf "$work"' EXIT
"$py" - "$archive" "$work" <<'PY'
import pathlib, sys, zipfile
from grpc_tools import protoc
archive, work = sys.argv[1], pathlib.Path(sys.argv[2])
with zipfile.ZipFile(archive) as z:
    z.extractall(work / "archive")
protos = work / "archive" / "protos"
(work / "py").mkdir()
wkt = pathlib.Path(protoc.__file__).parent / "_proto"
files = [str(p.relative_to(protos)) for p in protos.rglob("*.proto")]
if protoc.main(["protoc", f"-I{protos}", f"-I{wkt}", f"--python_out={work / 'py'}"] + files):
    sys.exit("bench/nsys: the archive's protos do not compile")
PY

# --- measuring ---------------------------------------------------------------------------
# measure RUNS CMD...: prints "best_wall_s best_cpu_s max_rss_kib" of RUNS runs, the times
# to the millisecond: wall from time.perf_counter around the child (fork to wait4), CPU
# (user+system) and peak RSS from that child's own rusage (os.wait4), so that 0.043 s and
# 0.060 s differ (/usr/bin/time prints hundredths).
measure() {
  local n=$1; shift
  "$py" - "$n" "$out/nsys.last" "$out/nsys.err" "$@" <<'PY'
import os, subprocess, sys, time
n, last, errf, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
wall = cpu = None
rss = 0
for _ in range(n):
    with open(last, "wb") as o, open(errf, "wb") as e:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=o, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
        t1 = time.perf_counter()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.stderr.write(f"bench/nsys: {' '.join(cmd)} failed:\n" + open(errf).read())
        sys.exit(1)
    c = ru.ru_utime + ru.ru_stime
    wall = t1 - t0 if wall is None else min(wall, t1 - t0)
    cpu = c if cpu is None else min(cpu, c)
    rss = max(rss, ru.ru_maxrss)  # KiB on Linux
print(f"{wall:.3f} {cpu:.3f} {rss}")
PY
}
runs=${BENCH_NSYS_RUNS:-10}
read -r pw pc prss < <(measure "$runs" "$profq" nsys --format json "$archive")
echo "bench/nsys: profq nsys: ${pw}s, CPU ${pc}s, ${prss} KiB" >&2
read -r lw lc lrss < <(measure "${BENCH_NSYS_PEER_RUNS:-3}" "$py" bench/peer_nsys.py \
  --loader "$loader" --prefix "$work/archive" --protos "$work/py")
echo "bench/nsys: loader: ${lw}s, CPU ${lc}s, ${lrss} KiB ($(cat "$out/nsys.last"))" >&2
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }

table="| nsys-jax archive (1.9 MB zip, 21,493 ranges) | best wall s | best CPU s | peak RSS MiB |
|---|---:|---:|---:|
| profq nsys --format json (every section) | $pw | $pc | $((prss / 1024)) |
| archive-era loader + align + warm-up + notebook summaries | $lw | $lc | $((lrss / 1024)) |
| ratio (loader / profq) | $(ratio "$lw" "$pw")x | $(ratio "$lc" "$pc")x | $(ratio "$lrss" "$prss")x |"
echo "$table" | tee "$out/nsys.md"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)" | tee -a "$out/nsys.md"
