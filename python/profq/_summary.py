"""profq.summarize: profile_summary.v1 (the seed's "Agent-Driven Profiling" summary) from
the C result structs (pq_summary_compute / pq_summary_result), copied into Python and
freed before returning."""

import math
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

from ._native import check, cstr, encode, ffi, lib, new_error
from ._tables import Table, columns, table

_CATEGORIES = ("compute", "communication", "host", "stall", "other")


@dataclass
class Summary:
    """One profile_summary.v1 summary. Times are in the trace's units (µs).

    Sections as in the document: ``trace_overview``, ``trace_provenance``, ``step_time``
    and ``time_breakdown`` are dicts; ``hot_ops``, ``semantic_families``,
    ``communication_ops``, ``gap_before_ops``, ``gap_region_contexts``,
    ``hierarchical_regions``, ``device_op_region_aggregates`` are tables;
    ``optimization_candidates`` a list of dicts. The document's null is None (strings) or
    NaN (numbers in tables).
    """
    schema_version: str
    generated_at_utc: str
    source_format: str
    source_path: str
    run_metadata: Dict[str, Optional[str]]
    trace_overview: Dict[str, Any]
    trace_provenance: Dict[str, Any]
    step_time: Dict[str, Any]
    time_breakdown: Dict[str, Any]
    hot_ops: Table
    semantic_families: Table
    communication_ops: Table
    gap_before_ops: Table
    gap_region_contexts: Table
    hierarchical_regions: Table
    device_op_region_aggregates: Table
    optimization_candidates: List[Dict[str, Any]]


def _nan_none(v: float) -> Optional[float]:
    return None if isinstance(v, float) and math.isnan(v) else v


def _strings(p: Any, n: int) -> List[Optional[str]]:
    return [cstr(p[i]) for i in range(n)]


def _dstats(d: Any) -> Dict[str, Any]:
    return {"count": d.count, **{k: _nan_none(getattr(d, k))
                                 for k in ("mean", "median", "p90", "min", "max")}}


def _step_time(st: Any) -> Dict[str, Any]:
    classes = []
    for i in range(st.nclasses):
        c = st.classes[i]
        classes.append({"name": cstr(c.name), "count": c.count,
                        "fraction_of_steady": c.fraction_of_steady,
                        "duration_stats": _dstats(c.duration_stats),
                        "representative_step": c.representative_step,
                        "representative_duration": _nan_none(c.representative_duration),
                        "periodicity": c.periodicity or None})
    return {"warmup_steps_ignored": st.warmup_steps_ignored,
            "all_steps": _dstats(st.all_steps),
            "steady_state_steps": _dstats(st.steady_state_steps), "classes": classes}


