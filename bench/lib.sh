# bench/lib.sh - sourced by bench/run.sh and bench/summary.sh (not run on its own).
# bench_setup: cd to the repository, set top, BUILD, profq and out (build/bench), and check
# that profq and /usr/bin/time are there.
bench_setup() {
  top=$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)
  cd "$top"
  BUILD=${BUILD:-build}
  profq="$BUILD/profq"
  out=build/bench
  mkdir -p "$out" "$BUILD/bench"
  [ -x "$profq" ] || { echo "bench: $profq is missing; run make first" >&2; exit 1; }
  [ -x /usr/bin/time ] || { echo "bench: /usr/bin/time is missing (scripts/deps.sh bench)" >&2; exit 1; }
}

# bench_generate SOURCE GEN FILE STAMP SIZE SEED [JOB]: makes FILE with the generator GEN (built
# from SOURCE) once, and again only when the generator, size, seed or job changed. STAMP keeps
# that key on its first line and the event count the generator printed on its second.
bench_generate() {
  local src=$1 gen=$2 file=$3 stamp=$4 sz=$5 sd=$6 job=${7:-} want line
  want="$(sha256sum "$src" | cut -d' ' -f1) size=$sz seed=$sd${job:+ job=$job}"
  mkdir -p "$(dirname "$file")"
  if [ ! -f "$file" ] || [ ! -f "$stamp" ] || [ "$(head -1 "$stamp")" != "$want" ]; then
    echo "bench: generating $file ($sz bytes, seed $sd)" >&2
    rm -f "$file" "$stamp"
    line=$("$gen" "$file" "$sz" "$sd" ${job:+"$job"})
    echo "$line" >&2
    printf '%s\n%s\n' "$want" "$(sed -n 's/.* \([0-9]*\) events.*/\1/p' <<<"$line")" > "$stamp"
  fi
}
