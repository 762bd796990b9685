"""Gate kinds, one module each, registered by name. A kind compares observations with a pin and says
why, in its own terms; it never does I/O in ``evaluate`` (so vtgate mutate can re-judge stored
observations against perturbed pins). Adding a kind is one module plus one line in ``_MODULES``.

The interface (``GateKind``):

- ``name``, ``pin_source`` ("golden": pin in a golden file, blessed; "inline": pin written in the
  suite TOML, e.g. band lo/hi; "none": the gate compares runs with each other, e.g. bitident),
  ``option_keys`` (kind-specific TOML keys) and ``default_probe`` (for kinds that bring their own).
- ``validate(options) -> list[str]``: problems with the kind-specific keys (suite load time).
- ``requests(spec) -> list[ProbeRequest]``: which probe runs the gate needs.
- ``evaluate(spec, pin, observations) -> Verdict``: pure; ``observations`` maps request label to the
  observation dict. Raises ``GateError`` when the gate cannot be judged.
- ``pin_from(spec, observations) -> dict``: the pin ``vtgate bless`` stores.
- ``describe_change(old, new) -> str``: the bless diff in the kind's terms ("anchor 11622 -> 101807").
- ``describe_pin(pin) -> str``: one short line for a golden's history ("anchor 101807, 60 tokens").
- ``opt_in`` (optional attribute, default False): gates of the kind are selected only when named by
  ``--gate`` or by a ``-k`` expression with the kind's name as a word (``perf``: timing gates).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Literal, Protocol

from vtgate.suite.records import GateSpec, ProbeRef, ProbeRequest, Verdict

PinSource = Literal["golden", "inline", "none"]


class GateKind(Protocol):
    name: str
    pin_source: PinSource
    option_keys: frozenset[str]
    default_probe: ProbeRef | None

    def validate(self, options: Mapping[str, Any]) -> list[str]: ...

    def requests(self, spec: GateSpec) -> list[ProbeRequest]: ...

    def inline_pin(self, spec: GateSpec) -> dict[str, Any]: ...

    def evaluate(
        self, spec: GateSpec, pin: Mapping[str, Any], observations: Mapping[str, Mapping[str, Any]]
    ) -> Verdict: ...

    def pin_from(self, spec: GateSpec, observations: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]: ...

    def describe_change(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> str: ...

    def describe_pin(self, pin: Mapping[str, Any]) -> str: ...


_MODULES = ("golden", "anchor", "band", "bitident", "invariance", "counters", "snapshot", "envdoc", "perf")

KINDS: dict[str, GateKind] = {}


def _register() -> None:
    for module_name in _MODULES:
        module = importlib.import_module(f"vtgate.kinds.{module_name}")
        kind: GateKind = module.KIND
        KINDS[kind.name] = kind


def get_kind(name: str) -> GateKind:
    if not KINDS:
        _register()
    return KINDS[name]


def kind_names() -> list[str]:
    if not KINDS:
        _register()
    return list(KINDS)
