"""01: several-rows attention (prefill, scoring) must give each row the same bits as a run that stops at
that row (per-row arithmetic does not depend on later positions). Prints how many rows of one 24-token
forward_logits equal the last row of the prefix run, under the float32 reference path."""
import numpy as np

from _w import engine, small_model

eng = engine(small_model(), act_dtype="f32")
ids = [(11 * i + 5) % 64 for i in range(24)]
full = eng.forward_logits(ids)
same = sum(int(np.array_equal(full[i], eng.forward_logits(ids[: i + 1])[-1])) for i in range(len(ids)))
print(f"rows of the 24-token prefill equal to the prefix run's last row: {same}/{len(ids)}")
