"""04: config.json variants that older transformers versions wrote: without `mlp_bias` (added to LlamaConfig
in transformers 4.41), and without both `mlp_bias` and `attention_bias`. Both flags default to false, so
both configs describe the same model as one that sets them to false."""
from _w import outcome, small_config
from vtengine.checkpoint import config_from_hf, config_to_hf

hf = config_to_hf(small_config())
print("both flags present:", outcome(lambda: config_from_hf(hf).d_model))
no_mlp = {k: v for k, v in hf.items() if k != "mlp_bias"}
no_both = {k: v for k, v in no_mlp.items() if k != "attention_bias"}
print("without mlp_bias / without both:", outcome(lambda: config_from_hf(no_mlp).d_model), "/",
      outcome(lambda: config_from_hf(no_both).d_model))
