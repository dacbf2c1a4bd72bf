"""bench/dask_run.py - the driver of bench/distributed.sh (not run on its own; not named
distributed.py, which would shadow the distributed package): times
profq.distributed.run(CMD, FILES) on a fresh Dask LocalCluster of N worker processes (one
thread each) and prints one line: workers, wall seconds, and per worker its peak RSS, its
RSS before the run (Python, Dask and libprofq loaded) and the CPU seconds it spent; then
checks the output against the single-process output in WANT.

    python bench/dask_run.py CMD NWORKERS WANT FILE...
"""

import os
import resource
import sys
import time


def _usage() -> tuple:
    """This process's peak RSS (KiB), current RSS (KiB) and CPU seconds."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/self/statm") as f:
        rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    return ru.ru_maxrss, rss, ru.ru_utime + ru.ru_stime


def _warm() -> tuple:
    import profq.distributed  # noqa: F401  (what a task imports, before the baseline)
    return _usage()


def main() -> int:
    cmd, nworkers, want_path, files = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    from dask.distributed import Client, LocalCluster
    import profq.distributed

    with LocalCluster(n_workers=nworkers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, \
            Client(cluster) as client:
        client.wait_for_workers(nworkers)
        before = client.run(_warm)
        t0 = time.monotonic()
        got = profq.distributed.run(cmd, files, client=client)
        wall = time.monotonic() - t0
        after = client.run(_usage)
    with open(want_path, "rb") as f:
        same = f.read() == got
    biggest = max(os.path.getsize(p) for p in files) / 2**20
    cols = []
    worst = 0.0
    for i, w in enumerate(sorted(after)):
        peak, _, cpu = after[w]
        _, base, cpu0 = before[w]
        held = (peak - base) / 1024
        worst = max(worst, held)
        cols.append(f"worker {i}: peak RSS {peak / 1024:.0f} MiB (idle {base / 1024:.0f}, "
                    f"run held {held:.0f}), CPU {cpu - cpu0:.1f} s")
    print(f"{nworkers} worker(s): wall {wall:.2f} s; " + "; ".join(cols) +
          f"; most held by a worker {worst:.0f} MiB = {worst / biggest:.2f} x the largest "
          f"file ({biggest:.0f} MiB); output {'identical' if same else 'DIFFERS'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
