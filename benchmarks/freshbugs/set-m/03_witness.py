"""A transformers-5 style config.json: rope_theta only under rope_parameters (Llama 3 uses 500000)."""
from _w import hf_config, outcome

from vtengine.checkpoint import config_from_hf

hf = hf_config(rope_theta=..., rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
print("rope_parameters.rope_theta=500000 ->", outcome(lambda: config_from_hf(hf).rope_theta))
