"""VT_DEQUANT_CACHE_MB=0 (documented: dequantize on every use) through the CLI."""
from _w import cli

r = cli("score", "--ids", "1,2,3,4", "--json", "-", env={"VT_DEQUANT_CACHE_MB": "0"})
err = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ""
print(f"VT_DEQUANT_CACHE_MB=0 vtengine score --ids 1,2,3,4: exit {r.returncode}: {err[:100]}")
