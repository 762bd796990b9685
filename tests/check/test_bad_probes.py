"""A probe that crashes, hangs, prints non-JSON or a non-object, a missing or wrong-schema golden, and
an anchor position beyond the stream: each makes its gate an **error** (exit 3), with the exact
message and the probe's stderr tail, and none can make a gate green, not even a deliberate-red one."""

from __future__ import annotations

import json
import time

import pytest

GEN = 'probe = "fakeengine:generate"\nargs = { prompt = "hello", tokens = 12 }\n'
DELIBERATE = 'deliberate_red = { issue = "#7", reason = "red on purpose" }\n'


def _gate(name: str, probe: str, extra: str = "") -> str:
    return f'[[gate]]\nname = "{name}"\nkind = "band"\nprobe = {probe}\nbands = {{ n = [0, 5] }}\n{extra}\n'


def _error_of(project, *args: str) -> tuple[int, dict]:
    done, report = project.check_json(*args)
    assert len(report["gates"]) == 1
    return done.returncode, report["gates"][0]


@pytest.mark.parametrize("deliberate", ["", DELIBERATE])
def test_probe_printing_non_json_is_an_error(project, deliberate: str) -> None:
    project.write_suite(_gate("talky", '{ cmd = ["python3", "-c", "print(\'hello there\')"] }', deliberate), header="")
    code, gate = _error_of(project)
    assert code == 3
    assert gate["status"] == "error" and gate["error_kind"] == "probe"
    assert gate["error"] == (
        "probe cmd python3 -c print('hello there') printed non-JSON (Expecting value at line 1 column 1); "
        "stdout starts: 'hello there' (stderr empty)"
    )


def test_probe_printing_a_list_is_an_error(project) -> None:
    project.write_suite(_gate("list", '"fakeengine:not_an_object"'))
    code, gate = _error_of(project)
    assert code == 3
    assert gate["error"] == ("probe fakeengine:not_an_object printed JSON list, not an object "
                             "(an observation is a JSON object) (stderr empty)")


def test_probe_exiting_non_zero_carries_the_stderr_tail(project) -> None:
    project.write_suite(_gate("crash", '"fakeengine:crash"', DELIBERATE))
    code, gate = _error_of(project)
    assert code == 3
    assert gate["status"] == "error" and gate["error_kind"] == "probe"
    assert gate["error"].startswith("probe fakeengine:crash exited with status 1\n--- probe stderr (last lines) ---\n")
    assert "loading weights..." in gate["error"]
    assert gate["error"].endswith("RuntimeError: kernel exploded at layer 3")


def test_cmd_probe_exiting_non_zero(project) -> None:
    project.write_suite(_gate("exit4", '{ cmd = ["sh", "-c", "echo broken >&2; exit 4"] }'), header="")
    code, gate = _error_of(project)
    assert code == 3
    assert gate["error"] == "probe cmd sh -c echo broken >&2; exit 4 exited with status 4\n--- probe stderr (last lines) ---\nbroken"


def test_hanging_probe_is_killed_with_its_children_at_the_gate_timeout(project) -> None:
    # the shell starts a grandchild sleeper; killing only the shell would leave it holding the pipe
    import psutil

    pidfile = project.root / "sleeper.pid"
    script = f"echo about to hang >&2; sleep 300 & echo $! > {pidfile}; wait"
    project.write_suite(_gate("hang", f'{{ cmd = ["sh", "-c", "{script}"] }}', "timeout = 1\n"), header="")
    code, gate = _error_of(project)
    assert code == 3
    assert gate["status"] == "error" and gate["error_kind"] == "timeout"
    assert gate["error"] == (f"probe cmd sh -c {script} timed out after 1 s and was "
                             "killed (with its children)\n--- probe stderr (last lines) ---\nabout to hang")
    sleeper = int(pidfile.read_text())  # the grandchild is gone, not left to run out its 300 s
    assert not psutil.pid_exists(sleeper) or psutil.Process(sleeper).status() == psutil.STATUS_ZOMBIE


