#!/usr/bin/env bash
# Runs the XSpace fuzzer (libFuzzer + ASan + UBSan) for SECONDS; `make fuzz FUZZ_SECONDS=N`.
#   scripts/fuzz.sh SECONDS
# The working corpus build/fuzz/corpus is seeded from fuzz/corpus/xspace and the shared real
# profiles ($SHARED/data/xplane/**/*.pb, copied into build/ only, never into the repository)
# and kept between runs. On a crash, leak, timeout or out-of-memory the input is copied into
# fuzz/corpus/xspace/ (so `make test` replays it from then on) and the script exits 1.
# Extra libFuzzer flags: FUZZ_ARGS="-max_len=65536 -jobs=2".
set -euo pipefail
secs=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
SHARED=${SHARED:-$top/../shared}
bin=build/fuzz/fuzz_xspace
work=build/fuzz/corpus
artifacts=build/fuzz/artifacts
[ -x "$bin" ] || make "$bin"

mkdir -p "$work" "$artifacts"
rm -f "$artifacts"/*
seeds=0
for f in fuzz/corpus/xspace/*; do
  [ -f "$f" ] || continue
  cp "$f" "$work/seed-$(basename "$f")"; seeds=$((seeds + 1))
done
if [ -d "$SHARED/data/xplane" ]; then
  while IFS= read -r -d '' f; do
    rel=${f#"$SHARED/data/xplane/"}
    cp "$f" "$work/shared-${rel//\//__}"; seeds=$((seeds + 1))
  done < <(find "$SHARED/data/xplane" -type f -name '*.pb' -print0)
else
  echo "fuzz: $SHARED/data/xplane is missing; seeding from fuzz/corpus/xspace only" >&2
fi

# Names the reader and the analyses look for: help the mutator reach those paths.
dict=build/fuzz/xspace.dict
cat > "$dict" <<'DICT'
"/host:metadata"
"/host:CPU"
"/device:TPU:0"
"/device:TPU:1 SparseCore 0"
"/device:GPU:0"
"/device:CUSTOM:MOSAIC:0"
"#Chip 0 HBM"
"XLA Ops"
"XLA Modules"
"Steps"
"Hlo Proto"
"HLO Proto"
"program_id"
"peak_teraflops_per_second"
"peak_hbm_bw_gigabytes_per_second"
"memory_size"
"clock_rate"
"device_vendor"
"group_id"
"step_num"
"tf_op"
"hlo_category"
"flops"
"bytes_accessed"
"jit_f(12)"
"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"
DICT

echo "fuzz: $seeds seed files, $(find "$work" -type f | wc -l) in $work; running ${secs}s" >&2
rc=0
# shellcheck disable=SC2086
"$bin" "$work" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
  -dict="$dict" -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} || rc=$?

found=0
for a in "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-*; do
  [ -f "$a" ] || continue
  cp "$a" fuzz/corpus/xspace/
  echo "fuzz: $(basename "$a") saved to fuzz/corpus/xspace/ (reproduce: $bin $a)" >&2
  found=1
done
if [ $found -eq 1 ]; then
  exit 1
fi
if [ $rc -ne 0 ]; then
  echo "fuzz: the fuzzer exited $rc without leaving an input" >&2
  exit 1
fi
echo "fuzz: no crash in ${secs}s; corpus $(find "$work" -type f | wc -l) inputs" >&2
