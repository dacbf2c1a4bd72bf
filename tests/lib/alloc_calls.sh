#!/usr/bin/env bash
# Library code allocates only through core/alloc.h (pq_malloc, pq_malloc_array, pq_calloc,
# pq_realloc_array, pq_strdup, pq_free, ...), so that the failure-injection tests reach every
# allocation: no call of malloc, calloc, realloc, strdup, free or their relatives in src/
# outside src/cli/ and src/core/alloc.c. Comments are stripped first (by the preprocessor,
# without expanding anything), then string literals. A self-check feeds the checker a file with one raw call.
. "$(dirname "$0")/setup.bash"

raw='(^|[^A-Za-z0-9_.>])(malloc|calloc|realloc|reallocarray|free|strdup|strndup|aligned_alloc|posix_memalign|memalign|valloc)[[:space:]]*\('
# raw_calls FILE...: prints "file: line" for each raw call in the comment-free text.
raw_calls() {
  local f
  for f in "$@"; do
    "$CC" -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null | sed -E 's/"([^"\\]|\\.)*"/""/g' |
      grep -E "$raw" | sed "s|^|$f: |" || true
  done
}

printf '/* malloc(1) in a comment */\nvoid *x(void) { char *s = "free(p)"; return pq_malloc(2); }\nvoid y(void) { void *p = malloc(4); a->free(p); }\n' >"$tmp/probe.c"
probe=$(raw_calls "$tmp/probe.c")
[ "$(grep -c . <<<"$probe")" = 1 ] && grep -q 'malloc(4)' <<<"$probe" ||
  fail "self-check: the checker found '$probe' in the probe instead of its one malloc(4)"

mapfile -t files < <(find src -name '*.[ch]' ! -path 'src/cli/*' ! -path src/core/alloc.c | sort)
[ "${#files[@]}" -gt 20 ] || fail "found only ${#files[@]} library sources"
found=$(raw_calls "${files[@]}")
[ -z "$found" ] || fail "raw allocation calls in library code (use core/alloc.h):
$found"
echo "$suite: ${#files[@]} library sources allocate only through core/alloc.h"
