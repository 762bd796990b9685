"""09: a generated float32 model on the float32 path: greedy generate (prefill + incremental decode over the
paged KV cache) and full recompute still agree with each other; both are compared with an independent
float64 Hugging Face Llama forward (RoPE applied to queries and keys) over prompt + generated tokens."""
import numpy as np

from _w import engine, reference_logits, small_tensors
from vtengine.model import Model

cfg, tensors = small_tensors()
e = engine(Model(cfg, tensors), act_dtype="f32")
prompt = [1, 5, 9, 2, 7]
g = e.generate(prompt, 6)
r = e.generate_recompute(prompt, 6)
ref = reference_logits(cfg, tensors, prompt + g.tokens[:-1])[len(prompt) - 1:]
print("generate == recompute:", g.tokens == r.tokens and np.array_equal(g.logits, r.logits))
print("generated logits within 1e-4 of the reference:", bool(np.abs(g.logits - ref).max() < 1e-4),
      "| reference's greedy tokens:", ref.argmax(axis=1).tolist() == g.tokens)
