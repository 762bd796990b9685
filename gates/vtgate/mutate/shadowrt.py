"""The runtime of a *shadow run* (``vtgate.mutate.shadow``): in a copy of the engine where a ledger
entry's function ``f`` is replaced by a wrapper, every call runs the original ``f`` (whose result the
engine goes on with) and then each mutant of ``f`` on a deep copy of the call's arguments as they were
before the call, and compares the two outcomes bit for bit: the value returned or the exception raised,
and the arguments as the call left them (a method's ``self`` included). What a mutant did differently
is written at once to a record file; so is the count of calls compared (at 1, 2, 4, 8, ...: a lower
bound), so a process that ends with ``os._exit`` (a fork server's child) loses no difference.

A shadow copy does not import this module: its preamble executes this file by its absolute path (the
copy may run under an interpreter where vtgate is not installed), so it uses the standard library only.

Record lines (JSON, one per event, appended): ``{"k": KEY, "e": "calls", "n": N, "p": PROCESS}``,
``{"k": KEY, "e": "differs", "d": DETAIL, "p": ...}`` and ``{"k": KEY, "e": "uncheckable", "d": WHY,
"p": ...}`` (the call could not be copied or compared: the entry gets no shadow verdict)."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import re
import struct
import sys
import threading
import types
from collections.abc import Callable
from typing import Any

_ATOMS = (type(None), bool, int, str, bytes, type(Ellipsis))
_NAMED = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type, types.MethodType)
MAX_DEPTH = 60


class Uncheckable(Exception):
    """A value this runtime cannot compare by content (a lock, a file, a C object without state it sees)."""


class ValuesOf(tuple):
    """Parts whose arrays ``fingerprint`` compares by values only (dtype, shape, elements), not by layout:
    a call's arguments, of which a deep copy keeps the values but not always the strides of a view."""


def fingerprint(value: Any) -> Any:
    """A nested tuple equal for two values exactly when they hold the same content: arrays by dtype,
    shape and bytes (so NaN payloads and signed zeros count), floats by their bits, containers in
    their order, objects by type and attributes, and the aliasing between parts (a second reference
    to an object already seen is ``("ref", n)``). An array's layout (strides, writability) counts,
except inside ``ValuesOf``. Raises Uncheckable for anything else."""
    seen: dict[int, int] = {}
    keep: list[Any] = []  # keeps the objects alive, so their ids stay unique while fingerprinting

    def walk(item: Any, depth: int, layout: bool = True) -> Any:
        if depth > MAX_DEPTH:
            raise Uncheckable(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, _ATOMS):
            return (type(item).__name__, item)
        if isinstance(item, float):
            return ("float", struct.pack("<d", item))
        if isinstance(item, complex):
            return ("complex", struct.pack("<dd", item.real, item.imag))
        bound = getattr(item, "__self__", None)
        if isinstance(item, (types.MethodType, types.BuiltinMethodType)) and bound is not None \
                and not isinstance(bound, types.ModuleType):  # a bound method: its object is state
            return ("method", getattr(item, "__qualname__", repr(item)), walk(bound, depth + 1, layout))
        if isinstance(item, _NAMED):
            return ("named", getattr(item, "__module__", None), getattr(item, "__qualname__", repr(item)))
        marker = id(item)
        if marker in seen:
            return ("ref", seen[marker])
        seen[marker] = len(seen)
        keep.append(item)
        kind = type(item)
        module = kind.__module__
        if module == "numpy" and kind.__name__ == "ndarray" or hasattr(item, "__array_interface__") \
                and hasattr(item, "tobytes") and hasattr(item, "dtype"):
            data = hashlib.sha256(item.tobytes(order="C")).hexdigest()
            laid = (tuple(item.strides), bool(item.flags["WRITEABLE"])) if layout else ()
            return ("array", kind.__qualname__, str(item.dtype), tuple(item.shape), laid, data)
        if module == "numpy" and hasattr(item, "dtype") and hasattr(item, "tobytes"):  # a NumPy scalar
            return ("scalar", str(item.dtype), item.tobytes())
        if kind.__name__ == "dtype" and module == "numpy":
            return ("dtype", str(item))
        if isinstance(item, ValuesOf):
            return ("values", tuple(walk(x, depth + 1, False) for x in item))
        if isinstance(item, (list, tuple)):
            return (kind.__qualname__, tuple(walk(x, depth + 1, layout) for x in item))
        if isinstance(item, dict):
            return (kind.__qualname__, tuple((walk(k, depth + 1, layout), walk(v, depth + 1, layout)) for k, v in item.items()))
        if isinstance(item, (set, frozenset)):
            return (kind.__qualname__, tuple(sorted(repr(walk(x, depth + 1, layout)) for x in item)))
        if isinstance(item, BaseException):
            return ("exception", kind.__module__, kind.__qualname__, walk(item.args, depth + 1, layout))
        if hasattr(item, "bit_generator") and hasattr(item.bit_generator, "state"):  # numpy.random.Generator
            return ("generator", kind.__qualname__, walk(item.bit_generator.state, depth + 1, layout))
        if hasattr(item, "getstate") and kind.__module__ == "random":  # random.Random
            return ("random", walk(item.getstate(), depth + 1, layout))
        if isinstance(item, os.PathLike):
            return ("path", kind.__qualname__, os.fspath(item))
        state: list[Any] = []
        if hasattr(item, "__dict__"):
            state.append(walk(vars(item), depth + 1, layout))
        for klass in kind.__mro__:
            for slot in getattr(klass, "__slots__", ()):
                if isinstance(slot, str) and slot not in ("__dict__", "__weakref__") and hasattr(item, slot):
                    state.append((slot, walk(getattr(item, slot), depth + 1, layout)))
        if not state and kind.__module__ == "builtins" and kind not in (object,):
            raise Uncheckable(f"a {kind.__qualname__} (no state this check can read)")
        if not state and not hasattr(item, "__dict__") and kind is not object:
            raise Uncheckable(f"a {kind.__module__}.{kind.__qualname__} (no state this check can read)")
        return ("object", module, kind.__qualname__, tuple(state))

    return walk(value, 0)


