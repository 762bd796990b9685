"""vtgate check answers callable probes from warm fork servers (one per probe module, the module imported
once), and each run still starts and ends as a fresh ``python -m vtgate.run.child`` would: its own
``sys.argv``, the path's ``sitecustomize`` imported, its threads joined and ``atexit`` callbacks run at
the end (a hang there times out). An import that starts a thread, and ``[suite] fork_servers = false``,
give every run a fresh interpreter. Real ``vtgate check`` runs on a throwaway project."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

PROBE = textwrap.dedent('''
    import atexit
    import json
    import os
    import sys
    import threading
    import time

    IMPORTED_IN = os.getpid()


    def where(out):
        facts = {"imported_in": IMPORTED_IN, "pid": os.getpid(), "argv": sys.argv,
                 "site": getattr(sys, "fp_sitecustomize", None), "hash": hash("vtgate")}
        with open(out, "w") as handle:
            json.dump(facts, handle)
        return {"metrics": {"n": 1}}


    def leaves_work(out):
        def late():
            time.sleep(0.5)
            with open(out + ".thread", "w") as handle:
                handle.write("joined")

        threading.Thread(target=late).start()  # not a daemon: the interpreter waits for it
        atexit.register(lambda: open(out + ".atexit", "w").write("ran"))
        return {"metrics": {"n": 1}}


    def hangs_at_exit():
        threading.Thread(target=time.sleep, args=(600,)).start()
        return {"metrics": {"n": 1}}
''')

THREADED = textwrap.dedent('''
    import threading
    import time

    from forkprobe import where

    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()  # a worker started at import
''')

HEADER = '[suite]\npythonpath = ["src"]\ntimeout = 30\n'


def _gate(name: str, probe: str, args: str = "", extra: str = "") -> str:
    return (f'[[gate]]\nname = "{name}"\nkind = "band"\nprobe = "{probe}"\nargs = {{ {args} }}\n'
            f'bands = {{ n = [1, 1] }}\n{extra}\n')


def _setup(project, header: str = HEADER) -> Path:
    (project.root / "src" / "forkprobe.py").write_text(PROBE)
    (project.root / "src" / "threadprobe.py").write_text(THREADED)
    out = project.root / "facts"
    out.mkdir()
    return out


def _where(project, out: Path, probe: str, header: str = HEADER, extra: str = "") -> dict:
    facts = out / f"{probe.replace(':', '-')}.json"
    project.write_suite(_gate("where", probe, f'out = "{facts}"', extra), header=header)
    done, report = project.check_json()
    assert done.returncode == 0, (done.stderr, report["gates"][0]["summary"])
    return json.loads(facts.read_text())


def test_check_answers_a_callable_probe_from_a_fork_server_with_a_fresh_runs_argv(project) -> None:
    out = _setup(project)
    facts = _where(project, out, "forkprobe:where")
    assert facts["imported_in"] != facts["pid"]  # imported once, in the server; the run is its child
    assert Path(facts["argv"][0]).name == "child.py" and Path(facts["argv"][0]).parent.name == "run"
    assert facts["argv"][1:3] == ["forkprobe:where", "--args"]


def test_fork_servers_false_gives_every_run_a_fresh_interpreter(project) -> None:
    out = _setup(project)
    facts = _where(project, out, "forkprobe:where", header=HEADER + "fork_servers = false\n")
    assert facts["imported_in"] == facts["pid"]


def test_an_import_that_starts_a_thread_gets_a_fresh_interpreter(project) -> None:
    out = _setup(project)
    facts = _where(project, out, "threadprobe:where")
    assert facts["imported_in"] == facts["pid"]  # a forked child would not have had that thread


def test_a_run_that_sets_a_variable_read_at_interpreter_start_gets_a_fresh_interpreter(project) -> None:
    import subprocess
    import sys

    out = _setup(project)
    facts = _where(project, out, "forkprobe:where", extra='env = { PYTHONHASHSEED = "123" }\nenv_reason = "a seed"')
    assert facts["imported_in"] == facts["pid"]
    seeded = subprocess.run([sys.executable, "-c", "print(hash('vtgate'))"], capture_output=True, text=True,
                            env={"PYTHONHASHSEED": "123"}, check=True)
    assert facts["hash"] == int(seeded.stdout)  # the run's own seed, not the server's


def test_a_sitecustomize_on_the_probes_path_is_imported_as_at_a_fresh_start(project) -> None:
    out = _setup(project)
    (project.root / "src" / "sitecustomize.py").write_text("import sys\nsys.fp_sitecustomize = 'imported'\n")
    facts = _where(project, out, "forkprobe:where")
    assert facts["site"] == "imported"


def test_a_forked_run_joins_its_threads_and_runs_atexit_as_an_interpreter_does(project) -> None:
    out = _setup(project)
    stem = out / "left"
    project.write_suite(_gate("leaves", "forkprobe:leaves_work", f'out = "{stem}"'), header=HEADER)
    done, report = project.check_json()
    assert done.returncode == 0, (done.stderr, report["gates"][0]["summary"])
    assert Path(f"{stem}.thread").read_text() == "joined"
    assert Path(f"{stem}.atexit").read_text() == "ran"


def test_a_thread_left_running_at_exit_times_out_as_a_fresh_run_would(project) -> None:
    _setup(project)
    project.write_suite(_gate("hangs", "forkprobe:hangs_at_exit", extra="timeout = 4"), header=HEADER)
    done, report = project.check_json()
    gate = report["gates"][0]
    assert done.returncode == 3, done.stderr
    assert gate["status"] == "error" and gate["error_kind"] == "timeout", gate["summary"]
