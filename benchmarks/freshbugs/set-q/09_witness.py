"""09: checkpoints through load_checkpoint: an untied one, a tied one, and a tied one whose exporter
also wrote the (identical) lm_head.weight, as some exporters do."""
import json
import tempfile
from pathlib import Path

from safetensors.numpy import save_file

from _w import outcome, small_model
from vtengine.checkpoint import config_to_hf, load_checkpoint, save_checkpoint


def write(directory: Path, cfg, tensors) -> Path:
    directory.mkdir()
    save_file({k: v for k, v in sorted(tensors.items())}, str(directory / "model.safetensors"), metadata={"format": "pt"})
    (directory / "config.json").write_text(json.dumps(config_to_hf(cfg)))
    return directory


def loaded(directory: Path) -> str:
    cfg, tensors = load_checkpoint(directory)
    return f"{len(tensors)} tensors, tied {cfg.tie_word_embeddings}"


with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    untied = small_model()
    tied = small_model(tie_word_embeddings=True)
    save_checkpoint(root / "untied", untied.config, untied.dequantized_tensors())
    save_checkpoint(root / "tied", tied.config, tied.dequantized_tensors())
    extra = tied.dequantized_tensors()
    extra["lm_head.weight"] = extra["model.embed_tokens.weight"].copy()
    write(root / "tied-with-head", tied.config, extra)
    print("untied:", outcome(lambda: loaded(root / "untied")), "| tied:", outcome(lambda: loaded(root / "tied")))
    print("tied + identical lm_head.weight:", outcome(lambda: loaded(root / "tied-with-head")))
