#!/usr/bin/env bash
# Map and merge (issue 15 Deliver 2): for every command with --partial and every format it
# prints, the partials of a split of the inputs into 1, 2, 4 and 8 parts, merged in a seeded
# random order (and as a tree of merges), print exactly what one process over all the
# inputs prints: the same exit code, stdout and stderr (memory-profile --format xprof over
# several hosts fails alike). Inputs: the shared XPlane files (one source per host), 8
# generated hosts (bench/gen_xspace.c, seeds 1..8, small; the issue's "4-host run dir" is
# not in ../shared/data), the issue's 64 generated hosts (seeds 101..164, smaller), the TPU XSpace alone, TPU XSpaces with device "Steps" lines
# (scripts/add_tpu_steps.py: one alone, and with others), and for info and memory-profile
# files of every format (HloProto, Tenstorrent log, trace JSON). Also: a truncated partial, a
# partial of another version, of another command and a non-partial are exit 3 with the
# offset. XProf's tables of ops and roofline (hlo_stats, op_profile, roofline_model) merge
# from partials made with --format xprof ("ops:xprof", "roofline:xprof" below), and only
# from those (exit 2 otherwise; exit 3 for a merge of both kinds).
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

# The commands with partials, and the options (a format, a grouping, ...) each one is
# checked with, one variant a line.
# CMD:xprof: the partials are made with --format xprof (XProf's tables).
cmds="scan ops roofline ops:xprof roofline:xprof info memory-profile memory"
variants() {
  case $1 in
    ops:xprof) printf '%s\n' "--format xprof" "--format xprof --view hlo_stats" \
      "--format xprof --view op_profile" "--format xprof --view op_profile --by category" \
      "--format xprof --view op_profile --by provenance" ;;
    roofline:xprof) printf '%s\n' "--format xprof" ;;
    scan) printf '%s\n' "--format text" "--format json" ;;
    ops) printf '%s\n' "--format text" "--format json" "--by category" "--by program --format json" \
      "--top 5 --wide" "--peak-flops 100 --peak-bw 2000 --format json" ;;
    roofline) printf '%s\n' "--format text" "--format json" "--top 3 --peak-flops 50" ;;
    info) printf '%s\n' "--format text" "--format json" ;;
    memory-profile) printf '%s\n' "--format text" "--format json" "--format xprof" ;;
    memory) printf '%s\n' "--format text" "--format json" "--format tsv" "--format md" "--wide" ;;
  esac
}

