"""The boundaries group (vtengine/boundaries.py): which callables it records, that a record is the
caller's arguments as they were at the call, the edges of each kind of argument, and what a replay
reports. That its gate sees real bugs is in tests/engine/test_snapshot.py (set-u and set-v patches)."""

from __future__ import annotations

import dataclasses
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from vtengine import boundaries, snapshot

SOURCE = '''
from contextlib import contextmanager
from dataclasses import dataclass

def total(values, scale=1):
    return sum(values) * scale

def _private(x):
    return x

@contextmanager
def scoped(x):
    yield x

def gen(n):
    yield from range(n)

@dataclass
class Box:
    size: int = 1

    def grow(self, by):
        self.size += by
        return self.size

    @classmethod
    def make(cls, size):
        return cls(size)
'''


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """A module named ``vtengine.planted`` (so its names count as the engine's own) from ``SOURCE``."""
    path = tmp_path / "planted.py"
    path.write_text(SOURCE)
    module = types.ModuleType("vtengine.planted")
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(SOURCE, str(path), "exec"), module.__dict__)  # noqa: S102 - the test's own text
    return module


def test_targets_are_public_functions_methods_constructors_and_classmethods_not_wrappers_or_generators(
        planted: types.ModuleType) -> None:
    module = planted
    names = {target.name: target.kind for target in boundaries.targets([module]).values()}
    assert names == {"planted.total": "function", "planted.Box.__init__": "init", "planted.Box.grow": "method",
                     "planted.Box.make": "classmethod"}


def test_the_engine_s_own_description_of_itself_is_never_a_target() -> None:
    names = {target.name for target in boundaries.targets(snapshot._public_modules()).values()}
    assert "engine.Engine.generate" in names and "attention.gather_kv" in names
    assert not names & boundaries.SELF_DESCRIBING


def test_a_record_holds_the_arguments_as_they_were_at_the_call(planted: types.ModuleType) -> None:
    module = planted
    values = [1, 2]
    with boundaries.recording(boundaries.targets([module])) as recorder:
        module.total(values, scale=3)
        values.append(99)  # the caller edits its list afterwards: the record keeps what was passed
        module.total([5], 2)
        module.total((5, 6), 2)  # a third call of another shape: only two are kept per callable
    records = [r for r in recorder.records if r.target.name == "planted.total"]
    assert len(records) == boundaries.RECORDS_PER_CALLABLE == 2
    assert records[0].positional == [("values", [1, 2]), ("scale", 3)]
    assert boundaries.replays(records[0]).__next__().call() == 9


def test_the_hook_keeps_one_call_of_each_shape_and_is_gone_after_the_block(planted: types.ModuleType) -> None:
    module = planted
    before = sys.getprofile()
    with boundaries.recording(boundaries.targets([module])) as recorder:
        for n in range(5):
            module.total([n, n], 1)  # the same types and shapes: one record
    assert [r.shape for r in recorder.records] == ["values: list[2](int); scale: int"]
    assert sys.getprofile() is before


@pytest.mark.parametrize("value, expected", [
    (5, ["0", "-1", "4", "6", "as float", "as np.int64", "as True"]),
    (1.5, ["0.0", "-0.0", "inf", "-inf", "NaN", "-x"]),
    (True, ["negated"]),
    ("lru", ["empty", "with a trailing space", "with a non-ASCII letter", "upper case"]),
    ("/a/path", ["empty", "with a trailing space", "with a non-ASCII letter"]),  # a path's case is not the engine's
])
def test_a_scalar_s_edges(value: object, expected: list[str]) -> None:
    assert [label for label, _ in boundaries.edges(value)] == expected


def test_an_index_array_gets_indices_past_its_range_and_negative_and_other_dtypes() -> None:
    table = np.array([3, 0, 2], dtype=np.intp)
    found = dict(boundaries.edges(table))
    assert found["first = its max + 1"].tolist() == [4, 0, 2]
    assert found["first = -1"].tolist() == [-1, 0, 2]
    assert found["as int32"].dtype == np.int32 and found["as float64"].dtype == np.float64
    assert not found["read-only"].flags.writeable and found["no rows"].shape == (0,)
    assert table.tolist() == [3, 0, 2]  # the recorded value itself is untouched


def test_a_float_array_gets_non_finite_values_scales_and_layouts_without_aliasing_the_record() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    found = dict(boundaries.edges(x))
    assert np.isnan(found["NaN first"][0, 0]) and found["+inf last"][1, 2] == np.inf
    assert np.isinf(found["x 2**100"]).sum() == 0 and found["x 2**-140"][0, 0] != 0  # subnormal, not zero
    assert found["Fortran order"].flags.f_contiguous and not found["strided view"].flags.c_contiguous
    assert found["one more axis"].shape == (1, 2, 3)
    found["one more axis"][...] = 0
    assert x[0, 0] == 1


def test_a_dataclass_gets_one_field_moved_at_a_time() -> None:
    @dataclasses.dataclass(frozen=True)
    class Shape:
        width: int = 4
        name: str = "w"

    moved = dict(boundaries.edges(Shape()))
    assert moved["width=0"] == Shape(0) and moved["width=-1"] == Shape(-1) and moved["name=empty"] == Shape(4, "")


def test_a_method_s_replay_is_on_a_fresh_copy_of_its_object_and_reports_it(planted: types.ModuleType) -> None:
    module = planted
    box = module.Box(10)
    with boundaries.recording(boundaries.targets([module])) as recorder:
        box.grow(5)
    record = next(r for r in recorder.records if r.target.name == "planted.Box.grow")
    replays = {replay.label: replay for replay in boundaries.replays(record)}
    first = replays["as recorded"]
    assert first.call() == 15 and first.owner.size == 15
    assert replays["by -1"].call() == 9  # each replay starts from the object as it was at the call
    assert box.size == 15


def test_environment_kept_puts_the_environment_back_and_says_it_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOUNDARIES_TEST_VARIABLE", "1")
    with boundaries.environment_kept() as changed:
        del os.environ["BOUNDARIES_TEST_VARIABLE"]
    assert changed == [True] and os.environ["BOUNDARIES_TEST_VARIABLE"] == "1"
    with boundaries.environment_kept() as changed:
        pass
    assert changed == [False]


def test_the_group_records_the_engine_s_kernels_with_the_arguments_the_engine_passed() -> None:
    cases = snapshot.run(20261206, ["boundaries"])
    shapes = {case: text for case, text in cases.items() if case.endswith(" recorded with")}
    # paged_attention_rows as the engine calls it: the KV pools of the workload's model (2 KV heads of 8)
    rows = [text for case, text in shapes.items() if case.startswith("boundaries/attention.paged_attention_rows#")]
    assert rows and all("k_cache: ndarray[" in text and "table: ndarray[int" in text for text in rows)
    assert cases["boundaries/the process after the group"] == "ok {}"
    assert not any("changed the environment" in text for case, text in cases.items()
                   if not case.startswith("boundaries/knobs."))
