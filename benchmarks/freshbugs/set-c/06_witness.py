import os
os.environ.setdefault('VT_CACHE_DIR','/work/freshbugs/cache')
from vtengine.model import load_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs
m=load_model('vt-tiny')
try:
    os.environ['VT_CPU_THREADS']='0'
    print(Knobs.from_env().cpu_threads)
except Exception as e:
    print('ERR', type(e).__name__, e)
