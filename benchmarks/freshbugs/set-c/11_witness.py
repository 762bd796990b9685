import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    e=Engine(m,Knobs(profile=True))
    e.generate([1,2,3,4],3)
    print(dict(e.prof.tokens))
except Exception as e:
    print('ERR', type(e).__name__, e)
