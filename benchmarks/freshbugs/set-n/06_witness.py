"""config.json with an integer rope_theta (500000, as many Llama 3 exports write it): the ModelConfig
field is a float, and a saved copy's config.json says so."""
import json

from _w import hf_config

from vtengine.checkpoint import config_from_hf, config_to_hf

cfg = config_from_hf(hf_config(rope_theta=500000, rms_norm_eps=1))
print("rope_theta", repr(cfg.rope_theta), "| rms_norm_eps", repr(cfg.rms_norm_eps),
      "| written:", json.dumps({k: config_to_hf(cfg)[k] for k in ("rope_theta", "rms_norm_eps")}))
