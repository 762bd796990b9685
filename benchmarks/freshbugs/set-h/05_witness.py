# a prompt longer than one KV block (16 positions) must prefill
from _w import tiny
from vtengine.engine import Engine
from vtengine.knobs import Knobs
e = Engine(tiny(), Knobs())
try:
    print("tokens", e.generate([256, *b"a prompt of forty bytes, give or take it"], 4).tokens)
except Exception as err:
    print("raised", type(err).__name__)
