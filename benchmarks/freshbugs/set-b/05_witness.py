# a batch larger than the default KV cache (4 * max_context tokens) makes the cache grow
from vtengine.config import ModelConfig
from vtengine.model import Model, generate_tensors
from vtengine.engine import Engine
from vtengine.knobs import Knobs

cfg = ModelConfig(name="w05", vocab_size=64, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=48, max_context=16)
model = Model(cfg, generate_tensors(cfg), quantize=True)
prompts = [[(7 * i + 3 * j + 1) % 64 for j in range(10)] for i in range(6)]
batch = Engine(model, Knobs(kv_block_size=4)).generate_batch(prompts, 4)
alone = [Engine(model, Knobs(kv_block_size=4)).generate(p, 4) for p in prompts]
print("batch", [g.tokens for g in batch])
print("batch == one by one:", [g.tokens == h.tokens and (g.logits == h.logits).all() for g, h in zip(batch, alone)])
