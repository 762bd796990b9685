"""A Llama config.json without rms_norm_eps: Hugging Face LlamaConfig's default is 1e-6."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w

from vtengine.checkpoint import config_from_hf
hf = {"model_type": "llama", "vocab_size": 300, "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128}
print(config_from_hf(hf).rms_norm_eps)
