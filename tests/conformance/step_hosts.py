"""Makes another host of a run from an XSpace with step markers, for the multi-host step
intersection (issue 13 item 5; docs/internals/ops.md, "Step rows").

Usage: step_hosts.py IN.xplane.pb OUT.xplane.pb FIRST_STEP SHIFT_NS

Copies IN (an XSpace with "train" step markers, as scripts/add_step_markers.py or
jax.profiler.StepTraceAnnotation write them, or TPU device "Steps" lines, as
scripts/add_tpu_steps.py writes them) to OUT without the markers whose step_num is
below FIRST_STEP, or equal to -FIRST_STEP when it is negative (their launches are left
without a step; XProf gives their kernels the group of the kernel before them), every
line's timestamp moved by SHIFT_NS nanoseconds (another host's clock). XProf and profq given IN and OUT together then
have to align the two hosts' step sequences (best overlap) and keep the steps both share.
Needs a protobuf runtime with grpc_tools (build/venv-test); the XSpace schema is
xplane_counts.py's.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xplane_counts  # noqa: E402  (the schema and its protoc step)


def main():
    src, dst, first, shift = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pb2 = xplane_counts.compile_schema(tempfile.mkdtemp(prefix="profq-step-hosts-"))
    space = pb2.XSpace()
    with open(src, "rb") as f:
        space.ParseFromString(f.read())
    dropped = 0
    for plane in space.planes:
        train = {k for k, v in plane.event_metadata.items() if v.name == "train"}
        step_num = {k for k, v in plane.stat_metadata.items() if v.name == "step_num"}
        for line in plane.lines:
            line.timestamp_ns += shift
            keep = []
            for e in line.events:
                n = [s.int64_value or s.uint64_value for s in e.stats if s.metadata_id in step_num]
                marker = e.metadata_id in train or line.name == "Steps"
                if marker and n and (n[0] < first if first >= 0 else n[0] == -first):
                    dropped += 1
                    continue
                keep.append(e)
            if len(keep) != len(line.events):
                del line.events[:]
                line.events.extend(keep)
    if first != 0 and not dropped:
        sys.exit(f"step_hosts.py: no step marker dropped ({first}) in {src}")
    with open(dst, "wb") as f:
        f.write(space.SerializeToString())


if __name__ == "__main__":
    main()