# --- the inputs ---------------------------------------------------------------------------
gen="$tmp/gen_xspace"
${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -o "$gen" bench/gen_xspace.c || exit 1
mkdir -p "$tmp/gen"
for s in 1 2 3 4 5 6 7 8; do
  "$gen" "$tmp/gen/host$s.xplane.pb" $((96 * 1024 + s * 8192)) "$s" >/dev/null || exit 1
done
# the issue's 64 generated hosts of one job (seeds 1..64, smaller still), split 1/2/4/8 ways
mkdir -p "$tmp/gen64"
for s in $(seq 1 64); do
  "$gen" "$tmp/gen64/host$(printf %02d "$s").xplane.pb" $((48 * 1024 + s * 1024)) "$((100 + s))" \
    >/dev/null || exit 1
done
sets="gen gen64"
declare -A SET_FILES=([gen]="$(echo "$tmp"/gen/host*.xplane.pb)"
  [gen64]="$(echo "$tmp"/gen64/host*.xplane.pb)")
if [ -d "$SHARED/data/xplane" ]; then
  x="$SHARED/data/xplane"
  # every shared XSpace (TPU and GPU runs: one process reads the TPU planes only), and the
  # two hosts of one GPU run (the conv program on MI300X, recorded twice)
  SET_FILES[shared]="$(echo "$x"/*.xplane.pb "$x"/mi300x8_jax_conv_legacy/*.xplane.pb)"
  SET_FILES[conv]="$x/mi300x8_jax_conv.xplane.pb $x/mi300x8_jax_conv_legacy/chi-mi300x-013.xplane.pb"
  SET_FILES[tpu]="$x/tpu_inference_2.xplane.pb" # one XSpace: memory-profile's xprof prints
  d="$SHARED/data"
  SET_FILES[formats]="$(echo "$d"/hlo/mi300x8_jax_conv_legacy__jit__normal*.pb \
    "$d"/tenstorrent/*.log "$d"/trace-json/hta__cpu_only__*.gz \
    "$d"/trace-json/kineto__docs__*.json "$x"/mi300_jax08_elementwise.xplane.pb)"
  sets="gen gen64 shared conv tpu formats"
  # TPU XSpaces with device "Steps" lines (scripts/add_tpu_steps.py, as the conformance
  # suite roofline_steps.sh makes them): roofline_model's step records come from the
  # partials' step counts, of several sources over XProf's step intersection of the hosts
  # (a TPU host without steps empties it)
  tpu=$x/tpu_inference_2.xplane.pb
  protopy=$(scripts/venv.sh test tests/requirements.txt 2>/dev/null) || protopy=
  if [ -f "$tpu" ] && [ -n "$protopy" ]; then
    mkdir -p "$tmp/tsteps"
    for spec in 4: 7: 3:/device:TPU:1; do
      # shellcheck disable=SC2086
      "$protopy" scripts/add_tpu_steps.py "$tpu" "$tmp/tsteps/steps${spec%%:*}.xplane.pb" \
        ${spec%%:*} ${spec#*:} > /dev/null || bad "add_tpu_steps.py $spec"
    done
    SET_FILES[tpusteps]="$tmp/tsteps/steps4.xplane.pb" # one source: the step records
    SET_FILES[tpustepsall]="$(echo "$tmp"/tsteps/*.xplane.pb "$tpu" \
      "$x"/mi300x8_jax_conv.xplane.pb)" # several, one without steps: none, as one process
    # two copies of one host (4 steps); three hosts: 4 steps, 7, and 7 a step (11.7 s) later
    # (tests/conformance/step_hosts.py), aligned by their step times
    mkdir -p "$tmp/thosts" "$tmp/tshift"
    cp "$tmp/tsteps/steps4.xplane.pb" "$tmp/thosts/host0.xplane.pb"
    cp "$tmp/tsteps/steps4.xplane.pb" "$tmp/thosts/host1.xplane.pb"
    cp "$tmp/tsteps/steps4.xplane.pb" "$tmp/tshift/host0.xplane.pb"
    cp "$tmp/tsteps/steps7.xplane.pb" "$tmp/tshift/host1.xplane.pb"
    "$protopy" tests/conformance/step_hosts.py "$tmp/tsteps/steps7.xplane.pb" \
      "$tmp/tshift/host2.xplane.pb" 0 11700000000 || bad "step_hosts.py for tshift"
    SET_FILES[tpuhosts]="$(echo "$tmp"/thosts/*.xplane.pb)"
    SET_FILES[tpushift]="$(echo "$tmp"/tshift/*.xplane.pb)"
    sets="$sets tpusteps tpustepsall tpuhosts tpushift"
  elif [ "${CI:-}" = true ]; then
    bad "no venv (scripts/venv.sh test): TPU step lines not checked"
  fi
else
  echo "partial: $SHARED/data/xplane absent: the shared sets are skipped"
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
# same WHAT: the exit code, stdout and stderr of the last merge equal one process's.
same() {
  cmp -s "$tmp/one.$v" "$tmp/merged" && cmp -s "$tmp/one.$v.err" "$tmp/merged.err" &&
    [ "$(cat "$tmp/one.$v.rc")" = "$rc" ] ||
    bad "$*: merged output differs (exit $rc, $(head -c 300 "$tmp/merged.err"))"
}
for set in $sets; do
  # in byte order: merge prints the sources in path order, as a run directory lists them
  mapfile -t files < <(printf '%s\n' ${SET_FILES[$set]} | LC_ALL=C sort)
  for cmd in $cmds; do
    # scan reads XPlanes; ops and roofline also the trace files and HloProtos given with one
    case $set:$cmd in formats:scan) continue ;; esac
    base=${cmd%%:*} mapopt=""
    [ "$base" = "$cmd" ] || mapopt="--format ${cmd#*:}"
    mapfile -t vars < <(variants "$cmd")
    for v in "${!vars[@]}"; do
      # shellcheck disable=SC2086
      "$PROFQ" "$base" ${vars[$v]} "${files[@]}" > "$tmp/one.$v" 2>"$tmp/one.$v.err"
      echo $? > "$tmp/one.$v.rc"
      # only XProf's memory_profile of several XSpaces fails (exit 2), and must merge so
      case "$(cat "$tmp/one.$v.rc") ${#files[@]} ${vars[$v]}" in
        0\ *) ;;
        2\ [2-9]*xprof | 2\ [1-9][0-9]*xprof) ;;
        *) bad "$set $cmd ${vars[$v]}: one process failed: $(cat "$tmp/one.$v.err")" ;;
      esac
    done
    for n in 1 2 4 8; do
      rm -f "$tmp"/part.*
      k=0
      while read -r group; do
        # shellcheck disable=SC2086
        "$PROFQ" "$base" $mapopt --partial -o "$tmp/part.$k" $group ||
          bad "$set $cmd: --partial of$group"
        k=$((k + 1))
      done < <(split_files "$n" "${files[@]}")
      mapfile -t parts < <(ls "$tmp"/part.* | shuf --random-source=<(yes "$n$set"))
      half=$((k / 2))
      if [ "$k" -ge 2 ]; then # a tree: the first half merged into a partial, then the rest
        "$PROFQ" merge "$base" --partial -o "$tmp/tree" "${parts[@]:0:$half}" || bad "tree merge"
      fi
      for v in "${!vars[@]}"; do
        # shellcheck disable=SC2086
        "$PROFQ" merge "$base" ${vars[$v]} "${parts[@]}" > "$tmp/merged" 2> "$tmp/merged.err"
        rc=$?
        same "$set $cmd ${vars[$v]} split $n (${parts[*]##*/})"
        checked=$((checked + 1))
        if [ "$k" -ge 2 ]; then
          # shellcheck disable=SC2086
          "$PROFQ" merge "$base" ${vars[$v]} "${parts[@]:$half}" "$tmp/tree" > "$tmp/merged" \
            2> "$tmp/merged.err"
          rc=$?
          same "$set $cmd ${vars[$v]} split $n: tree merge"
          checked=$((checked + 1))
        fi
      done
    done
  done
