"""09: Model(config, tensors) refuses a tensor set that does not match its config with ModelError
("a model or checkpoint that cannot be used; the message names the tensor or key"), the model module's
own error, whatever the reason: a bad shape or a missing tensor (checked by validate_tensors) just as
dimensions that do not divide."""
import _w
from vtengine.config import ModelConfig
from vtengine.model import Model, ModelError


def kind(fn) -> str:
    try:
        fn()
        return "accepted"
    except ModelError as error:
        return "ModelError: " + str(error).split(":")[1].strip()[:40]
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__} (not a ModelError)"


cfg, tensors = _w.small_tensors()
missing = dict(tensors)
del missing["model.norm.weight"]
bad_shape = dict(tensors)
bad_shape["model.layers.1.mlp.down_proj.weight"] = tensors["model.layers.1.mlp.down_proj.weight"].T.copy()
odd = ModelConfig(name="odd", vocab_size=64, d_model=30, n_layers=1, n_heads=4, n_kv_heads=2, d_ff=48)
results = [kind(lambda: Model(cfg, missing)), kind(lambda: Model(cfg, bad_shape)), kind(lambda: Model(odd, {}))]
for what, r in zip(("missing tensor", "transposed down_proj", "d_model 30 / 4 heads"), results, strict=True):
    print(f"{what}: {r}")
print("summary:", [r.split(":")[0].split(" ")[0] for r in results])
