"""09: vtengine's exit codes (docs/contracts.md#exit-codes: 0 ok, 2 usage). A successful
`score --ids` and a usage error (`generate --tokens 0`), as the process exit status."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import cli  # noqa: E402

ok = cli("score", "--ids", "256,72,105,33")
usage = cli("generate", "--prompt", "hi", "--tokens", "0")
print(f"exit codes: score {ok.returncode}, usage error {usage.returncode}")
