#!/usr/bin/env bash
# bench/compare.sh - the same workloads with two profq binaries, interleaved, on the same
# inputs in one run: the speed check of a redesign ("each within 5% of before or faster; RSS
# no higher"). `make bench BASELINE=/path/to/old/profq`, or BASELINE=... bench/compare.sh.
# Workloads: scan and ops of a generated 1 GiB XSpace (bench/gen_xspace.c), summarize of a
# generated 1 GiB Kineto trace (bench/gen_kineto.c), memory-viewer of the H100 module
# (../shared/data/hlo/h100_*, 50 runs per timing). For each: the best wall time and the highest peak RSS of
# BENCH_RUNS runs (default 5) of each binary, old and new alternating run by run, and the
# ratio new/old. The VM is noisy: best-of-N of interleaved runs is the comparison to read;
# callgrind counts (docs/internals) settle what is left.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup
old=${BASELINE:?set BASELINE to the profq binary to compare with}
new=$profq
runs=${BENCH_RUNS:-5}
size=${BENCH_SIZE:-1073741824}
seed=${BENCH_SEED:-1}
for g in gen_xspace gen_kineto; do
  ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$BUILD/bench/$g.new" \
    "bench/$g.c"
  mv "$BUILD/bench/$g.new" "$BUILD/bench/$g"
done
bench_generate bench/gen_xspace.c "$BUILD/bench/gen_xspace" "$out/xspace_1g/host.xplane.pb" \
  "$out/xspace_1g.stamp" "$size" "$seed"
bench_generate bench/gen_kineto.c "$BUILD/bench/gen_kineto" \
  "$out/kineto_$size/rank-0.pt.trace.json" "$out/kineto_$size.stamp" "$size" "$seed"
xs=$out/xspace_1g/host.xplane.pb
kt=$out/kineto_$size/rank-0.pt.trace.json
h100=$(ls "${SHARED:-../shared}"/data/hlo/h100_*.hlo.pb 2>/dev/null | head -1 || true)

# row LABEL ARGS...: the workload with old and new alternating, best wall and max RSS each.
row() {
  local label=$1; shift
  local bo="" bn="" ro=0 rn=0 t w m
  for _ in $(seq "$runs"); do
    for which in old new; do
      local bin=$old
      [ $which = new ] && bin=$new
      t=$(mktemp)
      /usr/bin/time -f '%e %M' -o "$t" sh -c 'n=$1 bin=$2; shift 2; for _ in $(seq "$n"); do
        "$bin" "$@" || exit 1; done' sh "${REPEAT:-1}" "$bin" "$@" \
        >/dev/null 2>"$out/compare.err" </dev/null || {
        echo "bench: $which $label failed: $(head -c 300 "$out/compare.err")" >&2
        exit 1
      }
      read -r w m < <(tail -1 "$t")
      rm -f "$t"
      if [ $which = old ]; then
        { [ -z "$bo" ] || awk -v a="$w" -v b="$bo" 'BEGIN{exit !(a<b)}'; } && bo=$w
        [ "$m" -gt "$ro" ] && ro=$m
      else
        { [ -z "$bn" ] || awk -v a="$w" -v b="$bn" 'BEGIN{exit !(a<b)}'; } && bn=$w
        [ "$m" -gt "$rn" ] && rn=$m
      fi
    done
  done
  printf '| %s | %s s | %s s | %s | %d MiB | %d MiB |\n' "$label" "$bo" "$bn" \
    "$(awk -v a="$bn" -v b="$bo" 'BEGIN{printf "%.3f", (b > 0 ? a / b : 0)}')" \
    $((ro / 1024)) $((rn / 1024))
}
cat "$xs" "$kt" >/dev/null
echo "Old: \`$old\`; new: \`$new\`; best of $runs interleaved runs each; $(date -u +%Y-%m-%d\ %H:%M) UTC;"
echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores."
echo
human=$(numfmt --to=iec-i --suffix=B "$size")
echo "| workload | old wall | new wall | new/old | old peak RSS | new peak RSS |"
echo "|---|---:|---:|---:|---:|---:|"
row "scan, $human XSpace" scan "$xs"
row "ops, $human XSpace" ops --format xprof -o /dev/null "$xs"
row "summarize, $human Kineto trace" summarize -o /dev/null "$kt"
# A run of the H100 module takes milliseconds: 50 runs per timing, wall time for all 50.
[ -n "$h100" ] && REPEAT=50 row "memory-viewer, H100 module, 50 runs" memory-viewer \
  --format xprof --module jit_train_step -o /dev/null "$h100"
exit 0
