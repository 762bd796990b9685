# greedy generation with a 2-thread pool must equal the 1-thread run (logit rows kept per step)
import hashlib
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model
from vtengine import tokenizer

m = load_model("vt-tiny")
prompt = tokenizer.encode("threads")
for t in (1, 2):
    e = Engine(m, Knobs(cpu_threads=t))
    g = e.generate(prompt, 8)
    e.close()
    print(t, g.tokens, hashlib.sha256(g.logits.tobytes()).hexdigest()[:16])
