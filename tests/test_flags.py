"""A flag means the same on every command of the three CLIs (vtgate, vtbisect, vtengine): the same
long and short spellings, the same kind (a switch or a value), and help that says the same thing the
same way. The commands are read from the real typer apps, so a new command is checked too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer.main
import vtbisect.cli  # noqa: F401  (registers vtbisect's commands)
import vtengine.cli
import vtgate.cli.main  # noqa: F401  (registers vtgate's commands)
from typer.core import TyperOption
from vtbisect.app import app as vtbisect_app
from vtgate.cli.app import app as vtgate_app

APPS = {"vtgate": vtgate_app, "vtbisect": vtbisect_app, "vtengine": vtengine.cli.app}


@dataclass(frozen=True)
class Shared:
    """A shared flag: every spelling it has anywhere, whether it is a switch, and its help's promise."""

    spellings: frozenset[str]
    is_switch: bool
    help_starts: str = ""
    help_ends: str = ""
    metavar: str | None = None
    repeatable: bool = False


# vtgate envdoc takes these single-value flags as lists so that a repeated one is exit 2 with a message
# (tests/envdoc) instead of click's silent "last one wins"; they are still single-value flags.
REJECTS_REPEATS = {("vtgate envdoc", "--root"), ("vtgate envdoc", "--json"), ("vtgate envdoc", "--jobs")}

SHARED = {
    "--root": Shared(frozenset({"--root"}), False, help_starts="Tree whose code is under test"),
    "--gate": Shared(frozenset({"--gate", "-g"}), False, help_ends="(repeatable).", repeatable=True),
    "--quiet": Shared(frozenset({"--quiet", "-q"}), True, help_starts="No progress lines."),
    "--json": Shared(frozenset({"--json"}), False, help_ends="to PATH ('-' = stdout).", metavar="PATH"),
    "--github": Shared(frozenset({"--github"}), True, help_starts="GitHub Actions: ::error annotations"),
    "--jobs": Shared(frozenset({"--jobs", "-j"}), False),
    "--suite": Shared(frozenset({"--suite"}), False, help_starts="Suite TOML (default: vtgate.toml or [tool.vtgate]"),
    "-k": Shared(frozenset({"-k"}), False, help_starts="Select gates whose name/kind/tier match EXPR"),
}


def options() -> list[tuple[str, TyperOption]]:
    """("program command", option) for every option of every command of the three apps."""
    found = []
    for program, app in APPS.items():
        group = typer.main.get_command(app)
        for name, command in group.commands.items():  # type: ignore[attr-defined]
            found += [(f"{program} {name}", p) for p in command.params if isinstance(p, TyperOption)]
    return found


def test_every_app_has_commands_to_inspect() -> None:
    commands = {where for where, _ in options()}
    assert {"vtgate check", "vtgate mutate", "vtgate envdoc", "vtbisect run", "vtengine generate"} <= commands


@pytest.mark.parametrize("flag", sorted(SHARED))
def test_a_shared_flag_is_spelled_and_explained_the_same_everywhere(flag: str) -> None:
    want = SHARED[flag]
    users = [(where, p) for where, p in options() if set(p.opts + p.secondary_opts) & want.spellings]
    assert len(users) >= 2, f"{flag} is not shared; drop it from SHARED"
    for where, option in users:
        spellings = set(option.opts + option.secondary_opts)
        assert spellings == want.spellings, f"{where}: {flag} is spelled {sorted(spellings)}, not {sorted(want.spellings)}"
        assert option.is_flag == want.is_switch, f"{where}: {flag} switch={option.is_flag}"
        help_text = option.help or ""
        assert help_text.startswith(want.help_starts), f"{where}: {flag} help {help_text!r}"
        assert help_text.endswith(want.help_ends), f"{where}: {flag} help {help_text!r}"
        if want.metavar:
            assert option.metavar == want.metavar, f"{where}: {flag} metavar {option.metavar!r}"
        if (where, flag) in REJECTS_REPEATS:  # collected as a list only to refuse a second value (exit 2)
            assert option.multiple and not want.repeatable, f"{where}: {flag}"
            continue
        assert option.multiple == want.repeatable, f"{where}: {flag} repeatable={option.multiple}"


def test_help_and_version_are_the_same_on_the_three_programs() -> None:
    for program, app in APPS.items():
        group = typer.main.get_command(app)
        assert group.context_settings.get("help_option_names") == ["-h", "--help"], program
        version = [p for p in group.params if "--version" in getattr(p, "opts", [])]
        assert version and version[0].help == "Print the version and exit.", program


def test_short_gate_flag_selects_a_gate_in_check(tmp_path: Path) -> None:
    """``-g`` is a real spelling of ``--gate`` on vtgate check, not only a name in the parser."""
    (tmp_path / "probe.py").write_text('import json\nprint(json.dumps({"metrics": {"m": 5}}))\n', encoding="utf-8")
    probe = f"{{ cmd = [{json.dumps(sys.executable)}, \"probe.py\"] }}"
    (tmp_path / "vtgate.toml").write_text(textwrap.dedent(f"""\
        [[gate]]
        name = "first"
        kind = "band"
        probe = {probe}
        bands = {{ m = [0, 10] }}

        [[gate]]
        name = "second"
        kind = "band"
        probe = {probe}
        bands = {{ m = [0, 1] }}
        """), encoding="utf-8")
    done = subprocess.run([str(Path(sys.executable).parent / "vtgate"), "check", "-g", "first", "--json", "-"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert [g["name"] for g in json.loads(done.stdout)["gates"]] == ["first"]
