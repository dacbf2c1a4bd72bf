#!/usr/bin/env bash
# The trace-summary benchmark (`make bench` runs it after bench/run.sh): `profq summarize`
# on a generated 1 GiB Kineto trace (bench/gen_kineto.c), and side by side with Holistic
# Trace Analysis (pip HolisticTraceAnalysis, pinned in bench/hta-requirements.txt, its own
# venv build/venv-hta) loading the same generated trace. Prints a Markdown table and saves
# it to build/bench/summary.md.
#   BUILD=build bench/summary.sh     BENCH_SUMMARY_SIZE (default 1073741824), BENCH_SEED (1)
# HTA's load grows faster than linearly (about 4 s for 10 MB, 160 s of CPU for 100 MB on
# the machine of the README's figures) and would take hours on 1 GiB, so it runs on a
# smaller trace made by the same generator, BENCH_HTA_SIZE bytes (default 100 MB), where
# profq is measured too; the ratio is taken on that file. BENCH_HTA_SIZE=0 skips HTA.
# profq: BENCH_RUNS (default 5) runs under /usr/bin/time, the best wall time and the best
# CPU (user+sys) time; peak RSS is the highest of the runs. The summary runs two threads
# (the sha256 of the file beside the parse), so its wall time needs both cores free.
# Inputs are cached in build/bench/ (never committed) and regenerated when the generator,
# size or seed change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup
size=${BENCH_SUMMARY_SIZE:-1073741824}
hta_size=${BENCH_HTA_SIZE:-100000000}
seed=${BENCH_SEED:-1}
runs=${BENCH_RUNS:-5}

gen="$BUILD/bench/gen_kineto"
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$gen.new" bench/gen_kineto.c
mv "$gen.new" "$gen"
# gen_trace SIZE: generates (once) and prints the path of the trace of that size, in a
# folder of its own (HTA reads every trace of a folder).
gen_trace() {
  local sz=$1
  bench_generate bench/gen_kineto.c "$gen" "$out/kineto_$sz/rank-0.pt.trace.json" \
    "$out/kineto_$sz.stamp" "$sz" "$seed"
  echo "$out/kineto_$sz/rank-0.pt.trace.json"
}

rows=()
# measure LABEL FILE CMD...: best wall, best CPU, highest RSS of $runs runs.
measure() {
  local label=$1 f=$2; shift 2
  local best="" cpu="" rss=0 t w u s m c
  for _ in $(seq "$runs"); do
    t=$(mktemp)
    if ! /usr/bin/time -f '%e %U %S %M' -o "$t" "$@" > "$out/last.out" 2> "$out/last.err"; then
      echo "bench: $label failed:" >&2; cat "$out/last.err" >&2; rm -f "$t"; return 1
    fi
    read -r w u s m < <(tail -1 "$t"); rm -f "$t"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u + s}')
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN{exit !(a<b)}'; then cpu=$c; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  rows+=("$label|$best|$cpu|$rss|$(stat -c %s "$f")")
  best_wall=$best
  echo "bench: $label: ${best}s wall, ${cpu}s CPU, ${rss} KiB" >&2
}

file=$(gen_trace "$size")
bytes=$(stat -c %s "$file")
events=$(sed -n 2p "${file%/rank-0.pt.trace.json}.stamp")
cat "$file" > /dev/null # warm the page cache: both tools read from memory
measure "cat (I/O floor), $bytes B" "$file" sh -c 'cat "$0" > /dev/null' "$file"
measure "profq summarize, $bytes B" "$file" \
  sh -c '"$1" summarize "$0" -o "$2" > /dev/null' "$file" "$profq" "$out/summary.profq.json"
big_row=${rows[-1]}

