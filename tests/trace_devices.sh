#!/usr/bin/env bash
# tests/trace_devices.sh - devices of trace-event JSON in the profile model (issue 11): on
# every trace of ../shared/data/trace-json, the devices `profq info --format json` lists
# equal an independent read in Python (stdlib only) of Kineto's top-level deviceProperties:
# one device per object with an integer id, in order, its name, and every other key with
# its value as stated (nothing added, nothing dropped); a trace without deviceProperties
# lists no devices. At least one shared trace must have devices (else the test proves
# nothing).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
PROFQ=${PROFQ:-$top/build/profq}
SHARED=${SHARED:-$top/../shared}
dir=$SHARED/data/trace-json
if [ ! -d "$dir" ]; then
    echo "trace_devices: SKIP: $dir is absent"
    exit 77
fi
PY=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/profq-trace-devices-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 with_devices=0
for f in "$dir"/*; do
    b=$(basename "$f")
    if ! "$PROFQ" info --no-hash --format json "$f" >"$work/info.json" 2>"$work/err"; then
        continue # not a trace this version reads (tests/trace_model.sh checks which)
    fi
    if out=$("$PY" - "$f" "$work/info.json" <<'PYEOF'
import gzip, json, sys
path, info = sys.argv[1], sys.argv[2]
raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
doc = json.loads(raw)
want = []
props = doc.get("deviceProperties") if isinstance(doc, dict) else None
for o in props if isinstance(props, list) else []:
    if not isinstance(o, dict) or type(o.get("id")) is not int:
        continue
    caps = {k: v for k, v in o.items() if k not in ("id", "name") and
            (isinstance(v, (bool, int, float, str)))}
    name = o.get("name") if isinstance(o.get("name"), str) else ""
    kind = "GPU" if "computeMajor" in o else "accelerator"
    want.append({"id": o["id"], "kind": kind, "name": name, "capabilities": caps})
got = json.load(open(info))["sources"][0]["trace"].get("devices", [])
if got != want:
    print("devices differ: profq %s, python %s" % (json.dumps(got)[:300], json.dumps(want)[:300]))
    sys.exit(1)
for g, w in zip(got, want):  # the order of the stated keys too
    if list(g["capabilities"]) != list(w["capabilities"]):
        print("capability order differs for device %d" % g["id"])
        sys.exit(1)
print(len(want))
PYEOF
    ); then
        passed=$((passed + 1))
        [ "$out" -gt 0 ] && with_devices=$((with_devices + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $b: $out"
    fi
done
if [ "$with_devices" -eq 0 ]; then
    failed=$((failed + 1))
    echo "FAIL: no shared trace has deviceProperties: the comparison proved nothing"
fi
echo "trace_devices: $passed passed ($with_devices with devices), $failed failed"
[ "$failed" -eq 0 ]