def first_difference(mine: Any, theirs: Any, where: str = "") -> str:
    """Where two fingerprints part, for the record: ``result[2]: array float32 (4, 8)``."""
    if type(mine) is not tuple or type(theirs) is not tuple or len(mine) != len(theirs) or not mine \
            or mine[0] != theirs[0]:
        return f"{where or 'the value'}: {_shown(mine)} vs {_shown(theirs)}"
    if mine[0] in ("array", "scalar", "float", "complex", "dtype") or mine[0] in ("int", "str", "bool"):
        return f"{where or 'the value'}: {_shown(mine)} vs {_shown(theirs)}"
    for index, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        if a != b:
            return first_difference(a, b, f"{where}[{index}]" if where else f"[{index}]")
    return where or "the value"


def _shown(part: Any) -> str:
    if type(part) is tuple and part and part[0] == "array":
        return f"array {part[2]} {part[3]} sha256 {part[5][:12]}"
    if type(part) is tuple and part and part[0] == "float":
        return f"float {struct.unpack('<d', part[1])[0]!r}"
    text = repr(part)
    return text if len(text) <= 160 else text[:157] + "..."


def _renamed_message(error: BaseException) -> str:
    """An exception's text with the shadow copy's renamings undone (``_vtshadow_m0_f() got ...`` is
    Python naming the renamed function a caller knows as ``f``)."""
    return re.sub(r"_vtshadow_(?:o|m\d+)_", "", str(error))


_IMMUTABLE = (type(None), bool, int, float, complex, str, bytes, range, type)


def _immutable(value: Any) -> bool:
    """A value no code can change in place: Python's atoms, ranges, types, NumPy scalars and dtypes, and
    tuples of them (NumPy is looked up only if the engine imported it: this runtime needs none)."""
    if isinstance(value, _IMMUTABLE):
        return True
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, (numpy.generic, numpy.dtype)):
        return True
    return isinstance(value, tuple) and all(_immutable(item) for item in value)


