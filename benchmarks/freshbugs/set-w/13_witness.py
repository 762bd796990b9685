"""13: fp8 weights carry one float32 scale per 128x128 block: ceil(rows/128) x ceil(cols/128). A model
whose dimensions are odd multiples of 128 (d_model 128, d_ff 384) saved as an fp8 checkpoint must load
back; vt-tiny's dimensions (256, 512, 768) are even multiples."""
import numpy as np

import _w
from vtengine.checkpoint import fp8_scale_shape, save_checkpoint, SCALE_SUFFIX
from vtengine.model import Model, QuantizedWeight, load_model
from vtengine.numerics import FP8

print("scale shapes:", [fp8_scale_shape(s) for s in ((256, 512), (768, 256), (128, 256), (384, 128), (200, 130))])
cfg, tensors = _w.small_tensors(d_model=128, d_ff=384, vocab_size=256, n_heads=4, n_kv_heads=2)
quant = Model(cfg, tensors, quantize=True)
fp8 = {}
for name, w in quant.weights.items():
    if isinstance(w, QuantizedWeight):
        fp8[name] = w.codes.view(FP8)
        fp8[name + SCALE_SUFFIX] = w.scales
    else:
        fp8[name] = w


def roundtrip():
    d = _w.tmpdir() + "/fp8"
    save_checkpoint(d, cfg, fp8)
    return load_model(d).digest() == quant.digest()


print("summary: fp8 checkpoint, d_model 128 / d_ff 384, saved and loaded, same digest:", _w.outcome(roundtrip))
