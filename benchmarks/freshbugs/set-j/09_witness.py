# `vtengine arms --json -` with VT_CPU_GEMV_BLAS=1 already set: is BLAS measured against the default arm?
import json

from _w import cli

result = cli("arms", "--json", "-", env={"VT_CPU_GEMV_BLAS": "1"})
report = json.loads(result.stdout)
blas = next(a for a in report["arms"] if a["name"] == "blas")
print("exit", result.returncode, "selected", report["selected"]["gemv"], "blas differs_here:", blas["differs_here"])
