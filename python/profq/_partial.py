"""Partial results from Python (issue 15; README "Many hosts: `--partial` and
`profq merge`" and "Many hosts on a cluster"): the map and the reduce of
`profq <cmd> --partial` and `profq merge <cmd>` over libprofq's pq_partial_* functions.

    part = profq.partial("ops", "host0.xplane.pb")         # bytes, as --partial writes
    merged = profq.merge([part0, part1, part2])            # bytes, as merge --partial writes
    text = profq._partial.render(merged, format="json", by="category")  # profq merge ops ...

A partial is the bytes of the versioned file format (docs/internals/partial.md), so it can
be written, shipped between processes or machines and merged anywhere. Nothing here
schedules work: profq.distributed maps these functions on Dask.

The map is native for the commands whose pq_partial_<cmd> this module knows (``COMMANDS``);
the merge and the render are native for every kind the loaded libprofq reads."""

import os
from typing import Any, Dict, Iterable, Optional, Sequence, Union

from . import _nsys
from ._native import check, encode, ffi, lib, new_error, render as _render

PathLike = Union[str, "os.PathLike[str]"]

_FORMATS = {"text": 0, "json": 1, "xprof": 2, "tsv": 3, "md": 4, "svg": 5}
_BY = {"op": 0, "category": 1, "program": 2, "provenance": 3}


def _map_scan(prof: Any, totals: Any, out: Any, err: Any) -> int:
    return lib.pq_partial_scan(prof, totals, out, err)


def _map_ops(prof: Any, _totals: Any, out: Any, err: Any) -> int:
    return lib.pq_partial_ops(prof, out, err)


def _map_roofline(prof: Any, _totals: Any, out: Any, err: Any) -> int:
    return lib.pq_partial_roofline(prof, out, err)


def _map_nsys(prof: Any, _totals: Any, out: Any, err: Any) -> int:
    return lib.pq_partial_nsys(prof, out, err)


#: The commands whose partial is computed natively: name -> (map function, whether the
#: load computes the scan totals, as `profq scan` does).
COMMANDS: Dict[str, Any] = {
    "scan": (_map_scan, True),
    "ops": (_map_ops, False),
    "roofline": (_map_roofline, False),
    "nsys": (_map_nsys, False),
}


def _open(paths: Sequence[PathLike], data: Optional[bytes], name: Optional[str],
          totals: Any) -> Any:
    """A pq_profile * (freed by the caller) of PATHS, or of DATA named NAME."""
    opts = ffi.new("pq_open_options *")
    opts.threads = 1
    opts.skip_sha256 = 1  # the commands with partials print no sha256
    if totals is not None:
        opts.scan = totals
    out = ffi.new("pq_profile **")
    err = new_error()
    if data is not None:
        buf = ffi.from_buffer(data)
        check(lib.pq_profile_open_memory(buf, len(data), encode(name), opts, out, err), err)
    else:
        keep = [encode(os.fspath(p)) for p in paths]
        argv = ffi.new("char *[]", keep)
        check(lib.pq_profile_open(argv, len(keep), opts, out, err), err)
    return out[0]


def _write(part: Any) -> bytes:
    return _render(lambda sink, err: lib.pq_partial_write(part, sink, err))


def partial(cmd: str, paths: Union[PathLike, Sequence[PathLike], None] = None, *,
            data: Optional[bytes] = None, name: Optional[str] = None) -> bytes:
    """The partial of `profq CMD --partial` over PATHS (one path or several), as bytes.

    With DATA instead of PATHS: the partial of one in-memory file named NAME (the name
    the file's path would have: it picks the format by suffix, appears in errors, and
    orders the partial among others as the path would). Raises profq.Error when a file
    is missing or malformed, ValueError for a command without a native partial."""
    if cmd not in COMMANDS:
        raise ValueError(f"profq: no native partial for {cmd!r} (native: "
                         f"{', '.join(sorted(COMMANDS))})")
    fn, with_totals = COMMANDS[cmd]
    if data is None:
        if paths is None:
            raise ValueError("profq.partial: give paths or data")
        paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    elif not name:
        raise ValueError("profq.partial: data needs a name")
    totals = ffi.new("pq_scan_totals *") if with_totals else None
    prof = _open(paths or [], data, name, totals)
    try:
        out = ffi.new("pq_partial **")
        err = new_error()
        check(fn(prof, totals, out, err), err)
    finally:
        lib.pq_profile_free(prof)
    try:
        return _write(out[0])
    finally:
        lib.pq_partial_free(out[0])


def _read(data: bytes, name: str) -> Any:
    out = ffi.new("pq_partial **")
    err = new_error()
    check(lib.pq_partial_read(ffi.from_buffer(data), len(data), encode(name), out, err), err)
    return out[0]


def kind(part: bytes) -> str:
    """The command a partial is of ("scan", "ops", ...). Raises profq.Error if malformed."""
    p = _read(part, "partial")
    try:
        name = lib.pq_partial_kind_name(lib.pq_partial_kind_of(p))
        return "" if name == ffi.NULL else ffi.string(name).decode()
    finally:
        lib.pq_partial_free(p)


def merge(parts: Iterable[bytes]) -> bytes:
    """The merge of PARTS (partials of one command), as the bytes `profq merge --partial`
    writes. The merge is associative and commutative: any order, any tree. Raises
    profq.Error for a malformed partial or partials of different commands."""
    acc = None
    try:
        for i, data in enumerate(parts):
            p = _read(data, f"partial {i}")
            if acc is None:
                acc = p
                continue
            try:
                err = new_error()
                check(lib.pq_partial_merge(acc, p, err), err)
            finally:
                lib.pq_partial_free(p)
        if acc is None:
            raise ValueError("profq.merge: no partials")
        return _write(acc)
    finally:
        if acc is not None:
            lib.pq_partial_free(acc)


def render(part: bytes, format: str = "text", *, by: Optional[str] = None, top: int = 0,
           wide: bool = False, peak_flops: Optional[float] = None,
           peak_bw: Optional[float] = None, sections: Union[None, str, Sequence[str]] = None,
           warmup: Optional[str] = None) -> bytes:
    """What `profq merge CMD [options] PART` prints for the partial PART, as bytes: the
    bytes `profq CMD [options]` prints over the partial's inputs. BY, TOP, WIDE and the
    peaks (TFLOP/s, GB/s per device) are the ops and roofline options; SECTIONS (names of
    `profq nsys --section`; None: all) and WARMUP ("archive-era" or "head") nsys's."""
    if format not in _FORMATS:
        raise ValueError(f"profq: unknown format {format!r}")
    if by is not None and by not in _BY:
        raise ValueError(f"profq: by takes {', '.join(_BY)}, not {by!r}")
    opts = ffi.new("pq_ops_options *")
    opts.by = _BY[by] if by else 0
    opts.top = top
    opts.wide = 1 if wide else 0
    opts.peak_tflops = peak_flops or 0.0
    opts.peak_hbm_gbps = peak_bw or 0.0
    p = _read(part, "partial")
    try:
        if lib.pq_partial_kind_of(p) == lib.PQ_PARTIAL_NSYS:
            mask = _nsys.options(sections, warmup).sections
            return _render(lambda sink, err: lib.pq_partial_render_nsys(
                p, mask, _FORMATS[format], sink, err))
        if sections is not None or warmup is not None:
            raise ValueError("profq: sections and warmup are nsys's")
        return _render(lambda sink, err: lib.pq_partial_render(p, opts, _FORMATS[format], sink,
                                                               err))
    finally:
        lib.pq_partial_free(p)


__all__ = ["COMMANDS", "partial", "merge", "render", "kind"]