done

# memory's map options (--module, --memory-space) are the partial's: a prefix that some
# hosts ran, one that only the TPU host ran, and one that matches nothing (exit 3 and the
# message of one process, though each part alone also matches nothing)
mapfile -t files < <(printf '%s\n' ${SET_FILES[shared]:-${SET_FILES[gen]}} | LC_ALL=C sort)
for opt in "--module jit_matmul" "--module jit_f" "--module no_such_module" "--memory-space 1"; do
  v=m
  # shellcheck disable=SC2086
  "$PROFQ" memory $opt "${files[@]}" > "$tmp/one.$v" 2> "$tmp/one.$v.err"
  echo $? > "$tmp/one.$v.rc"
  rm -f "$tmp"/part.*
  k=0
  while read -r group; do
    # shellcheck disable=SC2086
    "$PROFQ" memory $opt --partial -o "$tmp/part.$k" $group || bad "memory $opt --partial"
    k=$((k + 1))
  done < <(split_files 3 "${files[@]}")
  "$PROFQ" merge memory "$tmp"/part.* > "$tmp/merged" 2> "$tmp/merged.err"
  rc=$?
  same "memory $opt split 3"
  checked=$((checked + 1))
done
"$PROFQ" memory --module jit_f --partial -o "$tmp/other" "${files[0]}" || bad "memory --module"
"$PROFQ" merge memory "$tmp/part.0" "$tmp/other" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 3 ] && grep -q "other --rules, --module or --memory-space" "$tmp/err" ||
  bad "memory partials of two --module merged: exit $rc, $(cat "$tmp/err")"

