# VT_CPU_PAGED_ATTN_BFDOT with f32 activations: BFDOT needs bf16 q and kv, so it must fall back to the
# default body for every row (prefill rows included) and score exactly like the default arm
import hashlib
from vtengine.engine import Engine
from vtengine.knobs import Knobs
from vtengine.model import load_model
from vtengine import tokenizer

m = load_model("vt-tiny")
ids = tokenizer.encode("the quick brown fox jumps")
d = {}
for name, knobs in (("default", Knobs(act_dtype="f32")), ("bfdot", Knobs(act_dtype="f32", paged_attn_bfdot=True))):
    lg = Engine(m, knobs).score(ids).logits
    d[name] = hashlib.sha256(lg.tobytes()).hexdigest()[:16]
    print(name, d[name])
print("bfdot==default", d["bfdot"] == d["default"])
