"""config.json with "num_key_value_heads": null (transformers writes null when the model has no GQA and
the field was left at its default): documented default is num_attention_heads."""
from _w import hf_config, outcome

from vtengine.checkpoint import config_from_hf

print("absent:", outcome(lambda: config_from_hf(hf_config(num_key_value_heads=...)).n_kv_heads))
print("null n_kv_heads:", outcome(lambda: config_from_hf(hf_config(num_key_value_heads=None)).n_kv_heads))
