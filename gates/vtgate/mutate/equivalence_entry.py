"""The two halves of the differential equivalence check, run in the probe's own interpreter:
``capture`` runs one probe callable and records (pickles) real calls of the target functions, and
``replay`` calls the functions of *this* process's tree on those calls and on seeded random variants
of them, printing one fingerprint (bit-exact: dtype, shape, SHA-256 of the bytes) per input.

The original tree and the mutated copy each replay the same inputs in their own process (the same
import names, so a pickled object of the original tree is rebuilt from the mutated tree's classes);
the caller compares the fingerprints. Only the standard library and NumPy (when the engine has it)
are used here."""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import importlib
import inspect
import json
import os
import pickle
import random
import struct
import sys
from collections.abc import Callable
from typing import Any

CAPTURE_AT = frozenset({0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 1597})  # spread over a run
MAX_DEPTH = 6
PROVENANCE_KEYS = frozenset({"meta", "timings", "seconds"})  # what vtgate leaves out of an observation


def resolve(module_name: str, qualname: str) -> tuple[Callable[..., Any], str] | None:
    """The function ``qualname`` of the module, or its nearest enclosing function (a nested function
    is reached through its parent); None for module level or a class body."""
    try:
        module = importlib.import_module(module_name)
    except Exception:  # noqa: BLE001 - a module that cannot import gives no evidence
        return None
    parts = qualname.split(".")
    for length in range(len(parts), 0, -1):
        obj: Any = module
        try:
            for part in parts[:length]:
                obj = inspect.getattr_static(obj, part) if inspect.isclass(obj) else getattr(obj, part)
        except AttributeError:
            continue
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if isinstance(obj, property):
            obj = obj.fget
        if inspect.isfunction(obj):
            return obj, ".".join(parts[:length])
        return None
    return None


class _SharingPickler(pickle.Pickler):
    """Pickles large arrays by reference into ``shared`` (keyed by content): the model's weights
    appear in every recorded ``self`` but are stored once."""

    def __init__(self, file: Any, shared: dict[str, Any]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.shared = shared
        self.used: set[str] = set()

    def persistent_id(self, obj: Any) -> str | None:
        nbytes = getattr(obj, "nbytes", 0)
        if type(obj).__name__ == "ndarray" and isinstance(nbytes, int) and nbytes >= 1 << 16:
            key = hashlib.sha256(obj.tobytes()).hexdigest() + obj.dtype.str + repr(obj.shape)
            self.shared.setdefault(key, obj.copy())
            self.used.add(key)
            return key
        return None


class _SharingUnpickler(pickle.Unpickler):
    def __init__(self, file: Any, shared: dict[str, Any]) -> None:
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid: str) -> Any:
        return self.shared[pid].copy()


def _dumps(value: Any, shared: dict[str, Any]) -> tuple[bytes, set[str]]:
    import io

    buffer = io.BytesIO()
    pickler = _SharingPickler(buffer, shared)
    pickler.dump(value)
    return buffer.getvalue(), pickler.used


def _loads(blob: bytes, shared: dict[str, Any]) -> Any:
    import io

    return _SharingUnpickler(io.BytesIO(blob), shared).load()


def _parameters(code: Any) -> tuple[list[str], str | None, list[str], str | None]:
    names = code.co_varnames
    positional = list(names[: code.co_argcount])
    keyword_only = list(names[code.co_argcount: code.co_argcount + code.co_kwonlyargcount])
    index = code.co_argcount + code.co_kwonlyargcount
    varargs = names[index] if code.co_flags & inspect.CO_VARARGS else None
    if varargs:
        index += 1
    varkw = names[index] if code.co_flags & inspect.CO_VARKEYWORDS else None
    return positional, varargs, keyword_only, varkw


def capture(targets: list[dict[str, str]], probe: str, args: dict[str, Any], out: str) -> dict[str, Any]:
    """Run the probe; record calls of each target at the CAPTURE_AT call numbers."""
    codes: dict[Any, str] = {}
    for target in targets:
        found = resolve(target["module"], target["qualname"])
        if found is not None:
            codes[found[0].__code__] = target["key"]
    counts: dict[str, int] = {}
    records: dict[str, list[bytes]] = {}
    uses: dict[str, set[str]] = {}
    shared: dict[str, Any] = {}

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        key = codes.get(frame.f_code)
        if key is None:
            return
        number = counts.get(key, 0)
        counts[key] = number + 1
        if number not in CAPTURE_AT:
            return
        positional, varargs, keyword_only, varkw = _parameters(frame.f_code)
        local = frame.f_locals
        call = {"args": [local[n] for n in positional] + list(local.get(varargs, ()) if varargs else ()),
                "kwargs": {**{n: local[n] for n in keyword_only}, **(local.get(varkw, {}) if varkw else {})}}
        with contextlib.suppress(Exception):  # an argument that cannot be pickled: this call gives no input
            blob, used = _dumps(call, shared)
            records.setdefault(key, []).append(blob)
            uses.setdefault(key, set()).update(used)

    module_name, _, function_name = probe.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    sys.setprofile(hook)
    try:
        function(**args)
    finally:
        sys.setprofile(None)
    files = {}
    for number, (key, blobs) in enumerate(sorted(records.items())):  # one file a function: a replay reads its own
        path = f"{out}.{number}"
        with open(path, "wb") as handle:
            pickle.dump({"records": {key: blobs}, "shared": {k: shared[k] for k in uses.get(key, ())}}, handle,
                        protocol=pickle.HIGHEST_PROTOCOL)
        files[key] = path
    return {"counts": counts, "recorded": {key: len(blobs) for key, blobs in records.items()}, "files": files}


