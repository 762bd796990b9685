"""Recorded calls moved to their edges: the snapshot's ``boundaries`` group.

The other snapshot groups call the public API with arguments someone chose. This group lets the engine
choose them: a small workload (a model built and saved, loaded, quantized; every decoding path under
every bit-exact arm; the tokenizer, knobs and checkpoint helpers) runs under a profile hook that
records the first calls of every public function, method and constructor, with the arguments the
engine itself passed (the KV pools, block tables, contexts and scales ``paged_attention`` really gets,
the partial sums the kernels really see). Each recorded call is then replayed as recorded, and once
per edge of each argument, one argument at a time: an int at 0, -1 and one either side; a float at
signed zeros, infinities and NaN; an array with a NaN or an infinity in it, out-of-range or negative
indices, another dtype, another layout (Fortran order, strided, read-only), no rows, an extra axis; a
list emptied, cut, reversed, given as a tuple or an array; a dict emptied or given one key more; a
dataclass with one field moved. Every outcome is recorded like the rest of the snapshot (value by type,
shape, dtype and bytes, or the exception; the array arguments written to), so a change in how any
public callable treats an input at its edge turns the gate red, whether or not a contract names it.

Not replayed: functions that describe the engine's own files (their result changes with every edit of
the engine, not with behaviour), generator functions (a context manager's body runs at ``with``), and
calls whose arguments cannot be copied or hold more than ``MAX_BYTES`` of arrays. Not in the workload,
so never recorded: what returns the whole environment or a host's timings (``environment``,
``child_env``, the profiler), BLAS, the CLI (the ``cli`` group runs it), ``deserialize`` (its dicts
come back in the order of safetensors' hash map) and ``embedded_model`` (its cache file's bytes are the
NumPy version's ``savez``).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import numpy as np

RECORDS_PER_CALLABLE = 2  # the first call, and the first whose argument types or shapes differ from it
MAX_BYTES = 1 << 20  # arrays in one call's arguments
ARRAY_LIKE_ELEMENTS = 4096  # an array this small is also given as nested lists
# functions whose result is the engine's own location or source: no behaviour of an input's edge
SELF_DESCRIBING = frozenset({"provenance.package_dir", "provenance.source_info", "provenance.check_single_tree",
                             "model.generator_digest"})
CO_GENERATOR_LIKE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


@dataclasses.dataclass(frozen=True)
class Target:
    """A public callable as the hook meets it: its name, how a replay calls it, its parameters."""

    name: str  # module.function or module.Class.method
    call: Callable[..., Any]  # the function; for a method the class's function; for __init__ the class
    kind: str  # function | method | classmethod | init
    code: CodeType


@dataclasses.dataclass
class Record:
    target: Target
    shape: str  # the arguments' types and shapes (self and cls left out)
    positional: list[tuple[str, Any]]  # (name, value); self / cls first for methods
    keywords: list[tuple[str, Any]]


def targets(modules: list[Any]) -> dict[CodeType, Target]:
    """Every public function, method (``__call__`` and ``__init__`` too) and classmethod defined in
    ``modules``, by code object."""
    found: dict[CodeType, Target] = {}
    for module in modules:
        short = module.__name__.removeprefix("vtengine.")
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
                continue
            if inspect.isfunction(value):  # (a decorator's wrapper shares its code with every function it wraps)
                if f"{short}.{name}" not in SELF_DESCRIBING and not hasattr(value, "__wrapped__"):
                    found[value.__code__] = Target(f"{short}.{name}", value, "function", value.__code__)
            elif inspect.isclass(value) and not issubclass(value, BaseException):
                for attribute, member in sorted(vars(value).items()):
                    if attribute.startswith("_") and attribute not in ("__init__", "__call__"):
                        continue
                    kind = "classmethod" if isinstance(member, classmethod) else "method"
                    function = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                    if isinstance(member, staticmethod):
                        kind = "function"
                    if not inspect.isfunction(function) or hasattr(function, "__wrapped__"):
                        continue
                    call: Any
                    if attribute == "__init__":
                        kind, call = "init", value
                    else:
                        call = getattr(value, attribute) if kind != "method" else function
                    found[function.__code__] = Target(f"{short}.{name}.{attribute}", call, kind, function.__code__)
    return {code: target for code, target in found.items() if not code.co_flags & CO_GENERATOR_LIKE}


def _array_bytes(value: Any) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(_array_bytes(item) for item in value)
    if isinstance(value, dict):
        return sum(_array_bytes(item) for item in value.values())
    return 0


def shape_of(value: Any) -> str:
    """A recorded argument by its type and shape (what tells two recorded calls apart in a case id)."""
    if isinstance(value, np.ndarray):
        return f"ndarray[{value.dtype.name} {'x'.join(map(str, value.shape))}]"
    if isinstance(value, (list, tuple)):
        inner = sorted({shape_of(item) for item in value[:4]})
        return f"{type(value).__name__}[{len(value)}]({', '.join(inner)})"
    if isinstance(value, dict):
        return f"dict[{len(value)}]"
    if isinstance(value, np.dtype):  # by name: a dtype's Python type differs between NumPy versions
        return f"dtype {value.name}"
    if isinstance(value, (str, bool)) and len(str(value)) <= 24:  # an arm, a dtype's name, a flag: by value
        return f"{type(value).__name__} {value!r}"
    return type(value).__name__


class Recorder:
    """A profile hook that keeps copies of the first calls of each target (this thread only)."""

    def __init__(self, by_code: dict[CodeType, Target]) -> None:
        self.by_code = by_code
        self.records: list[Record] = []
        self.kept: dict[str, list[str]] = {}
        self.busy = False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call" or self.busy:
            return
        target = self.by_code.get(frame.f_code)
        if target is None:
            return
        self.busy = True  # what copying calls is not recorded
        try:
            self._keep(target, frame)
        finally:
            self.busy = False

    def _keep(self, target: Target, frame: FrameType) -> None:
        kept = self.kept.setdefault(target.name, [])
        if len(kept) >= RECORDS_PER_CALLABLE:
            return
        code, local = frame.f_code, frame.f_locals
        names = code.co_varnames[: code.co_argcount]
        kwonly = code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount]
        positional = [(name, local[name]) for name in names]
        keywords = [(name, local[name]) for name in kwonly]
        index = code.co_argcount + code.co_kwonlyargcount
        if code.co_flags & inspect.CO_VARARGS:
            positional += [(f"{code.co_varnames[index]}[{i}]", item) for i, item in enumerate(local[code.co_varnames[index]])]
            index += 1
        if code.co_flags & inspect.CO_VARKEYWORDS:
            keywords += sorted(local[code.co_varnames[index]].items())
        if target.kind == "init":
            positional = positional[1:]  # the object being made: a replay makes its own
        shape = "; ".join(f"{name}: {shape_of(value)}" for name, value in positional + keywords
                          if target.kind not in ("method", "classmethod") or name != positional[0][0])
        if shape in kept or _array_bytes([v for _, v in positional + keywords]) > MAX_BYTES:
            return
        try:
            record = Record(target, shape, copy.deepcopy(positional), copy.deepcopy(keywords))
        except Exception:  # noqa: BLE001 - an argument that cannot be copied (a thread pool): not replayed
            return
        kept.append(shape)
        self.records.append(record)


@contextlib.contextmanager
def recording(by_code: dict[CodeType, Target]) -> Iterator[Recorder]:
    recorder = Recorder(by_code)
    previous = sys.getprofile()
    sys.setprofile(recorder)
    try:
        yield recorder
    finally:
        sys.setprofile(previous)


# -- the edges of one argument ------------------------------------------------------------------------

def _with_flat(array: np.ndarray, index: int, value: Any) -> np.ndarray:
    edited = array.copy()
    edited.flat[index] = value
    return edited


def _float_array_edges(value: np.ndarray) -> list[tuple[str, Any]]:
    with np.errstate(all="ignore"):  # (the scaled copies overflow and underflow: that is their point)
        return _float_array_edges_quiet(value)


def _float_array_edges_quiet(value: np.ndarray) -> list[tuple[str, Any]]:
    edges: list[tuple[str, Any]] = [("NaN first", _with_flat(value, 0, np.nan)),
                                    ("+inf last", _with_flat(value, -1, np.inf)),
                                    ("all zero", np.zeros_like(value)),
                                    ("x 2**100", (value.astype(np.float64) * 2.0 ** 100).astype(value.dtype)),
                                    ("x 2**-140", (value.astype(np.float64) * 2.0 ** -140).astype(value.dtype))]
    # another width (not float16: how NumPy promotes it beside a float32 changed between 1.x and 2.x)
    other = np.float64 if value.dtype != np.float64 else np.float32
    edges.append((f"as {np.dtype(other).name}", value.astype(other)))
    if value.dtype == np.float32:  # float64 values between float32 neighbours: rounded once, or twice
        wide = value.astype(np.float64)
        edges.append(("as float64 off the float32 grid", np.nextafter(wide + wide * 2.0 ** -9, np.inf)))
    return edges


def _int_array_edges(value: np.ndarray) -> list[tuple[str, Any]]:
    top = int(value.max()) + 1
    edges: list[tuple[str, Any]] = [("first = its max + 1", _with_flat(value, 0, top)),
                                    ("last = its max + 1", _with_flat(value, -1, top))]
    if value.dtype.kind == "i":
        edges.append(("first = -1", _with_flat(value, 0, -1)))
    other = np.int32 if value.dtype != np.int32 else np.int64
    edges += [(f"as {np.dtype(other).name}", value.astype(other)), ("as float64", value.astype(np.float64))]
    return edges


def _array_edges(value: np.ndarray) -> list[tuple[str, Any]]:
    edges: list[tuple[str, Any]] = []
    if value.size and value.dtype.kind == "f" and value.dtype.itemsize >= 2 and value.dtype.name != "bfloat16":
        edges += _float_array_edges(value)
    elif value.size and value.dtype.kind == "f":  # bfloat16 and the fp8 types (ml_dtypes)
        edges += [("NaN first", _with_flat(value, 0, np.nan)), ("as float32", value.astype(np.float32))]
    elif value.size and value.dtype.kind in "iu":
        edges += _int_array_edges(value)
    elif value.size and value.dtype.kind == "b":
        edges.append(("first flipped", _with_flat(value, 0, not value.flat[0])))
    if value.ndim >= 2:
        edges.append(("Fortran order", np.array(value, order="F", copy=True)))
    if value.ndim >= 1 and value.size:
        strided = np.repeat(value, 2, axis=-1)[..., ::2]
        edges.append(("strided view", strided))
        edges.append(("no rows", value[:0]))
    if value.ndim >= 2:  # (a 1-d array one axis up is a scalar to int() in NumPy 1.x, an error in 2.x)
        edges.append(("one more axis", value.copy()[None]))
    frozen = value.copy()
    frozen.flags.writeable = False
    edges.append(("read-only", frozen))
    if value.size <= ARRAY_LIKE_ELEMENTS and value.dtype.kind in "biuf" and value.dtype.itemsize >= 2:
        edges.append(("as nested lists", value.tolist()))  # an array-like: what np.asarray would take
    return edges


def _int_list_edges(value: list[Any] | tuple[Any, ...]) -> list[tuple[str, Any]]:
    kind = type(value)
    top = max(int(item) for item in value) + 1
    return [("first = -1", kind([-1, *value[1:]])), ("first = its max + 1", kind([top, *value[1:]])),
            ("reversed", kind(value[::-1])), ("as ndarray", np.array(value, dtype=np.int64)),
            ("as tuple" if kind is list else "as list", (tuple if kind is list else list)(value))]


def _sequence_edges(value: list[Any] | tuple[Any, ...]) -> list[tuple[str, Any]]:
    kind = type(value)
    edges: list[tuple[str, Any]] = [("empty", kind())]
    if len(value) > 1:
        edges += [("first only", kind(value[:1])), ("last dropped", kind(value[:-1]))]
    if value and all(isinstance(item, (int, np.integer)) and not isinstance(item, bool) for item in value):
        edges += _int_list_edges(value)
    elif value and all(isinstance(item, (list, tuple)) for item in value):
        edges.append(("first emptied", kind([type(value[0])(), *value[1:]])))
    return edges


def _scalar_edges(value: Any) -> list[tuple[str, Any]]:
    edges: list[tuple[str, Any]] = []
    if isinstance(value, (bool, np.bool_)):
        return [("negated", not value)]
    if isinstance(value, (int, np.integer)):
        kind: Any = type(value)
        unsigned = kind is not int and np.dtype(kind).kind == "u"
        for n in dict.fromkeys([0, -1, int(value) - 1, int(value) + 1]):
            if n != value and not (unsigned and n < 0):
                edges.append((str(n), kind(n)))
        if kind is int:
            edges += [("as float", float(value)), ("as np.int64", np.int64(value)), ("as True", True)]
        return edges
    if isinstance(value, (float, np.floating)):
        same: Any = type(value)
        return [(text, same(number)) for text, number in (("0.0", 0.0), ("-0.0", -0.0), ("inf", np.inf),
                                                           ("-inf", -np.inf), ("NaN", np.nan), ("-x", -float(value)))]
    if isinstance(value, str):
        edges += [("empty", ""), ("with a trailing space", value + " "), ("with a non-ASCII letter", value + "\u00e9")]
        if value.upper() != value and os.sep not in value:  # a name's case (a path's is the file system's)
            edges.append(("upper case", value.upper()))
        return edges
    if isinstance(value, bytes):
        return [("empty", b""), ("half", value[: len(value) // 2])]
    return edges


def edges(value: Any) -> list[tuple[str, Any]]:
    """The edges of one argument: (label, value), each label unique, in a fixed order."""
    if isinstance(value, np.ndarray):
        return _array_edges(value)
    if isinstance(value, (list, tuple)):
        return _sequence_edges(value)
    if isinstance(value, dict):
        edited: list[tuple[str, Any]] = [("empty", {}), ("one key more", {**value, "snapshot_extra": 1})]
        if value:
            first = next(iter(value))
            edited.append((f"without {first!r}", {k: v for k, v in value.items() if k != first}))
        return edited
    if isinstance(value, Path):
        return [("a missing path", value / "snapshot-missing"), ("as str", str(value))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        moved: list[tuple[str, Any]] = []
        for field in dataclasses.fields(value):
            if not field.init:
                continue
            for label, new in _scalar_edges(getattr(value, field.name))[:2]:
                with contextlib.suppress(Exception):  # a field its constructor refuses: the constructor's own case
                    moved.append((f"{field.name}={label}", dataclasses.replace(value, **{field.name: new})))
        return moved
    return _scalar_edges(value)


# -- replay -------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Replay:
    """One call to make: its label, the function with its arguments bound, the arrays among them (to
    see which it writes) and the object a method ran on (to see what the call left in it)."""

    label: str
    call: Callable[[], Any]
    watch: tuple[np.ndarray, ...]
    owner: Any


def _bound(record: Record, index: int | None, keyword: str | None, value: Any) -> Replay:
    if not isinstance(value, np.ndarray):  # an array edge is already its own (and a copy loses its layout)
        value = copy.deepcopy(value)
    positional = [copy.deepcopy(v) for _, v in record.positional]
    keywords = {name: copy.deepcopy(v) for name, v in record.keywords}
    if index is not None:
        positional[index] = value
    if keyword is not None:
        keywords[keyword] = value
    target, owner = record.target, None
    if target.kind == "classmethod":
        positional = positional[1:]
    elif target.kind == "method":
        owner = positional[0]
    arrays = tuple(v for v in [*positional, *keywords.values()] if isinstance(v, np.ndarray))
    return Replay("", lambda: state_of(target.call(*positional, **keywords), 1), arrays, owner)


def replays(record: Record) -> Iterator[Replay]:
    """The recorded call on fresh copies of its arguments, then once per edge of each argument but
    ``self`` / ``cls`` (that argument replaced, the others as recorded)."""
    first = _bound(record, None, None, None)
    first.label = "as recorded"
    yield first
    skip_first = record.target.kind in ("method", "classmethod")
    for i, (name, value) in enumerate(record.positional):
        if not (skip_first and i == 0):
            for label, edge in edges(value):
                replay = _bound(record, i, None, edge)
                replay.label = f"{name} {label}"
                yield replay
    for name, value in record.keywords:
        for label, edge in edges(value):
            replay = _bound(record, None, name, edge)
            replay.label = f"{name} {label}"
            yield replay


def state_of(value: Any, depth: int = 2) -> Any:
    """An object's attributes, nested ``depth`` deep (what a constructor made, what a method left in the
    object it ran on); a dataclass, a module, a class or a function as it is."""
    if (depth and hasattr(value, "__dict__") and not dataclasses.is_dataclass(value) and not inspect.isroutine(value)
            and not inspect.ismodule(value) and not isinstance(value, type)):
        return {name: state_of(item, depth - 1) for name, item in sorted(vars(value).items())}
    if isinstance(value, (list, tuple)) and depth:
        return type(value)(state_of(item, depth - 1) for item in value)
    return value


@contextlib.contextmanager
def environment_kept() -> Iterator[list[bool]]:
    """Put the environment back after the block (through the knobs module, the one that touches it);
    the list says whether the block changed it."""
    from vtengine.knobs import environment, restore_environment

    saved = environment()
    changed = [False]
    try:
        yield changed
    finally:
        if environment() != saved:
            changed[0] = True
            restore_environment(saved)


# -- the workload whose calls are recorded --------------------------------------------------------------

WORKLOAD_KNOBS: tuple[dict[str, Any], ...] = (  # every bit-exact arm (never BLAS: its bits are the library's), and a KV block of 3
    {}, {"act_dtype": "f32", "kv_block_size": 3}, {"paged_attn_scalar_fma": True},
    {"paged_attn_scalar_fma": True, "act_dtype": "f32"}, {"paged_attn_bfdot": True},
    {"gemv_bf16_dot": True, "dequant_cache_mb": 0},
)


def workload(folder: Path) -> None:
    """What a caller does with the engine, small: a model generated, saved, loaded and quantized; every
    decoding path under each bit-exact arm; the tokenizer, knobs and checkpoint helpers."""
    from vtengine import checkpoint, numerics, tokenizer
    from vtengine.arms import arm, select_arms
    from vtengine.attention import BF16, paged_attention
    from vtengine.config import ModelConfig
    from vtengine.engine import Engine, top2_margin
    from vtengine.knobs import Knobs, running_in_ci, scoped_env
    from vtengine.kvcache import PagedKVCache
    from vtengine.model import Model, generate_tensors, hf_names, load_model
    from vtengine.provenance import source_tree_hash

    config = ModelConfig(name="edges", vocab_size=48, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=40,
                         max_context=24, seed=3)
    tensors = generate_tensors(config)
    hf_names(config)
    saved = checkpoint.save_checkpoint(folder / "ck", config, tensors)
    checkpoint.load_checkpoint(saved)
    hf = checkpoint.config_to_hf(config, "bfloat16")
    checkpoint.config_from_hf(hf)
    checkpoint.validate_tensors(config, tensors)
    checkpoint.expected_shapes(config)
    quantized = load_model(str(saved), cache_dir=folder / "cache", quantize=True)
    quantized.digest()
    quantized.dequantized_tensors()
    config.as_dict()
    source_tree_hash(saved)
    prompt = [1, 5, 9, 5, 9, 2, 47, 0]
    for index, changes in enumerate(WORKLOAD_KNOBS):
        model = quantized if index == len(WORKLOAD_KNOBS) - 1 else Model(config, tensors)
        engine = Engine(model, Knobs(**changes))
        try:
            engine.generate(prompt, 3)
            engine.generate_batch([prompt, prompt[:3]], 2)
            engine.score(prompt)
            engine.speculative(prompt * 2, 4)
            top2_margin(engine.forward_logits(prompt[:4]))
            engine.generate_recompute(prompt[:3], 2)
            engine.cache.counters()
        finally:
            engine.close()
    ids = tokenizer.encode("h\u00e9llo, world")
    tokenizer.decode(ids)
    tokenizer.check_vocab(260, config.name)
    with scoped_env({"VT_ACT_DTYPE": "f32", "VT_KV_BLOCK_SIZE": "4"}):
        knobs = Knobs.from_env()
    knobs.with_(cpu_threads=2)
    knobs.as_env()
    select_arms(knobs)
    arm("gemv", "default")
    ramp = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
    for function in (numerics.exp_f32, numerics.silu_f32, numerics.round_bf16, numerics.identity):
        function(ramp)
    numerics.sum_sequential(ramp, 1)
    numerics.fma_f32(ramp, ramp[::-1].copy(), ramp.T.copy().reshape(4, 6))
    codes, scales = numerics.quantize_fp8_blocks(ramp)
    numerics.dequantize_fp8_blocks(codes, scales)
    checkpoint.dequantize_fp8_blocks(codes, scales)
    checkpoint.fp8_scale_shape(ramp.shape)
    running_in_ci()
    # one sequence's keys and values written through the KV cache's own calls, attended to by each arm
    for dtype in (np.dtype(np.float32), BF16):
        kv = PagedKVCache(config, 4, 24, dtype)
        sequence = kv.new_sequence()
        kv.reserve(sequence, 7)
        positions = np.arange(7)
        rows = np.linspace(-2, 2, 7 * config.n_kv_heads * config.head_dim, dtype=np.float32)
        rows = rows.reshape(7, config.n_kv_heads, config.head_dim)
        kv.write(0, sequence.table(), positions, rows, rows[::-1].copy())
        q = np.linspace(1, -1, config.n_heads * config.head_dim, dtype=np.float32).reshape(config.n_heads, -1)
        for name in ("default", "scalar_fma", "bfdot", "scalar"):
            paged_attention(q, kv.k[0], kv.v[0], sequence.table(), 7, np.float32(0.25), name)
