# transformers-5 style config.json: rope_theta lives in rope_parameters
from vtengine.checkpoint import config_from_hf

base = {"model_type": "llama", "vocab_size": 300, "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128}
for extra in ({"rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}},
              {"rope_theta": 250000.0},
              {}):
    print(extra, "->", config_from_hf({**base, **extra}).rope_theta)
