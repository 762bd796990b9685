# VT_ACT_DTYPE=f32 with VT_CPU_PAGED_ATTN_BFDOT=1: BFDOT is for bf16 q/kv only, so this should be the default
import hashlib
from pathlib import Path
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

model = load_model("vt-tiny", cache_dir=Path("/tmp/freshbugs-b-cache"))
ids = [256] + list(b"The quick brown fox jumps over the lazy dog")
both = Engine(model, Knobs(act_dtype="f32", paged_attn_bfdot=True)).score(ids).logits
plain = Engine(model, Knobs(act_dtype="f32")).score(ids).logits
print("bfdot+f32 sha", hashlib.sha256(both.tobytes()).hexdigest()[:16])
print("equal to default f32:", bool((both == plain).all()))
