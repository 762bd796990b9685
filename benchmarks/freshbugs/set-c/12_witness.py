import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    e=Engine(m,max_tokens=16)
    print(e.generate(list(range(1,10)),12).tokens)
except Exception as e:
    print('ERR', type(e).__name__, e)
