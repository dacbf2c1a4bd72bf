#!/usr/bin/env bash
# tests/lib/layering.sh - the layering rules of DESIGN.md and docs/ARCHITECTURE.md, checked
# on the sources (issue 11): arrows point down: formats/, model/, io/ and core/ include
# nothing from analysis/, render/ or cli/; the library (src/ but cli/) never includes cli/;
# renderers do no file I/O (open, stat, map, read, write, rename: they format result
# structs into a sink); the library never prints or exits.
set -u
cd "$(dirname "$0")/../.." || exit 1
fail=0
bad() {
    echo "FAIL: $1"
    printf '%s\n' "$2" | head -5 | sed 's/^/  /'
    fail=1
}
up=$(grep -rnE '#include +"(\.\./)*(analysis|render|cli)/' src/formats src/model src/io src/core)
[ -z "$up" ] || bad "an include runs back up (formats/model/io/core -> analysis/render/cli)" "$up"
cli=$(grep -rnE '#include +"(\.\./)*cli/' $(ls -d src/*/ | grep -v '^src/cli/$'))
[ -z "$cli" ] || bad "library code includes cli/" "$cli"
io=$(grep -rnE '\b(fopen|open|openat|stat|lstat|fstat|opendir|mapfile_open|mapfile_copy|rename|unlink|mkdir|flock|pread|fsync|sha256_file_hex)\(' src/render)
[ -z "$io" ] || bad "renderers do file I/O (it belongs in io/ or api/)" "$io"
pr=$(grep -rnE '\bexit\(|\bprintf\(|\bputs\(|fprintf\(std(out|err)' $(ls -d src/*/ | grep -v '^src/cli/$'))
[ -z "$pr" ] || bad "library code prints or exits" "$pr"
[ $fail -eq 0 ] && echo "layering: 4 passed, 0 failed" || echo "layering: failed"
exit $fail
