"""Read and validate the suite's ``[[mutation]]`` tables (the suite loader keeps them raw).

Kinds: ``env`` (run the suite with extra env), ``patch`` (apply a unified diff to a throw-away copy
and run the suite from there), ``pin`` (perturb one gate's pin or observation and re-judge, no probe
run) and ``arms`` (where the engine's arm registry comes from: one "this arm is the default" env
mutation per opt-in arm, part of the built-in controls). Every error names the file, the line of the
``[[mutation]]`` header, the mutation and the fix; all problems are reported at once."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vtgate.errors import SuiteError
from vtgate.suite.load import NAME_PATTERN
from vtgate.suite.records import ProbeRef, Suite

MutationKind = Literal["env", "patch", "pin", "auto"]
Outcome = Literal["red", "green"]
OUTCOMES: tuple[str, ...] = ("red", "green")
ANY_GATE = "*"  # expect = { "*" = "red" }: at least one gate goes red
DECLARED_KINDS = ("env", "patch", "pin", "arms")
PIN_OPS = ("swap-token", "set", "shift-band", "shift-measured")

COMMON_KEYS = frozenset({"name", "kind", "expect", "expect_observed", "description"})
KIND_KEYS: dict[str, frozenset[str]] = {
    "env": frozenset({"env"}),
    "patch": frozenset({"patch"}),
    "pin": frozenset({"pin"}),
    "arms": frozenset({"probe", "on"}),
}
PIN_KEYS: dict[str, frozenset[str]] = {
    "swap-token": frozenset({"position", "to"}),
    "set": frozenset({"values"}),
    "shift-band": frozenset({"metric", "edge", "by"}),
    "shift-measured": frozenset({"field", "by", "label"}),
}
PIN_KINDS: dict[str, tuple[str, ...]] = {
    "swap-token": ("golden",),
    "set": ("golden", "anchor", "counters", "band"),
    "shift-band": ("band",),
    "shift-measured": ("golden", "anchor", "band", "counters", "bitident", "invariance"),
}


@dataclass(frozen=True)
class PinOp:
    """A declared pin perturbation: ``op`` and its parameters, compiled against the baseline later."""

    gate: str
    op: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class Mutation:
    """One mutation, declared or built in. ``expected`` maps gate names (or ``*``) to red/green;
    ``expect_observed`` maps a gate to observation fields (dotted) and the values they must take."""

    name: str
    kind: MutationKind
    expected: Mapping[str, Outcome]
    env: Mapping[str, str] = field(default_factory=dict)
    patch: Path | None = None
    pin: PinOp | None = None
    expect_observed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    description: str = ""
    line: int | None = None
    origin: str = "declared"

    @property
    def runs_probes(self) -> bool:
        return self.kind in ("env", "patch") or (self.kind == "auto" and self.pin is None)


@dataclass(frozen=True)
class ArmsSource:
    """Where the engine's arm registry comes from (a ``kind = "arms"`` table): a probe printing
    ``{"arms": [{"name", "knob", "default", "kernel"?, "on"?}, ...]}`` and the value that turns a knob
    on: ``on = "1"`` for every knob, or per knob ``on = { SVC_ATTN_IMPL = "sdpa" }`` (a list of values
    gives one arm per value). A registry entry's own ``on`` wins over both."""

    name: str
    probe: ProbeRef
    on: str = "1"
    line: int | None = None
    on_values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Declarations:
    mutations: tuple[Mutation, ...]
    arms: ArmsSource | None


