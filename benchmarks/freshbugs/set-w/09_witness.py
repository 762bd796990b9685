"""09: vtengine's human output goes to stderr, i.e. to whatever sys.stderr is when it prints. A host that
runs vtengine.cli.main(argv) in-process under contextlib.redirect_stderr (a notebook, a test, a GUI
capturing the log) must get the usage error in its buffer, not on the terminal."""
import contextlib
import io

from vtengine import cli

buf = io.StringIO()
code = None
with contextlib.redirect_stderr(buf):
    try:
        cli.main(["score", "--prompt", "hi"])
    except SystemExit as leaving:
        code = leaving.code
captured = buf.getvalue().strip()
print("exit", code, "| captured by redirect_stderr:", bool(captured), repr(captured[:40]))
