"""Adds JAX-style step markers to a GPU XSpace, to see what XProf's roofline_model makes of
steps (issue 13 item 5; docs/internals/ops.md, "Step rows").

Usage: python add_step_markers.py IN.xplane.pb OUT.xplane.pb STEPS

On every /host:CPU line that holds kernel launches (events with a correlation_id stat), the
launches are cut into STEPS runs and each run is wrapped in a "train" event with the stats
step_num=i and _r=1, as jax.profiler.StepTraceAnnotation("train", step_num=i) records them:
tsl's group_events makes each such root a group, the launches nested in it join the group,
and the device kernels join it through their correlation_id. Needs a protobuf runtime with
grpc_tools (build/venv-test); the XSpace schema is tests/conformance/xplane_counts.py's.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "conformance"))
import xplane_counts  # noqa: E402  (the schema and its protoc step)


def metadata_id(table, name):
    for k, v in table.items():
        if v.name == name:
            return k
    k = max(list(table.keys()) + [0]) + 1
    table[k].id = k
    table[k].name = name
    return k


def launch_spans(line, names, n, pad):
    """The line's kernel launches (events with a correlation_id stat; NAMES: stat metadata
    id -> name) cut into N runs in time order: each run's [begin - PAD, end + PAD) span;
    None when the line has fewer than N launches."""
    launches = sorted((e for e in line.events
                       if any(names.get(s.metadata_id) == "correlation_id" for s in e.stats)),
                      key=lambda e: e.offset_ps)
    if len(launches) < n:
        return None
    per = len(launches) // n
    spans = []
    for i in range(n):
        run = launches[i * per:(i + 1) * per] if i < n - 1 else launches[i * per:]
        spans.append((run[0].offset_ps - pad, max(e.offset_ps + e.duration_ps for e in run) + pad))
    return spans


def insert_events(line, new):
    """Adds the events NEW to LINE, all in (start, longer first) order."""
    events = sorted(list(line.events) + new, key=lambda e: (e.offset_ps, -e.duration_ps))
    del line.events[:]
    line.events.extend(events)


def read_space(src):
    """The XSpace schema's module and the XSpace of file SRC."""
    pb2 = xplane_counts.compile_schema(tempfile.mkdtemp(prefix="profq-steps-"))
    space = pb2.XSpace()
    with open(src, "rb") as f:
        space.ParseFromString(f.read())
    return pb2, space


def main():
    src, dst, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pb2, space = read_space(src)
    host = [p for p in space.planes if p.name == "/host:CPU"][0]
    names = {k: v.name for k, v in host.stat_metadata.items()}
    train = metadata_id(host.event_metadata, "train")
    step_num = metadata_id(host.stat_metadata, "step_num")
    root = metadata_id(host.stat_metadata, "_r")
    for line in host.lines:
        spans = launch_spans(line, names, steps, 1000)
        if spans is None:
            continue
        markers = []
        for i, (begin, end) in enumerate(spans):
            m = pb2.XEvent(metadata_id=train, offset_ps=begin, duration_ps=end - begin)
            m.stats.add(metadata_id=step_num, int64_value=i)
            m.stats.add(metadata_id=root, int64_value=1)
            markers.append(m)
        insert_events(line, markers)
    with open(dst, "wb") as f:
        f.write(space.SerializeToString())


if __name__ == "__main__":
    main()
