#!/usr/bin/env bash
# tests/tt_model.sh - a Tenstorrent runtime log is a profile source (issue 11: every reader
# fills the model): `profq info` and `profq tools` take it; info's operation count equals the
# number of operations `profq tt analyze` writes for the same log, and tools says `tt` is
# available; other text is refused with exit 3 naming the formats profq reads.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
d=$SHARED/data/tenstorrent
[ -d "$d" ] || { echo "tt_model: SKIP: $d is absent"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-tt-model-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for f in "$d"/*.log; do
    b=$(basename "$f" .log)
    "$PROFQ" info --format json "$f" >"$work/info.json" &&
        "$PROFQ" tools --format json "$f" >"$work/tools.json" &&
        "$PROFQ" tt analyze "$f" -o "$work/$b" >/dev/null || { failed=$((failed + 1)); echo "FAIL: $b: a command failed"; continue; }
    if python3 - "$work/info.json" "$work/tools.json" "$work/$b/${b}_memory.json" <<'PY'; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $b"; fi
import json, sys
info, tools, mem = (json.load(open(p)) for p in sys.argv[1:4])
s = info["sources"][0]
t = {x["name"]: x for x in tools["tools"]}
ok = (s["format"] == "tt_log" and s["tenstorrent"]["operations"] == len(mem["operations"])
      and s["tenstorrent"]["operations"] > 0 and t["tt"]["available"])
if not ok:
    print(s.get("format"), s.get("tenstorrent"), len(mem["operations"]), t["tt"])
sys.exit(0 if ok else 1)
PY
done
printf 'hello, this is some text\nand more of it\n' >"$work/notes.log"
"$PROFQ" info "$work/notes.log" >/dev/null 2>"$work/err"
if [ $? -eq 3 ] && grep -q "or a Tenstorrent runtime log, found plain text" "$work/err"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1)); echo "FAIL: other text: $(cat "$work/err")"
fi
echo "tt_model: $passed passed, $failed failed"
[ $failed -eq 0 ]
