#!/usr/bin/env bash
# Map and merge (issue 15 Deliver 2): for every command with --partial and every format it
# prints, the partials of a split of the inputs into 1, 2, 4 and 8 parts, merged in a seeded
# random order (and as a tree of merges), print exactly what one process over all the
# inputs prints. Inputs: the shared XPlane files (one source per host) and 8 generated
# hosts (bench/gen_xspace.c, seeds 1..8, small). Also: a truncated partial, a partial of
# another version, of another command and a non-partial are exit 3 with the offset.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
PROFQ=${PROFQ:-$top/$BUILD/profq}
SHARED=${SHARED:-$top/../shared}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The commands with partials, and the formats (and options) each is checked with.
declare -A FORMATS=(
  [scan]="text json"
)
cmds="scan"

# --- the inputs ---------------------------------------------------------------------------
gen="$tmp/gen_xspace"
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -o "$gen" bench/gen_xspace.c || exit 1
mkdir -p "$tmp/gen"
for s in 1 2 3 4 5 6 7 8; do
  "$gen" "$tmp/gen/host$s.xplane.pb" $((96 * 1024 + s * 8192)) "$s" >/dev/null || exit 1
done
sets="gen"
shared_files=()
if [ -d "$SHARED/data/xplane" ]; then
  shared_files=("$SHARED"/data/xplane/*.xplane.pb "$SHARED"/data/xplane/mi300x8_jax_conv_legacy/*.xplane.pb)
  sets="gen shared"
else
  echo "partial: $SHARED/data/xplane absent: the shared set is skipped"
  [ "${CI:-}" = true ] && exit 77
fi

# split N FILE...: prints the files in N contiguous groups, one group a line.
split_files() {
  local n=$1; shift
  local total=$# i=0 g line=""
  for f in "$@"; do
    g=$((i * n / total))
    if [ "$i" -gt 0 ] && [ "$g" != "$prev" ]; then echo "$line"; line=""; fi
    line="$line $f"; prev=$g; i=$((i + 1))
  done
  echo "$line"
}

checked=0
for set in $sets; do
  if [ "$set" = gen ]; then files=("$tmp"/gen/host*.xplane.pb); else files=("${shared_files[@]}"); fi
  for cmd in $cmds; do
    for fmt in ${FORMATS[$cmd]}; do
      "$PROFQ" "$cmd" --format "$fmt" "${files[@]}" > "$tmp/one" 2>"$tmp/err" ||
        { bad "$set $cmd $fmt: one process failed: $(cat "$tmp/err")"; continue; }
      for n in 1 2 4 8; do
        rm -f "$tmp"/part.*
        k=0
        while read -r group; do
          # shellcheck disable=SC2086
          "$PROFQ" "$cmd" --partial -o "$tmp/part.$k" $group || bad "$set $cmd: --partial of$group"
          k=$((k + 1))
        done < <(split_files "$n" "${files[@]}")
        mapfile -t parts < <(ls "$tmp"/part.* | shuf --random-source=<(yes "$n$set"))
        "$PROFQ" merge "$cmd" --format "$fmt" "${parts[@]}" > "$tmp/merged" ||
          bad "$set $cmd $fmt split $n: merge failed"
        cmp -s "$tmp/one" "$tmp/merged" ||
          bad "$set $cmd $fmt split $n (${parts[*]##*/}): merged output differs"
        checked=$((checked + 1))
        if [ "$k" -ge 2 ]; then # a tree: the first half merged into a partial, then the rest
          half=$((k / 2))
          "$PROFQ" merge "$cmd" --partial -o "$tmp/tree" "${parts[@]:0:$half}" || bad "tree merge"
          "$PROFQ" merge "$cmd" --format "$fmt" "${parts[@]:$half}" "$tmp/tree" > "$tmp/merged"
          cmp -s "$tmp/one" "$tmp/merged" || bad "$set $cmd $fmt split $n: tree merge differs"
          checked=$((checked + 1))
        fi
      done
    done
  done
done

# --- bad partials: exit 3 with the file and offset ------------------------------------
"$PROFQ" scan --partial -o "$tmp/good" "$tmp/gen/host1.xplane.pb" || bad "scan --partial"
expect3() { # NAME PATTERN FILE: merge scan FILE exits 3 and says PATTERN
  local name=$1 pat=$2 f=$3 rc
  "$PROFQ" merge scan "$f" > /dev/null 2> "$tmp/err"; rc=$?
  [ "$rc" = 3 ] || bad "$name: exit $rc, expected 3"
  grep -q -- "$pat" "$tmp/err" || bad "$name: message '$(cat "$tmp/err")' lacks '$pat'"
}
size=$(stat -c %s "$tmp/good")
for cut in 4 20 30 $((size - 1)); do
  head -c "$cut" "$tmp/good" > "$tmp/trunc"
  if [ "$cut" -lt 8 ]; then want="offset 0: not a profq partial"; else want="truncated partial"; fi
  expect3 "truncated at $cut" "$want" "$tmp/trunc"
done
{ head -c 8 "$tmp/good"; printf '\x63\x00\x00\x00'; tail -c +13 "$tmp/good"; } > "$tmp/v99"
expect3 "version 99" "offset 8: partial version 99: expected version 1" "$tmp/v99"
{ cat "$tmp/good"; printf 'x'; } > "$tmp/long"
expect3 "trailing byte" "offset $size: expected the end of the partial" "$tmp/long"
expect3 "an XSpace" "offset 0: not a profq partial" "$tmp/gen/host1.xplane.pb"

echo "partial: $checked merges compared"
exit $fail
