# speculative must equal greedy, including greedy's tie rule (argmax: lowest id) on exactly tied logits
import numpy as np

from _w import small_config
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import Model, generate_tensors

config = small_config()
tensors = generate_tensors(config)
head = tensors["lm_head.weight"]
head[1::2] = head[0::2]  # every logit comes twice: ids 2i and 2i+1 tie exactly
model = Model(config, tensors)
eng = Engine(model, Knobs(act_dtype="f32"))
prompt = [1, 2, 3, 1, 2, 3, 1, 2]
greedy = eng.generate(prompt, 10).tokens
spec = eng.speculative(prompt, 10)
print("greedy", greedy, "speculative", spec.tokens)
print("speculative equals greedy:", spec.tokens == greedy, spec.proposed, spec.accepted)
