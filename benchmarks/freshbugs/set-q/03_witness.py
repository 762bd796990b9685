"""03: build a model, run an engine on it, drop both: is the model freed (weak reference dead)?
A long-running process (a probe server loading one checkpoint after another) keeps every model it
ever ran otherwise."""
import gc
import weakref

from _w import engine, small_model

alive = []
for seed in (1, 2, 3):
    model = small_model(seed=seed)
    eng = engine(model, act_dtype="f32")
    tokens = eng.generate([1, 2, 3], 4).tokens
    ref = weakref.ref(model)
    eng.close()
    del eng, model
    gc.collect()
    alive.append(ref() is not None)
print("tokens of the last model:", tokens)
print(f"models still alive after del + gc.collect(): {sum(alive)} of {len(alive)}")
