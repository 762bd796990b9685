"""`vtengine score --ids ... --json -` for a user whose cache directory has a non-ASCII name
(VT_CACHE_DIR=.../café, echoed in the observation's meta.knobs), where stdout is not UTF-8
(PYTHONIOENCODING=ascii, as with a C locale without UTF-8 coercion or a legacy console)."""
import json
import os

from _w import cli

cache = os.path.join(os.environ.get("VT_CACHE_DIR", "/tmp/freshbugs-l-cache"), "café")
for enc in (None, "ascii"):
    env = {"VT_CACHE_DIR": cache, **({"PYTHONIOENCODING": enc} if enc else {})}
    r = cli("score", "--ids", "256,72,105,33", "--json", "-", env=env)
    try:
        meta_dir = json.loads(r.stdout)["meta"]["knobs"]["VT_CACHE_DIR"].endswith("café")
    except Exception as error:  # noqa: BLE001
        meta_dir = type(error).__name__
    last = (r.stderr.strip().splitlines() or [""])[-1]
    print(f"stdout encoding {enc or 'utf-8'}: exit {r.returncode} | stdout ASCII {r.stdout.isascii()} | "
          f"meta.knobs.VT_CACHE_DIR read back: {meta_dir} | {last[:60]}")
