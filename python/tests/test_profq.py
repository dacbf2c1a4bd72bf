"""profq's Python package against the profq CLI: every function on every file of
../shared/data it applies to returns the numbers the CLI's JSON states for the same input;
where the CLI fails on a file, the function raises profq.Error at the same byte offset.

Environment: PROFQ (the CLI, default build/profq), SHARED (default ../shared). Under
CI=true a missing data directory fails instead of skipping."""

import glob
import json
import math
import os
import re
import subprocess
from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple

import pytest

import profq
from profq import _tables

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROFQ = os.environ.get("PROFQ", os.path.join(TOP, "build", "profq"))
DATA = os.path.join(os.environ.get("SHARED", os.path.join(TOP, "..", "shared")), "data")


def _files() -> List[str]:
    if not os.path.isdir(DATA):
        if os.environ.get("CI") == "true":
            raise RuntimeError(f"{DATA} is absent and CI=true forbids skips")
        return []
    pats = ["xplane/*.xplane.pb", "xplane/corrupt/*", "hlo/*", "trace-json/*",
            "tenstorrent/*", "nsys/*"]
    out = [f for p in pats for f in sorted(glob.glob(os.path.join(DATA, p)))]
    out.insert(4, os.path.join(DATA, "xplane", "mi300x8_jax_conv_legacy"))  # a run directory
    return [os.path.relpath(f, DATA) for f in out]


FILES = _files()
if not FILES:
    pytest.skip(f"{DATA} is absent", allow_module_level=True)


# ---- the CLI and the package on one file ----

@lru_cache(maxsize=None)
def cli(*args: str) -> Tuple[int, str, str]:
    """profq ARGS run in DATA: (exit code, stdout, stderr)."""
    r = subprocess.run([PROFQ, *args], cwd=DATA, capture_output=True, text=True,
                       env={**os.environ, "SOURCE_DATE_EPOCH": "0", "TZ": "UTC"})
    return r.returncode, r.stdout, r.stderr


def cli_json(*args: str) -> Optional[Any]:
    """The CLI's JSON, or None when it failed (its error is then checked by expect_error)."""
    rc, out, _ = cli(*args)
    return json.loads(out) if rc == 0 and out.strip() else None


@lru_cache(maxsize=None)
def loaded(rel: str) -> Any:
    """profq.load of DATA/REL (relative, as the CLI is given it), or the Error it raised."""
    cwd = os.getcwd()
    os.chdir(DATA)
    try:
        return profq.load(rel)
    except profq.Error as e:
        return e
    finally:
        os.chdir(cwd)


def expect_error(exc: BaseException, args: Tuple[str, ...]) -> None:
    """EXC is the profq.Error of the failure the CLI reports for ARGS (same offset)."""
    rc, _, err = cli(*args)
    assert rc != 0, f"profq {' '.join(args)} succeeded but Python raised {exc!r}"
    assert isinstance(exc, profq.Error), repr(exc)
    m = re.search(r": offset (\d+): ", err)
    if m:
        assert exc.offset == int(m.group(1)), (err, exc.offset)
    assert exc.message and exc.message in err, (exc.message, err)


def run(rel: str, args: Tuple[str, ...], fn: Any) -> Optional[Any]:
    """FN(profile) when the CLI succeeds on ARGS; when it fails, FN must raise the same
    error (or the load must have). Returns FN's result, or None after an error."""
    p = loaded(rel)
    try:
        if isinstance(p, profq.Error):
            raise p
        res = fn(p)
    except profq.Error as e:
        expect_error(e, args)
        return None
    rc, _, err = cli(*args)
    assert rc == 0, f"profq {' '.join(args)} failed ({err.strip()}) but Python did not"
    return res


