import os, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _w
from vtengine.checkpoint import load_checkpoint, save_checkpoint
cfg, tensors = _w.small(tie_word_embeddings=True)
with tempfile.TemporaryDirectory() as d:
    save_checkpoint(os.path.join(d, "tied"), cfg, tensors)
    print(_w.outcome(lambda: load_checkpoint(os.path.join(d, "tied"))[0].tie_word_embeddings))
