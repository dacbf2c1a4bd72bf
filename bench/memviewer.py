"""memory-viewer benchmark: profq against XProf itself, side by side on the same inputs.

Usage: memviewer.py PROFQ DATA_DIR WORK_DIR
For each module of the largest HloProto inputs (the H100 MaxText train step, the TPU and
MI300 XPlanes), memory space 0: XProf's xspace_to_tools_data(memory_viewer) called in this
process (the HloProto already extracted, as XProf's server does after the first request)
and `profq memory-viewer --format xprof` as a whole process (load, decode, compute, write
to /dev/null). Best of 5 wall times each. Prints a Markdown table.
"""
import os
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


def best(fn):
    t = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


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
        tx = best(lambda: pw.xspace_to_tools_data([xs], "memory_viewer", opts))
        cmd = [PROFQ, "memory-viewer", "--format", "xprof", "--module", module,
               "-o", "/dev/null", path]
        subprocess.run(cmd, check=True)
        tp = best(lambda: subprocess.run(cmd, check=True))
        rows.append((rel, module, tx, tp))
    print("| input | module | XProf memory_viewer | profq memory-viewer | speed-up |")
    print("|---|---|---:|---:|---:|")
    for rel, module, tx, tp in rows:
        print(f"| `{os.path.basename(rel)[:40]}` | `{module}` | {tx * 1000:.1f} ms | "
              f"{tp * 1000:.1f} ms | {tx / tp:.1f}x |")


if __name__ == "__main__":
    main()
