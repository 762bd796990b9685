"""A snapshot of the public API over a seeded corpus of calls: each call's outcome as one short text.

The families (:mod:`vtengine.families`) check what someone wrote down as a contract; the property
layer (:mod:`vtengine.properties`) checks the numbers against a float64 reference. Both see only what
their authors thought of. A snapshot needs no spec: it calls the public functions over a corpus of
inputs drawn pairwise from pools of ordinary and edge values (model shapes, knob rows, prompts,
checkpoint configs, texts, arrays with zeros, subnormals, infinities and NaN, call sequences on one
engine), and records what came back: the value described by its types, shapes, dtypes and a digest
of its bytes, or the exception's type (and its message when the engine's own ``raise`` wrote it).
Pinned as a golden (the ``snapshot`` gate kind), any change of what a caller can observe on the
corpus turns the gate red and names the calls, whether or not a contract covers it; a deliberate
change is re-blessed with a reason, like every golden.

Only what the engine promises to be portable is recorded: the bit-exact arms (never BLAS), no
timings, no thread or process ids, temporary paths written as ``<tmp>``, and exception messages only
from the engine's own ``raise`` statements (a NumPy or Python message may change between versions).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import io
import json
import linecache
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from vtengine import checkpoint, numerics, processstate, tokenizer
from vtengine.arms import select_arms
from vtengine.attention import BF16, gather_kv, paged_attention, paged_attention_rows
from vtengine.config import ModelConfig
from vtengine.dequant import DequantCache
from vtengine.draws import KNOB_VALUES, pairwise
from vtengine.engine import Engine, propose_ngram, top2_margin
from vtengine.gemv import Linear, gemv_bf16_dot, gemv_default
from vtengine.knobs import (
    Knobs,
    child_env,
    environment,
    inherited_environment,
    restore_environment,
    running_in_ci,
    scoped_env,
    unset,
)
from vtengine.model import Model, generate_tensors, hf_names, load_model
from vtengine.profiler import STAGES, Profiler
from vtengine.provenance import MixedImportsError, check_single_tree, package_dir, source_tree_hash

BRIEF_CHARS = 200  # an outcome longer than this is cut to its head plus a digest of the whole
PACKAGE = str(Path(__file__).resolve().parent)
FP8 = np.dtype("float8_e4m3fn")

# float32 values a kernel meets at its edges: signed zeros, subnormals, the normal minimum, rounding
# ties at bf16 precision, fp8-e4m3's and float16's maxima and one past, exp's float32 and float64
# overflow and underflow points, the largest finite float32, infinities and NaN
EDGE_F32 = np.array([
    0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -2.5, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, 1e-45, -1e-45, 1.1754944e-38,
    1e-8, 1.0 / 3.0, math.pi, 448.0, 464.0, 480.0, 65504.0, 88.72, 89.0, -87.0, -104.0, 709.0, 710.0, -745.0,
    1e4, -1e4, 3.4028235e38, -3.4028235e38, np.inf, -np.inf, np.nan,
], dtype=np.float32)


# -- outcomes -------------------------------------------------------------------------------------------

def canon(value: Any, tmp: str = "") -> str:
    """A canonical text of ``value``: its types (a NumPy integer is not an ``int``), an array's dtype,
    shape and a digest of its bytes, containers item by item, dataclasses field by field."""
    if value is None or type(value) in (bool, int, float, complex):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}:{canon(value.value, tmp)}"
    if isinstance(value, np.dtype):  # by name: the dtype's Python type differs between NumPy versions
        return f"dtype:{value.name}"
    if isinstance(value, np.generic):
        return f"np.{type(value).__name__}:{_one_nan(np.asarray(value)).tobytes().hex()}"
    if isinstance(value, str):
        text = value.replace(tmp, "<tmp>") if tmp else value
        return f"str:{json.dumps(text)}"
    if isinstance(value, bytes):
        return f"bytes[{len(value)}]:{hashlib.sha256(value).hexdigest()[:16]}"
    if isinstance(value, np.ndarray):
        data = _one_nan(np.ascontiguousarray(value))
        body = data.view(np.uint8).tobytes() if data.dtype.kind != "O" else repr(data.tolist()).encode()
        return f"ndarray[{data.dtype.str} {'x'.join(map(str, data.shape))}]:{hashlib.sha256(body).hexdigest()[:16]}"
    if isinstance(value, Path):
        return f"Path:{canon(str(value), tmp)}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = ", ".join(f"{f.name}={canon(getattr(value, f.name), tmp)}" for f in dataclasses.fields(value))
        return f"{type(value).__name__}({fields})"
    if isinstance(value, dict):  # in the dict's own order: iteration order is what a caller sees
        return "{" + ", ".join(f"{canon(k, tmp)}: {canon(v, tmp)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__}[{len(value)}](" + ", ".join(canon(v, tmp) for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}(" + ", ".join(sorted(canon(v, tmp) for v in value)) + ")"
    return f"<{type(value).__module__}.{type(value).__qualname__}>"


def _one_nan(data: np.ndarray) -> np.ndarray:
    """``data`` with every NaN the same quiet NaN: which sign and payload bits an operation leaves in a
    NaN is the SIMD path's choice (NumPy 2.4 and 1.26 differ on the same sums), no caller's concern."""
    try:
        nan = np.isnan(data)
    except TypeError:  # not a float dtype
        return data
    if not nan.any():
        return data
    data = data.copy()
    data[nan] = np.nan
    return data


def brief(text: str) -> str:
    """``text`` when short; otherwise its head and a digest of the whole (so two outcomes that differ
    anywhere still differ, and the head shows where a reader starts)."""
    if len(text) <= BRIEF_CHARS:
        return text
    return f"{text[:BRIEF_CHARS - 30]}... sha256:{hashlib.sha256(text.encode()).hexdigest()[:16]}"


def _own_message(error: BaseException) -> bool:
    """The message is the engine's own: the innermost frame is in vtengine and is a ``raise``."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return False
    filename = tb.tb_frame.f_code.co_filename
    if not os.path.realpath(filename).startswith(PACKAGE):
        return False
    return linecache.getline(filename, tb.tb_lineno).lstrip().startswith("raise ")


def raised(error: BaseException, tmp: str = "") -> str:
    name = type(error).__qualname__
    if type(error).__module__.startswith("vtengine") or _own_message(error):
        message = str(error).replace(tmp, "<tmp>") if tmp else str(error)
        return brief(f"raises {name}: {message}")
    return f"raises {name}"


def _crossing(error: BaseException) -> str:
    """What the exception loses on its way to another process or into a copy: a pool's worker reports it
    pickled, and pickle and ``copy`` rebuild it as ``type(error)(*error.args)`` plus its ``__dict__``.
    Empty when both give back the same type, message and arguments."""
    import copy
    import pickle

    problems = []
    for how, trip in (("a pickle round trip", lambda e: pickle.loads(pickle.dumps(e))), ("copy.copy", copy.copy)):
        try:
            back = trip(error)
            same = type(back) is type(error) and str(back) == str(error) and canon(back.args) == canon(error.args)
        except Exception as failure:  # noqa: BLE001 - how it fails is the finding
            problems.append(f"{how} raises {type(failure).__name__}")
            continue
        if not same:
            problems.append(f"{how} gives another exception")
    return f"; {', '.join(problems)}" if problems else ""


_REPORTED: list[str] = []  # what Python reported but no caller could catch, while the corpus runs


def _note_unraisable(event: Any) -> None:
    """``sys.unraisablehook``: an exception in a ``__del__``, a finalizer or a callback, which Python
    prints as "Exception ignored in" and the caller never sees."""
    where = getattr(event.object, "__qualname__", None) or type(event.object).__name__
    _REPORTED.append(f"unraisable {type(event.exc_value).__name__} in {where}")


def _note_thread_exception(args: Any) -> None:
    """``threading.excepthook``: an exception that ended a thread (printed, never raised to a caller)."""
    _REPORTED.append(f"a thread ended by {args.exc_type.__name__}")


@contextlib.contextmanager
def _reported() -> Iterator[None]:
    """Note unraisable exceptions and exceptions that end threads while the corpus runs."""
    import sys
    import threading

    saved = sys.unraisablehook, threading.excepthook
    sys.unraisablehook, threading.excepthook = _note_unraisable, _note_thread_exception
    try:
        yield
    finally:
        sys.unraisablehook, threading.excepthook = saved
        _REPORTED.clear()


def _collected() -> list[str]:
    """A full garbage collection: what it reported (a finalizer of an object in a cycle)."""
    import gc

    gc.collect()
    found = sorted(_REPORTED)
    _REPORTED.clear()
    return found


def outcome(call: Callable[[], Any], tmp: str = "", watch: tuple[np.ndarray, ...] = (), again: bool = False) -> str:
    """Run ``call`` and describe what a caller observes: the value or the exception, and which of the
    ``watch`` arrays (its array arguments) it wrote to. With ``again``, the caller then edits what it
    got (appends to its lists, writes its arrays, adds to its dicts) and calls once more: a second
    result that differs says the first was not the caller's own (a shared cache, a held buffer)."""
    before = [canon(a) for a in watch]
    value: Any = None
    try:
        with np.errstate(all="ignore"):  # an overflow is part of the outcome (inf), not a warning
            value = call()
            first = canon(value, tmp)
        text = "ok " + brief(first)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - what the caller sees is the outcome
        text, again = raised(error, tmp) + _crossing(error), False
    written = [i for i, (a, was) in enumerate(zip(watch, before, strict=True)) if canon(a) != was]
    text += f"; wrote argument {written}" if written else ""
    if again:
        _scribble(value)
        try:
            with np.errstate(all="ignore"):
                second = canon(call(), tmp)
        except Exception as error:  # noqa: BLE001
            second = raised(error, tmp)
        if second != first:
            text += "; a second call differs once the first result was edited: " + brief(second)
    if _REPORTED:  # the call's own objects are gone by now (the exception and its frames included)
        text += "; reported, not raised: " + ", ".join(sorted(_REPORTED))
        _REPORTED.clear()
    return text


def _scribble(value: Any) -> None:
    """Edit ``value`` in place as a caller may: lists grow, writable arrays are overwritten, dicts get a
    key, containers and dataclass fields are edited through."""
    if isinstance(value, list):
        for item in value:
            _scribble(item)
        value.append(-12345)
    elif isinstance(value, dict):
        for item in value.values():
            _scribble(item)
        value["(edited by the caller)"] = -12345
    elif isinstance(value, tuple):
        for item in value:
            _scribble(item)
    elif isinstance(value, np.ndarray):
        if value.flags.writeable and value.size:
            value[...] = np.array(7).astype(value.dtype)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            _scribble(getattr(value, field.name))


# -- the corpus -------------------------------------------------------------------------------------------

class Corpus:
    """Cases by id, in the order they ran; each id names its group, index and inputs."""

    def __init__(self, tmp: str) -> None:
        self.tmp = tmp
        self.cases: dict[str, str] = {}

    def add(self, case: str, function: Callable[..., Any], *args: Any, watch: tuple[np.ndarray, ...] = (),
            again: bool = False, **kwargs: Any) -> str:
        """Call ``function(*args, **kwargs)`` and record its outcome as ``case`` (``again``: and whether a
        second call's result depends on the caller's edits to the first's)."""
        if case in self.cases:
            raise ValueError(f"snapshot case {case!r} twice")
        self.cases[case] = text = outcome(partial(function, *args, **kwargs), self.tmp, watch, again)
        return text


def _edge_array(rng: np.random.Generator, shape: tuple[int, ...], edges: bool) -> np.ndarray:
    values = rng.standard_normal(shape).astype(np.float32) * np.float32(3)
    if edges and values.size:
        picks = rng.random(shape) < 0.35
        values[picks] = rng.choice(EDGE_F32, size=int(picks.sum()))
    return values


ARRAY_SHAPES = ((0,), (1,), (7,), (3, 5), (2, 130), (129, 2), (1, 300), (4, 4, 3))


def _requantized(x: np.ndarray) -> np.ndarray:
    return numerics.dequantize_fp8_blocks(*numerics.quantize_fp8_blocks(x))


def _round_trip(text: str) -> str:
    return tokenizer.decode(tokenizer.encode(text))


def numerics_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    rows = pairwise({"shape": tuple(str(i) for i in range(len(ARRAY_SHAPES))), "edges": ("0", "1"),
                     "dtype": ("float32", "float16", "float64", "int32"), "order": ("C", "F", "strided")}, rng)
    for i, row in enumerate(rows):
        shape = ARRAY_SHAPES[int(row["shape"])]
        base = _edge_array(rng, shape, row["edges"] == "1")
        with np.errstate(over="ignore"):  # float16 overflows to inf: an input the kernels must take
            x = base.astype(row["dtype"]) if row["dtype"] != "int32" else np.nan_to_num(base).clip(-99, 99).astype(np.int32)
        if row["order"] == "F":
            x = np.asfortranarray(x)
        elif row["order"] == "strided" and x.ndim:
            x = np.repeat(x, 2, axis=-1)[..., ::2]
        tag = f"{i:02d} {row['dtype']} {'x'.join(map(str, shape))} {row['order']}{' edges' if row['edges'] == '1' else ''}"
        corpus.add(f"numerics/round_bf16 {tag}", numerics.round_bf16, x, watch=(x,), again=True)
        corpus.add(f"numerics/exp_f32 {tag}", numerics.exp_f32, x, watch=(x,))
        corpus.add(f"numerics/silu_f32 {tag}", numerics.silu_f32, x, watch=(x,), again=True)
        if x.dtype != np.float16:  # float32's kernel: a float16 sum's dtype is NumPy's promotion rule (changed in 2.0)
            for axis in range(-1, x.ndim):
                corpus.add(f"numerics/sum_sequential axis={axis} {tag}", numerics.sum_sequential, x, axis, watch=(x,))
        y, z = _edge_array(rng, shape, True), _edge_array(rng, shape[-1:], row["edges"] == "1")
        corpus.add(f"numerics/fma_f32 {tag}", numerics.fma_f32, x, y, z, watch=(x, y, z))
        if x.ndim == 2:
            corpus.add(f"numerics/quantize_fp8_blocks {tag}", numerics.quantize_fp8_blocks, x, watch=(x,), again=True)
            corpus.add(f"numerics/dequantize(quantize) {tag}", _requantized, x)
            corpus.add(f"numerics/top2_margin {tag}", top2_margin, x, watch=(x,))
    for i, (m, k, n) in enumerate(((1, 1, 2), (1, 3, 2), (2, 5, 3), (3, 8, 7), (1, 129, 4), (4, 33, 130))):
        for edges in (False, True):
            x, w_t = _edge_array(rng, (m, k), edges), _edge_array(rng, (k, n), edges)
            for name, kernel in (("gemv_default", gemv_default), ("gemv_bf16_dot", gemv_bf16_dot)):
                corpus.add(f"numerics/{name} {i} {m}x{k}x{n}{' edges' if edges else ''}", kernel, x, w_t,
                           watch=(x, w_t))
    corpus.add("numerics/fma_f32 next to float32 midpoints, against exact rationals", _fma_against_exact,
               *fma_hard_cases())
    rounding_cases(corpus)
    histories = [[], [1], [1, 2, 1, 2, 1], [3, 3, 3, 3], [5, 6, 7, 5, 6, 7, 5, 6], [0, 1, 0, 2, 0, 1, 0]]
    for i, history in enumerate(histories):
        for ngram in (0, 1, 2, 3, 9):
            for max_draft in (-1, 0, 1, 4):
                corpus.add(f"numerics/propose_ngram {i} n={ngram} d={max_draft}",
                           propose_ngram, list(history), ngram, max_draft)


# texts by the classes a text path breaks on: empty and whitespace, controls, line ends of every
# platform, 2-, 3- and 4-byte UTF-8, one character in both Unicode normal forms (composed and
# decomposed), compatibility forms (ligature, full width, superscript), case pairs that change length,
# joiners, selectors and flags, bidirectional controls, noncharacters, private use, a lone surrogate,
# the tokenizer's own markers as text, and a long run
TEXTS = ("", "a", "hello world", "   ", "  leading and trailing  ", "tab\tnew\nline\r\n", "a\rb\x0bc\x0cd\x85e",
         "\x00nul", "\x1b[31mred", "é", "héllo ✓", "cafe\u0301", "caf\u00e9", "A\u030a \u00c5 \u212b",
         "\u1100\u1161\u11a8 \uac01", "\ufb01 \uff21\uff11 \u00b2", "\u0130 \u0131 \u00df \u1e9e \u03c2",
         "日本語のテキスト", "emoji 🙂👍🏽", "\U0001f468\u200d\U0001f469\u200d\U0001f467 \U0001f1eb\U0001f1f7 \u2603\ufe0f",
         "\u202eabc\u202c \u200f", "\u2028\u2029", "\u200b\ufeff", "\ufeffbom", "\ue000 \uffff \U0010ffff",
         "\ud800", "<bos>", "<eos><pad><256>", "%s {} \\ \" '", "a" * 300, "ÿ\x7f\x80", "mixed ascii and ünïcödé")
ID_LISTS: tuple[list[int], ...] = ([], [0], [255], [256], [257], [258], [259], [-1], [104, 195, 169], [195], [0xE2, 0x9C],
            [256, 104, 105, 257, 258], [511], [10**6], [72, 105, 0, 33],
            # invalid UTF-8 by kind: overlong, an encoded surrogate, a cut 4-byte sequence, a lone
            # continuation byte, 0xFF, the largest code point and one past it, a special inside a sequence
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98], [0x80, 0x41], [0xFF, 0xFE], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80], [0xE2, 256, 0x9C, 0x93])


def _fresh_in_turn(kind: str) -> Any:
    """96 calls, each on a new argument built just before it from bytes made beforehand, the previous
    argument and result freed first (so the allocator is likely to hand the new argument the freed one's
    address, its ``id``): how many results were not their own argument's, and whether any argument did
    get the address of the one before it (without that, this case cannot see a result remembered by
    ``id``)."""
    words = [f"{n:03d}" + "abcdefgh"[n % 8] * 97 for n in range(96)]  # 100 characters: a size class few share
    raw = [word.encode("ascii") for word in words]
    lists = [list(r) for r in raw]
    wrong = reused = 0
    last = None
    for n in range(96):
        if kind == "encode":
            argument: Any = raw[n].decode("ascii")
            got = tokenizer.decode(tokenizer.encode(argument, bos=False))
        else:
            argument = list(lists[n])
            got = tokenizer.decode(argument)
        reused += id(argument) == last
        wrong += got != words[n]
        last = id(argument)
        del got
        del argument
    return {"results not their own": wrong, "an argument at the address of the one before": reused > 0}


def tokenizer_cases(corpus: Corpus) -> None:
    for kind in ("encode", "decode"):
        corpus.add(f"tokenizer/{kind} of new objects in turn: results that are not their own", _fresh_in_turn, kind)
    for i, text in enumerate(TEXTS):
        for bos in (True, False):
            corpus.add(f"tokenizer/encode {i:02d} bos={bos}", tokenizer.encode, text, bos=bos, again=True)
        corpus.add(f"tokenizer/round-trip {i:02d}", _round_trip, text)
    for i, ids in enumerate(ID_LISTS):
        corpus.add(f"tokenizer/decode {i:02d}", tokenizer.decode, list(ids), again=True)
        corpus.add(f"tokenizer/decode-numpy {i:02d}", tokenizer.decode, list(np.array(ids, np.int64)))
        # the containers a caller hands over where a list is annotated: an argmax's int64 array, an
        # int32 array, a tuple (what they get is pinned, whatever it is)
        for label, given in (("int64 array", np.array(ids, np.int64)), ("int32 array", np.array(ids, np.int32)),
                             ("tuple", tuple(ids))):
            corpus.add(f"tokenizer/decode {label} {i:02d}", tokenizer.decode, _as_given(given))
    for vocab in (0, 258, 259, 260, 512):
        corpus.add(f"tokenizer/check_vocab {vocab}", tokenizer.check_vocab, vocab, "m")


# model shapes drawn pairwise; every one is valid, small, and several have GQA groups, odd widths or
# several layers (what vt-tiny alone never varies)
MODEL_POOLS: dict[str, tuple[str, ...]] = {
    "layers": ("1", "2", "3"),
    "heads": ("1/1", "2/1", "4/2", "3/3", "4/1", "6/2"),
    "head_dim": ("2", "4", "6", "8"),  # even: the rotary embedding rotates pairs
    "d_ff": ("8", "24", "33"),
    "vocab": ("16", "61", "260"),
    "context": ("10", "17", "29"),
    "tie": ("0", "1"),
    "theta": ("10000", "500.5"),
    "seed": ("0", "7"),
}
# every documented value of every numerics knob (the property layer's table) but BLAS, whose bits are
# the BLAS build's, and the weights' dtype
ENGINE_KNOBS: dict[str, tuple[str, ...]] = {
    **{knob: values for knob, values in KNOB_VALUES.items() if knob != "VT_CPU_GEMV_BLAS"},
    "weights": ("f32", "bf16", "fp8-quantized"),
}


def _config(row: dict[str, str], index: int) -> ModelConfig:
    heads, kv = (int(v) for v in row["heads"].split("/"))
    return ModelConfig(name=f"snap-{index}", vocab_size=int(row["vocab"]), d_model=heads * int(row["head_dim"]),
                       n_layers=int(row["layers"]), n_heads=heads, n_kv_heads=kv, d_ff=int(row["d_ff"]),
                       max_context=int(row["context"]), rope_theta=float(row["theta"]),
                       tie_word_embeddings=row["tie"] == "1", seed=int(row["seed"]))


