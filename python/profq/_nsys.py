"""Profile.nsys(): pq_nsys_compute's result struct (pq_nsys_result) copied into an Nsys
dataclass, then freed. Only the figures the public struct states are bound, read from the
struct (never from rendered JSON); the rest of ``profq nsys --format json`` (thunk totals,
opcodes, collective sizes and instances, variability, bias, heap traces, flame stacks)
stays in the library's opaque detail, which only the CLI renders."""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Union

from ._native import Error, check, ffi, lib, new_error
from ._tables import Table, array, columns, table

#: --section names of ``profq nsys`` and their PQ_NSYS_* bits.
SECTIONS = {"modules": "PQ_NSYS_MODULES", "runtime": "PQ_NSYS_RUNTIME",
            "opcodes": "PQ_NSYS_OPCODES", "collectives": "PQ_NSYS_COLLECTIVES",
            "variability": "PQ_NSYS_VARIABILITY", "bias": "PQ_NSYS_BIAS",
            "compile": "PQ_NSYS_COMPILE", "heap": "PQ_NSYS_HEAP", "flame": "PQ_NSYS_FLAME"}
#: --warmup values and their PQ_NSYS_WARMUP_* bits.
WARMUPS = {"archive-era": "PQ_NSYS_WARMUP_ARCHIVE", "head": "PQ_NSYS_WARMUP_HEAD"}

_FRAMES = (("all", "PQ_NSYS_ALL"), ("steady", "PQ_NSYS_STEADY"), ("init", "PQ_NSYS_INIT"))
_MODULE_FIELDS = ["program_id", "name", "rows", "total_ns", "total_ms", "share", "thunks_mean",
                  "thunks_std", "wait_share"]
_COLLECTIVE_FIELDS = ["collective", "rows", "instances", "busbw_mean_gbps", "busbw_median_gbps",
                      "busbw_max_gbps", "wait_mean_ms", "wait_median_ms", "wait_max_ms"]
_PASS_FIELDS = ["name", "non_child_s", "child_s", "share"]
_RUNTIME_FIELDS = ("thunks_ms", "modules_ms", "wall_ms", "idle_in_modules_ms",
                   "idle_between_modules_ms", "comm_hidden_ms", "comm_exposed_ms")


@dataclass
class Nsys:
    """The nsys-jax analysis of a profile (pq_nsys_result; README "nsys").

    ``input`` is "xplane" for a JAX XPlane GPU profile (every execution steady; no bias,
    compile, heap or flame), else "nsys" (an nsys-jax archive or an Nsight SQLite export
    with XLA ranges). ``frames``: per frame ("all", "steady", "init") the row counts
    module_rows, thunk_rows, communication_rows (0 without HLO) and compile_rows (0 unless
    the compile section was computed). ``modules``: the steady module table, by total time
    descending (program_id -1: the range named none); ``top_module_ids`` the program ids of
    its first rows that cover 99% of the time. The communication analyses run whatever
    ``sections`` asks (they give the modules' wait_share), so ``runtime``, ``aligned``,
    ``corrections_ns`` and ``collectives`` are filled even when the CLI's JSON of the same
    sections leaves them out. ``runtime`` (None when not computed): the
    top modules' thunks_ms, modules_ms, wall_ms, idle_in_modules_ms,
    idle_between_modules_ms, comm_hidden_ms, comm_exposed_ms. ``aligned`` and
    ``corrections_ns`` (per device, subtracted from starts): the clock alignment on a
    collective. ``collectives``: one row per collective kind of the steady frame.
    ``compile`` (None unless computed): total_s, ``passes`` (by non-child time) and
    ``top_passes`` (how many cover 97% of it).
    """
    input: str
    sections: List[str]
    warmup_head: bool
    all_steady: bool
    sources: int
    devices: int
    compiled_programs: int
    frames: Dict[str, Dict[str, int]]
    modules: Table
    top_module_ids: List[int]
    modules_total_ns: int
    runtime: Optional[Dict[str, float]]
    aligned: bool
    corrections_ns: Any
    collectives: Table
    compile: Optional[Dict[str, Any]]


def options(sections: Union[None, str, Sequence[str]], warmup: Optional[str]) -> Any:
    """A pq_nsys_options of SECTIONS (names of SECTIONS; None: all) and WARMUP."""
    if isinstance(sections, str):
        sections = [sections]
    mask = 0
    for s in sections or ():
        if s not in SECTIONS:
            raise Error("usage", "", -1, f"nsys section {s!r}: expected one of "
                        + ", ".join(SECTIONS))
        mask |= getattr(lib, SECTIONS[s])
    if warmup is not None:
        if warmup not in WARMUPS:
            raise Error("usage", "", -1, f"nsys warmup {warmup!r}: expected archive-era or head")
        mask |= getattr(lib, WARMUPS[warmup])
    o = ffi.new("pq_nsys_options *")
    o.sections = mask
    o.render_as = lib.PQ_OUT_JSON
    return o


def compute(profile: Any, sections: Union[None, str, Sequence[str]],
            warmup: Optional[str]) -> Nsys:
    """pq_nsys_compute on PROFILE (a live pq_profile *), copied, then pq_nsys_free."""
    o = options(sections, warmup)
    out = ffi.new("pq_nsys_result **")
    err = new_error()
    check(lib.pq_nsys_compute(profile, o, out, err), err)
    try:
        return _nsys_of(out[0])
    finally:
        lib.pq_nsys_free(out[0])


def _nsys_of(r: Any) -> Nsys:
    frames = {name: {k: getattr(r.frames[getattr(lib, idx)], k)
                     for k in ("module_rows", "thunk_rows", "communication_rows",
                               "compile_rows")}
              for name, idx in _FRAMES}
    mods = columns(r.modules, r.nmodules, "pq_nsys_module", _MODULE_FIELDS)
    top = [int(r.modules[k].program_id) for k in range(r.ntop)]
    runtime = {k: getattr(r, k) for k in _RUNTIME_FIELDS} if r.has_runtime else None
    comp = None
    if r.has_compile:
        comp = {"total_s": r.compile_total_s, "top_passes": r.ntop_passes,
                "passes": table(columns(r.passes, r.npasses, "pq_nsys_compile_pass",
                                        _PASS_FIELDS))}
    asked = [s for s, bit in SECTIONS.items() if r.sections & getattr(lib, bit)]
    return Nsys(
        input="xplane" if r.xplane else "nsys", sections=asked or list(SECTIONS),
        warmup_head=bool(r.warmup_head), all_steady=bool(r.all_steady), sources=r.sources,
        devices=r.devices, compiled_programs=r.compiled_programs, frames=frames,
        modules=table(mods), top_module_ids=top, modules_total_ns=r.modules_total_ns,
        runtime=runtime, aligned=bool(r.aligned),
        corrections_ns=array(r.corrections_ns, r.ndevices, "double"),
        collectives=table(columns(r.collectives, r.ncollectives, "pq_nsys_collective",
                                  _COLLECTIVE_FIELDS)),
        compile=comp)


__all__ = ["Nsys", "SECTIONS", "WARMUPS", "compute", "options"]
