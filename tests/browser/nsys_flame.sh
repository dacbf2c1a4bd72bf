#!/usr/bin/env bash
# tests/browser/nsys_flame.sh - the flame graphs of `profq nsys --section flame --format svg`
# in headless Chromium (Debian package `chromium`, as tests/browser/tt_report.sh), loaded
# from disk: on the shared nsys-jax archive the document renders with no console message at
# all; on a copy of it whose hottest instruction's op_name holds <script>alert(1)</script>
# (rewritten with protobuf: build/venv-test) the name shows as text: the rendered DOM has no
# <script> element and holds the escaped text, and the console stays empty.
# Suite contract: 0 pass, 1 fail, 77 skip (no chromium, no venv, or no $SHARED; failures
# under CI=true).
set -u
. "$(dirname "$0")/lib.sh"
browser_init nsys_flame nsysflame
cd "$top"
archive="$SHARED/data/nsys/nsys-jax_h100_maxtext_fsdp4.zip"
[ -f "$archive" ] || skip "$archive is absent"
py=$(scripts/venv.sh test tests/requirements.txt) || skip "no build/venv-test (PyPI?)"

# check ARCHIVE LABEL WANT_SCRIPT_TEXT
check() {
    local svg="$work/$2.svg"
    "$PROFQ" nsys --section flame --format svg -o "$svg" "$1" || { bad "$2: profq exits $?"; return; }
    load_page "$svg" "$work/dom.xml" "$work/console.txt" 2000
    [ -s "$work/console.txt" ] && { bad "$2: console messages:"; cat "$work/console.txt"; }
    "$py" - "$work/dom.xml" "$2" "$3" <<'PY' || bad "$2: DOM checks"
import re, sys
dom, label, want = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3] == "1"
rects = len(re.findall(r"<rect ", dom))
assert rects > 100, ("frames drawn", rects)
assert len(re.findall(r"<script[\s>]", dom)) == 0, "a <script> element in the DOM"
if want:
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom, "the op_name is not shown as text"
print("%s: %d rectangles, no script element%s" % (label, rects, ", <script> shown as text" if want else ""))
PY
}

check "$archive" shared 0

# The same archive with the op_name of input_scatter_fusion (the hottest thunk) rewritten.
"$py" - "$archive" "$work/script.zip" "$work" <<'PY' || bad "could not build the <script> archive"
import lzma, sys, zipfile
sys.path.insert(0, "tests/nsys")
import hloproto
src, dst, tmp = sys.argv[1:4]
hlo_pb2, dumps = hloproto.load(src, tmp + "/protos")
proto = hlo_pb2.HloProto()
proto.ParseFromString(dumps["16"])
# The instruction and its called computations lose their stack frames: the source graph
# then shows the whole op_name as one frame, the op_name graph its '/' parts.
comps = {c.id: c for c in proto.hlo_module.computations}
inst = next(i for c in comps.values() for i in c.instructions if i.name == "input_scatter_fusion")
for i in [inst] + [j for cid in inst.called_computation_ids for j in comps[cid].instructions]:
    i.metadata.op_name = "jit(train_step)/<script>alert(1)</script>/x"
    i.metadata.stack_frame_id = 0
with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
    for info in zi.infolist():
        data = zi.read(info)
        if info.filename.startswith("dump/module_0016.") and "after_optimizations.hlo.pb" in info.filename:
            data = lzma.compress(proto.SerializeToString())
        zo.writestr(info, data)
PY
[ -f "$work/script.zip" ] && check "$work/script.zip" script 1
[ "$failed" -eq 0 ] && { echo "nsys_flame: all checks passed"; exit 0; }
exit 1