# summarize: one process over a directory of trace files prints the summary set; partials
# of the files (each file one document), split 1/2/4 ways in random order, merge to it; one
# file's partial merges to that file's summary. A directory given to --partial is exit 2.
if [ -d "$SHARED/data/trace-json" ]; then
  export SOURCE_DATE_EPOCH=1700000000 # generated_at_utc, the same in both
  t="$SHARED/data/trace-json"
  mkdir -p "$tmp/ranks"
  for f in "$t"/hta__trace_filter__sampled_rank-*.json.gz "$t"/hta__triton_example__*.json.gz \
    "$t"/hta__amd_trace__*.json.gz; do ln -s "$f" "$tmp/ranks/"; done
  mapfile -t files < <(printf '%s\n' "$tmp"/ranks/* | LC_ALL=C sort)
  v=s
  "$PROFQ" summarize "$tmp/ranks" > "$tmp/one.$v" 2> "$tmp/one.$v.err"
  echo $? > "$tmp/one.$v.rc"
  grep -q '"profq.summary_set.v1"' "$tmp/one.$v" || bad "summarize of a directory: not a set"
  for n in 1 2 4; do
    rm -f "$tmp"/part.*
    k=0
    while read -r group; do
      # shellcheck disable=SC2086
      "$PROFQ" summarize --partial -o "$tmp/part.$k" $group || bad "summarize --partial"
      k=$((k + 1))
    done < <(split_files "$n" "${files[@]}")
    mapfile -t parts < <(ls "$tmp"/part.* | shuf --random-source=<(yes "$n"))
    "$PROFQ" merge summarize "${parts[@]}" > "$tmp/merged" 2> "$tmp/merged.err"
    rc=$?
    same "summarize split $n"
    checked=$((checked + 1))
  done
  "$PROFQ" summarize "${files[0]}" > "$tmp/one.$v" 2> "$tmp/one.$v.err"
  echo $? > "$tmp/one.$v.rc"
  "$PROFQ" summarize --partial -o "$tmp/part.1" "${files[0]}" || bad "summarize --partial"
  "$PROFQ" merge summarize "$tmp/part.1" > "$tmp/merged" 2> "$tmp/merged.err"
  rc=$?
  same "summarize of one file"
  checked=$((checked + 1))
  "$PROFQ" summarize --partial -o "$tmp/part.1" "$tmp/ranks" > /dev/null 2>&1; rc=$?
  [ "$rc" = 2 ] || bad "summarize --partial of a directory of several: exit $rc, expected 2"
  unset SOURCE_DATE_EPOCH
fi

# --- bad partials: exit 3 with the file and offset ------------------------------------
"$PROFQ" scan --partial -o "$tmp/good" "$tmp/gen/host1.xplane.pb" || bad "scan --partial"
expect3() { # NAME PATTERN FILE [CMD]: merge CMD (scan) FILE exits 3 and says PATTERN
  local name=$1 pat=$2 f=$3 rc
  "$PROFQ" merge "${4:-scan}" "$f" > /dev/null 2> "$tmp/err"; rc=$?
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
expect3 "version 99" "offset 8: partial version 99: expected version 4" "$tmp/v99"
{ cat "$tmp/good"; printf 'x'; } > "$tmp/long"
expect3 "trailing byte" "offset $size: expected the end of the partial" "$tmp/long"
expect3 "an XSpace" "offset 0: not a profq partial" "$tmp/gen/host1.xplane.pb"
"$PROFQ" ops --partial -o "$tmp/ops" "$tmp/gen/host1.xplane.pb" || bad "ops --partial"
expect3 "an ops partial" "a partial of 'ops', expected one of 'scan'" "$tmp/ops"
cuts() { # CMD FIRST BACK: the partial $tmp/CMD cut at FIRST, half and size-BACK is exit 3
  local cmd=$1 size cut rc
  size=$(stat -c %s "$tmp/$cmd")
  for cut in "$2" $((size / 2)) $((size - $3)); do
    head -c "$cut" "$tmp/$cmd" > "$tmp/trunc"
    "$PROFQ" merge "$cmd" "$tmp/trunc" > /dev/null 2> "$tmp/err"; rc=$?
    [ "$rc" = 3 ] && grep -q "offset $cut: truncated partial" "$tmp/err" ||
      bad "$cmd partial cut at $cut: exit $rc, $(cat "$tmp/err")"
  done
}
cuts ops 100 3
# XProf's tables take partials made with --format xprof, profq's text and JSON the others
# (exit 2), and the two kinds do not merge (exit 3)
"$PROFQ" merge ops --format xprof "$tmp/ops" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "take partials made with --format xprof" "$tmp/err" ||
  bad "merge ops --format xprof of a text partial: exit $rc, expected 2: $(cat "$tmp/err")"
"$PROFQ" ops --format xprof --partial -o "$tmp/xops" "$tmp/gen/host2.xplane.pb" ||
  bad "ops --format xprof --partial"
"$PROFQ" merge ops --format json "$tmp/xops" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 2 ] && grep -q "render as XProf's tables only" "$tmp/err" ||
  bad "merge ops --format json of an xprof partial: exit $rc, expected 2: $(cat "$tmp/err")"
"$PROFQ" merge ops --format xprof "$tmp/xops" "$tmp/ops" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 3 ] && grep -q "one with --format xprof" "$tmp/err" ||
  bad "an xprof and a text ops partial merged: exit $rc, expected 3: $(cat "$tmp/err")"
"$PROFQ" merge roofline --format xprof --view op_profile "$tmp/xops" > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || bad "merge roofline --view op_profile: exit $rc, expected 2"
# roofline_model's TPU step records (device "Steps" lines) are in the partial: one source's
# merge prints them as one process does (the sets tpusteps and tpustepsall above), and a
# partial of the previous version is refused (exit 3) with the version it has
if [ -f "$tmp/tsteps/steps4.xplane.pb" ]; then
  "$PROFQ" roofline --format xprof --partial -o "$tmp/tsp" "$tmp/tsteps/steps4.xplane.pb" ||
    bad "roofline --format xprof --partial of TPU step lines"
  "$PROFQ" merge roofline --format xprof "$tmp/tsp" | grep -q '"v":"Average"' ||
    bad "merge of TPU step lines: no Average step record"
  { head -c 8 "$tmp/tsp"; printf '\x02\x00\x00\x00'; tail -c +13 "$tmp/tsp"; } > "$tmp/v2"
  "$PROFQ" merge roofline --format xprof "$tmp/v2" > /dev/null 2> "$tmp/err"; rc=$?
  [ "$rc" = 3 ] && grep -q "offset 8: partial version 2: expected version 4" "$tmp/err" ||
    bad "a version 2 partial: exit $rc, $(cat "$tmp/err")"
  # the merge of several TPU hosts has their intersected steps, numbered from 0
  "$PROFQ" roofline --format xprof --partial -o "$tmp/tsp1" "$tmp/tshift/host1.xplane.pb" &&
    "$PROFQ" roofline --format xprof --partial -o "$tmp/tsp2" "$tmp/tshift/host2.xplane.pb" ||
    bad "roofline --format xprof --partial of TPU hosts"
  "$PROFQ" merge roofline --format xprof "$tmp/tsp1" "$tmp/tsp2" | grep -q '"v":"5"' ||
    bad "merge of two TPU hosts a step apart: no step 5 record"
fi
cp "$tmp/xops" "$tmp/ops"
cuts ops 100 3
"$PROFQ" info --partial -o "$tmp/info" "$tmp/gen/host1.xplane.pb" || bad "info --partial"
"$PROFQ" merge info --format xprof "$tmp/info" > /dev/null 2>&1; rc=$?
[ "$rc" = 2 ] || bad "merge info --format xprof: exit $rc, expected 2 (usage)"
"$PROFQ" merge memory-profile "$tmp/info" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" = 3 ] && grep -q "a partial of 'info', expected one of 'memory-profile'" "$tmp/err" ||
  bad "an info partial merged as memory-profile: exit $rc, $(cat "$tmp/err")"
cuts info 30 1

# --- nsys: partials of nsys-jax archives and Nsight SQLite exports ---------------------
# `profq merge nsys` over the partials of any split of the inputs, in any order or as a
# tree, prints what one `profq nsys` over the inputs in path order prints (every format and
# some sections); an archive given twice (the same bytes) is one process in both. The
# newer-layout archives are built with pyarrow and pandas (tests/nsys/newer_archive.py) from the
# shared one, as other processes of the job (offset pids, scaled durations).
nsys_case() { # NAME FILE...: one process against merges of splits 1, 2 and 4
  local name=$1 n k v rc half
  shift
  local -a files parts nv
  mapfile -t files < <(printf '%s\n' "$@" | LC_ALL=C sort)
  nv=("--format text" "--format json" "--format svg" "--section modules"
    "--section compile --section heap --format json" "--section flame --format svg"
    "--warmup head --section runtime --section collectives")
  for v in "${!nv[@]}"; do
    # shellcheck disable=SC2086
    "$PROFQ" nsys ${nv[$v]} "${files[@]}" > "$tmp/one.$v" 2> "$tmp/one.$v.err"
    echo $? > "$tmp/one.$v.rc"
  done
  for n in 1 2 4; do
    rm -f "$tmp"/part.*
    k=0
    while read -r group; do
      # shellcheck disable=SC2086
      "$PROFQ" nsys --partial -o "$tmp/part.$k" $group || bad "nsys $name: --partial of$group"
      k=$((k + 1))
    done < <(split_files "$n" "${files[@]}")
    mapfile -t parts < <(ls "$tmp"/part.* | shuf --random-source=<(yes "$n$name"))
    half=$((k / 2))
    [ "$k" -lt 2 ] || "$PROFQ" merge nsys --partial -o "$tmp/tree" "${parts[@]:0:$half}" ||
      bad "nsys $name: tree merge"
    for v in "${!nv[@]}"; do
      # shellcheck disable=SC2086
      "$PROFQ" merge nsys ${nv[$v]} "${parts[@]}" > "$tmp/merged" 2> "$tmp/merged.err"
      rc=$?
      same "nsys $name ${nv[$v]} split $n (${parts[*]##*/})"
      checked=$((checked + 1))
      if [ "$k" -ge 2 ]; then
        # shellcheck disable=SC2086
        "$PROFQ" merge nsys ${nv[$v]} "${parts[@]:$half}" "$tmp/tree" > "$tmp/merged" \
          2> "$tmp/merged.err"
        rc=$?
        same "nsys $name ${nv[$v]} split $n: tree merge"
        checked=$((checked + 1))
      fi
    done
  done
}
nsysz="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip"
if [ -f "$nsysz" ]; then
  nsys_case archive "$nsysz"
  grep -q "steady" "$tmp/one.0" || bad "nsys of the shared archive printed no module table"
  nsyspy=$(scripts/venv.sh nsysloader tests/nsys/loader-requirements.txt 2> /dev/null) || nsyspy=
  mkdir -p "$tmp/nsysin"
  if [ -n "$nsyspy" ] && "$nsyspy" tests/nsys/partial_archives.py "$nsysz" "$tmp/nsysin"; then
    n="$tmp/nsysin"
    nsys_case newer "$n/b_newer0.zip" "$n/c_newer1.zip" "$n/d_newer2.zip" "$n/e_same_as_b.zip"
    grep -q "3 archive(s)" "$tmp/one.0" || bad "nsys of the newer archives: not 3 archives"
    nsys_case newer-and-shared "$nsysz" "$n/c_newer1.zip" "$n/d_newer2.zip"
  elif [ "${CI:-}" = true ]; then
    bad "no venv (scripts/venv.sh nsysloader) or no newer archives: those nsys merges not checked"
  fi
  # a truncated or corrupt nsys partial: exit 3 with the offset and what was expected
  "$PROFQ" nsys --partial -o "$tmp/nsys" "$nsysz" || bad "nsys --partial"
  # compact: the compile section's share, not the push/pop ranges (1.86 MB -> 0.52 MB)
  psize=$(wc -c < "$tmp/nsys") zsize=$(wc -c < "$nsysz")
  [ "$psize" -lt $((zsize / 3)) ] || bad "nsys partial of $psize bytes for a $zsize-byte archive"
  # a dump whose bytes are not those its sha256 names: exit 3 at the dump's offset
  python3 - "$tmp/nsys" "$tmp/nsys.dump" << 'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
