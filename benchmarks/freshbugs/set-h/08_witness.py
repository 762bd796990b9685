# config_from_hf refuses JSON booleans where numbers are required (bool is an int subclass in Python)
from _w import small_config
from vtengine.checkpoint import CheckpointError, config_from_hf, config_to_hf
out = []
for key in ("num_hidden_layers", "rms_norm_eps"):
    hf = config_to_hf(small_config())
    hf[key] = True
    try:
        c = config_from_hf(hf)
        out.append(f"{key}=true -> accepted ({c.n_layers}, {c.rms_norm_eps})")
    except CheckpointError:
        out.append(f"{key}=true -> CheckpointError")
print("; ".join(out))