def close(a: Any, b: Any, what: str = "") -> None:
    """A number of the CLI's JSON (A) equals the package's (B)."""
    if a is None:
        assert b is None or (isinstance(b, float) and math.isnan(b)), (what, a, b)
        return
    if isinstance(a, str) and not isinstance(b, str) and a.lstrip("-").isdigit():
        # int64/uint64 as JSON strings
        a = int(a)
    if isinstance(a, bool) or isinstance(a, str):
        assert a == b, (what, a, b)
    elif isinstance(a, int) and not isinstance(b, float):
        assert a == int(b), (what, a, b)
    else:
        assert math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-300), (what, a, b)


def rows(t: Any) -> List[Dict[str, Any]]:
    return _tables.rows_of(t)


# ---- info / scan ----

@pytest.mark.parametrize("rel", FILES)
def test_info(rel: str) -> None:
    args = ("info", "--format", "json", rel)
    info = run(rel, args, lambda p: p.info())
    if info is None:
        return
    doc = cli_json(*args)
    assert len(doc["sources"]) == len(info["sources"])
    for js, ps in zip(doc["sources"], info["sources"]):
        for k, pk in (("path", "path"), ("format", "format"), ("host", "host"),
                      ("bytes", "size_bytes"), ("sha256", "sha256"), ("events", "events"),
                      ("stats", "stats")):
            close(js[k], ps[pk], k)
        if "planes" in js:
            assert len(js["planes"]) == ps["planes"]
    tot = doc["totals"]
    close(tot["sources"], len(info["sources"]))
    close(tot["bytes"], sum(s["size_bytes"] for s in info["sources"]))
    # totals count timeline events: a Tenstorrent log's ops are events of its source only
    close(tot["events"], sum(s["events"] for s in info["sources"] if s["format"] != "tt_log"))
    close(tot["planes"], sum(s["planes"] for s in info["sources"]))


@pytest.mark.parametrize("rel", FILES)
def test_scan(rel: str) -> None:
    args = ("scan", "--format", "json", rel)
    t = run(rel, args, lambda p: p.scan())
    if t is None:
        return
    doc = cli_json(*args)
    for k, v in doc.items():
        if k == "schema":
            continue
        if k == "stats_by_kind":
            assert v == t[k]
        else:
            close(v, t[k], k)


# ---- ops / roofline ----

def _check_rates(js: Dict[str, Any], pr: Dict[str, Any]) -> None:
    na = js.get("rates_not_meaningful")
    if na is not None:
        assert pr["not_meaningful"] == na
    for jk, pk in (("gflops_per_s", "flop_rate_gflops"), ("model_gflops_per_s", "model_flop_rate"),
                   ("memory_gibps", "mem_bw_gibps"), ("hbm_gibps", "hbm_bw_gibps"),
                   ("cmem_read_gibps", "cmem_rd_gibps"), ("cmem_write_gibps", "cmem_wr_gibps"),
                   ("vmem_read_gibps", "vmem_rd_gibps"), ("vmem_write_gibps", "vmem_wr_gibps"),
                   ("operational_intensity", "oi")):
        if jk in js and js[jk] is not None:
            close(js[jk], pr[pk], jk)
    if js.get("bound_by") is not None:
        assert js["bound_by"] == pr["bound_by"]


def _check_windows(doc: Dict[str, Any], o: Any) -> None:
    close(doc["hardware"], o.hardware)
    close(doc["devices"], o.devices)
    w = doc["windows"]
    close(w["captured_ps"], o.total_time_ps, "captured_ps")
    close(w["in_ops_ps"], o.total_op_time_ps, "in_ops_ps")
    close(w["busy_ps"], o.busy_ps, "busy_ps")
    close(w["idle_ps"], o.idle_ps, "idle_ps")
    if w.get("in_modules_ps") is not None:
        close(w["in_modules_ps"], o.module_ps, "in_modules_ps")
    ss = w.get("steady_state")
    if ss:
        close(ss["program_id"], o.dominant_program)
        close(ss["in_modules_ps"], o.steady_window_ps)
        close(ss["in_ops_ps"], o.steady_busy_ps)
    else:
        assert o.dominant_program is None
    close(doc["peaks"]["tflops"], o.peaks["tflops"])
    close(doc["peaks"]["hbm_gbps"], o.peaks["hbm_gbps"])


