#!/usr/bin/env bash
# The Tenstorrent log benchmark (`make bench` runs it after bench/run.sh): each real log of
# $SHARED/data/tenstorrent repeated to >= 100 MB (build/bench/, never committed), then
#   cat                      the I/O floor
#   profq tt summary LOG     read + analyze (markdown out)
#   profq tt analyze LOG -o  read + analyze + all three outputs (memory/operations JSON, HTML)
# 3 runs each under /usr/bin/time: best wall time and its CPU (user+sys) time, in MB/s of log.
# Prints a Markdown table and saves it to build/bench/tt.md.   BUILD=build bench/tt.sh
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
SHARED=${SHARED:-$top/../shared}
profq="$BUILD/profq"
out=build/bench
mkdir -p "$out"
[ -x "$profq" ] || { echo "bench: $profq is missing; run make first" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (scripts/deps.sh bench)" >&2; exit 1; }
if [ ! -d "$SHARED/data/tenstorrent" ]; then
  echo "bench/tt: $SHARED/data/tenstorrent is missing; skipped" >&2
  exit 0
fi

# best "wall cpu" of 3 runs of "$@"
measure() {
  local best="" t
  for _ in 1 2 3; do
    /usr/bin/time -o "$out/tt.time" -f '%e %U %S' "$@" > /dev/null 2>&1
    t=$(tail -1 "$out/tt.time")
    best=$(printf '%s\n%s\n' "$best" "$t" | awk 'NF==3 {print $1, $2+$3}' | sort -n | head -1)
  done
  echo "$best"
}
mbs() { awk -v b="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.0f", b / 1e6 / s; else print "-" }'; }

table="| log (repeated) | MB | ops | cat MB/s | tt summary MB/s (wall / CPU) | tt analyze MB/s (wall / CPU) |
|---|---:|---:|---:|---:|---:|"
for src in "$SHARED"/data/tenstorrent/*.log; do
  name=$(basename "$src" .log)
  big="$out/tt_${name}_x.log"
  size=$(stat -c %s "$src")
  reps=$(( (100000000 + size - 1) / size ))
  if [ ! -f "$big" ] || [ "$(stat -c %s "$big")" -ne $((size * reps)) ]; then
    rm -f "$big"
    for _ in $(seq "$reps"); do cat "$src"; done > "$big"
  fi
  bytes=$(stat -c %s "$big")
  read -r cw _ <<<"$(measure cat "$big")"
  read -r sw sc <<<"$(measure "$profq" tt summary "$big")"
  rm -rf "$out/tt_out"
  read -r aw ac <<<"$(measure "$profq" tt analyze "$big" -o "$out/tt_out")"
  ops=$("$profq" tt analyze "$big" -o "$out/tt_out" | tail -1 | cut -d' ' -f1)
  table="$table
| $name x$reps | $((bytes / 1000000)) | $ops | $(mbs "$bytes" "$cw") | $(mbs "$bytes" "$sw") / $(mbs "$bytes" "$sc") | $(mbs "$bytes" "$aw") / $(mbs "$bytes" "$ac") |"
  rm -rf "$out/tt_out"
done
echo "$table" | tee "$out/tt.md"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/tt.md"
