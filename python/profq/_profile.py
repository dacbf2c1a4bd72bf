"""profq.Profile: a loaded profile and its analyses as Python objects.

Each analysis calls the C library's pq_<analysis>_compute, copies the result struct into
Python objects (numbers, str, numpy arrays, tables) and frees the C result before
returning, so nothing Python holds points into C memory except the profile itself, which
close() (or the with-block, or garbage collection) frees. Only xprof() renders JSON: its
contract is XProf's own JSON document."""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _nsys, _tables
from ._native import Error, check, cstr, encode, ffi, lib, new_error, pstr, render
from ._nsys import Nsys
from ._summary import Summary, summarize
from ._tables import Table, array, columns, table

PathLike = Union[str, "os.PathLike[str]"]

_FORMATS = {0: "unknown", 1: "xspace", 2: "hlo_proto", 3: "trace_json", 4: "tt_log",
            5: "nsys_jax", 6: "nsys_sqlite"}
_HW = {0: "none", 1: "cpu", 2: "gpu", 3: "tpu"}
_BY = {"op": 0, "category": 1, "program": 2, "provenance": 3}
_STAT_KINDS = ("none", "double", "uint64", "int64", "str", "bytes", "ref")


@dataclass
class Source:
    """One input file of a profile (pq_source_info)."""
    path: str
    format: str
    host: str
    size_bytes: int
    sha256: str
    planes: int
    events: int
    stats: int


_OP_FIELDS = [
    "program_id", "symbol_id", "name", "long_name", "category", "provenance", "dedup_name",
    "source", "source_stack", "op_type", "occurrences", "time_ps", "self_time_ps",
    "min_time_ps", "dma_stall_ps", "normalized_time_ps", "flops", "model_flops",
    "bytes_accessed", "bd_hbm", "bd_cmem_rd", "bd_cmem_wr", "bd_vmem_rd", "bd_vmem_wr",
    "bd_onchip_rd", "bd_onchip_wr", "has_breakdown", "is_idle", "provenance_from_hlo", "nfused",
] + [(f, "rates." + f) for f in (
    "flop_rate_gflops", "model_flop_rate", "mem_bw_gibps", "hbm_bw_gibps", "cmem_rd_gibps",
    "cmem_wr_gibps", "vmem_rd_gibps", "vmem_wr_gibps", "oi", "hbm_oi", "hbm_bytes", "bound_by",
    "bottleneck_oi", "not_meaningful", "flop_utilization", "max_mem_utilization",
    "roofline_efficiency", "optimal_flop_rate")]

_PROGRAM_FIELDS = [
    "program_id", "name", "executions", "module_ps", "op_self_ps", "first_ps", "flops",
    "model_flops", "bytes_accessed", "hbm_bytes", "steady_executions", "steady_module_ps",
    "steady_share", "name_shared", "active_gflops", "whole_gflops", "active_hbm_gibps",
    "whole_hbm_gibps"]


@dataclass
class Ops:
    """Op metrics and roofline of a profile (pq_ops_result; README "ops", "roofline").

    Times are picoseconds summed over devices. ``ops`` has one row per (program, op)
    (or per group with ``by=``), sorted by self time, XProf's IDLE row last
    (``is_idle``); the ``rates`` columns (flop_rate_gflops, hbm_bw_gibps, oi, bound_by,
    not_meaningful, ...) are the roofline figures of each row. ``programs`` has one row per
    XLA module. ``total`` is the roofline's program total (a dict of the same fields).
    """
    hardware: str
    device_type: str
    gpu_model: str
    devices: int
    device_planes: int
    total_time_ps: int
    total_op_time_ps: int
    window_ps: int
    has_modules: bool
    module_ps: int
    busy_ps: int
    idle_ps: int
    dominant_program: Optional[int]
    steady_window_ps: int
    steady_busy_ps: int
    steady_gflops: float
    steady_hbm_gibps: float
    #: tflops (per device), hbm_gbps, bws (GB/s: HBM, SRAM rd/wr, CMEM rd/wr, VMEM rd/wr):
    #: None where the input states no peak and none was given
    peaks: Dict[str, Any]
    ops: Table
    programs: Table
    groups: Optional[Table]
    by: str
    total: Dict[str, Any]
    total_active_gflops: float
    total_active_hbm_gibps: float


