"""Evidence for "possibly equivalent": a differential test of each such mutant's function against the
original, on many inputs (``vtgate mutate --code --equivalence N``).

A mutant that changed no observation of the suite's probes is only *possibly* equivalent: the probes
may simply never feed the mutated function an input where the two versions differ. Here the probes
of the gates that reached the mutant run once more on the unmutated tree, with a profile hook that
records real calls of the mutated functions (their arguments, ``self`` included, pickled at the call:
the shapes, dtypes and engine state the engine really uses). Then the original tree and the mutated
copy each call the function, in a process of their own, on the same N inputs: the recorded calls and
seeded random variants of them (every float array redrawn at the original's scale, every other one
with 1 in 16 elements an edge value: zeros, ties at bf16 precision, subnormals, fp8 and fp16 limits).
Outcomes are compared bit for bit: the return value and the arguments after the call (in-place
writes and ``self``'s state count), or the exception raised.

A mutant whose outcome differs on some input is *not* equivalent: it becomes a survivor, with the
input that shows it. One with no difference over N inputs stays possibly equivalent, with that
evidence in its detail; a person still confirms it in the ledger, with a reason. Every ledger entry
that no gate kills is checked here on every run (``vtgate.mutate.coderun.check_ledger``): a
difference refutes it, no difference over its inputs verifies it. Outcomes the original itself does
not repeat (a clock, a thread race) are not compared."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtgate.kinds import get_kind
from vtgate.mutate.codemutants import CodeMutant
from vtgate.mutate.copies import PatchError, Scratch
from vtgate.mutate.judgecopy import CodeScope
from vtgate.run.execute import ProbeKey, probe_environment
from vtgate.run.proctree import ChildProcesses
from vtgate.suite.records import Suite

ENTRY = "vtgate.mutate.equivalence_entry"
MAX_CAPTURES_PER_FUNCTION = 3  # probe runs whose recorded calls a function's inputs are drawn from
REPLAY_SECONDS = 30.0  # a replay stops starting inputs after this long (every recorded call runs first)


@dataclass(frozen=True)
class Target:
    """A mutant to test, with the gates that ran on it (their probes' calls are its inputs)."""

    mutant: CodeMutant
    gates_run: tuple[str, ...]


@dataclass(frozen=True)
class Evidence:
    """What the differential test found for one mutant."""

    differs: bool
    inputs: int  # compared (repeatable in the original)
    calls: int  # distinct recorded calls the inputs are drawn from
    detail: str


def module_name(path: str, pythonpath: Sequence[str]) -> str | None:
    """``engine/vtengine/numerics.py`` with ``pythonpath = ["engine"]`` -> ``vtengine.numerics``."""
    for entry in (*pythonpath, "."):
        prefix = "" if entry in (".", "") else entry.rstrip("/") + "/"
        if path.startswith(prefix) and path.endswith(".py"):
            dotted = path[len(prefix):-3].replace("/", ".")
            return dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted
    return None


def _target_key(mutant: CodeMutant, pythonpath: Sequence[str]) -> tuple[str, str] | None:
    module = module_name(mutant.path, pythonpath)
    if module is None or mutant.function == "<module>":
        return None
    return module, mutant.function


def _entry_env(base: dict[str, str]) -> dict[str, str]:
    """The probe's environment plus this package on the path (the entry lives in vtgate)."""
    here = str(Path(__file__).resolve().parent.parent.parent)
    env = dict(base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (env.get("PYTHONPATH", ""), here) if p)
    return env


def _run(children: ChildProcesses, argv: list[str], cwd: Path, env: dict[str, str],
         timeout: float) -> dict[str, Any] | None:
    """One entry run, registered with ``children`` so an interrupted check leaves no process behind."""
    try:
        process = children.start(argv, cwd=cwd, env=env)
    except OSError:
        return None
    stdout, _, timed_out = children.communicate(process, timeout)
    text = stdout.decode("utf-8", "replace").strip()
    if timed_out or process.returncode != 0 or not text:
        return None
    try:
        return json.loads(text.splitlines()[-1])
    except ValueError:
        return None


def _first_difference(mine: Any, theirs: Any, where: str = "") -> str:
    """A short path to the first part of two outcome fingerprints that differs, with both values."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if "sha256" in mine and "sha256" in theirs:
            return (f"{where or 'value'}: {mine.get('array')}{mine.get('shape')} differs "
                    f"(sum {theirs.get('sum')!r} original, {mine.get('sum')!r} mutant)")
        if "float" in mine and "float" in theirs:
            return f"{where or 'value'}: {theirs.get('value')} original, {mine.get('value')} mutant"
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                return _first_difference(mine.get(key), theirs.get(key), f"{where}.{key}" if where else key)
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{where}[{index}]")
    shown_mine, shown_theirs = json.dumps(mine)[:80], json.dumps(theirs)[:80]
    return f"{where or 'value'}: {shown_theirs} original, {shown_mine} mutant"


def compare(original: dict[str, Any], mutated: dict[str, Any], sources: dict[str, str]) -> Evidence:
    """Outcome by outcome; an input the original does not repeat is left out."""
    theirs = {r["input"]: r for r in original.get("results", [])}
    compared = 0
    for result in mutated.get("results", []):
        before = theirs.get(result["input"])
        if before is None or not before["repeatable"]:
            continue
        compared += 1
        if result["outcome"] != before["outcome"]:
            source = sources.get(result["source"], result["source"])
            shown = "the recorded call" if result["variant"] == 0 else f"random variant {result['variant']}"
            difference = _first_difference(result["outcome"], before["outcome"])
            return Evidence(True, compared, original.get("calls", 0),
                            f"differs from the original on input {result['input']} ({shown} of a call of "
                            f"{original.get('function')} recorded from {source}): {difference}")
    return Evidence(False, compared, original.get("calls", 0),
                    f"no difference over {compared} inputs ({original.get('calls', 0)} recorded calls of "
                    f"{original.get('function')} and seeded random variants, compared bit for bit)")


def differential_check(targets: Sequence[Target], suite: Suite, scope: CodeScope, root: Path, *, inputs: int,
                       seed: int = 0, jobs: int = 1, say: Callable[[str], None] | None = None,
                       replay_seconds: float = REPLAY_SECONDS) -> dict[str, Evidence]:
    """Evidence for every target, by mutant digest. ``replay_seconds``: a replay starts no new input
    after this long (every recorded call runs first)."""
    tell = say or (lambda message: None)
    pythonpath = suite.settings.pythonpath
    evidence: dict[str, Evidence] = {}
    functions: dict[tuple[str, str], list[Target]] = {}
    for verdict in targets:
        key = _target_key(verdict.mutant, pythonpath)
        if key is None:
            evidence[verdict.mutant.digest] = Evidence(False, 0, 0, "module level: no function to call, "
                                                                   "no differential evidence")
            continue
        functions.setdefault(key, []).append(verdict)
    if not functions:
        return evidence
    names = {f"{module}:{qualname}": (module, qualname) for module, qualname in functions}
    specs = {spec.name: spec for spec in suite.gates}
    probe_keys: dict[ProbeKey, set[str]] = {}
    for (module, qualname), verdicts in functions.items():
        candidates: dict[ProbeKey, None] = {}
        for verdict in verdicts:
            for gate in verdict.gates_run:
                spec = specs.get(gate)
                if spec is None:
                    continue
                for request in get_kind(spec.kind).requests(spec):
                    probe_key = ProbeKey.of(request, root)
                    if probe_key.probe.callable is not None:
                        candidates[probe_key] = None
        # a few probe runs a function (the gates that reached it, in order): calls under other knobs
        # and arguments, at a bounded cost
        for probe_key in list(candidates)[:MAX_CAPTURES_PER_FUNCTION]:
            probe_keys.setdefault(probe_key, set()).add(f"{module}:{qualname}")
    timeout = max((spec.timeout for spec in suite.gates), default=120.0) * 3
    children = ChildProcesses()
    try:
        return _differential(targets, suite, root, scope, functions, names, probe_keys, evidence, children,
                             inputs=inputs, seed=seed, jobs=jobs, timeout=timeout, tell=tell,
                             replay_seconds=replay_seconds)
    except BaseException:  # Ctrl-C, SIGTERM: no capture or replay left running
        children.kill_all()
        raise


def _differential(targets: Sequence[Target], suite: Suite, root: Path, scope: CodeScope,
                  functions: dict[tuple[str, str], list[Target]], names: dict[str, tuple[str, str]],
                  probe_keys: dict[ProbeKey, set[str]], evidence: dict[str, Evidence], children: ChildProcesses, *,
                  inputs: int, seed: int, jobs: int, timeout: float, tell: Callable[[str], None],
                  replay_seconds: float) -> dict[str, Evidence]:
    pythonpath = suite.settings.pythonpath
    with tempfile.TemporaryDirectory(prefix="vtgate-equivalence-") as folder_name, Scratch() as scratch:
        folder = Path(folder_name)
        tell(f"equivalence: recording calls of {len(functions)} functions from {len(probe_keys)} probe runs")
        sources: dict[str, str] = {}
        captures: dict[str, list[str]] = {}
        first_key: dict[str, ProbeKey] = {}

        def record(index: int, probe_key: ProbeKey, wanted: set[str]) -> None:
            out = folder / f"capture-{index}.pkl"
            cache = folder / f"cache-{index}"
            cache.mkdir()
            env = _entry_env(probe_environment(probe_key, root, suite.settings))
            env.update(scope.env_for(cache))
            argv = [sys.executable, "-m", ENTRY, "capture", "--probe", str(probe_key.probe.callable),
                    "--args", probe_key.args_json, "--out", str(out), "--targets",
                    json.dumps([{"module": names[n][0], "qualname": names[n][1], "key": n} for n in sorted(wanted)])]
            done = _run(children, argv, root, env, timeout)
            shutil.rmtree(cache, ignore_errors=True)
            if done is None:
                return
            for name, path in done.get("files", {}).items():
                sources[Path(path).name] = f"{probe_key.probe.callable} {probe_key.args_json}"
                captures.setdefault(name, []).append(path)
                first_key.setdefault(name, probe_key)

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            list(pool.map(lambda item: record(*item),
                          [(i, k, w) for i, (k, w) in enumerate(sorted(probe_keys.items(), key=lambda kv: repr(kv[0])))]))
        for name in captures:  # a few probe runs a function: the replays stay cheap, the inputs varied
            captures[name] = sorted(captures[name])[:MAX_CAPTURES_PER_FUNCTION]

        def replay(tree: Path, name: str) -> dict[str, Any] | None:
            module, qualname = names[name]
            env = _entry_env(probe_environment(first_key[name], tree, suite.settings))
            env.update(scope.env_for(tree))
            argv = [sys.executable, "-m", ENTRY, "replay", "--module", module, "--qualname", qualname, "--key", name,
                    "--inputs", str(inputs), "--seed", str(seed), "--seconds", str(replay_seconds),
                    "--recorded-in", str(root.resolve()), "--tree", str(tree.resolve()), *captures[name]]
            return _run(children, argv, tree, env, timeout)

        originals: dict[str, dict[str, Any] | None] = {}
        tell(f"equivalence: {len(captures)} functions recorded; replaying the originals")
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for name, result in zip(list(captures), pool.map(lambda n: replay(root, n), list(captures)), strict=True):
                originals[name] = result

        def judge(verdict: Target) -> tuple[str, Evidence]:
            mutant = verdict.mutant
            key = _target_key(mutant, pythonpath)
            name = f"{key[0]}:{key[1]}" if key else ""
            original = originals.get(name)
            if name not in captures:
                return mutant.digest, Evidence(False, 0, 0, f"{mutant.function} was never called by the probes "
                                                            "that reach it: no differential evidence")
            if original is None or "error" in original:
                why = (original or {}).get("error", "the original's replay failed")
                return mutant.digest, Evidence(False, 0, 0, f"no differential evidence: {why}")
            patch = folder / f"{mutant.digest}.patch"
            patch.write_text(mutant.diff, encoding="utf-8")
            try:
                copy = scratch.patched_copy(root, f"e-{mutant.digest}", patch, mutant.ident)
            except PatchError as error:
                return mutant.digest, Evidence(False, 0, 0, f"no differential evidence: {error}")
            try:
                mutated = replay(copy, name)
            finally:
                shutil.rmtree(copy, ignore_errors=True)
            if mutated is None:
                return mutant.digest, Evidence(True, 0, original.get("calls", 0),
                                               f"differs: the mutated {mutant.function} fails to replay "
                                               "(it crashes or hangs where the original runs)")
            if "error" in mutated:
                return mutant.digest, Evidence(False, 0, 0, f"no differential evidence: {mutated['error']}")
            return mutant.digest, compare(original, mutated, sources)

        pending = [v for v in targets if v.mutant.digest not in evidence]
        tell(f"equivalence: {len(pending)} mutants against the originals, {inputs} inputs each")
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for digest, found in pool.map(judge, pending):
                evidence[digest] = found
    return evidence
