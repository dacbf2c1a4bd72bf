#!/usr/bin/env bash
# The nsys-jax benchmark (`make bench` runs it after bench/summary.sh): on the shared
# archive ../shared/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip, in the same run,
#   profq nsys --format json ARCHIVE   every section (read in place from the .zip)
#   bench/peer_nsys.py                 the archive-era nsys-jax loader (JAX-Toolbox 283578bd):
#                                      load every frame + align + warm-up split + the
#                                      notebook's summaries (module table, compile, runtime,
#                                      opcodes, flame weights, collectives, variability, heap)
# The peer reads an extracted archive with compiled XLA protos: both are prepared once
# before timing (in its favour). Each side runs BENCH_NSYS_RUNS (default 5; the peer 3)
# times under /usr/bin/time: best wall time, best CPU (user+system) time, highest peak RSS. Prints a Markdown table with
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
# measure RUNS CMD...: prints "best_wall best_cpu max_rss_kib" of RUNS runs (CPU: user+sys).
measure() {
  local n=$1 best="" cpu="" rss=0 t w u s m c; shift
  for _ in $(seq "$n"); do
    t=$(mktemp)
    if ! /usr/bin/time -f '%e %U %S %M' -o "$t" "$@" > "$out/nsys.last" 2> "$out/nsys.err"; then
      echo "bench/nsys: $* failed:" >&2; cat "$out/nsys.err" >&2; rm -f "$t"; return 1
    fi
    read -r w u s m < <(tail -1 "$t"); rm -f "$t"
    c=$(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }')
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN{exit !(a<b)}'; then cpu=$c; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  echo "$best $cpu $rss"
}
runs=${BENCH_NSYS_RUNS:-5}
read -r pw pc prss < <(measure "$runs" "$profq" nsys --format json "$archive")
echo "bench/nsys: profq nsys: ${pw}s, CPU ${pc}s, ${prss} KiB" >&2
read -r lw lc lrss < <(measure "${BENCH_NSYS_PEER_RUNS:-3}" "$py" bench/peer_nsys.py \
  --loader "$loader" --prefix "$work/archive" --protos "$work/py")
echo "bench/nsys: loader: ${lw}s, CPU ${lc}s, ${lrss} KiB ($(cat "$out/nsys.last"))" >&2
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f", a / b; else print "-" }'; }

table="| nsys-jax archive (1.9 MB zip, 21,493 ranges) | best wall s | best CPU s | peak RSS MiB |
|---|---:|---:|---:|
| profq nsys --format json (every section) | $pw | $pc | $((prss / 1024)) |
| archive-era loader + align + warm-up + notebook summaries | $lw | $lc | $((lrss / 1024)) |
| ratio (loader / profq) | $(ratio "$lw" "$pw")x | $(ratio "$lc" "$pc")x | $(ratio "$lrss" "$prss")x |"
echo "$table" | tee "$out/nsys.md"
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u +%Y-%m-%d)" | tee -a "$out/nsys.md"
