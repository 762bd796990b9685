# batch of prompts with different lengths through generate_batch; compare with one-by-one generate
from vtengine.engine import Engine
from vtengine.model import load_model
from vtengine import tokenizer

e = Engine(load_model("vt-tiny"))
prompts = [tokenizer.encode("hello"), tokenizer.encode("a longer prompt here")]
try:
    batch = [g.tokens for g in e.generate_batch(prompts, 6)]
    print("batch", batch)
except Exception as err:
    print("batch raised", type(err).__name__, err)
print("single", [e.generate(p, 6).tokens for p in prompts])
