"""04: `score --ids` with a malformed list is a usage error whose one line says what --ids wants
(`give comma-separated integers, e.g. 5,17,99`); valid ids still score."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _w import cli, last_line  # noqa: E402

bad = cli("score", "--ids", "256,72,x,105")
good = cli("score", "--ids", "256,72,105,33")
print(f"bad ids: exit {bad.returncode} '{last_line(bad.stderr)}'; good ids: exit {good.returncode}")
