"""Adds TensorFlow-style grouping events to a GPU XSpace's host plane, to see how XProf groups
steps from TF executor loops and from roots with a step_id (issue 13 item 5;
docs/internals/ops.md, "Step rows").

Usage: python add_tf_steps.py IN.xplane.pb OUT.xplane.pb MODE N

MODE loop: on every /host:CPU line with kernel launches (a correlation_id stat), the
  launches are cut into N runs, each wrapped in an "ExecutorState::Process" event with
  step_id=5 and iter_num=i (one TF while loop run; tsl's group_events makes the first event
  of each iteration a root, the iteration's other events its children, and ignores every
  other root). A new line gets ExecutorState::Process events that must not start groups:
  step_id=7 with only iter_num=0 (a function without a loop) and step_id=9 iter_num 0, 1
  with an "InstantiatedCapturedFunction::Run" event of step_id=9 (a tf.data function).
MODE rootloop: as loop, with _r=1 on every ExecutorState::Process event (each is then a root
  of its own to tsl's CreateEventGroups, the tf.data ones included).
MODE tfdata: the IN's "train" roots (scripts/add_step_markers.py) get step_id=100+step_num;
  a new line gets an "InstantiatedCapturedFunction::Run" event with step_id=101 (tsl then
  skips the root of step 1: its launches have no group, their kernels take the group of the
  kernel before them), and ExecutorState::Process events step_id=101 iter_num 0, 1 (a loop
  of a tf.data function: skipped) and step_id=7 iter_num 0 (no loop: skipped).
Needs a protobuf runtime with grpc_tools (build/venv-test); the XSpace schema is
tests/conformance/xplane_counts.py's.
"""
import sys

from add_step_markers import read_space, insert_events, launch_spans, metadata_id


def event(pb2, plane, name, begin, dur, **stats):
    e = pb2.XEvent(metadata_id=metadata_id(plane.event_metadata, name), offset_ps=begin,
                   duration_ps=dur)
    for k, v in stats.items():
        e.stats.add(metadata_id=metadata_id(plane.stat_metadata, k), int64_value=v)
    return e


def main():
    src, dst, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    pb2, space = read_space(src)
    host = [p for p in space.planes if p.name == "/host:CPU"][0]
    names = {k: v.name for k, v in host.stat_metadata.items()}
    first = min((l.timestamp_ns * 1000 + e.offset_ps for l in host.lines for e in l.events),
                default=0)
    extra = []
    roots = {"_r": 1} if mode == "rootloop" else {}
    if mode in ("loop", "rootloop"):
        for line in host.lines:
            spans = launch_spans(line, names, n, 500)
            if spans is None:
                continue
            insert_events(line, [event(pb2, host, "ExecutorState::Process", b, end - b,
                                       step_id=5, iter_num=i, **roots)
                                 for i, (b, end) in enumerate(spans)])
        extra = [event(pb2, host, "ExecutorState::Process", 0, 1000, step_id=7, iter_num=0,
                       **roots),
                 event(pb2, host, "InstantiatedCapturedFunction::Run", 2000, 1000, step_id=9),
                 event(pb2, host, "ExecutorState::Process", 4000, 1000, step_id=9, iter_num=0,
                       **roots),
                 event(pb2, host, "ExecutorState::Process", 6000, 1000, step_id=9, iter_num=1,
                       **roots)]
    elif mode == "tfdata":
        train = {k for k, v in host.event_metadata.items() if v.name == "train"}
        step_num = {k for k, v in host.stat_metadata.items() if v.name == "step_num"}
        sid = metadata_id(host.stat_metadata, "step_id")
        for line in host.lines:
            for e in line.events:
                if e.metadata_id in train:
                    s = [x.int64_value for x in e.stats if x.metadata_id in step_num][0]
                    e.stats.add(metadata_id=sid, int64_value=100 + s)
        extra = [event(pb2, host, "InstantiatedCapturedFunction::Run", 0, 1000, step_id=101),
                 event(pb2, host, "ExecutorState::Process", 2000, 1000, step_id=101, iter_num=0),
                 event(pb2, host, "ExecutorState::Process", 4000, 1000, step_id=101, iter_num=1),
                 event(pb2, host, "ExecutorState::Process", 6000, 1000, step_id=7, iter_num=0)]
    else:
        sys.exit(f"add_tf_steps.py: unknown mode {mode}")
    line = host.lines.add(id=max(l.id for l in host.lines) + 1, name="tf_data_worker",
                          display_name="tf_data_worker", timestamp_ns=first // 1000)
    line.events.extend(extra)
    with open(dst, "wb") as f:
        f.write(space.SerializeToString())


if __name__ == "__main__":
    main()
