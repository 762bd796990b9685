"""02: a KnobError is an ordinary ValueError: it must survive what every exception may go through,
pickling (multiprocessing and concurrent.futures send a worker's exception to the parent that way)
and copy.copy, with its message intact. The witness makes Knobs.from_env() refuse VT_CPU_THREADS=two,
round-trips the error through pickle and copy, and lets a process-pool worker raise it."""
import concurrent.futures
import copy
import os
import pickle

import _w  # noqa: F401  (sys.path: the witness's directory)
from vtengine.knobs import KnobError, Knobs


def read_knobs() -> str:
    return repr(Knobs.from_env().cpu_threads)


def outcome(fn) -> str:
    try:
        return f"ok {fn()}"
    except Exception as error:  # noqa: BLE001
        return f"{type(error).__name__}: {str(error)[:70]}"


if __name__ == "__main__":
    os.environ["VT_CPU_THREADS"] = "two"
    try:
        Knobs.from_env()
    except KnobError as error:
        caught = error
    print("raised:", type(caught).__name__, str(caught))
    pickled = outcome(lambda: str(pickle.loads(pickle.dumps(caught))))
    copied = outcome(lambda: str(copy.copy(caught)))
    print("pickle round trip:", pickled)
    print("copy.copy:", copied)
    with concurrent.futures.ProcessPoolExecutor(1) as pool:
        worker = outcome(lambda: pool.submit(read_knobs).result(timeout=120))
    print("raised in a process-pool worker, seen by the parent:", worker)
    print("summary:", [r.split(":")[0].split(" ")[0] for r in (pickled, copied, worker)])
