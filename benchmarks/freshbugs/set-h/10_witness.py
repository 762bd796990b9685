# source_tree_hash hashes file bytes: a CRLF file must not hash like its LF twin
import tempfile
from pathlib import Path
from vtengine.provenance import source_tree_hash
with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
    (Path(a) / "m.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    (Path(b) / "m.py").write_bytes(b"x = 1\ny = 2\n")
    ha, hb = source_tree_hash(a), source_tree_hash(b)
    print("crlf", ha[:16], "lf", hb[:16], "same:", ha == hb)
