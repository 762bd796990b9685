import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    from vtengine.dequant import DequantCache
    import numpy as np
    c=DequantCache(8)
    f=lambda: np.zeros(1,np.float32)
    for k in 'abacada': c.get(k,f)
    print(c.counters())
except Exception as e:
    print('ERR', type(e).__name__, e)