def _interchangeable(mine: Any, theirs: Any, fresh: bool, iterated: bool) -> str | None:
    """None when a program that goes on with ``theirs`` instead of ``mine`` behaves the same (the rules
    in ``vtgate.mutate.shadowexpr``); else how they differ. Raises Uncheckable when it cannot decide."""
    if mine is theirs:
        return None
    if type(mine) is not type(theirs):
        return f"a {type(mine).__name__} vs a {type(theirs).__name__}"
    if isinstance(mine, range):
        same = tuple(mine) == tuple(theirs) if iterated else (mine.start, mine.stop, mine.step) == (
            theirs.start, theirs.stop, theirs.step)
        return None if same else f"{mine!r} vs {theirs!r}"
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(mine, numpy.dtype):
        return None if (mine == theirs and str(mine) == str(theirs)) else f"dtype {mine} vs {theirs}"
    if isinstance(mine, BaseException):
        same = fingerprint(mine) == fingerprint(theirs)
        return None if same else f"raised {type(mine).__name__}{mine.args!r} vs {theirs.args!r}"
    if _immutable(mine) and _immutable(theirs):
        a, b = fingerprint(mine), fingerprint(theirs)
        return None if a == b else first_difference(a, b)
    if not fresh:
        raise Uncheckable(f"a {type(mine).__name__} that the expression may share with other code")
    a, b = fingerprint(mine), fingerprint(theirs)
    if a != b:
        return first_difference(a, b)
    layout = [(getattr(v, "strides", None), bool(getattr(getattr(v, "flags", None), "writeable", True))) for v in (mine, theirs)]
    return None if layout[0] == layout[1] else f"the same values, laid out otherwise ({layout[0]} vs {layout[1]})"


