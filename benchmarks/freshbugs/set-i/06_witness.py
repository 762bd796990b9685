"""06: dequantized_tensors() hands out copies: editing the export must not edit the model."""
from _w import small_model

model = small_model()
before = model.digest()
exported = model.dequantized_tensors()
exported["model.layers.0.mlp.down_proj.weight"][:] = 0.0  # e.g. a pruning experiment on the export
print("model digest unchanged after editing the export:", model.digest() == before)
