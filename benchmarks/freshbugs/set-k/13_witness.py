# n-gram prompt lookup (speculative): the draft is looked up in prompt + generated tokens
import numpy as np
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(vocab_size=8), Knobs())
prompt = [int(t) for t in np.random.default_rng(3).integers(0, 8, 40)]  # holds most bigrams of 8 ids
spec = eng.speculative(prompt, 12)
print("equals greedy", spec.tokens == eng.generate(prompt, 12).tokens,
      "proposed", spec.proposed, "accepted", spec.accepted)