@dataclass
class MemoryViewer:
    """XProf's memory_viewer of one module, computed exactly (pq_memory_viewer_result).

    ``heap_bytes`` is the heap size before each heap-simulator event (without
    ``indefinite_bytes``, which XProf adds to every point: heapSizes in MiB are
    (heap_bytes + indefinite_bytes) / 2**20). ``modules`` is filled when no module was
    asked for (``is_list``): every module with its program id and memory spaces.
    """
    is_list: bool
    modules: Optional[Table]
    module: Optional[str] = None
    name: Optional[str] = None
    program_id: Optional[int] = None
    source: Optional[str] = None
    memory_space: int = 0
    peak_heap_bytes: int = 0
    peak_unpadded_bytes: int = 0
    peak_position: int = 0
    indefinite_bytes: int = 0
    entry_params_bytes: int = 0
    non_reusable_bytes: int = 0
    maybe_live_out_bytes: int = 0
    total_allocation_bytes: int = 0
    indefinite_allocation_bytes: int = 0
    heap_bytes: Any = field(default_factory=list)


@dataclass
class Memory:
    """Memory attribution per device (pq_memory_result; README "memory").

    ``rows``: one per device of each source: host, device, module, program_id,
    ran_nothing, one column per figure (``figure_names``: peak_bytes, entry_params_bytes,
    the buckets, gradient_hits), parameter_rows_bytes, groups (dict of group -> bytes) and
    the three checks (``<check>_ok``, ``<check>_delta``). ``aggregate``: min/avg/max of
    each figure over the devices that ran something.
    """
    rows: Table
    bucket_names: List[str]
    figure_names: List[str]
    aggregate: Dict[str, Dict[str, float]]
    idle_devices: int


_SNAP_FIELDS = [
    "time_ps", ("stack_reserved", "s.stack_reserved"), ("heap_allocated", "s.heap_allocated"),
    ("free_memory", "s.free_memory"), ("peak_bytes_in_use", "s.peak_bytes_in_use"),
    ("fragmentation", "s.fragmentation"), "activity", "requested", "allocation", "step_id",
    "address", "tf_op", "region_type", "tensor_shape", "data_type", "data_type_name"]


def _stats(s: Any) -> Dict[str, Any]:
    return {"stack_reserved": s.stack_reserved, "heap_allocated": s.heap_allocated,
            "free_memory": s.free_memory, "peak_bytes_in_use": s.peak_bytes_in_use,
            "fragmentation": s.fragmentation}


def _struct(obj: Any, ctype: str, names: Sequence[str]) -> Dict[str, Any]:
    """Scalar fields NAMES of one struct as a dict (numbers; char * and pq_str as str)."""
    out: Dict[str, Any] = {}
    fields = dict(ffi.typeof(ctype).fields)
    for n in names:
        t = fields[n].type
        v = getattr(obj, n)
        if t.kind == "struct" and t.cname == "pq_str":
            v = pstr(v)
        elif t.kind == "pointer":
            v = cstr(v)
        out[n] = v
    return out


