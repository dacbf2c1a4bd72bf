#!/usr/bin/env bash
# The distributed benchmark (`make bench`, issue 15 Deliver 3): `profq ops` and `profq scan`
# over 64 generated hosts of one job (bench/gen_xspace.c, seeds 1..64, one job seed: the same
# programs and ops on every host, other timings, as an SPMD pod; BENCH_DIST_SIZE bytes each,
# default 48 MiB: about 3.2 GB together) three ways: one `profq` process with --threads 2,
# and profq.distributed.run on a fresh Dask LocalCluster of 1 and of 2 worker processes (one
# thread each). Prints wall times, each worker's peak RSS (and what the run added to it,
# against the largest file) and CPU time, the speed-up of 2 workers over 1, and checks that
# every way prints the same bytes. Saves the lines to build/bench/distributed.md.
#   BUILD=build bench/distributed.sh      (BENCH_DIST_SIZE=8M for a quick run; BENCH_DIST_CMDS)
# The inputs are generated once and cached in build/bench/dist/ (regenerated only when the
# generator, size or seed changed). The Python side runs in build/venv-python, the venv of
# tests/python.sh (tests/python-requirements.txt: dask[distributed], fsspec, pinned).
# Exit 1 when an output differs, when 2 workers are not 1.7x as fast as 1, or when a worker
# held more than 1.25x the largest file (about one file: docs/internals/partial.md, "Memory
# of a worker"); on a shared machine the
# speed-up check can fail for load alone: the lines say the load average.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup
size=${BENCH_DIST_SIZE:-48M}
cmds=${BENCH_DIST_CMDS:-ops scan}
n=64

need=$(( $(numfmt --from=iec "$size") * n / 1024 ))
avail=$(df -Pk "$out" | awk 'NR==2{print $4}')
if [ ! -d "$out/dist" ] && [ "$avail" -lt "$need" ]; then
  echo "bench: distributed: $((need / 1048576)) GiB needed in $out, $((avail / 1048576)) GiB free: skipped" >&2
  exit 1
fi

gen="$BUILD/bench/gen_xspace"
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$gen.new" \
  bench/gen_xspace.c
mv "$gen.new" "$gen"
files=()
for s in $(seq 1 $n); do
  f="$out/dist/host$(printf %02d "$s").xplane.pb"
  bench_generate bench/gen_xspace.c "$gen" "$f" "$f.stamp" "$size" "$s" 1
  files+=("$f")
done
total=$(du -cb "${files[@]}" | tail -1 | cut -f1)

py=$(scripts/venv.sh python tests/python-requirements.txt)
(unset MAKEFLAGS MFLAGS MAKELEVEL
 PROFQ_MAKE_BUILD=$BUILD "$py" -m pip install -q --disable-pip-version-check \
   --no-build-isolation --no-deps --force-reinstall ./python >/dev/null)

cat "${files[@]}" > /dev/null # warm the page cache: every way reads from memory
res="$out/distributed.md"
t=$(mktemp)
trap 'rm -f "$t" "$t.want"' EXIT
: > "$res"
for cmd in $cmds; do
  {
    echo "profq $cmd over $n hosts, $total bytes ($(awk -v b="$total" 'BEGIN{printf "%.2f GB", b/1e9}')), $(date -u +%F), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f '%e %M %U %S' -o "$t" "$profq" "$cmd" --threads 2 "${files[@]}" > "$t.want"
    read -r w m u sy < "$t"
    echo "one profq process --threads 2: wall $w s, peak RSS $((m / 1024)) MiB, CPU $(awk -v a="$u" -v b="$sy" 'BEGIN{print a+b}') s"
    one=$("$py" bench/dask_run.py "$cmd" 1 "$t.want" "${files[@]}")
    echo "$one"
    two=$("$py" bench/dask_run.py "$cmd" 2 "$t.want" "${files[@]}")
    echo "$two"
    w1=$(sed -n 's/.*wall \([0-9.]*\) s;.*/\1/p' <<<"$one")
    w2=$(sed -n 's/.*wall \([0-9.]*\) s;.*/\1/p' <<<"$two")
    # the busiest worker's CPU seconds: what the wall time follows when each worker has a core
    c1=$(grep -o 'CPU [0-9.]* s' <<<"$one" | awk '{if ($2 > m) m = $2} END{print m}')
    c2=$(grep -o 'CPU [0-9.]* s' <<<"$two" | awk '{if ($2 > m) m = $2} END{print m}')
    echo "$cmd: 2 workers over 1: $(awk -v a="$w1" -v b="$w2" 'BEGIN{printf "%.2fx", a/b}') (wanted >= 1.7x); by the busiest worker's CPU time $(awk -v a="$c1" -v b="$c2" 'BEGIN{printf "%.2fx", a/b}'); load average now $(cut -d' ' -f1-3 /proc/loadavg)"
  } | tee -a "$res"
done
fail=0
grep -q "DIFFERS" "$res" && { echo "bench: distributed: an output differs" >&2; fail=1; }
awk '/over 1:/{x=$6+0; if (x < 1.7) exit 1}' "$res" ||
  { echo "bench: distributed: 2 workers are less than 1.7x 1 worker" >&2; fail=1; }
# A worker's memory: reading one host (its mapped pages count in RSS), plus the partials
# waiting for their merge (scan's are a few hundred bytes; ops's are one host's op table, as
# the hosts of a job share their ops, kept zlib-compressed, at most FANIN - 1 per level).
awk '/most held/{for(i=1;i<=NF;i++) if ($i=="x" && $(i-1)+0 > 1.25) exit 1}' "$res" ||
  { echo "bench: distributed: a worker held more than 1.25x the largest file" >&2; fail=1; }
exit $fail