def _check_programs(js: List[Dict[str, Any]], t: Any) -> None:
    pr = rows(t)
    assert len(js) == len(pr)
    for j, p in zip(js, pr):
        for k in ("program_id", "name", "op_self_ps", "flops", "bytes_accessed", "hbm_bytes"):
            close(j[k], p[k], k)
        if j["executions"] is not None:
            close(j["executions"], p["executions"])
            close(j["module_ps"], p["module_ps"])
        for jk, pk in (("active_gflops_per_s", "active_gflops"),
                       ("whole_window_gflops_per_s", "whole_gflops"),
                       ("active_hbm_gibps", "active_hbm_gibps"),
                       ("whole_window_hbm_gibps", "whole_hbm_gibps")):
            close(j[jk], p[pk], jk)


def _check_op_rows(js: List[Dict[str, Any]], t: Any, total_time_ps: int) -> None:
    pr = [r for r in rows(t) if not r["is_idle"]]
    assert len(js) == len(pr)
    for j, p in zip(js, pr):
        for k in ("name", "program_id", "category", "provenance", "occurrences", "time_ps",
                  "self_time_ps", "flops", "model_flops", "bytes_accessed"):
            close(j[k], p[k], k)
        close(j["self_fraction"], p["self_time_ps"] / total_time_ps if total_time_ps else 0)
        _check_rates(j, p)


@pytest.mark.parametrize("by", ["op", "category", "program"])
@pytest.mark.parametrize("rel", FILES)
def test_ops(rel: str, by: str) -> None:
    args = ("ops", "--by", by, "--format", "json", rel)
    o = run(rel, args, lambda p: p.ops(by=by))
    if o is None:
        return
    doc = cli_json(*args)
    _check_windows(doc, o)
    _check_programs(doc["programs"], o.programs)
    assert o.by == by
    if by == "op":
        assert o.groups is None
        _check_op_rows(doc["rows"], o.ops, o.total_time_ps)
    else:
        g = rows(o.groups)
        assert len(doc["rows"]) == len(g)
        for j, p in zip(doc["rows"], g):
            for k in ("occurrences", "time_ps", "self_time_ps", "flops", "bytes_accessed"):
                close(j[k], p[k], k)
            _check_rates(j, p)


@pytest.mark.parametrize("rel", FILES)
def test_roofline(rel: str) -> None:
    args = ("roofline", "--format", "json", rel)
    o = run(rel, args, lambda p: p.roofline())
    if o is None:
        return
    doc = cli_json(*args)
    _check_windows(doc, o)
    _check_programs(doc["programs"], o.programs)
    _check_op_rows(doc["ops"], o.ops, o.total_time_ps)
    tj, tp = doc["total"], o.total
    close(tj["time_ps"], tp["time_ps"])
    close(tj["flops"], tp["flops"])
    close(tj["hbm_bytes"], tp["hbm_bytes"])
    close(tj["active_gflops_per_s"], o.total_active_gflops)
    close(tj["active_hbm_gibps"], o.total_active_hbm_gibps)
    _check_rates(tj, tp)


# ---- memory ----

MIB = 1 << 20


@pytest.mark.parametrize("rel", FILES)
def test_memory_viewer(rel: str) -> None:
    args = ("memory-viewer", "--format", "json", rel)
    mv = run(rel, args, lambda p: p.memory_viewer())
    if mv is None:
        return
    assert mv.is_list
    doc = cli_json(*args)
    mods = rows(mv.modules)
    assert len(doc["modules"]) == len(mods)
    for j, m in zip(doc["modules"], mods):
        for k in ("module", "name", "program_id", "source"):
            close(j[k], m[k], k)
        assert j["memory_spaces"] == list(m["memory_spaces"])
        for space in j["memory_spaces"]:
            _check_module(rel, j["module"], space)