assert struct.unpack_from("<Q", d, 24)[0] > 0
d[24 + 8 + 8 + 32 + 8] ^= 1                  # the first dump's first byte
open(sys.argv[2], "wb").write(d)
PY
  expect3 "an nsys partial with a changed dump" \
    "offset 32: malformed partial: expected a dump's sha256, that of its bytes" "$tmp/nsys.dump" nsys
  # several processes of one job: their dumps held once in a merged partial
  if [ -f "$tmp/nsysin/c_newer1.zip" ]; then
    "$PROFQ" nsys --partial -o "$tmp/nb" "$tmp/nsysin/b_newer0.zip" &&
      "$PROFQ" nsys --partial -o "$tmp/nc" "$tmp/nsysin/c_newer1.zip" &&
      "$PROFQ" merge nsys --partial -o "$tmp/nbc" "$tmp/nb" "$tmp/nc" || bad "nsys partials of two newer archives"
    nb=$(wc -c < "$tmp/nb") nc=$(wc -c < "$tmp/nc") nbc=$(wc -c < "$tmp/nbc")
    [ $((nb + nc - nbc)) -gt 200000 ] || bad "merged nsys partial of $nbc bytes from $nb and $nc: dumps not shared"
  fi
  # an infinite compile sum (one a real archive cannot give): exit 3 at its offset
  python3 - "$tmp/nsys" "$tmp/nsys.inf" > "$tmp/nsys.off" << 'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
