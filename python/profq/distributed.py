"""profq on a Dask cluster: map partials over the workers, tree-merge them (issue 15
Deliver 3, README "Many hosts on a cluster").

    from dask.distributed import Client
    import profq.distributed
    client = Client("tcp://scheduler:8786")               # or LocalCluster(), dask-jobqueue, ...
    text = profq.distributed.run("ops", "gs://bucket/run1/*.xplane.pb", client=client,
                                 format="json", by="category")

``run`` is a user of Dask, not a scheduler: it submits one map task per input file (the
partial of `profq CMD --partial` over that file, computed on a worker by libprofq) and a
tree of merge tasks (`profq merge --partial`), and renders the last partial. Dask decides
where each task runs, retries failed ones (``retries=``), moves the partials between
workers and spills them; fsspec reads inputs where they lie (local paths, file://, gs://,
s3://, ... whatever fsspec implementation the workers have installed).

The result is the bytes `profq CMD [options]` prints over all the inputs in sorted order,
byte for byte: partials merge associatively and commutatively, so neither the order the
tasks finish in nor the shape of the tree changes it.

Memory per task: a local path (or file:// URL) is opened by libprofq as a file; a remote
object is read into memory (its bytes once, copied once by the loader) and dropped when its
partial is made. A worker with one thread holds one input at a time, and the partials
waiting for their merge: zlib-compressed, and at most FANIN - 1 per level of the merge
tree, as the graph's priorities run it depth first (``_graph``).

Install: ``pip install profq[distributed]`` (dask[distributed], fsspec)."""

import os
import subprocess
import tempfile
import zlib
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _partial

PathLike = Union[str, "os.PathLike[str]"]

#: The suffix of the files a run directory is searched for (as pq_profile_open does).
XSPACE_SUFFIX = ".xplane.pb"


def _is_url(s: str) -> bool:
    return "://" in s


def _has_magic(s: str) -> bool:
    return any(c in s for c in "*?[")


def _newest_run(found: List[str]) -> List[str]:
    """Of the *.xplane.pb files under a run directory, those of the folder that sorts last
    (the newest plugins/profile/<timestamp>/), sorted: what pq_profile_open reads."""
    if not found:
        return []
    found = sorted(found)
    last = found[-1].rsplit("/", 1)[0]
    return [p for p in found if p.rsplit("/", 1)[0] == last]


def _expand_one(item: str, storage_options: Dict[str, Any]) -> List[str]:
    """The input files ITEM names: itself, the matches of a glob, or a run directory's
    *.xplane.pb files (as pq_profile_open finds them), each a local path or a URL with its
    protocol."""
    if not _is_url(item):
        if _has_magic(item):
            import glob
            return sorted(glob.glob(item, recursive=True))
        if os.path.isdir(item):
            found = []
            for root, _dirs, files in os.walk(item):
                found += [os.path.join(root, f) for f in files if f.endswith(XSPACE_SUFFIX)]
            return _newest_run(found)
        return [item]
    import fsspec
    fs, _, found = fsspec.core.get_fs_token_paths(item, storage_options=storage_options)
    if not _has_magic(item) and len(found) == 1 and fs.isdir(found[0]):
        found = _newest_run([p for p in fs.find(found[0]) if p.endswith(XSPACE_SUFFIX)])
    return sorted(fs.unstrip_protocol(p) for p in found)


def expand(paths_or_glob: Union[PathLike, Sequence[PathLike]],
           storage_options: Optional[Dict[str, Any]] = None) -> List[str]:
    """The sorted list of input files of PATHS_OR_GLOB: a path, URL, glob or directory, or
    a list of them. Raises FileNotFoundError when nothing matches."""
    items = [paths_or_glob] if isinstance(paths_or_glob, (str, os.PathLike)) \
        else list(paths_or_glob)
    out: List[str] = []
    for it in items:
        found = _expand_one(os.fspath(it), storage_options or {})
        if not found:
            raise FileNotFoundError(f"profq.distributed: no input matches {os.fspath(it)!r}")
        out += found
    return sorted(set(out))


def _cli_partial(cmd: str, path: str, profq: str) -> bytes:
    """The partial of `profq CMD --partial` over the local PATH by the CLI PROFQ (the
    commands libprofq's Python binding has no native partial for)."""
    with tempfile.TemporaryDirectory(prefix="profq-part-") as d:
        out = os.path.join(d, "part")
        r = subprocess.run([profq, cmd, "--partial", "-o", out, path], capture_output=True)
        if r.returncode != 0:
            from ._native import Error
            raise Error("input" if r.returncode == 3 else f"exit {r.returncode}", path, -1,
                        r.stderr.decode("utf-8", "replace").strip())
        with open(out, "rb") as f:
            return f.read()


