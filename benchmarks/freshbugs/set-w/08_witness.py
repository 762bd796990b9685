"""08: config_from_hf reads max_position_embeddings as the model's context (Llama 3.1 checkpoints say
131072); a checkpoint saved and loaded back keeps it. Long-context configs must not be cut silently."""
import _w
from vtengine.checkpoint import config_from_hf, config_to_hf, load_checkpoint, save_checkpoint

cfg, tensors = _w.small_tensors(max_context=32768)
hf = config_to_hf(cfg)
for ctx in (2048, 16384, 32768, 131072):
    hf["max_position_embeddings"] = ctx
    print(ctx, "->", config_from_hf(hf).max_context)
d = _w.tmpdir() + "/ckpt"
save_checkpoint(d, cfg, tensors)
back, _ = load_checkpoint(d)
print("summary: saved 32768, loaded", back.max_context, "| 131072 ->", config_from_hf({**hf, "max_position_embeddings": 131072}).max_context)
