"""The cli family's warm CLI runs (vtengine.clirunner): the same exit code, stdout and stderr as a
fresh ``python -m vtengine``, cold whenever the environment differs or the copy cannot import, and
bounded (a run past its timeout is killed, the interpreters end with the block)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import psutil
import pytest
from vtengine.clirunner import WarmCLI, cold

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def _env(engine: Path = ENGINE, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VT_")}
    return {**env, "CI": "true", "PYTHONPATH": str(engine), **extra}


def _bare(stdout: str) -> object:
    """A JSON observation without meta (its interpreter and timing fields), else the text."""
    try:
        document = json.loads(stdout)
    except ValueError:
        return stdout
    return {k: v for k, v in document.items() if k != "meta"} if isinstance(document, dict) else document


def test_warm_runs_equal_cold_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = _env(VT_CACHE_DIR=str(tmp_path / "cache"))
    cases = [
        ["generate", "--prompt", "a", "--tokens", "0"],  # usage error before the model
        ["generate", "--prompt", "bench", "--tokens", "3", "--json", "-"],
        ["score", "--ids", "1,2,3", "--json", "-"],
        ["score", "--ids", "5,,17"],
        ["bench", "--tokens", "5000"],
        ["arms", "--json", "-"],
        ["generate", "--prompt", "a", "--model", str(tmp_path / "nowhere")],
        ["generate", "--help"],
        ["no-such-command"],
    ]
    with WarmCLI(env) as warm:
        assert warm.warm
        for args in cases:
            hot = warm.run(args, env)
            fresh = cold(args, env)
            assert (hot[0], _bare(hot[1]), hot[2]) == (fresh[0], _bare(fresh[1]), fresh[2]), args
        # a run's files are its own: export writes, the next export into it is refused, as when cold
        first = warm.run(["export", "vt-tiny", str(tmp_path / "out")], env)
        again = warm.run(["export", "vt-tiny", str(tmp_path / "out")], env)
        assert first[0] == 0 and again[0] == 2 and "already exists" in again[2]
        assert warm.served == len(cases) + 2


def test_a_run_under_another_environment_is_cold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Warm only under the servers' own environment (what a module reads at import is then what a cold
    run reads); a run under another one is made cold. Checked through the CLI's own knob error."""
    monkeypatch.chdir(tmp_path)
    env = _env()
    with WarmCLI({**env, "VT_KV_BLOCK_SIZE": "0"}) as warm:
        # a different environment from the servers' runs cold, by the rule; the cold run is the reference
        code, _out, err = warm.run(["generate", "--prompt", "a", "--tokens", "2"], env)
        assert code == 0 and "VT_KV_BLOCK_SIZE" not in err
        assert warm.served == 0
        code, _out, err = warm.run(["generate", "--prompt", "a", "--tokens", "2"], {**env, "VT_KV_BLOCK_SIZE": "0"})
        assert code == 2 and "VT_KV_BLOCK_SIZE" in err
        assert warm.served == 1


def test_a_copy_that_cannot_import_runs_cold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE / "vtengine", copy / "vtengine", ignore=shutil.ignore_patterns("__pycache__"))
    probes = copy / "vtengine" / "probes.py"
    probes.write_text(probes.read_text() + "\nraise ImportError('planted: probes cannot import')\n")
    monkeypatch.chdir(tmp_path)
    env = _env(copy)
    with WarmCLI(env) as warm:
        assert not warm.warm
        hot = warm.run(["generate", "--prompt", "a", "--tokens", "2"], env)
        fresh = cold(["generate", "--prompt", "a", "--tokens", "2"], env)
    assert hot == fresh
    assert hot[0] != 0 and "planted: probes cannot import" in hot[2]


def test_a_run_past_its_timeout_is_killed_and_the_server_goes_on(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = _env()
    with WarmCLI(env, workers=1) as warm:
        server = warm.servers[0]
        before = {p.pid for p in psutil.Process(server.process.pid).children()}
        with pytest.raises(subprocess.TimeoutExpired):
            warm.run(["bench", "--tokens", "1000", "--runs", "100000"], env, timeout=2.0)
        assert {p.pid for p in psutil.Process(server.process.pid).children()} == before  # the child was reaped
        code, out, _err = warm.run(["arms", "--json", "-"], env)
        assert code == 0 and json.loads(out)["arms"]
        processes = [s.process for s in warm.servers]
    assert all(p.poll() is not None for p in processes)  # leaving the block ended them


def test_a_server_that_ends_mid_run_hands_the_run_to_a_cold_interpreter(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = _env()
    with WarmCLI(env, workers=1) as warm:
        warm.servers[0].process.kill()
        warm.servers[0].process.wait()
        code, out, _err = warm.run(["arms", "--json", "-"], env)
        assert code == 0 and json.loads(out)["arms"]
        assert warm.served == 0 and not warm.servers[0].alive

