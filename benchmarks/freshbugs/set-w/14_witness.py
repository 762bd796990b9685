"""14: "Text needs a model whose vocab holds the byte tokenizer's 259 ids ...: on a smaller vocab, generate
and text score exit 2 naming the vocab size; score --ids still scores token ids" (docs/engine.md). A
64-token checkpoint: text scoring is refused, id scoring works."""
import _w
from vtengine.checkpoint import save_checkpoint

cfg, tensors = _w.small_tensors(vocab_size=64)
d = _w.tmpdir() + "/vocab64"
save_checkpoint(d, cfg, tensors)
text = _w.cli("score", "--prompt", "Hi", "--reference", " there", "--model", d)
print("text score: exit", text.returncode, "|", _w.last_line(text.stderr)[:70])
ids = _w.cli("score", "--ids", "1,2,3,4,5,6", "--model", d)
print("summary: score --ids on vocab 64: exit", ids.returncode, "|", _w.last_line(ids.stderr)[:60])