u = lambda: struct.unpack_from("<Q", d, p)[0]
p = 24 + 8
for _ in range(2 * struct.unpack_from("<Q", d, 24)[0]):
    p += 8 + u()
p += 8                                       # the source count
for _ in range(2):                           # path, sha256
    p += 8 + u()
p += 8 + 8                                   # size, the blob's length
p += 8                                       # format
newer, export = struct.unpack_from("<QQ", d, p)
p += 16 + (64 if export else 0)
assert u() == 1                              # the timeline
p += 8 + 16
for _ in range(u() + 1):                     # the names (count first)
    p += 8 + (u() if _ else 0)
p += 8 + 48 * struct.unpack_from("<Q", d, p)[0]
p += 8 + 16 * struct.unpack_from("<Q", d, p)[0]
p += 8 + 24 * struct.unpack_from("<Q", d, p)[0]
has_module = struct.unpack_from("<Q", d, p + 8)[0]
p += 24
for _ in range(7 if has_module else 6):      # the columns
    p += 8 + u()
for _ in range(u() * 2 + 1):                 # the dumps: name, sha256
    p += 8 + (u() if _ else 0)
assert u() == 1                              # the compile part
p += 8 + 32 + 8
p += 8 + u() + 8                             # the first entry's name, hit
struct.pack_into("<d", d, p, float("inf"))
open(sys.argv[2], "wb").write(d)
print(p)
PY
  expect3 "an nsys partial with an infinite compile sum" \
    "offset $(cat "$tmp/nsys.off"): malformed partial: expected a compile pass's non-child time" \
    "$tmp/nsys.inf" nsys
  # a partial of another version: exit 3 at offset 8
  { head -c 8 "$tmp/nsys"; printf '\x03\x00\x00\x00'; tail -c +13 "$tmp/nsys"; } > "$tmp/nsys.v3"
  expect3 "a version 3 nsys partial" "offset 8: partial version 3: expected version 4" \
    "$tmp/nsys.v3" nsys
  cuts nsys 100 3
  python3 - "$tmp/nsys" "$tmp/nsys.bad" > "$tmp/nsys.off" << 'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
