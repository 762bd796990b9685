# speculative decoding that ends exactly at the model's context limit (prompt + steps - 1 == max_context)
import dataclasses
from vtengine.engine import Engine
from vtengine.model import Model, load_model

base = load_model("vt-tiny")
cfg = dataclasses.replace(base.config, max_context=48)
e = Engine(Model(cfg, base.dequantized_tensors()))
for plen in (30, 36, 40, 44):
    prompt = [5, 6, 7, 8] * (plen // 4)
    steps = cfg.max_context - len(prompt) + 1
    try:
        s = e.speculative(prompt, steps)
        print(plen, "ok", s.tokens, s.proposed, s.accepted)
    except Exception as err:
        print(plen, "raised", type(err).__name__, err)
    print(plen, "greedy", e.generate(prompt, steps).tokens)
