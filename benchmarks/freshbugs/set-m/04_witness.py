"""A save that was killed part-way left its staging directory behind (with a stray file); a later save
of the same checkpoint must still produce exactly config.json + model.safetensors."""
import shutil
import tempfile
from pathlib import Path

from _w import outcome, small_model

from vtengine.checkpoint import save_checkpoint

m = small_model()
root = Path(tempfile.mkdtemp(prefix="setm04-"))
try:
    stale = root / ".ckpt.partial"  # what a crashed (or concurrent) writer of 'ckpt' may leave
    stale.mkdir()
    (stale / "model.safetensors.index.json").write_text('{"weight_map": {}}')
    (stale / "stale-shard.bin").write_bytes(b"x" * 10)

    def run():
        save_checkpoint(root / "ckpt", m.config, m.dequantized_tensors())
        return sorted(p.name for p in (root / "ckpt").iterdir())

    print("files in the saved checkpoint:", outcome(run))
finally:
    shutil.rmtree(root)