p = 24 + 8                                   # body: the dump count, the dumps
for _ in range(2 * struct.unpack_from("<Q", d, 24)[0]):
    p += 8 + struct.unpack_from("<Q", d, p)[0]
p += 8                                       # the source count
for _ in range(2):                           # path, sha256
    p += 8 + struct.unpack_from("<Q", d, p)[0]
p += 8 + 8                                   # size, the blob's length
p += 8 * 3 + (8 * 8 if struct.unpack_from("<Q", d, p + 16)[0] else 0)  # format .. export
p += 8 + 8 + 8                               # timeline flag, base flag, base time
struct.pack_into("<Q", d, p, 1 << 40)        # the name count
open(sys.argv[2], "wb").write(d)
print(p)
PY
  "$PROFQ" merge nsys "$tmp/nsys.bad" > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" = 3 ] && grep -q "offset $(cat "$tmp/nsys.off"): truncated partial: expected the name count" \
    "$tmp/err" || bad "nsys partial with a huge name count: exit $rc, $(cat "$tmp/err")"
  "$PROFQ" merge nsys "$tmp/info" > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" = 3 ] && grep -q "a partial of 'info', expected one of 'nsys'" "$tmp/err" ||
    bad "an info partial merged as nsys: exit $rc, $(cat "$tmp/err")"
  "$PROFQ" nsys --partial --section modules -o "$tmp/x.part" "$nsysz" > /dev/null 2>&1
  rc=$?
  [ "$rc" = 2 ] && [ ! -e "$tmp/x.part" ] || bad "nsys --partial --section: exit $rc, expected 2"
