"""11: importing the engine must leave the process's NumPy floating-point error handling as the caller set
it. A program that asks NumPy to raise on invalid operations (np.seterr(invalid="raise")) imports
vtengine and loads a model: prints its error settings afterwards and whether 0/0 still raises."""
import numpy as np

np.seterr(all="warn", invalid="raise")
from vtengine.engine import Engine  # noqa: E402,F401
from vtengine.model import load_model  # noqa: E402,F401

settings = np.geterr()
try:
    np.array([0.0]) / np.array([0.0])
    raised = False
except FloatingPointError:
    raised = True
print(f"after importing vtengine: invalid={settings['invalid']} over={settings['over']}, 0/0 raises: {raised}")
