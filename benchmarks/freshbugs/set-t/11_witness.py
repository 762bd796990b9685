"""11: config_from_hf on a Llama config.json with model_type, and on the same config as some older exporters
write it, naming the architecture only (no model_type key)."""
from _w import outcome, small_config
from vtengine.checkpoint import config_from_hf, config_to_hf

hf = config_to_hf(small_config())
print("with model_type 'llama':", outcome(lambda: config_from_hf(hf).n_layers))
older = {k: v for k, v in hf.items() if k != "model_type"}
print("architectures ['LlamaForCausalLM'] only:", outcome(lambda: config_from_hf(older).n_layers))
