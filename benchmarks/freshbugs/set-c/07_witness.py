import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    from vtengine.tokenizer import decode
    print(decode([256,72,105,257]))
except Exception as e:
    print('ERR', type(e).__name__, e)
