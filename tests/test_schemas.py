"""The JSON reports match their documented schemas (docs/schemas/*.schema.json, docs/json-formats.md):
each test runs the real command on a small real project or git repository, validates what it wrote,
and checks that the schema would catch a renamed field. The project's probe is a small script that
prints an observation; a knob (SCHEMA_FLIP) moves one token, as a leaking arm would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schemas"
BIN = Path(sys.executable).parent

PROBE = """\
import json, os, sys
args = json.loads(os.environ.get("VTGATE_PROBE_ARGS") or "{}")
if args.get("crash"):
    sys.exit("probe crashed on purpose")
tokens = [(7 * i + 3) % 50 for i in range(int(args.get("tokens", 8)))]
if os.environ.get("SCHEMA_FLIP") == "1":
    tokens[2] += 1
print(json.dumps({"tokens": tokens, "margins": [0.5] * len(tokens),
                  "metrics": {"drafted": 10 + tokens[2]}, "counters": {"hits": 4}}))
"""


def suite_text(*, broken: bool) -> str:
    probe = f"{{ cmd = [{json.dumps(sys.executable)}, \"probe.py\"] }}"
    text = f"""\
        [suite]
        timeout = 60

        [[gate]]
        name = "strict-chain"
        kind = "golden"
        probe = {probe}
        args = {{ tokens = 8 }}

        [[gate]]
        name = "draft-band"
        kind = "band"
        probe = {probe}
        args = {{ tokens = 8 }}
        bands = {{ drafted = [10, 40] }}

        [[gate]]
        name = "known-bad-band"
        kind = "band"
        probe = {probe}
        args = {{ tokens = 8 }}
        bands = {{ drafted = [0, 1] }}
        deliberate_red = {{ issue = "#1", reason = "kept red on purpose" }}

        [[mutation]]
        name = "flip-leaks"
        kind = "env"
        env = {{ SCHEMA_FLIP = "1" }}
        expect = {{ strict-chain = "red", draft-band = "green" }}
        """
    if broken:
        text += f"""
        [[gate]]
        name = "crashing-probe"
        kind = "band"
        probe = {probe}
        args = {{ crash = true }}
        bands = {{ drafted = [0, 100] }}
        """
    return textwrap.dedent(text)


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    full_env.pop("SCHEMA_FLIP", None)
    full_env.update(env or {})
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=full_env, timeout=300)


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def assert_valid(name: str, report: dict[str, Any]) -> None:
    errors = sorted(validator(name).iter_errors(report), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


def assert_rename_caught(name: str, report: dict[str, Any], path: list[Any], new_key: str) -> None:
    """Renaming the key at ``path`` (its last element) in a valid report makes it invalid."""
    mangled = json.loads(json.dumps(report))
    holder = mangled
    for part in path[:-1]:
        holder = holder[part]
    holder[new_key] = holder.pop(path[-1])
    assert not validator(name).is_valid(mangled), f"renaming {path} to {new_key!r} went unnoticed"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "vtgate.toml").write_text(suite_text(broken=True), encoding="utf-8")
    (tmp_path / "clean.toml").write_text(suite_text(broken=False), encoding="utf-8")
    done = run([str(BIN / "vtgate"), "bless", "strict-chain", "--reason", "first measurement"], tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def test_check_report_matches_its_schema_with_every_status(project: Path) -> None:
    done = run([str(BIN / "vtgate"), "check", "--json", "-"], project, {"SCHEMA_FLIP": "1"})
    report = json.loads(done.stdout)
    statuses = {g["name"]: g["status"] for g in report["gates"]}
    assert statuses == {"strict-chain": "red", "draft-band": "green", "known-bad-band": "deliberate-red",
                        "crashing-probe": "error"}, done.stderr
    assert done.returncode == 3
    assert_valid("check", report)
    assert_rename_caught("check", report, ["gates", 0, "error_kind"], "errorKind")
    assert_rename_caught("check", report, ["probe_runs"], "probeRuns")
    assert_rename_caught("check", report, ["gates", 0, "cases", "failed_ids"], "failed")
    report_with_ambient = {**report, "ambient_env": {"VT_CPU_THREADS": "2"}}
    assert_valid("check", report_with_ambient)
    assert not validator("check").is_valid({**report, "ambient_env": {"VT_CPU_THREADS": 2}})


def test_check_config_error_report_matches_its_schema(project: Path) -> None:
    (project / "bad.toml").write_text('[[gate]]\nname = "x"\nkind = "no-such-kind"\n', encoding="utf-8")
    done = run([str(BIN / "vtgate"), "check", "--suite", "bad.toml", "--json", "-"], project)
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert report["error_kind"] == "config"
    assert_valid("check", report)
    assert_rename_caught("check", report, ["error"], "message")


def test_mutate_report_matches_its_schema(project: Path) -> None:
    done = run([str(BIN / "vtgate"), "mutate", "--suite", "clean.toml", "-j", "2", "-q", "--json", "-"], project)
    report = json.loads(done.stdout)
    flip = next(m for m in report["mutations"] if m["name"] == "flip-leaks")
    assert flip["met"] and flip["kills"] == ["strict-chain"], done.stderr
    assert {m["origin"] for m in report["mutations"]} >= {"declared", "control"}
    assert_valid("mutate", report)
    index = report["mutations"].index(flip)
    assert_rename_caught("mutate", report, ["mutations", index, "expected"], "expect")
    assert_rename_caught("mutate", report, ["vacuous_reasons"], "vacuous_why")


ENV_DOC = """\
# Knobs

