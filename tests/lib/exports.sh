#!/usr/bin/env bash
# libprofq exports exactly its public API: nm finds, in $BUILD/libprofq.a and
# $BUILD/libprofq.so, no defined global symbol but the functions include/profq.h declares (all
# pq_), and all of them; a program that defines its own buf_init and arena_alloc
# (tests/lib/own_symbols.c) links against each library and reads a fixture. As a control, the
# same program does not link against libprofq-internal.a, where those names are global.
. "$(dirname "$0")/setup.bash"

# The functions the header declares, from the preprocessed header (comments gone).
"$CC" -E -P -Iinclude include/profq.h | grep -o '\bpq_[A-Za-z0-9_]*[[:space:]]*(' |
  tr -d '( \t' | sort -u >"$tmp/declared"
[ "$(wc -l <"$tmp/declared")" -ge 10 ] || fail "found only $(wc -l <"$tmp/declared") functions in profq.h"

for lib in "$BUILD/libprofq.a" "$BUILD/libprofq.so"; do
  [ -f "$lib" ] || fail "$lib is missing (run make)"
  case $lib in *.so) dyn=-D ;; *) dyn= ;; esac
  nm $dyn -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/exported"
  extra=$(comm -13 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
  missing=$(comm -23 "$tmp/declared" "$tmp/exported" | tr '\n' ' ')
  [ -z "$extra" ] || fail "$lib exports symbols profq.h does not declare: $extra"
  [ -z "$missing" ] || fail "$lib does not export these functions of profq.h: $missing"
  echo "exports: $lib exports the $(wc -l <"$tmp/exported") functions of profq.h and nothing else"
done

fixture=tests/fixtures/jax_cpu/inference/jit_run_scan.hlo.pb
want="sources 1
format hlo_proto
size $(stat -c %s "$fixture")
sha256 $(sha256sum "$fixture" | cut -d' ' -f1)
buf_init(21) 42, own arena_alloc"
cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -O1 -Wall -Wextra -Werror -Iinclude)
[ -z "${SANITIZE:-}" ] || cflags+=("-fsanitize=$SANITIZE")
read -r -a deps <<<"$(pkg-config --libs liblzma zlib libzstd libdeflate)"

"$CC" "${cflags[@]}" -o "$tmp/static" tests/lib/own_symbols.c "$BUILD/libprofq.a" "${deps[@]}" \
  -lpthread -lm || fail "own_symbols.c does not link against $BUILD/libprofq.a"
"$CC" "${cflags[@]}" -o "$tmp/shared" tests/lib/own_symbols.c -L"$BUILD" -lprofq \
  -Wl,-rpath,"$top/$BUILD" || fail "own_symbols.c does not link against $BUILD/libprofq.so"
readelf -d "$tmp/shared" | grep -q 'NEEDED.*\[libprofq\.so\.[0-9]*\]' ||
  fail "the shared build does not need libprofq.so.N"
for prog in static shared; do
  got=$("$tmp/$prog" "$fixture") || fail "own_symbols ($prog) failed"
  [ "$got" = "$want" ] || fail "own_symbols ($prog) printed:
$got
expected:
$want"
  echo "exports: own_symbols ($prog) defines buf_init and arena_alloc, links and reads $fixture"
done

# Control: with every internal symbol global, the same program must fail to link.
if "$CC" "${cflags[@]}" -o "$tmp/internal" tests/lib/own_symbols.c "$BUILD/libprofq-internal.a" \
  "${deps[@]}" -lpthread -lm 2>"$tmp/internal.err"; then
  fail "own_symbols.c links against libprofq-internal.a: the control proves nothing"
fi
grep -q 'multiple definition of .buf_init' "$tmp/internal.err" ||
  fail "linking against libprofq-internal.a failed for another reason: $(head -3 "$tmp/internal.err")"
echo "exports: control: against libprofq-internal.a the link fails on buf_init, as it must"
