"""The fork servers that answer a mutated copy's probe runs (vtgate.run.forkserver through the probe
layer): each run sees exactly its own environment and a freshly imported module, never what an
earlier run of the same server set or changed; a module that reads a knob at import gets each run's
value; a crash or a hang is reported as a fresh interpreter's would be, and release ends the servers."""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from vtgate.run.execute import AmbientEnv, ProbeKey, SharedRuns
from vtgate.run.proctree import ChildProcesses
from vtgate.run.workers import Zygote
from vtgate.suite.records import ProbeRef, ProbeRequest, SuiteSettings

PROBE = textwrap.dedent('''
    import os

    AT_IMPORT = os.environ.get("FS_AT_IMPORT", "unset")
    IMPORTED_IN = os.getpid()
    CALLS = []


    def observe(tag="x"):
        CALLS.append(tag)
        os.environ["FS_LEAK"] = tag  # a run that writes the environment must not reach the next one
        return {"tokens": [1], "metrics": {"knob": os.environ.get("FS_KNOB", "unset"), "at_import": AT_IMPORT,
                                           "calls": len(CALLS), "pid": os.getpid(), "server": os.getppid(),
                                           "imported_in": IMPORTED_IN}}


    def leak_seen():
        return {"tokens": [1], "metrics": {"leak": os.environ.get("FS_LEAK", "none")}}


    def crash():
        raise RuntimeError("boom from the probe")


    def hang():
        import time
        time.sleep(60)
''')


@pytest.fixture
def served(tmp_path: Path):
    root = tmp_path / "copy"
    (root / "src").mkdir(parents=True)
    (root / "src" / "fsprobe.py").write_text(PROBE)
    settings = SuiteSettings(pythonpath=("src",))
    with SharedRuns(settings, jobs=1, ambient=AmbientEnv({})) as shared:
        shared.serve(root)
        yield shared, root


def run(shared: SharedRuns, root: Path, function: str, env: dict[str, str] | None = None, timeout: float = 30,
        **args):
    request = ProbeRequest("baseline", ProbeRef(callable=f"fsprobe:{function}"), dict(args), dict(env or {}))
    key = ProbeKey.of(request, root)
    return shared.request(key, timeout).result()


def test_each_run_sees_its_own_env_and_a_fresh_module(served) -> None:
    shared, root = served
    first = run(shared, root, "observe", {"FS_KNOB": "a"}, tag="one").observation["metrics"]
    second = run(shared, root, "observe", {"FS_KNOB": "b"}, tag="two").observation["metrics"]
    plain = run(shared, root, "observe", tag="three").observation["metrics"]
    leak = run(shared, root, "leak_seen").observation["metrics"]
    assert (first["knob"], second["knob"], plain["knob"]) == ("a", "b", "unset")
    assert first["calls"] == second["calls"] == plain["calls"] == 1  # module state starts fresh each run
    assert leak["leak"] == "none"  # os.environ written by an earlier run does not reach a later one
    assert first["server"] == second["server"] == plain["server"]  # one warm server, a child per run
    assert len({first["pid"], second["pid"], plain["pid"]}) == 3
    assert first["imported_in"] == second["imported_in"] == first["server"]  # the server's warm import


def test_a_knob_read_at_import_takes_each_runs_value(served) -> None:
    shared, root = served
    runs = [run(shared, root, "observe", {"FS_AT_IMPORT": value}, tag=value).observation["metrics"]
            for value in ("x", "y")]
    assert [r["at_import"] for r in runs] == ["x", "y"]
    assert all(r["imported_in"] == r["pid"] for r in runs)  # a fresh interpreter, not the warm import
    warm = run(shared, root, "observe").observation["metrics"]
    assert warm["at_import"] == "unset" and warm["imported_in"] == warm["server"]