def _knobs(row: dict[str, str]) -> Knobs:
    return Knobs(act_dtype=row["VT_ACT_DTYPE"], kv_block_size=int(row["VT_KV_BLOCK_SIZE"]),
                 cpu_threads=int(row["VT_CPU_THREADS"]), paged_attn_scalar_fma=row["VT_CPU_PAGED_ATTN_SCALAR_FMA"] == "1",
                 paged_attn_bfdot=row["VT_CPU_PAGED_ATTN_BFDOT"] == "1", gemv_bf16_dot=row["VT_CPU_GEMV_BF16_DOT"] == "1",
                 dequant_cache_mb=int(row["VT_DEQUANT_CACHE_MB"]), dequant_cache_policy=row["VT_DEQUANT_CACHE_POLICY"],
                 profile=row["VT_PROFILE"] == "1")


def _tensors(config: ModelConfig, weights: str) -> dict[str, np.ndarray]:
    tensors = generate_tensors(config)
    if weights == "bf16":
        return {name: t.astype(BF16) for name, t in tensors.items()}
    return tensors


def _prompt(rng: np.random.Generator, vocab: int, length: int) -> list[int]:
    """Token ids with repeats (for the n-gram drafts) and the vocabulary's edges."""
    if length <= 0:
        return []
    pattern = [int(t) for t in rng.integers(0, vocab, size=max(1, length // 3))] + [0, vocab - 1]
    return [pattern[int(j)] for j in rng.integers(0, len(pattern), size=length)]


def _as_given(value: Any) -> Any:
    """``value`` as a caller hands it over, whatever the annotation asks for (a tuple, an array)."""
    return value


AGAIN = frozenset({"forward_logits short", "score mid", "generate_recompute short 4"})  # called twice, edited between


def _forward_edges(engine: Engine, tokens: list[int]) -> list[Any]:
    """``engine.forward`` (the one forward pass) at its edges: more sequences than token lists and the
    other way round, an empty list for one sequence, every position's logits or the last; each the
    outcome and the lengths the sequences have afterwards (their blocks returned at the end)."""
    shapes = (("2 sequences, 1 token list", 2, [tokens]), ("1 sequence, 2 token lists", 1, [tokens, tokens]),
              ("an empty token list", 2, [tokens, []]), ("two sequences", 2, [tokens, tokens[:1]]))
    results: list[Any] = []
    for label, count, lists in shapes:
        for all_logits in (False, True):
            seqs = [engine.kv.new_sequence() for _ in range(count)]
            try:
                with np.errstate(all="ignore"):
                    got: Any = engine.forward(seqs, [list(t) for t in lists], all_logits)
            except Exception as error:  # noqa: BLE001 - the refusal is the outcome
                got = raised(error)
            results.append((label, all_logits, got, [s.length for s in seqs]))
            for seq in seqs:
                engine.kv.release(seq)
    return results


def _kv_blocks(engine: Engine) -> tuple[int, int]:
    """The paged KV cache's blocks and how many are free: all of them once every call has ended."""
    return engine.kv.num_blocks, len(engine.kv.free)


def _profile(engine: Engine) -> Any:
    """What ``VT_PROFILE`` counted over the row's calls: calls and tokens per phase and stage, each
    phase's shares summed (to 6 digits: the seconds are the host's, their shares' sum is not), and
    whether every duration is a duration (finite, not negative)."""
    if engine.prof is None:
        return None
    table = engine.prof.table()
    sums: dict[str, float] = {}
    for row in table:
        sums[str(row["phase"])] = sums.get(str(row["phase"]), 0.0) + float(row["share"])  # type: ignore[arg-type]
    seconds = [float(r["seconds"]) for r in table]  # type: ignore[arg-type]
    return (sorted((str(r["phase"]), str(r["stage"]), int(r["calls"])) for r in table),  # type: ignore[call-overload]
            dict(engine.prof.tokens), {phase: round(total, 6) for phase, total in sorted(sums.items())},
            {"every stage's seconds >= 0": all(math.isfinite(t) and t >= 0 for t in seconds)})


def _save_and_list(target: Path, config: ModelConfig, tensors: dict[str, np.ndarray], overwrite: bool) -> Any:
    """``save_checkpoint``'s result, what the folder around the checkpoint holds afterwards (no staging
    or retired folder left behind) and the config.json it wrote (what transformers reads)."""
    saved = checkpoint.save_checkpoint(target, config, tensors, overwrite=overwrite)
    return saved, _listing(target.parent), json.loads((target / checkpoint.CONFIG_FILE).read_text())


def _quantized_view(directory: Path) -> Any:
    """``load_model(directory, quantize=True)``: its digest and which weights it holds as fp8 blocks, with
    their shapes."""
    from vtengine.model import QuantizedWeight

    model = load_model(str(directory), quantize=True)
    return model.digest(), sorted((name, w.shape) for name, w in model.weights.items() if isinstance(w, QuantizedWeight))


def _generate_from(directory: Path) -> Any:
    return Engine(Model(*checkpoint.load_checkpoint(directory)), Knobs()).generate([1, 2, 3], 3)


def _loaded_digest(name: str, cache: Path) -> str:
    """``load_model(name)``'s digest, from an empty working folder (a relative name is looked up there)."""
    here = os.getcwd()
    empty = cache.parent / "empty-folder"
    empty.mkdir(exist_ok=True)
    os.chdir(empty)
    try:
        return load_model(name, cache).digest()
    finally:
        os.chdir(here)


def _grown_while_held(model: Model, knobs: Knobs) -> Any:
    """A batch of one-block prompts, one per block of a default-sized (growing) KV cache: the prefill
    fills every block, so the first decode step doubles the pools while all of them hold K/V. What it
    generates, and the blocks free afterwards."""
    engine = Engine(model, knobs)
    try:
        block, vocab = knobs.kv_block_size, model.config.vocab_size
        if block + 2 > model.config.max_context:
            return "a one-block prompt and two steps do not fit the context"
        blocks = engine.kv.num_blocks
        prompts = [[(i * 7 + j) % vocab for j in range(block)] for i in range(blocks)]
        return blocks, engine.generate_batch(prompts, 2), _kv_blocks(engine)
    finally:
        engine.close()


def _one_head_model(head_dim: int) -> Any:
    """A one-layer, one-head model of width ``head_dim``: the logits of three tokens (the rotary tables
    are built for every width, their shape and bits are in the logits)."""
    config = ModelConfig(name=f"hd{head_dim}", vocab_size=8, d_model=head_dim, n_layers=1, n_heads=1, n_kv_heads=1,
                         d_ff=4, max_context=4, seed=head_dim)
    engine = Engine(Model(config, generate_tensors(config)), Knobs())
    try:
        return engine.forward_logits([1, 5, 2])
    finally:
        engine.close()


def _limited_generation(model: Model, knobs: Knobs, max_tokens: int, prompt: list[int]) -> Any:
    engine = Engine(model, knobs, max_tokens=max_tokens)
    try:
        return engine.generate(prompt, 4), _kv_blocks(engine)
    finally:
        engine.close()


LIMITED_PATHS: dict[str, Callable[[Engine, list[int]], Any]] = {
    "generate_recompute 4": lambda engine, short: engine.generate_recompute(short, 4),
    "generate_batch 2x4": lambda engine, short: engine.generate_batch([short, short[::-1]], 4),
    "score 3x prompt": lambda engine, short: engine.score(short * 3),
    "speculative 3x prompt 4": lambda engine, short: engine.speculative(short * 3, 4),
    "forward_logits 2x prompt": lambda engine, short: engine.forward_logits(short * 2),
}


def _limited_path(model: Model, knobs: Knobs, max_tokens: int, path: str, prompt: list[int]) -> Any:
    """A decoding path on an engine whose KV cache holds ``max_tokens`` positions: what it returns or
    raises (a cache that fills up mid-call must reach the caller), the blocks free afterwards (a failed
    call holds none), and whether the same engine still generates one token."""
    engine = Engine(model, knobs, max_tokens=max_tokens)
    try:
        first = outcome(partial(LIMITED_PATHS[path], engine, prompt))
        free = _kv_blocks(engine)
        return first, free, outcome(partial(engine.generate, prompt[:1], 1))
    finally:
        engine.close()


def _interleaved(model: Model, knobs: Knobs, prompt: list[int]) -> list[Any]:
    """One model, two engines (the row's knobs and the other activation dtype), calls taking turns."""
    other_knobs = knobs.with_(act_dtype="f32" if knobs.act_dtype == "bf16" else "bf16")
    first, other = Engine(model, knobs), Engine(model, other_knobs)
    try:
        return [first.generate(prompt, 2), other.generate(prompt, 2), first.generate(prompt, 2),
                other.score(prompt), first.score(prompt)]
    finally:
        first.close()
        other.close()


def _cached_generation(model: Model, knobs: Knobs, prompt: list[int]) -> tuple[Any, Any]:
    engine = Engine(model, knobs)
    try:
        return engine.generate(prompt, 3), engine.cache.counters()
    finally:
        engine.close()


def _cache_accesses(budget: int, policy: str, sizes: dict[str, int], order: str) -> list[Any]:
    """A ``DequantCache`` of ``budget`` bytes fed ``order`` (one key a letter; each key's array of
    ``sizes[key]`` bytes): after each access, whether the value served is the one loaded for the key,
    and the counters."""
    cache = DequantCache(budget, policy)
    steps: list[Any] = []
    for key in order:
        value = cache.get(key, partial(np.full, sizes[key] // 4, ord(key), np.float32))
        steps.append((key, bool(value.size and value[0] == ord(key) and value.size == sizes[key] // 4),
                      cache.counters()))
    return steps


def _load_and_list(cache: Path) -> tuple[str, list[str]]:
    return load_model("vt-tiny", cache).digest(), _listing(cache)


def _knob_defaults() -> tuple[Knobs, dict[str, str]]:
    return Knobs(), Knobs().as_env()


def engine_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    """Each model row under a knob row, one engine over a sequence of calls (reuse across calls,
    batches of different sizes and lengths, every decoding path, the edges of each call's arguments),
    then the counters it leaves."""
    models = pairwise(MODEL_POOLS, rng, candidates=8)
    knob_rows = pairwise(ENGINE_KNOBS, rng, candidates=8)
    for i in range(max(len(models), len(knob_rows))):
        m_row, k_row = models[i % len(models)], knob_rows[i % len(knob_rows)]
        config = _config(m_row, i)
        tag = f"{i:02d}"
        corpus.add(f"engine/{tag} model hf_names", hf_names, config, again=True)
        try:
            tensors = _tensors(config, k_row["weights"])
            model = Model(config, tensors, quantize=k_row["weights"] == "fp8-quantized")
        except Exception as error:  # noqa: BLE001 - recorded, and the row's calls are skipped
            corpus.cases[f"engine/{tag} model build"] = raised(error, corpus.tmp)
            continue
        corpus.add(f"engine/{tag} model digest", model.digest)
        corpus.add(f"engine/{tag} model dequantized_tensors", model.dequantized_tensors, again=True)
        knobs = _knobs(k_row)
        corpus.add(f"engine/{tag} model select_arms", select_arms, knobs, again=True)
        engine = Engine(model, knobs)
        try:
            ctx, vocab = config.max_context, config.vocab_size
            short, mid = _prompt(rng, vocab, 3), _prompt(rng, vocab, ctx // 2)
            lengths = [1, 5, ctx // 2, 2, ctx - 3]
            batch = [_prompt(rng, vocab, n) for n in lengths]
            calls: list[tuple[str, Callable[[], Any]]] = [
                ("forward_logits short", partial(engine.forward_logits, short)),
                ("generate short 4", partial(engine.generate, short, 4)),
                ("generate mid 0", partial(engine.generate, mid, 0)),
                ("generate_batch 5 prompts", partial(engine.generate_batch, batch, 3)),
                ("generate short 4 again", partial(engine.generate, short, 4)),
                ("generate_recompute short 4", partial(engine.generate_recompute, short, 4)),
                ("generate_batch one", partial(engine.generate_batch, [mid], 2)),
                ("score mid", partial(engine.score, mid)),
                ("speculative mid 6", partial(engine.speculative, mid + mid[: ctx // 4], 6)),
                ("speculative short 5 ngram=1 draft=1", partial(engine.speculative, short * 3, 5, ngram=1, max_draft=1)),
                ("generate fills context", partial(engine.generate, short, ctx - len(short))),
                ("generate past context", partial(engine.generate, batch[-1], 4)),
                ("score past context", partial(engine.score, _prompt(rng, vocab, ctx + 1))),
                ("generate empty prompt", partial(engine.generate, [], 2)),
                ("generate id = vocab", partial(engine.generate, [vocab], 1)),
                ("generate id -1", partial(engine.generate, [-1], 1)),
                ("generate steps -1", partial(engine.generate, short, -1)),
                ("generate numpy ids", partial(engine.generate, list(np.array(short, np.int64)), 2)),
                ("score one token", partial(engine.score, short[:1])),
                ("score empty", partial(engine.score, [])),
                ("generate_batch empty", partial(engine.generate_batch, [], 2)),
                ("generate_batch with empty prompt", partial(engine.generate_batch, [short, []], 2)),
                ("generate_batch 8 long", partial(engine.generate_batch, [mid] * 8, 1)),
                ("speculative ngram 0", partial(engine.speculative, short, 3, ngram=0)),
                ("speculative draft 0", partial(engine.speculative, short, 3, max_draft=0)),
                ("speculative steps 0", partial(engine.speculative, short, 0)),
                ("dequant cache counters", partial(engine.cache.counters)),
                ("kv free blocks", partial(_kv_blocks, engine)),
                # the same calls with the sequence types a caller passes besides the annotated lists:
                # tuples and NumPy arrays (what they get is pinned, whatever it is)
                ("generate tuple prompt", partial(engine.generate, _as_given(tuple(short)), 2)),
                ("generate numpy prompt", partial(engine.generate, _as_given(np.array(short)), 2)),
                ("forward_logits tuple", partial(engine.forward_logits, _as_given(tuple(short)))),
                ("score tuple", partial(engine.score, _as_given(tuple(mid)))),
                ("generate_batch tuple of tuples", partial(engine.generate_batch, _as_given((tuple(short), tuple(mid))), 2)),
                ("speculative tuple prompt", partial(engine.speculative, _as_given(tuple(short * 3)), 4)),
                ("speculative numpy prompt", partial(engine.speculative, _as_given(np.array(short * 3)), 4)),
                ("forward at its edges", partial(_forward_edges, engine, short)),
                ("profile", partial(_profile, engine)),
            ]
            for name, call in calls:
                corpus.add(f"engine/{tag} {name}", call, again=name in AGAIN)
            if i < 6:  # the engine's own limits and a model shared by two engines, on the first rows
                need = len(short) + 4
                for max_tokens in (0, 1, need - 1, need, 4 * need):
                    corpus.add(f"engine/{tag} max_tokens={max_tokens} generate short 4", _limited_generation, model,
                               knobs, max_tokens, short)
                # 3 * len(short) + 1: a 3x prompt's prefill fits, its decoding may fill the cache
                for max_tokens in (0, 1, need - 1, need, 3 * len(short) + 1, 4 * need):
                    for path in LIMITED_PATHS:
                        corpus.add(f"engine/{tag} max_tokens={max_tokens} {path}, then generate 1", _limited_path,
                                   model, knobs, max_tokens, path, short)
                corpus.add(f"engine/{tag} two engines on one model, calls interleaved", _interleaved, model, knobs,
                           short)
                corpus.add(f"engine/{tag} the default KV cache grows while every block holds data", _grown_while_held,
                           model, knobs)
        finally:
            engine.close()
    sizes = {"a": 400, "b": 800, "c": 1200, "d": 400}
    for budget in (0, 400, 1000, 1600, 2400, 10**6):
        for policy in ("lru", "pin"):
            for order in ("abab", "abcabc", "aabbccdd", "abcdabcd", "acbdca", "cab"):
                corpus.add(f"engine/DequantCache {budget} bytes {policy} {order}", _cache_accesses, budget, policy,
                           sizes, order)
    corpus.add("engine/DequantCache unknown policy", DequantCache, 100, "fifo")
    for head_dim in range(2, 258, 2):  # every even head_dim to 256: where a size formula's float rounding bites
        corpus.add(f"engine/head_dim {head_dim}: forward_logits", _one_head_model, head_dim)
    memory_cases(corpus)
    retained_memory_cases(corpus)
    nonfinite_weight_cases(corpus)
    threaded_error_cases(corpus)
    wide_vocab_cases(corpus)
    long_context_cases(corpus)
    profiler_cases(corpus)
    _tiny_cases(corpus, rng)


CHUNK_BYTES = Linear.MAX_PRODUCT_ELEMENTS * 4  # the largest temporary a chunked product or score block may hold
MEMORY_SHAPES = ((128, 4, 4, 512), (192, 3, 1, 768))  # d_model, heads, KV heads, context


def _peak_budget(config: ModelConfig, positions: int) -> int:
    """What a call over ``positions`` may hold at its peak, by the engine's own bounds: a few chunk-sized
    temporaries (products and score blocks are chunked to CHUNK_BYTES), the KV cache of a full context, and
    a few copies of the activations and logits of every position."""
    head_dim = config.d_model // config.n_heads
    kv = 2 * config.n_layers * config.n_kv_heads * head_dim * config.max_context * 4
    rows = positions * (2 * config.d_model + 2 * config.d_ff + config.vocab_size) * 4
    return 4 * CHUNK_BYTES + 2 * kv + 4 * rows


def _peak_within_budget(model: Model, call: str, positions: int) -> Any:
    """The peak of NumPy's traced allocations while one call runs, against :func:`_peak_budget`: a chunk
    bound that no longer bounds (a size formula that drops a factor, an unchunked path) goes over it,
    while every result stays the same."""
    import tracemalloc

    engine = Engine(model, Knobs())
    ids = [(7 * i + 3) % model.config.vocab_size for i in range(positions)]
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        start = tracemalloc.get_traced_memory()[0]
        if call == "score":
            engine.score(ids)
        else:
            engine.generate(ids[:-2], 2)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        if not was_tracing:
            tracemalloc.stop()
        engine.close()
    return peak <= _peak_budget(model.config, positions)


def memory_cases(corpus: Corpus) -> None:
    """Peak memory of long calls within the bound the engine's chunking promises (a boolean each: the
    bytes themselves depend on the NumPy version)."""
    for d_model, heads, kv_heads, context in MEMORY_SHAPES:
        config = ModelConfig(name="memory", vocab_size=64, d_model=d_model, n_layers=1, n_heads=heads,
                             n_kv_heads=kv_heads, d_ff=2 * d_model, max_context=context, seed=3)
        model = Model(config, generate_tensors(config))
        for call in ("score", "generate"):
            for positions in (40, context):
                corpus.add(f"engine/peak memory within the chunk budget: d_model {d_model}, {heads}/{kv_heads} heads,"
                           f" {call} of {positions}", _peak_within_budget, model, call, positions)



def _arrays_held(root: Any) -> list[np.ndarray]:
    """Every NumPy array reachable from ``root`` through the engine's own objects (their ``__dict__`` and
    slots) and the containers they hold (dicts, lists, tuples, sets); other libraries' objects (a thread
    pool, a lock) are not entered. Each array once."""
    seen: set[int] = set()
    found: list[np.ndarray] = []
    stack = [root]
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, np.ndarray):
            found.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            stack.extend(value)
        elif type(value).__module__.startswith("vtengine"):
            stack.extend(vars(value).values() if hasattr(value, "__dict__") else ())
            stack.extend(getattr(value, name) for name in getattr(type(value), "__slots__", ())
                         if hasattr(value, name))
    return found


def _buffer_of(array: np.ndarray) -> np.ndarray:
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _retained(make: Callable[[], Any]) -> Any:
    """What an object the API hands out keeps alive against what it shows: the bytes of the distinct
    buffers under every array it holds, at most the bytes of those arrays themselves (a view of a larger
    temporary, a padded block buffer, a whole batch kept for one row, holds more than it shows). The
    verdict and how many arrays are views of a larger buffer; not the byte counts (a NumPy version may
    over-allocate)."""
    held = _arrays_held(make())
    shown = sum(a.nbytes for a in held)
    buffers = {id(_buffer_of(a)): _buffer_of(a).nbytes for a in held}
    larger = sum(_buffer_of(a).nbytes > a.nbytes and _buffer_of(a) is not a for a in held)
    return {"buffers within what is shown": sum(buffers.values()) <= shown, "views of a larger buffer": larger}


RETAINED_SHAPE = ModelConfig(name="retained", vocab_size=150, d_model=48, n_layers=2, n_heads=6, n_kv_heads=2,
                             d_ff=136, max_context=40, seed=11)  # widths neither under nor a multiple of 128


def retained_memory_cases(corpus: Corpus) -> None:
    """What the objects a caller keeps (a model, quantized or not, built or loaded; an engine after its
    calls; a generation, a score, batched results) hold beyond what they show."""
    config = RETAINED_SHAPE
    tensors = generate_tensors(config)
    saved = checkpoint.save_checkpoint(Path(corpus.tmp) / "retained-ck", config, tensors)
    prompt = [3, 141, 7, 99, 12, 5]
    for quantize in (False, True):
        kind = "quantized" if quantize else "as stored"
        corpus.add(f"engine/retained memory: Model {kind}", _retained, lambda q=quantize: Model(config, tensors, quantize=q))
        corpus.add(f"engine/retained memory: load_model {kind}", _retained,
                   lambda q=quantize: load_model(str(saved), quantize=q))
        model = Model(config, tensors, quantize=quantize)
        for knobs in (Knobs(), Knobs(act_dtype="f32", cpu_threads=2)):
            label = f"{kind}, {'default knobs' if knobs == Knobs() else 'f32 on 2 threads'}"

            def used(k: Knobs = knobs, m: Model = model) -> Engine:
                engine = Engine(m, k)
                engine.generate(prompt, 3)
                engine.score(prompt)
                return engine

            def results(k: Knobs = knobs, m: Model = model) -> Any:
                engine = Engine(m, k)
                try:
                    return [engine.generate(prompt, 3), engine.score(prompt), engine.generate_batch([prompt, prompt[:2]], 2),
                            engine.speculative(prompt * 2, 3), engine.forward_logits(prompt)]
                finally:
                    engine.close()

            corpus.add(f"engine/retained memory: an engine after generate and score, {label}", _retained, used)
            corpus.add(f"engine/retained memory: what generate, score, generate_batch, speculative, forward_logits"
                       f" return, {label}", _retained, results)



WIDE_SHAPE = ModelConfig(name="wide", vocab_size=65_539, d_model=8, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=12,
                         max_context=24, seed=29)  # ids past 2**16: what a 16-bit id would wrap or clip


def wide_vocab_cases(corpus: Corpus) -> None:
    """Ids at the widths a narrowing conversion would break (2**7, 2**8, 2**15, 2**16 - 1, 2**16, the last id)
    through every decoding path, as stored and quantized: the tokens chosen and the logits' bits."""
    tensors = generate_tensors(WIDE_SHAPE)
    top = WIDE_SHAPE.vocab_size - 1
    tensors["lm_head.weight"][top] = np.abs(tensors["lm_head.weight"][top]) * 40  # the last id wins somewhere
    prompt = [128, 256, 32_768, 65_535, 65_536, top, 5]
    for quantize in (False, True):
        model = Model(WIDE_SHAPE, tensors, quantize=quantize)
        for knobs in (Knobs(), Knobs(act_dtype="f32", cpu_threads=2)):
            label = f"quantize={quantize}, {'default' if knobs == Knobs() else 'f32 on 2 threads'}"
            engine = Engine(model, knobs)
            try:
                for name, call in (("generate", partial(engine.generate, prompt, 3)),
                                   ("generate_batch", partial(engine.generate_batch, [prompt, prompt[::-1]], 2)),
                                   ("score", partial(engine.score, prompt)),
                                   ("speculative", partial(engine.speculative, prompt * 2, 3, ngram=1)),
                                   ("generate_recompute", partial(engine.generate_recompute, prompt, 2))):
                    corpus.add(f"engine/ids past 2**16: {name}, {label}", call)
            finally:
                engine.close()

# contexts far past vt-tiny's 1024 (Llama 3's head_dim 128 and rope_theta 500000; a context that is no
# power of two): what a table built by a recurrence, or at a lower precision, rounds otherwise at late positions
LONG_SHAPES = (
    ModelConfig(name="long", vocab_size=32, d_model=128, n_layers=1, n_heads=1, n_kv_heads=1, d_ff=16,
                max_context=32_768, seed=5, rope_theta=500_000.0),
    ModelConfig(name="long", vocab_size=32, d_model=128, n_layers=1, n_heads=2, n_kv_heads=1, d_ff=16,
                max_context=20_011, seed=5),
)


def _engine_arrays(engine: Engine) -> dict[str, Any]:
    """Every array an engine holds as a public attribute (alone or in a list): its derived tables."""
    held: dict[str, Any] = {}
    for name, value in sorted(vars(engine).items()):
        if name.startswith("_"):
            continue
        if isinstance(value, np.ndarray) or (isinstance(value, list) and value
                                            and all(isinstance(v, np.ndarray) for v in value)):
            held[name] = value
    return held


def long_context_cases(corpus: Corpus) -> None:
    """Engines of long-context configurations: every table they hold, bit for bit, and a generation."""
    for config in LONG_SHAPES:
        label = f"max_context {config.max_context}, head_dim {config.head_dim}, rope_theta {config.rope_theta:g}"
        engine = Engine(Model(config, generate_tensors(config)), Knobs())
        try:
            corpus.add(f"engine/long context, {label}: the arrays the engine holds", _engine_arrays, engine)
            corpus.add(f"engine/long context, {label}: generate", engine.generate, [3, 1, 4, 1, 5], 3)
        finally:
            engine.close()


# exact timings (binary fractions, so every sum and share is exact) a profile may hold: what a real
# run's clock gives only by chance (two stages of equal time on a coarse clock, a phase that took no
# time, every stage alike), each in the order its stages were first timed
PROFILES: dict[str, tuple[tuple[str, str, float, int], ...]] = {
    "two stages of equal time": (("decode", "linear", 0.25, 3), ("decode", "rope", 0.125, 2),
                                 ("decode", "norms", 0.125, 5)),
    "every stage alike, in both phases": tuple((phase, stage, 0.0625, 1) for phase in ("prefill", "decode")
                                               for stage in STAGES),
    "a phase that took no time": (("prefill", "linear", 0.0, 1), ("prefill", "attention", 0.0, 1),
                                  ("decode", "linear", 0.5, 1)),
    "timed fastest first": tuple(("decode", stage, 2.0 ** -k, k) for k, stage in enumerate(STAGES, 1))[::-1],
    "a stage counted, never timed": (("decode", "embed", 0.0, 4), ("decode", "linear", 1.0, 4)),
}


def _profile_of(rows: tuple[tuple[str, str, float, int], ...], tokens: dict[str, int]) -> Any:
    """The table and token counts of a profile that holds exactly ``rows`` (as ``Profiler.add`` leaves
    them: seconds and calls per phase and stage), timed by no clock."""
    profiler = Profiler()
    for phase, stage, seconds, calls in rows:
        profiler.phase = phase
        profiler.seconds[(phase, stage)] += seconds
        profiler.calls[(phase, stage)] += calls
    profiler.tokens.update(tokens)
    return profiler.table(), dict(profiler.tokens), profiler.phase


def profiler_cases(corpus: Corpus) -> None:
    """``Profiler.table`` over exact timings, ties and zeros among them: rows, their order and shares."""
    for name, rows in PROFILES.items():
        corpus.add(f"engine/profile table: {name}", _profile_of, rows, {"prefill": 3, "decode": 2})
    corpus.add("engine/profile table: empty", _profile_of, (), {})


NONFINITE_SHAPE = ModelConfig(name="nonfinite", vocab_size=40, d_model=24, n_layers=2, n_heads=6, n_kv_heads=2, d_ff=37,
                              max_context=24, seed=17)
POISONS: dict[str, Callable[[dict[str, np.ndarray]], None]] = {  # one non-finite stored value, where a checkpoint may carry it
    "an lm_head row of NaN": lambda t: t["lm_head.weight"].__setitem__((5, slice(None)), np.nan),
    "an lm_head row of +inf": lambda t: t["lm_head.weight"].__setitem__((9, slice(None)), np.inf),
    "one lm_head value -inf": lambda t: t["lm_head.weight"].__setitem__((2, 3), -np.inf),
    "an embedding row of +inf": lambda t: t["model.embed_tokens.weight"].__setitem__((7, slice(None)), np.inf),
    "one q_proj value NaN": lambda t: t["model.layers.1.self_attn.q_proj.weight"].__setitem__((4, 6), np.nan),
    "one down_proj value +inf": lambda t: t["model.layers.0.mlp.down_proj.weight"].__setitem__((0, 11), np.inf),
}


def _nonfinite_paths(model: Model, knobs: Knobs, prompt: list[int], steps: int) -> Any:
    """Every greedy path on a model with a non-finite weight: the tokens of each, and whether all give the
    same logits bit for bit (NaN payloads included). Greedy is one argmax everywhere; a path that skips or
    treats a NaN otherwise, or computes some rows apart from the rest, disagrees with the others."""
    engine = Engine(model, knobs)
    try:
        alone = engine.generate(prompt, steps)
        recompute = engine.generate_recompute(prompt, steps)
        batched = engine.generate_batch([prompt, prompt[::-1]], steps)[0]
        speculative = engine.speculative(prompt, steps, ngram=1)
        scored = engine.score(prompt + alone.tokens[:-1])
    finally:
        engine.close()
    bits = [np.asarray(x, np.float32).view(np.uint32) for x in (alone.logits, recompute.logits, batched.logits)]
    tail = np.asarray(scored.logits, np.float32)[len(prompt) - 1:].view(np.uint32)
    return {"generate": list(alone.tokens), "generate_recompute": list(recompute.tokens),
            "generate_batch": list(batched.tokens), "speculative": list(speculative.tokens),
            "logits agree": all(np.array_equal(bits[0], b) for b in bits[1:]),
            "score agrees with generate": bool(np.array_equal(tail, bits[0])),
            "finite logits per step": [int(np.isfinite(row).sum()) for row in alone.logits]}


def nonfinite_weight_cases(corpus: Corpus) -> None:
    """A checkpoint value that is NaN or infinite (an overflowed conversion, a damaged file): what each
    decoding path gives, as stored and quantized, on the default and the f32 path, one thread and two."""
    prompt, steps = [1, 7, 5, 30, 2], 4
    for poison, put in POISONS.items():
        tensors = generate_tensors(NONFINITE_SHAPE)
        put(tensors)
        for quantize in (False, True):
            try:
                model = Model(NONFINITE_SHAPE, tensors, quantize=quantize)
            except Exception as error:  # noqa: BLE001 - recorded: a refusal is an outcome too
                corpus.cases[f"engine/non-finite weights: {poison}, quantize={quantize}"] = raised(error, corpus.tmp)
                continue
            for knobs in (Knobs(), Knobs(act_dtype="f32", cpu_threads=2)):
                label = "default" if knobs == Knobs() else "f32 on 2 threads"
                corpus.add(f"engine/non-finite weights: {poison}, quantize={quantize}, {label}", _nonfinite_paths, model,
                           knobs, prompt, steps)


def _linear_outcomes(arm: str, x: Any, w_t: np.ndarray) -> Any:
    """One product through :class:`Linear` alone and split over 2 and 3 threads: each outcome, and whether
    the split ones are the lone one's (an error raised in a worker must reach the caller as it would alone)."""
    from concurrent.futures import ThreadPoolExecutor

    seen = {1: outcome(partial(Linear(arm, None, 1), x, w_t))}
    for threads in (2, 3):
        with ThreadPoolExecutor(threads) as pool:
            seen[threads] = outcome(partial(Linear(arm, pool, threads), x, w_t))
    return {"alone": seen[1], "split like alone": seen[2] == seen[1] and seen[3] == seen[1]}


def threaded_error_cases(corpus: Corpus) -> None:
    """:class:`Linear` on inputs a caller may get wrong, alone and split over threads: the same value or
    the same error each way."""
    w_t = (np.arange(4 * 16, dtype=np.float32).reshape(4, 16) - 30) / np.float32(8)
    inputs = {
        "float32 rows": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4),
        "an object array holding None": np.array([[1.0, 2.0, None, 4.0]], dtype=object),
        "an array of strings": np.array([["1", "2", "3", "4"]]),
        "three axes": np.ones((2, 4, 4), np.float32),
        "no rows": np.ones((0, 4), np.float32),
        "float64 rows": np.linspace(-1, 1, 8).reshape(2, 4),
        "int rows": np.arange(8).reshape(2, 4),
        "rows with NaN": np.array([[np.nan, 1, 2, 3]], np.float32),
    }
    for arm in ("default", "bf16_dot"):
        for name, x in inputs.items():
            corpus.add(f"engine/Linear {arm} alone and split over threads: {name}", _linear_outcomes, arm, x, w_t)

def _loaded_beside_namesake(name: str, cache: Path, kind: str) -> Any:
    """``load_model(name)`` and ``load_model("./" + name)`` from a working folder that holds a checkpoint
    folder (or a file) called ``name``: which model each call returns (a built-in name and a path are
    two namespaces; the folder must not shadow the built-in one)."""
    here = os.getcwd()
    folder = cache.parent / f"namesake-{kind}"
    folder.mkdir(exist_ok=True)
    if kind == "checkpoint folder" and not (folder / name).exists():
        config = ModelConfig(name="namesake", vocab_size=32, d_model=16, n_layers=1, n_heads=2, n_kv_heads=1,
                             d_ff=24, max_context=16, seed=5)
        checkpoint.save_checkpoint(folder / name, config, generate_tensors(config))
    elif kind == "file":
        (folder / name).write_text("not a model")
    def vocabulary(given: str) -> int:
        return load_model(given, cache).config.vocab_size

    os.chdir(folder)
    try:
        return [outcome(partial(vocabulary, given)) for given in (name, f"./{name}")]
    finally:
        os.chdir(here)


def _tiny_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    """The embedded model at sizes the drawn ones never reach (256 wide, prompts of 100-300 tokens in
    a batch and alone: row chunks, KV blocks past the first pool), generated into a cache folder of
    the corpus's own, loaded twice: what the folder holds then."""
    cache = Path(corpus.tmp) / "model-cache"
    corpus.add("engine/vt-tiny load into an empty cache", _load_and_list, cache)
    corpus.add("engine/vt-tiny load from the cache", _load_and_list, cache)
    for name in ("VT-TINY", "vt-tiny ", "vt_tiny", "", str(cache), str(Path(corpus.tmp) / "absent")):
        corpus.add(f"engine/load_model {name!r}".replace(corpus.tmp, "<tmp>"), _loaded_digest, name, cache)
    for kind in ("checkpoint folder", "file"):
        corpus.add(f"engine/load_model 'vt-tiny' beside a {kind} named vt-tiny", _loaded_beside_namesake, "vt-tiny",
                   cache, kind)
    tiny = load_model("vt-tiny", cache)
    prompt = _prompt(rng, 512, 9)
    for budget_mb in (1, 2, 8):  # budgets below vt-tiny's working set: where eviction order shows
        for policy in ("lru", "pin"):
            corpus.add(f"engine/vt-tiny generate under a {budget_mb} MB {policy} dequant cache", _cached_generation,
                       tiny, Knobs(dequant_cache_mb=budget_mb, dequant_cache_policy=policy), prompt)
    engine = Engine(tiny, Knobs())
    long_a, long_b, longest = _prompt(rng, 512, 100), _prompt(rng, 512, 103), _prompt(rng, 512, 300)
    corpus.add("engine/vt-tiny generate_batch 100+103 tokens", engine.generate_batch, [long_a, long_b], 2)
    corpus.add("engine/vt-tiny generate 300 tokens", engine.generate, longest, 2)
    corpus.add("engine/vt-tiny score 130 tokens", engine.score, longest[:130])
    corpus.add("engine/vt-tiny kv free blocks", _kv_blocks, engine)


def _hf_variants(base: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A config.json each: a key dropped, a key given an odd but JSON-legal value, the rope_scaling
    and dtype spellings transformers has written over the years."""
    odd = {"zero": 0, "neg": -1, "float": 2.0, "frac": 2.5, "str": "8", "true": True, "null": None, "list": [8]}
    for key in sorted(base):
        drop = dict(base)
        del drop[key]
        yield f"drop {key}", drop
        for label, value in odd.items():
            yield f"{key}={label}", {**base, key: value}
    spellings: dict[str, Any] = {
        "rope_scaling={}": {}, "rope_scaling type=default": {"type": "default"},
        "rope_scaling rope_type=default": {"rope_type": "default"},
        "rope_scaling both keys": {"type": "default", "rope_type": "default"},
        "rope_scaling linear": {"type": "linear", "factor": 2.0},
        "rope_scaling llama3": {"rope_type": "llama3", "factor": 8.0},
        "rope_scaling theta inside": {"rope_type": "default", "rope_theta": base.get("rope_theta", 10000.0)},
    }
    for label, value in spellings.items():
        yield label, {**base, "rope_scaling": value}
    for dtype in ("float32", "bfloat16", "float16", "float8_e4m3fn", "torch.float32", "auto", "int8"):
        yield f"torch_dtype={dtype}", {**base, "torch_dtype": dtype}
        yield f"dtype={dtype}", {**{k: v for k, v in base.items() if k != "torch_dtype"}, "dtype": dtype}
    yield "architectures Mistral", {**base, "architectures": ["MistralForCausalLM"]}
    yield "model_type qwen2", {**base, "model_type": "qwen2"}
    yield "head_dim given", {**base, "head_dim": base["hidden_size"] // base["num_attention_heads"]}
    yield "head_dim other", {**base, "head_dim": 2 * base["hidden_size"] // base["num_attention_heads"]}
    yield "extra unknown key", {**base, "some_future_key": 1}


def _load_sharded(folder: Path, config: ModelConfig, tensors: dict[str, np.ndarray], shards: int) -> Any:
    """``tensors`` written as ``shards`` safetensors files with an index (names dealt round-robin in
    reverse order, so no shard holds a sorted run), then ``load_checkpoint``: the config, and the
    tensors as it returns them, in its order."""
    from safetensors.numpy import save_file

    folder.mkdir(parents=True)
    (folder / checkpoint.CONFIG_FILE).write_text(json.dumps(checkpoint.config_to_hf(config)))
    names = sorted(tensors, reverse=True)
    files = [f"model-{i + 1:05d}-of-{shards:05d}.safetensors" for i in range(shards)]
    weight_map = {name: files[i % shards] for i, name in enumerate(names)}
    for file in files:
        save_file({n: np.ascontiguousarray(tensors[n]) for n in names if weight_map[n] == file}, str(folder / file),
                  metadata={"format": "pt"})
    (folder / checkpoint.INDEX_FILE).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    config_read, read = checkpoint.load_checkpoint(folder)
    return dataclasses.replace(config_read, name="ck"), read


def _load_with_config(source: Path, hf: dict[str, Any], folder: Path) -> Any:
    """``load_checkpoint`` of ``source``'s weights beside ``hf`` as its config.json: the config and the
    names of the tensors read."""
    folder.mkdir(parents=True)
    (folder / checkpoint.WEIGHTS_FILE).symlink_to(source / checkpoint.WEIGHTS_FILE)
    (folder / checkpoint.CONFIG_FILE).write_text(json.dumps(hf))
    config, tensors = checkpoint.load_checkpoint(folder)
    return dataclasses.replace(config, name="ck"), sorted(tensors)


def _nested_variants(base: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """A config.json with an object-valued key (``quantization_config``, ``rope_scaling``): the object
    given as each odd JSON type, and each of its keys dropped or given each odd type."""
    odd: dict[str, Any] = {"null": None, "str": "fp8", "list": [1], "int": 1, "true": True, "empty": {}}
    for key in sorted(k for k, v in base.items() if isinstance(v, dict)):
        for label, value in odd.items():
            yield f"{key}={label}", {**base, key: value}
        for inner in sorted(base[key]):
            dropped = {k: v for k, v in base[key].items() if k != inner}
            yield f"{key} drop {inner}", {**base, key: dropped}
            for label, value in odd.items():
                yield f"{key}.{inner}={label}", {**base, key: {**base[key], inner: value}}


MAGNITUDES = {"rms_norm_eps": (1e-7, 4.9e-7, 1e-12, 5e-324, 1e-5, 0.1, 1.0 / 3.0, 0.5),
              "rope_theta": (1.5, 10000.5, 1e6, 1e12, 2.0 ** 60, 1.0 / 3.0, 5e-324)}


def _config_round_trip(config: ModelConfig) -> Any:
    """``config`` through ``config_to_hf``, JSON text and ``config_from_hf``: whether it comes back equal
    (but for its seed, which config.json does not hold), and the float fields that came back."""
    back = checkpoint.config_from_hf(json.loads(json.dumps(checkpoint.config_to_hf(config))), config.name)
    return dataclasses.replace(back, seed=config.seed) == config, back.rms_norm_eps, back.rope_theta


def checkpoint_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    configs = [ModelConfig(name="ck-a", vocab_size=40, d_model=12, n_layers=2, n_heads=3, n_kv_heads=1, d_ff=20,
                           max_context=32, seed=3),
               ModelConfig(name="ck-b", vocab_size=300, d_model=16, n_layers=1, n_heads=4, n_kv_heads=4, d_ff=130,
                           max_context=16, tie_word_embeddings=True, seed=5, rope_theta=500000.0, rms_norm_eps=1e-6)]
    for c, config in enumerate(configs):
        for dtype in ("float32", "bfloat16", "float16", "float8_e4m3fn", "int8"):
            corpus.add(f"checkpoint/config_to_hf {c} {dtype}", checkpoint.config_to_hf, config, dtype, again=True)
        base = checkpoint.config_to_hf(config)
        for label, hf in _hf_variants(base):
            corpus.add(f"checkpoint/config_from_hf {c} {label}", checkpoint.config_from_hf, hf, "ck")
        corpus.add(f"checkpoint/expected_shapes {c}", checkpoint.expected_shapes, config, again=True)
        if c == 0:  # each float field at magnitudes a writer may round away: through config.json and back
            for field, values in MAGNITUDES.items():
                for value in values:
                    changed: dict[str, Any] = {field: value}
                    corpus.add(f"checkpoint/config.json round trip {field}={value!r}", _config_round_trip,
                               dataclasses.replace(config, **changed))
        for label, hf in _nested_variants({**base, "rope_scaling": {"rope_type": "default"}}):
            corpus.add(f"checkpoint/config_from_hf {c} nested {label}", checkpoint.config_from_hf, hf, "ck")
        tensors = generate_tensors(config)
        names = sorted(tensors)
        broken: dict[str, dict[str, np.ndarray]] = {
            "missing": {n: t for n, t in tensors.items() if n != names[0]},
            "extra": {**tensors, "model.extra.weight": np.zeros(3, np.float32)},
            "transposed": {**tensors, names[1]: tensors[names[1]].T.copy()},
            "float64": {**tensors, names[2]: tensors[names[2]].astype(np.float64)},
            "int32": {**tensors, names[2]: tensors[names[2]].astype(np.int32)},
        }
        for label, bad in broken.items():
            corpus.add(f"checkpoint/validate_tensors {c} {label}", checkpoint.validate_tensors, config, bad)
        root = Path(corpus.tmp) / f"ck{c}"
        for weights in ("f32", "f16", "bf16", "fp8", "mixed", *MIXED):
            saved = _saved_tensors(tensors, weights)
            target = root / f"{weights}" / "nested"
            corpus.add(f"checkpoint/save {c} {weights}",
                       _save_and_list, target, config, saved, False)
            corpus.add(f"checkpoint/load {c} {weights}", checkpoint.load_checkpoint, target, again=True)
            corpus.add(f"checkpoint/save again {c} {weights}",
                       checkpoint.save_checkpoint, target, config, saved)
            doubled = {n: (t * 2 if t.dtype.kind == "f" and t.dtype != FP8 else t) for n, t in saved.items()}
            corpus.add(f"checkpoint/overwrite {c} {weights}",
                       _save_and_list, target, config, doubled, True)
            corpus.add(f"checkpoint/load overwritten {c} {weights}", checkpoint.load_checkpoint, target)
            corpus.add(f"checkpoint/model {c} {weights}",
                       _generate_from, target)
            corpus.add(f"checkpoint/load_model quantize=True {c} {weights}", _quantized_view, target)
        for shards in (2, 3, 5):
            corpus.add(f"checkpoint/load {shards} shards {c}", _load_sharded, root / f"sharded-{shards}", config,
                       tensors, shards)
        fp8_dir = root / "fp8" / "nested"
        fp8_config = json.loads((fp8_dir / checkpoint.CONFIG_FILE).read_text())
        for v, (label, hf) in enumerate(_nested_variants(fp8_config)):
            corpus.add(f"checkpoint/load fp8 with config {c} {label}", _load_with_config, fp8_dir, hf,
                       root / "config-variants" / f"{v:03d}")
        for scenario in DEBRIS:
            for overwrite in (False, True):
                corpus.add(f"checkpoint/save over debris {c} {scenario} overwrite={overwrite}",
                           _save_over_debris, root / "debris" / f"{scenario}-{overwrite}", scenario, config, tensors,
                           overwrite)
        for scenario in ("nothing", "an earlier checkpoint"):
            for overwrite in (False, True):
                for limit in ("nothing", "half the weights"):
                    corpus.add(f"checkpoint/save cut short by a file size limit of {limit} {c} over {scenario} "
                               f"overwrite={overwrite}", _save_cut_short,
                               root / "cut-short" / f"{scenario}-{overwrite}-{limit}", scenario, config, tensors,
                               overwrite, limit)
        damaged = root / "damaged"
        shutil.copytree(root / "f32" / "nested", damaged)
        (damaged / checkpoint.CONFIG_FILE).write_text("{not json")
        corpus.add(f"checkpoint/load bad json {c}", checkpoint.load_checkpoint, damaged)
        (damaged / checkpoint.CONFIG_FILE).unlink()
        corpus.add(f"checkpoint/load no config {c}", checkpoint.load_checkpoint, damaged)
        corpus.add(f"checkpoint/load missing dir {c}", checkpoint.load_checkpoint, root / "absent")
        _tensor_set_cases(corpus, c, config, tensors)
        _config_refusal_cases(corpus, c, base)
        _damaged_file_cases(corpus, c, config, tensors, root / "broken files")
    _name_variant_cases(corpus, configs[0], generate_tensors(configs[0]), Path(corpus.tmp) / "name variants")
    for mask in (0o022, 0o077, 0o002):
        corpus.add(f"checkpoint/what the writers create under umask {mask:04o}: permission bits", _modes_written,
                   configs[0], mask, Path(corpus.tmp) / f"umask {mask:04o}")
    _model_cache_cases(corpus, configs[0], Path(corpus.tmp) / "model-cache-damage")
    _fp8_block_cases(corpus, np.random.Generator(np.random.PCG64(11)))
    _tied_head_cases(corpus, configs[1], generate_tensors(configs[1]), Path(corpus.tmp) / "tied")


def _tensor_set_cases(corpus: Corpus, c: int, config: ModelConfig, tensors: dict[str, np.ndarray]) -> None:
    """``validate_tensors`` (and ``Model``) on the tensor set with one edit each, every tensor in turn:
    dropped, given a row more, transposed, stored as float64, int8 or bool; fp8 weights with their
    scales dropped, misshaped or float16, a scale beside a float weight, a 1-D fp8 tensor; a tensor of a
    layer past the config's, an unknown one, and the LM head beside tied embeddings."""
    edits: dict[str, Callable[[np.ndarray], np.ndarray | None]] = {
        "dropped": lambda t: None, "a row more": lambda t: np.concatenate([t, t[:1]]),
        "transposed": lambda t: t.T.copy(), "float64": lambda t: t.astype(np.float64),
        "int8": lambda t: t.astype(np.int8), "bool": lambda t: t != 0,
    }
    for name in sorted(tensors):
        for label, edit in edits.items():
            edited = edit(tensors[name])
            bad = {n: t for n, t in tensors.items() if n != name}
            if edited is not None:
                bad[name] = edited
            corpus.add(f"checkpoint/validate_tensors {c} {name} {label}", checkpoint.validate_tensors, config, bad)
    fp8 = _saved_tensors(tensors, "fp8")
    suffix = checkpoint.SCALE_SUFFIX
    for name in sorted(n for n in fp8 if n.endswith(suffix)):
        weight = name.removesuffix(suffix)
        scale = fp8[name]
        for label, value in (("dropped", None), ("a row more", np.concatenate([scale, scale[:1]])),
                             ("float16", scale.astype(np.float16)), ("1-D", scale.reshape(-1))):
            bad = {n: t for n, t in fp8.items() if n != name}
            if value is not None:
                bad[name] = value
            corpus.add(f"checkpoint/validate_tensors {c} fp8 {name} {label}", checkpoint.validate_tensors, config, bad)
        unscaled = {**{n: t for n, t in fp8.items() if n != name}, weight: tensors[weight]}
        corpus.add(f"checkpoint/validate_tensors {c} fp8 {weight} dequantized, scale kept",
                   checkpoint.validate_tensors, config, {**unscaled, name: scale})
    vector = next(n for n in sorted(tensors) if tensors[n].ndim == 1)
    extra: dict[str, Any] = {
        "fp8 vector": {**tensors, vector: tensors[vector].astype(FP8),
                       vector + suffix: np.ones((1, 1), np.float32)},
        "layer past the config": {**tensors, f"model.layers.{config.n_layers}.mlp.up_proj.weight":
                                  tensors["model.layers.0.mlp.up_proj.weight"]},
        "q_norm": {**tensors, "model.layers.0.self_attn.q_norm.weight": np.ones(config.d_model, np.float32)},
        "bias": {**tensors, "model.layers.0.self_attn.q_proj.bias": np.zeros(config.d_model, np.float32)},
        "lm_head beside tied embeddings" if config.tie_word_embeddings else "lm_head dropped":
            {**tensors, "lm_head.weight": tensors["model.embed_tokens.weight"]} if config.tie_word_embeddings
            else {n: t for n, t in tensors.items() if n != "lm_head.weight"},
        "a 0-d scalar": {**tensors, vector: np.float32(1.0)},
        "a list": {**tensors, vector: tensors[vector].tolist()},
    }
    for label, bad in extra.items():
        corpus.add(f"checkpoint/validate_tensors {c} {label}", checkpoint.validate_tensors, config, bad)
        corpus.add(f"checkpoint/Model {c} {label}", Model, config, bad)
    for label, other in (("n_heads not dividing d_model", dataclasses.replace(config, n_heads=5)),
                         ("n_kv_heads not dividing n_heads", dataclasses.replace(config, n_kv_heads=2)),
                         ("tie flipped", dataclasses.replace(config, tie_word_embeddings=not config.tie_word_embeddings)),
                         ("one layer more", dataclasses.replace(config, n_layers=config.n_layers + 1))):
        corpus.add(f"checkpoint/Model {c} {label}", Model, other, tensors)


def _config_refusal_cases(corpus: Corpus, c: int, base: dict[str, Any]) -> None:
    """``config_from_hf`` on what it must refuse or read another way: not an object, the model type
    missing with and without ``architectures``, another activation, biases, RoPE parameters (the
    transformers 5 layout, default and not), head counts that do not divide, an odd head_dim."""
    no_type = {k: v for k, v in base.items() if k not in ("model_type", "architectures")}
    hidden = base["hidden_size"]
    derived = {k: v for k, v in base.items() if k != "head_dim"}  # head counts given, head_dim derived
    variants: dict[str, Any] = {
        "a list": [base], "a string": "llama", "null": None,
        "no model_type, no architectures": no_type,
        "no model_type, LlamaForCausalLM": {**no_type, "architectures": ["LlamaForCausalLM"]},
        "no model_type, architectures null": {**no_type, "architectures": None},
        "model_type LLAMA": {**base, "model_type": "LLAMA"},
        "hidden_act gelu": {**base, "hidden_act": "gelu"}, "hidden_act null": {**base, "hidden_act": None},
        "hidden_act SiLU": {**base, "hidden_act": "SiLU"},
        "attention_bias true": {**base, "attention_bias": True}, "attention_bias 0": {**base, "attention_bias": 0},
        "mlp_bias true": {**base, "mlp_bias": True}, "mlp_bias false": {**base, "mlp_bias": False},
        "rope_parameters default with theta": {**{k: v for k, v in base.items() if k != "rope_theta"},
                                               "rope_parameters": {"rope_type": "default", "rope_theta": 1234.0}},
        "rope_parameters default, theta beside": {**base, "rope_parameters": {"rope_type": "default",
                                                                              "rope_theta": 99.0}},
        "rope_parameters linear": {**base, "rope_parameters": {"rope_type": "linear", "factor": 2.0}},
        "rope_parameters null": {**base, "rope_parameters": None},
        "heads not dividing hidden": {**derived, "num_attention_heads": hidden + 1},
        "kv heads not dividing heads": {**derived, "num_attention_heads": 4, "num_key_value_heads": 3,
                                        "hidden_size": 16},
        "odd head_dim": {**derived, "hidden_size": 12, "num_attention_heads": 4, "num_key_value_heads": 2},
        "head_dim 0": {**base, "head_dim": 0}, "head_dim derived, 2 kv heads": {**derived, "num_key_value_heads": 2},
        "kv heads 0": {**base, "num_key_value_heads": 0},
    }
    for label, hf in variants.items():
        corpus.add(f"checkpoint/config_from_hf {c} refuse {label}", checkpoint.config_from_hf, hf, "ck")




def _modes_written(config: ModelConfig, mask: int, root: Path) -> Any:
    """``save_checkpoint`` (into a new folder, over an empty one, over an earlier checkpoint with
    ``overwrite``) and the embedded model's cache file, under the caller's umask: the permission bits of
    every folder and file they create. A writer that creates through ``mkstemp``/``mkdtemp`` (always
    0600/0700) and renames into place without applying the umask leaves a checkpoint other users of a
    shared cache or group folder cannot read."""
    tensors = generate_tensors(config)
    old = os.umask(mask)
    try:
        root.mkdir(parents=True)
        checkpoint.save_checkpoint(root / "new", config, tensors)
        (root / "empty").mkdir()
        checkpoint.save_checkpoint(root / "empty", config, tensors)
        checkpoint.save_checkpoint(root / "new", config, tensors, overwrite=True)
        load_model("vt-tiny", root / "cache")
    finally:
        os.umask(old)
    # the weights file is left out: safetensors writes it, with 0600 in 0.8 and the umask's mode in older
    # versions (the engine leaves it so: a known defect, docs/check.md)
    return {str(path.relative_to(root)) if not path.name.startswith("vt-tiny-") else "cache/vt-tiny-<key>.npz":
            oct(path.stat().st_mode & 0o7777) for path in sorted(root.rglob("*")) if path.name != checkpoint.WEIGHTS_FILE}

def _name_variants(name: str) -> dict[str, str]:
    """Names a checkpoint may carry beside ``name`` that are not it: a suffix, a prefix, another layer
    index, another case, a separator more (what a prefix match, a search instead of a match, or a
    case-folding comparison would take for ``name``)."""
    layer = re.sub(r"^model\.layers\.\d+\.", "model.layers.99.", name)
    return {"itself": name, "suffix _long": name + "_long", "suffix .orig": name + ".orig", "prefix base_model.":
            "base_model." + name, "prefix x": "x" + name, "upper case": name.upper(), "a dot more": name.replace(".", "..", 1),
            **({"layer 99": layer} if layer != name else {})}


def _name_variant_cases(corpus: Corpus, config: ModelConfig, tensors: dict[str, np.ndarray], root: Path) -> None:
    """``load_checkpoint`` of a checkpoint holding one tensor more, named like a tensor the loader knows
    (each weight's name, and the rotary ``inv_freq`` buffer it drops as derived) but not that name: a
    name is taken whole or refused, never by its beginning or its case."""
    from safetensors.numpy import save_file

    known = {"a derived buffer": "model.layers.0.self_attn.rotary_emb.inv_freq",
             **{f"the weight {n}": n for n in sorted(tensors)[:3]}, "the embedding": "model.embed_tokens.weight"}
    stored = {n: np.ascontiguousarray(t) for n, t in tensors.items()}
    for what, name in known.items():
        for label, variant in _name_variants(name).items():
            if variant in tensors:
                continue  # the weight itself: every load case has it
            folder = root / f"{len(list(root.glob('*'))) if root.exists() else 0:03d}"
            folder.mkdir(parents=True)
            (folder / checkpoint.CONFIG_FILE).write_text(json.dumps(checkpoint.config_to_hf(config)))
            save_file({**stored, variant: np.arange(4, dtype=np.float32)}, str(folder / checkpoint.WEIGHTS_FILE))
            corpus.add(f"checkpoint/load with one tensor more, named like {what}: {label}", _loaded_names, folder,
                       variant)


def _loaded_names(folder: Path, extra: str) -> Any:
    """What loading gives: the tensor count and whether the extra name is among the tensors."""
    _config, loaded = checkpoint.load_checkpoint(folder)
    return len(loaded), extra in loaded

def _damaged_file_cases(corpus: Corpus, c: int, config: ModelConfig, tensors: dict[str, np.ndarray],
                        root: Path) -> None:
    """``load_checkpoint`` of a checkpoint with one file damaged: the weights file truncated, empty,
    garbage or holding an int64 tensor; an index that is not JSON, lacks its weight_map, lists a shard
    that is not there, maps a tensor to another shard than the one holding it, or lists a tensor no
    shard holds; both the single file and an index present."""
    from safetensors.numpy import save_file

    def fresh(label: str) -> Path:
        folder = root / label
        folder.mkdir(parents=True)
        (folder / checkpoint.CONFIG_FILE).write_text(json.dumps(checkpoint.config_to_hf(config)))
        save_file({n: np.ascontiguousarray(t) for n, t in tensors.items()}, str(folder / checkpoint.WEIGHTS_FILE))
        return folder

    weights = checkpoint.WEIGHTS_FILE
    for label, damage in (("truncated", lambda b: b[: len(b) // 2]), ("empty", lambda b: b""),
                          ("garbage header", lambda b: b"\xff" * 8 + b[8:]), ("header only", lambda b: b[:8])):
        folder = fresh(f"weights {label}")
        (folder / weights).write_bytes(damage((folder / weights).read_bytes()))
        corpus.add(f"checkpoint/load damaged {c} weights {label}", _load_unreadable, folder)
    if Path("/proc/self/mem").exists():  # read fails from the first byte, root included (Linux)
        for label, name in (("config.json", checkpoint.CONFIG_FILE), ("weights", weights)):
            folder = fresh(f"unreadable {label}")
            (folder / name).unlink()
            (folder / name).symlink_to("/proc/self/mem")
            corpus.add(f"checkpoint/load damaged {c} unreadable {label}", _load_unreadable, folder)
    folder = fresh("no weights")
    (folder / weights).unlink()
    corpus.add(f"checkpoint/load damaged {c} no weights file", checkpoint.load_checkpoint, folder)
    folder = fresh("int64 tensor")
    save_file({**{n: np.ascontiguousarray(t) for n, t in tensors.items()},
               "model.extra.counter": np.arange(3, dtype=np.int64)}, str(folder / weights))
    corpus.add(f"checkpoint/load damaged {c} an int64 tensor", checkpoint.load_checkpoint, folder)
    names = sorted(tensors)
    for label in ("index not json", "index without weight_map", "shard missing", "tensor mapped elsewhere",
                  "tensor listed, not stored", "index beside the single file"):
        folder = fresh(label)
        if label != "index beside the single file":
            (folder / weights).unlink()
            for file, part in (("model-00001-of-00002.safetensors", names[1:]), ("model-00002-of-00002.safetensors",
                                                                                  names[:1])):
                save_file({n: np.ascontiguousarray(tensors[n]) for n in part}, str(folder / file))
        weight_map = {n: "model-00001-of-00002.safetensors" for n in names}
        weight_map[names[0]] = "model-00002-of-00002.safetensors"
        index: Any = {"metadata": {}, "weight_map": weight_map}
        if label == "index not json":
            text = "{weight_map"
        elif label == "index without weight_map":
            text = json.dumps({"metadata": {}})
        else:
            if label == "shard missing":
                (folder / "model-00002-of-00002.safetensors").unlink()
            elif label == "tensor mapped elsewhere":
                weight_map[names[1]] = "model-00002-of-00002.safetensors"
            elif label == "tensor listed, not stored":
                weight_map["model.layers.0.mlp.extra.weight"] = "model-00002-of-00002.safetensors"
            text = json.dumps(index)
        (folder / checkpoint.INDEX_FILE).write_text(text)
        corpus.add(f"checkpoint/load damaged {c} {label}", checkpoint.load_checkpoint, folder)


def _load_unreadable(folder: Path) -> Any:
    """``load_checkpoint`` of a folder whose weights file safetensors cannot read: the engine's message
    with safetensors' own words, which change between its versions, left out."""
    try:
        return checkpoint.load_checkpoint(folder)
    except checkpoint.CheckpointError as error:
        return "raises CheckpointError: " + re.sub(r"file \(.*\); re-export", "file (...); re-export", str(error))


def _model_cache_cases(corpus: Corpus, config: ModelConfig, cache: Path) -> None:
    """The generated model's cache file, damaged each way a killed writer or a full disk leaves it
    (truncated, empty, garbage, an npz lacking an array, a folder in its place), then loaded: the
    model must be the generated one, and what the cache folder holds afterwards."""
    from vtengine.model import embedded_model

    fresh = embedded_model("vt-tiny", cache)
    corpus.add("checkpoint/model cache written", _listing, cache)
    files = sorted(cache.iterdir())
    if len(files) != 1:
        corpus.add("checkpoint/model cache files", lambda: [f.name for f in files])
        return
    path = files[0]
    good = path.read_bytes()
    digest = fresh.digest()

    def damaged(label: str) -> Any:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
        if label == "truncated":
            path.write_bytes(good[: len(good) // 3])
        elif label == "empty":
            path.write_bytes(b"")
        elif label == "garbage":
            path.write_bytes(b"PK\x03\x04" + b"\x00" * 64)
        elif label == "npz lacking an array":
            with np.load(io.BytesIO(good)) as stored:
                kept = {k: stored[k] for k in stored.files[1:]}
            with path.open("wb") as handle:
                np.savez(handle, **kept)
        elif label == "a folder":
            path.mkdir()
        model = embedded_model("vt-tiny", cache)
        return model.digest() == digest, _listing(cache), path.is_file() and path.read_bytes() == good

    for label in ("truncated", "empty", "garbage", "npz lacking an array", "a folder"):
        corpus.add(f"checkpoint/model cache {label}", damaged, label)
    knob_cache = cache.parent / "model-cache-by-knob"
    with scoped_env({"VT_CACHE_DIR": str(knob_cache)}):
        corpus.add("checkpoint/load_model vt-tiny, cache from VT_CACHE_DIR",
                   lambda: (load_model("vt-tiny").digest() == digest, _listing(knob_cache)))


def _fp8_block_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    """``fp8_scale_shape`` and ``dequantize_fp8_blocks`` at the block size's edges (one element, one
    block, one past, several partial blocks)."""
    for rows, cols in ((1, 1), (128, 128), (129, 1), (130, 257), (256, 128)):
        corpus.add(f"checkpoint/fp8_scale_shape {rows}x{cols}", checkpoint.fp8_scale_shape, (rows, cols))
        codes, scales = numerics.quantize_fp8_blocks(_edge_array(rng, (rows, cols), False))
        corpus.add(f"checkpoint/dequantize_fp8_blocks {rows}x{cols}", checkpoint.dequantize_fp8_blocks,
                   codes.view(FP8), scales, watch=(scales,))


def _tied_head_cases(corpus: Corpus, config: ModelConfig, tensors: dict[str, np.ndarray], root: Path) -> None:
    """A tied checkpoint whose exporter wrote the LM head anyway: equal to the embedding (dropped on
    load), one value off (refused), or in another dtype."""
    from safetensors.numpy import save_file

    embedding = tensors["model.embed_tokens.weight"]
    off = embedding.copy()
    off[-1, -1] = np.nextafter(off[-1, -1], np.float32(np.inf))
    zeroed = embedding.copy()
    zeroed[0, :3] = 0.0
    negative_zero = zeroed.copy()
    negative_zero[0, :3] = -0.0
    narrow = {"bfloat16": embedding.astype(BF16), "float16": embedding.astype(np.float16)}
    heads = [("equal", embedding, embedding), ("one value off", embedding, off),
             ("float16", embedding, embedding.astype(np.float16)),
             # the same values in another encoding: a wider dtype, or -0.0 for +0.0 (equal numbers, other bits)
             *((f"float32 of a {name} embedding's values", stored, stored.astype(np.float32))
               for name, stored in narrow.items()),
             ("-0.0 where the embedding holds +0.0", zeroed, negative_zero)]
    for label, stored, head in heads:
        folder = root / label
        folder.mkdir(parents=True)
        (folder / checkpoint.CONFIG_FILE).write_text(json.dumps(checkpoint.config_to_hf(config)))
        weights = {**{n: np.ascontiguousarray(t) for n, t in tensors.items()}, "model.embed_tokens.weight": stored}
        save_file({**weights, "lm_head.weight": head}, str(folder / checkpoint.WEIGHTS_FILE))
        corpus.add(f"checkpoint/load tied with lm_head {label}", checkpoint.load_checkpoint, folder)


# what a writer may find where it writes: an empty folder, a folder with a file, a file, a symlink to
# a folder, and the leftovers of a writer killed part-way or of another writer, named as writers name
# their staging and backup paths (hidden or not, as a folder with a file or as a file)
DEBRIS = ("nothing", "empty folder", "folder with a file", "a file", "symlink to a folder", "missing parents",
          *(f"leftover {pattern}" for pattern in (".ck.partial", ".ck.tmp", "ck.tmp", ".ck.old", "ck.old", "ck~",
                                                  ".ck.new", "ck.partial", ".ck-staging", "ck.bak")),
          "leftover file .ck.partial")


def _save_over_debris(folder: Path, scenario: str, config: ModelConfig, tensors: dict[str, np.ndarray],
                      overwrite: bool) -> Any:
    """``save_checkpoint`` into ``folder/ck`` after laying ``scenario`` there: its outcome, everything
    the folder holds afterwards, and what loads back from the checkpoint."""
    target = folder / "ck"
    folder.mkdir(parents=True)
    if scenario == "empty folder":
        target.mkdir()
    elif scenario == "folder with a file":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    elif scenario == "a file":
        target.write_text("mine")
    elif scenario == "symlink to a folder":
        (folder / "real").mkdir()
        target.symlink_to(folder / "real", target_is_directory=True)
    elif scenario == "missing parents":
        target = folder / "a" / "b" / "ck"
    elif scenario.startswith("leftover file "):
        (folder / scenario.removeprefix("leftover file ")).write_text("partial")
    elif scenario.startswith("leftover "):
        stale = folder / scenario.removeprefix("leftover ")
        stale.mkdir()
        (stale / "stale.bin").write_bytes(b"\x00" * 8)
        (stale / checkpoint.CONFIG_FILE).write_text("{}")
    try:
        saved: Any = checkpoint.save_checkpoint(target, config, tensors, overwrite=overwrite)
    except Exception as error:  # noqa: BLE001 - the refusal is part of the outcome
        saved = raised(error, str(folder))
    try:
        loaded: Any = checkpoint.load_checkpoint(target)[1]
    except Exception as error:  # noqa: BLE001
        loaded = raised(error, str(folder))
    return saved, _listing(folder), loaded


@contextlib.contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """Writes past ``limit`` bytes of one file fail (EFBIG, an OSError), as on a full disk or quota: the
    soft RLIMIT_FSIZE lowered for the block, SIGXFSZ ignored (as Python's start-up leaves it)."""
    import resource
    import signal

    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


def _save_cut_short(folder: Path, scenario: str, config: ModelConfig, tensors: dict[str, np.ndarray],
                    overwrite: bool, limit: str) -> Any:
    """``save_checkpoint`` into ``folder/ck`` (empty, or holding an earlier checkpoint) while no file may
    grow past ``limit`` (nothing, or half the weights file): the write fails part-way. Its outcome, what
    the folder holds afterwards, and whether the earlier checkpoint still loads as it was."""
    target = folder / "ck"
    folder.mkdir(parents=True)
    earlier = {name: t * np.float32(0.5) if t.ndim == 2 else t for name, t in tensors.items()}
    if scenario == "an earlier checkpoint":
        checkpoint.save_checkpoint(target, config, earlier)
    if limit == "nothing":
        size = 0
    elif target.exists():
        size = (target / checkpoint.WEIGHTS_FILE).stat().st_size // 2
    else:
        size = 1 << 12  # no earlier weights file to halve: 4 KiB, far short of the new one
    try:
        with _file_size_limit(size):
            saved: Any = checkpoint.save_checkpoint(target, config, tensors, overwrite=overwrite)
    except Exception as error:  # noqa: BLE001 - the failure is part of the outcome
        saved = raised(error, str(folder))
    try:
        loaded = checkpoint.load_checkpoint(target)[1]
        kept: Any = {n: canon(t) for n, t in loaded.items()} == {n: canon(t) for n, t in earlier.items()}
    except Exception as error:  # noqa: BLE001
        kept = raised(error, str(folder))
    return saved, _listing(folder), kept


# checkpoints whose tensors are of several dtypes, as exports mix them: (the matrices', the rest's)
MIXED = ("bf16 matrices, f32 vectors", "f16 matrices, f32 vectors", "f32 matrices, bf16 vectors",
         "bf16 matrices, f16 vectors", "fp8 matrices, f32 vectors")
DTYPE_OF = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": BF16}


def _saved_tensors(tensors: dict[str, np.ndarray], weights: str) -> dict[str, np.ndarray]:
    if weights in MIXED:
        matrices, vectors = (part.split()[0] for part in weights.split(", "))
        out: dict[str, np.ndarray] = {}
        for name, t in sorted(tensors.items()):
            if t.ndim == 2 and matrices == "fp8":
                codes, scales = numerics.quantize_fp8_blocks(t)
                out[name], out[name + checkpoint.SCALE_SUFFIX] = codes.view(FP8), scales
            else:
                out[name] = t.astype(DTYPE_OF[matrices if t.ndim == 2 else vectors])
        return out
    if weights == "f32":
        return dict(tensors)
    if weights == "f16":
        return {n: t.astype(np.float16) for n, t in tensors.items()}
    if weights == "bf16":
        return {n: t.astype(BF16) for n, t in tensors.items()}
    out = {}
    for i, (name, t) in enumerate(sorted(tensors.items())):
        if t.ndim == 2 and (weights == "fp8" or i % 2):
            codes, scales = numerics.quantize_fp8_blocks(t)
            out[name], out[name + checkpoint.SCALE_SUFFIX] = codes.view(FP8), scales
        else:
            out[name] = t.astype(BF16) if weights == "mixed" else t
    return out


def _listing(directory: Path) -> list[str]:
    """Every path under ``directory``, relative, sorted; a symlink marked ``@`` and not followed; runs of
    16 or more hex digits (a digest in a file name) written ``<hex>``."""
    found = []
    for top, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = Path(top) / name
            found.append(str(path.relative_to(directory)) + ("@" if path.is_symlink() else ""))
    return sorted(re.sub(r"[0-9a-f]{16,}", "<hex>", name) for name in found)


# each knob's spellings: (those docs/ENVIRONMENT.md documents, near misses a user types). The corpus
# is fixed before anything runs (never derived from what the code under test accepts), so a run on
# changed code calls exactly the golden's calls
KNOB_SPELLINGS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "VT_DEQUANT_CACHE_MB": (("", "0", "64", "1", " 8 "), ("-1", "1.5", "1e3", "x", "007")),
    "VT_DEQUANT_CACHE_POLICY": (("", "lru", "pin", "LRU", " pin"), ("fifo",)),
    "VT_ACT_DTYPE": (("", "bf16", "f32", "F32", "bf16 "), ("fp32", "float32")),
    "VT_KV_BLOCK_SIZE": (("", "1", "16", "3"), ("0", "007", "+4", "\uff12", "-3")),
    "VT_CPU_THREADS": (("", "1", "2"), ("0", "-2", "four", "02")),
    "VT_CPU_PAGED_ATTN_SCALAR_FMA": (("", "0", "1", "true", "yes", "on", "False", " 1"), ("2", "-1")),
    "VT_CPU_PAGED_ATTN_BFDOT": (("", "0", "1", "TRUE", "no", "off"), ("0.0",)),
    "VT_CPU_GEMV_BF16_DOT": (("", "0", "1", "Yes"), ("0.0", "y")),
    "VT_CPU_GEMV_BLAS": (("", "0", "1", "TRUE", "off", "no"), ("enabled",)),
    "VT_PROFILE": (("", "0", "1"), ("y", "enabled")),
    "VT_CACHE_DIR": (("", "relative/dir", "~/c", "/abs/path", "/trailing/"), ()),
}


def _derived_spellings(spellings: tuple[str, ...]) -> list[str]:
    """Values made from each listed spelling rather than chosen: every shorter beginning of it, it with
    a character more, doubled, with a space inside, swapped case, and behind a NUL. A parser that takes a
    prefix, a substring or a fuzzy match for a value, or reads past what it checked, answers one of these
    otherwise than a parser that takes the whole value or refuses it."""
    listed, out = set(spellings), []
    for spelling in (s.strip() for s in spellings if s.strip()):
        made = [spelling[:n] for n in range(1, len(spelling))]
        made += [spelling + "x", spelling + spelling, spelling[:1] + " " + spelling[1:], spelling.swapcase(),
                 spelling + "\x00"]
        for value in made:
            if value not in listed and value not in out:
                out.append(value)
    return out


def _resolved(values: dict[str, str]) -> tuple[Knobs, dict[str, str], dict[str, str]]:
    """``Knobs.from_env`` with exactly ``values`` set among the knobs: the record, the arms it
    selects, and the strings it resolves back to."""
    with unset(tuple(KNOB_SPELLINGS)), scoped_env(values):
        knobs = Knobs.from_env()
        return knobs, select_arms(knobs), knobs.as_env()


SCRATCH = "SNAPSHOT_SCRATCH"  # a variable only the corpus sets (no VT_ prefix: not a knob, nothing reads it)


OTHER = "SNAPSHOT_OTHER"  # a second variable of the corpus's own


def _block_effect(manager: str, effect: str) -> Any:
    """A ``with scoped_env({SCRATCH: "1"})`` (or ``unset([SCRATCH])``) block that itself sets, changes or
    removes ``OTHER`` (or sets ``SCRATCH``): what Python and a child see of both variables after the
    block. A manager restores what it was given, not what the block did besides."""
    outer = {OTHER: "outer"} if effect in ("changes another", "removes another") else {}
    with scoped_env(outer):
        block = scoped_env({SCRATCH: "1"}) if manager == "scoped_env" else unset([SCRATCH])
        with block:
            now = environment()
            if effect == "sets another" or effect == "changes another":
                now[OTHER] = "inner"
            elif effect == "removes another":
                now.pop(OTHER, None)
            else:
                now[SCRATCH] = "inner"
            restore_environment(now)
        after, seen = environment(), inherited_environment()
        result = {name: (after.get(name), seen.get(name)) for name in (SCRATCH, OTHER)}
    restore_environment({k: v for k, v in environment().items() if k not in (SCRATCH, OTHER)})  # the next case's
    return result


def _restore_round_trip() -> tuple[bool, str | None]:
    """Set a variable, then ``restore_environment`` to what ``environment()`` saved before it: whether
    Python still sees it, and whether a child process still does."""
    saved = environment()
    with scoped_env({SCRATCH: "1"}):
        restore_environment(saved)
        return SCRATCH in environment(), inherited_environment().get(SCRATCH)


def _unset_generator() -> tuple[bool, bool]:
    """``unset`` over a generator of names: gone inside, back afterwards."""
    with scoped_env({SCRATCH: "1"}):
        with unset(name for name in (SCRATCH,)):
            inside = SCRATCH in environment()
        return inside, environment().get(SCRATCH) == "1"


def _child_env_view() -> tuple[str | None, str | None, bool]:
    """``child_env``'s values win over the parent's, and the dict it returns is the caller's own."""
    with scoped_env({SCRATCH: "parent"}):
        child = child_env({SCRATCH: "child", "SNAPSHOT_OTHER": "x"})
        child["SNAPSHOT_EDITED"] = "1"
        return child.get(SCRATCH), child.get("SNAPSHOT_OTHER"), "SNAPSHOT_EDITED" in environment()


def _below_os_environ() -> list[Any]:
    """What a child started now receives after the environment changed below Python's mirror of it
    (``os.putenv`` and ``os.unsetenv``, as C code calling setenv does): ``inherited_environment``
    reports the child's real environment, ``environment`` the mirror."""
    seen: list[Any] = []
    os.putenv(SCRATCH, "put")
    try:
        seen += [inherited_environment().get(SCRATCH), environment().get(SCRATCH)]
    finally:
        os.unsetenv(SCRATCH)
    with scoped_env({SCRATCH: "mirror"}):
        os.unsetenv(SCRATCH)
        seen += [inherited_environment().get(SCRATCH), environment().get(SCRATCH)]
    return seen


def _in_ci(value: str) -> bool:
    with unset(["CI"]), scoped_env({"CI": value} if value else {}):
        return running_in_ci()


def knob_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    """``Knobs.from_env`` for every spelling of every knob alone (the rest unset), then pairwise rows
    of the documented spellings (a refused one would hide the rest of its row)."""
    for name, (documented, near_misses) in KNOB_SPELLINGS.items():
        for spelling in documented + near_misses:
            corpus.add(f"knobs/{name}={spelling!r}", _resolved, {name: spelling} if spelling else {})
        for spelling in _derived_spellings(documented + near_misses):
            corpus.add(f"knobs/{name}={spelling!r} (derived)", _resolved, {name: spelling})
    rows = pairwise({name: documented for name, (documented, _) in KNOB_SPELLINGS.items()}, rng, candidates=8)
    for i, row in enumerate(rows):
        values = {k: v for k, v in row.items() if v}
        label = " ".join(f"{k.removeprefix('VT_')}={v!r}" for k, v in sorted(values.items()))
        corpus.add(f"knobs/row {i:02d} {label}", _resolved, values)
    corpus.add("knobs/defaults", _knob_defaults)
    # the environment helpers around the knobs, each with a variable of the corpus's own
    corpus.add("knobs/environment then restore_environment", _restore_round_trip)
    corpus.add("knobs/unset over a generator", _unset_generator)
    corpus.add("knobs/child_env", _child_env_view)
    corpus.add("knobs/inherited_environment after os.putenv and os.unsetenv", _below_os_environ)
    for manager in ("scoped_env", "unset"):
        for effect in ("sets another", "changes another", "removes another", "sets its own"):
            corpus.add(f"knobs/{manager}: what the block {effect} variable leaves", _block_effect, manager, effect)
    for value in ("", "0", "false", "No", "1", "true", "yes", " 0 ", "gitlab"):
        corpus.add(f"knobs/running_in_ci CI={value!r}", _in_ci, value)


def attention_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    """The public kernels on caches with the bf16 and float32 dtypes, odd head_dims, block tables out
    of order, several rows with contexts in any order, and non-finite values in the cache."""
    rows = pairwise({"arm": ("default", "scalar_fma", "bfdot", "blas"), "kv": ("bf16", "f32"),
                     "hd": ("1", "3", "4", "7", "8"), "bs": ("1", "3", "16"), "fill": ("plain", "nonfinite")}, rng)
    for i, row in enumerate(rows):
        hd, bs, kv_dtype = int(row["hd"]), int(row["bs"]), BF16 if row["kv"] == "bf16" else np.dtype(np.float32)
        ctx_max = 11
        nb = -(-ctx_max // bs) + 2
        k_cache = _edge_array(rng, (2, hd, nb, bs), False).astype(kv_dtype)
        v_cache = _edge_array(rng, (2, nb, bs, hd), False).astype(kv_dtype)
        if row["fill"] == "nonfinite":
            k_cache[0, 0, nb - 1, bs - 1] = np.nan
            v_cache[1, nb - 1, bs - 1, 0] = np.inf
        table = rng.permutation(nb).astype(np.intp)
        q = _edge_array(rng, (4, hd), False)
        scale = np.float32(1.0 / math.sqrt(hd))
        tag = f"{i:02d} {row['arm']} kv={row['kv']} hd={hd} bs={bs} {row['fill']}"
        for ctx in (1, 5, ctx_max):
            corpus.add(f"attention/paged_attention {tag} ctx={ctx}",
                       paged_attention, q, k_cache, v_cache, table, ctx, scale, row["arm"], watch=(q, k_cache, v_cache))
        rows_q = _edge_array(rng, (3, 4, hd), False)
        for ctxs in ((3, 4, 5), (5, 1, 3), (11, 11, 11)):
            corpus.add(f"attention/paged_attention_rows {tag} ctxs={ctxs}",
                       paged_attention_rows, rows_q, k_cache, v_cache, table, np.array(ctxs), scale, row["arm"], watch=(rows_q, k_cache, v_cache))


# block tables a caller may hand the public kernels that the cache cannot serve: a block past the pool,
# a negative id, fewer blocks than the context needs, an empty table, float and bool ids
BAD_TABLES: tuple[tuple[str, Any], ...] = (
    ("a block past the pool", [1, 4]), ("a block far past the pool", [0, 1000]), ("a negative block", [-1, 0]),
    ("too negative a block", [-5, 0]), ("fewer blocks than ctx needs", [0]), ("an empty table", []),
    ("float ids", np.array([0.0, 1.0])), ("bool ids", np.array([True, False])))


def _bad_table_cases(corpus: Corpus) -> None:
    """Each public kernel that reads a block table, given one the 4-block cache cannot serve (and a
    context past what the table covers, zero and negative): refused, or what comes back."""
    k_cache = (np.arange(2 * 4 * 4 * 2, dtype=np.float32).reshape(2, 4, 4, 2) / 16).astype(np.float32)
    v_cache = (np.arange(2 * 4 * 2 * 4, dtype=np.float32).reshape(2, 4, 2, 4) / 32).astype(np.float32)
    q, scale = np.linspace(-1, 1, 4 * 4, dtype=np.float32).reshape(4, 4), np.float32(0.5)
    for label, ids in BAD_TABLES:
        table = ids if isinstance(ids, np.ndarray) else np.array(ids, dtype=np.intp)
        for ctx in (3, 4):
            corpus.add(f"attention/bad table {label} ctx={ctx}: gather_kv", gather_kv, k_cache, v_cache, table, ctx)
            for arm in ("default", "scalar_fma"):
                corpus.add(f"attention/bad table {label} ctx={ctx}: paged_attention {arm}",
                           paged_attention, q, k_cache, v_cache, table, ctx, scale, arm, watch=(q, k_cache, v_cache))
        corpus.add(f"attention/bad table {label}: paged_attention_rows", paged_attention_rows, q[None].repeat(2, 0),
                   k_cache, v_cache, table, np.array([1, 4]), scale)
    table = np.array([2, 0, 3], dtype=np.intp)
    for ctx in (0, -1, 7, 9):
        corpus.add(f"attention/context {ctx} on a 3-block table: paged_attention", paged_attention, q, k_cache,
                   v_cache, table, ctx, scale)


def _correctly_rounded(q: Fraction) -> np.float32:
    """The float32 nearest the exact rational ``q`` (ties to even), by comparing exact distances."""
    near = np.float32(float(q))
    candidates = (np.nextafter(near, np.float32(-np.inf)), near, np.nextafter(near, np.float32(np.inf)))
    return min(candidates, key=lambda v: (abs(Fraction(float(v)) - q), int(np.array(v).view(np.int32)) & 1))


def fma_hard_cases() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``a*b + c`` where the exact value lies within 2**-46 (relative) of a float32 midpoint, above or
    below it, both parities of ``c``'s last bit, both signs, the product smaller and larger than the
    addend, at several exponents: where one rounding and two (float64, then float32) part."""
    a, b, c = [], [], []
    tiny = 2.0**-23
    for scale in (2.0**-20, 1.0, 2.0**30):
        for step in range(4):  # c's last mantissa bit 0, 1, 0, 1
            for sign in (1.0, -1.0):
                for above in (False, True):
                    x, y = 2.0**-12 * (1 + tiny), 2.0**-12 * ((1 + tiny) if above else (1 - tiny))
                    addend = sign * (1 + step * tiny) * scale
                    a.append(sign * x * math.sqrt(scale) if scale != 2.0**-20 else sign * x * 2.0**-10)
                    b.append(y * math.sqrt(scale) if scale != 2.0**-20 else y * 2.0**-10)
                    c.append(addend)
                    a.append(addend)  # the product larger than the addend: a*b = addend, c = the small one
                    b.append(1.0)
                    c.append(sign * x * y * scale)
    return np.array(a, np.float32), np.array(b, np.float32), np.array(c, np.float32)


def _fma_against_exact(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> Any:
    """fma_f32's results at the hard cases, and which of them are the correctly rounded float32."""
    got = numerics.fma_f32(a, b, c)
    exact = [_correctly_rounded(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))) for x, y, z in zip(a, b, c, strict=True)]
    return got, [bool(np.array(g).view(np.int32) == np.array(e).view(np.int32)) for g, e in zip(got, exact, strict=True)]


def _midpoints(values: tuple[float, ...]) -> list[float]:
    """The float64 midpoint between each value's float32 and its upper neighbour (exact in float64)."""
    out = []
    for v in values:
        f = np.float32(v)
        out.append((float(f) + float(np.nextafter(f, np.float32(np.inf)))) / 2)
    return out


# values whose float32 rounding is decided within a few float64 ulps: the normal range, the top and
# bottom of float32's subnormals, the smallest normal, and float32's largest
ROUNDING_SPOTS = (1.2345678, -3.0e-20, 6.0e37, 2.0**-126, 0.999 * 2.0**-126, 5 * 2.0**-149, -2.0**-140,
                  3.4028234663852886e38 * 0.99)


def _near_at_the_threshold() -> dict[str, Any]:
    """near_f32_boundary at NEAR_ULPS - 1, NEAR_ULPS and NEAR_ULPS + 1 float64 ulps (or, below float32's
    smallest normal, the same multiples of the float64 spacing of the scaled value) from midpoints."""
    out: dict[str, Any] = {}
    for mid in _midpoints(ROUNDING_SPOTS):
        if abs(mid) >= 2.0**-126:
            ulp = math.ulp(mid)
        else:
            ulp = float(np.spacing(abs(mid) * 2.0**149)) * 2.0**-149
        values = np.array([mid + k * ulp for k in (-numerics.NEAR_ULPS - 1, -numerics.NEAR_ULPS, -1, 0, 1,
                                                   numerics.NEAR_ULPS - 1, numerics.NEAR_ULPS,
                                                   numerics.NEAR_ULPS + 1)])
        out[repr(mid)] = numerics.near_f32_boundary(values)
    out["exact float32 values and 2**-126"] = numerics.near_f32_boundary(
        np.array([1.0, 2.0**-126, 2.0**-149, -2.0**-126, 0.0, -0.0, np.inf, np.nan]))
    return out


def _decimal_roundings() -> list[tuple[str, Any, bool]]:
    """f32_of_decimal at midpoints and a hair either side, ties of both parities, the overflow threshold
    and a hair either side, subnormals: each result, and whether it is the nearest float32."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 400  # every value below exact: a hair is 2**-200 of a midpoint
        values: list[Decimal] = []
        for mid in _midpoints(ROUNDING_SPOTS[:-1]) + _midpoints((1.0, 1.0000001, 2.0**-149, 2.0 * 2.0**-149)):
            hair = abs(Decimal(mid)) * Decimal(2) ** -200
            values += [Decimal(mid) - hair, Decimal(mid), Decimal(mid) + hair]
        threshold = Decimal(2) ** 128 - Decimal(2) ** 103
        values += [threshold - 1, threshold, threshold + 1, -threshold, Decimal(2) ** -150, Decimal(2) ** -151,
                   Decimal(3) * Decimal(2) ** -151, Decimal(0), Decimal("-0")]
    out = []
    for d in values:
        got = numerics.f32_of_decimal(d)
        if d == 0:  # a zero keeps its sign
            want = np.float32(float(d))
        elif d.copy_abs() >= threshold:
            want = np.float32(math.copysign(math.inf, d))
        elif d.copy_abs() > Decimal(float(np.finfo(np.float32).max)):  # between the largest float32 and the threshold
            want = np.float32(math.copysign(float(np.finfo(np.float32).max), d))
        else:
            want = _correctly_rounded(Fraction(d))
        out.append((str(d), got, bool(np.array(got).view(np.int32) == np.array(want).view(np.int32))))
    return out


def _against_exact(name: str, x: np.ndarray) -> Any:
    """exp_f32 or silu_f32 of ``x``, and which results are the correctly rounded float32."""
    from decimal import Decimal, localcontext

    got = {"exp": numerics.exp_f32, "silu": numerics.silu_f32}[name](x)
    flags = []
    with localcontext() as ctx:
        ctx.prec = 80
        for v, g in zip(x.tolist(), got, strict=True):
            d = Decimal(v)
            exact = d.exp() if name == "exp" else d / (1 + (-d).exp())
            flags.append(bool(np.array(g).view(np.int32) == np.array(_correctly_rounded(Fraction(exact))).view(np.int32)))
    return got, flags


def _beside_midpoints(approx: Callable[[np.ndarray], np.ndarray], pool: np.ndarray) -> np.ndarray:
    """The members of ``pool`` whose float64 result lies within NEAR_ULPS of a float32 midpoint."""
    return pool[numerics.near_f32_boundary(approx(pool.astype(np.float64)))]


def rounding_cases(corpus: Corpus) -> None:
    """The correctly rounded transcendentals where rounding is decided: the near test at its threshold,
    decimal rounding at ties and overflow, exp and silu beside midpoints (found among a fixed draw) and
    across float32's subnormal-to-normal edge, cos/sin beside midpoints, power at its edges."""
    corpus.add("numerics/near_f32_boundary at the threshold, normal and subnormal", _near_at_the_threshold)
    corpus.add("numerics/f32_of_decimal at midpoints, ties and the overflow threshold", _decimal_roundings)
    draw = (np.random.default_rng(20261208).standard_normal(2_000_000) * 20).astype(np.float32)
    beside_exp = _beside_midpoints(np.exp, draw)[:8]
    beside_silu = _beside_midpoints(lambda v: v / (1.0 + np.exp(-v)), draw)[:8]
    # odd multiples of 2**-149 from 2**-128 to 2**-124: silu(x) is about x / 2, exactly a midpoint in
    # float64, and the exact value lies just above or below it
    edge = (np.arange(2**21 + 1, 2**25, 2**17 + 2, dtype=np.float64) * 2.0**-149).astype(np.float32)
    # and densely where silu(x) lands just below float32's smallest normal: x = (2**24 - 2j - 1) 2**-149
    edge = np.concatenate([edge, (np.arange(2**24 - 1, 2**24 - 80, -2, dtype=np.float64) * 2.0**-149).astype(np.float32)])
    for name, label, x in (("exp", "beside midpoints", beside_exp), ("silu", "beside midpoints", beside_silu),
                           ("silu", "across the subnormal edge", edge), ("silu", "across the negative subnormal edge", -edge),
                           ("exp", "at the underflow and overflow edges",
                            np.array([-87.33655, -103.97, -103.28, 88.72283, 88.72284, 0.0, -0.0], np.float32))):
        corpus.add(f"numerics/{name}_f32 of {x.size} values {label}, against exact", _against_exact, name, x)
    inv_freq = 1.0 / numerics.pow_f64(500_000.0, np.arange(0, 128, 2, dtype=np.float64) / 128)
    angles = (np.arange(32_768, dtype=np.float64)[:, None] * inv_freq[None, :]).ravel()
    beside = np.unique(np.concatenate([_beside_midpoints(np.cos, angles)[:6], _beside_midpoints(np.sin, angles)[:6]]))
    corpus.add(f"numerics/cos_sin_f32 of {beside.size} RoPE angles beside float32 boundaries", numerics.cos_sin_f32,
               beside)
    corpus.add("numerics/pow_f64 at its edges", numerics.pow_f64, 10_000.0,
               np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0 / 98, 1e-300, 5e-324, 96.0 / 98, 127.0 / 128]))


def _dispatched(arm: str, q_dtype: str, kv_dtype: str) -> str:
    """The name of the body ``dispatch_body`` picks (a function's text would be its address)."""
    from vtengine.attention import dispatch_body

    return dispatch_body(arm, q_dtype, kv_dtype).__name__


def _arm_record(kernel: str, name: str) -> Any:
    from vtengine.arms import arm

    return arm(kernel, name)


def attention_and_dispatch_cases(corpus: Corpus, rng: np.random.Generator) -> None:
    attention_cases(corpus, rng)
    _bad_table_cases(corpus)
    dispatch_cases(corpus)


def dispatch_cases(corpus: Corpus) -> None:
    """The tables the arms are chosen from: each (arm, q dtype, kv dtype) to its attention body,
    unknown dtypes and arms included; each dtype to its kernel's name; each (kernel, arm) record."""
    from vtengine.arms import ARMS
    from vtengine.attention import dtype_name

    for arm_name in ("default", "scalar_fma", "bfdot", "blas", "fast"):
        for q_dtype in ("f32", "bf16", "fp8", "f16"):
            for kv_dtype in ("f32", "bf16", "fp8", "f16"):
                corpus.add(f"attention/dispatch_body {arm_name} q={q_dtype} kv={kv_dtype}", _dispatched,
                           arm_name, q_dtype, kv_dtype)
    for dtype in (np.float32, BF16, FP8, np.float16, np.float64, np.int8, np.uint8):
        corpus.add(f"attention/dtype_name {np.dtype(dtype).name}", dtype_name, np.dtype(dtype))
    for kernel in ("paged_attention", "gemv", "softmax"):
        for name in ("default", "scalar_fma", "bfdot", "bf16_dot", "blas", "Default"):
            corpus.add(f"attention/arm {kernel} {name}", _arm_record, kernel, name)
    corpus.add("attention/ARMS", lambda: ARMS)
    from vtengine import attention

    rng = np.random.Generator(np.random.PCG64(7))
    for n_kv, heads, hd, ctx in ((1, 2, 4, 5), (2, 2, 3, 1), (2, 4, 6, 7)):
        q = _edge_array(rng, (heads, hd), False)
        k = _edge_array(rng, (n_kv, hd, ctx + 2), False)
        v = _edge_array(rng, (n_kv, ctx + 2, hd), False)
        for body in ("attend_default", "attend_bfdot", "attend_fma", "attend_scalar"):
            corpus.add(f"attention/{body} kv={n_kv} heads={heads} hd={hd} ctx={ctx}", getattr(attention, body),
                       q, k, v, ctx, np.float32(1.0 / math.sqrt(hd)), watch=(q, k, v))


def provenance_cases(corpus: Corpus) -> None:
    root = Path(corpus.tmp) / "tree"
    files = {"a.py": b"x = 1\n", "b/c.py": b"y = 2\r\n", "b/d.py": b"\xef\xbb\xbfz = 3\n", "e.py": b"",
             "caf\xc3\xa9.py".encode().decode("utf-8"): b"w\n", "f.txt": b"not python\n", "b/__pycache__/c.pyc": b"\x00",
             "B.py": b"upper\n", "g.py": b"no newline"}
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    corpus.add("provenance/source_tree_hash tree", source_tree_hash, root)
    corpus.add("provenance/source_tree_hash str", source_tree_hash, str(root))
    corpus.add("provenance/source_tree_hash sub", source_tree_hash, root / "b")
    corpus.add("provenance/source_tree_hash empty", source_tree_hash, Path(corpus.tmp) / "tree" / "b" / "__pycache__")
    corpus.add("provenance/source_tree_hash missing", source_tree_hash, Path(corpus.tmp) / "absent")
    for name, data in {".git/hooks/h.py": b"hidden\n", "b/.cache/x.py": b"hidden\n", ".top.py": b"dot\n",
                       "b/__pycache__/d.py": b"cached\n", "h/i/j/k.py": b"deep\n"}.items():
        before = source_tree_hash(root)
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
        corpus.add(f"provenance/source_tree_hash after adding {name}", lambda was: (was == source_tree_hash(root),
                                                                                     source_tree_hash(root)), before)
    outside = Path(corpus.tmp) / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "o.py").write_bytes(b"outside\n")
    (outside / "p.py").write_bytes(b"outside file\n")
    for shape in TREE_SHAPES:
        corpus.add(f"provenance/source_tree_hash with {shape}", _hash_with_shape, files, Path(corpus.tmp) / "shapes",
                   outside, shape)
    if Path("/proc/self/mem").exists():  # a file no user can read from its start, root included (Linux)
        unreadable = Path(corpus.tmp) / "unreadable"
        (unreadable / "b").mkdir(parents=True)
        (unreadable / "a.py").write_bytes(b"x = 1\n")
        (unreadable / "b" / "c.py").symlink_to("/proc/self/mem")
        corpus.add("provenance/source_tree_hash with an unreadable file", source_tree_hash, unreadable)
    corpus.add("provenance/check_single_tree the package", check_single_tree)
    corpus.add("provenance/check_single_tree another folder", _single_tree_elsewhere, root)


# what a tree walker meets besides plain files and folders: links in and out of the tree, dangling and
# looping links, a folder named like a source file, an empty and a deep folder
TREE_SHAPES = ("a link to a folder outside", "a link to a folder inside", "a link to a file outside",
               "a link to a file inside", "a dangling link", "a link to itself", "a link to its own folder",
               "a folder named z.py", "empty folders", "a 40-deep folder")


def _hash_with_shape(files: dict[str, bytes], scratch: Path, outside: Path, shape: str) -> Any:
    """``source_tree_hash`` of a fresh tree of ``files`` with ``shape`` added: whether the hash is the
    plain tree's, and the hash (or the error)."""
    root = scratch / shape.replace(" ", "-")
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    plain = source_tree_hash(root)
    if shape == "a link to a folder outside":
        (root / "linked").symlink_to(outside / "sub", target_is_directory=True)
    elif shape == "a link to a folder inside":
        (root / "again").symlink_to(root / "b", target_is_directory=True)
    elif shape == "a link to a file outside":
        (root / "l.py").symlink_to(outside / "p.py")
    elif shape == "a link to a file inside":
        (root / "l.py").symlink_to(root / "a.py")
    elif shape == "a dangling link":
        (root / "l.py").symlink_to(root / "nothing.py")
    elif shape == "a link to itself":
        (root / "l.py").symlink_to(root / "l.py")
    elif shape == "a link to its own folder":
        (root / "b" / "loop").symlink_to(root / "b", target_is_directory=True)
    elif shape == "a folder named z.py":
        (root / "z.py").mkdir()
        (root / "z.py" / "inner.py").write_bytes(b"inner\n")
    elif shape == "empty folders":
        (root / "m" / "n").mkdir(parents=True)
    elif shape == "a 40-deep folder":
        deep = root.joinpath(*["d"] * 40)
        deep.mkdir(parents=True)
        (deep / "deep.py").write_bytes(b"deep\n")
    return plain == source_tree_hash(root), source_tree_hash(root)


def _single_tree_elsewhere(root: Path) -> Any:
    """``check_single_tree`` against a folder the package is not in: the refusal, the package's path
    (the host's) written <package>, and whether it names every loaded vtengine module (how many are
    loaded is this process's business)."""
    import sys

    try:
        check_single_tree(root)
    except MixedImportsError as error:
        text = str(error).replace(str(package_dir()), "<package>").replace(str(root), "<root>")
        loaded = [name for name, module in list(sys.modules.items())
                  if (name == "vtengine" or name.startswith("vtengine.")) and getattr(module, "__file__", None)]
        return "raises MixedImportsError", all(f"{name} from <package>" in text for name in loaded), \
            text.split(" but ")[0]
    return "no refusal"


# The CLI, in this process (``vtengine.cli.main(argv)``; the families run it in subprocesses, for what
# only a process shows: signals, exit at interpreter end): each option of each command through a pool of
# values (zero and negative counts, ids with zero padding, spaces, hex, underscores and empty items,
# non-ASCII text, every --json target, a checkpoint folder and a missing one), one at a time around a
# base command line. The outcome: the exit code, stdout (a JSON document without its meta, which holds
# the source hash and this host's knobs), the file --json wrote, and stderr's own lines (the engine's
# messages, whitespace collapsed; tables, bench's timings and click's usage text left out: those are the
# terminal's width and click's version, not the engine's behaviour).
CLI_COMMANDS: dict[str, tuple[dict[str, str], dict[str, tuple[str, ...]]]] = {
    "generate": ({"--prompt": "hi", "--tokens": "2"},
                 {"--prompt": ("", "héllo ✓", "-", "a\tb"), "--tokens": ("1", "0", "-2", "x", "09"),
                  "--json": ("-", "FILE", "DIR/missing/out.json", "EXISTING", "DIR"), "--model": ("CHECKPOINT", "MISSING")}),
    "score": ({"--ids": "1,2,3"},
              {"--ids": ("072,1,05", " 4, 5", "1,,2", "0x10,1", "1_0,2", "-1,2", "511,0", "512,1", "7", "+3,4"),
               "--eps": ("0", "1e9", "nan"), "--json": ("-", "FILE"), "--model": ("CHECKPOINT",)}),
    "score ": ({"--prompt": "ab", "--reference": "cd"},
               {"--prompt": ("", "héllo"), "--reference": ("", "✓ ok"), "--json": ("-",)}),
    "bench": ({"--tokens": "2", "--prompt-tokens": "1", "--runs": "1", "--json": "-"},
              {"--tokens": ("0",), "--prompt-tokens": ("0", "3"), "--runs": ("0",), "--model": ("CHECKPOINT",)}),
    "arms": ({"--json": "-"}, {}),
}
BOX = frozenset(chr(c) for c in range(0x2500, 0x2580))


def _json_or_text(text: str, command: str) -> Any:
    try:
        doc = json.loads(text)
    except ValueError:
        return text
    return _portable(doc, timings=command == "bench")


def _portable(doc: Any, timings: bool) -> Any:
    """A JSON document without what the host decides: meta (source hash, this host's knobs), the cache
    folder among the knobs it reports (a path of this host's), an arm's ``differs_here`` (measured on
    this host) and, for bench, every float (timings: a negative or non-finite one is kept) and the order
    of its profile's rows (by seconds)."""
    if isinstance(doc, dict):
        return {k: ("<this host's>" if k == "VT_CACHE_DIR" else _portable(v, timings)) for k, v in doc.items()
                if k not in ("meta", "differs_here")}
    if isinstance(doc, list):
        items = [_portable(v, timings) for v in doc]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True)) if timings else items
    if timings and isinstance(doc, float):  # the host's number; its sign and finiteness are the engine's
        return "<float>" if math.isfinite(doc) and doc >= 0 else f"<float {doc!r}>"
    return doc


def _bench_lines(stderr: str) -> list[str]:
    """``bench``'s own lines with the host's timings masked: the summary's rates and each table row's
    seconds and share; the rest (the runs, the arms, each row's phase, stage and calls) as printed. The
    rows are sorted, since the table orders them by time."""
    head, rows = [], []
    for line in stderr.splitlines():
        if not BOX & set(line):
            if line.strip():
                head.append(re.sub(r"\d+ tok/s", "<n> tok/s", " ".join(line.split())))
            continue
        cells = [cell.strip() for cell in re.split("[\u2500-\u257f]", line) if cell.strip()]
        if len(cells) == 5 and cells[0] != "phase":
            cells[2], cells[4] = "<seconds>", "<share>"
        if cells:
            rows.append(" | ".join(cells))
    return head + sorted(rows)


def _own_lines(stderr: str, command: str) -> list[str]:
    if command == "bench":
        return _bench_lines(stderr)
    lines = []
    for line in stderr.splitlines():
        if not line.strip() or BOX & set(line) or line.startswith(("Usage:", "Try '", "Error: ", "\u2577")):
            continue
        lines.append(" ".join(line.split()))
    return lines


def _text_endings(argv: list[str], out: Path | None) -> Any:
    """How each text stream ``vtengine ARGV`` writes ends (stdout, stderr, the --json file): with exactly
    one newline, none, or more, and whether it holds a carriage return. A JSON document or a line a
    program prints without its final newline runs into the next prompt or the next file concatenated."""
    from vtengine import cli

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
        cli.main(argv)

    def ending(text: str) -> str:
        if not text:
            return "empty"
        tail = len(text) - len(text.rstrip("\n"))
        return f"{['no', 'one', 'two', 'more'][min(tail, 3)]} final newline" + (", a carriage return" if "\r" in text else "")

    return {"stdout": ending(stdout.getvalue()), "stderr": ending(stderr.getvalue()),
            "file": ending(out.read_text()) if out is not None and out.is_file() else None}


JSON_TARGETS = ("a symbolic link to a file", "a dangling symbolic link", "a hard link", "a relative symbolic link "
                "into a sibling folder")


def _json_through(kind: str, root: Path, tmp: str) -> Any:
    """``generate --json NAME`` where NAME is a link a user keeps (a stable name for today's results):
    the command's outcome, whether NAME is still the link it was, and whether the file it points at got
    the document. Written through the link, as a shell's ``>`` does; a write that renames a temporary
    file over NAME replaces the link instead and leaves its target as it was."""
    folder = root / kind.replace(" ", "-")
    (folder / "runs").mkdir(parents=True)
    target, name = folder / "runs" / "today.json", folder / "latest.json"
    if kind != "a dangling symbolic link":
        target.write_text("old\n")
    if kind == "a hard link":
        os.link(target, name)
    elif kind.startswith("a relative"):
        name.symlink_to(Path("runs") / "today.json")
    else:
        name.symlink_to(target)
    done = _cli_run(["generate", "--prompt", "hi", "--tokens", "1", "--json", str(name)], None, tmp)
    return done[0], {"still a symbolic link": name.is_symlink(),
                     "one file with the target": name.exists() and target.exists() and os.path.samefile(name, target),
                     "the target holds the document": target.exists() and target.read_text().startswith("{")}


# --json targets a write fails at: the open (a folder, a path under a regular file) or only when the
# written bytes meet the disk (a file size limit: the open succeeds, the data is refused, EFBIG at the
# write or the flush, as on a full disk). Never a real device such as /dev/full: a buggy writer that
# renames a temporary file over its target would replace the machine's device node (as root).
UNWRITABLE_TARGETS = ("a folder", "a path under a regular file", "a file past a 64-byte size limit")
JSON_COMMANDS = (["generate", "--prompt", "hi", "--tokens", "1"], ["score", "--ids", "1,2,3"],
                 ["bench", "--tokens", "2", "--prompt-tokens", "1", "--runs", "1"])


def _json_unwritable(argv: list[str], kind: str, root: Path, tmp: str) -> Any:
    """``ARGV --json TARGET`` where the write fails: the outcome (an error a user can act on, never a
    success that wrote nothing) and what is left beside the target."""
    root.mkdir(parents=True, exist_ok=True)
    limit: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    if kind == "a folder":
        target = root / "a-folder"
        target.mkdir(exist_ok=True)
    elif kind == "a path under a regular file":
        (root / "a-file").write_text("kept\n")
        target = root / "a-file" / "out.json"
    else:
        target, limit = root / "limited.json", _file_size_limit(64)
    with limit:
        done = _cli_run([*argv, "--json", str(target)], None, tmp)
    sizes = {path.name: path.stat().st_size for path in sorted(root.iterdir()) if path.is_file()}
    return done, sorted(os.listdir(root)), sizes


def _cli_run(argv: list[str], out: Path | None, tmp: str) -> Any:
    """``vtengine ARGV`` in this process: (exit status, stdout, stderr's own lines, the --json file)."""
    from vtengine import cli

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            cli.main(argv)
            code: Any = 0
        except SystemExit as leaving:  # the process's exit status, as the shell sees it
            code = leaving.code if leaving.code is None or isinstance(leaving.code, str) else int(leaving.code)
    command = argv[0]
    written: Any = None
    if out is not None and out.is_file():
        written = _json_or_text(out.read_text(), command)
    return (code, _json_or_text(stdout.getvalue().replace(tmp, "<tmp>"), command),
            [line.replace(tmp, "<tmp>") for line in _own_lines(stderr.getvalue(), command)], written)


def _help_argvs() -> list[list[str]]:
    """``-h`` and ``--help`` (docs/contracts.md: every program takes both) on the program and on each of
    its commands, walked from the typer app (a new command gets them too), and ``help`` as a command."""
    import typer

    from vtengine import cli

    commands = sorted(typer.main.get_command(cli.app).commands)  # type: ignore[attr-defined]
    return [[*prefix, flag] for prefix in ([], *([name] for name in commands)) for flag in ("-h", "--help")]


def _help_run(argv: list[str], tmp: str) -> tuple[Any, ...]:
    """The exit status, whether stdout is a usage text, and the help contract the CLI states (plain
    click help: no rich panels, no markup parsed out of a help text, no option name cut): which
    parameters' declared help texts are not in it whole (whitespace aside) and which option spellings
    are not in it as words. The wording and wrapping are typer's and click's, not pinned."""
    import typer

    from vtengine import cli

    code, stdout, _, _ = _cli_run(argv, None, tmp)
    text = stdout if isinstance(stdout, str) else ""
    command = typer.main.get_command(cli.app)
    for word in argv[:-1]:
        command = command.commands[word]  # type: ignore[attr-defined]
    flat = " ".join(text.split())
    params = [p for p in command.params if p.name != "help"]
    helps = {p.name: getattr(p, "help", None) or "" for p in params}
    cut = [name for name, declared in helps.items() if declared and " ".join(declared.split()) not in flat]
    spellings = [o for p in params for o in (*p.opts, *p.secondary_opts) if o.startswith("-")]
    absent = [o for o in spellings if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)]
    return (code, text.lstrip().startswith("Usage:"), bool(BOX & set(text)), cut, absent)


def cli_cases(corpus: Corpus) -> None:
    tmp = Path(corpus.tmp) / "cli"
    checkpoint_dir = tmp / "checkpoint"
    tmp.mkdir()
    corpus.add("cli/export vt-tiny", _cli_run, ["export", "vt-tiny", str(checkpoint_dir)], None, corpus.tmp)
    corpus.add("cli/export again", _cli_run, ["export", "vt-tiny", str(checkpoint_dir)], None, corpus.tmp)
    corpus.add("cli/export listing", _listing, checkpoint_dir)
    for name, (base, pools) in CLI_COMMANDS.items():
        rows = [dict(base)] + [{**base, option: value} for option, values in pools.items() for value in values]
        for i, row in enumerate(rows):
            argv, out = [name.strip()], None
            for option, value in row.items():
                if value in ("FILE", "EXISTING"):
                    out = tmp / f"{name.strip()}-{i}.json"
                    if value == "EXISTING":  # a longer document already there: replaced, never appended to or kept
                        out.write_text(json.dumps({"old": "x" * 5000}))
                    value = str(out)
                value = {"CHECKPOINT": str(checkpoint_dir), "MISSING": str(tmp / "missing")}.get(value, value)
                argv += [option, value.replace("DIR", str(tmp))]
            label = " ".join(argv[1:]).replace(corpus.tmp, "<tmp>")
            corpus.add(f"cli/{name.strip()} {i:02d} {label}", _cli_run, argv, out, corpus.tmp)
    # paths as a user types them: relative to the working folder (which is the cli folder here), with a
    # trailing slash, or starting with ~ (HOME is the cli folder)
    relative = (["generate", "--prompt", "hi", "--tokens", "2", "--model", "checkpoint"],
                ["score", "--ids", "1,2,3", "--model", "./checkpoint/"],
                ["generate", "--prompt", "hi", "--tokens", "1", "--json", "rel.json"],
                ["export", "vt-tiny", "rel/export"],
                ["generate", "--prompt", "hi", "--tokens", "1", "--model", "~/checkpoint"],
                ["export", "vt-tiny", "~/home-export"])
    # the commands that report knobs, each under knobs set in its environment (the rest as the gate's)
    for k, knob_env in enumerate(({"VT_PROFILE": "1"}, {"VT_ACT_DTYPE": "f32", "VT_KV_BLOCK_SIZE": "3"},
                                  {"VT_CPU_THREADS": "2", "VT_DEQUANT_CACHE_MB": "1", "VT_DEQUANT_CACHE_POLICY": "pin"},
                                  {"VT_CPU_PAGED_ATTN_BFDOT": "1", "VT_CPU_GEMV_BF16_DOT": "1"})):
        label = " ".join(f"{name}={value}" for name, value in knob_env.items())
        for argv in (["bench", "--tokens", "2", "--prompt-tokens", "1", "--runs", "1", "--json", "-"],
                     ["generate", "--prompt", "hi", "--tokens", "2", "--json", "-"], ["arms", "--json", "-"])[:3 if k in (0, 3) else 2]:
            corpus.add(f"cli/under knobs {k} {label}: {' '.join(argv)}", _cli_run_with, knob_env, argv, corpus.tmp)
    for kind in JSON_TARGETS:
        corpus.add(f"cli/generate --json into {kind}", _json_through, kind, tmp / "json targets", corpus.tmp)
    for argv in JSON_COMMANDS:
        for kind in UNWRITABLE_TARGETS:
            corpus.add(f"cli/{argv[0]} --json into {kind}", _json_unwritable, argv, kind,
                       tmp / "unwritable" / argv[0], corpus.tmp)
    endings = tmp / "endings"
    endings.mkdir()
    for i, argv in enumerate((["generate", "--prompt", "hi", "--tokens", "2"], ["generate", "--prompt", "hi", "--tokens", "2", "--json", "-"],
                              ["generate", "--prompt", "hi", "--tokens", "2", "--json", "FILE"], ["score", "--ids", "1,2,3", "--json", "-"],
                              ["score", "--ids", "1,2,3", "--json", "FILE"], ["score", "--prompt", "ab", "--reference", "cd"],
                              ["arms", "--json", "-"], ["arms"], ["bench", "--tokens", "2", "--prompt-tokens", "1", "--runs", "1", "--json", "-"],
                              ["--version"], ["generate", "--tokens", "0"], ["score", "--ids", "1,,2"])):
        out = endings / f"{i}.json" if "FILE" in argv else None
        run = [str(out) if part == "FILE" else part for part in argv]
        corpus.add(f"cli/line endings: {' '.join(argv)}", _text_endings, run, out)
    home = tmp / "home"
    shutil.copytree(checkpoint_dir, home / "checkpoint")
    for i, argv in enumerate(relative):
        corpus.add(f"cli/relative {i:02d} {' '.join(argv)}", _cli_run_in, home, argv, corpus.tmp)
    # the ways out that are not a result: the version, options and commands that do not exist, options
    # that exclude or need each other, lengths past the model's context, a checkpoint that does not
    # load, knobs that do not parse
    broken = tmp / "broken-checkpoint"
    shutil.copytree(checkpoint_dir, broken)
    (broken / checkpoint.CONFIG_FILE).write_text(json.dumps({"model_type": "llama"}))
    refused = (["--version"], ["generate", "--bogus", "1"], ["nosuchcommand"],
               ["score", "--ids", "1,2", "--prompt", "a", "--reference", "b"], ["score"], ["score", "--prompt", "a"],
               ["score", "--reference", "b"], ["generate", "--prompt", "hi", "--tokens", "100000"],
               ["generate", "--prompt", "x" * 1100, "--tokens", "1"], ["score", "--ids", ",".join(["1"] * 1100)],
               ["bench", "--prompt-tokens", "1024", "--tokens", "2", "--runs", "1", "--json", "-"],
               ["bench", "--prompt-tokens", "1", "--tokens", "100000", "--runs", "1", "--json", "-"],
               ["generate", "--prompt", "hi", "--tokens", "1", "--model", str(broken)],
               ["score", "--ids", "1,2", "--model", str(tmp)], ["export", "nosuchmodel", str(tmp / "x")])
    for i, argv in enumerate(refused):
        # the temporary folder written <tmp> before the length is taken: a case's id never depends on
        # how long the machine's TMPDIR is
        shown = [a.replace(corpus.tmp, "<tmp>") for a in argv]
        label = " ".join(a if len(a) < 40 else f"<{len(a)} chars>" for a in shown)
        corpus.add(f"cli/refused {i:02d} {label}", _cli_run, argv, None, corpus.tmp)
    _cli_text_cases(corpus, tmp, checkpoint_dir)
    for argv in _help_argvs():
        corpus.add(f"cli/help {' '.join(argv)}", _help_run, argv, corpus.tmp)
    for k, (name, value) in enumerate((("VT_KV_BLOCK_SIZE", "0"), ("VT_CPU_THREADS", "four"),
                                       ("VT_ACT_DTYPE", "fp32"), ("VT_DEQUANT_CACHE_POLICY", "fifo"))):
        for argv in (["generate", "--prompt", "hi", "--tokens", "1"], ["arms", "--json", "-"]):
            corpus.add(f"cli/bad knob {k} {name}={value}: {' '.join(argv)}", _cli_run_with, {name: value}, argv,
                       corpus.tmp)


# characters some layer between the engine and a terminal or a file may take for syntax: console markup
# (rich's [style] and [/], :emoji: codes), HTML, ANSI escapes, format strings (str.format, %, $),
# glob and regex characters, backslashes, quotes, line breaks; each as data the CLI must print as typed
META_TEXTS = ("a stray [/] is text", "[bold]b[/bold] [red]r", "[link=https://x.invalid]l[/link]", "\\[esc]",
              ":smile: :thumbs_up:", "<b>&amp;</b>", "\x1b[31mred\x1b[0m", "{0} {name} {{}}", "%s %d %%", "$HOME ${X}",
              "*?[a-z]+.^$", "back\\slash", "'q' \"qq\" `t`", "two\nlines\r\n")
# the same classes in folder names a user gives (--model, --json, export's target)
META_NAMES = ("ck [1]", "ck[/]", "ck:smile:", "ck{0}", "ck%s", "ck*?", "ck $HOME")


def _cli_text_cases(corpus: Corpus, tmp: Path, checkpoint_dir: Path) -> None:
    for i, text in enumerate(META_TEXTS):
        corpus.add(f"cli/meta text {i:02d} generate --prompt {text!r}", _cli_run,
                   ["generate", "--prompt", text, "--tokens", "1"], None, corpus.tmp)
    corpus.add(f"cli/meta text score --prompt --reference {META_TEXTS[1]!r}", _cli_run,
               ["score", "--prompt", META_TEXTS[1], "--reference", META_TEXTS[0]], None, corpus.tmp)
    for i, name in enumerate(META_NAMES):
        folder = tmp / "meta" / name
        if i < 2:  # a folder a user names: written, then read back (the other names print as these do)
            corpus.add(f"cli/meta name {i:02d} export to {name!r}", _cli_run, ["export", "vt-tiny", str(folder)], None,
                       corpus.tmp)
            corpus.add(f"cli/meta name {i:02d} score --model {name!r}", _cli_run,
                       ["score", "--ids", "1,2", "--model", str(folder)], None, corpus.tmp)
        corpus.add(f"cli/meta name {i:02d} --model missing {name!r}", _cli_run,
                   ["generate", "--prompt", "hi", "--tokens", "1", "--model", str(tmp / "meta-missing" / name)], None,
                   corpus.tmp)
        out = tmp / "meta-json" / f"{name}.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        corpus.add(f"cli/meta name {i:02d} --json {name!r}.json", _cli_run,
                   ["generate", "--prompt", "hi", "--tokens", "1", "--json", str(out)], out, corpus.tmp)


def _cli_run_with(knob_env: dict[str, str], argv: list[str], tmp: str) -> Any:
    with scoped_env(knob_env):
        return _cli_run(argv, None, tmp)


def _cli_run_in(folder: Path, argv: list[str], tmp: str) -> Any:
    """``_cli_run`` with ``folder`` as the working folder and HOME (the model cache elsewhere, so a ``~``
    in a knob's default is not what is listed), then what the folder holds."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        with scoped_env({"HOME": str(folder), "VT_CACHE_DIR": str(folder.parent / "model-cache")}):
            out = folder / "rel.json" if "rel.json" in argv else None
            return _cli_run(argv, out, tmp), [p for p in _listing(folder) if not p.startswith("checkpoint")]
    finally:
        os.chdir(here)


GROUPS = ("numerics", "tokenizer", "knobs", "attention", "provenance", "checkpoint", "engine", "cli", "processes",
          "surface", "boundaries")

# a child process: this package's tree first on its path, a hash seed of its own, its result as JSON
CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
task = sys.argv[2]
if task == "import":
    import importlib.util, pkgutil
    for name in ("numpy", "ml_dtypes", "safetensors", "safetensors.numpy", "typer", "rich", "rich.console", "click",
                 "psutil"):  # a host's own libraries, those installed (click only where typer still needs it)
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    def by_path(name):  # the file alone, without importing the package (whose import is what is watched)
        spec = importlib.util.spec_from_file_location("vt_child_" + name, sys.argv[1] + "/vtengine/" + name + ".py")
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    state, knobs = by_path("processstate"), by_path("knobs")
    before = state.state(knobs.environment)
    import vtengine
    for info in sorted(pkgutil.iter_modules(vtengine.__path__), key=lambda m: m.name):
        if info.name != "__main__":  # that one runs the program
            importlib.import_module("vtengine." + info.name)
    state.settle(before["threads"])
    changes = state.changes(before, state.state(knobs.environment))
    changes.pop("engine objects left alive", None)  # module-level constants: what importing a module makes
    print(json.dumps(changes, sort_keys=True))
elif task == "package":  # what `import vtengine` alone imports that is not Python's own
    before = set(sys.modules)
    import vtengine
    added = {name.partition(".")[0] for name in set(sys.modules) - before}
    print(json.dumps(sorted(added - set(sys.stdlib_module_names) - {"vtengine"})))
elif task == "signals":  # `python -m vtengine --version`: SIGINT's handlers met when heavy modules are first imported
    import contextlib, io, runpy, signal
    seen = {}
    def hook(event, args):
        if event == "import" and args[0] in ("numpy", "ml_dtypes", "safetensors", "typer", "rich", "click"):
            handler = signal.getsignal(signal.SIGINT)
            seen.setdefault(args[0], getattr(handler, "__module__", None) or str(handler))
    sys.addaudithook(hook)
    sys.argv = ["vtengine", "--version"]
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            runpy.run_module("vtengine", run_name="__main__", alter_sys=True)
        except SystemExit:
            pass
    print(json.dumps(sorted(set(seen.values()))))  # which modules import is a library's own choice
elif task == "load":  # the model from the shared cache, nothing more
    from pathlib import Path
    from vtengine.model import load_model
    load_model("vt-tiny", Path(sys.argv[3]))
    print("null")
elif task == "share":  # the model from the shared cache, then three tokens of it
    from pathlib import Path
    from vtengine.engine import Engine
    from vtengine.model import load_model
    from vtengine.tokenizer import encode
    cache = Path(sys.argv[3])
    model = load_model("vt-tiny", cache)
    files = sorted(p.name[:8] for p in cache.iterdir())
    print(json.dumps([model.digest(), files, Engine(model).generate(encode("hash seeds"), 3).tokens]))
"""


def _child(task: str, hash_seed: str, *args: str, tree: Path | None = None) -> Any:
    """``CHILD``'s ``task`` in a fresh interpreter under ``PYTHONHASHSEED=hash_seed``, with ``tree`` (default:
    this package's) first on its path: its JSON, or its exit status and stderr's last line."""
    import subprocess
    import sys

    env = {**inherited_environment(), "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", CHILD, str(tree or package_dir().parent), task, *args],
                          capture_output=True, text=True, timeout=300, env=env)
    if done.returncode != 0:
        return "exit", done.returncode, (done.stderr.strip().splitlines() or [""])[-1]
    return json.loads(done.stdout)


def _two_processes(task: str, folder: Path) -> Any:
    """``task`` in two processes one after the other, under hash seeds 1 and 2, sharing ``folder``: what
    each returned, whether they agree, and what the folder holds after both."""
    first, second = _child(task, "1", str(folder)), _child(task, "2", str(folder))
    return first == second, first, second, _listing(folder)


def _copies_share(root: Path) -> Any:
    """The engine's tree copied twice (the second copy's files touched an hour later, as a checkout
    leaves them), each copy's vt-tiny loaded in a process of its own from one cache folder: what each
    returned, whether they agree, and the folder's files after both (a cache keyed by the sources'
    contents is shared; one keyed by their place or their times is written again)."""
    import time

    cache, results = root / "cache", []
    for index in range(2):
        tree = root / f"tree-{index}"
        shutil.copytree(package_dir(), tree / "vtengine", ignore=shutil.ignore_patterns("__pycache__"))
        if index:
            later = time.time() + 3600
            for path in (tree / "vtengine").rglob("*"):
                os.utime(path, (later, later))
        results.append(_child("share", "0", str(cache), tree=tree))
    return results[0] == results[1], results[0], _listing(cache)


def _versions_share(root: Path) -> Any:
    """Two versions of the engine (the second's sources each end in one more comment line, as the next
    commit's do) load vt-tiny in turn, A, B, A, each in a process of its own, from one cache folder, as
    every checkout and worktree on a machine does: how many cache files there are after each load, and
    whether A's file is still the one it wrote when B has loaded and A loads again (B's load must not
    delete or rewrite A's, and A's second load, a hit, must not rewrite its own). Three loads, not four:
    a fourth, B again, would check the same two things from the other side, at another second of
    ``vtgate check``."""
    cache, trees = root / "cache", [root / "version-a", root / "version-b"]
    for index, tree in enumerate(trees):
        shutil.copytree(package_dir(), tree / "vtengine", ignore=shutil.ignore_patterns("__pycache__"))
        for source in (tree / "vtengine").rglob("*.py") if index else ():
            with source.open("a") as handle:
                handle.write("# another version\n")
    seen: list[dict[str, tuple[int, int]]] = []
    for tree in (*trees, trees[0]):
        _child("load", "0", str(cache), tree=tree)
        seen.append({p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in cache.iterdir()} if cache.is_dir() else {})
    kept = all(seen[2].get(name) == value for name, value in seen[0].items()) and bool(seen[0])
    return [len(files) for files in seen], kept


def processes_cases(corpus: Corpus) -> None:
    """What only several processes show: importing the engine into a host (every module; the host's own
    libraries imported first), `import vtengine` alone, the signal handler `python -m vtengine` has
    when its heavy imports happen, the model cache and generation shared by two processes whose string
    hashes differ (a per-process hash as a file name or an order) and by two copies of the tree."""
    corpus.add("processes/what importing vtengine changes in the host", _child, "import", "1")
    corpus.add("processes/what `import vtengine` alone imports beyond Python's own", _child, "package", "1")
    corpus.add("processes/SIGINT's handlers at the heavy imports of `python -m vtengine --version`", _child,
               "signals", "1")
    root = Path(corpus.tmp) / "processes"
    corpus.add("processes/vt-tiny cache and generation, two processes", _two_processes, "share", root / "cache")
    corpus.add("processes/vt-tiny cache and generation, two copies of the tree", _copies_share, root / "copies")
    corpus.add("processes/vt-tiny cache shared by two versions of the engine, loaded in turn", _versions_share,
               root / "versions")
    for argv in (["--version"], ["arms", "--json", "-"], ["generate", "--prompt", "hi", "--tokens", "2", "--json", "-"]):
        corpus.add(f"processes/the program: vtengine {' '.join(argv)}", _program, argv, root / "cache")


def _program(argv: list[str], cache: Path) -> Any:
    """``python -m vtengine ARGV`` as a user's shell runs it: stdout and stderr pipes (so stdout is
    block-buffered: the interpreter's own PYTHON* settings are not passed on), the exit status, what
    each stream carried (JSON without its meta; stderr's own lines)."""
    import subprocess
    import sys

    env = {k: v for k, v in inherited_environment().items() if not k.startswith("PYTHON")}
    env.update({"PYTHONPATH": str(package_dir().parent), "PYTHONHASHSEED": "0", "VT_CACHE_DIR": str(cache)})
    try:
        done = subprocess.run([sys.executable, "-m", "vtengine", *argv], capture_output=True, text=True, timeout=120,
                              env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "did not end within 120 s"
    command = argv[0] if argv else ""
    return done.returncode, _json_or_text(done.stdout, command), _own_lines(done.stderr, command)


# -- the surface: every public name, its signature, and what a misspelt keyword does --------------------

# modules that check the engine rather than being it (their own surface is no caller's API)
CHECKERS = frozenset({"snapshot", "processstate", "properties", "families", "draws", "reference", "sequences",
                      "probes", "armcheck", "clirunner", "boundaries", "__main__"})
MISSPELT = "snapshot_misspelt"  # a keyword no public callable has: what a typo in a caller's keyword meets


def _no_address(text: str) -> str:
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


def _default_text(value: Any) -> str:
    """A parameter's default as text: a typer option by its default and flags, a function by its name."""
    if hasattr(value, "param_decls") and hasattr(value, "default"):  # typer's OptionInfo / ArgumentInfo
        return f"{type(value).__name__}({value.default!r}, {list(value.param_decls or ())!r})"
    if callable(value):
        return getattr(value, "__qualname__", type(value).__name__)
    return _no_address(repr(value))


def _signature(function: Any) -> str:
    """``function``'s parameters as a caller meets them: name, kind, default; and its return annotation."""
    import inspect

    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return "no signature"
    parts = []
    for parameter in signature.parameters.values():
        text = f"{parameter.kind.name.lower()} {parameter.name}"
        if parameter.annotation is not parameter.empty:
            text += f": {parameter.annotation}"
        if parameter.default is not parameter.empty:
            text += f" = {_default_text(parameter.default)}"
        parts.append(text)
    return f"({'; '.join(parts)}) -> {signature.return_annotation}"


def _class_shape(cls: type) -> Any:
    """A class as a caller sees it: its bases, slots, dataclass parameters and fields (defaults, factories)."""
    shape: list[Any] = [[base.__qualname__ for base in cls.__bases__], "__slots__" in vars(cls)]
    if issubclass(cls, enum.Enum):
        shape.append([(member.name, canon(member.value)) for member in cls])
    if dataclasses.is_dataclass(cls):
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        shape.append({flag: getattr(params, flag) for flag in ("init", "repr", "eq", "order", "unsafe_hash", "frozen")})
        shape.append([(f.name, str(f.type), _default_text(f.default) if f.default is not dataclasses.MISSING else None,
                       f.default_factory is not dataclasses.MISSING, f.init, f.compare) for f in dataclasses.fields(cls)])
    return shape


def _public_modules() -> list[Any]:
    import importlib
    import pkgutil

    import vtengine

    names = sorted(info.name for info in pkgutil.iter_modules(vtengine.__path__))
    return [importlib.import_module(f"vtengine.{name}") for name in names if name not in CHECKERS]


def _misspelt_call(function: Callable[..., Any]) -> Any:
    return function(**{MISSPELT: 1})


def _protocols(value: Any, fresh: Callable[[], Any]) -> dict[str, Any]:
    """What the standard protocols do with ``value``: its repr, equality with an equal fresh one and with
    its copies, hashing, and a pickle round trip (each an outcome of its own)."""
    import copy
    import pickle

    def text(call: Callable[[], Any]) -> str:
        return outcome(call)

    same: Callable[[Any, Any], Any] = lambda a, b: a == b  # noqa: E731
    if dataclasses.is_dataclass(value) and any(isinstance(getattr(value, f.name), np.ndarray)
                                               for f in dataclasses.fields(value)):
        # a dataclass's == on array fields is the interpreter's (3.13 compares field by field): compared by
        # their canonical text instead, which still shows a copy or a round trip that loses a field
        same = lambda a, b: canon(a) == canon(b)  # noqa: E731
    changed = {}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            other = _another_value(getattr(value, field.name))
            if other is not None and field.init:
                changed[f"with {field.name} changed: ==, hash equal"] = text(
                    partial(_changed_field, same, value, field.name, other))
    return {
        **changed,
        "repr": text(lambda: _no_address(repr(value))),
        "== a fresh one": text(lambda: same(value, fresh())),
        "== its copy": text(lambda: same(copy.copy(value), value)),
        "== its deep copy": text(lambda: same(copy.deepcopy(value), value)),
        "hash equals a fresh one's": text(lambda: hash(value) == hash(fresh())),
        "pickle round trip equal": text(lambda: same(pickle.loads(pickle.dumps(value)), value)),
    }


def _another_value(value: Any) -> Any:
    """A value of the same type that differs from ``value`` (None where no such value is made here)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and value.size:
        return value + 1
    return None


def _changed_field(same: Callable[[Any, Any], Any], value: Any, name: str, other: Any) -> tuple[Any, Any]:
    return _equal_and_hash(same, dataclasses.replace(value, **{name: other}), value)


def _equal_and_hash(same: Callable[[Any, Any], Any], a: Any, b: Any) -> tuple[Any, Any]:
    """``a == b`` and, where both hash, whether their hashes are equal (an unhashable pair: None)."""
    try:
        hashes: Any = hash(a) == hash(b)
    except TypeError:
        hashes = None
    return same(a, b), hashes


def _small_model() -> Model:
    config = ModelConfig(name="surface", vocab_size=48, d_model=32, n_layers=1, n_heads=4, n_kv_heads=2, d_ff=48,
                         max_context=32, seed=7)
    return Model(config, generate_tensors(config))


def _instances() -> dict[str, Callable[[], Any]]:
    """One fresh instance of each public class a caller holds, by a maker (called again for a fresh equal one)."""
    from vtengine.arms import arm
    from vtengine.dequant import CacheCounters
    from vtengine.engine import Generation, Scores, Speculation
    from vtengine.gemv import Linear
    from vtengine.kvcache import PagedKVCache, Sequence
    from vtengine.model import QuantizedWeight
    from vtengine.profiler import Profiler

    model = _small_model()
    ramp = np.arange(6, dtype=np.float32)
    return {
        "Knobs": Knobs,
        "Knobs(act_dtype=f32, cpu_threads=2)": partial(Knobs, act_dtype="f32", cpu_threads=2),
        "ModelConfig": ModelConfig,
        "Arm": partial(arm, "paged_attention", "default"),
        "CacheCounters": partial(CacheCounters, 1, 2, 3, 4),
        "DequantCache": partial(DequantCache, 1000),
        "Generation": lambda: Generation([1, 2], [0.5, 0.25], ramp.reshape(2, 3).copy()),
        "Scores": lambda: Scores([1], [0.5], ramp[:3].reshape(1, 3).copy()),
        "Speculation": partial(Speculation, [1, 2], 3, 1),
        "Sequence": partial(Sequence, 0),
        "PagedKVCache": partial(PagedKVCache, model.config, 4, 16, np.dtype(np.float32)),
        "QuantizedWeight": lambda: QuantizedWeight(*numerics.quantize_fp8_blocks(np.ones((2, 4), np.float32))),
        "Linear": partial(Linear, "default", None, 1),
        "Profiler": Profiler,
        "Model": _small_model,
        "Engine": partial(Engine, model, Knobs()),
    }


def surface_cases(corpus: Corpus) -> None:
    """The package's public surface: each module's public names (a signature, a class's shape, a
    constant's value), every public function, class and method called with a keyword none of them has
    (a typo in a caller's keyword must be refused, not dropped), and the standard protocols (equality,
    copies, hashing, pickling, repr) on one instance of each public class."""
    import inspect

    for module in _public_modules():
        short = module.__name__.removeprefix("vtengine.")
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or inspect.ismodule(value) or name == "annotations":
                continue
            if inspect.isclass(value) or callable(value):
                if getattr(value, "__module__", None) != module.__name__:
                    continue  # imported from elsewhere: recorded where it is defined
                case = f"surface/{short}.{name}"
                if inspect.isclass(value):
                    corpus.add(f"{case} class", _class_shape, value)
                    if issubclass(value, BaseException):
                        continue
                    for attribute in sorted(vars(value)):
                        if not attribute.startswith("_") and callable(getattr(value, attribute, None)):
                            corpus.add(f"{case}.{attribute} signature", _signature, getattr(value, attribute))
                if not (inspect.isclass(value) and issubclass(value, enum.Enum)):  # an enum's call is the stdlib's
                    corpus.add(f"{case} signature", _signature, value)
                corpus.add(f"{case}({MISSPELT}=1)", _misspelt_call, value)
            else:
                corpus.add(f"surface/{short}.{name} value", lambda v=value: _no_address(canon(v, corpus.tmp)))
    for name, make in _instances().items():
        label, instance = name if "(" in name else f"{name}()", make()
        try:
            for attribute in sorted(dir(type(instance))):
                member = getattr(type(instance), attribute, None)
                if attribute.startswith("_") or isinstance(member, property) or not callable(member):
                    continue
                corpus.add(f"surface/{label}.{attribute}({MISSPELT}=1)", _misspelt_call, getattr(instance, attribute))
            for check, text in _protocols(instance, make).items():
                corpus.cases[f"surface/{label} {check}"] = text
        finally:
            if isinstance(instance, Engine):
                instance.close()


PATH_FORMS: dict[str, Callable[[Path], Any]] = {  # one place, as callers spell it
    "str": str,
    "pathlib.Path": lambda path: path,
    "str ending in /": lambda path: str(path) + "/",
}
PATH_EXEMPT = frozenset({"vtengine.cli", "vtengine.knobs"})  # strings from a command line or the environment


def _path_parameters() -> list[tuple[str, Callable[..., Any], str]]:
    """Every public function's parameter that names a file or folder, by its annotation (``Path``,
    ``os.PathLike``) or its name: ``(label, function, parameter)``."""
    import inspect

    found = []
    for module in _public_modules():
        if module.__name__ in PATH_EXEMPT:
            continue
        for name, value in sorted(vars(module).items()):
            if name.startswith("_") or not callable(value) or getattr(value, "__module__", None) != module.__name__:
                continue
            try:
                parameters = inspect.signature(value).parameters.values()
            except (TypeError, ValueError):
                continue
            for parameter in parameters:
                if "Path" in str(parameter.annotation) or re.search(r"dir|path|folder|file", parameter.name):
                    found.append((f"{module.__name__.removeprefix('vtengine.')}.{name}({parameter.name})", value,
                                  parameter.name))
    return found


PathOf = Callable[[Path], Any]  # a path as one of PATH_FORMS spells it


def _path_recipes(root: Path) -> dict[str, Callable[[PathOf], Any]]:
    """For each path parameter, a call given the parameter's value (a path in one of ``PATH_FORMS``)
    and what a caller would compare of its result."""
    from vtengine.checkpoint import load_checkpoint, save_checkpoint
    from vtengine.model import embedded_model

    model = _small_model()
    saved, cache, tree = root / "checkpoint", root / "cache", root / "tree"
    save_checkpoint(saved, model.config, generate_tensors(model.config))
    tree.mkdir()
    (tree / "a.py").write_text("A = 1\n")
    made = iter(range(1 << 20))

    def save(path_of: PathOf) -> Any:
        target = root / f"saved-{next(made)}"
        save_checkpoint(path_of(target), model.config, generate_tensors(model.config))
        return _listing(target), load_model(str(target)).digest()

    return {
        "checkpoint.load_checkpoint(directory)": lambda p: canon(load_checkpoint(p(saved))),
        "checkpoint.save_checkpoint(directory)": save,
        "model.embedded_model(cache_dir)": lambda p: embedded_model("vt-tiny", p(cache)).digest(),
        "model.load_model(name_or_dir)": lambda p: load_model(p(saved)).digest(),
        "model.load_model(cache_dir)": lambda p: load_model("vt-tiny", p(cache)).digest(),
        "provenance.source_tree_hash(directory)": lambda p: source_tree_hash(p(tree)),
        "provenance.check_single_tree(directory)": lambda p: check_single_tree(p(package_dir())),
    }


WRITERS = frozenset({"checkpoint.save_checkpoint(directory)"})  # recipes whose call is meant to write


def _entries(*roots: Path) -> dict[str, tuple[int, int, int, int]]:
    """``path -> (inode, mode, size, mtime ns)`` of everything under ``roots`` (links not followed;
    bytecode caches left out: an import may write them)."""
    found = {}
    for root in roots:
        for path in [root, *root.rglob("*")]:
            if "__pycache__" not in path.parts:
                stat = path.lstat()
                found[str(root.name / path.relative_to(root))] = (stat.st_ino, stat.st_mode, stat.st_size,
                                                                   stat.st_mtime_ns)
    return found


def _second_call_writes(recipe: Callable[[PathOf], Any], roots: tuple[Path, ...]) -> Any:
    """A read called again (its first call may fill a cache): what it created, removed or rewrote, by
    path and by what changed (inode, mode, size, mtime). Empty for a read that is a read."""
    as_path = PATH_FORMS["pathlib.Path"]  # the form every path parameter takes
    recipe(as_path)
    before = _entries(*roots)
    recipe(as_path)
    after = _entries(*roots)
    fields = ("inode", "mode", "size", "mtime")
    named = partial(re.sub, "[0-9a-f]{16,}", "<hex>")  # a cache file's name carries its key
    changed = [f"{named(path)}: {', '.join(f for f, a, b in zip(fields, before[path], after[path], strict=True) if a != b)}"
               for path in sorted(before.keys() & after.keys()) if before[path] != after[path]]
    return {"created": sorted(map(named, after.keys() - before.keys())),
            "removed": sorted(map(named, before.keys() - after.keys())), "changed": changed}


def path_form_cases(corpus: Corpus) -> None:
    """Every public path parameter given a ``str``, a ``pathlib.Path`` and a ``str`` with a trailing
    slash for the same file or folder: whether the three agree, and each one's outcome. A path
    parameter found without a recipe here is a case of its own (add the recipe)."""
    root = Path(corpus.tmp) / "path-forms"
    root.mkdir()
    recipes = _path_recipes(root)
    for label, _function, _parameter in _path_parameters():
        recipe = recipes.get(label)
        if recipe is None:
            corpus.cases[f"surface/path forms {label}"] = "no recipe in snapshot._path_recipes: add one"
            continue

        def forms(recipe: Callable[[PathOf], Any] = recipe) -> Any:
            seen = {form: outcome(partial(recipe, path_of), corpus.tmp) for form, path_of in PATH_FORMS.items()}
            return len(set(seen.values())) == 1, seen

        corpus.add(f"surface/path forms {label}", forms)
        if label not in WRITERS:
            corpus.add(f"surface/second call writes nothing {label}", _second_call_writes, recipe,
                       (root, package_dir()))


def surface_and_path_cases(corpus: Corpus) -> None:
    surface_cases(corpus)
    path_form_cases(corpus)


# -- boundaries: the engine's own calls, replayed at each argument's edges --------------------------------

def _files_state(root: Path, digests: dict[tuple[str, int, int, int], str]) -> list[str]:
    """Every path under ``root`` with a digest of its bytes (what a call wrote), digests in names as <hex>;
    a file's digest is reused while its path, size, inode and modification time stay the same."""
    found = []
    for top, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = Path(top) / name
            body = ""
            if path.is_file() and not path.is_symlink():
                info = path.stat()
                key = (str(path), info.st_size, info.st_ino, info.st_mtime_ns)
                if key not in digests:
                    digests[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
                body = " " + digests[key]
            found.append(re.sub(r"[0-9a-f]{16,}", "<hex>", str(path.relative_to(root))) + body)
    return sorted(found)


def boundary_cases(corpus: Corpus) -> None:
    """The engine's own calls of its public functions, methods and constructors, recorded over a small
    workload and replayed as recorded and at each argument's edges (:mod:`vtengine.boundaries`): each
    outcome, what a method left in its object, the files a call wrote and whether it changed the
    environment."""
    from vtengine import boundaries

    files = Path(corpus.tmp) / "boundaries" / "files"
    pristine = files.parent / "pristine"
    files.mkdir(parents=True)
    quiet = {"HOME": str(files / "home"), "VT_CACHE_DIR": str(files / "vtcache")}
    with unset([*KNOB_SPELLINGS, "CI"]), scoped_env(quiet):  # the process's own knobs and home are not inputs
        with boundaries.recording(boundaries.targets(_public_modules())) as recorder:
            boundaries.workload(files)
        shutil.copytree(files, pristine, symlinks=True)
        digests: dict[tuple[str, int, int, int], str] = {}
        before = _files_state(files, digests)
        numbers: dict[str, int] = {}
        for record in recorder.records:
            name = record.target.name
            numbers[name] = numbers.get(name, -1) + 1
            prefix = f"boundaries/{name}#{numbers[name]}"
            corpus.cases[f"{prefix} recorded with"] = record.shape
            for replay in boundaries.replays(record):
                with boundaries.environment_kept() as changed:  # as recorded: and again, once the caller
                    # edited the first result (a cache or buffer the engine keeps shows in the second)
                    text = outcome(replay.call, corpus.tmp, replay.watch, again=replay.label == "as recorded")
                if replay.owner is not None:
                    text += "; leaves " + brief(canon(boundaries.state_of(replay.owner), corpus.tmp))
                if changed[0]:
                    text += "; changed the environment"
                after = _files_state(files, digests)
                if after != before:
                    text += "; files " + brief(canon(after))
                    shutil.rmtree(files)
                    shutil.copytree(pristine, files, symlinks=True)
                case = f"{prefix} {replay.label}"
                if case in corpus.cases:
                    raise ValueError(f"snapshot case {case!r} twice")
                corpus.cases[case] = text


def run(seed: int, only: list[str] | None = None) -> dict[str, str]:
    """Every case's outcome, by case id, for the groups named (default all). Deterministic for a seed."""
    unknown = sorted(set(only or ()) - set(GROUPS))
    if unknown:
        raise ValueError(f"snapshot: unknown group(s) {unknown}; the groups are {list(GROUPS)}")
    import vtengine.cli  # noqa: F401  (imported before the first group: what an import does once, a
    # library's own work such as drawing from Python's random module, is no group's change)

    with tempfile.TemporaryDirectory(prefix="vt-snapshot-") as tmp:
        corpus = Corpus(os.path.realpath(tmp))
        makers: dict[str, Callable[[np.random.Generator], None]] = {
            "numerics": lambda rng: numerics_cases(corpus, rng),
            "tokenizer": lambda rng: tokenizer_cases(corpus),
            "knobs": lambda rng: knob_cases(corpus, rng),
            "attention": lambda rng: attention_and_dispatch_cases(corpus, rng),
            "provenance": lambda rng: provenance_cases(corpus),
            "checkpoint": lambda rng: checkpoint_cases(corpus, rng),
            "engine": lambda rng: engine_cases(corpus, rng),
            "cli": lambda rng: cli_cases(corpus),
            "processes": lambda rng: processes_cases(corpus),
            "surface": lambda rng: surface_and_path_cases(corpus),
            "boundaries": lambda rng: boundary_cases(corpus),
        }
        private = Path(tmp) / "tmp"  # tempfile's folder while the groups run: what they leave is theirs
        private.mkdir()
        saved, tempfile.tempdir = tempfile.tempdir, str(private)
        try:
            with scoped_env({"TMPDIR": str(private)}), _reported():
                for index, group in enumerate(GROUPS):
                    if only is None or group in only:
                        before = processstate.state(environment)
                        makers[group](np.random.Generator(np.random.PCG64([seed, index])))
                        corpus.add(f"{group}/reported at a full collection", _collected)
                        processstate.settle(before["threads"])
                        after = processstate.state(environment)  # here: a case runs under its own NumPy error state
                        corpus.add(f"{group}/the process after the group", processstate.changes, before, after,
                                   inherited_environment())
        finally:
            tempfile.tempdir = saved
        return corpus.cases


def probe(seed: int = 20261206, only: list[str] | None = None) -> dict[str, Any]:
    """The ``snapshot`` gates' probe: each call's outcome by case id (``cases``), their count and the
    run's meta. Here and not in :mod:`vtengine.probes`, which the CLI imports: the corpus runs the CLI."""
    from vtengine.knobs import Knobs
    from vtengine.probes import meta

    cases = run(int(seed), None if only is None else [str(name) for name in only])
    return {"cases": cases, "counters": {"calls": len(cases)}, "meta": meta("vt-tiny", Knobs.from_env())}
