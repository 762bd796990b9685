# a transformers-5 style config.json: rope_theta lives in rope_parameters
from vtengine.checkpoint import config_from_hf, config_to_hf
from vtengine.config import ModelConfig

hf = config_to_hf(ModelConfig(name="w14", rope_theta=500000.0))
del hf["rope_theta"], hf["rope_scaling"]
hf["rope_parameters"] = {"rope_type": "default", "rope_theta": 500000.0}
print("rope_theta", config_from_hf(hf).rope_theta)
