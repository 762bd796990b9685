"""A generated model's weights are independent draws: no two of its matrices are equal (here the
k_proj and v_proj of one layer, which have the same shape and scale, and q_proj across layers)."""
import numpy as np

from _w import small_tensors

cfg, t = small_tensors()
matrices = {n: a for n, a in t.items() if a.ndim == 2}
pairs = [(a, b) for i, a in enumerate(matrices) for b in list(matrices)[i + 1 :]
         if matrices[a].shape == matrices[b].shape and np.array_equal(matrices[a], matrices[b])]
print("k_proj == v_proj (layer 0):", np.array_equal(t["model.layers.0.self_attn.k_proj.weight"],
                                                    t["model.layers.0.self_attn.v_proj.weight"]))
print(f"equal pairs among {len(matrices)} generated matrices: {len(pairs)}")