def _check_module(rel: str, module: str, space: int) -> None:
    args = ("memory-viewer", "--format", "json", "--module", module, "--memory-space",
            str(space), rel)
    r = run(rel, args, lambda p: p.memory_viewer(module=module, memory_space=space))
    if r is None:
        return
    doc = cli_json(*args)
    x = doc["xprof"]
    assert r.module == module and r.memory_space == space and not r.is_list
    close(doc["program_id"], r.program_id)
    indef = r.indefinite_bytes
    close(x.get("peakHeapMib", 0), (r.peak_heap_bytes + indef) / MIB, "peakHeapMib")
    close(x.get("peakUnpaddedHeapMib", 0), (r.peak_unpadded_bytes + indef) / MIB)
    close(x.get("peakHeapSizePosition", 0), r.peak_position, "peakHeapSizePosition")
    close(x.get("nonReusableMib", 0), r.non_reusable_bytes / MIB, "nonReusableMib")
    close(x.get("maybeLiveOutMib", 0), r.maybe_live_out_bytes / MIB, "maybeLiveOutMib")
    heap = [(h + indef) / MIB for h in list(r.heap_bytes)]
    js = x.get("heapSizes", [])
    assert len(js) == len(heap)
    for a, b in zip(js, heap):
        close(a, b, "heapSizes")
    # xprof(): XProf's own document, the CLI's --format xprof bytes parsed
    xargs = ("memory-viewer", "--format", "xprof", "--module", module, "--memory-space",
             str(space), rel)
    assert loaded(rel).xprof("memory_viewer", module_name=module, memory_space=space) == \
        cli_json(*xargs)


@pytest.mark.parametrize("rel", FILES)
def test_memory(rel: str) -> None:
    args = ("memory", "--format", "json", rel)
    m = run(rel, args, lambda p: p.memory())
    if m is None:
        return
    doc = cli_json(*args)
    pr = [r for r in rows(m.rows) if not r["ran_nothing"]]
    assert len(doc["rows"]) == len(pr)
    assert len(doc["idle_devices"]) == m.idle_devices
    for j, p in zip(doc["rows"], pr):
        for k in ("host", "device", "module", "program_id", "peak_bytes", "entry_params_bytes",
                  "gradient_hits"):
            close(j[k], p[k], k)
        assert j["groups"] == p["groups"]
        for b, v in j["buckets"].items():
            close(v, p[b], b)
        for c in j["checks"]:
            assert c["ok"] == p[c["name"] + "_ok"]
            close(c["delta_bytes"], p[c["name"] + "_delta"])
    for name, st in doc["aggregate"].items():
        for k in ("min", "avg", "max"):
            close(st[k], m.aggregate[name][k], name + "." + k)


_SNAP = {"stackReservedBytes": "stack_reserved", "heapAllocatedBytes": "heap_allocated",
         "freeMemoryBytes": "free_memory", "peakBytesInUse": "peak_bytes_in_use",
         "fragmentation": "fragmentation"}


def _check_snapshots(js: List[Dict[str, Any]], t: Any) -> None:
    pr = rows(t)
    assert len(js) == len(pr)
    for j, p in zip(js, pr):
        close(j.get("timeOffsetPs", "0"), p["time_ps"], "timeOffsetPs")
        for jk, pk in _SNAP.items():
            close(j["aggregationStats"].get(jk, 0), p[pk], jk)
        am = j["activityMetadata"]
        close(am.get("requestedBytes", "0"), p["requested"], "requestedBytes")
        close(am.get("allocationBytes", "0"), p["allocation"], "allocationBytes")
        close(am.get("address", "0"), p["address"], "address")
        close(am.get("tfOpName", ""), p["tf_op"], "tfOpName")


