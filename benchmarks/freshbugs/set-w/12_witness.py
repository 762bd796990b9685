"""12: Knobs.from_env() keeps each knob in its canonical spelling; for VT_CACHE_DIR that is "the cache
folder as given" (docs/contracts.md, observations' meta.knobs), so the default knobs read from an empty
environment equal Knobs() and record '~/.cache/vtengine' whatever the user's home is. Knobs.cache_path
is where ~ is expanded."""
import os

from vtengine.knobs import Knobs, scoped_env, unset

with unset(["VT_CACHE_DIR"]):
    k = Knobs.from_env()
    print("unset: as_env VT_CACHE_DIR starts with ~:", k.as_env()["VT_CACHE_DIR"].startswith("~"),
          "| equals Knobs():", k == Knobs(), "| cache_path expanded:", str(k.cache_path) == os.path.expanduser("~/.cache/vtengine"))
with scoped_env({"VT_CACHE_DIR": "~/vt-cache-w"}):
    k2 = Knobs.from_env()
    print("summary: as given:", k2.cache_dir == "~/vt-cache-w", "| from_env() == Knobs() when unset:", k == Knobs())
