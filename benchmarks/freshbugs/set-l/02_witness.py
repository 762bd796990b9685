"""A batch whose prefill outgrows the engine's default-sized KV cache (the cache doubles inside the
forward): the batch must still equal one-by-one generation."""
from _w import engine, small_model

m = small_model()  # max_context 128: default KV size 4*128 = 512 positions, grows on demand
prompts = [[(7 * i + j) % 60 + 1 for j in range(100)] for i in range(6)]  # 600 positions
alone = [engine(m, act_dtype="f32").generate(p, 3) for p in prompts]
try:
    batch = engine(m, act_dtype="f32").generate_batch(prompts, 3)
    verdict = all(b.tokens == a.tokens and (b.logits == a.logits).all() for b, a in zip(batch, alone))
except Exception as error:  # noqa: BLE001
    verdict = f"{type(error).__name__}: {str(error)[:80]}"
print("6x100-token batch through a growing KV cache equals one-by-one:", verdict)
