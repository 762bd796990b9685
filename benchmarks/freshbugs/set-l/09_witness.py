"""config_from_hf on a Llama config whose rope_scaling names the plain rotary embedding with both
the legacy 'type' key and 'rope_type' (what transformers 4.4x writes back after standardising)."""
from vtengine.checkpoint import CheckpointError, config_from_hf

hf = {"model_type": "llama", "vocab_size": 300, "hidden_size": 64, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96,
      "max_position_embeddings": 256, "rms_norm_eps": 1e-5, "rope_theta": 10000.0}
for scaling in (None, {"rope_type": "default"}, {"type": "default", "rope_type": "default"}, {"type": "default"}):
    try:
        cfg = config_from_hf({**hf, "rope_scaling": scaling})
        verdict = f"accepted (rope_theta {cfg.rope_theta})"
    except CheckpointError as error:
        verdict = "CheckpointError: " + str(error).split(": ", 1)[1][:60]
    print(f"rope_scaling={scaling}: {verdict}")
