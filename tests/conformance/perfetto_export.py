"""`profq export` loaded by Perfetto's own trace processor (pip `perfetto`, the
TraceProcessor Python API over trace_processor_shell, the engine of the Perfetto UI).

For every *.xplane.pb under --data (and every run directory of them), profq exports
Chrome trace-event JSON, the trace processor loads it, and:

  slices     `select count(*) from slice` equals the XPlane's event count (profq info):
             every XEvent is one "X" event (a slice) or, with duration 0, one "i" instant,
             which Perfetto's JSON importer also stores as a slice (dur 0) on the thread's
             track. So no event is subtracted; the two kinds are counted apart and both
             printed. Per thread too: slices on each (pid, tid) equal the line's events.
  names      the processes are the planes (process.name = plane name, prefixed "host "
             for multi-host runs) and the threads of each process are its lines
             (thread.name = the line's display name, else its name), by pid and tid.
  import     the trace processor's stats report no import errors or data losses
             (e.g. json_parser_failure, misplaced_end_event): printed when present.

Counters, flows and metadata are not compared (profq writes none but M events).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def run(exe, *args):
    r = subprocess.run([exe, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"profq {' '.join(args)}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def expected(exe, src):
    """(processes {pid: name}, threads {(pid, tid): name}, events {(pid, tid): n}) as
    profq export numbers them: pid = 1 + plane position over all sources, tid = 1 + line
    position; planes without lines get no process."""
    info = json.loads(run(exe, "info", "--format", "json", "--no-hash", src))
    procs, threads, events, pid = {}, {}, {}, 0
    multi = len(info["sources"]) > 1
    for s in info["sources"]:
        for pl in s["planes"]:
            pid += 1
            if not pl["lines"]:
                continue
            procs[pid] = (s["host"] + " " if multi else "") + pl["name"]
            for i, ln in enumerate(pl["lines"]):
                threads[(pid, i + 1)] = ln.get("display_name") or ln["name"]
                events[(pid, i + 1)] = ln["events"]
    return procs, threads, events


def check(tp_cls, cfg, exe, src, work):
    name = os.path.basename(src.rstrip("/"))
    out = os.path.join(work, name.replace(".xplane.pb", "") + ".trace.json")
    run(exe, "export", "-o", out, src)
    procs, threads, events = expected(exe, src)
    doc = json.load(open(out))
    n_x = sum(1 for e in doc["traceEvents"] if e.get("ph") == "X")
    n_i = sum(1 for e in doc["traceEvents"] if e.get("ph") == "i")
    bad = []
    tp = tp_cls(trace=out, config=cfg)
    try:
        q = lambda sql: list(tp.query(sql))
        n_slices = q("select count(*) as n from slice")[0].n
        want = sum(events.values())
        if n_slices != want:
            bad.append(f"slices {n_slices}, XPlane events {want} (X {n_x}, i {n_i})")
        got_threads, got_events = {}, {}
        for r in q("select p.pid as pid, t.tid as tid, t.name as name from thread t "
                   "join process p using(upid) where p.pid > 0"):
            got_threads[(r.pid, r.tid)] = r.name
        for r in q("select p.pid as pid, t.tid as tid, count(s.id) as n from slice s "
                   "join thread_track tt on s.track_id = tt.id join thread t using(utid) "
                   "join process p using(upid) group by p.pid, t.tid"):
            got_events[(r.pid, r.tid)] = r.n
        got_procs = {r.pid: r.name for r in q("select pid, name from process where pid > 0")}
        if got_procs != procs:
            diff = sorted(set(got_procs.items()) ^ set(procs.items()), key=str)[:6]
            bad.append(f"process names differ: {diff}")
        for k, v in threads.items():
            if got_threads.get(k) != v:
                bad.append(f"thread {k}: perfetto {got_threads.get(k)!r}, line {v!r}")
        for k, v in events.items():
            if got_events.get(k, 0) != v:
                bad.append(f"thread {k} ({threads[k]}): {got_events.get(k, 0)} slices, "
                           f"{v} events")
        errs = q("select name, idx, value from stats where value > 0 and "
                 "severity in ('error', 'data_loss')")
        for r in errs:
            bad.append(f"import stat {r.name}[{r.idx}] = {r.value}")
    finally:
        tp.close()
    status = "ok" if not bad else "MISMATCH"
    print(f"{name}: {want} events (X {n_x}, i {n_i}), {len(procs)} processes, "
          f"{len(threads)} threads: {status}")
    for b in bad[:20]:
        print("   ", b)
    return not bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profq", required=True)
    ap.add_argument("--data", required=True)
    a = ap.parse_args()
    from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig
    shell = os.environ.get("PERFETTO_TP_SHELL")  # a local trace_processor_shell, if any
    cfg = TraceProcessorConfig(bin_path=shell) if shell else TraceProcessorConfig()
    inputs = []
    for f in sorted(os.listdir(a.data)):
        p = os.path.join(a.data, f)
        if f.endswith(".xplane.pb") or (os.path.isdir(p) and f != "corrupt"):
            inputs.append(p)
    with tempfile.TemporaryDirectory(prefix="profq-perfetto-") as work:
        # Start the trace processor once on a tiny trace: it fetches its binary on first
        # use; when that cannot happen the suite is skipped (exit 77), not failed.
        probe = os.path.join(work, "probe.json")
        with open(probe, "w") as f:
            json.dump({"traceEvents": []}, f)
        try:
            TraceProcessor(trace=probe, config=cfg).close()
        except Exception as e:  # noqa: BLE001  (download or start failure, any kind)
            print(f"perfetto_export: SKIP: the trace processor could not be started "
                  f"(its trace_processor_shell binary is downloaded on first use; set "
                  f"PERFETTO_TP_SHELL to a local one): {type(e).__name__}: "
                  f"{str(e).splitlines()[0][:300] if str(e) else ''}")
            return 77
        ok = True
        for src in inputs:
            ok = check(TraceProcessor, cfg, a.profq, src, work) and ok
    print(f"perfetto_export: {len(inputs)} XPlanes, {'all match' if ok else 'MISMATCH'}")
    return 0 if ok and inputs else 1


if __name__ == "__main__":
    sys.exit(main())