@pytest.mark.parametrize("rel", FILES)
def test_memory_profile(rel: str) -> None:
    args = ("memory-profile", "--format", "json", rel)
    srcs = run(rel, args, lambda p: p.memory_profile())
    if srcs is None:
        return
    doc = cli_json(*args)
    assert len(doc["sources"]) == len(srcs)
    for js, ps in zip(doc["sources"], srcs):
        assert js["path"] == ps["path"] and js["host"] == ps["host"]
        per = (js.get("xprof") or {}).get("memoryProfilePerAllocator", {})
        assert sorted(per) == sorted(ps["allocators"])
        for aid, ja in per.items():
            pa = ps["allocators"][aid]
            summ = ja["profileSummary"]
            close(summ.get("peakBytesUsageLifetime", "0"), pa["peak_lifetime"])
            close(summ.get("peakStatsTimePs", "0"), pa["peak_time_ps"])
            close(summ.get("memoryCapacity", "0"), pa["capacity"])
            for jk, pk in _SNAP.items():
                close(summ["peakStats"].get(jk, 0), pa["peak"][pk], jk)
            _check_snapshots(ja.get("memoryProfileSnapshots", []), pa["snapshots"])
            _check_snapshots(ja.get("sampledTimelineSnapshots", []), pa["sampled"])
            act = rows(pa["active"])
            assert len(ja.get("activeAllocations", [])) == len(act)
            for j, p in zip(ja.get("activeAllocations", []), act):
                close(j.get("snapshotIndex", "0"), p["snapshot_index"])
                close(j.get("specialIndex", "0"), p["special_index"])
                close(j.get("numOccurrences", "0"), p["occurrences"])
    if len(srcs) == 1:
        xargs = ("memory-profile", "--format", "xprof", rel)
        assert loaded(rel).xprof("memory_profile") == cli_json(*xargs)


@pytest.mark.parametrize("rel", FILES)
def test_heap(rel: str) -> None:
    args = ("heap", "--format", "json", rel)
    mods = run(rel, args, lambda p: p.heap())
    if mods is None:
        return
    doc = cli_json(*args)
    assert len(doc["modules"]) == len(mods)
    for j, p in zip(doc["modules"], mods):
        for k in ("module", "program_id", "source", "peak_bytes"):
            close(j[k], p[k], k)
        assert len(j["traces"]) == len(p["traces"])
        for jt, pt in zip(j["traces"], p["traces"]):
            for k in ("index", "peak_bytes", "peak_position", "unknown_buffers"):
                close(jt[k], pt[k], k)
            close(jt["events"], pt["nevents"])
            assert jt["usage_bytes"] == list(pt["usage"])


# ---- XProf's own JSON ----

@pytest.mark.parametrize("tool", ["hlo_stats", "roofline_model", "op_profile:program",
                                  "op_profile:category", "op_profile:provenance"])
@pytest.mark.parametrize("rel", FILES)
def test_xprof_ops_tools(rel: str, tool: str) -> None:
    name, _, group = tool.partition(":")
    cmd = "roofline" if name == "roofline_model" else "ops"
    args: Tuple[str, ...] = (cmd, "--format", "xprof")
    opts = {}
    if name == "op_profile":
        args += ("--view", "op_profile", "--by", group)
        opts["group_by"] = group
    args += (rel,)
    got = run(rel, args, lambda p: p.xprof(name, **opts))
    if got is not None or cli(*args)[0] == 0:
        assert got == cli_json(*args)


# ---- summaries ----

def _check_table(js: List[Dict[str, Any]], t: Any, what: str) -> None:
    pr = rows(t)
    assert len(js) == len(pr), what
    for j, p in zip(js, pr):
        for k, v in j.items():
            if k in p:
                close(v, p[k], f"{what}.{k}")


