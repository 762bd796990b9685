# transformers-5 config.json: rope_theta only inside rope_parameters.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.checkpoint import config_from_hf, config_to_hf
hf = config_to_hf(_w.small().config)
hf.pop("rope_theta"); hf.pop("rope_scaling")
hf["rope_parameters"] = {"rope_type": "default", "rope_theta": 500000.0}
print("rope_theta:", config_from_hf(hf).rope_theta)