class Profile:
    """One or more profile files loaded into one profile (pq_profile).

    Use as a context manager, or call close(); the profile is also freed when garbage
    collected. Every analysis returns plain Python objects that stay valid after close().
    """

    def __init__(self, paths: Sequence[PathLike], threads: int = 0,
                 skip_sha256: bool = False) -> None:
        self._p: Any = ffi.NULL
        self.paths: List[str] = [os.fspath(p) for p in paths]
        keep = [ffi.new("char[]", os.fsencode(p)) for p in self.paths]
        argv = ffi.new("const char *[]", keep)
        opts = ffi.new("pq_open_options *")
        opts.threads = threads
        opts.skip_sha256 = 1 if skip_sha256 else 0
        out = ffi.new("pq_profile **")
        err = new_error()
        check(lib.pq_profile_open(argv, len(keep), opts, out, err), err)
        self._p = out[0]

    # ---- lifetime ----
    def close(self) -> None:
        """Frees the C profile (idempotent)."""
        if self._p != ffi.NULL:
            lib.pq_profile_free(self._p)
            self._p = ffi.NULL

    def __enter__(self) -> "Profile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone
            pass

    def _live(self) -> Any:
        if self._p == ffi.NULL:
            raise Error("usage", "", -1, "the profile is closed")
        return self._p

    def __repr__(self) -> str:
        return f"profq.Profile({self.paths!r})"

    # ---- what was loaded ----
    @property
    def sources(self) -> List[Source]:
        """The input files, in load order (pq_source_info)."""
        p = self._live()
        out = []
        for i in range(lib.pq_profile_source_count(p)):
            s = lib.pq_profile_source(p, i)
            out.append(Source(pstr(s.path), _FORMATS.get(s.format, "unknown"), pstr(s.host),
                              s.size_bytes, ffi.string(s.sha256).decode(), s.planes, s.events,
                              s.stats))
        return out

    def scan(self) -> Dict[str, Any]:
        """Decodes every event and stat again (pq_profile_scan) and returns the totals:
        planes, lines, events, event_stats, metadata_stats, plane_stats, stats_by_kind
        (dict by value kind), bytes, checksum."""
        t = ffi.new("pq_scan_totals *")
        err = new_error()
        check(lib.pq_profile_scan(self._live(), t, err), err)
        d = {k: getattr(t, k) for k in ("planes", "lines", "events", "event_stats",
                                        "metadata_stats", "plane_stats", "bytes", "checksum")}
        d["stats_by_kind"] = {k: t.stats_by_kind[i] for i, k in enumerate(_STAT_KINDS)}
        d["sources"] = lib.pq_profile_source_count(self._p)
        return d

    def info(self) -> Dict[str, Any]:
        """What the profile holds: {"sources": [per-source dict (Source's fields)],
        "scan": scan()} (the scan walks every event again)."""
        return {"sources": [s.__dict__.copy() for s in self.sources], "scan": self.scan()}

    # ---- ops and roofline ----
    def ops(self, by: str = "op", peak_tflops: float = 0.0, peak_hbm_gbps: float = 0.0,
            xprof_planes: bool = False) -> Ops:
        """Op metrics merged over devices and hosts as XProf's OpStats (``profq ops``).

        Args:
            by: "op" (one row per (program, op)), "category" or "program": ``groups``
                holds the ops so grouped (``ops`` always has the per-op rows).
            peak_tflops, peak_hbm_gbps: > 0 override the device peaks the input states.
            xprof_planes: read device planes only, as XProf does.
        Returns:
            Ops (tables: ``ops``, ``programs``, ``groups``; the roofline ``total``).
        """
        if by not in ("op", "category", "program"):
            raise Error("usage", "", -1, f"by must be op, category or program, not {by!r}")
        o = ffi.new("pq_ops_options *")
        o.by = _BY[by]
        o.peak_tflops = peak_tflops
        o.peak_hbm_gbps = peak_hbm_gbps
        o.xprof = 1 if xprof_planes else 0
        r = ffi.new("pq_ops_result *")
        err = new_error()
        check(lib.pq_ops_compute(self._live(), o, r, err), err)
        try:
            return _ops_of(r, by)
        finally:
            lib.pq_ops_result_free(r)

    def roofline(self, peak_tflops: float = 0.0, peak_hbm_gbps: float = 0.0) -> Ops:
        """The roofline (``profq roofline``): the same result as ops(), read for its device
        ``peaks``, the program ``total`` (FLOP rate, HBM bandwidth, operational intensity,
        bound-by over the captured window; ``total_active_*`` over op time) and each op's
        rate columns (flop_rate_gflops, hbm_bw_gibps, oi, bound_by, ...)."""
        return self.ops("op", peak_tflops, peak_hbm_gbps)

    # ---- memory ----
    def memory_viewer(self, module: Optional[str] = None, memory_space: int = 0,
                      program_id: Optional[str] = None) -> MemoryViewer:
        """XProf's memory_viewer of one module (``profq memory-viewer``).

        Args:
            module: "<name>(<program id>)" or a unique bare module name.
            memory_space: the buffer color (0 = device HBM).
            program_id: an XLA program id, else (as XProf) a substring of "<name>(<id>)".
        With neither module nor program_id, returns the list of modules (``is_list``).
        Raises profq.Error: no such module (status "not_found"), an ambiguous name
        ("usage"), a malformed HloProto ("input", with its byte offset).
        """
        o = ffi.new("pq_memviewer_options *")
        keep = (encode(module), encode(program_id))
        o.module, o.program_id = keep
        o.memory_space = memory_space
        out = ffi.new("pq_memory_viewer_result **")
        err = new_error()
        check(lib.pq_memory_viewer_compute(self._live(), o, out, err), err)
        try:
            return _memory_viewer_of(out[0])
        finally:
            lib.pq_memory_viewer_free(out[0])

    def memory(self, module_prefix: Optional[str] = None, memory_space: int = 0,
               rules: Optional[str] = None, rules_path: Optional[str] = None) -> Memory:
        """Memory attribution per device (``profq memory``): each device's module's peak
        split into buckets by rules (RULES: text in the README's rules-file format, tried
        before the default rules; RULES_PATH: a file of them, read here)."""
        if rules is None and rules_path is not None:
            with open(rules_path, encoding="utf-8") as f:
                rules = f.read()
        o = ffi.new("pq_memory_options *")
        keep = (encode(module_prefix), encode(rules), encode(rules_path))
        o.module_prefix, o.rules_text, o.rules_path = keep
        o.memory_space = memory_space
        out = ffi.new("pq_memory_result **")
        err = new_error()
        check(lib.pq_memory_compute(self._live(), o, out, err), err)
        try:
            return _memory_of(out[0])
        finally:
            lib.pq_memory_free(out[0])

    def memory_profile(self) -> List[Dict[str, Any]]:
        """XProf's memory_profile per source (``profq memory-profile``): per allocator the
        peak stats and capacity, and tables of its snapshots, sampled timeline, special
        allocations and active allocations; the XLA modules of the TPU planes."""
        out = ffi.new("pq_memory_profile_result **")
        err = new_error()
        check(lib.pq_memory_profile_compute(self._live(), out, err), err)
        try:
            return [_memprofile_source(out[0].sources[i]) for i in range(out[0].nsources)]
        finally:
            lib.pq_memory_profile_free(out[0])

    def heap(self, module: Optional[str] = None) -> List[Dict[str, Any]]:
        """Heap usage over program order (``profq heap``) of every module with
        heap-simulator traces whose "<name>(<id>)" starts with MODULE: per trace the usage
        before each event (``usage``), the peak and where it happens."""
        out = ffi.new("pq_heap_result **")
        err = new_error()
        keep = encode(module)
        check(lib.pq_heap_compute(self._live(), keep, out, err), err)
        try:
            return [_heap_module(out[0].modules[i]) for i in range(out[0].nmodules)]
        finally:
            lib.pq_heap_free(out[0])

    def summarize(self, **options: Any) -> Summary:
        """profile_summary.v1 of the profile's one path: profq.summarize(path, **options)
        (which reads the file itself, as ``profq summarize`` does)."""
        if len(self.paths) != 1:
            raise Error("usage", "", -1, "summarize reads one path; this profile has "
                        f"{len(self.paths)} (call profq.summarize on each)")
        return summarize(self.paths[0], **options)

    def nsys(self, sections: Union[None, str, Sequence[str]] = None,
             warmup: Optional[str] = None) -> Nsys:
        """The nsys-jax loader's tables (``profq nsys``) of an nsys-jax archive, an Nsight
        SQLite export with XLA module ranges, or a JAX XPlane GPU profile.

        Args:
            sections: a name or list of names of ``profq nsys --section`` (modules,
                runtime, opcodes, collectives, variability, bias, compile, heap, flame);
                None: all the input can give.
            warmup: "archive-era" or "head": the warm-up rule (``--warmup``); None: the
                one of the loader of the archive's era.
        Returns:
            Nsys: frames' row counts, the steady module table (``modules``), top module
            ids, runtime, clock alignment corrections, collectives, compile passes.
        Raises profq.Error (status "input") when the profile has none of those inputs, or
        only sections it cannot give are asked for (XPlane: bias, compile, heap, flame).
        """
        return _nsys.compute(self._live(), sections, warmup)

    # ---- XProf's own JSON ----
    def xprof(self, tool: str, **options: Any) -> Any:
        """The JSON XProf's ``xspace_to_tools_data(paths, tool, options)`` returns, parsed.

        Tools and options: "memory_viewer" (module_name, memory_space), "memory_profile"
        (one source only), "hlo_stats", "op_profile" (group_by: program, category or
        provenance), "roofline_model". Rendered by profq's ``--format xprof`` into memory
        and parsed with json.loads (that document is the contract of this function).
        """
        p = self._live()
        if tool == "memory_viewer":
            o = ffi.new("pq_memviewer_options *")
            name = options.get("module_name") or options.get("module")
            keep = (encode(name), encode(options.get("program_id")))
            o.module, o.program_id = keep
            o.memory_space = int(options.get("memory_space", 0))
            data = render(lambda s, e: lib.pq_render_memory_viewer(p, o, lib.PQ_OUT_XPROF, s, e))
        elif tool == "memory_profile":
            data = render(lambda s, e: lib.pq_render_memory_profile(p, lib.PQ_OUT_XPROF, s, e))
        elif tool in ("hlo_stats", "op_profile", "roofline_model"):
            o = ffi.new("pq_ops_options *")
            if tool == "hlo_stats":
                o.xprof = lib.PQ_OPS_HLO_STATS
                fn = lib.pq_render_ops
            elif tool == "op_profile":
                o.xprof = lib.PQ_OPS_OP_PROFILE
                group = options.get("group_by", "program")
                if group not in ("program", "category", "provenance"):
                    raise Error("usage", "", -1, f"op_profile group_by {group!r}")
                o.by = _BY[group]
                fn = lib.pq_render_ops
            else:
                o.xprof = lib.PQ_OPS_ROOFLINE_MODEL
                fn = lib.pq_render_roofline
            data = render(lambda s, e: fn(p, o, lib.PQ_OUT_XPROF, s, e))
        else:
            raise Error("usage", "", -1, f"xprof tool {tool!r}: one of memory_viewer, "
                        "memory_profile, hlo_stats, op_profile, roofline_model")
        return json.loads(data) if data.strip() else None


