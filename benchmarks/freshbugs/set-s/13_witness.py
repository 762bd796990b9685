"""Paged attention over keys whose scores are all strongly negative (about -280 after scaling): the
softmax is still a proper distribution (every key weighs 1/ctx here), so the default arm returns
finite values equal to the plain-loop reference body `attend_scalar`."""
import numpy as np

from vtengine.attention import paged_attention

n_kv, heads, hd, bs, nb, ctx = 1, 2, 8, 4, 2, 6
rng = np.random.Generator(np.random.PCG64(5))
q = np.full((heads, hd), 10.0, np.float32)
k_cache = np.full((n_kv, hd, nb, bs), -10.0, np.float32)
v_cache = rng.standard_normal((n_kv, nb, bs, hd)).astype(np.float32)
table = np.array([1, 0])
scale = np.float32(1 / np.sqrt(hd))
out = {arm: paged_attention(q, k_cache, v_cache, table, ctx, scale, arm) for arm in ("default", "scalar")}
print("NaN in the default arm's output:", int(np.isnan(out["default"]).sum()))
print(f"default arm equals the scalar reference: {np.array_equal(out['default'], out['scalar'])}; "
      f"NaN count {int(np.isnan(out['default']).sum())}")