| name | default | effect | bit-exact with default? |
|---|---|---|---|
| VT_THREADS | 4 | worker threads | yes |
| VT_GONE | (unset) | nothing reads this any more | yes |
"""

ENV_READS = """\
import os

threads = os.environ.get("VT_THREADS", "2")
fresh = os.environ.get("VT_FRESH")
arm = os.environ.get("VT_ARM_" + arm_name())
broken = os.environ.get(name_from_elsewhere())
"""


def test_envdoc_report_matches_its_schema(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ENVIRONMENT.md").write_text(ENV_DOC, encoding="utf-8")
    (tmp_path / "reads.py").write_text(ENV_READS, encoding="utf-8")
    (tmp_path / "broken.py").write_text("import os\nos.environ.get('VT_X'\n", encoding="utf-8")
    done = run([str(BIN / "vtgate"), "envdoc", "--root", str(tmp_path), "--json", "-"], tmp_path)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert [u["name"] for u in report["undocumented"]] == ["VT_FRESH"]
    assert [s["name"] for s in report["stale"]] == ["VT_GONE"]
    assert [m["name"] for m in report["default_mismatch"]] == ["VT_THREADS"]
    assert report["dynamic"] and report["incomplete"] and report["dynamic_unscoped"]
    assert_valid("envdoc", report)
    assert_rename_caught("envdoc", report, ["default_mismatch", 0, "doc_line"], "docline")
    assert_rename_caught("envdoc", report, ["stale"], "stale_rows")


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"}
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env=env).stdout.strip()


def test_bisect_record_matches_its_schema_in_command_and_gate_mode(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "Dev")
    git(repo, "config", "commit.gpgsign", "false")
    (repo / "probe.py").write_text(PROBE.replace('os.environ.get("SCHEMA_FLIP") == "1"',
                                                 'open("flip.txt").read().strip() == "1"'), encoding="utf-8")
    (repo / "flip.txt").write_text("0\n", encoding="utf-8")
    (repo / "judge.py").write_text("import sys\nsys.exit(1 if open('flip.txt').read().strip() == '1' else 0)\n",
                                   encoding="utf-8")
    (repo / "vtgate.toml").write_text(suite_text(broken=False), encoding="utf-8")
    done = run([str(BIN / "vtgate"), "bless", "strict-chain", "--reason", "first measurement"], repo)
    assert done.returncode == 0, done.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base: green")
    for index in range(4):
        if index == 2:
            (repo / "flip.txt").write_text("1\n", encoding="utf-8")
        (repo / f"note{index}.txt").write_text(f"{index}\n", encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"change {index}")
    culprit = git(repo, "rev-list", "--reverse", "HEAD")
    culprit = culprit.splitlines()[3]

    command = run([str(BIN / "vtbisect"), "run", "HEAD~4..HEAD", "-q", "--no-cache", "--json", "-", "--",
                   sys.executable, "judge.py"], repo)
    gate = run([str(BIN / "vtbisect"), "run", "HEAD~4..HEAD", "-q", "--no-cache", "--gate", "strict-chain",
                "--json", "-"], repo)
    for done in (command, gate):
        assert done.returncode == 1, done.stderr
        record = json.loads(done.stdout)
        assert [c["commit"] for c in record["culprits"]] == [culprit]
        assert_valid("bisect", record)
        assert_rename_caught("bisect", record, ["culprits", 0, "masked_by"], "maskedBy")
        assert_rename_caught("bisect", record, ["steps", 0, "verdict"], "result")
        assert_rename_caught("bisect", record, ["recipe", "argv"], "command")
    assert json.loads(command.stdout)["recipe"]["mode"] == "command"
    assert json.loads(gate.stdout)["recipe"]["mode"] == "gate"
