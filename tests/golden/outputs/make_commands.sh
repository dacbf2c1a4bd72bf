#!/usr/bin/env bash
# Writes tests/golden/outputs/commands.txt: every command of profq on every file of
# ../shared/data and tests/fixtures, in every output format and grouping, one shell line
# each. Run from a working directory where data/ is ../shared/data and fixtures/ is
# tests/fixtures (tests/golden/outputs.sh makes one). $P is the profq binary.
# The list is generated once and committed, so a broken module listing cannot shrink it.
set -euo pipefail
P=${PROFQ:?}
x() { printf '%s\n' "$*"; }
shopt -s nullglob

xplanes=(data/xplane/*.xplane.pb data/xplane/mi300x8_jax_conv_legacy data/xplane/corrupt/*.pb)
hlos=(data/hlo/*.pb fixtures/jax_cpu/*/*.hlo.pb)
traces=(data/trace-json/*)
tts=(data/tenstorrent/*.log)
others=(data/nsys/* data/xprof-output/*)

for f in "${xplanes[@]}" "${hlos[@]}" "${traces[@]}" "${tts[@]}" "${others[@]}"; do
    for fmt in text json; do
        x "\$P info --format $fmt '$f'"
        x "\$P tools --format $fmt '$f'"
        x "\$P scan --format $fmt '$f'"
    done
done

for f in "${xplanes[@]}" "${hlos[@]}"; do
    for fmt in text json; do x "\$P memory-viewer --format $fmt '$f'"; done
    # Every module and memory space the listing names.
    { "$P" memory-viewer --format json "$f" 2>/dev/null || true; } | python3 -c '
import json, sys
try:
    d = json.load(sys.stdin)
except Exception:
    sys.exit(0)
for m in d.get("modules", []):
    for ms in m.get("memory_spaces", [0]) or [0]:
        print(m["module"] if "module" in m else m["name"], ms)
' | while read -r mod ms; do
        for fmt in text json xprof; do
            x "\$P memory-viewer --format $fmt --module '$mod' --memory-space $ms '$f'"
        done
    done
    for fmt in text json tsv md; do x "\$P memory --format $fmt '$f'"; done
    for fmt in text json tsv svg; do x "\$P heap --format $fmt '$f'"; done
    for fmt in text json xprof; do x "\$P memory-profile --format $fmt '$f'"; done
    for by in op category program; do
        for fmt in text json xprof; do x "\$P ops --by $by --format $fmt '$f'"; done
        x "\$P ops --by $by --top 5 '$f'"
    done
    for by in program category provenance; do
        x "\$P ops --format xprof --view op_profile --by $by '$f'"
    done
    for fmt in text json xprof; do x "\$P roofline --format $fmt '$f'"; done
    x "\$P roofline --top 3 --peak-flops 100 --peak-bw 1000 '$f'"
    x "\$P export '$f'"
done
x "\$P memory --format json data/xplane/mi300x8_jax_conv_legacy data/xplane/mi300x8_jax_conv.xplane.pb"
x "\$P memory --module jit_run_scan fixtures/jax_cpu/inference/jit_run_scan.hlo.pb"

n=0
for f in "${xplanes[@]}" "${traces[@]}" "${others[@]}"; do
    n=$((n + 1))
    x "\$P summarize '$f'"
    x "\$P summarize '$f' -o s/$n.json >/dev/null; test -f s/$n.json || exit 0; \$P report s/$n.json"
    x "test -f s/$n.json || exit 0; \$P report --top-k 3 s/$n.json"
    for q in "top ops" "is communication dominating compute" "collective breakdown" \
        "gap before all-reduce" "context for gap of copy.1" "hierarchical regions" \
        "memory-bound ops" "did it regress" "what is the step time"; do
        x "test -f s/$n.json || exit 0; \$P query s/$n.json --question '$q'"
    done
done
x "\$P summarize --warmup-steps 1 --hot-op-limit 5 data/trace-json/hta__trace_diff__control__control.json.gz"
x "\$P summarize --breakdown-mode exclusive_global data/trace-json/hta__nccl_parser_config__nccl_data.json.gz"
prev=""
for k in $(seq 1 "$n"); do
    if [ -n "$prev" ]; then
        x "test -f s/$prev.json && test -f s/$k.json || exit 0; \$P compare s/$prev.json s/$k.json"
        x "test -f s/$prev.json && test -f s/$k.json || exit 0; \$P track s/$prev.json s/$k.json --label L$k --history s/h.jsonl"
    fi
    prev=$k
done
x "test -f s/h.jsonl || exit 0; \$P history s/h.jsonl"
x "test -f s/h.jsonl || exit 0; \$P history s/h.jsonl --tail 2"

for f in "${tts[@]}"; do
    b=$(basename "$f" .log)
    x "\$P tt summary '$f'"
    x "\$P tt analyze '$f' -o tt/$b >/dev/null && cat tt/$b/*"
    x "\$P tt report tt/$b -o tt/$b.html >/dev/null && cat tt/$b.html"
done

# profq nsys (appended later, so the numbers above stay): the nsys-jax archive in every
# format and section and both warm-up rules; the XPlanes (GPU ones give the tables, the TPU
# one is refused); the SQLite exports and a .nsys-rep (refused: no XLA ranges, a report);
# a missing file and an unknown section.
zip="'data/nsys/nsys-jax_h100_maxtext_fsdp4.zip'"
for f in text json svg; do x "\$P nsys --format $f $zip"; done
x "\$P nsys --section flame --format svg $zip"
for s in modules runtime opcodes collectives variability bias compile heap flame; do
    for f in text json; do x "\$P nsys --section $s --format $f $zip"; done
done
x "\$P nsys --warmup head --format json $zip"
x "\$P nsys --warmup archive-era --section modules $zip"
x "\$P nsys --section modules --section runtime --format json $zip"
for f in data/xplane/*.xplane.pb data/xplane/mi300x8_jax_conv_legacy; do
    case "$f" in data/xplane/tpu_inference_2.xplane.pb) continue ;; esac
    for g in text json svg; do x "\$P nsys --format $g '$f'"; done
    x "\$P nsys --section flame '$f'"
done
f=data/xplane/tpu_inference_2.xplane.pb
for g in text json svg; do x "\$P nsys --format $g '$f'"; done
x "\$P nsys --section flame '$f'"
for f in data/nsys/*.sqlite data/nsys/gh200_pdl_2p2c.nsys-rep; do x "\$P nsys '$f'"; done
x "\$P nsys 'fixtures/does-not-exist.zip'"
x "\$P nsys --section nosuch $zip"
