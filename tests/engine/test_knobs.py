"""Knobs: read only in vtengine/knobs.py, parsed strictly, and each documented in
docs/ENVIRONMENT.md with the literal default the code writes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from vtengine.knobs import KnobError, Knobs

ENGINE = Path(__file__).resolve().parents[2] / "engine" / "vtengine"
ENV_DOC = Path(__file__).resolve().parents[2] / "docs" / "ENVIRONMENT.md"
READ = re.compile(r'os\.environ\.get\(\s*"(VT_[A-Z0-9_]+)",\s*"([^"]*)"\s*\)')


def code_reads() -> dict[str, str]:
    return dict(READ.findall((ENGINE / "knobs.py").read_text()))


def test_only_the_knobs_module_touches_the_environment() -> None:
    offenders = [
        p.name for p in ENGINE.rglob("*.py") if p.name != "knobs.py" and re.search(r"os\.environ|getenv", p.read_text())
    ]
    assert offenders == []


def test_every_knob_is_documented_with_its_literal_default() -> None:
    rows = {}
    for line in ENV_DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0].startswith("VT_"):
            rows[cells[0]] = cells[1]
    reads = code_reads()
    assert len(reads) == 11
    for name, default in reads.items():
        assert rows.get(name) == default, f"{name}: code default {default!r}, doc {rows.get(name)!r}"


def test_defaults_from_an_empty_environment_match_the_dataclass(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in code_reads():
        monkeypatch.delenv(name, raising=False)
    assert Knobs.from_env() == Knobs()


def test_values_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VT_CPU_THREADS", "3")
    monkeypatch.setenv("VT_CPU_PAGED_ATTN_SCALAR_FMA", "1")
    monkeypatch.setenv("VT_DEQUANT_CACHE_POLICY", "PIN")
    knobs = Knobs.from_env()
    assert (knobs.cpu_threads, knobs.paged_attn_scalar_fma, knobs.dequant_cache_policy) == (3, True, "pin")
    assert knobs.as_env()["VT_CPU_PAGED_ATTN_SCALAR_FMA"] == "1"


@pytest.mark.parametrize(
    "name,value,message",
    [
        ("VT_CPU_THREADS", "0", "minimum"),
        ("VT_KV_BLOCK_SIZE", "big", "not an integer"),
        ("VT_CPU_GEMV_BLAS", "maybe", "not a flag"),
        ("VT_ACT_DTYPE", "f16", "bf16, f32"),
    ],
)
def test_bad_values_name_the_knob(monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(KnobError, match=f"{name}.*{message}"):
        Knobs.from_env()