# -- random variants ------------------------------------------------------------------------------


def _edge_values(np: Any, dtype: Any) -> Any:
    """Values where rounding and comparisons decide: zeros, ties at bf16 precision, large and tiny."""
    return np.array([0.0, -0.0, 1.0, -1.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -9, 2.0 ** -126, 448.0, 65504.0,
                     -1e4, 1e-8], dtype=np.float64).astype(dtype)


def _relocate(value: Any, old: str, new: str, depth: int = 0) -> Any:
    """The same structure with every path under ``old`` (the tree the calls were recorded in) moved
    under ``new`` (the tree replaying them): a function that compares a path argument with where its
    own module lives (``check_single_tree(root)``) must see its own tree in the copy too, or every
    mutant of it differs from the original on the recorded location alone."""
    import pathlib

    if depth > MAX_DEPTH or old == new:
        return value
    if isinstance(value, (str, pathlib.PurePath)):
        text = os.fspath(value)
        if text == old or text.startswith(old + os.sep):
            moved = new + text[len(old):]
            return type(value)(moved) if isinstance(value, pathlib.PurePath) else moved
        return value
    if isinstance(value, list):
        return [_relocate(v, old, new, depth + 1) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_relocate(v, old, new, depth + 1) for v in value)
    if isinstance(value, dict):
        return {k: _relocate(v, old, new, depth + 1) for k, v in value.items()}
    return value