fi
# Nsight SQLite exports: the merge prints, or fails, as one process does
if ls "$SHARED"/data/nsys/*.sqlite > /dev/null 2>&1; then
  nsys_case sqlite "$SHARED"/data/nsys/*.sqlite
fi
# JAX XPlane GPU profiles (the MI300 runs, and both hosts of the conv run), and the TPU
# XSpace, which one process refuses (no GPU plane holds XLA kernels): the merge alike
x="$SHARED/data/xplane"
if [ -f "$x/mi300_jax08_attention.xplane.pb" ]; then
  nsys_case xplane "$x"/mi300*.xplane.pb "$x"/mi300x8_jax_conv_legacy/*.xplane.pb
  grep -q "XPlane GPU profile" "$tmp/one.0" || bad "nsys of the MI300 XPlanes printed no table"
  nsys_case tpu "$x/tpu_inference_2.xplane.pb"
fi
# a trace file has no nsys partial (exit 3, nothing written)
tj=$(ls "$SHARED"/data/trace-json/hta__cpu_only__*.json.gz 2> /dev/null | head -1)
if [ -n "$tj" ]; then
  "$PROFQ" nsys --partial -o "$tmp/x.part" "$tj" > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" = 3 ] && grep -q "not mergeable: nsys partials hold" "$tmp/err" && [ ! -e "$tmp/x.part" ] ||
    bad "nsys --partial of a trace file: exit $rc, $(cat "$tmp/err")"
fi

echo "partial: $checked merges compared"
exit $fail
