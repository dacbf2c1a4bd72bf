"""Profile.nsys() against ``profq nsys --format json`` on every file of ../shared/data: the
nsys-jax archive, the JAX XPlane GPU profiles (every figure of the result struct equals
the CLI's JSON), and the inputs the CLI refuses (TPU XPlanes, SQLite exports without XLA
ranges, HloProtos, ...: profq.Error with the CLI's message and offset). Helpers (cli,
run, close, ...) are test_profq's."""

import math
from typing import Any, Dict, List, Optional, Tuple

import pytest

import profq
from profq import _nsys, _tables
from test_profq import FILES, cli, cli_json, close, loaded, rows, run

ARCHIVE = "nsys/nsys-jax_h100_maxtext_fsdp4.zip"
SQLITE = sorted(f for f in FILES if f.endswith(".sqlite"))


def _pid(s: str) -> int:
    """A JSON program id ("16", or "none" for the autotuning range) as the struct's int."""
    return -1 if s == "none" else int(s)


def _check_frames(doc: Dict[str, Any], n: Any) -> None:
    assert set(doc["frames"]) == set(n.frames)
    for f, js in doc["frames"].items():
        for k in ("module_rows", "thunk_rows", "communication_rows", "compile_rows"):
            want = js.get(k, 0)  # an XPlane states no compile_rows: 0 in the struct
            assert n.frames[f][k] == want, (f, k, want, n.frames[f][k])


def _check_modules(doc: Dict[str, Any], n: Any) -> None:
    got = rows(n.modules)
    assert len(got) == len(doc["modules"]) > 0
    for js, pr in zip(doc["modules"], got):
        assert _pid(js["program_id"]) == pr["program_id"] and js["name"] == pr["name"]
        for k in ("rows", "total_ms", "share", "thunks_mean", "thunks_std", "wait_share"):
            close(js[k], pr[k], "modules." + k)
        assert pr["total_ns"] >= 0 and math.isclose(pr["total_ns"] / 1e6, pr["total_ms"])
    assert n.top_module_ids == [_pid(s) for s in doc["top_module_ids"]]
    assert n.modules_total_ns == sum(int(r["total_ns"]) for r in got)


def _check_comm(doc: Dict[str, Any], n: Any) -> None:
    """The communication figures the JSON states (its sections); the struct has them
    whenever the communication analyses ran, whatever sections were asked."""
    if "runtime" in doc:
        assert n.runtime is not None and set(n.runtime) == set(doc["runtime"])
        for k, v in doc["runtime"].items():
            close(v, n.runtime[k], "runtime." + k)
    al = doc.get("alignment")
    if al is not None:
        assert n.aligned == al["aligned"]
        corr = list(n.corrections_ns)
        assert len(corr) == len(al["corrections_ns"]) == n.devices
        for a, b in zip(al["corrections_ns"], corr):
            close(a, b, "corrections_ns")
    if "warmup" in doc:
        assert n.warmup_head == (doc["warmup"]["rule"] == "head")
    if "collectives" not in doc:
        return
    colls = doc["collectives"]
    got = rows(n.collectives)
    assert len(got) == len(colls)
    for js, pr in zip(colls, got):
        assert js["collective"] == pr["collective"]
        for k in js:
            if k != "collective":
                close(js[k], pr[k], "collectives." + k)


def _check_compile(doc: Dict[str, Any], n: Any) -> None:
    if "compile" not in doc:
        assert n.compile is None
        return
    js, c = doc["compile"], n.compile
    assert c is not None
    close(js["total_s"], c["total_s"], "compile.total_s")
    passes = rows(c["passes"])
    assert len(passes) == js["names"] and c["top_passes"] == len(js["passes"]) > 0
    for a, b in zip(js["passes"], passes[:c["top_passes"]]):
        assert a["name"] == b["name"]
        for k in ("non_child_s", "child_s", "share"):
            close(a[k], b[k], "compile.passes." + k)


def check_nsys(doc: Dict[str, Any], n: Any) -> None:
    """Every figure of N (profq.Nsys) equals the CLI's JSON DOC."""
    assert n.input == doc.get("input", "nsys")
    assert (n.sources, n.devices) == (doc["sources"], doc["devices"])
    assert n.compiled_programs == doc.get("compiled_programs", 0)
    _check_frames(doc, n)
    _check_modules(doc, n)
    _check_comm(doc, n)
    _check_compile(doc, n)


