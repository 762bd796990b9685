"""child_env builds a child's environment; the parent's environment stays as it was."""
import os

from vtengine.knobs import Knobs, child_env

os.environ.pop("VT_PROFILE", None)
env = child_env({"VT_PROFILE": "1"})
print("child has it:", env.get("VT_PROFILE"), "| parent VT_PROFILE:", os.environ.get("VT_PROFILE"),
      "| parent Knobs.profile:", Knobs.from_env().profile)
