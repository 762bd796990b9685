"""The shape of an observation (docs/contracts.md#observations), checked where a probe callable hands
one over (``vtgate.run.child``) so a wrong type is reported naming the field, not later as a
confusing verdict. Every field is optional; a present one must have its documented type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _first_bad_item(items: Any, ok: Any) -> str | None:
    if isinstance(items, Mapping):
        for key, value in items.items():
            if not ok(value):
                return f"[{key!r}] = {value!r}"
        return None
    for index, value in enumerate(items):
        if not ok(value):
            return f"[{index}] = {value!r}"
    return None


def observation_problems(observation: Any) -> list[str]:
    """What is wrong with ``observation``, one message per field, naming it and the expected type."""
    if not isinstance(observation, Mapping):
        return [f"the probe returned {type(observation).__name__}, not an observation (a dict); build one with "
                "vtgate.probe.observation(tokens, logits)"]
    problems = []
    lists = {"tokens": (_int, "a list of int (token ids)"), "margins": (_number, "a list of numbers")}
    for field, (ok, expected) in lists.items():
        if field in observation:
            value = observation[field]
            bad = _first_bad_item(value, ok) if isinstance(value, list) else f" = {type(value).__name__}"
            if bad:
                problems.append(f"{field}{bad}: {field} must be {expected}")
    tables = {"digests": (lambda v: isinstance(v, str), "an object of name -> hex string"),
              "counters": (_int, "an object of name -> int"),
              "metrics": (lambda v: v is None or isinstance(v, (int, float, str, bool)),
                          "an object of name -> number (or another plain value)"),
              "cases": (lambda v: True, "an object of case id -> digest or value"),
              "meta": (lambda v: True, "an object")}
    for field, (ok, expected) in tables.items():
        if field in observation:
            value = observation[field]
            bad = _first_bad_item(value, ok) if isinstance(value, Mapping) else f" = {type(value).__name__}"
            if bad:
                problems.append(f"{field}{bad}: {field} must be {expected}")
    return problems
