"""Adds TPU device step lines to a TPU XSpace, to see what XProf makes of TPU steps (issue 13
item 5; docs/internals/ops.md, "Step rows").

Usage: python add_tpu_steps.py IN.xplane.pb OUT.xplane.pb STEPS [NO_STEP_LINE]

On every /device:TPU:N plane the "XLA Modules" runs are cut into STEPS consecutive runs
(by start time); run i is step i: a "Steps" line is added to the plane with one event per
step spanning its module runs (named by the step number, with the stats group_id=i and
step_num=i, as a TPU runtime writes its step line), and every event of the plane's "XLA
Modules" and "XLA Ops" lines inside that span gets group_id=i. XProf reads TPU steps from
these (NO_STEP_LINE: a plane name, e.g. /device:TPU:1, left without the "Steps" line: its
ops then count in no step, as XProf keeps a plane's steps only where it has both; xplane_to_step_events.cc: ConvertDeviceStepInfoToStepMarkers on the "Steps" line,
ConvertTpuDeviceTraceXLineToStepEvents on the "XLA Ops" line, one op metrics database per
step and core). Needs a protobuf runtime with grpc_tools (build/venv-test); the XSpace schema
is tests/conformance/xplane_counts.py's.
"""
import sys

from add_step_markers import read_space, metadata_id


def main():
    src, dst, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bare = sys.argv[4] if len(sys.argv) > 4 else None
    pb2, space = read_space(src)
    for plane in space.planes:
        if not plane.name.startswith("/device:TPU:"):
            continue
        lines = {l.name: l for l in plane.lines}
        mods = lines.get("XLA Modules")
        if mods is None or len(mods.events) < steps:
            continue
        group_id = metadata_id(plane.stat_metadata, "group_id")
        step_num = metadata_id(plane.stat_metadata, "step_num")
        runs = sorted(mods.events, key=lambda e: e.offset_ps)
        per = len(runs) // steps
        spans = []
        for i in range(steps):
            run = runs[i * per:(i + 1) * per] if i < steps - 1 else runs[i * per:]
            spans.append((run[0].offset_ps, max(e.offset_ps + e.duration_ps for e in run)))
        for name in ("XLA Modules", "XLA Ops"):
            if name not in lines:
                continue
            base = lines[name].timestamp_ns * 1000 - mods.timestamp_ns * 1000
            for e in lines[name].events:
                t = base + e.offset_ps
                for i, (b, end) in enumerate(spans):
                    if b <= t < end:
                        e.stats.add(metadata_id=group_id, int64_value=i)
                        break
        if plane.name == bare:
            continue
        line = plane.lines.add(id=max(l.id for l in plane.lines) + 1, name="Steps",
                               display_name="Steps", timestamp_ns=mods.timestamp_ns)
        for i, (b, end) in enumerate(spans):
            e = line.events.add(metadata_id=metadata_id(plane.event_metadata, str(i)),
                                offset_ps=b, duration_ps=end - b)
            e.stats.add(metadata_id=group_id, int64_value=i)
            e.stats.add(metadata_id=step_num, int64_value=i)
    with open(dst, "wb") as f:
        f.write(space.SerializeToString())


if __name__ == "__main__":
    main()
