"""memory-viewer benchmark: profq against XProf itself, side by side on the same inputs.

Usage: memviewer.py PROFQ INPROC DATA_DIR WORK_DIR [EXTRA_DIR...]

Inputs: every HloProto in DATA_DIR/hlo and EXTRA_DIRs (the project's fixtures) and every
XPlane in DATA_DIR/xplane (not corrupt/): for an HloProto its module, for an XPlane the
module with the largest HloProto; memory space 0. The same input file is given to both
tools, and four things are timed, each the best of RUNS:

- XProf from the file: what a user's first request costs. A fresh session directory holds
  the input (the XPlane, or the HloProto beside an empty host.xplane.pb as XProf's server
  expects), then xspace_to_tools_data(tool_names) - which extracts the HloProtos of an
  XSpace into the directory - and xspace_to_tools_data(memory_viewer), in this process.
- XProf cached: memory_viewer alone, in this process, on the HloProto extracted earlier
  (what XProf's server does after the first request).
- profq process: `profq memory-viewer --format xprof --module M -o /dev/null FILE`, a whole
  process (exec, load, decode, compute, write).
- profq in-process: bench/memviewer_inproc.c (linked with libprofq.a) doing the same work
  through the library in a loop (open, decode, compute, write the JSON through stdio to
  /dev/null, as the process row writes it).

Then the process's split (`profq --timing`, CPU time of the run with the smallest total):
exec (execve, the dynamic loader, relocations, constructors: all before main), open (read
and decode), compute (the render minus its writes), write (the writes, flush and close),
free, and exit (the rest of the process's CPU time by getrusage: unmapping at exit); and, on
every XPlane, hlo_stats the same way: XProf's xspace_to_tools_data(hlo_stats) from the file
in this process (use_saved_result false: it converts the XSpace every time) against
`profq ops --format xprof -o /dev/null FILE` as a process, with its split.

Times are CPU times (user+system: XProf's via time.process_time of this process, profq's
process via getrusage of children, the harness via CLOCK_PROCESS_CPUTIME_ID), which a loaded
machine does not inflate, and wall times. Prints two Markdown tables (CPU with ratios, wall).
"""
import glob
import json
import os
import resource
import shutil
import subprocess
import sys
import time

from xprof.convert import _pywrap_profiler_plugin as pw

PROFQ, INPROC, DATA, WORK = sys.argv[1:5]
EXTRA = sys.argv[5:]
RUNS = int(os.environ.get("BENCH_RUNS", "20"))
INPROC_RUNS = int(os.environ.get("BENCH_INPROC_RUNS", "1000"))
H100 = "h100_maxtext_fsdp4__module_0016"


def best(fn, child=False, runs=RUNS):
    cpu, wall = [], []
    for _ in range(runs):
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


TIMING_PHASES = ("exec", "open", "compute", "write", "free")


def timed_split(cmd, runs=RUNS):
    """Runs CMD --timing RUNS times; the phases (CPU ms and faults) of the run with the
    smallest getrusage total, plus exit = that total minus the phases, and the total."""
    best_run = None
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        err = subprocess.run(cmd + ["--timing"], check=True, capture_output=True,
                             text=True).stderr
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        total = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3
        line = [x for x in err.splitlines() if x.startswith("profq timing: ")][0]
        f = dict(kv.split("=") for kv in line.split()[2:-3])
        cpu = {k: float(f[k].split("/")[0]) for k in TIMING_PHASES}
        faults = r1.ru_minflt - r0.ru_minflt  # the whole process, its exit included
        cpu["exit"] = max(total - sum(cpu.values()), 0.0)
        cpu["total"] = total
        cpu["faults"] = faults
        if best_run is None or total < best_run["total"]:
            best_run = cpu
    return best_run


def split_row(name, sp):
    cells = " | ".join(f"{sp[k]:.3f}" for k in TIMING_PHASES + ("exit", "total"))
    return f"| `{name[:44]}` | {cells} | {sp['faults']} |"