def _release() -> None:
    """Gives the C heap's freed pages back to the system (glibc's malloc_trim) after a task:
    a worker runs task after task, and a host's profile is freed when its partial is made;
    without this its RSS keeps the high-water mark of every task before. No-op elsewhere."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes
            _TRIM = ctypes.CDLL("libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


def map_partial(cmd: str, item: str, storage_options: Optional[Dict[str, Any]] = None,
                profq: Optional[str] = None) -> bytes:
    """The map task: the partial (bytes) of `profq CMD --partial` over the one input ITEM,
    a local path or an fsspec URL. Runs on a worker; public so that other engines (Ray, a
    process pool, a Slurm array in Python) can map the same function.

    A file:// URL is named by its local path, another URL by itself: the partial orders
    its inputs by these names, as one process orders the paths it is given."""
    try:
        return _map(cmd, item, storage_options, profq)
    finally:
        _release()


def _map(cmd: str, item: str, storage_options: Optional[Dict[str, Any]],
         profq: Optional[str]) -> bytes:
    native = cmd in _partial.COMMANDS
    if not _is_url(item):
        if native:
            return _partial.partial(cmd, item)
        return _cli_partial(cmd, item, profq or "profq")
    import fsspec
    fs, path = fsspec.core.url_to_fs(item, **(storage_options or {}))
    local = item.split("://", 1)[0] in ("file", "local")
    name = path if local else item
    if not native:
        if not local:
            raise ValueError(f"profq.distributed: {cmd} has no native partial; its remote "
                             f"input {item} needs a local path")
        return _cli_partial(cmd, path, profq or "profq")
    data = fs.cat_file(path)
    try:
        return _partial.partial(cmd, data=data, name=name)
    finally:
        del data


def merge_partials(*parts: bytes) -> bytes:
    """The reduce task: the merged partial of PARTS (`profq merge --partial`)."""
    try:
        return _partial.merge(parts)
    finally:
        _release()


def _graph(cmd: str, files: List[str], fanin: int, storage_options: Optional[Dict[str, Any]],
           profq: Optional[str]) -> Any:
    """The whole run as one Dask graph (dask.delayed): a map task per file and a tree of
    merge tasks, FANIN partials a merge, each task with a Dask priority (dask.annotate)
    that runs the tree depth first: a merge as soon as its partials exist, before any map
    of the next group. A worker then holds at most FANIN - 1 partials per level of the
    tree besides the file it is reading (docs/internals/partial.md, "Memory of a worker").

    The priority of a task covering the files [a, b) at DEPTH of the tree (a map: depth 0)
    is -(b * (levels + 1) + depth): ordered by its last file, then children first."""
    import uuid
    import dask
    from dask import delayed
    run_id = uuid.uuid4().hex[:12]  # keys of this run only: Dask reuses a key's result
    levels, n = 0, len(files)
    while n > 1:
        levels, n = levels + 1, -(-n // fanin)

    def prio(end: int, depth: int) -> int:
        return -(end * (levels + 1) + depth)

    level = []
    for i, f in enumerate(files):
        with dask.annotate(priority=prio(i + 1, 0)):
            level.append((i + 1, delayed(_map_packed, pure=True)(
                cmd, f, storage_options, profq,
                dask_key_name=f"profq-{cmd}-map-{run_id}-{i}")))
    depth = 0
    while len(level) > 1:
        depth += 1
        merged = []
        for j in range(0, len(level), fanin):
            group = level[j:j + fanin]
            if len(group) == 1:
                merged.append(group[0])
                continue
            end = group[-1][0]
            with dask.annotate(priority=prio(end, depth)):
                merged.append((end, delayed(_merge_packed, pure=True)(
                    *[t for _, t in group],
                    dask_key_name=f"profq-{cmd}-merge-{run_id}-{depth}-{j // fanin}")))
        level = merged
    return level[0][1]


def _map_packed(cmd: str, item: str, storage_options: Optional[Dict[str, Any]],
                profq: Optional[str]) -> bytes:
    """run()'s map task: map_partial's partial, zlib-compressed (level 1: a generated host's
    1.5 MB op table becomes 0.28 MB in about 20 ms), as the partials wait in a worker's
    memory for their merge and travel between workers."""
    return zlib.compress(map_partial(cmd, item, storage_options, profq), 1)


def _merge_packed(*packed: bytes) -> bytes:
    """run()'s merge task: merge_partials of compressed partials, compressed; each input
    is decompressed only when the merge reads it."""
    try:
        return zlib.compress(_partial.merge(zlib.decompress(p) for p in packed), 1)
    finally:
        _release()


def run(cmd: str, paths_or_glob: Union[PathLike, Sequence[PathLike]], client: Any = None, *,
        format: str = "text", partial: bool = False, by: Optional[str] = None, top: int = 0,
        wide: bool = False, peak_flops: Optional[float] = None,
        peak_bw: Optional[float] = None, fanin: int = 8, retries: Optional[int] = None,
        storage_options: Optional[Dict[str, Any]] = None,
        profq: Optional[str] = None) -> bytes:
    """`profq CMD [options] PATHS...` on a Dask cluster: its output, as bytes.

    CMD: a command with partials (`profq CMD --partial`: scan, ops, roofline, ...).
    PATHS_OR_GLOB: a path, URL (file://, gs://, s3://, ... via fsspec), glob or run
    directory, or a list of them; one map task per file. CLIENT: a
    dask.distributed.Client (default: the current one, distributed.get_client()).
    FORMAT, BY, TOP, WIDE, PEAK_FLOPS, PEAK_BW: the options of `profq merge CMD`.
    PARTIAL: return the merged partial instead (the bytes `profq merge --partial` writes).
    FANIN: partials merged per reduce task. RETRIES: Dask's retries of a failed task.
    STORAGE_OPTIONS: fsspec's options for the URLs (credentials, project, ...).
    PROFQ: the profq CLI the workers run for commands without a native partial.

    Raises profq.Error (path, offset, message) when an input is malformed, as the CLI
    exits 3, and FileNotFoundError when an input matches no file."""
    if fanin < 2:
        raise ValueError("profq.distributed.run: fanin must be at least 2")
    if client is None:
        from distributed import get_client
        client = get_client()
    files = expand(paths_or_glob, storage_options)
    merged = zlib.decompress(client.compute(_graph(cmd, files, fanin, storage_options, profq),
                                            retries=retries).result())
    if partial:
        return merged
    return _partial.render(merged, format, by=by, top=top, wide=wide, peak_flops=peak_flops,
                           peak_bw=peak_bw)


__all__ = ["run", "expand", "map_partial", "merge_partials"]