def _suggest(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def mutation_lines(suite: Suite) -> list[int]:
    """Line numbers of the ``[[mutation]]`` headers (``[[tool.vtgate.mutation]]`` in pyproject.toml)."""
    try:
        text = suite.path.read_text(encoding="utf-8")
    except OSError:
        return []
    pattern = re.compile(r"^\s*\[\[\s*(tool\.vtgate\.)?mutation\s*\]\]")
    return [number for number, line in enumerate(text.splitlines(), start=1) if pattern.match(line)]


def load_declarations(suite: Suite) -> Declarations:
    """Validate ``suite.mutations``; raises SuiteError listing every problem."""
    problems: list[str] = []
    lines = mutation_lines(suite)
    gates = {spec.name: spec for spec in suite.gates}
    mutations: list[Mutation] = []
    arms: ArmsSource | None = None
    seen: dict[str, int | None] = {}
    for index, raw in enumerate(suite.mutations):
        line = lines[index] if len(lines) == len(suite.mutations) else None
        where = f"{suite.path}:{line}" if line else f"{suite.path} (mutation #{index + 1})"
        if not isinstance(raw, Mapping):
            problems.append(f"{where}: each [[mutation]] must be a table")
            continue
        name = raw.get("name")
        if not isinstance(name, str) or not NAME_PATTERN.match(name):
            problems.append(f'{where}: mutation #{index + 1} needs name = "<letters, digits, - _ .>"')
            continue
        if name in seen:
            problems.append(f"{where}: mutation '{name}' is declared twice (first at line {seen[name]})")
            continue
        seen[name] = line
        parsed = _mutation(suite, gates, raw, name, where, line, problems)
        if isinstance(parsed, ArmsSource):
            if arms is not None:
                problems.append(f"{where}: mutation '{name}': only one kind = \"arms\" table is allowed "
                                f"(the first is '{arms.name}')")
            arms = parsed
        elif parsed is not None:
            mutations.append(parsed)
    if problems:
        raise SuiteError("\n".join(problems))
    return Declarations(tuple(mutations), arms)


def _mutation(suite: Suite, gates: Mapping[str, Any], raw: Mapping[str, Any], name: str, where: str,
              line: int | None, problems: list[str]) -> Mutation | ArmsSource | None:
    before = len(problems)

    def bad(message: str) -> None:
        problems.append(f"{where}: mutation '{name}': {message}")

    kind = raw.get("kind")
    if kind not in DECLARED_KINDS:
        shown = f"unknown kind {kind!r}" if kind is not None else "needs kind"
        bad(f"{shown} (known: {', '.join(DECLARED_KINDS)}){_suggest(str(kind), DECLARED_KINDS) if kind else ''}")
        return None
    allowed = COMMON_KEYS | KIND_KEYS[kind]
    for key in sorted(set(raw) - allowed):
        bad(f"unknown key '{key}' for kind '{kind}'{_suggest(key, sorted(allowed))} "
            f"(kind keys: {', '.join(sorted(KIND_KEYS[kind]))})")
    description = raw.get("description", "")
    if not isinstance(description, str):
        bad("description must be a string")
        description = ""

    if kind == "arms":
        for key in ("expect", "expect_observed"):
            if key in raw:
                bad(f"'{key}' does not apply to kind = \"arms\": each opt-in arm is expected to turn "
                    "at least one gate red; remove it")
        probe = _arms_probe(raw.get("probe"), bad)
        on = raw.get("on", "1")
        on_values: dict[str, tuple[str, ...]] = {}
        if isinstance(on, Mapping):
            for knob, value in on.items():
                values = [value] if isinstance(value, str) else value
                if not (isinstance(values, list) and values and all(isinstance(v, str) for v in values)):
                    bad(f'on.{knob} must be a string or a list of strings, e.g. on = {{ {knob} = ["sdpa", "flash"] }}')
                    continue
                on_values[str(knob)] = tuple(values)
            on = "1"
        elif not isinstance(on, str):
            bad('on must be the string a knob is set to (on = "1") or a table per knob '
                '(on = { SVC_ATTN_IMPL = "sdpa" })')
        if len(problems) > before or probe is None:
            return None
        return ArmsSource(name, probe, str(on), line, on_values)

    expected = _expect(raw.get("expect"), gates, bad)
    observed = _expect_observed(raw.get("expect_observed", {}), gates, bad)
    env: dict[str, str] = {}
    patch: Path | None = None
    pin: PinOp | None = None
    if kind == "env":
        value = raw.get("env")
        if not (isinstance(value, Mapping) and value and all(isinstance(v, str) for v in value.values())):
            bad('needs env = { KNOB = "value" } (values are strings, as a shell sets them)')
        else:
            env = {str(k): str(v) for k, v in value.items()}
    elif kind == "patch":
        value = raw.get("patch")
        if not isinstance(value, str) or not value:
            bad('needs patch = "goldens/mutations/<name>.diff" (a unified diff, relative to the project)')
        else:
            patch = (suite.root / value).resolve()
            if not patch.is_file():
                bad(f"patch {value} does not exist ({patch}); write it with 'git diff > {value}' "
                    "on a scratch copy where the change is made")
            if not suite.settings.source_tree:
                bad("patch mutations need [suite] source_tree, so the stale guard can prove that the "
                    "probes ran the patched copy; add source_tree = \"<source root>/<package>\"")
    else:
        pin = _pin(raw.get("pin"), gates, bad)
        if pin is not None:
            extra = sorted(set(expected) - {pin.gate})
            if extra:
                bad(f"a pin mutation only touches gate '{pin.gate}', so expect cannot name '{extra[0]}'")
    if len(problems) > before:
        return None
    if not description and env:
        description = "env " + " ".join(f"{k}={v}" for k, v in env.items())
    elif not description and patch is not None:
        description = f"patch {raw['patch']}"
    return Mutation(name=name, kind=kind, expected=expected, env=env, patch=patch, pin=pin,
                    expect_observed=observed, description=description, line=line)


def _expect(raw: Any, gates: Mapping[str, Any], bad: Any) -> dict[str, Outcome]:
    if not isinstance(raw, Mapping) or not raw:
        bad('needs expect = { <gate> = "red" } (must kill) or "green" (must survive); '
            '"*" = "red" means at least one gate')
        return {}
    expected: dict[str, Outcome] = {}
    for gate, outcome in raw.items():
        if gate != ANY_GATE and gate not in gates:
            bad(f"expect names unknown gate '{gate}'{_suggest(gate, list(gates))} "
                f"(gates: {', '.join(gates) or 'none'})")
            continue
        if outcome not in OUTCOMES:
            bad(f"expect.{gate} = {outcome!r} is neither \"red\" nor \"green\"; write \"red\" if the "
                "mutation must kill the gate, \"green\" if the gate must survive it")
            continue
        expected[str(gate)] = outcome
    return expected


def _expect_observed(raw: Any, gates: Mapping[str, Any], bad: Any) -> dict[str, dict[str, Any]]:
    if not isinstance(raw, Mapping) or not all(isinstance(v, Mapping) and v for v in raw.values()):
        bad('expect_observed = { <gate> = { "metrics.anchor" = 11622 } } (observation fields and values)')
        return {}
    observed: dict[str, dict[str, Any]] = {}
    for gate, fields in raw.items():
        if gate not in gates:
            bad(f"expect_observed names unknown gate '{gate}'{_suggest(gate, list(gates))}")
            continue
        observed[str(gate)] = dict(fields)
    return observed


def _arms_probe(raw: Any, bad: Any) -> ProbeRef | None:
    if isinstance(raw, str) and ":" in raw:
        return ProbeRef(callable=raw)
    if isinstance(raw, Mapping) and set(raw) == {"cmd"}:
        cmd = raw["cmd"]
        if isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd):
            return ProbeRef(cmd=tuple(cmd))
    bad('needs probe = { cmd = ["python", "-m", "vtengine", "arms", "--json", "-"] } or "module:function" '
        "printing/returning the engine's arm registry")
    return None


