"""05: load_model("vt-tiny") names the embedded model (fp8 weights generated from its seed), wherever the
caller's current directory is. After `vtengine export vt-tiny vt-tiny` (a natural directory name for the
export) the same call in that directory must still give the embedded model, and an unrelated empty
directory called vt-tiny must not break it."""
import os

import _w
from vtengine.model import QuantizedWeight, load_model

work = _w.tmpdir()
embedded = load_model("vt-tiny")
r = _w.cli("export", "vt-tiny", "vt-tiny", cwd=work)
print("export exit", r.returncode, "| config.json written:", os.path.isfile(os.path.join(work, "vt-tiny", "config.json")))
os.chdir(work)
m = load_model("vt-tiny")
fp8 = isinstance(m.weights["model.layers.0.self_attn.q_proj.weight"], QuantizedWeight)
print("next to the export: fp8 weights", fp8, "| same digest as the embedded model", m.digest() == embedded.digest())
empty = _w.tmpdir()
os.mkdir(os.path.join(empty, "vt-tiny"))
os.chdir(empty)
print("next to an empty vt-tiny/:", _w.outcome(lambda: load_model("vt-tiny").digest() == embedded.digest()))
print("summary: fp8", fp8, "| empty dir", _w.outcome(lambda: load_model("vt-tiny").digest() == embedded.digest()))