@pytest.mark.parametrize("rel", FILES)
def test_summarize(rel: str) -> None:
    args = ("summarize", rel)
    rc, out, _ = cli(*args)
    doc = json.loads(out) if rc == 0 else None
    if doc is not None and doc.get("schema") == "profq.summary_set.v1":
        with pytest.raises(profq.Error) as e:
            profq.summarize(os.path.join(DATA, rel))
        assert e.value.status == "unsupported"
        return
    cwd = os.getcwd()
    os.chdir(DATA)
    try:
        s = profq.summarize(rel, generated_at_utc=doc["generated_at_utc"] if doc else "")
    except profq.Error as e:
        expect_error(e, args)
        return
    finally:
        os.chdir(cwd)
    assert doc is not None, "profq summarize failed but Python did not"
    for k in ("schema_version", "generated_at_utc", "source_format", "source_path"):
        assert doc[k] == getattr(s, k), k
    assert doc["run_metadata"]["run_id"] == s.run_metadata["run_id"]
    ov = doc["trace_overview"]
    for k, v in s.trace_overview.items():
        if k in ov:
            if isinstance(v, list):
                assert ov[k] == v, k
            else:
                close(ov[k], v, k)
    assert doc["trace_provenance"] == s.trace_provenance
    st = doc["step_time"]
    close(st["warmup_steps_ignored"], s.step_time["warmup_steps_ignored"])
    for part in ("all_steps", "steady_state_steps"):
        for k, v in st[part].items():
            close(v, s.step_time[part][k], f"{part}.{k}")
    tb = doc["time_breakdown"]
    close(tb["total_duration"], s.time_breakdown["total_duration"])
    for c in ("compute", "communication", "host", "stall", "other"):
        if c in tb:
            close(tb[c]["total_duration"], s.time_breakdown[c]["total_duration"], c)
            close(tb[c]["share_of_total"], s.time_breakdown[c]["share_of_total"], c)
    for sec in ("hot_ops", "semantic_families", "communication_ops", "gap_before_ops",
                "gap_region_contexts", "hierarchical_regions", "device_op_region_aggregates"):
        _check_table(doc[sec], getattr(s, sec), sec)
    assert [c["candidate_id"] for c in doc["optimization_candidates"]] == \
        [c["candidate_id"] for c in s.optimization_candidates]


def test_summary_set_unsupported() -> None:
    """A directory of several traces: the CLI writes a summary set, which has no result
    struct; summarize() says so (status "unsupported") instead of picking one."""
    doc = cli_json("summarize", "trace-json")
    assert doc is not None and doc["schema"] == "profq.summary_set.v1"
    with pytest.raises(profq.Error) as e:
        profq.summarize(os.path.join(DATA, "trace-json"))
    assert e.value.status == "unsupported"
    assert f"{len(doc['summaries'])} trace files" in e.value.message


# ---- errors, lifetime, binding ----

def test_missing_file() -> None:
    with pytest.raises(profq.Error) as e:
        profq.load(os.path.join(DATA, "no-such-file.xplane.pb"))
    assert e.value.status == "io" and e.value.path.endswith("no-such-file.xplane.pb")
    assert e.value.offset == -1 and "No such file" in e.value.message


def test_corrupt_file_offset() -> None:
    rel = "xplane/corrupt/tpu_inference_2.utf8-mangled.xplane.pb"
    with pytest.raises(profq.Error) as e:
        profq.load(os.path.join(DATA, rel))
    assert e.value.status == "input" and e.value.path.endswith(rel)
    rc, _, err = cli("info", rel)
    m = re.search(r": offset (\d+): (.*)", err)
    assert rc != 0 and m, err
    assert e.value.offset == int(m.group(1)) and e.value.message == m.group(2).strip()


