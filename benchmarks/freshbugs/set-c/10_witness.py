import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    g=Engine(m).generate_batch([[1,2,3],[1,2,3]],3)
    print([x.tokens for x in g])
except Exception as e:
    print('ERR', type(e).__name__, e)
