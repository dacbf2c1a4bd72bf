"""profq.distributed on a Dask LocalCluster (issue 15 Deliver 3): 64 generated hosts
(bench/gen_xspace.c, seeds 1..64, small), every command with --partial (found in the CLI's
help, so commands that gain partials are checked too) in each of its formats and options,
mapped over two worker processes of one thread each and tree-merged, print exactly what
one `profq CMD` process over all 64 files prints; by local paths, by a file:// glob (read
on the workers with fsspec) and by a local glob. Also: both workers ran map tasks, a corrupt input raises profq.Error with the CLI's
byte offset, and the cluster is stopped at the end.

Environment: PROFQ (the CLI, default build/profq), CC (default cc). Needs dask[distributed]
and fsspec (tests/python-requirements.txt)."""

import glob
import os
import re
import subprocess
from functools import lru_cache
from typing import Dict, Iterator, List, Tuple

import pytest

import profq
from profq import _partial

dd = pytest.importorskip("distributed", reason="dask distributed is not installed")
import profq.distributed  # noqa: E402  (needs dask and fsspec)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFQ = os.environ.get("PROFQ", os.path.join(TOP, "build", "profq"))
NHOSTS = 64

# The options each command is checked with, one variant a tuple (CLI options, run() options).
VARIANTS: Dict[str, List[Tuple[List[str], Dict[str, object]]]] = {
    "scan": [(["--format", "text"], {"format": "text"}),
             (["--format", "json"], {"format": "json"})],
    "ops": [(["--format", "text"], {"format": "text"}),
            (["--format", "json"], {"format": "json"}),
            (["--by", "category"], {"by": "category"}),
            (["--by", "program", "--format", "json"], {"by": "program", "format": "json"}),
            (["--top", "5", "--wide"], {"top": 5, "wide": True}),
            (["--peak-flops", "100", "--peak-bw", "2000", "--format", "json"],
             {"peak_flops": 100.0, "peak_bw": 2000.0, "format": "json"})],
    "roofline": [(["--format", "text"], {"format": "text"}),
                 (["--format", "json"], {"format": "json"}),
                 (["--top", "3", "--peak-flops", "50"], {"top": 3, "peak_flops": 50.0})],
}
DEFAULT_VARIANTS = [(["--format", "text"], {"format": "text"}),
                    (["--format", "json"], {"format": "json"})]


def partial_commands() -> List[str]:
    """The commands whose help offers --partial (merge itself aside)."""
    out = subprocess.run([PROFQ, "--help"], capture_output=True, text=True, check=True).stdout
    names = re.findall(r"^  ([a-z][a-z-]*) ", out, re.M)
    found = []
    for n in names:
        # summarize's partials are per trace file (the summary set of a job's ranks); the
        # hosts here are XSpaces, which it reads one at a time; nsys reads GPU XSpaces and
        # nsys-jax archives, not these TPU hosts (tests/partial.sh, test_nsys_partial.py)
        if n in ("merge", "help", "version", "summarize", "nsys"):
            continue
        r = subprocess.run([PROFQ, "help", n], capture_output=True, text=True)
        if "--partial" in r.stdout + r.stderr:
            found.append(n)
    return found


COMMANDS = partial_commands()


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> List[str]:
    """64 generated host XSpaces (about 3 MB each), sorted as a shell glob lists them."""
    d = tmp_path_factory.mktemp("hosts")
    gen = str(d / "gen_xspace")
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2",
                    "-o", gen, os.path.join(TOP, "bench", "gen_xspace.c")], check=True)
    for s in range(1, NHOSTS + 1):
        subprocess.run([gen, str(d / f"host{s:02d}.xplane.pb"), str(1024 * s), str(s)],
                       check=True, capture_output=True)
    os.remove(gen)
    return sorted(glob.glob(str(d / "*.xplane.pb")))


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    """A LocalCluster of 2 worker processes with 1 thread each, stopped at the end."""
    cluster = dd.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                              dashboard_address=None)
    c = dd.Client(cluster)
    try:
        c.wait_for_workers(2)
        yield c
    finally:
        c.close()
        cluster.close()
        assert cluster.status.name == "closed"


def one_process(cmd: str, opts: List[str], files: List[str]) -> bytes:
    """What `profq CMD OPTS FILES...` prints (exit 0 asserted); kept for the next asks."""
    return _one_process(cmd, tuple(opts), tuple(files))


