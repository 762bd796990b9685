"""The ``golden`` kind's ``mode = "logits"``: pin the logits a model produced at each step, exactly
(each step's logits digest, ``cases["pos-N"]``) or within a tolerance (``atol`` / ``rtol`` over the
reference's top-k (id, value) pairs, and top-k agreement), with the reference values stored in the
golden. Like vLLM's ``check_logprobs_close``, but the reference is a blessed golden with provenance.
The verdict names the first divergent step and the size of the divergence."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vtgate.errors import GateError
from vtgate.kinds._common import require
from vtgate.suite.records import Cases, GateSpec, Verdict

OPTION_KEYS = frozenset({"atol", "rtol", "top_k", "min_top_k_agree"})
DEFAULT_TOP_K = 5


def validate(options: Mapping[str, Any]) -> list[str]:
    problems = []
    for key in ("atol", "rtol"):
        value = options.get(key)
        if key in options and (not isinstance(value, (int, float)) or isinstance(value, bool) or value < 0):
            problems.append(f"{key} must be a number >= 0 (e.g. {key} = 1e-3)")
    top_k = options.get("top_k", DEFAULT_TOP_K)
    if not isinstance(top_k, int) or isinstance(top_k, bool) or top_k < 1:
        problems.append("top_k must be an integer >= 1 (how many top ids per step must agree)")
    agree = options.get("min_top_k_agree")
    if agree is not None and (not isinstance(agree, (int, float)) or isinstance(agree, bool) or not 0 <= agree <= 1):
        problems.append("min_top_k_agree must be a fraction of steps between 0 and 1 (e.g. 0.9)")
    return problems


def tolerant(options: Mapping[str, Any]) -> bool:
    return "atol" in options or "rtol" in options


def step_digests(observation: Mapping[str, Any], spec: GateSpec) -> list[str]:
    """``cases["pos-0"]``, ``cases["pos-1"]``, ... in step order (the probe helpers' per-step digests)."""
    cases = require(observation, "cases", spec)
    if not isinstance(cases, Mapping):
        raise GateError(f"gate '{spec.name}': 'cases' must map pos-N to each step's logits digest", "probe")
    digests: list[str] = []
    while f"pos-{len(digests)}" in cases:
        digests.append(str(cases[f"pos-{len(digests)}"]))
    if not digests:
        raise GateError(f"gate '{spec.name}': 'cases' has no pos-0; a logits golden needs one logits digest per "
                        "step as cases pos-N (vtgate.probe.observation writes them)", "probe")
    return digests


def logits_record(observation: Mapping[str, Any], spec: GateSpec, needed: bool) -> dict[str, Any] | None:
    """The observation's ``logits`` record (top ids and values per step), checked for shape."""
    record = observation.get("logits")
    if record is None:
        if needed:
            raise GateError(f"gate '{spec.name}': the observation has no 'logits' (top ids and values per step); "
                            "a tolerant logits golden needs them (vtgate.probe.observation writes them)", "probe")
        return None
    ids, values = (record.get("ids"), record.get("values")) if isinstance(record, Mapping) else (None, None)
    if not (isinstance(ids, list) and isinstance(values, list) and len(ids) == len(values)
            and all(isinstance(a, list) and isinstance(b, list) and len(a) == len(b) for a, b in zip(ids, values, strict=True))):
        raise GateError(f"gate '{spec.name}': 'logits' must be {{\"ids\": [[int]], \"values\": [[number]]}} with one "
                        "row per step and equal row lengths", "probe")
    return {"ids": [[int(i) for i in row] for row in ids], "values": [[float(v) for v in row] for row in values],
            "top_k": len(ids[0]) if ids else 0, "vocab": record.get("vocab")}


def pin_from(spec: GateSpec, observation: Mapping[str, Any]) -> dict[str, Any]:
    pin: dict[str, Any] = {"steps": step_digests(observation, spec)}
    tokens = observation.get("tokens")
    if isinstance(tokens, list):
        pin["tokens"] = list(tokens)
    digest = observation.get("digests", {}).get("logits") if isinstance(observation.get("digests"), Mapping) else None
    if digest:
        pin["digest"] = digest
    record = logits_record(observation, spec, tolerant(spec.options))
    if record is not None:
        pin["logits"] = record
    if tolerant(spec.options) and record is not None and record["top_k"] < int(spec.options.get("top_k", DEFAULT_TOP_K)):
        raise GateError(f"gate '{spec.name}': top_k = {spec.options.get('top_k')} but the probe keeps only "
                        f"{record['top_k']} ids per step; lower top_k or keep more (observation(top_k=...))", "probe")
    return pin


@dataclass(frozen=True)
class StepDiff:
    """One step compared with the reference: worst abs/rel difference over the reference's ids, ids of
    the reference missing from the measured top list, and whether the top-k id sets agree."""

    max_abs: float
    max_rel: float
    missing: int
    top_k_agree: bool
    within: bool  # every compared value satisfies |measured - reference| <= atol + rtol * |reference|


def compare_step(ref_ids: Sequence[int], ref_values: Sequence[float], ids: Sequence[int], values: Sequence[float],
                 top_k: int, atol: float = 0.0, rtol: float = 0.0) -> StepDiff:
    measured = dict(zip(ids, values, strict=False))
    max_abs = max_rel = 0.0
    missing = 0
    within = True
    for token, reference in zip(ref_ids, ref_values, strict=False):
        if token not in measured:
            missing += 1
            continue
        difference = abs(measured[token] - reference)
        max_abs = max(max_abs, difference)
        max_rel = max(max_rel, difference / abs(reference) if reference else (math.inf if difference else 0.0))
        within = within and difference <= atol + rtol * abs(reference)
    agree = set(ref_ids[:top_k]) == set(ids[:top_k])
    return StepDiff(max_abs, max_rel, missing, agree, within and not missing)


def _g(value: float) -> str:
    return f"{value:.2g}" if value else "0"


def evaluate(spec: GateSpec, pin: Mapping[str, Any], observation: Mapping[str, Any]) -> Verdict:
    golden_steps = pin.get("steps")
    if not isinstance(golden_steps, list):
        raise GateError(f"gate '{spec.name}': the golden has no per-step logits digests; re-bless it: "
                        f"vtgate bless {spec.name} --reason ...", "golden")
    steps = step_digests(observation, spec)
    total = len(golden_steps)
    golden_tokens = pin.get("tokens") if isinstance(pin.get("tokens"), list) else None
    tokens = observation.get("tokens") if isinstance(observation.get("tokens"), list) else None
    top_k = int(spec.options.get("top_k", DEFAULT_TOP_K))
    reference = pin.get("logits") if isinstance(pin.get("logits"), Mapping) else None
    measured = logits_record(observation, spec, tolerant(spec.options))
    atol, rtol = float(spec.options.get("atol", 0.0)), float(spec.options.get("rtol", 0.0))
    diffs: list[StepDiff | None] = []
    for i in range(total):
        if reference is None or measured is None or i >= len(reference["ids"]) or i >= len(measured["ids"]):
            diffs.append(None)
        else:
            diffs.append(compare_step(reference["ids"][i], reference["values"][i], measured["ids"][i],
                                      measured["values"][i], top_k, atol, rtol))
    token_flips = [i for i in range(total) if golden_tokens is not None and tokens is not None
                   and (i >= len(tokens) or i >= len(golden_tokens) or tokens[i] != golden_tokens[i])]
    if tolerant(spec.options):
        if reference is None:
            raise GateError(f"gate '{spec.name}': the golden has no reference logits values; re-bless it: "
                            f"vtgate bless {spec.name} --reason ...", "golden")
        failing = [i for i in range(total) if i >= len(steps) or not (diffs[i] is not None and diffs[i].within)]  # type: ignore[union-attr]
        tolerance = f"tolerance abs {_g(atol)}" + (f" + rel {_g(rtol)}" if rtol else "")
    else:
        failing = [i for i in range(total) if i >= len(steps) or steps[i] != golden_steps[i]]
        tolerance = "exact"
    failing = sorted(set(failing) | set(token_flips))
    known = [d for d in diffs if d is not None]
    agree = sum(1 for d in known if d.top_k_agree)
    agree_text = f"top-{top_k} agree {agree}/{total}" if known else f"top-{top_k} not compared (no logits values)"
    minimum = spec.options.get("min_top_k_agree")
    required = None if minimum is None else math.ceil(float(minimum) * total)
    agree_ok = required is None or (bool(known) and agree >= required)
    length_note = f"; {len(steps)} steps measured, golden {total}" if len(steps) != total else ""
    passed = not failing and bool(agree_ok) and len(steps) == total
    cases = Cases(total - len(failing), len(failing), tuple(f"pos-{i}" for i in failing))
    shown_measured = {"steps": steps, **({"tokens": tokens} if tokens is not None else {})}
    shown_pinned = {"steps": golden_steps, **({"tokens": golden_tokens} if golden_tokens is not None else {})}
    limit = "" if agree_ok else f" [required: {required}]"
    agree_text += limit
    worst = max(known, key=lambda d: d.max_abs, default=None)
    worst_at = diffs.index(worst) if worst is not None else None
    if not failing:
        size = ""
        if worst is not None and tolerant(spec.options):
            at = f" at step {worst_at}" if worst.max_abs else ""
            size = f": max abs {_g(worst.max_abs)}{at}, max rel {_g(max(d.max_rel for d in known))}"
        head = (f"{total}/{total} steps bit-identical" if tolerance == "exact"
                else f"{total}/{total} steps within {tolerance}{size}")
        return Verdict(passed, f"{head}; {agree_text}{length_note}", shown_measured, shown_pinned, cases)
    first = failing[0]
    here = diffs[first] if first < len(diffs) else None
    parts = []
    if first >= len(steps):
        parts.append("stream ended")
    elif here is not None:
        parts.append(f"max abs {_g(here.max_abs)} ({tolerance}), max rel {_g(here.max_rel)}")
        if here.missing:
            parts.append(f"{here.missing} of the golden's top-{len(reference['ids'][first])} ids left the top list")  # type: ignore[index]
    if first in token_flips and golden_tokens is not None and tokens is not None and first < len(tokens):
        parts.append(f"token {golden_tokens[first]} -> {tokens[first]}")
    if worst is not None and worst_at is not None and worst_at != first and worst.max_abs > (here.max_abs if here else 0):
        parts.append(f"worst max abs {_g(worst.max_abs)} at step {worst_at}")
    detail = ": " + ", ".join(parts) if parts else " (digest differs; no logits values to size it)"
    summary = (f"logits differ from step {first}{detail}; {len(failing)} of {total} steps differ; "
               f"{agree_text}{length_note}")
    return Verdict(False, summary, shown_measured, shown_pinned, cases)


def describe_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    before, after = list(old.get("steps", [])), list(new.get("steps", []))
    changed = [i for i in range(max(len(before), len(after)))
               if i >= len(before) or i >= len(after) or before[i] != after[i]]
    if not changed:
        return f"logits unchanged ({len(after)} steps)"
    return f"logits of {len(changed)} of {len(after)} steps change, first at step {changed[0]}"


def describe_pin(pin: Mapping[str, Any]) -> str:
    steps = list(pin.get("steps", []))
    digest = str(pin.get("digest", ""))[:12]
    return f"logits of {len(steps)} steps" + (f" (digest {digest}…)" if digest else "")
