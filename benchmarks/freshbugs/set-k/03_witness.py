# a batch where one prompt (not all) is empty: the documented refusal names the empty prompt
from _w import small_model
from vtengine.engine import Engine
from vtengine.knobs import Knobs

eng = Engine(small_model(), Knobs())
try:
    eng.generate_batch([[1, 2, 3], []], 2)
    print("no error")
except Exception as e:
    print("error", type(e).__name__, e)