@lru_cache(maxsize=None)
def _one_process(cmd: str, opts: Tuple[str, ...], files: Tuple[str, ...]) -> bytes:
    r = subprocess.run([PROFQ, cmd, *opts, *files], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout


def test_commands_found() -> None:
    # scan, ops and roofline have partials since issue 15 Deliver 2; others may follow
    assert {"scan", "ops", "roofline"} <= set(COMMANDS)


@pytest.mark.parametrize("cmd", COMMANDS)
def test_run_equals_one_process(client: object, hosts: List[str], cmd: str) -> None:
    """By local path (both workers map), by file:// glob read on the workers with fsspec
    (a narrower tree of merges), and every variant of the command's options rendered from
    the merged partial run() returns."""
    (cli0, opts0), (cli1, opts1) = VARIANTS.get(cmd, DEFAULT_VARIANTS)[:2]
    want = one_process(cmd, cli0, hosts)
    assert want, "the single process printed nothing"
    with dd.get_task_stream(client) as ts:
        got = profq.distributed.run(cmd, hosts, client=client, profq=PROFQ,
                                    **opts0)  # type: ignore[arg-type]
    assert got == want
    mapped = {t["worker"] for t in ts.data if str(t["key"]).startswith(f"profq-{cmd}-map-")}
    assert len(mapped) == 2, f"map tasks ran on {mapped}"

    d = os.path.dirname(hosts[0])
    got = profq.distributed.run(cmd, "file://" + d + "/host*.xplane.pb", client=client,
                                profq=PROFQ, fanin=2, **opts1)  # type: ignore[arg-type]
    assert got == one_process(cmd, cli1, hosts)

    part = profq.distributed.run(cmd, os.path.join(d, "host*.xplane.pb"), client=client,
                                 profq=PROFQ, partial=True)
    assert _partial.kind(part) == cmd
    for cli, opts in VARIANTS.get(cmd, DEFAULT_VARIANTS):
        assert _partial.render(part, **opts) == one_process(cmd, cli, hosts), cli  # type: ignore


@pytest.mark.parametrize("n,fanin", [(64, 8), (10, 4), (7, 2), (1, 8)])
def test_merges_run_depth_first(n: int, fanin: int) -> None:
    """The graph run() submits runs each merge as soon as its partials exist, before the
    maps of later files (Dask priorities: depth first), so that a worker does not keep
    nearly every host's partial until the last maps: a merge has a lower priority than
    each of its inputs and a higher one than every map of a file after its own."""
    files = [f"h{i:03d}.xplane.pb" for i in range(n)]
    hg = profq.distributed._graph("scan", files, fanin, None, None).__dask_graph__()
    prio = {k: layer.annotations["priority"] for k, layer in hg.layers.items()}
    maps = {int(k.rsplit("-", 1)[1]): k for k in prio if "-map-" in k}
    assert sorted(maps) == list(range(n))
    merges = [k for k in prio if "-merge-" in k]
    width, want = n, 0  # each level merges its tasks FANIN at a time; a lone one moves up
    while width > 1:
        want += width // fanin + (1 if width % fanin > 1 else 0)
        width = -(-width // fanin)
    assert len(merges) == want
    for k in merges:
        deps = hg.dependencies[k]
        assert 2 <= len(deps) <= fanin
        assert all(prio[k] < prio[d] for d in deps), k
        last = max(int(m.rsplit("-", 1)[1]) for m in maps.values() if _covers(hg, k, m))
        assert all(prio[k] > prio[maps[i]] for i in range(last + 1, n)), k


def _covers(hg: object, key: str, leaf: str) -> bool:
    """Whether the task KEY depends (transitively) on LEAF in the graph HG."""
    todo = [key]
    while todo:
        k = todo.pop()
        if k == leaf:
            return True
        todo += hg.dependencies[k]  # type: ignore[attr-defined]
    return False


def test_partial_output_merges_like_the_cli(client: object, hosts: List[str],
                                            tmp_path: "os.PathLike[str]") -> None:
    """partial=True returns a partial that `profq merge` reads and renders as one process."""
    part = profq.distributed.run("ops", hosts[:8], client=client, partial=True)
    assert _partial.kind(part) == "ops"
    p = os.path.join(tmp_path, "all.part")
    with open(p, "wb") as f:
        f.write(part)
    r = subprocess.run([PROFQ, "merge", "ops", "--format", "json", p], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == one_process("ops", ["--format", "json"], hosts[:8])


def test_corrupt_input_raises_with_offset(client: object, hosts: List[str],
                                          tmp_path: "os.PathLike[str]") -> None:
    bad = os.path.join(tmp_path, "host99.xplane.pb")
    with open(hosts[0], "rb") as f, open(bad, "wb") as g:
        g.write(f.read(100000))
    r = subprocess.run([PROFQ, "ops", bad], capture_output=True, text=True)
    assert r.returncode == 3
    offset = int(re.search(r"offset (\d+)", r.stderr).group(1))  # type: ignore[union-attr]
    for inputs in ([hosts[1], bad], ["file://" + bad]):
        with pytest.raises(profq.Error) as e:
            profq.distributed.run("ops", inputs, client=client)
        assert e.value.offset == offset and e.value.path.endswith("host99.xplane.pb")


def test_no_match_raises(client: object, tmp_path: "os.PathLike[str]") -> None:
    with pytest.raises(FileNotFoundError):
        profq.distributed.run("scan", os.path.join(tmp_path, "none*.xplane.pb"), client=client)


def test_run_directory(client: object, hosts: List[str], tmp_path: "os.PathLike[str]") -> None:
    """A run directory reads the newest plugins/profile/<ts>/ folder, as the CLI does."""
    run = os.path.join(tmp_path, "run")
    for ts, picked in (("2026_01_01", hosts[:2]), ("2026_01_02", hosts[2:5])):
        d = os.path.join(run, "plugins", "profile", ts)
        os.makedirs(d)
        for h in picked:
            os.link(h, os.path.join(d, os.path.basename(h)))
    assert len(profq.distributed.expand(run)) == 3
    assert len(profq.distributed.expand("file://" + run)) == 3
    want = one_process("scan", [], [run])
    assert profq.distributed.run("scan", run, client=client) == want
    assert profq.distributed.run("scan", "file://" + run, client=client) == want
