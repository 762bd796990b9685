"""ultrajson issue #415: ``ujson.dumps(obj, indent=4)`` indents by one space in 3.0.0 (2.0.3 indents by
four). Imports the build in ./.vtbuild; exit 0 good, 1 bad, 125 when it cannot be imported (untestable)."""

import sys

sys.path.insert(0, ".vtbuild")
try:
    import ujson
except ImportError as error:
    print(f"cannot import the build: {error}")
    sys.exit(125)
out = ujson.dumps({"foo": "bar"}, indent=4)
print(repr(out))
sys.exit(0 if out == '{\n    "foo": "bar"\n}' else 1)