def load(paths: Union[PathLike, Sequence[PathLike]], threads: int = 0,
         skip_sha256: bool = False) -> Profile:
    """Loads a profile: one path or a list of paths (files or run directories; a directory
    is searched for *.xplane.pb through plugins/profile/<ts>/). Formats are recognised by
    content: XSpace, HloProto, trace-event JSON, Tenstorrent logs, nsys-jax archives.

    Raises profq.Error with .path, .offset and .message when a file is missing or
    malformed.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]  # type: ignore[list-item]
    return Profile(list(paths), threads, skip_sha256)  # type: ignore[arg-type]


# ---- result structs -> Python ----

def _row_dict(row: Any) -> Dict[str, Any]:
    cols = columns(row, 1, "pq_op_row", _OP_FIELDS)
    return {k: (v[0].item() if hasattr(v[0], "item") else v[0]) for k, v in cols.items()}


def _ops_of(r: Any, by: str) -> Ops:
    pk = r.peaks
    peaks = {"tflops": pk.tflops or None, "hbm_gbps": pk.bws[0] or None,
             "bws": [b or None for b in pk.bws],
             "has_cmem": bool(pk.has_cmem), "has_merged_vmem": bool(pk.has_merged_vmem),
             "has_megacore": bool(pk.has_megacore), "user_flops": bool(pk.user_flops),
             "user_bw": bool(pk.user_bw), "derived_flops": bool(pk.derived_flops),
             "derived_sram": bool(pk.derived_sram), "cores": pk.cores,
             "clock_ghz": pk.clock_ghz}
    groups = table(columns(r.groups, r.ngroups, "pq_op_row", _OP_FIELDS)) \
        if r.groups != ffi.NULL else None
    return Ops(
        hardware=_HW.get(r.hw, "none"), device_type=ffi.string(r.device_type).decode(),
        gpu_model=ffi.string(r.gpu_model).decode(), devices=r.ndevices,
        device_planes=r.device_planes, total_time_ps=r.total_time_ps,
        total_op_time_ps=r.total_op_time_ps, window_ps=r.window_ps,
        has_modules=bool(r.has_modules), module_ps=r.module_ps, busy_ps=r.busy_ps,
        idle_ps=r.idle_ps, dominant_program=r.dominant_program if r.has_dominant else None,
        steady_window_ps=r.steady_window_ps, steady_busy_ps=r.steady_busy_ps,
        steady_gflops=r.steady_gflops, steady_hbm_gibps=r.steady_hbm_gibps, peaks=peaks,
        ops=table(columns(r.ops, r.nops, "pq_op_row", _OP_FIELDS)),
        programs=table(columns(r.programs, r.nprograms, "pq_ops_program", _PROGRAM_FIELDS)),
        groups=groups, by=by, total=_row_dict(ffi.addressof(r.roofline.total)),
        total_active_gflops=r.roofline.active_gflops,
        total_active_hbm_gibps=r.roofline.active_hbm_gibps)


def _modules_table(mods: Any, n: int) -> Table:
    cols = columns(mods, n, "pq_memory_module", [("module", "key"), "name", "program_id",
                                                 "source"])
    cols["memory_spaces"] = [list(ffi.unpack(mods[i].memory_spaces, mods[i].nmemory_spaces))
                             if mods[i].nmemory_spaces else [] for i in range(n)]
    return table(cols)


def _memory_viewer_of(r: Any) -> MemoryViewer:
    if r.is_list:
        return MemoryViewer(is_list=True, modules=_modules_table(r.modules, r.nmodules))
    m = r.module
    return MemoryViewer(
        is_list=False, modules=None, module=cstr(m.key),
        name=pstr(m.name), program_id=m.program_id, source=cstr(m.source),
        memory_space=r.memory_space, peak_heap_bytes=r.peak_heap_bytes,
        peak_unpadded_bytes=r.peak_unpadded_bytes, peak_position=r.peak_position,
        indefinite_bytes=r.indefinite_bytes, entry_params_bytes=r.entry_params_bytes,
        non_reusable_bytes=r.non_reusable_bytes, maybe_live_out_bytes=r.maybe_live_out_bytes,
        total_allocation_bytes=r.total_allocation_bytes,
        indefinite_allocation_bytes=r.indefinite_allocation_bytes,
        heap_bytes=array(r.heap_bytes, r.ntimeline, "int64_t"))


def _memory_of(r: Any) -> Memory:
    figures = [cstr(r.figure_names[f]) for f in range(r.nfigures)]
    checks = [cstr(lib.pq_memory_check_name(i)) for i in range(3)]
    cols: Dict[str, List[Any]] = {k: [] for k in ("host", "device", "module", "program_id",
                                                  "ran_nothing")}
    for name in figures + ["parameter_rows_bytes", "groups"]:
        cols[name] = []
    for c in checks:
        cols[c + "_ok"], cols[c + "_delta"] = [], []
    for i in range(r.nrows):  # one row per device: a few hundred at most
        row = r.rows[i]
        cols["host"].append(cstr(row.host))
        cols["device"].append(cstr(row.device))
        cols["module"].append(cstr(row.module))
        cols["program_id"].append(row.program_id)
        cols["ran_nothing"].append(bool(row.ran_nothing))
        for f, name in enumerate(figures):
            cols[name].append(lib.pq_memory_figure(r, ffi.addressof(r.rows[i]), f))
        cols["parameter_rows_bytes"].append(row.parameter_rows_bytes)
        cols["groups"].append({cstr(row.group_names[g]): row.group_bytes[g]
                               for g in range(row.ngroups)})
        for k, c in enumerate(checks):
            cols[c + "_ok"].append(bool(row.check_ok[k]))
            cols[c + "_delta"].append(row.check_delta[k])
    agg = {name: {"min": r.aggregate[f].min, "avg": r.aggregate[f].avg,
                  "max": r.aggregate[f].max} for f, name in enumerate(figures)}
    return Memory(rows=table(cols), bucket_names=[cstr(r.bucket_names[b])
                                                  for b in range(r.nbuckets)],
                  figure_names=figures, aggregate=agg, idle_devices=r.nidle)


def _memprofile_source(s: Any) -> Dict[str, Any]:
    allocators = {}
    for i in range(s.nallocators):
        a = s.allocators[i]
        allocators[cstr(a.id)] = {
            "peak_lifetime": a.peak_lifetime, "peak_time_ps": a.peak_time_ps,
            "capacity": a.capacity, "peak": _stats(a.peak),
            "snapshots": table(columns(a.snaps, a.nsnaps, "pq_memprofile_snapshot",
                                       _SNAP_FIELDS)),
            "sampled": table(columns(a.sampled, a.nsampled, "pq_memprofile_snapshot",
                                     _SNAP_FIELDS)),
            "special": table(columns(a.special, a.nspecial, "pq_memprofile_snapshot",
                                     _SNAP_FIELDS)),
            "active": table(columns(a.active, a.nactive, "pq_memprofile_active",
                                    ["snapshot_index", "special_index", "occurrences"])),
        }
    return {"path": cstr(s.path), "host": pstr(s.host), "has_cpu_plane": bool(s.has_cpu_plane),
            "allocators": allocators,
            "modules": table(columns(s.modules, s.nmodules, "pq_memprofile_module",
                                     ["name", "plane", "start_ps", "end_ps", "id"]))}


def _heap_module(m: Any) -> Dict[str, Any]:
    traces = []
    for i in range(m.ntraces):
        t = m.traces[i]
        traces.append({"index": t.index, "nevents": t.nevents,
                       "usage": array(t.usage, t.nevents + 1, "int64_t"),
                       "peak_bytes": t.peak_bytes, "peak_position": t.peak_position,
                       "color": t.color, "unknown_buffers": t.unknown_buffers})
    mod = m.module
    return {"module": cstr(mod.key), "name": pstr(mod.name), "program_id": mod.program_id,
            "source": cstr(mod.source), "peak_bytes": m.peak_bytes, "top_trace": m.top_trace,
            "traces": traces}


__all__ = ["Profile", "load", "Source", "Ops", "MemoryViewer", "Memory", "Nsys", "Table",
           "Error", "_tables"]
