#!/usr/bin/env bash
# tests/lib/layering.sh - the layering rules of DESIGN.md and docs/ARCHITECTURE.md, checked
# on the sources (issue 11): arrows point down: formats/, model/, io/ and core/ include
# nothing from analysis/, render/ or cli/; the library (src/ but cli/) never includes cli/;
# renderers do no file I/O (open, stat, map, read, write, rename: they format result
# structs into a sink) and call no analysis; analyses include no io/ but xz; the library
# never prints or exits.
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
# An analysis reads the model, not files: io/ headers other than io/xz.h (decompressing bytes
# already in memory) are for readers, api/ and the CLI.
aio=$(grep -rnE '#include +"(\.\./)*io/' src/analysis src/render | grep -v '"io/xz.h"')
[ -z "$aio" ] || bad "analyses or renderers include io/ (files belong to readers, model/ and api/)" "$aio"
# A renderer formats a result it is given: calling an analysis's compute is api/'s job.
rc=$(grep -rnE '\b[a-z_]+_compute(_[a-z]+)?\(' src/render)
[ -z "$rc" ] || bad "a renderer computes (calls an analysis's _compute; api/ composes)" "$rc"
pr=$(grep -rnE '\bexit\(|\bprintf\(|\bputs\(|fprintf\(std(out|err)' $(ls -d src/*/ | grep -v '^src/cli/$'))
[ -z "$pr" ] || bad "library code prints or exits" "$pr"
[ $fail -eq 0 ] && echo "layering: 6 passed, 0 failed" || echo "layering: failed"
exit $fail
