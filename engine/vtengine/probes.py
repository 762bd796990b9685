"""Probes of the reference engine (docs/contracts.md section 5): plain functions that run the engine
under the knobs of the current environment and return an observation (a JSON-able dict,
docs/contracts.md#observations). Every observation carries ``meta`` (engine, version, model, source
tree hash, source root, resolved knobs, selected arms). In the default arm every probe is deterministic.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from vtengine import __version__, tokenizer
from vtengine.arms import select_arms
from vtengine.attention import BF16, DTYPES, attend_scalar, gather_kv, paged_attention, paged_attention_rows
from vtengine.engine import Engine, Generation, Scores
from vtengine.knobs import Knobs
from vtengine.model import Model, load_model
from vtengine.provenance import source_info

Observation = dict[str, Any]

_MODELS: dict[str, Model] = {}


def _model(name: str, knobs: Knobs) -> Model:
    if name not in _MODELS:
        _MODELS[name] = load_model(name, knobs.cache_path)
    return _MODELS[name]


def _engine(model: str, max_tokens: int | None = None) -> Engine:
    knobs = Knobs.from_env()
    return Engine(_model(model, knobs), knobs, max_tokens=max_tokens)


_DIGESTS: dict[str, str] = {}


def model_digest(name: str, knobs: Knobs) -> str:
    """The weights' sha256 (Model.digest), once per process: the derived artifact a probe ran."""
    if name not in _DIGESTS:
        _DIGESTS[name] = _model(name, knobs).digest()
    return _DIGESTS[name]


def meta(model: str, knobs: Knobs | None = None) -> dict[str, Any]:
    """Who produced an observation: engine, model, source tree hash, resolved knobs and arms, and the
    derived artifacts it ran (``artifacts``: the model's weight digest; goldens record it at bless and
    vtgate check refuses to judge an observation of other weights)."""
    knobs = knobs if knobs is not None else Knobs.from_env()
    return {
        "engine": "vtengine",
        "version": __version__,
        "model": model,
        **source_info(),
        "knobs": knobs.as_env(),
        "arms": select_arms(knobs),
        "artifacts": {f"model:{model}": model_digest(model, knobs)},
    }


def digest_array(array: np.ndarray) -> str:
    """sha256 of the little-endian bytes (float32 for floats, int32 for integers)."""
    kind = "<i4" if np.issubdtype(np.asarray(array).dtype, np.integer) else "<f4"
    return hashlib.sha256(np.ascontiguousarray(array, dtype=kind).tobytes()).hexdigest()


def stream_digest(tokens: list[int]) -> str:
    return digest_array(np.asarray(tokens, dtype=np.int32))


def anchor(tokens: list[int]) -> int:
    """A small integer fingerprint of a token stream, for humans (0 .. 2**20-1)."""
    return int(stream_digest(tokens)[:5], 16)


def _prompt_ids(prompt: str, engine: Engine) -> list[int]:
    if not isinstance(prompt, str):
        raise TypeError("prompt must be a string")
    tokenizer.check_vocab(engine.config.vocab_size, engine.model.config.name)
    return tokenizer.encode(prompt)


def _check_tokens(tokens: int) -> int:
    if not isinstance(tokens, int) or isinstance(tokens, bool) or tokens < 1:
        raise ValueError(f"tokens must be a positive integer, got {tokens!r}")
    return tokens


def _counters(engine: Engine) -> dict[str, int]:
    c = engine.cache.counters()
    return {"dequant_hits": c.hits, "dequant_misses": c.misses, "dequant_evictions": c.evictions}


def _chain(gen: Generation, engine: Engine, model: str) -> Observation:
    return {
        "tokens": gen.tokens,
        "margins": [float(m) for m in gen.margins],
        "digests": {"logits": digest_array(gen.logits), "stream": stream_digest(gen.tokens)},
        "counters": _counters(engine),
        "metrics": {"anchor": anchor(gen.tokens)},
        "text": tokenizer.decode(gen.tokens),
        "meta": meta(model, engine.knobs),
    }


def generate(prompt: str, tokens: int, model: str = "vt-tiny") -> Observation:
    """Greedy chain: tokens, margins, logits and stream digests, dequant counters, anchor."""
    engine = _engine(model)
    return _chain(engine.generate(_prompt_ids(prompt, engine), _check_tokens(tokens)), engine, model)


def decode_bench(prompt: str = "bench", tokens: int = 60, model: str = "vt-tiny") -> Observation:
    """The anchor chain: like :func:`generate` with the bench defaults."""
    return generate(prompt, tokens, model)


def teacher_forced(prompt: str, reference: str, tokens: int | None = None, model: str = "vt-tiny") -> Observation:
    """Score prompt+reference (reference cut to ``tokens`` tokens when given): the argmax and the
    top-1/top-2 margin at every position."""
    ref = tokenizer.encode(reference, bos=False)
    if tokens is not None:
        ref = ref[: _check_tokens(tokens)]
    engine = _engine(model)
    scores = engine.score(_prompt_ids(prompt, engine) + ref)
    return _scored(scores, engine, model, reference_tokens=len(ref))