def test_a_crash_is_reported_like_a_fresh_runs_with_its_traceback(served) -> None:
    shared, root = served
    result = run(shared, root, "crash")
    assert result.observation is None and result.error_kind == "probe"
    assert result.error.startswith("probe fsprobe:crash exited with status 1")
    assert "RuntimeError: boom from the probe" in result.error
    assert run(shared, root, "observe").observation["metrics"]["knob"] == "unset"  # the server serves on


def test_a_hang_times_out_and_kills_the_server_with_its_child(served) -> None:
    shared, root = served
    server = run(shared, root, "observe").observation["metrics"]["server"]
    result = run(shared, root, "hang", timeout=2)
    assert result.error_kind == "timeout"
    assert "timed out after 2 s" in result.error
    assert not psutil.pid_exists(server) or psutil.Process(server).status() == psutil.STATUS_ZOMBIE
    again = run(shared, root, "observe", tag="after").observation["metrics"]
    assert again["server"] not in (server, os.getpid())  # a new server answers


def test_release_ends_the_servers_of_that_root(served) -> None:
    shared, root = served
    server = run(shared, root, "observe").observation["metrics"]["server"]
    assert psutil.pid_exists(server)
    shared.release(root)
    assert not psutil.pid_exists(server) or psutil.Process(server).status() == psutil.STATUS_ZOMBIE
    result = run(shared, root, "observe", tag="after")  # released: a fresh interpreter, started by vtgate
    assert result.observation["metrics"]["server"] == os.getpid()



def _zygote_of(server: int) -> psutil.Process:
    parent = psutil.Process(server).parent()
    assert parent is not None
    return parent


def test_servers_are_forked_by_a_zygote_that_never_imports_the_code_under_test(served) -> None:
    shared, root = served
    metrics = run(shared, root, "observe", tag="one").observation["metrics"]
    zygote = _zygote_of(metrics["server"])
    assert "--zygote" in zygote.cmdline()  # the server was forked, not started as a fresh interpreter
    assert metrics["imported_in"] == metrics["server"]  # the probe module was imported in the server
    (live,) = [z for z in shared.workers.zygotes.values() if z is not None]
    modules = set(live.modules())
    assert "numpy" in modules and "vtgate.run.child" in modules  # what every server starts with
    assert "fsprobe" not in modules  # the code under test is never imported before the fork
    other = root.parent / "other-copy"
    (other / "src").mkdir(parents=True)
    (other / "src" / "fsprobe.py").write_text(PROBE.replace('"unset"', '"other"'))
    shared.serve(other)
    elsewhere = run(shared, other, "observe", tag="two").observation["metrics"]
    assert elsewhere["knob"] == "other"  # the other copy's code, by the same zygote
    assert _zygote_of(elsewhere["server"]).pid == zygote.pid


SHADOW = textwrap.dedent('''
    def observe():
        import numpy
        return {"tokens": [1], "metrics": {"numpy": numpy.__file__}}
''')


