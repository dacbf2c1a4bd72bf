"""profq.partial("nsys", ...) and profq.merge(...) against `profq nsys` (issue 15 Deliver 2):
the render of the merged partials is the bytes one process prints, in every format and for a
section, and over the MI300 XPlanes; an archive given twice is one process; a truncated
partial and a trace file raise profq.Error. Helpers (cli, DATA, FILES) are test_profq's."""

import os

import pytest

import profq
from profq import _partial
from test_profq import DATA, FILES, cli

ARCHIVE = "nsys/nsys-jax_h100_maxtext_fsdp4.zip"
XPLANE = "xplane/mi300_jax08_attention.xplane.pb"

pytestmark = pytest.mark.skipif(ARCHIVE not in FILES, reason=f"no {ARCHIVE}")


@pytest.fixture(scope="module")
def part() -> bytes:
    return profq.partial("nsys", os.path.join(DATA, ARCHIVE))


@pytest.mark.parametrize("fmt,sections", [("text", None), ("json", None), ("svg", None),
                                          ("json", ["modules", "compile"]),
                                          ("svg", "flame")])
def test_merge_renders_as_one_process(part: bytes, fmt: str, sections: object) -> None:
    assert _partial.kind(part) == "nsys"
    args = ["nsys", "--format", fmt]
    for s in [sections] if isinstance(sections, str) else sections or []:
        args += ["--section", s]
    rc, out, err = cli(*args, ARCHIVE)
    assert rc == 0, err
    merged = profq.merge([part, part])  # the same archive twice: one process reads it once
    got = _partial.render(merged, fmt, sections=sections)  # type: ignore[arg-type]
    assert got.decode() == out


def test_warmup_rule_is_the_render_s(part: bytes) -> None:
    rc, out, err = cli("nsys", "--warmup", "head", "--section", "runtime", ARCHIVE)
    assert rc == 0, err
    assert _partial.render(part, sections="runtime", warmup="head").decode() == out


def test_in_memory_archive_merges_with_its_file(part: bytes) -> None:
    with open(os.path.join(DATA, ARCHIVE), "rb") as f:
        data = f.read()
    mem = profq.partial("nsys", data=data, name=os.path.join(DATA, "nsys", "copy.zip"))
    rc, out, _ = cli("nsys", ARCHIVE)
    assert rc == 0 and _partial.render(profq.merge([mem, part])).decode() == out


def test_xplanes_merge_as_one_process() -> None:
    xs = sorted(f for f in FILES if f.startswith("xplane/mi300") and f.endswith(".xplane.pb"))
    assert XPLANE in xs
    rc, out, err = cli("nsys", "--format", "json", *xs)
    assert rc == 0, err
    parts = [profq.partial("nsys", os.path.join(DATA, f)) for f in reversed(xs)]
    assert _partial.render(profq.merge(parts), "json").decode() == out


def test_bad_partials_and_inputs_raise(part: bytes) -> None:
    with pytest.raises(profq.Error) as e:
        profq.merge([part[:200]])
    assert "truncated partial" in str(e.value)
    trace = sorted(f for f in FILES if f.startswith("trace-json/"))[0]
    with pytest.raises(profq.Error) as e:
        profq.partial("nsys", os.path.join(DATA, trace))
    assert "not mergeable" in str(e.value)
