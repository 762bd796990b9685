"""Running the CLI in-process (main(argv)) leaves the caller's SIGINT handler as it found it."""
import contextlib
import io
import signal

from vtengine.cli import main

before = signal.getsignal(signal.SIGINT)
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["--version"])
    except SystemExit as e:
        code = e.code
print("exit", code, "SIGINT handler restored:", signal.getsignal(signal.SIGINT) is before)
