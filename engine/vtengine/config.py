"""The one config dataclass that names every dimension of a Llama-architecture model, and the
embedded default ``vt-tiny``. ``to_hf``/``from_hf`` map it to and from a Hugging Face config.json."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ModelConfig:
    name: str = "vt-tiny"
    vocab_size: int = 512
    d_model: int = 256  # hidden_size
    n_layers: int = 4  # num_hidden_layers
    n_heads: int = 8  # num_attention_heads (query heads)
    n_kv_heads: int = 2  # num_key_value_heads (grouped-query attention)
    d_ff: int = 768  # intermediate_size (SwiGLU)
    max_context: int = 1024  # max_position_embeddings
    rope_theta: float = 10000.0
    rms_norm_eps: float = 1e-5
    tie_word_embeddings: bool = False
    seed: int = 20261029  # only meaningful for generated (embedded) models

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


VT_TINY = ModelConfig()
