"""ModelConfig built positionally (a frozen dataclass: name, vocab_size, d_model, n_layers, n_heads,
n_kv_heads, d_ff, ...)."""
from vtengine.config import ModelConfig

cfg = ModelConfig("pos", 300, 64, 2, 4, 2, 128)
print({k: getattr(cfg, k) for k in ("vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "d_ff")},
      "| head_dim", cfg.head_dim)