def test_hanging_callable_probe_times_out(project) -> None:
    project.write_suite(_gate("hang", '"fakeengine:hang"', "timeout = 1\n"))
    code, gate = _error_of(project)
    assert code == 3 and gate["error_kind"] == "timeout"
    assert gate["error"].endswith("about to hang")


def test_probe_printing_to_stdout_itself_still_yields_its_observation(project) -> None:
    project.write_suite('[[gate]]\nname = "noisy"\nkind = "band"\nprobe = "fakeengine:noisy"\n'
                        'bands = { "tokens" = [0, 5] }\n')
    code, gate = _error_of(project)
    # the chatter went to stderr; the observation parsed; "tokens" is a list, not a number: red, not error
    assert gate["status"] == "red" and code == 1
    assert gate["summary"] == "0/1 in band — tokens missing from the observation (band [0, 5])"


def test_missing_golden_names_the_bless_command(project) -> None:
    project.write_suite('[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN + DELIBERATE)
    code, gate = _error_of(project)
    assert code == 3
    assert gate["status"] == "error" and gate["error_kind"] == "golden"
    assert gate["error"] == ("goldens/default/strict.json is missing: run 'vtgate bless strict --reason \"...\"' "
                             "to measure and pin it")


def test_golden_with_another_schema_is_an_error(project) -> None:
    project.write_suite('[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN)
    project.bless("strict")
    path = project.root / "goldens" / "default" / "strict.json"
    data = json.loads(path.read_text())
    data["schema"] = 2
    path.write_text(json.dumps(data))
    code, gate = _error_of(project)
    assert code == 3
    assert gate["error_kind"] == "golden"
    assert gate["error"] == ("goldens/default/strict.json has schema 2; this vtgate reads golden schema 1: re-bless it "
                             "(vtgate bless strict --reason \"...\") or use the vtgate that wrote it")


def test_golden_that_is_not_json_is_an_error(project) -> None:
    project.write_suite('[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN)
    path = project.root / "goldens" / "default" / "strict.json"
    path.parent.mkdir(parents=True)
    path.write_text("{ oops")
    code, gate = _error_of(project)
    assert code == 3 and gate["error_kind"] == "golden"
    assert gate["error"].startswith("goldens/default/strict.json is not valid JSON (")


def test_anchor_position_beyond_the_stream_is_a_config_error(project) -> None:
    project.write_suite('[[gate]]\nname = "bench"\nkind = "anchor"\npositions = [5]\n' + GEN)
    project.bless("bench")
    suite_path = project.root / "vtgate.toml"
    suite_path.write_text(suite_path.read_text().replace("positions = [5]", "positions = [5, 80]"))
    code, gate = _error_of(project)
    assert code == 3
    assert gate["status"] == "error" and gate["error_kind"] == "config"
    assert gate["error"] == (f"{suite_path}:6: gate 'bench': anchor position 80 is beyond the stream "
                             "(12 tokens, positions 0..11); fix 'positions' or generate more tokens")
    refused = project.vtgate("bless", "bench", "--reason", "more anchors")
    assert refused.returncode == 3
    assert "anchor position 80 is beyond the stream" in refused.stderr.replace("\n", " ")


def test_an_error_wins_over_red_in_the_exit_code(project) -> None:
    project.write_suite(_gate("crash", '"fakeengine:crash"') + '[[gate]]\nname = "red"\nkind = "band"\n'
                        'probe = "fakeengine:speculative"\nbands = { proposed = [0, 1] }\n')
    done, report = project.check_json()
    assert [g["status"] for g in report["gates"]] == ["error", "red"]
    assert done.returncode == 3 and report["ok"] is False


def test_ctrl_c_kills_running_probes_and_exits_130(project) -> None:
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    import psutil

    vtgate = str(Path(sys.executable).parent / "vtgate")
    pidfile = project.root / "sleeper.pid"
    project.write_suite(_gate("hang", f'{{ cmd = ["sh", "-c", "sleep 60 & echo $! > {pidfile}; wait"] }}'), header="")
    check = subprocess.Popen([vtgate, "check"], cwd=project.root,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "NO_COLOR": "1"})
    deadline = time.monotonic() + 20
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    sleeper = int(pidfile.read_text())
    assert psutil.pid_exists(sleeper)
    check.send_signal(signal.SIGINT)
    _, stderr = check.communicate(timeout=20)
    assert check.returncode == 130
    assert "interrupted: vtgate check (probe runs stopped; no report written)" in stderr
    gone = not psutil.pid_exists(sleeper) or psutil.Process(sleeper).status() == psutil.STATUS_ZOMBIE
    assert gone


def test_a_probe_killed_at_its_timeout_leaves_no_temporary_files(project, tmp_path) -> None:
    # the probe makes a temporary folder, then hangs: SIGKILL gives it no chance to remove it; vtgate
    # gave it a TMPDIR of its own and removes that when it exits
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir()
    made = project.root / "made.txt"
    script = f"d=$(mktemp -d); echo $d > {made}; echo about to hang >&2; sleep 300"
    project.write_suite(_gate("hang", f'{{ cmd = ["sh", "-c", "{script}"] }}', "timeout = 1\n"), header="")
    done, report = project.check_json(env={"TMPDIR": str(own_tmp)})
    assert done.returncode == 3 and report["gates"][0]["error_kind"] == "timeout"
    folder = made.read_text().strip()
    assert folder.startswith(str(own_tmp) + "/vtgate-probes-")  # the probe's TMPDIR was vtgate's folder
    assert list(own_tmp.iterdir()) == []  # removed with everything the probe left in it


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_the_probe_folders_of_a_vtgate_killed_outright_are_swept_and_nothing_else(tmp_path) -> None:
    # SIGKILL gives vtgate no exit to remove its probes' folder; the next vtgate that makes one sweeps
    # it, but only a folder of this user whose process is gone and that nothing touched for a day
    import os

    from vtgate.run.execute import STALE_SCRATCH_SECONDS, sweep_stale_scratch

    dead, old = _dead_pid(), time.time() - STALE_SCRATCH_SECONDS - 60
    folders = {name: tmp_path / f"vtgate-probes-{pid}-{name}" for name, pid in
               [("dead-old", dead), ("dead-young", dead), ("alive-old", os.getppid()), ("own-old", os.getpid())]}
    for name, folder in folders.items():
        (folder / "sub").mkdir(parents=True)
        (folder / "sub" / "left.bin").write_bytes(b"x")
        if name.endswith("old"):
            os.utime(folder, (old, old))
    lookalike = tmp_path / f"vtgate-probes-{dead}-file"  # a file, not a folder
    lookalike.write_text("kept")
    os.utime(lookalike, (old, old))
    assert sweep_stale_scratch(tmp_path) == [folders["dead-old"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [folders["dead-young"].name, folders["alive-old"].name, folders["own-old"].name, lookalike.name])


def test_vtgate_check_sweeps_a_stale_probe_folder_in_its_tmpdir(project, tmp_path) -> None:
    import os

    from vtgate.run.execute import STALE_SCRATCH_SECONDS

    own_tmp = tmp_path / "tmp"
    stale = own_tmp / f"vtgate-probes-{_dead_pid()}-abc123"
    (stale / "probe-left").mkdir(parents=True)
    old = time.time() - STALE_SCRATCH_SECONDS - 60
    os.utime(stale, (old, old))
    project.write_suite(_gate("quick", '{ cmd = ["sh", "-c", "mktemp -d >/dev/null; echo 1"] }'), header="")
    done, _report = project.check_json(env={"TMPDIR": str(own_tmp)})
    assert not stale.exists(), done.stderr
    assert list(own_tmp.iterdir()) == []  # and its own folder removed at its exit
