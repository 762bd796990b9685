"""10: scoped_env and unset promise that afterwards each name "is as it was before (set to its old value,
or unset), whatever the block did to it". Restoring "unset" must therefore work when the name is already
unset: unset() of a variable that was never set, a block that removed a variable scoped_env set, or one
that restored a saved environment. The witness runs those blocks, and one that raises its own error."""
import os

import _w
from vtengine.knobs import environment, restore_environment, scoped_env, unset

for name in ("VT_SETY_NEVER", "VT_SETY_A", "VT_SETY_B"):
    os.environ.pop(name, None)


def never_set() -> str:
    with unset(["VT_SETY_NEVER"]):
        pass
    return "VT_SETY_NEVER" in os.environ


def removed_in_block() -> str:
    with scoped_env({"VT_SETY_A": "1"}):
        del os.environ["VT_SETY_A"]
    return os.environ.get("VT_SETY_A")


def restored_in_block() -> str:
    before = environment()
    with scoped_env({"VT_SETY_B": "1", "VT_PROFILE": "1"}):
        restore_environment(before)
    return (os.environ.get("VT_SETY_B"), os.environ.get("VT_PROFILE"))


def own_error() -> str:
    with unset(["VT_SETY_NEVER"]):
        raise LookupError("the block's own error")


results = {f.__name__: _w.outcome(f) for f in (never_set, removed_in_block, restored_in_block, own_error)}
for label, result in results.items():
    print(f"{label}: {result}")
print("summary:", [r.split(":")[0].split(" ")[0] for r in results.values()])