def _vary(value: Any, rng: random.Random, edges: bool, depth: int = 0) -> Any:
    """The same structure with new floats: float arrays drawn normally at the original's scale (and,
    with ``edges``, one element in 16 an edge value); float scalars scaled by 0.5 .. 2. Integers,
    strings and objects (``self``, configs) are kept: they carry the shapes and the engine's state."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - an engine without NumPy
        np = None  # type: ignore[assignment]
    if depth > MAX_DEPTH:
        return value
    if np is not None and isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
        generator = np.random.default_rng(rng.getrandbits(63))
        finite = value[np.isfinite(value)].astype(np.float64)
        scale = float(np.std(finite)) if finite.size else 1.0
        centre = float(np.mean(finite)) if finite.size else 0.0
        fresh: Any = generator.normal(centre, scale or 1.0, size=value.shape)
        if edges:
            mask = generator.random(value.shape) < 1 / 16
            picks = generator.choice(_edge_values(np, np.float64), size=value.shape)
            fresh = np.where(mask, picks, fresh)
        with np.errstate(over="ignore"):
            return fresh.astype(value.dtype)
    if isinstance(value, float):
        return value * rng.uniform(0.5, 2.0)
    if np is not None and isinstance(value, np.floating):
        return type(value)(float(value) * rng.uniform(0.5, 2.0))
    if isinstance(value, list):
        return [_vary(v, rng, edges, depth + 1) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_vary(v, rng, edges, depth + 1) for v in value)
    return value


# -- fingerprints ---------------------------------------------------------------------------------


def fingerprint(value: Any, depth: int = 0) -> Any:
    """A JSON-able, bit-exact description of a value (arrays by dtype, shape and SHA-256 of their
    bytes; floats by their bits), with the sum of an array kept to show how far two results are."""
    try:
        import numpy as np
    except ImportError:  # pragma: no cover
        np = None  # type: ignore[assignment]
    if depth > MAX_DEPTH:
        return "<deep>"
    if np is not None and isinstance(value, np.ndarray):
        data = np.ascontiguousarray(value)
        total = float(data.astype(np.float64).sum()) if data.dtype.kind in "fiub" and data.size else None
        return {"array": data.dtype.str, "shape": list(data.shape),
                "sha256": hashlib.sha256(data.tobytes()).hexdigest()[:24], "sum": total}
    if np is not None and isinstance(value, np.generic):
        return fingerprint(np.asarray(value), depth)
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return {"float": struct.pack("<d", value).hex(), "value": repr(value)}
    if isinstance(value, bytes):
        return {"bytes": hashlib.sha256(value).hexdigest()[:24]}
    if isinstance(value, (list, tuple)):
        return [fingerprint(v, depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(json.dumps(fingerprint(v, depth + 1), sort_keys=True) for v in value)
    if isinstance(value, dict):
        return {str(k): fingerprint(v, depth + 1) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict):
        kept = {k: v for k, v in state.items() if not callable(v) or isinstance(v, type)}
        return {"object": type(value).__qualname__, "state": fingerprint(kept, depth + 1)}
    slots = getattr(type(value), "__slots__", None)
    if slots:
        return {"object": type(value).__qualname__,
                "state": fingerprint({s: getattr(value, s, None) for s in slots}, depth + 1)}
    return {"object": type(value).__qualname__}


def _outcome(function: Callable[..., Any], call: dict[str, Any]) -> Any:
    """What one call does: its return value and its arguments afterwards (in-place writes count)."""
    args, kwargs = call["args"], call["kwargs"]
    try:
        returned = function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - raising is an outcome too
        return {"raised": type(error).__name__}
    if isinstance(returned, dict):  # an observation: its provenance differs between trees by design,
        returned = {k: v for k, v in returned.items() if k not in PROVENANCE_KEYS}  # as vtgate compares it
    return {"returned": fingerprint(returned), "args_after": fingerprint(args), "kwargs_after": fingerprint(kwargs)}


def replay(module_name: str, qualname: str, capture_files: list[str], key: str, inputs: int,
           seed: int, seconds: float | None = None, recorded_in: str | None = None,
           tree: str | None = None) -> dict[str, Any]:
    """Print, as JSON, one fingerprint per input (the inputs are the same in every tree: the captured
    calls in order, then seeded variants of them), and whether each is repeatable in this tree.
    Paths under ``recorded_in`` (the tree the calls were captured in) are moved under ``tree``."""
    found = resolve(module_name, qualname)
    if found is None:
        return {"error": f"{module_name}.{qualname} is not a function this tree can call"}
    function, resolved = found
    calls: list[tuple[str, bytes, dict[str, Any]]] = []
    for path in capture_files:
        with open(path, "rb") as handle:
            data = pickle.load(handle)
        for blob in data["records"].get(key, []):
            calls.append((os.path.basename(path), blob, data["shared"]))
    results = []
    import time

    deadline = None if seconds is None else time.monotonic() + seconds
    for index in range(inputs if calls else 0):
        if deadline is not None and time.monotonic() > deadline and index >= len(calls):
            break  # the time budget is spent (every recorded call has run): the caller compares what ran
        source, blob, shared = calls[index % len(calls)]
        variant = index // len(calls)
        rng = random.Random(f"{seed}:{index}")
        try:
            call = _loads(blob, shared)
        except Exception as error:  # noqa: BLE001 - this tree cannot rebuild the recorded arguments
            results.append({"input": index, "source": source, "variant": variant,
                            "outcome": {"unpickle": type(error).__name__}, "repeatable": True})
            continue
        if recorded_in and tree:
            call = {"args": _relocate(call["args"], recorded_in, tree), "kwargs": _relocate(call["kwargs"], recorded_in, tree)}
        if variant:
            call = {"args": _vary(call["args"], rng, edges=variant % 2 == 0),
                    "kwargs": _vary(call["kwargs"], rng, edges=variant % 2 == 0)}
        first = json.dumps(_outcome(function, copy.deepcopy(call)), sort_keys=True)
        again = json.dumps(_outcome(function, copy.deepcopy(call)), sort_keys=True)
        results.append({"input": index, "source": source, "variant": variant, "outcome": json.loads(first),
                        "repeatable": first == again})
    return {"function": resolved, "calls": len(calls), "results": results}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vtgate.mutate.equivalence_entry")
    sub = parser.add_subparsers(dest="command", required=True)
    grab = sub.add_parser("capture")
    grab.add_argument("--targets", required=True, help="JSON list of {module, qualname, key}")
    grab.add_argument("--probe", required=True)
    grab.add_argument("--args", default="{}")
    grab.add_argument("--out", required=True)
    again = sub.add_parser("replay")
    again.add_argument("--module", required=True)
    again.add_argument("--qualname", required=True)
    again.add_argument("--key", required=True)
    again.add_argument("--inputs", type=int, required=True)
    again.add_argument("--seed", type=int, default=0)
    again.add_argument("--seconds", type=float, default=None, help="stop starting inputs after this long")
    again.add_argument("--recorded-in", default=None, help="the tree the calls were captured in")
    again.add_argument("--tree", default=None, help="the tree replaying them (paths under --recorded-in move here)")
    again.add_argument("captures", nargs="*")
    options = parser.parse_args(argv)
    real_stdout = os.dup(1)
    os.dup2(2, 1)  # the engine's own prints go to stderr; stdout carries one JSON document
    if options.command == "capture":
        document = capture(json.loads(options.targets), options.probe, json.loads(options.args), options.out)
    else:
        document = replay(options.module, options.qualname, options.captures, options.key, options.inputs,
                          options.seed, options.seconds, options.recorded_in, options.tree)
    sys.stdout.flush()
    with os.fdopen(real_stdout, "w", encoding="utf-8") as out:
        out.write(json.dumps(document) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
