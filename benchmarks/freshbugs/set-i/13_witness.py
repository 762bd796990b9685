"""13: a batch that outgrows the default-sized KV cache (the pools double) decodes like one-by-one."""
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = small_model()  # max_context 128: the default KV cache holds 4 * 128 = 512 positions
prompts = [[256] + [(7 * i + s) % 256 for i in range(99)] for s in range(6)]  # 600 positions
alone = [Engine(model, Knobs()).generate(p, 3).tokens for p in prompts]
try:
    batch = [g.tokens for g in Engine(model, Knobs()).generate_batch(prompts, 3)]
    print("batch equals one-by-one:", batch == alone)
except Exception as error:
    print("batch:", type(error).__name__)