def score_ids(ids: list[int], model: str = "vt-tiny") -> Observation:
    """Teacher-forced scoring of explicit token ids (no tokenizer: any vocab size); the observation
    of :func:`teacher_forced` with ``metrics.reference_tokens`` = all ids but the first."""
    if not isinstance(ids, list) or len(ids) < 2 or not all(isinstance(i, int) for i in ids):
        raise ValueError(f"ids must be a list of at least 2 integer token ids, got {ids!r}")
    engine = _engine(model)
    vocab = engine.config.vocab_size
    if min(ids) < 0 or max(ids) >= vocab:
        raise ValueError(f"token ids must lie in [0, {vocab}) for model {model!r}, got {min(ids)}..{max(ids)}")
    return _scored(engine.score(ids), engine, model, reference_tokens=len(ids) - 1)


def _scored(scores: Scores, engine: Engine, model: str, reference_tokens: int) -> Observation:
    return {
        "tokens": scores.tokens,
        "margins": [float(m) for m in scores.margins],
        "digests": {"logits": digest_array(scores.logits), "stream": stream_digest(scores.tokens)},
        "metrics": {"anchor": anchor(scores.tokens), "reference_tokens": reference_tokens},
        "meta": meta(model, engine.knobs),
    }


def decode_paths(prompt: str, tokens: int, path: str = "incremental", model: str = "vt-tiny") -> Observation:
    """Per-position logits digests by incremental decode (prefill once + one step per token) or by
    full recompute (the whole sequence from an empty cache at every step)."""
    engine = _engine(model)
    ids, steps = _prompt_ids(prompt, engine), _check_tokens(tokens)
    if path == "incremental":
        gen = engine.generate(ids, steps)
    elif path == "recompute":
        gen = engine.generate_recompute(ids, steps)
    else:
        raise ValueError(f"path must be 'incremental' or 'recompute', got {path!r}")
    return {
        "tokens": gen.tokens,
        "cases": {f"pos-{n}": digest_array(row) for n, row in enumerate(gen.logits)},
        "digests": {"stream": stream_digest(gen.tokens)},
        "metrics": {"anchor": anchor(gen.tokens)},
        "meta": meta(model, engine.knobs),
    }


def batch_decode(prompts: list[str], tokens: int, batched: bool = True, model: str = "vt-tiny") -> Observation:
    """Per-sequence, per-position logits digests, decoding the prompts together (one batch) or each
    alone; ``digests.cases`` hashes them all (in order), so one pin covers every sequence."""
    if not isinstance(prompts, list) or not prompts:
        raise ValueError("prompts must be a non-empty list of strings")
    engine = _engine(model)
    ids = [_prompt_ids(p, engine) for p in prompts]
    steps = _check_tokens(tokens)
    gens = engine.generate_batch(ids, steps) if batched else [engine.generate(p, steps) for p in ids]
    cases = {}
    for i, gen in enumerate(gens):
        for n, row in enumerate(gen.logits):
            cases[f"seq-{i}/pos-{n}"] = digest_array(row)
    return {
        "tokens": [t for gen in gens for t in gen.tokens],
        "cases": cases,
        "digests": {"cases": hashlib.sha256("\n".join(f"{k} {v}" for k, v in cases.items()).encode()).hexdigest()},
        "meta": meta(model, engine.knobs),
    }


def speculative(
    prompt: str, tokens: int, ngram: int = 2, mode: str = "speculative", model: str = "vt-tiny"
) -> Observation:
    """Prompt-lookup speculative decoding (``mode="speculative"``) or plain greedy (``"greedy"``):
    tokens, per-position token cases, proposed/accepted counters and the acceptance rate."""
    engine = _engine(model)
    ids, steps = _prompt_ids(prompt, engine), _check_tokens(tokens)
    if mode == "greedy":
        out, proposed, accepted = engine.generate(ids, steps).tokens, 0, 0
    elif mode == "speculative":
        spec = engine.speculative(ids, steps, ngram=ngram)
        out, proposed, accepted = spec.tokens, spec.proposed, spec.accepted
    else:
        raise ValueError(f"mode must be 'greedy' or 'speculative', got {mode!r}")
    return {
        "tokens": out,
        "cases": {f"pos-{n}": int(t) for n, t in enumerate(out)},
        "counters": {"proposed": proposed, "accepted": accepted},
        "metrics": {"acceptance": accepted / proposed if proposed else 0.0, "anchor": anchor(out)},
        "digests": {"stream": stream_digest(out)},
        "meta": meta(model, engine.knobs),
    }


# -- attention dtype cases --------------------------------------------------------------------------

ATTENTION_HEAD_DIMS = (32, 64)
ATTENTION_BLOCK_SIZES = (1, 5, 16)
ATTENTION_CONTEXTS = (1, 7, 16, 37)
ATTENTION_Q_DTYPES = ("f32", "bf16")
ATTENTION_KV_DTYPES = ("f32", "bf16", "fp8")