SPLIT_HEAD = ("| input | exec | open | compute | write | free | exit | total | page faults |\n"
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|")


def hlo_stats_rows(paths, run_dir):
    """XProf hlo_stats from the file against the profq ops process, on each XPlane."""
    out = []
    for n, path in enumerate(paths):
        xs = session(os.path.join(run_dir, f"hlo{n}"), path, None)
        opts = {"use_saved_result": False}
        raw, ok = pw.xspace_to_tools_data([xs], "hlo_stats", opts)
        if not ok:
            print(f"bench: XProf hlo_stats refuses {path}: {raw[:120]!r}", file=sys.stderr)
            continue
        xp = best(lambda: pw.xspace_to_tools_data([xs], "hlo_stats", opts))
        cmd = [PROFQ, "ops", "--format", "xprof", "-o", "/dev/null", path]
        proc = best(lambda: subprocess.run(cmd, check=True), child=True)
        out.append((path, xp, proc, timed_split(cmd)))
    return out


def profq_module(path):
    """The module of an HloProto (profq's module list has one)."""
    out = subprocess.run([PROFQ, "memory-viewer", "--format", "json", path], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["modules"][0]["module"]


def session(run, path, module):
    """A fresh XProf session directory holding the input; returns the XSpace path."""
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run)
    if path.endswith(".xplane.pb"):
        xs = os.path.join(run, os.path.basename(path))
        os.symlink(os.path.abspath(path), xs)
    else:
        xs = os.path.join(run, "host.xplane.pb")
        open(xs, "wb").close()
        os.symlink(os.path.abspath(path), os.path.join(run, module + ".hlo_proto.pb"))
    return xs


def largest_module(xs):
    d = os.path.dirname(xs)
    files = [f for f in os.listdir(d) if f.endswith(".hlo_proto.pb")]
    files.sort(key=lambda f: (os.path.getsize(os.path.join(d, f)), f))
    return files[-1][: -len(".hlo_proto.pb")]


def inputs():
    hlos = sorted(glob.glob(os.path.join(DATA, "hlo", "*")))
    hlos.sort(key=lambda p: H100 not in p)  # the large H100 module first
    for d in EXTRA:
        hlos += sorted(glob.glob(os.path.join(d, "**", "*.hlo.pb"), recursive=True) +
                       glob.glob(os.path.join(d, "**", "*.hlo_proto.pb"), recursive=True))
    xplanes = sorted(glob.glob(os.path.join(DATA, "xplane", "*.xplane.pb")) +
                     glob.glob(os.path.join(DATA, "xplane", "*", "*.xplane.pb")))
    return hlos + [p for p in xplanes if "/corrupt/" not in p]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    rows = []
    for n, path in enumerate(inputs()):
        run = os.path.join(WORK, f"run{n}")
        module = None if path.endswith(".xplane.pb") else profq_module(path)
        xs = session(run, path, module)
        pw.xspace_to_tools_data([xs], "tool_names", {})
        if module is None:
            module = largest_module(xs)
        opts = {"module_name": module, "memory_space": "0"}
        raw, ok = pw.xspace_to_tools_data([xs], "memory_viewer", opts)
        if not ok:
            print(f"bench: XProf refuses {path} {module}: {raw[:120]!r}", file=sys.stderr)
            continue
        cached = best(lambda: pw.xspace_to_tools_data([xs], "memory_viewer", opts))

        def first_request():
            x = session(run, path, module)
            pw.xspace_to_tools_data([x], "tool_names", {})
            r, good = pw.xspace_to_tools_data([x], "memory_viewer", opts)
            assert good, r[:200]

        # the session is rebuilt inside each timed run: that is part of the user's first
        # request too (a symlink and an empty file, microseconds)
        from_file = best(first_request)
        cmd = [PROFQ, "memory-viewer", "--format", "xprof", "--module", module,
               "-o", "/dev/null", path]
        subprocess.run(cmd, check=True)
        proc = best(lambda: subprocess.run(cmd, check=True), child=True)
        out = subprocess.run([INPROC, str(INPROC_RUNS), path, module], check=True,
                             capture_output=True, text=True).stdout.split()
        inproc = (float(out[0]) / 1000, float(out[1]) / 1000)
        rows.append((path, module, len(raw), int(out[2]), from_file, cached, proc, inproc,
                     timed_split(cmd[:-1] + [path])))

    def ms(t):
        if t < 0.001:
            return f"{t * 1000:.3f} ms"
        return f"{t * 1000:.2f} ms" if t < 0.01 else f"{t * 1000:.1f} ms"

    def ratio(a, b):
        return f"{a / max(b, 1e-6):.0f}x" if a / max(b, 1e-6) >= 10 else f"{a / max(b, 1e-6):.1f}x"

    print(f"CPU time (user+system), best of {RUNS} (profq in-process: best of {INPROC_RUNS}):")
    print()
    print("| input | module | JSON bytes (XProf / profq) | XProf from file | XProf cached | "
          "profq process | profq in-process | from file / process | from file / in-process | "
          "cached / in-process |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for path, module, nx, npq, ff, ca, pr, ip, _ in rows:
        print(f"| `{os.path.basename(path)[:44]}` | `{module[:40]}` | {nx} / {npq} | "
              f"{ms(ff[0])} | {ms(ca[0])} | {ms(pr[0])} | {ms(ip[0])} | "
              f"{ratio(ff[0], pr[0])} | {ratio(ff[0], ip[0])} | {ratio(ca[0], ip[0])} |")
    print()
    print("Wall time, same runs:")
    print()
    print("| input | XProf from file | XProf cached | profq process | profq in-process |")
    print("|---|---:|---:|---:|---:|")
    for path, module, nx, npq, ff, ca, pr, ip, _ in rows:
        print(f"| `{os.path.basename(path)[:44]}` | {ms(ff[1])} | {ms(ca[1])} | {ms(pr[1])} | "
              f"{ms(ip[1])} |")
    print()
    print(f"profq memory-viewer process split (`--timing`), CPU ms of the best of {RUNS} runs "
          "(exit: the process's getrusage CPU time after the command returned):")
    print()
    print(SPLIT_HEAD)
    for path, *_, sp in rows:
        print(split_row(os.path.basename(path), sp))
    hs = hlo_stats_rows([p for p in inputs() if p.endswith(".xplane.pb")],
                        os.path.join(WORK, "hlo_stats"))
    print()
    print(f"hlo_stats: XProf from the file in this process against `profq ops --format xprof` "
          f"as a process, CPU time, best of {RUNS}:")
    print()
    print("| input | XProf hlo_stats | profq ops process | XProf / profq |")
    print("|---|---:|---:|---:|")
    for path, xp, proc, _ in hs:
        print(f"| `{os.path.basename(path)[:44]}` | {ms(xp[0])} | {ms(proc[0])} | "
              f"{ratio(xp[0], proc[0])} |")
    print()
    print("profq ops process split (`--timing`), CPU ms:")
    print()
    print(SPLIT_HEAD)
    for path, _, _, sp in hs:
        print(split_row(os.path.basename(path), sp))


if __name__ == "__main__":
    main()
