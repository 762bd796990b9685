"""12: ModelConfig.as_dict() is the config as a plain dict (it keys the vt-tiny cache, goes into JSON
and comes back): ModelConfig(**cfg.as_dict()) must rebuild the same config, for vt-tiny and for any
other config, also after a JSON round trip."""
import json

import _w
from vtengine.config import VT_TINY, ModelConfig

small = _w.small_config(d_model=48, n_heads=6, n_kv_heads=3)
results = {
    "vt-tiny": _w.outcome(lambda: ModelConfig(**VT_TINY.as_dict()) == VT_TINY),
    "small": _w.outcome(lambda: ModelConfig(**small.as_dict()) == small),
    "small via JSON": _w.outcome(lambda: ModelConfig(**json.loads(json.dumps(small.as_dict()))) == small),
}
for label, result in results.items():
    print(f"{label}: {result}")
print("as_dict keys:", sorted(VT_TINY.as_dict()))
print("summary:", [r.split(" got ")[0] for r in results.values()])
