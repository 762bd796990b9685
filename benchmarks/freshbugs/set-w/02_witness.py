"""02: knobs.inherited_environment() is documented as "the environment a child process started now
receives: the process's own, which Python's os.environ normally mirrors". os.putenv / os.unsetenv change
the process environment without touching the os.environ mapping (as C extensions calling setenv do), so
a child started now sees them; the helper must report what the child really gets."""
import os

from vtengine.knobs import inherited_environment

os.putenv("VT_SETW_PUT", "1")  # in the process environment only
os.environ["VT_SETW_GONE"] = "1"
os.unsetenv("VT_SETW_GONE")  # gone from the process environment, still in os.environ
seen = inherited_environment()
print("os.environ mapping: PUT", os.environ.get("VT_SETW_PUT"), "GONE", os.environ.get("VT_SETW_GONE"))
print("child receives: PUT", seen.get("VT_SETW_PUT"), "GONE", seen.get("VT_SETW_GONE"))
