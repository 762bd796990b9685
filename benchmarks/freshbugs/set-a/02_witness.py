# two engines in one process on two different models: the second must compute with its own weights
import numpy as np
from vtengine.engine import Engine
from vtengine.model import Model, load_model
from vtengine import tokenizer

a = load_model("vt-tiny")
tensors = a.dequantized_tensors()
tensors["lm_head.weight"] = -tensors["lm_head.weight"]  # a different model: negated LM head
b = Model(a.config, tensors)
prompt = tokenizer.encode("hello")
ea = Engine(a)
print("A", ea.generate(prompt, 6).tokens, ea.cache.counters())
eb = Engine(b)
print("B", eb.generate(prompt, 6).tokens, eb.cache.counters())
