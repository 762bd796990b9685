"""`vtgate envdoc` as a user runs it, via subprocess: exit codes, flags overriding config, --json and
--github output."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

VTGATE = str(Path(sys.executable).parent / "vtgate")


def envdoc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [VTGATE, "envdoc", *args], cwd=cwd, capture_output=True, text=True, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def test_clean_tree_exits_0_with_the_summary_on_stderr(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_A", "1")\n')
    project.doc(("VT_A", "1"))
    done = envdoc(project.root)
    assert done.returncode == 0, done.stderr
    assert "envdoc ok: 1 reads of 1 knobs, 1 documented; 0 undocumented, 0 stale, 0 default mismatches" in done.stderr
    assert done.stdout == ""


def test_findings_exit_1_and_the_table_names_file_and_line(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_A", "1")\nB = os.environ.get("VT_NEW")\n')
    project.doc(("VT_A", "1"))
    done = envdoc(project.root)
    assert done.returncode == 1
    assert "VT_NEW" in done.stderr and "engine/knobs.py:3" in done.stderr
    assert "1 undocumented" in done.stderr


def test_incomplete_scan_exits_1(project) -> None:
    project.write("engine/broken.py", "import os\nA = os.environ.get(\n")
    project.doc()
    done = envdoc(project.root)
    assert done.returncode == 1
    assert "INCOMPLETE" in done.stderr


def test_missing_doc_exits_2_naming_the_path(project) -> None:
    project.write("engine/knobs.py", "import os\n")
    done = envdoc(project.root)
    assert done.returncode == 2
    assert "docs/ENVIRONMENT.md does not exist" in done.stderr


def test_malformed_row_is_a_warning_with_its_line_and_the_run_goes_on(project) -> None:
    project.write("engine/knobs.py", 'import os\nB = os.environ.get("VT_B")\n')
    project.doc("| VT_A | 1 |", ("VT_B", "(unset)"))
    done = envdoc(project.root)
    assert done.returncode == 0, done.stderr
    assert "doc warning: docs/ENVIRONMENT.md:5: table row has 2 cells, its header has 4" in done.stderr
    assert "envdoc ok: 1 reads of 1 knobs, 1 documented" in done.stderr


def test_allowlist_without_reason_in_pyproject_exits_2(project) -> None:
    project.write("pyproject.toml", '[tool.vtgate.envdoc]\nallowlist = [{ name = "VT_X" }]\n')
    project.doc()
    done = envdoc(project.root)
    assert done.returncode == 2
    assert "has no reason" in done.stderr


def test_bad_wrapper_flag_exits_2(project) -> None:
    project.doc()
    done = envdoc(project.root, "--wrapper", "knob:x")
    assert done.returncode == 2
    assert "wrapper spec 'knob:x'" in done.stderr


def test_flags_override_config_src_doc_prefix_and_wrapper(project) -> None:
    project.write("pyproject.toml", '[tool.vtgate.envdoc]\nprefix = "NOPE_"\ndoc = "missing.md"\n')
    project.write("src/app.py", 'from lib import knob\nA = knob("MY_KNOB", "2")\n')
    project.write("other/ignored.py", 'import os\nB = os.environ.get("MY_IGNORED")\n')
    project.doc(("MY_KNOB", "2"), path="KNOBS.md")
    done = envdoc(project.root, "src", "--doc", "KNOBS.md", "--prefix", "MY_", "--wrapper", "lib.knob:0")
    assert done.returncode == 0, done.stderr
    assert "1 reads of 1 knobs" in done.stderr


def test_json_to_stdout_has_the_design_shape(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_A", "2")\n')
    project.doc(("VT_A", "1"), ("VT_OLD", "0"))
    done = envdoc(project.root, "--json", "-")
    assert done.returncode == 1
    data = json.loads(done.stdout)
    assert data["schema"] == 1
    assert data["default_mismatch"] == [
        {"name": "VT_A", "code_default": "2", "doc_default": "1", "file": "engine/knobs.py", "line": 2, "doc_line": 5}
    ]
    assert data["stale"] == [{"name": "VT_OLD", "doc": "docs/ENVIRONMENT.md", "doc_line": 6}]
    assert (data["undocumented"], data["dynamic"], data["incomplete"]) == ([], [], [])


def test_json_to_a_file(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.doc(("VT_A", "(unset)"))
    done = envdoc(project.root, "--json", "out/envdoc.json")
    assert done.returncode == 0
    assert json.loads((project.root / "out" / "envdoc.json").read_text())["ok"] is True


def test_github_annotations_point_at_file_and_line(project) -> None:
    project.write("engine/knobs.py", 'import os\n\nA = os.environ.get("VT_NEW")\n')
    project.doc(("VT_OLD", "0"))
    done = envdoc(project.root, "--github")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].startswith("::error file=engine/knobs.py,line=3,title=envdoc undocumented::VT_NEW is read here")
    assert lines[1].startswith("::error file=docs/ENVIRONMENT.md,line=5,title=envdoc stale row::VT_OLD")
    assert len(lines) == 2


def test_github_and_json_to_stdout_together_is_a_usage_error(project) -> None:
    project.doc()
    done = envdoc(project.root, "--github", "--json", "-")
    assert done.returncode == 2


def test_root_option_reads_that_trees_config_and_reports_paths_relative_to_it(project, tmp_path_factory) -> None:
    project.write("pyproject.toml", '[tool.vtgate.envdoc]\nsources = ["engine"]\n')
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_NEW")\n')
    project.write("scripts/ignored.py", 'import os\nB = os.environ.get("VT_NOT_SCANNED")\n')
    project.doc()
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    done = envdoc(elsewhere, "--root", str(project.root), "--json", "-")
    assert done.returncode == 1
    assert json.loads(done.stdout)["undocumented"] == [{"name": "VT_NEW", "file": "engine/knobs.py", "line": 2}]


def test_no_source_file_matched_exits_2_never_ok(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.doc(("VT_A", "(unset)"))
    done = envdoc(project.root, "--include", "src/*")
    assert done.returncode == 2
    assert "nothing to check: no Python, C-family, Go or Rust source file matched" in done.stderr
    assert "envdoc ok" not in done.stderr


def test_no_read_in_scope_exits_2_naming_the_prefix(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("OTHER_A")\n')
    project.doc(("VT_A", "(unset)"))
    done = envdoc(project.root)
    assert done.returncode == 2
    assert "no read is in scope (prefix 'VT_'" in done.stderr


def test_a_single_value_flag_given_twice_is_a_usage_error(project) -> None:
    project.doc(("VT_A", "(unset)"))
    for flag, first, second in (("--root", ".", "."), ("--json", "a.json", "b.json"), ("-j", "1", "2")):
        done = envdoc(project.root, flag, first, flag, second)
        assert done.returncode == 2, (flag, done.stderr)
        assert "was given 2 times" in done.stderr


def test_wrapper_spec_without_position_exits_2(project) -> None:
    project.doc(("VT_A", "(unset)"))
    done = envdoc(project.root, "--wrapper", "knob")
    assert done.returncode == 2
    assert "wrapper spec 'knob' has no :POS" in done.stderr


def test_several_prefixes_docs_and_a_doc_folder(project) -> None:
    project.write("app/a.py", 'import os\nA = os.environ.get("APP_A")\nB = os.environ.get("LIB_B")\n')
    project.write("docs/env/app.md", "| Variable | Default |\n|---|---|\n| APP_A | - |\n")
    project.write("LIB.md", "- `LIB_B`: the library knob\n")
    done = envdoc(project.root, "--prefix", "APP_", "--prefix", "LIB_", "--doc", "docs/env", "--doc", "LIB.md")
    assert done.returncode == 0, done.stderr
    assert "2 reads of 2 knobs, 2 documented" in done.stderr
    done = envdoc(project.root, "--prefix", "APP_", "--prefix", "LIB_", "--doc", "docs/env")
    assert done.returncode == 1
    assert "LIB_B" in done.stderr


def test_doc_registry_flag(project) -> None:
    project.write(
        "pkg/envs.py",
        'import os\nenvironment_variables = {\n    "PKG_A": lambda: os.getenv("PKG_A", "1"),\n}\n',
    )
    done = envdoc(project.root, "--prefix", "PKG_", "--doc-registry", "pkg/envs.py:environment_variables")
    assert done.returncode == 0, done.stderr
    assert "1 reads of 1 knobs, 1 documented" in done.stderr


def test_config_error_quotes_section_names_verbatim(project) -> None:
    project.write("pyproject.toml", '[tool.vtgate.envdoc]\nbogus = 1\n')
    project.doc(("VT_A", "(unset)"))
    done = envdoc(project.root)
    assert done.returncode == 2
    assert "pyproject.toml [tool.vtgate.envdoc]: unknown envdoc key(s) bogus" in done.stderr


def test_at_80_columns_every_name_and_location_is_printed_whole(project) -> None:
    long_dir = "src/some_really_long_package_name/with/deeply/nested/module_folders"
    names = [
        "VT_A_VERY_LONG_KNOB_NAME_THAT_DOES_NOT_FIT_IN_A_NARROW_COLUMN_AT_ALL",
        "VT_ANOTHER_EXCEEDINGLY_LONG_ENVIRONMENT_VARIABLE_NAME_FOR_TESTING",
    ]
    body = "import os\n" + "".join(f'X{i} = os.environ.get("{name}")\n' for i, name in enumerate(names))
    project.write(f"{long_dir}/configuration_of_the_engine.py", body)
    project.doc(("VT_DOCUMENTED_BUT_GONE_WITH_A_LONG_NAME_AS_WELL_XXXXXXXXXXXXXXXX", "0"))
    done = subprocess.run(
        [VTGATE, "envdoc"], cwd=project.root, capture_output=True, text=True, timeout=120,
        env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin", "COLUMNS": "80"},
    )
    assert done.returncode == 1
    for line_number, name in enumerate(names, start=2):
        assert name in done.stderr
        assert f"{long_dir}/configuration_of_the_engine.py:{line_number}" in done.stderr
    assert "VT_DOCUMENTED_BUT_GONE_WITH_A_LONG_NAME_AS_WELL_XXXXXXXXXXXXXXXX" in done.stderr
    assert "…" not in done.stderr


def _run_in_a_terminal(cwd: Path, columns: int) -> str:
    """Run `vtgate envdoc` with stderr on a pseudo-terminal of the given width; return what it showed."""
    import os
    import pty

    leader, follower = pty.openpty()
    env = {"NO_COLOR": "1", "PATH": "/usr/bin:/bin", "COLUMNS": str(columns), "TERM": "xterm"}
    process = subprocess.Popen([VTGATE, "envdoc"], cwd=cwd, stdin=follower, stdout=follower, stderr=follower, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(leader)
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;]*m", "", text)  # styles (bold) stay on with NO_COLOR


def test_in_a_terminal_a_table_when_wide_and_blocks_when_narrow_names_always_whole(project) -> None:
    name = "VT_A_RATHER_LONG_KNOB_NAME_FOR_THE_TERMINAL_TEST"
    project.write("engine/knobs.py", f'import os\nA = os.environ.get("{name}")\nB = os.environ.get("VT_B")\n')
    project.doc(("VT_B", "(unset)"))
    wide = _run_in_a_terminal(project.root, 160)
    assert "finding" in wide and "what to do" in wide  # the table's header
    assert name in wide and "engine/knobs.py:2" in wide
    narrow = _run_in_a_terminal(project.root, 60)
    assert "what to do" not in narrow
    assert f"undocumented {name} at engine/knobs.py:2" in narrow


def test_paths_that_look_like_markup_are_printed_verbatim(project) -> None:
    project.write("weird[/bold]dir/[red]knobs.py", 'import os\nA = os.environ.get("VT_NEW")\nB = os.environ.get("VT_B")\n')
    project.doc(("VT_B", "(unset)"))
    done = envdoc(project.root)
    assert done.returncode == 1
    assert "weird[/bold]dir/[red]knobs.py:2" in done.stderr
