import os, subprocess, sys, tempfile
# VT_CACHE_DIR="~/vtc" must mean $HOME/vtc (the documented default is ~/.cache/vtengine)
with tempfile.TemporaryDirectory() as home:
    env = {**os.environ, "HOME": home, "VT_CACHE_DIR": "~/vtc"}
    code = ("from vtengine.knobs import Knobs; from vtengine.model import load_model; "
            "k = Knobs.from_env(); load_model('vt-tiny', k.cache_path); print(k.cache_path)")
    with tempfile.TemporaryDirectory() as cwd:
        subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, check=True, capture_output=True)
        print("under HOME:", os.path.isdir(os.path.join(home, "vtc")), "literal ~ in cwd:", os.path.isdir(os.path.join(cwd, "~")))
