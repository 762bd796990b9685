"""Persistent probe workers (probe = { cmd = [...], worker = true }): one process per (command,
environment, root) answers every run of a check over line-delimited JSON; failures are reported per
run with the worker's stderr, a crashed worker is restarted, a hung one killed at the timeout."""

from __future__ import annotations

WORKER = '{ cmd = ["{python}", "engine/tinyengine.py", "serve"], worker = true }'


def _gates(*prompts: str, probe: str = WORKER, extra: str = "") -> str:
    return "".join(f"""
[[gate]]
name  = "g-{i}"
kind  = "golden"
mode  = "logits"
probe = {probe}
args  = {{ prompt = "{prompt}", tokens = 4 }}
{extra}""" for i, prompt in enumerate(prompts))


def _starts(project) -> int:
    path = project.root / "starts.log"
    return len(path.read_text().split()) if path.exists() else 0


def test_one_worker_answers_every_run_with_the_same_environment(project) -> None:
    project.write_suite(_gates("hi", "there", "again"))
    project.bless("g-0", "g-1", "g-2")
    assert _starts(project) == 1
    done, report = project.check_json("-j", "3")
    assert done.returncode == 0, done.stderr
    assert _starts(project) == 2  # one more check, one more worker: not one per run
    assert report["probe_runs"]["run"] == 3


def test_worker_answers_equal_the_one_shot_commands(project) -> None:
    project.write_suite(_gates("hi"))
    project.bless("g-0")
    one_shot = '{ cmd = ["{python}", "engine/tinyengine.py"] }'
    project.write_suite(_gates("hi", probe=one_shot))
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr


def test_another_environment_gets_its_own_worker(project) -> None:
    project.write_suite(_gates("hi") + """
[[gate]]
name  = "threads"
kind  = "invariance"
probe = { cmd = ["{python}", "engine/tinyengine.py", "serve"], worker = true }
args  = { prompt = "hi", tokens = 4 }
invariant_over = { TINY_THREADS = ["2", "3"] }
""")
    project.bless("g-0")
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr
    assert _starts(project) == 1 + 3  # the plain environment, TINY_THREADS=2, TINY_THREADS=3


def test_a_failing_run_is_an_error_and_the_worker_serves_on(project) -> None:
    project.write_suite(_gates("raise", "hi"))
    done = project.vtgate("bless", "g-0", "g-1", "--reason", "x")
    assert done.returncode == 3
    assert "worker reported: Traceback" in done.stderr and "ValueError: no such prompt" in done.stderr
    assert "wrote goldens/default/g-1.json" in done.stderr
    assert _starts(project) == 1


def test_a_crashed_worker_is_reported_and_restarted(project) -> None:
    crash = '{ cmd = ["{python}", "engine/tinyengine.py", "serve", "--crash-on", "boom"], worker = true }'
    project.write_suite(_gates("boom", "hi", probe=crash))
    done = project.vtgate("bless", "g-0", "g-1", "--reason", "x", "-j", "1")
    assert done.returncode == 3
    assert "worker exited with status 9 before answering" in done.stderr
    assert "wrote goldens/default/g-1.json" in done.stderr


def test_a_worker_that_crashes_once_is_restarted_and_the_run_asked_again(project) -> None:
    crash = '{ cmd = ["{python}", "engine/tinyengine.py", "serve", "--crash-once-on", "hi"], worker = true }'
    project.write_suite(_gates("hi", probe=crash))
    done = project.vtgate("bless", "g-0", "--reason", "x")
    assert done.returncode == 0, done.stderr
    assert _starts(project) == 2  # the crashed worker and its replacement
    assert (project.root / "crashed.once").exists()


def test_a_worker_that_crashes_again_is_reported_after_one_retry(project) -> None:
    crash = '{ cmd = ["{python}", "engine/tinyengine.py", "serve", "--crash-on", "boom"], worker = true }'
    project.write_suite(_gates("boom", probe=crash))
    done = project.vtgate("bless", "g-0", "--reason", "x")
    assert done.returncode == 3
    assert "(twice: it was restarted and the run asked again once)" in " ".join(done.stderr.split())
    assert _starts(project) == 2


def test_a_worker_printing_non_json_is_an_error_and_is_replaced(project) -> None:
    project.write_suite(_gates("junk", "hi"))
    done = project.vtgate("bless", "g-0", "g-1", "--reason", "x", "-j", "1")
    assert done.returncode == 3
    error = " ".join(done.stderr.split())  # the message is wrapped at the console's width
    assert "worker answered a line that is not JSON" in error
    assert "it starts 'loading weights...'" in error and "the worker was stopped" in error
    assert "wrote goldens/default/g-1.json" in done.stderr  # answered by a fresh worker, not the stale line
    assert not (project.root / "goldens" / "default" / "g-0.json").exists()
    assert _starts(project) == 2


def test_a_hung_worker_is_killed_at_the_timeout(project) -> None:
    hang = '{ cmd = ["{python}", "-c", "import time; time.sleep(600)"], worker = true }'
    project.write_suite(_gates("hi", probe=hang, extra="timeout = 2\n"))
    done = project.vtgate("bless", "g-0", "--reason", "x")
    assert done.returncode == 3
    assert "timed out after 2 s; the worker was killed" in done.stderr


def test_worker_must_be_a_boolean(project) -> None:
    project.write_suite(_gates("hi", probe='{ cmd = ["x"], worker = "yes" }'))
    done = project.vtgate("check")
    assert done.returncode == 2
    assert "probe worker must be true or false" in done.stderr