def _summary_of(r: Any) -> Summary:
    ov, pv, tb = r.trace_overview, r.trace_provenance, r.time_breakdown
    md = r.run_metadata
    cands = []
    for i in range(r.noptimization_candidates):
        c = r.optimization_candidates[i]
        sugg: List[Optional[str]] = []
        k = 0
        while c.suggestions != ffi.NULL and c.suggestions[k] != ffi.NULL:
            sugg.append(cstr(c.suggestions[k]))
            k += 1
        cands.append({"candidate_id": cstr(c.candidate_id), "title": cstr(c.title),
                      "rationale": cstr(c.rationale),
                      "evidence": _strings(c.evidence, c.nevidence), "suggestions": sugg})

    def t(ptr: Any, n: int, ctype: str, fields: List[str]) -> Table:
        return table(columns(ptr, n, ctype, fields))

    return Summary(
        schema_version=cstr(r.schema_version) or "",
        generated_at_utc=cstr(r.generated_at_utc) or "",
        source_format=cstr(r.source_format) or "",
        source_path=cstr(r.source_path) or "",
        run_metadata={k: cstr(getattr(md, k)) for k in ("run_path", "run_id", "artifact_ref",
                                                         "artifact_name")},
        trace_overview={
            "display_time_unit": cstr(ov.display_time_unit),
            "num_events_total": ov.num_events_total,
            "num_complete_events": ov.num_complete_events,
            "num_processes": ov.num_processes, "num_threads": ov.num_threads,
            "profile_start_ts": _nan_none(ov.profile_start_ts),
            "profile_end_ts": _nan_none(ov.profile_end_ts),
            "duration_basis": cstr(ov.duration_basis),
            "suspected_truncation": bool(ov.suspected_truncation),
            "quality_warnings": _strings(ov.quality_warnings, ov.nquality_warnings)},
        trace_provenance={"trace_sha256": cstr(pv.trace_sha256),
                          "run_ids": _strings(pv.run_ids, pv.nrun_ids),
                          "source_file_hints": _strings(pv.source_file_hints,
                                                        pv.nsource_file_hints)},
        step_time=_step_time(r.step_time),
        time_breakdown={"duration_basis": cstr(tb.duration_basis),
                        "total_duration": tb.total_duration,
                        **{c: {"total_duration": tb.category_total[k],
                               "share_of_total": tb.category_share[k]}
                           for k, c in enumerate(_CATEGORIES)}},
        hot_ops=t(r.hot_ops, r.nhot_ops, "pq_sm_hot_op", [
            "name", "canonical_name", "category", "count", "total_duration",
            "exclusive_duration", "avg_duration", "shape_signature", "source_file",
            "tf_op_path", "flop_proxy_per_invocation"]),
        semantic_families=t(r.semantic_families, r.nsemantic_families, "pq_sm_family", [
            "family", "count", "total_duration", "exclusive_duration", "share_of_total",
            "avg_duration", "avg_exclusive_duration", "example_op", "dominant_shape_signature",
            "flop_proxy_total", "time_per_flop_proxy"]),
        communication_ops=t(r.communication_ops, r.ncommunication_ops, "pq_sm_collective", [
            "collective", "count", "total_duration", "avg_duration"]),
        gap_before_ops=t(r.gap_before_ops, r.ngap_before_ops, "pq_sm_gap", [
            "name", "count", "total_gap_duration", "max_gap_duration", "avg_gap_duration",
            "marker_op"]),
        gap_region_contexts=t(r.gap_region_contexts, r.ngap_region_contexts,
                              "pq_sm_gap_context", ["op_name", "region_path", "count",
                                                    "total_gap_duration", "avg_gap_duration"]),
        hierarchical_regions=t(r.hierarchical_regions, r.nhierarchical_regions, "pq_sm_region",
                               ["path", "depth", "count", "inclusive_duration",
                                "exclusive_duration"]),
        device_op_region_aggregates=t(
            r.device_op_region_aggregates, r.ndevice_op_region_aggregates, "pq_sm_op_region",
            ["region_path", "op_name", "canonical_name", "category", "count", "total_duration",
             "exclusive_duration", "avg_duration", "shape_signature"]),
        optimization_candidates=cands)


def summarize(path: Union[str, "os.PathLike[str]"], warmup_steps: int = 5,
              hot_op_limit: int = 25, global_breakdown: bool = False,
              generated_at_utc: str = "", run_path: Optional[str] = None,
              run_id: Optional[str] = None, artifact_ref: Optional[str] = None,
              artifact_name: Optional[str] = None) -> Summary:
    """profile_summary.v1 of PATH (``profq summarize``): a Chrome trace-event JSON file
    (.json, .json.gz), an XSpace, or a jax_profile directory (one XPlane, else its trace
    JSON). A directory of several trace files (a summary set) raises profq.Error with
    status "unsupported": summarize each file.

    Args:
        warmup_steps: steps numbered below this are warm-up (the seed's 5).
        hot_op_limit: rows of hot_ops (the seed's 25).
        global_breakdown: time_breakdown over the global timeline instead of per track.
        generated_at_utc: the document's timestamp (the library never reads the clock).
        run_path, run_id, artifact_ref, artifact_name: run_metadata the caller knows.
    """
    o = ffi.new("pq_summary_options *")
    o.warmup_steps, o.hot_op_limit = warmup_steps, hot_op_limit
    o.global_breakdown = 1 if global_breakdown else 0
    keep = [encode(generated_at_utc), encode(run_path), encode(run_id), encode(artifact_ref),
            encode(artifact_name)]
    (o.generated_at_utc, o.run_path, o.run_id, o.artifact_ref, o.artifact_name) = keep
    out = ffi.new("pq_summary_result **")
    err = new_error()
    cpath = encode(os.fspath(path))
    check(lib.pq_summary_compute(cpath, o, out, err), err)
    try:
        return _summary_of(out[0])
    finally:
        lib.pq_summary_result_free(out[0])