def attention_case_ids(head_dims: tuple[int, ...] = ATTENTION_HEAD_DIMS) -> list[str]:
    return [
        f"q={q},kv={kv},hd={hd},bs={bs},ctx={ctx}"
        for q in ATTENTION_Q_DTYPES
        for kv in ATTENTION_KV_DTYPES
        for hd in head_dims
        for bs in ATTENTION_BLOCK_SIZES
        for ctx in ATTENTION_CONTEXTS
    ]


def attention_case_inputs(case: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, np.float32]:
    """Deterministic inputs of one case: q [4, hd] (2 KV heads, GQA groups of 2) in the q dtype,
    paged K/V caches in the kv dtype with a shuffled block table, ctx and the 1/sqrt(hd) scale."""
    fields = dict(part.split("=") for part in case.split(","))
    hd, bs, ctx = int(fields["hd"]), int(fields["bs"]), int(fields["ctx"])
    seed = int(hashlib.sha256(case.encode()).hexdigest()[:8], 16)
    rng = np.random.Generator(np.random.PCG64(seed))
    heads, n_kv = 4, 2
    nb = -(-ctx // bs)
    num_blocks = nb + 3
    q = ((rng.random((heads, hd)) * 2 - 1) * 2).astype(np.float32).astype(DTYPES[fields["q"]])
    kv_dtype = DTYPES[fields["kv"]]
    k_cache = ((rng.random((n_kv, hd, num_blocks, bs)) * 2 - 1) * 2).astype(np.float32).astype(kv_dtype)
    v_cache = ((rng.random((n_kv, num_blocks, bs, hd)) * 2 - 1) * 2).astype(np.float32).astype(kv_dtype)
    table = rng.permutation(num_blocks)[:nb].astype(np.intp)
    scale = np.float32(1.0 / np.sqrt(np.float64(hd)))
    return q, k_cache, v_cache, table, ctx, scale


def _case_digest(out: np.ndarray) -> str:
    """An attention case's output digest. Every body returns float32 (its callers store it so); an
    output of another dtype has that dtype appended, so a body that hands back float64 values
    differs from one that hands back the same values as float32 (``digest_array`` alone casts)."""
    digest = digest_array(out)
    return digest if out.dtype == np.float32 else f"{digest} {out.dtype.str}"


def attention_cases(impl: str = "dispatch", head_dims: list[int] | None = None, model: str = "vt-tiny") -> Observation:
    """Per-case digests of the attention output over q {f32, bf16} x kv {f32, bf16, fp8} x head
    sizes x block sizes x contexts: ``impl="dispatch"`` runs the vectorized dtype dispatch under the
    selected arm, one query row; ``impl="rows"`` the arm's several-rows body (one row per context
    1..ctx, as a prefill runs them), reporting the last row, which must equal ``dispatch`` bit for bit;
    ``impl="scalar"`` runs the plain-loop reference body. ``head_dims`` (default 32, 64) may add a
    head size the lane bodies pad (an odd one for the bf16 pair-dot, one not a multiple of 4 for the
    FMA lanes). ``digests``: ``cases`` (every case's digest, in order; an output that is not float32
    has its dtype appended) and ``inputs`` (every case's q, K, V, block table and scale, with their
    dtypes)."""
    if impl not in ("dispatch", "rows", "scalar"):
        raise ValueError(f"impl must be 'dispatch', 'rows' or 'scalar', got {impl!r}")
    dims = ATTENTION_HEAD_DIMS if head_dims is None else tuple(_check_tokens(d) for d in head_dims)
    if not dims:
        raise ValueError("head_dims must list at least one head size")
    knobs = Knobs.from_env()
    arm = select_arms(knobs)["paged_attention"]
    cases = {}
    inputs = hashlib.sha256()
    for case in attention_case_ids(dims):
        q, k_cache, v_cache, table, ctx, scale = attention_case_inputs(case)
        inputs.update(_bytes_digest(q, k_cache, v_cache, table, np.asarray(scale)).encode())
        if impl == "dispatch":
            out = paged_attention(q, k_cache, v_cache, table, ctx, scale, arm)
        elif impl == "rows":
            rows = np.repeat(q[None], ctx, axis=0).astype("float32")  # bf16 q values, held as float32
            ctxs = np.arange(1, ctx + 1)
            q_dtype = case.split(",")[0].split("=")[1]
            out = paged_attention_rows(rows, k_cache, v_cache, table, ctxs, scale, arm, q_dtype)[-1]
        else:
            k, v = gather_kv(k_cache, v_cache, table, ctx)
            out = attend_scalar(q.astype(np.float32), k, v, ctx, scale)
        cases[case] = _case_digest(out)
    every = hashlib.sha256("\n".join(f"{k} {v}" for k, v in cases.items()).encode()).hexdigest()
    return {"cases": cases, "digests": {"cases": every, "inputs": inputs.hexdigest()},
            "metrics": {"cases": len(cases)}, "meta": meta(model, knobs)}


__all__ = [
    "BF16",
    "attention_cases",
    "batch_decode",
    "checkpoint_roundtrip",
    "decode_bench",
    "decode_paths",
    "engine_contracts",
    "generate",
    "profile_counts",
    "property_draws",
    "score_ids",
    "sequences",
    "speculative",
    "teacher_forced",
]


def decode_timing(prompt: str = "bench", tokens: int = 32, repeats: int = 2, model: str = "vt-tiny") -> Observation:
    """The greedy bench chain, timed (docs/perf.md): ``repeats`` runs after a warm-up, each a prefill
    and one incremental step per token, every step timed in wall and in this process's CPU seconds.
    ``timing`` holds throughputs from the median step (robust to a step the scheduler delayed);
    ``stages`` is the ``VT_PROFILE`` stage profile of the timed runs by phase, in seconds per prefill
    and per decode step (the profiler is on for every run compared, so its few clock reads per stage
    cost candidate and reference alike). Tokens, digests and counters are exact as ever."""
    import dataclasses
    import statistics
    import time

    from vtengine.profiler import Profiler, clock

    steps = _check_tokens(tokens)
    if not isinstance(repeats, int) or isinstance(repeats, bool) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    knobs = dataclasses.replace(Knobs.from_env(), profile=True)
    engine = Engine(_model(model, knobs), knobs)
    ids = _prompt_ids(prompt, engine)
    engine.generate(ids, 2)  # warm the dequant cache and the allocator
    engine.prof = Profiler()  # profile the timed runs only
    prefill_wall, prefill_cpu, step_wall, step_cpu = [], [], [], []
    chains: list[list[int]] = []
    for _ in range(repeats):
        seq = engine.kv.new_sequence()
        engine.prof.phase = "prefill"
        w0, c0 = clock(), time.process_time()
        logits = engine.forward([seq], [ids])[0]
        prefill_wall.append(clock() - w0)
        prefill_cpu.append(time.process_time() - c0)
        engine.prof.phase = "decode"
        chain = [int(np.argmax(logits[-1]))]
        for _ in range(steps - 1):
            w0, c0 = clock(), time.process_time()
            logits = engine.forward([seq], [[chain[-1]]])[0]
            step_wall.append(clock() - w0)
            step_cpu.append(time.process_time() - c0)
            chain.append(int(np.argmax(logits[-1])))
        engine.kv.release(seq)
        chains.append(chain)
    if any(chain != chains[0] for chain in chains):
        raise RuntimeError("decode_timing: the repeats produced different tokens; the default arm is deterministic")
    counters = _counters(engine)
    stages: dict[str, dict[str, float]] = {}
    for (phase, stage), seconds in sorted(engine.prof.seconds.items()):
        calls = repeats * (1 if phase == "prefill" else max(1, steps - 1))
        stages.setdefault(phase, {})[stage] = seconds / calls  # per prefill, per decode step
    timing: dict[str, float] = {"prefill_tok_s": len(ids) / statistics.median(prefill_wall),
                                "prefill_cpu_tok_s": len(ids) / max(statistics.median(prefill_cpu), 1e-9)}
    if step_wall:
        timing["decode_tok_s"] = 1.0 / statistics.median(step_wall)
        timing["decode_cpu_tok_s"] = 1.0 / max(statistics.median(step_cpu), 1e-9)
        timing["decode_step_s"] = statistics.median(step_wall)
    return {
        "tokens": chains[0],
        "digests": {"logits": digest_array(logits), "stream": stream_digest(chains[0])},
        "counters": counters,
        "metrics": {"anchor": anchor(chains[0])},
        "timing": timing,
        "stages": stages,
        "meta": meta(model, knobs),
    }


def _config_cases(config: Any, tensors: dict[str, np.ndarray]) -> dict[str, str]:
    """What the checkpoint reader says about a few edited checkpoints: the defaults of a minimal
    config.json (no rope_theta, no rms_norm_eps) and the first line of each refusal (a zero
    hidden_size, a layer past num_hidden_layers, fp8 weights without scales or with scales of the
    wrong shape)."""
    from vtengine.checkpoint import SCALE_SUFFIX, config_from_hf, config_to_hf, validate_tensors

    hf = config_to_hf(config)
    minimal = {k: v for k, v in hf.items() if k not in ("rope_theta", "rms_norm_eps")}
    defaults = config_from_hf(minimal, where="minimal")
    said = {"minimal config": f"rope_theta={defaults.rope_theta!r} rms_norm_eps={defaults.rms_norm_eps!r} "
                              f"head_dim={defaults.d_model // defaults.n_heads}"}
    fp8_name = next(n for n, t in tensors.items() if n + SCALE_SUFFIX in tensors)
    broken: list[tuple[str, Any]] = [
        ("hidden_size 0", lambda: config_from_hf({**hf, "hidden_size": 0}, where="case")),
        ("layer past the config", lambda: validate_tensors(
            config, {**tensors, f"model.layers.{config.n_layers}.mlp.up_proj.weight": tensors[fp8_name]}, "case")),
        ("fp8 weight without scales", lambda: validate_tensors(
            config, {n: t for n, t in tensors.items() if n != fp8_name + SCALE_SUFFIX}, "case")),
        ("fp8 scales of the weight's shape", lambda: validate_tensors(
            config, {**tensors, fp8_name + SCALE_SUFFIX: np.ones(tensors[fp8_name].shape, np.float32)}, "case")),
    ]
    for label, attempt in broken:
        try:
            attempt()
            said[label] = "accepted"
        except ValueError as error:
            said[label] = str(error).splitlines()[0]
    return said


def _sharded_copy(directory: Any, tensors: dict[str, np.ndarray], target: Any) -> Any:
    """The checkpoint at ``directory`` rewritten as two safetensors shards listed in
    model.safetensors.index.json (as large Hugging Face checkpoints are stored)."""
    import shutil

    from safetensors.numpy import save_file

    from vtengine.checkpoint import CONFIG_FILE, INDEX_FILE

    target.mkdir()
    shutil.copy(directory / CONFIG_FILE, target / CONFIG_FILE)
    names = sorted(tensors)
    weight_map: dict[str, str] = {}
    for shard, part in (("model-00001-of-00002.safetensors", names[: len(names) // 2]),
                        ("model-00002-of-00002.safetensors", names[len(names) // 2 :])):
        save_file({n: np.ascontiguousarray(tensors[n]) for n in part}, str(target / shard), metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(part, shard))
    (target / INDEX_FILE).write_text(json.dumps({"metadata": {}, "weight_map": weight_map}, indent=2))
    return target


def checkpoint_roundtrip(prompt: str = "bench", tokens: int = 16, weights: str = "fp8",
                         model: str = "vt-tiny") -> Observation:
    """The model written as a Llama-format checkpoint (``weights``: "fp8", its own fp8 codes with
    128x128 block scales, or "float32", what ``vtengine export`` writes), read back through
    :mod:`vtengine.checkpoint` and decoded greedily. ``digests`` pin the config.json it wrote, the
    checkpoint reader's float32 dequantization of every fp8 weight, its verdicts on a few edited
    checkpoints and whether the same tensors stored as two shards with an index read identically
    (``cases``), and the logits; the tokens must equal the embedded model's."""
    import tempfile
    from pathlib import Path

    from vtengine.checkpoint import CONFIG_FILE, SCALE_SUFFIX, dequantize_fp8_blocks, save_checkpoint
    from vtengine.model import QuantizedWeight
    from vtengine.numerics import FP8

    if weights not in ("fp8", "float32"):
        raise ValueError(f"weights must be 'fp8' or 'float32', got {weights!r}")
    knobs = Knobs.from_env()
    source = _model(model, knobs)
    if weights == "float32":
        tensors = source.dequantized_tensors()
    else:
        tensors = {}
        for name, weight in source.weights.items():
            if isinstance(weight, QuantizedWeight):
                tensors[name] = weight.codes.view(FP8)
                tensors[name + SCALE_SUFFIX] = weight.scales
            else:
                tensors[name] = weight
    with tempfile.TemporaryDirectory(prefix="vtengine-checkpoint-") as folder:
        directory = save_checkpoint(Path(folder) / "ckpt", source.config, tensors)
        config_text = (directory / CONFIG_FILE).read_bytes()
        loaded = load_model(str(directory))
        from vtengine.checkpoint import load_checkpoint

        _, read = load_checkpoint(directory)
        sharded = _sharded_copy(directory, tensors, Path(folder) / "sharded")
        _, from_shards = load_checkpoint(sharded)
    same = sorted(from_shards) == sorted(read) and all(
        from_shards[n].dtype == read[n].dtype and from_shards[n].tobytes() == read[n].tobytes() for n in read)
    dequant = hashlib.sha256()
    for name in sorted(read):
        if read[name].dtype == FP8:
            values = dequantize_fp8_blocks(read[name], read[name + SCALE_SUFFIX])
            dequant.update(name.encode() + values.dtype.str.encode() + values.tobytes())
    engine = Engine(loaded, knobs)
    gen = engine.generate(_prompt_ids(prompt, engine), _check_tokens(tokens))
    cases = _config_cases(source.config, tensors) if weights == "fp8" else {}
    cases["the same tensors in 2 shards + model.safetensors.index.json"] = "read identically" if same else "differ"
    observation = _chain(gen, engine, model)
    observation["digests"].update({"config": hashlib.sha256(config_text).hexdigest(),
                                   "dequant": dequant.hexdigest(),
                                   "cases": hashlib.sha256(json.dumps(cases, sort_keys=True).encode()).hexdigest()})
    observation["cases"] = cases
    return observation


def profile_counts(prompt: str = "bench", tokens: int = 8, model: str = "vt-tiny") -> Observation:
    """The ``VT_PROFILE`` stage profile of a greedy chain, without its timings: how many calls each
    (phase, stage) recorded, as counters (``calls.<phase>.<stage>``), and ``profile_table_rows`` with
    ``profile_shares_exact`` (1 when every row's share is its seconds over its phase's total, to the
    bit). Timings vary from run to run; the calls and that arithmetic do not."""
    import dataclasses

    from vtengine.profiler import Profiler

    knobs = dataclasses.replace(Knobs.from_env(), profile=True)
    engine = Engine(_model(model, knobs), knobs)
    engine.prof = Profiler()
    engine.prof.phase = "prefill"
    ids = _prompt_ids(prompt, engine)
    seq = engine.kv.new_sequence()
    logits = engine.forward([seq], [ids])[0]
    engine.prof.phase = "decode"
    chain = [int(np.argmax(logits[-1]))]
    for _ in range(_check_tokens(tokens) - 1):
        logits = engine.forward([seq], [[chain[-1]]])[0]
        chain.append(int(np.argmax(logits[-1])))
    engine.kv.release(seq)
    rows = engine.prof.table()
    totals: dict[str, float] = {}
    for (phase, _), seconds in engine.prof.seconds.items():
        totals[phase] = totals.get(phase, 0.0) + seconds
    exact = all(row["share"] == (float(row["seconds"]) / totals[str(row["phase"])]  # type: ignore[arg-type]
                                 if totals[str(row["phase"])] else 0.0)
                for row in rows)
    counters = {f"calls.{row['phase']}.{row['stage']}": int(row["calls"]) for row in rows}  # type: ignore[call-overload]
    counters.update({"profile_table_rows": len(rows), "profile_shares_exact": int(exact)})
    return {"tokens": chain, "counters": counters, "meta": meta(model, knobs)}


def property_draws(seed: int = 20261202, draws: int = 24) -> Observation:
    """The property layer (:mod:`vtengine.properties`): ``draws`` seeded draws of model shapes,
    checkpoint dtypes, prompts and pairwise-covered knob rows, each checked against the float64
    reference (derived tolerance) and the exactness contracts, plus the pinned counterexamples.
    ``counters`` are verdict counts (portable: no float bits are pinned); ``metrics`` has the worst
    engine error over its tolerance; ``provenance`` the seed and every draw; ``cases`` a line per
    failing draw (with its shrunk form) and per pinned case."""
    from vtengine import properties

    return {**properties.run(int(seed), int(draws)), "meta": meta("vt-tiny", Knobs.from_env())}


def sequences(seed: int = 20261202, calls: int = 12, processes: int = 3) -> Observation:
    """Sequences and processes (:mod:`vtengine.sequences`): one engine reused over ``calls`` calls
    against fresh engines, every pairwise knob row set in the environment between calls, and
    ``processes`` engine processes sharing one empty model cache folder at once. Counters only."""
    from vtengine import sequences as seq

    counters = {**seq.reuse(int(seed), int(calls)), **seq.knob_changes(int(seed)), **seq.shared_cache(int(processes))}
    return {"counters": counters, "provenance": {"seed": seed}, "meta": meta("vt-tiny", Knobs.from_env())}


def _said(action: Any) -> str:
    """``accepted`` (with what the action returns, when it returns something) or the engine's refusal:
    the error's type and the first line of its message."""
    try:
        result = action()
    except (ValueError, IndexError, AssertionError, MemoryError) as error:
        text = str(error).splitlines()[0] if str(error) else ""
        return f"refused: {type(error).__name__}: {text}"
    return "accepted" if result is None else f"accepted: {result}"


def _bytes_digest(*arrays: np.ndarray) -> str:
    """sha256 over each array's dtype, shape and bytes: a dtype change is a change."""
    digest = hashlib.sha256()
    for array in arrays:
        array = np.ascontiguousarray(array)
        digest.update(array.dtype.str.encode())
        digest.update(str(array.shape).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _numerics_digests() -> dict[str, str]:
    """The numerics module's building blocks on seeded inputs, each pinned by its output's bytes and
    dtype (the module's contract is their bits): the fp8 block quantizer on a matrix with a ragged
    edge, an all-zero block and outliers, and its dequantization; SiLU, exp, bf16 rounding, the
    sequential sum (both of its paths) and the exact fma."""
    from vtengine.numerics import (
        FP8,
        dequantize_fp8_blocks,
        exp_f32,
        fma_f32,
        quantize_fp8_blocks,
        round_bf16,
        silu_f32,
        sum_sequential,
    )

    rng = np.random.Generator(np.random.PCG64(20261130))
    w = rng.standard_normal((200, 300), dtype="float32")
    w[:128, 128:256] = 0.0  # one whole 128x128 block of zeros: its scale is 1
    w[5, 7] = 900.0  # an outlier: its block's scale is 900 / 448
    # the last block (rows 128.., cols 256..): fp8 rounding midpoints times its scale (amax 3, a scale
    # that is not a power of two), where dividing by the scale and multiplying by its reciprocal, or
    # rounding the quotient to float32 before fp8, give different codes
    positive = np.arange(1, 127, dtype=np.uint8).view(FP8).astype("float64")
    midpoints = (positive[:-1] + positive[1:]) / 2
    corner = np.resize(midpoints, (72, 44)) * (3.0 / 448.0)
    corner[::2] *= -1
    corner[0, 0] = 3.0
    w[128:, 256:] = corner
    codes, scales = quantize_fp8_blocks(w)
    x = rng.standard_normal((3, 257), dtype="float32") * 4
    a, b, c = (rng.standard_normal((4, 64), dtype="float32") for _ in range(3))
    return {
        "quantizer": _bytes_digest(codes, scales),
        "dequantizer": _bytes_digest(dequantize_fp8_blocks(codes, scales)),
        "numerics": _bytes_digest(silu_f32(x), exp_f32(x - x.max()), round_bf16(x), sum_sequential(x, axis=0),
                                  sum_sequential(x, axis=1), fma_f32(a, b, c)),
    }


# Stage seconds for the profiler case of engine_contracts: prefill norms' share is one ulp apart
# between seconds / total and seconds * (1 / total), so the pinned table tells the two apart.
_PROFILE_SECONDS = {("prefill", "linear"): 0.3, ("prefill", "attention"): 0.1, ("prefill", "norms"): 0.7,
                    ("decode", "linear"): 0.011, ("decode", "rope"): 0.0029, ("decode", "attention"): 0.0061}


def engine_contracts(model: str = "vt-tiny", context: int = 64) -> Observation:
    """The engine's limits and small contracts, each at its exact edge, on ``model`` with its context
    cut to ``context`` positions (the same weights; RoPE tables and the KV cache follow the config, so
    the limit is cheap to reach). ``tokens``/``margins``/``digests.logits``: a greedy chain that fills
    the context exactly. ``cases``: what the engine says one step inside each input boundary
    (``accepted``) and one step outside (its refusal's first line): the context, token ids, draft and
    n-gram sizes, vocab size, probe arguments, a GEMV's minimum width, and the dequant cache's budget
    filled exactly by one block (each policy); the dtypes weights, norms and margins are held in; the
    stage profiler's table for fixed stage seconds (shares, order).
    ``counters``: KV blocks a full sequence holds and the free blocks then, thread-pool workers at 1
    and 2 threads, the speculative counters of a chain that ends at the context limit.
    ``digests``: an RMSNorm over rows whose mean square is near or below eps (float32 activations,
    so no bf16 rounding hides it), and the numerics module's kernels (:func:`_numerics_digests`)."""
    import dataclasses

    from vtengine.dequant import DequantCache
    from vtengine.engine import top2_margin
    from vtengine.gemv import gemv_default
    from vtengine.model import QuantizedWeight
    from vtengine.numerics import FP8
    from vtengine.profiler import Profiler

    knobs = Knobs.from_env()
    source = _model(model, knobs)
    tensors: dict[str, np.ndarray] = {}
    for name, weight in source.weights.items():
        if isinstance(weight, QuantizedWeight):
            tensors[name] = weight.codes.view(FP8)
            tensors[name + "_scale_inv"] = weight.scales
        else:
            tensors[name] = weight
    small = Model(dataclasses.replace(source.config, max_context=_check_tokens(context)), tensors)
    engine = Engine(small, knobs)
    vocab = small.config.vocab_size
    ids = _prompt_ids("bench", engine)
    steps = context - len(ids) + 1  # prompt + steps - 1 == context: the last position the model has
    gen = engine.generate(ids, steps)
    cases: dict[str, str] = {
        "generate one past the context": _said(lambda: engine.generate(ids, steps + 1)),
    }
    seq = engine.kv.new_sequence()
    engine.forward([seq], [ids + gen.tokens[:-1]])  # every position of the context, in one prefill
    counters = {"kv_blocks_full_sequence": len(seq.blocks), "kv_free_blocks_then": len(engine.kv.free)}
    cases["forward at position context"] = _said(lambda: engine.forward([seq], [[gen.tokens[-1]]]) and None)
    engine.kv.release(seq)
    for label, token in (("token id 0", 0), ("token id -1", -1), (f"token id {vocab - 1}", vocab - 1),
                         (f"token id {vocab}", vocab)):
        fresh = engine.kv.new_sequence()
        cases[label] = _said(lambda t=token, s=fresh: engine.forward([s], [[t]]) and None)
        engine.kv.release(fresh)
    spec = engine.speculative(ids, steps, ngram=1, max_draft=1)
    counters.update({"speculative_to_the_limit_proposed": spec.proposed,
                     "speculative_to_the_limit_accepted": spec.accepted})
    cases["speculative to the context limit equals greedy"] = str(spec.tokens == gen.tokens)
    cases["speculative max_draft 0"] = _said(lambda: engine.speculative(ids, 2, ngram=1, max_draft=0) and None)
    cases["speculative ngram 0"] = _said(lambda: engine.speculative(ids, 2, ngram=0) and None)
    cases[f"vocab_size {tokenizer.VOCAB_SIZE}"] = _said(lambda: tokenizer.check_vocab(tokenizer.VOCAB_SIZE, "case"))
    cases[f"vocab_size {tokenizer.VOCAB_SIZE - 1}"] = _said(
        lambda: tokenizer.check_vocab(tokenizer.VOCAB_SIZE - 1, "case"))
    cases["score_ids [0, vocab - 1]"] = _said(lambda: score_ids([0, vocab - 1], model)["tokens"])
    cases["score_ids [0, vocab]"] = _said(lambda: score_ids([0, vocab], model) and None)
    cases["score_ids one id"] = _said(lambda: score_ids([0], model) and None)
    cases["teacher_forced cut to 2 tokens"] = _said(
        lambda: teacher_forced("Hi", " there", tokens=2, model=model)["tokens"])
    w = np.arange(16, dtype="float32").reshape(8, 2) / 8
    x = np.arange(8, dtype="float32")[None] / 4
    cases["gemv_default 2 columns"] = _said(lambda: gemv_default(x, w).tolist())
    cases["gemv_default 1 column"] = _said(lambda: gemv_default(x, np.ascontiguousarray(w[:, [0]])) and None)
    block = np.ones(1024, "float32")  # 4096 bytes
    for policy in ("lru", "pin"):
        cache = DequantCache(2 * block.nbytes, policy)
        for key in ("a", "b", "a", "b"):
            cache.get(key, block.copy)
        one = DequantCache(block.nbytes, policy)
        one.get("a", block.copy)
        one.get("a", block.copy)
        both, alone = cache.counters(), one.counters()
        cases[f"dequant {policy}: two blocks fill the budget exactly"] = (
            f"hits {both.hits} misses {both.misses} evictions {both.evictions} resident {both.resident_bytes}")
        cases[f"dequant {policy}: one block is the budget"] = f"hits {alone.hits} misses {alone.misses}"
    profiler = Profiler()  # fixed stage seconds: its table's shares are exact numbers, not wall-clock luck
    for (phase, stage), seconds in _PROFILE_SECONDS.items():
        profiler.seconds[(phase, stage)], profiler.calls[(phase, stage)] = seconds, 3
    cases["profiler table"] = json.dumps(profiler.table())
    norm = small.weights["model.norm.weight"]
    cases["dtypes"] = (f"held norm {np.asarray(norm).dtype}, vector {small.vector('model.norm.weight').dtype}, "
                       f"dequantized {small.tensor('model.embed_tokens.weight').dtype}, "
                       f"margins {top2_margin(gen.logits).dtype}")
    for threads in (1, 2):
        pooled = Engine(small, knobs.with_(cpu_threads=threads))
        counters[f"thread_pool_workers_at_{threads}"] = 0 if pooled.pool is None else pooled.pool._max_workers
        pooled.close()
    f32 = Engine(small, knobs.with_(act_dtype="f32"))
    rng = np.random.Generator(np.random.PCG64(7))
    d = small.config.d_model
    spread = 10.0 ** np.linspace(-5, -1, 48)  # mean squares 1e-10 .. 1e-2
    rows = (rng.standard_normal((48, d)) * spread[:, None]).astype("float32")
    weight = f32.norm_final
    normed = [f32._rmsnorm(rows[i : i + 1], weight) for i in range(len(rows))] + [f32._rmsnorm(rows, weight)]
    digests = {"logits": digest_array(gen.logits), "stream": stream_digest(gen.tokens),
               "cases": hashlib.sha256(json.dumps(cases, sort_keys=True).encode()).hexdigest(),
               "rmsnorm": _bytes_digest(*normed), **_numerics_digests()}
    return {
        "tokens": gen.tokens,
        "margins": [float(m) for m in gen.margins],
        "digests": digests,
        "counters": counters,
        "cases": cases,
        "metrics": {"anchor": anchor(gen.tokens)},
        "meta": meta(model, knobs),
    }


def families(seed: int = 20261202, checkpoints: int = 24, texts: int = 64, only: list[str] | None = None) -> Observation:
    """The families around the kernels (:mod:`vtengine.families`): checkpoint round trips and
    refusals, the tokenizer, knob parsing, the stage profiler, the CLI's exit codes and a long
    context, each against its documented spec. Counters only (verdict counts). ``only``: the
    families to run (default every one)."""
    from vtengine import families as fam

    observe: dict[str, Any] = {"generate": generate, "teacher_forced": teacher_forced}
    return {**fam.run(int(seed), int(checkpoints), int(texts), observe=observe,
                                      only=None if only is None else [str(name) for name in only]), "meta": meta("vt-tiny", Knobs.from_env())}

