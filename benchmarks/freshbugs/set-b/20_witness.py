# ModelConfig.as_dict: every field, the generator seed included
from vtengine.config import VT_TINY, ModelConfig

print(VT_TINY.as_dict())
print("seeds distinguish configs:", ModelConfig(seed=1).as_dict() != ModelConfig(seed=2).as_dict())