def test_a_copy_that_shadows_a_preloaded_module_gets_a_fresh_server(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    (root / "src").mkdir(parents=True)
    (root / "src" / "shadowprobe.py").write_text(SHADOW)
    (root / "src" / "numpy.py").write_text("# a module named like one the zygote imported\n")
    with SharedRuns(SuiteSettings(pythonpath=("src",)), jobs=1, ambient=AmbientEnv({})) as shared:
        shared.serve(root)
        request = ProbeRequest("baseline", ProbeRef(callable="shadowprobe:observe"), {}, {})
        result = shared.request(ProbeKey.of(request, root), 30).result()
        assert result.error is None, result.error
        # A fresh interpreter with this PYTHONPATH imports the copy's numpy.py, so the server must too.
        assert result.observation["metrics"]["numpy"] == str(root / "src" / "numpy.py")
        assert any(z is not None for z in shared.workers.zygotes.values())  # it went through the zygote


PRELOADED = textwrap.dedent('''
    import sys

    def observe():
        import colorsys
        return {"tokens": [1], "metrics": {"colorsys": colorsys.__file__, "server_had_it": SERVER_HAD_IT}}

    SERVER_HAD_IT = "colorsys" in sys.modules
''')


def test_preload_is_imported_by_the_zygote_and_a_copy_that_shadows_it_starts_fresh(tmp_path: Path) -> None:
    """``[suite] preload`` names what the zygote imports before forking servers (here ``colorsys``, which
    neither a bare interpreter nor vtgate imports): servers then start with it; a copy whose path holds a module
    of that name gets a fresh server, which imports the copy's module as a fresh interpreter would."""
    plain, shadowing = tmp_path / "plain", tmp_path / "shadowing"
    for root in (plain, shadowing):
        (root / "src").mkdir(parents=True)
        (root / "src" / "preprobe.py").write_text(PRELOADED)
    (shadowing / "src" / "colorsys.py").write_text("# a module named like one the zygote preloaded\n")
    settings = SuiteSettings(pythonpath=("src",), preload=("numpy", "colorsys"))
    with SharedRuns(settings, jobs=1, ambient=AmbientEnv({})) as shared:
        request = ProbeRequest("baseline", ProbeRef(callable="preprobe:observe"), {}, {})
        shared.serve(plain)
        warm = shared.request(ProbeKey.of(request, plain), 30).result()
        assert warm.error is None, warm.error
        (live,) = [z for z in shared.workers.zygotes.values() if z is not None]
        assert {"numpy", "colorsys"} <= set(live.modules())
        assert "--preload" in live.process.args and "numpy,colorsys" in live.process.args
        assert warm.observation["metrics"]["server_had_it"] is True
        shared.serve(shadowing)
        fresh = shared.request(ProbeKey.of(request, shadowing), 30).result()
        assert fresh.error is None, fresh.error
        assert fresh.observation["metrics"]["colorsys"] == str(shadowing / "src" / "colorsys.py")


def test_the_default_preload_is_numpy_alone(served) -> None:
    shared, root = served
    run(shared, root, "observe", tag="one")
    (live,) = [z for z in shared.workers.zygotes.values() if z is not None]
    assert "ml_dtypes" not in set(live.modules()) and "numpy" in set(live.modules())


THREAD_POOL = textwrap.dedent('''
    """Idle threads started at import, as a native BLAS or OpenMP pool starts its workers."""
    import threading

    for _ in range(6):
        threading.Thread(target=threading.Event().wait, daemon=True).start()
''')


def _process_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0].decode()


def _until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True


def test_a_zygote_whose_preload_started_threads_writes_every_servers_status(tmp_path: Path) -> None:
    """SIGCHLD goes to any thread that does not block it. With a preload's threads beside the zygote's
    own, the signal of a server's end often lands on one of them (here made likely: the zygote is
    stopped while the server dies, and on SIGCONT whichever thread runs first takes it); the zygote
    must still reap the server and write its status, not wait for its next request. Before the zygote
    watched a wake-up pipe and reaped on every pass, most of these rounds never got a status."""
    (tmp_path / "threadpool.py").write_text(THREAD_POOL)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    children = ChildProcesses()
    zygote = Zygote(children, sys.executable, env, ("numpy", "threadpool"))
    try:
        assert zygote.ready and "threadpool" in zygote.modules()
        assert len(os.listdir(f"/proc/{zygote.process.pid}/task")) > 6
        for _ in range(8):
            server = zygote.spawn(tmp_path, env, "json")
            os.kill(zygote.process.pid, signal.SIGSTOP)
            try:
                assert _until(lambda: _process_state(zygote.process.pid) == "T", 5)
                os.kill(server.pid, signal.SIGKILL)
                assert _until(lambda pid=server.pid: _process_state(pid) == "Z", 5)
            finally:
                os.kill(zygote.process.pid, signal.SIGCONT)
            assert _until(server.status_file.exists, 5), "the zygote wrote no status for its killed server"
            assert server.wait(5) == -signal.SIGKILL
            for stream in (server.stdin, server.stdout, server.stderr):
                assert stream is not None
                stream.close()
    finally:
        zygote.close(children)
        children.kill_all()
