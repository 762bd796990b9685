"""`vtgate envdoc` as a user runs it, via subprocess: exit codes, flags overriding config, --json and
--github output."""

from __future__ import annotations

import json
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


def test_malformed_row_exits_2_with_its_line(project) -> None:
    project.write("engine/knobs.py", "import os\n")
    project.doc("| VT_A | 1 |")
    done = envdoc(project.root)
    assert done.returncode == 2
    assert "docs/ENVIRONMENT.md:5: malformed knob row" in done.stderr


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
    assert data["stale"] == [{"name": "VT_OLD", "doc_line": 6}]
    assert (data["undocumented"], data["dynamic"], data["incomplete"]) == ([], [], [])


def test_json_to_a_file(project) -> None:
    project.doc()
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