def _nsys_args(rel: str, sections: Tuple[str, ...] = (), warmup: Optional[str] = None
               ) -> Tuple[str, ...]:
    opt: List[str] = []
    for s in sections:
        opt += ["--section", s]
    if warmup:
        opt += ["--warmup", warmup]
    return ("nsys", "--format", "json", *opt, rel)


@pytest.mark.parametrize("rel", FILES)
def test_nsys(rel: str) -> None:
    """On every file: the CLI's figures where it succeeds, its error where it fails."""
    args = _nsys_args(rel)
    n = run(rel, args, lambda p: p.nsys())
    if n is not None:
        check_nsys(cli_json(*args), n)


def test_nsys_applies() -> None:
    """The inputs nsys computes on are tested with figures, not only errors: the archive
    and at least one XPlane GPU profile."""
    done = [rel for rel in FILES if cli(*_nsys_args(rel))[0] == 0]
    assert ARCHIVE in done
    assert any(rel.startswith("xplane/") for rel in done), done


@pytest.mark.parametrize("sections,warmup", [
    (("modules",), None), (("runtime", "collectives"), "head"), (("compile",), None),
    ((), "archive-era"), ((), "head")])
def test_nsys_sections_archive(sections: Tuple[str, ...], warmup: Optional[str]) -> None:
    args = _nsys_args(ARCHIVE, sections, warmup)
    n = loaded(ARCHIVE).nsys(sections=list(sections) or None, warmup=warmup)
    assert n.sections == (list(sections) or list(_nsys.SECTIONS))
    check_nsys(cli_json(*args), n)


def test_nsys_xplane_refuses_archive_sections() -> None:
    """An XPlane has no compile section: the CLI's error, raised before computing."""
    rel = next(f for f in FILES if f.startswith("xplane/") and cli(*_nsys_args(f))[0] == 0)
    args = _nsys_args(rel, ("compile",))
    rc, _, err = cli(*args)
    assert rc == 3
    with pytest.raises(profq.Error) as e:
        loaded(rel).nsys("compile")
    assert e.value.status == "input" and e.value.message in err
    assert loaded(rel).nsys(["modules", "runtime"]).compile is None


@pytest.mark.parametrize("rel", SQLITE)
def test_nsys_sqlite_without_xla_ranges(rel: str) -> None:
    """A SQLite export without XLA module ranges: exit 3 in the CLI, profq.Error here with
    the same path, offset and message."""
    rc, _, err = cli(*_nsys_args(rel))
    assert rc == 3, err
    with pytest.raises(profq.Error) as e:
        loaded(rel).nsys()
    x = e.value
    assert x.status == "input" and "XLA module ranges" in x.message
    want = f"profq: {x.path}: " + (f"offset {x.offset}: " if x.offset >= 0 else "")
    assert err == want + x.message + "\n", (err, str(x))


def test_nsys_usage_errors() -> None:
    p = loaded(ARCHIVE)
    with pytest.raises(profq.Error) as e:
        p.nsys(sections=["nonsense"])
    assert e.value.status == "usage"
    with pytest.raises(profq.Error) as e:
        p.nsys(warmup="sometimes")
    assert e.value.status == "usage"


def test_nsys_without_pandas(monkeypatch: Any) -> None:
    """Without pandas and numpy: dicts of lists and a list of corrections, same values."""
    p = loaded(ARCHIVE)
    with_pd = p.nsys()
    monkeypatch.setattr(_tables, "pd", None)
    monkeypatch.setattr(_tables, "np", None)
    plain = p.nsys()
    assert isinstance(plain.modules, dict) and isinstance(plain.corrections_ns, list)
    assert plain.corrections_ns == list(with_pd.corrections_ns)

    def same(a: Any, b: Any) -> bool:
        b = b.item() if hasattr(b, "item") else b
        return (a == b) or (isinstance(a, float) and math.isnan(a) and math.isnan(b))

    for t in ("modules", "collectives"):
        for r1, r2 in zip(rows(getattr(plain, t)), rows(getattr(with_pd, t))):
            assert r1.keys() == r2.keys() and all(same(r1[k], r2[k]) for k in r1), (t, r1, r2)
    assert len(rows(plain.modules)) == len(rows(with_pd.modules))
    check_nsys(cli_json(*_nsys_args(ARCHIVE)), plain)
