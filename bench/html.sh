#!/usr/bin/env bash
# The HTML report benchmark (`make bench` runs it after bench/summary.sh): `profq html` of
# the generated 1 GiB XSpace (bench/gen_xspace.c, the input of bench/run.sh) and of the
# generated 1 GiB Kineto trace (bench/gen_kineto.c, the input of bench/summary.sh): per
# input the best wall time and CPU (user+sys) of BENCH_RUNS (default 3) runs under
# /usr/bin/time, the highest peak RSS, and the size of the page written (the page keeps
# --top rows per table and 2000 points per chart, so its size stays bounded). Prints a
# Markdown table and saves it to build/bench/html.md.
#   BUILD=build bench/html.sh    BENCH_HTML_XSPACE_SIZE, BENCH_HTML_KINETO_SIZE (1073741824),
#                                BENCH_SEED (1)
# Inputs are cached in build/bench/ (shared with run.sh and summary.sh; never committed).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup
xsize=${BENCH_HTML_XSPACE_SIZE:-1073741824}
ksize=${BENCH_HTML_KINETO_SIZE:-1073741824}
seed=${BENCH_SEED:-1}
runs=${BENCH_RUNS:-3}

for g in gen_xspace gen_kineto; do
  ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$BUILD/bench/$g.new" \
    "bench/$g.c"
  mv "$BUILD/bench/$g.new" "$BUILD/bench/$g"
done
if [ "$xsize" = 1073741824 ]; then xname=xspace_1g; else xname=xspace_$xsize; fi
xfile="$out/$xname/host.xplane.pb"
bench_generate bench/gen_xspace.c "$BUILD/bench/gen_xspace" "$xfile" "$out/$xname.stamp" "$xsize" "$seed"
kfile="$out/kineto_$ksize/rank-0.pt.trace.json"
bench_generate bench/gen_kineto.c "$BUILD/bench/gen_kineto" "$kfile" "$out/kineto_$ksize.stamp" \
  "$ksize" "$seed"

rows=()
# measure LABEL FILE: best wall, best CPU, highest RSS of $runs runs of profq html FILE.
measure() {
  local label=$1 f=$2 best="" cpu="" rss=0 t w u s m c page="$out/html_$1.html"
  for _ in $(seq "$runs"); do
    t=$(mktemp)
    if ! /usr/bin/time -f '%e %U %S %M' -o "$t" "$profq" html "$f" -o "$page" 2>"$out/html.err"; then
      echo "bench: html of $label failed:" >&2; cat "$out/html.err" >&2; rm -f "$t"; return 1
    fi
    read -r w u s m < <(tail -1 "$t"); rm -f "$t"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u + s}')
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; fi
    if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN{exit !(a<b)}'; then cpu=$c; fi
    [ "$m" -gt "$rss" ] && rss=$m
  done
  rows+=("$label|$(stat -c %s "$f")|$best|$cpu|$rss|$(stat -c %s "$page")")
  echo "bench: html $label: ${best}s wall, ${cpu}s CPU, ${rss} KiB, page $(stat -c %s "$page") bytes" >&2
}
measure xspace "$xfile"
measure kineto "$kfile"
{
  echo "## profq html"
  echo
  echo "Best of $runs runs; page cache warm; \`nproc\` = $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| input | input bytes | wall (s) | CPU (s) | peak RSS (KiB) | page bytes |"
  echo "|---|---:|---:|---:|---:|---:|"
  for r in "${rows[@]}"; do
    IFS='|' read -r l ib w c m pb <<<"$r"
    echo "| $l | $ib | $w | $c | $m | $pb |"
  done
} | tee "$out/html.md"
