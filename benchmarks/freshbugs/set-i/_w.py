"""Shared helper for the set-i witnesses: a small generated float32 model (public API only)."""
from vtengine.config import ModelConfig
from vtengine.model import Model, generate_tensors


def small_model(**changes):
    fields = dict(name="small", vocab_size=300, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2,
                  d_ff=96, max_context=128, seed=7)
    fields.update(changes)
    config = ModelConfig(**fields)
    return Model(config, generate_tensors(config))
