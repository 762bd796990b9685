# batch that outgrows the default-sized KV cache (4 * max_context = 256 positions): the pools double
from _w import small_model, h
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(), Knobs(kv_block_size=64))  # 256 positions = 4 blocks
prompts = [[(7 * i + j) % 256 for j in range(12)] for i in range(6)]  # 6 sequences need 6 blocks > 4
try:
    gens = eng.generate_batch(prompts, 3)
    print("tokens", [g.tokens for g in gens], h(gens[-1].logits))
except Exception as e:
    print("error", type(e).__name__, e)