def test_corrupt_bytes(tmp_path: Any) -> None:
    """A profile cut short: the error names the byte where the input ends."""
    src = os.path.join(DATA, "xplane", "tpu_inference_2.xplane.pb")
    cut = tmp_path / "cut.xplane.pb"
    cut.write_bytes(open(src, "rb").read()[:1000])
    with pytest.raises(profq.Error) as e:
        profq.load(str(cut))
    assert e.value.offset >= 0 and e.value.path == str(cut)
    rc, _, err = cli("info", str(cut))
    assert rc != 0 and f"offset {e.value.offset}:" in err


def test_lifetime_and_usage_errors() -> None:
    p = profq.load(os.path.join(DATA, "xplane", "tpu_inference_2.xplane.pb"))
    with p:
        mv = p.memory_viewer(module="jit_f")
        with pytest.raises(profq.Error) as e:
            p.memory_viewer(module="no_such_module")
        assert e.value.status == "not_found"
        with pytest.raises(profq.Error):
            p.ops(by="nonsense")
        with pytest.raises(profq.Error):
            p.xprof("nonsense")
        with pytest.raises(profq.Error) as e:
            p.nsys()  # a TPU XPlane: no GPU planes with XLA kernels
        assert e.value.status == "input"
    with pytest.raises(profq.Error):
        p.ops()  # closed
    p.close()  # idempotent
    assert mv.peak_heap_bytes > 0 and len(mv.heap_bytes) > 0  # results outlive the profile


def test_struct_layout_matches_c(tmp_path: Any) -> None:
    """cffi's layout of the public structs is the C compiler's (sizes and offsets)."""
    from profq import _native
    names = ["pq_error", "pq_source_info", "pq_scan_totals", "pq_op_row", "pq_ops_result",
             "pq_ops_program", "pq_memory_viewer_result", "pq_memory_row", "pq_memory_result",
             "pq_memprofile_snapshot", "pq_memprofile_allocator", "pq_heap_trace",
             "pq_summary_result", "pq_sm_hot_op", "pq_sm_family", "pq_sm_op_region",
             "pq_nsys_options", "pq_nsys_frame", "pq_nsys_module", "pq_nsys_collective",
             "pq_nsys_compile_pass", "pq_nsys_result"]
    src = tmp_path / "sizes.c"
    src.write_text('#include <stdio.h>\n#include <stddef.h>\n#include "profq.h"\nint main(void)'
                   "{\n" + "".join(f'printf("%zu\\n", sizeof({n}));\n' for n in names) +
                   'printf("%zu\\n", offsetof(pq_op_row, rates));\n'
                   'printf("%zu\\n", offsetof(pq_ops_result, roofline));\nreturn 0;}\n')
    exe = tmp_path / "sizes"
    subprocess.run([os.environ.get("CC", "cc"), "-I", os.path.join(TOP, "include"), "-o",
                    str(exe), str(src)], check=True)
    got = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True,
                                          check=True).stdout.split()]
    want = [_native.ffi.sizeof(n) for n in names] + [
        _native.ffi.offsetof("pq_op_row", "rates"),
        _native.ffi.offsetof("pq_ops_result", "roofline")]
    assert got == want


def test_tables_without_pandas(monkeypatch: Any) -> None:
    """Without pandas (and numpy) tables are dicts of lists with the same values."""
    p = loaded("xplane/tpu_inference_2.xplane.pb")
    with_pd = p.ops()
    monkeypatch.setattr(_tables, "pd", None)
    monkeypatch.setattr(_tables, "np", None)
    plain = p.ops()
    assert isinstance(plain.ops, dict)
    def norm(v: Any) -> Any:  # pandas stores a missing string as NaN
        v = v.item() if hasattr(v, "item") else v
        return None if isinstance(v, float) and math.isnan(v) else v

    assert rows(plain.ops) == [{k: norm(v) for k, v in r.items()} for r in rows(with_pd.ops)]


def test_version_matches_header() -> None:
    hdr = open(os.path.join(TOP, "include", "profq.h"), encoding="utf-8").read()
    assert f'#define PQ_VERSION_STRING "{profq.__version__}"' in hdr