def _pin(raw: Any, gates: Mapping[str, Any], bad: Any) -> PinOp | None:
    if not isinstance(raw, Mapping):
        bad('needs pin = { gate = "<gate>", op = "swap-token" | "set" | "shift-band" | "shift-measured", ... }')
        return None
    gate = raw.get("gate")
    if not isinstance(gate, str) or gate not in gates:
        bad(f"pin.gate names unknown gate {gate!r}{_suggest(str(gate), list(gates))}")
        return None
    op = raw.get("op")
    if op not in PIN_OPS:
        bad(f"pin.op = {op!r} is not one of {', '.join(PIN_OPS)}")
        return None
    kind = gates[gate].kind
    if kind not in PIN_KINDS[op]:
        bad(f"pin.op = '{op}' does not apply to gate '{gate}' of kind '{kind}' "
            f"(it applies to: {', '.join(PIN_KINDS[op])})")
        return None
    params = {k: v for k, v in raw.items() if k not in ("gate", "op")}
    for key in sorted(set(params) - PIN_KEYS[op]):
        bad(f"pin: unknown key '{key}' for op '{op}' (keys: {', '.join(sorted(PIN_KEYS[op]))})")
        return None
    number = (int, float)
    if op == "swap-token" and not (isinstance(params.get("position"), int) and params["position"] >= 0):
        bad("pin.op = 'swap-token' needs position = <token position >= 0> (and optionally to = <token id>)")
    elif op == "set" and not (isinstance(params.get("values"), Mapping) and params["values"]):
        bad('pin.op = \'set\' needs values = { "anchor" = 11622, "anchors.5" = 17 } (dotted paths into the pin)')
    elif op == "shift-band":
        if not isinstance(params.get("metric"), str) or params.get("edge", "both") not in ("lo", "hi", "both") \
                or not isinstance(params.get("by"), number):
            bad("pin.op = 'shift-band' needs metric = \"<band metric>\", by = <number>, edge = \"lo\" | \"hi\" | \"both\"")
        elif params["metric"] not in gates[gate].options.get("bands", {}):
            bands = ", ".join(gates[gate].options.get("bands", {}))
            bad(f"pin.metric = '{params['metric']}' is not a band of gate '{gate}' (bands: {bands})")
    elif op == "shift-measured" and not (isinstance(params.get("field"), str) and isinstance(params.get("by"), number)):
        bad("pin.op = 'shift-measured' needs field = \"<observation field, e.g. counters.proposed>\" and by = <number>")
    return PinOp(gate, str(op), params)
