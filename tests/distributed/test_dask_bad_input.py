"""The dask executor's bad input that needs no cluster: an unreachable scheduler, a bundle over the
size limit, settings that contradict each other, and a worker's judgement of another tree."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")


def test_an_unreachable_scheduler_is_exit_2_naming_the_address(kit, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo, commits=3)
    address = f"tcp://127.0.0.1:{kit.free_port()}"
    done = kit.vtbisect(repo, ["HEAD~2..HEAD", "--scheduler", address, "--", "./judge.sh"],
                    env={"VT_DASK_CONNECT_TIMEOUT": "1"})
    assert done.returncode == 2
    assert f"cannot reach the Dask scheduler at {address}" in " ".join(done.stderr.split())


def test_a_bundle_over_the_size_limit_is_refused_before_any_cluster_starts(kit, tmp_path):
    repo = tmp_path / "repo"
    kit.make_repo(repo, commits=3)
    done = kit.vtbisect(repo, ["HEAD~2..HEAD", "--executor", "dask", "--", "./judge.sh"],
                    env={"VT_DASK_SOURCE": "bundle", "VT_DASK_BUNDLE_LIMIT_MB": "0.0001"})
    assert done.returncode == 2
    assert "over the limit of 0.0001 MB" in " ".join(done.stderr.split()) and "VT_DASK_BUNDLE_LIMIT_MB" in " ".join(done.stderr.split())



def test_the_command_line_wins_over_the_environment_and_the_project_table():
    from vtgate.run.executor import resolve_settings

    table = {"scheduler": "tcp://table:1", "resources": {"GPU": 1}, "bundle_limit_mb": 50}
    env = {"VT_DASK_SCHEDULER": "tcp://env:2", "VT_DASK_RESOURCES": "GPU=2"}
    settings = resolve_settings(None, "tcp://cli:3", ["MEM=4"], env, table)
    assert (settings.kind, settings.scheduler, dict(settings.resources)) == ("dask", "tcp://cli:3", {"MEM": 4.0})
    from_env = resolve_settings(None, None, [], env, table)
    assert (from_env.scheduler, dict(from_env.resources), from_env.bundle_limit_mb) == ("tcp://env:2", {"GPU": 2.0}, 50)
    from_table = resolve_settings(None, None, [], {}, table)
    assert (from_table.kind, from_table.scheduler, dict(from_table.resources)) == ("dask", "tcp://table:1", {"GPU": 1.0})
    assert resolve_settings(None, None, [], {}, {}).kind == "local"  # the default: this machine's pool


def test_dask_settings_from_the_environment_or_the_table_leave_a_local_run_alone():
    from vtgate.run.executor import ExecutorError, resolve_settings

    env = {"VT_DASK_FALLBACK": "local", "VT_DASK_RESOURCES": "GPU=1"}  # a shell profile set up for cluster runs
    settings = resolve_settings(None, None, [], env, {})
    assert (settings.kind, settings.fallback, dict(settings.resources)) == ("local", "none", {})
    from_table = resolve_settings("local", None, [], {}, {"fallback": "local", "resources": {"GPU": 1}})
    assert (from_table.fallback, dict(from_table.resources)) == ("none", {})
    assert resolve_settings(None, "tcp://h:1", [], env, {}).fallback == "local"  # a Dask run takes them
    with pytest.raises(ExecutorError, match="it needs --executor dask"):  # said on the command line: a contradiction
        resolve_settings("local", None, [], {}, {}, fallback="local")


def test_an_executor_without_a_scheduler_is_a_local_cluster_reaching_the_repository_by_path():
    from vtgate.run.executor import resolve_settings

    settings = resolve_settings("dask", None, [], {}, {})
    assert settings.scheduler is None and settings.repository_source == "path"
    assert resolve_settings("dask", "tcp://h:1", [], {}, {}).repository_source == "bundle"


@pytest.mark.parametrize(("executor", "scheduler", "resources", "table", "says"), [
    ("local", "tcp://h:1", [], {}, "the executor is local"),
    ("dask", None, ["GPU"], {}, "resource 'GPU' is not NAME=AMOUNT"),
    ("dask", None, ["GPU=0"], {}, "with a positive amount"),
    (None, None, ["GPU=1"], {}, "they need --executor dask"),
    ("ray", None, [], {}, "executor 'ray' is not one of local, dask"),
    (None, None, [], {"workers": 3}, "unknown key(s) workers"),
])
def test_contradictory_or_malformed_settings_are_usage_errors_with_the_fix(executor, scheduler, resources, table,
                                                                          says):
    from vtgate.run.executor import ExecutorError, resolve_settings

    with pytest.raises(ExecutorError) as caught:
        resolve_settings(executor, scheduler, resources, {}, table)
    assert says in str(caught.value) and caught.value.exit_code == 2


def test_a_judgement_of_another_tree_is_refused_naming_the_worker():
    from vtbisect.distributed import RemoteResult, accept
    from vtbisect.judges import JudgeAbort, Judgement
    from vtgate.run.executor import WorkerIdentity

    worker = WorkerIdentity("gpu-7", "w3", "tcp://10.0.0.7:4000")
    judged = Judgement({"command": "good"}, "", 1.0)
    accept(RemoteResult(worker, "a" * 40, judgement=judged), "c" * 40, "a" * 40)  # the right tree: accepted
    with pytest.raises(JudgeAbort) as caught:
        accept(RemoteResult(worker, "b" * 40, judgement=judged), "c" * 40, "a" * 40)
    assert "worker w3 on gpu-7 (tcp://10.0.0.7:4000) judged tree bbbbbbbbbbbb" in str(caught.value)
    assert "its verdict is refused" in str(caught.value)


def test_the_bundle_holds_the_range_and_adds_no_ref_to_the_users_repository(kit, tmp_path):
    from vtbisect.distributed import make_bundle

    repo = tmp_path / "repo"
    shas = kit.make_repo(repo, commits=4)
    refs_before = kit.git(repo, "for-each-ref")
    bundle = make_bundle(repo, [shas[0], shas[-1]], tmp_path / "bundles")
    assert kit.git(repo, "for-each-ref") == refs_before
    clone = tmp_path / "clone.git"
    kit.git(tmp_path, "init", "-q", "--bare", str(clone))
    kit.git(clone, "fetch", "-q", str(bundle), "+refs/heads/*:refs/heads/*")
    for sha in shas:
        kit.git(clone, "cat-file", "-e", f"{sha}^{{commit}}")
