"""Data is never markup. A commit subject, a gate's probe message, a path, a mutation's description or
an error message holding ``[/bold]`` (a closing tag rich would choke on), ``[core]`` (a tag rich would
silently eat) or ``[tool.vtgate]`` prints verbatim on every CLI, with the documented exit code (never
3 from the printer itself). Real console scripts, real suites, real git repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rich.table import Table

DATA = "[/bold] [core] [tool.vtgate]"
FAKE = Path(__file__).parent / "check" / "fake" / "fakeengine"
BIN = Path(sys.executable).parent

SUITE_HEADER = """\
[suite]
pythonpath = ["src"]
source_tree = "src/fakeengine"
timeout = 30
"""


def run(cli: str, *args: str, cwd: Path, columns: int = 200, env: dict[str, str] | None = None,
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / cli), *args], cwd=cwd, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": str(columns), **(env or {})})


def one_line(text: str) -> str:
    """stderr with the wrapping undone (lines wrap at spaces only), for messages longer than a line."""
    return " ".join(text.split())


def fake_project(root: Path, gates: str) -> Path:
    """A project holding the fake engine and ``vtgate.toml`` with ``gates``; returns the suite path."""
    shutil.copytree(FAKE, root / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    suite = root / "vtgate.toml"
    suite.write_text(SUITE_HEADER + "\n" + textwrap.dedent(gates), encoding="utf-8")
    return suite


# A probe whose stderr (the tail a gate error shows) is the data.
CRASH = f"""\
[[gate]]
name = "crash"
kind = "band"
probe = {{ cmd = ["sh", "-c", "echo '{DATA}' >&2; exit 4"] }}
bands = {{ n = [0, 5] }}
"""

BAND = """\
[[gate]]
name = "draft-band"
kind = "band"
probe = "fakeengine:speculative"
bands = { proposed = [50, 60] }
"""


# --- the helper -------------------------------------------------------------------------------------


def test_say_and_problem_print_markup_lookalikes_verbatim(capsys) -> None:
    from vtgate.output import problem, say

    say("[/bold] closes nothing")
    say(("[core]", "bold"), " fix")  # a styled piece is text too
    problem("configuration error", "no vtgate.toml and no [tool.vtgate] in pyproject.toml")
    assert capsys.readouterr().err.splitlines() == [
        "[/bold] closes nothing",
        "[core] fix",
        "configuration error: no vtgate.toml and no [tool.vtgate] in pyproject.toml",
    ]


def test_the_shared_console_parses_no_markup_in_strings_or_table_cells(capsys) -> None:
    from vtgate.output import console, print_table

    console.print("[/bold]")
    table = Table("gate", "note", box=None)
    table.add_row("[core]", "[/bold]")
    print_table(table)
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "[/bold]"
    assert "[core]" in err and err.count("[/bold]") == 2


def test_say_wraps_at_spaces_and_never_breaks_a_word() -> None:
    import io

    from rich.console import Console
    from vtgate.output import say

    path = "/tmp/[core]/a-path-longer-than-the-forty-columns-of-this-console/vtgate.toml"
    out = io.StringIO()
    say(("configuration error", "bold red"), f": {path}:3: gate 'x': unknown kind '[/bold]' here",
        to=Console(file=out, width=40, markup=False, color_system=None))
    lines = out.getvalue().splitlines()
    assert lines == ["configuration error:", f"{path}:3:", "gate 'x': unknown kind '[/bold]' here"]


# --- vtgate -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("columns", [80, 200], ids=["narrow", "wide"])
def test_check_prints_a_probe_message_verbatim_and_exits_3(tmp_path: Path, columns: int) -> None:
    fake_project(tmp_path, CRASH)
    done = run("vtgate", "check", cwd=tmp_path, columns=columns)
    assert done.returncode == 3, done.stderr
    assert DATA in done.stderr.splitlines()
    assert "internal error" not in done.stderr


@pytest.mark.parametrize("command", [["check"], ["list"], ["bless", "x", "--reason", "r"], ["mutate"]])
def test_a_config_error_naming_a_folder_and_a_kind_prints_them_whole_and_exits_2(tmp_path: Path, command) -> None:
    folder = tmp_path / "[core]"
    folder.mkdir()
    fake_project(folder, '[[gate]]\nname = "x"\nkind = "[/bold]"\nprobe = "fakeengine:generate"\n')
    done = run("vtgate", *command, "--suite", "[core]/vtgate.toml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "configuration error: [core]/vtgate.toml:" in one_line(done.stderr) or \
        f"configuration error: {folder}/vtgate.toml:" in one_line(done.stderr)
    assert "gate 'x': unknown kind '[/bold]'" in one_line(done.stderr)


@pytest.mark.parametrize("command", [["check"], ["list"], ["bless", "x", "--reason", "r"], ["mutate"]])
def test_the_missing_tool_vtgate_table_is_named_in_the_message(tmp_path: Path, command) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    done = run("vtgate", *command, "--suite", "pyproject.toml", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "has no [tool.vtgate] table; add one or pass --suite FILE" in one_line(done.stderr)


def test_list_prints_env_pins_deliberate_reds_and_the_suite_path_verbatim(tmp_path: Path) -> None:
    folder = tmp_path / "[core]"
    folder.mkdir()
    fake_project(folder, BAND + 'env = { FAKE_MODE = "[/bold]" }\nenv_reason = "[/bold] arm, #1"\n'
                 'deliberate_red = { issue = "[core]", reason = "[tool.vtgate]" }\n')
    done = run("vtgate", "list", "--suite", "[core]/vtgate.toml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "FAKE_MODE=[/bold]" in done.stderr
    assert "[deliberate red [core]]" in done.stderr
    assert "1 gates in [core]/vtgate.toml" in done.stderr.splitlines()


def test_bless_prints_a_probe_message_and_an_inline_pin_location_verbatim(tmp_path: Path) -> None:
    folder = tmp_path / "[core]"
    folder.mkdir()
    suite = fake_project(folder, CRASH.replace('kind = "band"', 'kind = "golden"').replace("bands = { n = [0, 5] }\n", "")
                         + BAND)
    crashed = run("vtgate", "bless", "crash", "--reason", "r", "--suite", str(suite), cwd=tmp_path)
    assert crashed.returncode == 3, crashed.stderr
    assert "crash: cannot bless (probe):" in crashed.stderr and DATA in crashed.stderr.splitlines()
    refused = run("vtgate", "bless", "draft-band", "--reason", "r", "--suite", str(suite), cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert f"its bands are pinned inline: edit them at {suite}:" in one_line(refused.stderr)


def test_mutate_prints_a_mutation_description_verbatim(tmp_path: Path) -> None:
    fake_project(tmp_path, BAND + textwrap.dedent(f"""
        [[mutation]]
        name = "no-op"
        kind = "env"
        env = {{ FAKE_NOTHING = "1" }}
        description = "{DATA}"
        expect = {{ draft-band = "green" }}
        """))
    done = run("vtgate", "mutate", "--no-auto", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # met; a --no-auto run is partial: vacuity is not judged
    assert f"1 no-op (env) met: kills 0 — {DATA}" in done.stderr


def test_envdoc_prints_a_path_and_a_config_section_verbatim(tmp_path: Path) -> None:
    (tmp_path / "[core]").mkdir()
    (tmp_path / "[core]" / "reader.py").write_text('import os\nA = os.environ.get("VT_UNDOCUMENTED")\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ENVIRONMENT.md").write_text(
        "# Knobs\n\n| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n")
    found = run("vtgate", "envdoc", cwd=tmp_path)
    assert found.returncode == 1, found.stderr
    assert "[core]/reader.py:2" in found.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.vtgate.envdoc]\nbogus = 1\n")
    bad = run("vtgate", "envdoc", cwd=tmp_path)
    assert bad.returncode == 2, bad.stderr
    assert "configuration error: pyproject.toml [tool.vtgate.envdoc]: unknown envdoc key(s) bogus" in one_line(bad.stderr)


# --- vtbisect ---------------------------------------------------------------------------------------


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True,
                          env={**os.environ, **(env or {})}).stdout.strip()


def history(repo: Path, subjects: list[str], culprit: int) -> list[str]:
    """A base commit, then one commit per subject; from ``culprit`` on, a.txt says bad."""
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "Dev")
    git(repo, "config", "commit.gpgsign", "false")
    shas = []
    for index, subject in enumerate(["base", *subjects]):
        (repo / "a.txt").write_text("bad\n" if index - 1 >= culprit else "ok\n")
        (repo / f"n{index}.txt").write_text(f"{index}\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", subject)
        shas.append(git(repo, "rev-parse", "HEAD"))
    return shas


JUDGE = "import pathlib, sys; sys.exit(1 if pathlib.Path('a.txt').read_text().strip() == 'bad' else 0)"


@pytest.mark.parametrize("culprit", ["[/bold] break a.txt", "[core] fix", "[tool.vtgate] read the table"])
def test_vtbisect_run_prints_commit_subjects_verbatim(tmp_path: Path, culprit: str) -> None:
    subjects = ["[core] fix", "[tool.vtgate] read the table", "[/bold] break a.txt", "after"]
    shas = history(tmp_path / "repo", subjects, subjects.index(culprit))
    done = run("vtbisect", "run", f"{shas[0]}..HEAD", "--cache-dir", str(tmp_path / "cache"), "--",
               sys.executable, "-c", JUDGE, cwd=tmp_path / "repo")
    assert done.returncode == 1, done.stderr
    culprit_sha = shas[1 + subjects.index(culprit)]
    assert f"command: first bad commit {culprit_sha[:10]} {culprit}" in done.stderr.splitlines()
    judged = [line for line in done.stderr.splitlines() if line.lstrip().startswith("step")]
    assert any(culprit in line for line in judged)


def test_vtbisect_gate_mode_without_a_suite_names_tool_vtgate_and_exits_2(tmp_path: Path) -> None:
    shas = history(tmp_path / "repo", ["one", "two"], 1)
    done = run("vtbisect", "run", f"{shas[0]}..HEAD", "--gate", "[core]", "--cache-dir", str(tmp_path / "cache"),
               cwd=tmp_path / "repo")
    assert done.returncode == 2, done.stderr
    assert "no vtgate.toml and no [tool.vtgate] in pyproject.toml" in one_line(done.stderr)


# --- vtengine ---------------------------------------------------------------------------------------


def test_vtengine_prints_a_prompt_and_a_model_name_verbatim(tmp_path: Path) -> None:
    env = {"VT_CACHE_DIR": str(tmp_path / "cache")}
    generated = run("vtengine", "generate", "--prompt", DATA, "--tokens", "2", cwd=tmp_path, env=env)
    assert generated.returncode == 0, generated.stderr
    assert generated.stderr.startswith(DATA)
    missing = run("vtengine", "generate", "--prompt", "hi", "--model", "[core]", cwd=tmp_path, env=env)
    assert missing.returncode == 2, missing.stderr
    assert "error: cannot load model '[core]'" in missing.stderr