hta_note="HTA skipped (BENCH_HTA_SIZE=0)."
if [ "$hta_size" != 0 ]; then
  [ "$hta_size" -gt "$size" ] && hta_size=$size
  hfile=$(gen_trace "$hta_size")
  if [ "$hfile" != "$file" ]; then
    cat "$hfile" > /dev/null
    measure "profq summarize, $(stat -c %s "$hfile") B" "$hfile" \
      sh -c '"$1" summarize "$0" > /dev/null' "$hfile" "$profq"
  fi
  pq_wall=$best_wall
  pq_cpu=$(IFS='|' read -r _ _ c _ _ <<<"${rows[-1]}"; echo "$c")
  if py=$(scripts/venv.sh hta bench/hta-requirements.txt); then
    runs_saved=$runs; runs=1 # HTA takes minutes; one run
    if measure "HTA TraceAnalysis load, $(stat -c %s "$hfile") B" "$hfile" \
      "$py" bench/peer_hta.py "$(dirname "$hfile")"; then
      hta_wall=$best_wall
      hta_cpu=$(IFS='|' read -r _ _ c _ _ <<<"${rows[-1]}"; echo "$c")
      hv=$(sed -n 's/^hta //p' "$out/last.out")
      hev=$(sed -n 's/^events //p' "$out/last.out")
      hload=$(sed -n 's/^load_s //p' "$out/last.out")
      hta_note=$(awk -v a="$hta_wall" -v b="$pq_wall" -v ac="$hta_cpu" -v bc="$pq_cpu" \
        -v s="$(stat -c %s "$hfile")" -v v="$hv" -v e="$hev" -v l="$hload" 'BEGIN {
        bb = (b > 0) ? b : 0.005; bc2 = (bc > 0) ? bc : 0.005
        printf "profq summarize vs HTA %s TraceAnalysis load (%d rows kept; %.1fs in-process) on the same %d-byte trace: %.2fs vs %.2fs wall, %.0fx faster (CPU time: %.2fs vs %.2fs, %.0fx); target >= 50x: %s.",
               v, e, l, s, b, a, a / bb, bc, ac, ac / bc2, (a / bb >= 50 ? "met" : "MISSED") }')
    else
      hta_note="HTA failed on the $hta_size-byte trace (see above)."
    fi
    runs=$runs_saved
  else
    hta_note="HTA skipped: PyPI could not be reached to install bench/hta-requirements.txt."
  fi
fi
echo "bench: $hta_note" >&2

model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
{
  echo "## profq summarize benchmark"
  echo
  echo "Machine: $model, $(nproc) cores, $(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Input: \`$file\`, $bytes bytes, $events events (bench/gen_kineto.c, seed $seed); page cache warm."
  echo "profq: best of $runs wall times and of $runs CPU (user+sys) times; peak RSS the highest of the runs. HTA: one run."
  echo
  echo "| run | wall s | CPU s | MB/s (wall) | MB/s (CPU) | peak RSS MiB | RSS/file size |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for r in "${rows[@]}"; do
    IFS='|' read -r label wall cpu rss rbytes <<<"$r"
    awk -v l="$label" -v w="$wall" -v c="$cpu" -v k="$rss" -v b="$rbytes" 'BEGIN {
      ww = (w > 0) ? w : 0.005; cc = (c > 0) ? c : 0.005
      mw = b / ww / 1e6; mc = b / cc / 1e6
      printf "| %s | %.2f | %.2f | %.*f | %.*f | %.1f | %.3f |\n", l, w, c, (mw < 10 ? 1 : 0), mw,
             (mc < 10 ? 1 : 0), mc, k / 1024, k * 1024 / b }'
  done
  echo
  IFS='|' read -r _ w c k b <<<"$big_row"
  awk -v w="$w" -v k="$k" -v b="$b" 'BEGIN {
    ww = (w > 0) ? w : 0.005; r = b / ww / 1e6; m = k * 1024 / b
    printf "Targets on the %d-byte trace: >= 300 MB/s of JSON: %.0f MB/s wall (%s); peak RSS <= 0.5x the file: %.3fx (%s).\n",
           b, r, (r >= 300 ? "met" : "MISSED"), m, (m <= 0.5 ? "met" : "MISSED") }'
  echo
  echo "$hta_note"
} > "$out/summary.md"
cat "$out/summary.md"
