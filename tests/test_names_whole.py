"""Names a user copies (gate names, tiers, golden paths, knob names, file:line, commit ids, option
names) are never folded or cut with an ellipsis, even at 80 columns (a CI log): each appears whole on
one line of the output. Real console scripts at ``COLUMNS=80``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FAKE = Path(__file__).parent / "check" / "fake" / "fakeengine"
BIN = Path(sys.executable).parent

LONG_GATE = "argmax-chain-of-a-rather-long-prompt-about-a-quick-brown-fox-with-fma-arms-and-more"  # 80+ chars
LONG_TIER = "fma-and-bfdot-on-a-machine-with-avx512"
LONG_KNOB = "VT_A_VERY_LONG_KNOB_NAME_THAT_SOMEONE_WILL_COPY_INTO_THEIR_SHELL_CONFIGURATION"

SUITE_HEADER = """\
[suite]
pythonpath = ["src"]
source_tree = "src/fakeengine"
timeout = 30
"""


def run(cli: str, *args: str, cwd: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / cli), *args], cwd=cwd, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "NO_COLOR": "1", "COLUMNS": str(columns)})


def assert_whole(output: str, *names: str) -> None:
    """Each name on one line, not followed by more name characters (a cut) or an ellipsis."""
    for name in names:
        pattern = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|…)")
        assert any(pattern.search(line) for line in output.splitlines()), f"{name!r} is not whole in:\n{output}"


def fake_project(root: Path, gates: str) -> None:
    shutil.copytree(FAKE, root / "src" / "fakeengine", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "vtgate.toml").write_text(SUITE_HEADER + "\n" + textwrap.dedent(gates), encoding="utf-8")


GOLDEN = f"""\
[[gate]]
name = "{LONG_GATE}"
kind = "golden"
tier = "{LONG_TIER}"
probe = "fakeengine:generate"
args = {{ prompt = "hello", tokens = 12 }}
env = {{ FAKE_FLIP = "3" }}
env_reason = "the flip arm, #12"
"""

BAND = """\
[[gate]]
name = "draft-band"
kind = "band"
probe = "fakeengine:speculative"
bands = { proposed = [50, 60] }
"""


def test_list_shows_every_name_and_path_whole_at_80_columns(tmp_path: Path) -> None:
    fake_project(tmp_path, GOLDEN + BAND)
    done = run("vtgate", "list", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert_whole(done.stderr, LONG_GATE, LONG_TIER, f"goldens/{LONG_TIER}/{LONG_GATE}.json", "FAKE_FLIP=3",
                 "fakeengine:generate", "draft-band", "fakeengine:speculative")


@pytest.mark.parametrize("columns", [80, 130], ids=["narrow", "wide"])
def test_check_shows_gate_names_and_the_bless_command_whole(tmp_path: Path, columns: int) -> None:
    fake_project(tmp_path, GOLDEN + BAND)
    done = run("vtgate", "check", cwd=tmp_path, columns=columns)
    assert done.returncode == 3, done.stderr  # the golden is missing: an error naming the fix
    assert_whole(done.stderr, LONG_GATE, LONG_TIER, f"goldens/{LONG_TIER}/{LONG_GATE}.json", "draft-band")


def test_mutate_kill_matrix_shows_gate_names_whole(tmp_path: Path) -> None:
    fake_project(tmp_path, BAND.replace("draft-band", LONG_GATE) + textwrap.dedent(f"""
        [[mutation]]
        name = "no-op"
        kind = "env"
        env = {{ FAKE_NOTHING = "1" }}
        expect = {{ {LONG_GATE} = "green" }}
        """))
    done = run("vtgate", "mutate", "--no-auto", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # met; a --no-auto run is partial: vacuity is not judged
    assert_whole(done.stderr, LONG_GATE)


def test_envdoc_findings_show_knob_names_and_file_lines_whole(tmp_path: Path) -> None:
    source = tmp_path / "engine" / "some_deeply_nested_package" / "with_a_long_module_name_reading_knobs.py"
    source.parent.mkdir(parents=True)
    source.write_text(f'import os\nA = os.environ.get("{LONG_KNOB}", "1")\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "ENVIRONMENT.md").write_text(
        "# Knobs\n\n| name | default | effect | bit-exact with default? |\n|---|---|---|---|\n")
    done = run("vtgate", "envdoc", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert_whole(done.stderr, LONG_KNOB, f"{source.relative_to(tmp_path)}:2")


def test_vtbisect_shows_commit_ids_whole(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout.strip()

    git("init", "-q", "-b", "main")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "Dev")
    git("config", "commit.gpgsign", "false")
    shas = []
    for index in range(4):
        (repo / "a.txt").write_text("bad\n" if index >= 2 else "ok\n")
        (repo / "n.txt").write_text(f"{index}\n")
        git("add", "-A")
        git("commit", "-q", "-m", f"commit {index} " + "with a subject long enough to reach past eighty columns " * 2)
        shas.append(git("rev-parse", "HEAD"))
    judge = "import pathlib, sys; sys.exit(1 if pathlib.Path('a.txt').read_text().strip() == 'bad' else 0)"
    done = run("vtbisect", "run", f"{shas[0]}..{shas[3]}", "--cache-dir", str(tmp_path / "cache"), "--",
               sys.executable, "-c", judge, cwd=repo)
    assert done.returncode == 1, done.stderr
    assert_whole(done.stderr, f"{shas[0]}..{shas[3]}", f"first bad commit {shas[2][:10]}")


def test_vtengine_arms_shows_knob_names_whole() -> None:
    from vtengine.arms import ARMS

    done = run("vtengine", "arms", cwd=Path.cwd())
    assert done.returncode == 0, done.stderr
    assert_whole(done.stderr, *[arm.knob for arm in ARMS if arm.knob])


def _commands(cli: str):  # -> list of (argv prefix, click command)
    import typer

    if cli == "vtgate":
        import vtgate.cli.main as module
    elif cli == "vtbisect":
        import vtbisect.cli as module
    else:
        import vtengine.cli as module
    root = typer.main.get_command(module.app)
    return [([], root)] + [([name], command) for name, command in root.commands.items()]


@pytest.mark.parametrize("cli", ["vtgate", "vtbisect", "vtengine"])
def test_help_at_80_columns_shows_every_option_and_command_whole(cli: str, tmp_path: Path) -> None:
    for words, command in _commands(cli):
        done = run(cli, *words, "--help", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        names = [opt for param in command.params for opt in [*param.opts, *param.secondary_opts]
                 if opt.startswith("-")]
        names += list(getattr(command, "commands", {}))
        assert_whole(done.stdout, "--help", *names)
