#!/usr/bin/env bash
# `make install`: staged with DESTDIR, every file lands under DESTDIR/PREFIX (binary, man page,
# libprofq.a, libprofq.so with its soname links, profq.h, profq.pc naming PREFIX, not
# DESTDIR); installed into a temporary prefix, a program (tests/lib/own_symbols.c) builds
# with `pkg-config --cflags --libs profq` (shared) and with `--static` (fully static), and
# both run and read a fixture; the installed profq runs.
. "$(dirname "$0")/setup.bash"
# A make of its own (not the jobserver of the make that runs the tests).
unset MAKEFLAGS MFLAGS MAKELEVEL
mk=(make --no-print-directory -s BUILD="$BUILD")
[ -z "${SANITIZE:-}" ] || mk+=("SANITIZE=$SANITIZE")

"${mk[@]}" install PREFIX=/opt/profq-test DESTDIR="$tmp/stage" >"$tmp/log" 2>&1 ||
  fail "make install DESTDIR=... failed: $(tail -5 "$tmp/log")"
stage=$tmp/stage/opt/profq-test
for f in bin/profq share/man/man1/profq.1 lib/libprofq.a lib/libprofq.so include/profq.h \
  lib/pkgconfig/profq.pc; do
  [ -e "$stage/$f" ] || fail "DESTDIR install lacks $f"
done
[ -x "$stage/bin/profq" ] || fail "bin/profq is not executable"
soname=$(readelf -d "$BUILD/libprofq.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ -n "$soname" ] || fail "$BUILD/libprofq.so has no soname"
[ -L "$stage/lib/$soname" ] && [ -L "$stage/lib/libprofq.so" ] ||
  fail "lib/$soname and lib/libprofq.so are not symlinks"
[ -f "$(readlink -f "$stage/lib/libprofq.so")" ] || fail "lib/libprofq.so is a dangling link"
cmp -s include/profq.h "$stage/include/profq.h" || fail "include/profq.h differs from the source"
grep -qx 'prefix=/opt/profq-test' "$stage/lib/pkgconfig/profq.pc" ||
  fail "profq.pc does not say prefix=/opt/profq-test: $(head -3 "$stage/lib/pkgconfig/profq.pc")"
! grep -q "$tmp" "$stage/lib/pkgconfig/profq.pc" || fail "profq.pc names the DESTDIR"
echo "install: DESTDIR install complete (soname $soname)"

prefix=$tmp/prefix
"${mk[@]}" install PREFIX="$prefix" >"$tmp/log" 2>&1 || fail "make install failed: $(tail -5 "$tmp/log")"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion profq)" = "$(sed -n 's/^#define PQ_VERSION_STRING "\(.*\)"/\1/p' include/profq.h)" ] ||
  fail "pkg-config --modversion profq says $(pkg-config --modversion profq)"
read -r -a cflags <<<"$(pkg-config --cflags profq)"
read -r -a libs <<<"$(pkg-config --libs profq)"
read -r -a static_libs <<<"$(pkg-config --static --libs profq)"
san=()
[ -z "${SANITIZE:-}" ] || san=("-fsanitize=$SANITIZE")
cp tests/lib/own_symbols.c "$tmp/prog.c" # away from the source tree's include/
"$CC" -std=c11 -Wall -Wextra -Werror "${san[@]}" "${cflags[@]}" -o "$tmp/prog-shared" "$tmp/prog.c" \
  "${libs[@]}" -Wl,-rpath,"$prefix/lib" || fail "pkg-config --cflags --libs profq: link failed"
readelf -d "$tmp/prog-shared" | grep -q "NEEDED.*\[$soname\]" || fail "prog-shared does not need $soname"
if [ -z "${SANITIZE:-}" ]; then # a sanitizer runtime does not link fully statically
  "$CC" -std=c11 -Wall -Wextra -Werror "${cflags[@]}" -static -o "$tmp/prog-static" "$tmp/prog.c" \
    "${static_libs[@]}" 2>"$tmp/static.err" ||
    fail "pkg-config --static --libs profq: link failed: $(grep -v 'statically linked' "$tmp/static.err" | head -5)"
  readelf -d "$tmp/prog-static" 2>/dev/null | grep -q NEEDED && fail "prog-static needs shared libraries"
fi
fixture=tests/fixtures/jax_cpu/inference/jit_run_scan.hlo.pb
sha=$(sha256sum "$fixture" | cut -d' ' -f1)
for prog in "$tmp"/prog-*; do
  out=$("$prog" "$fixture") || fail "$(basename "$prog") failed"
  grep -qx "sha256 $sha" <<<"$out" && grep -qx "format hlo_proto" <<<"$out" ||
    fail "$(basename "$prog") printed: $out"
  echo "install: $(basename "$prog") built with pkg-config reads $fixture"
done
"$prefix/bin/profq" info "$fixture" >/dev/null || fail "the installed profq does not run"
man -l "$prefix/share/man/man1/profq.1" >/dev/null 2>&1 || ! command -v man >/dev/null ||
  fail "the installed man page does not format"
echo "install: installed profq runs"
