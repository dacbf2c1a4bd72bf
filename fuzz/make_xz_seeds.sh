#!/bin/sh
# make_xz_seeds.sh - writes the seeds of fuzz/fuzz_xz.c into fuzz/corpus/xz with the xz tool:
# small text, random and empty inputs at several presets, lc/lp/pb, checks and block sizes,
# and concatenated streams with padding. Run from the repository's top directory.
set -eu
out=fuzz/corpus/xz
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -r "$tmp"' EXIT
i=0
while [ $i -lt 120 ]; do echo "$i,$((i * 7919 % 1000)),TSL:XlaModule:#hlo_module=jit_$((i % 9))#,7883"; i=$((i + 1)); done > "$tmp/text"
head -c 700 /dev/urandom > "$tmp/random"
: > "$tmp/empty"
printf 'a' > "$tmp/one"
cat "$tmp/text" "$tmp/random" "$tmp/text" > "$tmp/mixed"
for f in text random empty one mixed; do
  xz -c -0 "$tmp/$f" > "$out/$f-0.xz"
  xz -c -9e --check=crc32 "$tmp/$f" > "$out/$f-9e-crc32.xz"
done
xz -c --check=none "$tmp/mixed" > "$out/mixed-none.xz"
xz -c --format=xz --lzma2=preset=6,lc=0,lp=4,pb=0 "$tmp/mixed" > "$out/mixed-lc0lp4pb0.xz"
xz -c --lzma2=preset=1,lc=4,pb=4 "$tmp/text" > "$out/text-lc4pb4.xz"
xz -c --block-size=1000 "$tmp/mixed" > "$out/mixed-blocks.xz"
{ cat "$out/text-0.xz"; printf '\0\0\0\0'; cat "$out/random-0.xz"; printf '\0\0\0\0\0\0\0\0'; } > "$out/concat-padded.xz"
