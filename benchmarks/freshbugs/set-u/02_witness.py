"""02: an fp8 Llama checkpoint (F8_E4M3 weights with float32 *_scale_inv block scales, written here as raw
safetensors bytes, independent of vtengine's writer) is loaded with load_model and run on the float32
path; its logits are compared with a float32 model holding the values the engine computes fp8 weights as
(bf16 of code * scale). A quantized block's largest codes encode 256..448 in e4m3fn."""
import json
import shutil
import struct
import tempfile
from pathlib import Path

import numpy as np

from _w import engine, outcome, small_tensors
from vtengine.checkpoint import config_to_hf
from vtengine.model import Model, load_model
from vtengine.numerics import dequantize_fp8_blocks, quantize_fp8_blocks, round_bf16

cfg, tensors = small_tensors()
header, blobs, offset, plain = {}, [], 0, {}
for name in sorted(tensors):
    w = np.ascontiguousarray(tensors[name], np.float32)
    entries = []
    if w.ndim == 2:
        codes, scales = quantize_fp8_blocks(w)
        entries = [(name, "F8_E4M3", codes), (name + "_scale_inv", "F32", scales)]
        plain[name] = round_bf16(dequantize_fp8_blocks(codes, scales))
    else:
        entries = [(name, "F32", w)]
        plain[name] = w
    for key, code, array in entries:
        data = np.ascontiguousarray(array).tobytes()
        header[key] = {"dtype": code, "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
raw = json.dumps(header).encode()
raw += b" " * (-len(raw) % 8)
d = Path(tempfile.mkdtemp())
try:
    (d / "model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + b"".join(blobs))
    hf = config_to_hf(cfg, "bfloat16")
    hf["quantization_config"] = {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                                 "weight_block_size": [128, 128]}
    (d / "config.json").write_text(json.dumps(hf))
    ids = [1, 5, 9, 2, 7, 3]
    want = engine(Model(cfg, plain), act_dtype="f32").forward_logits(ids)

    def run():
        got = engine(load_model(str(d)), act_dtype="f32").forward_logits(ids)
        return f"logits finite {bool(np.isfinite(got).all())}, equal to the float32 model {np.array_equal(got, want)}"

    print("fp8 checkpoint:", outcome(run))
finally:
    shutil.rmtree(d)
