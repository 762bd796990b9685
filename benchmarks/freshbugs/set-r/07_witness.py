"""`vtengine export vt-tiny DIR` (save_checkpoint of model.dequantized_tensors(), HF name order), then
the checkpoint loaded back: it must be the same model."""
import tempfile
from pathlib import Path

from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model

from _w import cli, h, outcome

with tempfile.TemporaryDirectory() as tmp:
    out = Path(tmp) / "exported"
    run = cli("export", "vt-tiny", str(out))
    print("export exit", run.returncode)

    def reload() -> str:
        ids = [256] + list(b"round trip")
        a = Engine(load_model("vt-tiny"), Knobs(act_dtype="f32")).score(ids).logits
        b = Engine(load_model(str(out)), Knobs(act_dtype="f32")).score(ids).logits
        return f"same logits as vt-tiny: {h(a) == h(b)}"

    print("reload:", outcome(reload))
