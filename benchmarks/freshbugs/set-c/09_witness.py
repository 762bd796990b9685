import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    from vtengine.arms import select_arms
    print(select_arms(Knobs(paged_attn_scalar_fma=True,paged_attn_bfdot=True)))
except Exception as e:
    print('ERR', type(e).__name__, e)
