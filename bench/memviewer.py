"""memory-viewer benchmark: profq against XProf itself, side by side on the same inputs.

Usage: memviewer.py PROFQ DATA_DIR WORK_DIR
For each module of the largest HloProto inputs (the H100 MaxText train step, the TPU and
MI300 XPlanes), memory space 0: XProf's xspace_to_tools_data(memory_viewer) called in this
process (the HloProto already extracted, as XProf's server does after the first request)
and `profq memory-viewer --format xprof` as a whole process (load, decode, compute, write
to /dev/null). Best of 5 runs each, in CPU time (user+system: XProf's thread via
time.process_time, profq's process via getrusage of children), which a loaded machine
does not inflate, and in wall time. Prints a Markdown table.
"""
import os
import resource
import shutil
import subprocess
import sys
import time

from xprof.convert import _pywrap_profiler_plugin as pw

PROFQ, DATA, WORK = sys.argv[1:4]
RUNS = 5
CASES = [
    ("hlo/h100_maxtext_fsdp4__module_0016.jit_train_step.sm_9.0_gpu_after_optimizations.hlo.pb",
     "jit_train_step(16)"),
    ("xplane/tpu_inference_2.xplane.pb", "jit_f(12190760917235803885)"),
    ("xplane/mi300_jax08_attention.xplane.pb", None),
]


def best(fn, child):
    cpu, wall = [], []
    for _ in range(RUNS):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        t1, c1 = time.perf_counter(), time.process_time()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        if child:
            cpu.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
        else:
            cpu.append(c1 - c0)
        wall.append(t1 - t0)
    return min(cpu), min(wall)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rows = []
    for n, (rel, module) in enumerate(CASES):
        path = os.path.join(DATA, rel)
        if not os.path.exists(path):
            continue
        run = os.path.join(WORK, f"run{n}")
        os.makedirs(run)
        if rel.startswith("hlo/"):
            xs = os.path.join(run, "host.xplane.pb")
            open(xs, "wb").close()
            os.symlink(os.path.abspath(path), os.path.join(run, module + ".hlo_proto.pb"))
        else:
            xs = os.path.join(run, os.path.basename(path))
            os.symlink(os.path.abspath(path), xs)
            pw.xspace_to_tools_data([xs], "tool_names", {})
            if module is None:  # the largest extracted HloProto
                files = [f for f in os.listdir(run) if f.endswith(".hlo_proto.pb")]
                files.sort(key=lambda f: os.path.getsize(os.path.join(run, f)))
                module = files[-1][: -len(".hlo_proto.pb")]
        opts = {"module_name": module, "memory_space": "0"}
        raw, ok = pw.xspace_to_tools_data([xs], "memory_viewer", opts)
        assert ok, raw[:200]
        tx = best(lambda: pw.xspace_to_tools_data([xs], "memory_viewer", opts), False)
        cmd = [PROFQ, "memory-viewer", "--format", "xprof", "--module", module,
               "-o", "/dev/null", path]
        subprocess.run(cmd, check=True)
        tp = best(lambda: subprocess.run(cmd, check=True), True)
        rows.append((rel, module, tx, tp))
    print("| input | module | XProf CPU | profq CPU | CPU speed-up | XProf wall | profq wall |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for rel, module, tx, tp in rows:
        print(f"| `{os.path.basename(rel)[:40]}` | `{module}` | {tx[0] * 1000:.1f} ms | "
              f"{tp[0] * 1000:.1f} ms | {tx[0] / max(tp[0], 1e-4):.1f}x | "
              f"{tx[1] * 1000:.1f} ms | {tp[1] * 1000:.1f} ms |")


if __name__ == "__main__":
    main()
