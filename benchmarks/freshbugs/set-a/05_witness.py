# greedy decode that runs past the prompt's last KV block (block size 16)
from vtengine.engine import Engine
from vtengine.model import load_model
from vtengine import tokenizer

e = Engine(load_model("vt-tiny"))
prompt = tokenizer.encode("hi")
try:
    print("incremental", e.generate(prompt, 24).tokens)
except Exception as err:
    print("incremental raised", type(err).__name__, err)
print("recompute", e.generate_recompute(prompt, 24).tokens)
