"""10: config_from_hf refuses what the engine does not implement instead of computing something else:
RoPE scaling in the transformers 4 layout (`rope_scaling`, e.g. Llama 3.1's "llama3" or a "linear"
factor) is refused with CheckpointError naming the key, as it is in the transformers 5 layout
(`rope_parameters`); a plain `rope_scaling: null` loads."""
import _w
from vtengine.checkpoint import config_from_hf, config_to_hf

base = config_to_hf(_w.small_config())
llama3 = dict(base, rope_theta=500000.0, rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                      "high_freq_factor": 4.0, "original_max_position_embeddings": 8192})
linear = dict(base, rope_scaling={"type": "linear", "factor": 2.0})
v5 = dict(base, rope_parameters={"rope_type": "linear", "factor": 2.0, "rope_theta": 10000.0})
outcomes = {}
for name, hf in (("null", base), ("llama3", llama3), ("linear", linear), ("v5 linear", v5)):
    outcomes[name] = _w.outcome(lambda hf=hf: config_from_hf(hf).rope_theta)
    print(f"rope scaling {name}: {outcomes[name]}")
print("summary:", {k: v.split(":")[0] for k, v in outcomes.items()})
