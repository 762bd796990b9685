"""14: code inside a `scoped_env({"VT_PROFILE": "1"})` block also sets a variable of its own (a
temp dir for later steps, a token): is that change still there after the block? And the knob itself?"""
import os

from vtengine.knobs import Knobs, scoped_env

os.environ.pop("VT_PROFILE", None)
os.environ["SETQ_WORKDIR"] = "/tmp/old"
with scoped_env({"VT_PROFILE": "1"}):
    inside = Knobs.from_env().profile
    os.environ["SETQ_WORKDIR"] = "/tmp/new-run"
    os.environ["SETQ_TOKEN"] = "abc"
print("inside:", inside, "| after: VT_PROFILE", os.environ.get("VT_PROFILE"), Knobs.from_env().profile)
print(f"variables the block set itself: SETQ_WORKDIR={os.environ.get('SETQ_WORKDIR')} SETQ_TOKEN={os.environ.get('SETQ_TOKEN')}")
