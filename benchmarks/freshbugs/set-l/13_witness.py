"""VT_CACHE_DIR changed inside the process after vtengine was imported (as the sequence probes do with
scoped_env between calls): Knobs.from_env() must see the new value."""
from vtengine.knobs import Knobs, scoped_env

before = Knobs.from_env().cache_dir
with scoped_env({"VT_CACHE_DIR": "/tmp/freshbugs-l-cache/other"}):
    inside = Knobs.from_env().cache_dir
print("from_env().cache_dir before the block is the environment's:", before == __import__("os").environ.get("VT_CACHE_DIR", "~/.cache/vtengine"))
print("from_env().cache_dir inside scoped_env(VT_CACHE_DIR=.../other):", inside)
