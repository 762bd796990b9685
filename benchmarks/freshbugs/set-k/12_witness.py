# config.json with "tie_word_embeddings": "false" (a string): refused, never read as true
from vtengine.checkpoint import CheckpointError, config_from_hf, config_to_hf
from _w import small_config

hf = config_to_hf(small_config())
hf["tie_word_embeddings"] = "false"
try:
    print("tie_word_embeddings", config_from_hf(hf).tie_word_embeddings)
except CheckpointError as e:
    print("CheckpointError", e)