class Shadow:
    """The callable a shadow copy's wrappers call: ``shadow(keys, original, mutants, args, kwargs)``."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.lock = threading.Lock()
        self.inside = threading.local()
        self._reset()

    def _reset(self) -> None:
        self.pid = os.getpid()
        self.process = f"{self.pid}-{os.urandom(4).hex()}"
        self.calls: dict[str, int] = {}
        self.done: set[str] = set()  # a difference or an uncheckable call was recorded: mutant no longer run

    def _record(self, key: str, event: str, **fields: Any) -> None:
        line = json.dumps({"k": key, "e": event, "p": self.process, **fields}) + "\n"
        path = os.path.join(self.folder, f"{self.pid}.jsonl")
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(descriptor, line.encode("utf-8"))
        finally:
            os.close(descriptor)

    def __call__(self, keys: tuple[str, ...], original: Callable[..., Any], mutants: tuple[Callable[..., Any], ...],
                 args: tuple[Any, ...], kwargs: dict[str, Any], watches: tuple[str, ...] = ()) -> Any:
        """``watches[i]``, when set, is the expression target that mutant ``i`` backs up: until that
        expression has differed (or could not be checked) in this process, every evaluation of it was
        the same, so the call's mutant is not run (the call still counts); from then on it is."""
        if getattr(self.inside, "active", False):  # inside a mutant: the functions it calls run as they are
            return original(*args, **kwargs)
        watching = dict(zip(keys, watches or ("",) * len(keys), strict=True))
        with self.lock:
            if os.getpid() != self.pid:  # a forked child: its records are its own
                self._reset()
            wanted = [(key, mutant) for key, mutant in zip(keys, mutants, strict=True) if key not in self.done]
        pristine: Any = None
        why = ""
        if wanted:
            try:
                pristine = copy.deepcopy((args, kwargs))
            except Exception as error:  # noqa: BLE001 - what cannot be copied cannot be compared
                why = f"the arguments cannot be deep-copied ({type(error).__name__}: {error})"
        raised: BaseException | None = None
        try:
            result = original(*args, **kwargs)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - compared, then raised again
            raised, result = error, None
        if wanted:
            with self.lock:  # read after the call: a difference during it makes the call one to compare
                vouched = [key for key, _ in wanted if watching[key] and watching[key] not in self.done]
            for key in vouched:
                self._count(key)
            wanted = [(key, mutant) for key, mutant in wanted if key not in vouched]
        if wanted:
            self._compare(wanted, pristine, why, raised, result, args, kwargs)
        if raised is not None:
            raise raised
        return result

    def _compare(self, wanted: list[tuple[str, Callable[..., Any]]], pristine: Any, why: str,
                 raised: BaseException | None, result: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        expected: Any = None
        if not why:
            try:
                expected = fingerprint((("raised", raised) if raised is not None else ("returned", result),
                                        ValuesOf((args, kwargs))))
            except Uncheckable as error:
                why = f"the outcome cannot be compared: {error}"
        for index, (key, mutant) in enumerate(wanted):
            if why:
                self._finish(key, "uncheckable", why)
                continue
            call = pristine if index == len(wanted) - 1 else copy.deepcopy(pristine)
            outcome = self._run_mutant(lambda: mutant(*call[0], **call[1]))  # noqa: B023 - called at once
            if outcome[0] == "raised" and raised is not None and type(outcome[1]) is type(raised) \
                    and _renamed_message(outcome[1]) == _renamed_message(raised):
                outcome = ("raised", raised)  # the same error, named after the renamed copy it came from
            try:
                got = fingerprint((outcome, ValuesOf((call[0], call[1]))))
            except Uncheckable as error:
                self._finish(key, "uncheckable", f"the mutant's outcome cannot be compared: {error}")
                continue
            if got != expected:
                parts = ("the outcome", "the positional arguments after the call", "the keyword arguments after the call")
                # ("tuple", (outcome, ("values", (args, kwargs)))) -> [outcome, args, kwargs]
                mine, theirs = ([fp[1][0], *fp[1][1][1]] for fp in (expected, got))
                part = next((i for i in range(3) if mine[i] != theirs[i]), 0)
                where = first_difference(mine[part], theirs[part])
                self._finish(key, "differs", f"call {self.calls.get(key, 0) + 1}: {parts[part]} differ ({where})")
                continue
            self._count(key)

    def _count(self, key: str) -> None:
        """One more call (or evaluation) found the same; recorded at 1, 2, 4, 8, ..."""
        with self.lock:
            count = self.calls[key] = self.calls.get(key, 0) + 1
        if count & (count - 1) == 0:
            self._record(key, "calls", n=count)

    def _run_mutant(self, run: Callable[[], Any]) -> tuple[str, Any]:
        """``("returned", value)`` or ``("raised", error)``; what the mutant calls runs unshadowed."""
        self.inside.active = True
        try:
            return "returned", run()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - an exception is an outcome
            return "raised", error
        finally:
            self.inside.active = False

    def _finish(self, key: str, event: str, detail: str) -> None:
        with self.lock:
            if key in self.done:
                return
            self.done.add(key)
        self._record(key, event, d=detail)

    def expr(self, keys: tuple[str, ...], original: Callable[[], Any], mutants: tuple[Callable[[], Any], ...],
             fresh: tuple[bool, ...], iterated: bool) -> Any:
        """Expression targets at one place (``vtgate.mutate.shadowexpr``): evaluate the original
        expression (the engine goes on with its value or its exception), then each mutated one in the
        same scope, and compare the outcomes."""
        try:
            value: Any = original()
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 - compared, then raised again
            for key, mutant, new in zip(keys, mutants, fresh, strict=True):
                self._expr_compare(key, ("raised", error), mutant, new, iterated)
            raise
        for key, mutant, new in zip(keys, mutants, fresh, strict=True):
            self._expr_compare(key, ("returned", value), mutant, new, iterated)
        return value

    def _expr_compare(self, key: str, expected: tuple[str, Any], mutant: Callable[[], Any], fresh: bool,
                      iterated: bool) -> None:
        if getattr(self.inside, "active", False):
            return
        with self.lock:
            if os.getpid() != self.pid:
                self._reset()
            if key in self.done:
                return
        got = self._run_mutant(mutant)
        number = self.calls.get(key, 0) + 1
        if expected[0] != got[0]:
            shown = [f"{kind} {type(v).__name__}" for kind, v in (expected, got)]
            self._finish(key, "differs", f"evaluation {number}: the original {shown[0]}, the mutant {shown[1]}")
            return
        try:
            why = _interchangeable(expected[1], got[1], fresh, iterated)
        except Uncheckable as error:
            self._finish(key, "uncheckable", f"evaluation {number}: {error}")
            return
        if why is not None:
            self._finish(key, "differs", f"evaluation {number}: {why}")
            return
        self._count(key)

    @staticmethod
    def wraps(wrapper: Callable[..., Any], original: Callable[..., Any], name: str) -> None:
        """The wrapper looks like the original to introspection (name, qualname, doc, signature)."""
        wrapper.__name__ = name
        wrapper.__qualname__ = original.__qualname__.replace(f"_vtshadow_o_{name}", name)
        wrapper.__doc__ = original.__doc__
        wrapper.__module__ = original.__module__
        wrapper.__wrapped__ = original  # type: ignore[attr-defined]
