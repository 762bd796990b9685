"""08: a Model is plain data (a config and arrays): it can be copied (copy.copy / copy.deepcopy, e.g.
to perturb one weight and compare) and pickled (multiprocessing and concurrent.futures send it to
worker processes that way). The witness copies, deep-copies and pickles a small model and checks the
copy's digest, and asks for an attribute a Model does not have."""
import copy
import pickle
import sys

import _w

sys.setrecursionlimit(400)  # keep a runaway recursion short
model = _w.small_model()
digest = model.digest()


def outcome(fn) -> str:
    try:
        return f"ok {fn()}"
    except BaseException as error:  # noqa: BLE001
        return f"{type(error).__name__}"


results = {
    "copy.copy": outcome(lambda: copy.copy(model).digest() == digest),
    "copy.deepcopy": outcome(lambda: copy.deepcopy(model).digest() == digest),
    "pickle round trip": outcome(lambda: pickle.loads(pickle.dumps(model)).digest() == digest),
    "hasattr(model, 'no_such')": outcome(lambda: hasattr(model, "no_such")),
}
for label, result in results.items():
    print(f"{label}: {result}")
print("summary:", list(results.values()))
