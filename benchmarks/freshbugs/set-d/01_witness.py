# KV cache growth mid-batch: the default-sized cache (4*max_context tokens) doubles when a batch needs more.
import sys; sys.path.insert(0, __file__.rsplit("/", 1)[0]); import _w
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m = _w.small()
prompts = [[(7 * i + 13 * j) % 256 for i in range(50)] for j in range(6)]  # 300 tokens > 256
batch = Engine(m, Knobs()).generate_batch(prompts, 3)
print("batch tokens:", [g.tokens for g in batch])
print("batch hashes:", [_w.h(g.logits) for g in batch])
