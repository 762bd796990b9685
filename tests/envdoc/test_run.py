"""run_envdoc on real trees in tmp_path: both directions of the comparison, defaults, dynamic names,
the allowlist, filters, skipped files, configuration and the report's JSON."""

from __future__ import annotations

import json
import threading

import pytest
from vtgate.envdoc import EnvdocConfig, EnvdocError, run_envdoc

KNOBS = """
import os

CACHE_MB = os.environ.get("VT_CACHE_MB", "64")
THREADS = os.getenv("VT_THREADS", "1")
"""


def test_documented_tree_is_ok_with_counts_in_the_summary(project) -> None:
    project.write("engine/knobs.py", KNOBS)
    project.doc(("VT_CACHE_MB", "`64`"), ("VT_THREADS", "1"))
    report = project.run()
    assert report.ok, report.findings
    assert report.summary == "2 reads of 2 knobs, 2 documented; 0 undocumented, 0 stale, 0 default mismatches"


def test_undocumented_read_is_a_finding_at_every_file_and_line(project) -> None:
    project.write("engine/knobs.py", KNOBS + 'FAST = os.environ.get("VT_FAST", "0")\n')
    project.write("engine/other.py", 'import os\n\nagain = os.environ["VT_FAST"]\n')
    project.doc(("VT_CACHE_MB", "64"), ("VT_THREADS", "1"))
    report = project.run()
    assert not report.ok
    assert [(f.kind, f.name, f.file, f.line) for f in report.findings] == [
        ("undocumented", "VT_FAST", "engine/knobs.py", 6),
        ("undocumented", "VT_FAST", "engine/other.py", 3),
    ]
    assert "| VT_FAST | `0` |" in report.findings[0].message


def test_documented_row_that_nothing_reads_is_stale_with_its_doc_line(project) -> None:
    project.write("engine/knobs.py", KNOBS)
    project.doc(("VT_CACHE_MB", "64"), ("VT_GONE", "1"), ("VT_THREADS", "1"))
    report = project.run()
    assert [(f.kind, f.name, f.file, f.line) for f in report.findings] == [
        ("stale", "VT_GONE", "docs/ENVIRONMENT.md", 6)
    ]
    assert report.to_json()["stale"] == [{"name": "VT_GONE", "doc": "docs/ENVIRONMENT.md", "doc_line": 6}]


def test_literal_default_that_differs_from_the_doc_is_a_mismatch(project) -> None:
    project.write("engine/knobs.py", KNOBS)
    project.doc(("VT_CACHE_MB", "128"), ("VT_THREADS", '"1"'))
    report = project.run()
    assert [(f.kind, f.name, f.line) for f in report.findings] == [("default_mismatch", "VT_CACHE_MB", 4)]
    assert report.to_json()["default_mismatch"] == [
        {"name": "VT_CACHE_MB", "code_default": "64", "doc_default": "128", "file": "engine/knobs.py",
         "line": 4, "doc_line": 5}
    ]


def test_code_default_against_a_doc_that_says_unset_is_a_mismatch(project) -> None:
    project.write("engine/knobs.py", 'import os\nX = os.environ.get("VT_X", "on")\n')
    project.doc(("VT_X", "(unset)"))
    assert [f.kind for f in project.run().findings] == ["default_mismatch"]


def test_non_literal_default_is_reported_as_unverifiable_not_as_a_mismatch(project) -> None:
    project.write("engine/knobs.py", 'import os\nX = os.environ.get("VT_X", str(os.cpu_count()))\n')
    project.doc(("VT_X", "number of CPUs"))
    report = project.run()
    assert report.ok
    assert report.to_json()["unverifiable_default"] == [
        {"name": "VT_X", "code_default": "str(os.cpu_count())", "doc_default": "number of CPUs",
         "file": "engine/knobs.py", "line": 2, "doc_line": 5}
    ]


def test_dynamic_name_covered_by_a_documented_family_is_ok_and_keeps_the_row_alive(project) -> None:
    project.write("engine/arms.py", 'import os\n\ndef arm(kind):\n    return os.environ.get(f"VT_ARM_{kind}")\n')
    project.doc(("VT_ARM_*", "(unset)"))
    report = project.run()
    assert report.ok, report.findings
    assert report.to_json()["dynamic_covered"] == [
        {"prefix": "VT_ARM_", "file": "engine/arms.py", "line": 4, "by": "VT_ARM_*"}
    ]


def test_uncovered_dynamic_name_is_a_finding_with_its_prefix(project) -> None:
    project.write("engine/arms.py", 'import os\n\ndef arm(kind):\n    return os.environ.get("VT_ARM_" + kind)\n')
    project.doc()
    report = project.run()
    assert report.to_json()["dynamic"] == [{"prefix": "VT_ARM_", "file": "engine/arms.py", "line": 4}]
    assert not report.ok


def test_static_name_inside_a_documented_family_is_documented(project) -> None:
    project.write("engine/arms.py", 'import os\nA = os.environ.get("VT_ARM_FMA")\n')
    project.doc(("VT_ARM_*", "(unset)"))
    assert project.run().ok


def test_fully_computed_name_is_noted_but_not_a_finding_under_a_prefix(project) -> None:
    project.write("tool/env.py", "import os\n\ndef restore(name):\n    return os.environ.get(name)\n")
    project.write("tool/knob.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.doc(("VT_A", "(unset)"))
    report = project.run()
    assert report.ok
    assert report.dynamic_unscoped == [{"file": "tool/env.py", "line": 4, "form": "os.environ.get"}]
    # with no prefix every name must be documented, so an unknown name is a finding
    assert [f.kind for f in project.run(prefix="").findings] == ["dynamic"]


def test_prefix_filter_ignores_other_names_and_empty_prefix_checks_all(project) -> None:
    project.write("cli.py", 'import os\nCOLOR = os.environ.get("NO_COLOR")\nX = os.environ.get("VT_X")\n')
    project.doc(("VT_X", "(unset)"))
    assert project.run().ok
    report = project.run(prefix="")
    assert [(f.kind, f.name) for f in report.findings] == [("undocumented", "NO_COLOR")]


def test_documented_name_outside_the_prefix_is_still_checked_both_ways(project) -> None:
    project.write("cli.py", 'import os\nCOLOR = os.environ.get("NO_COLOR", "1")\n')
    project.doc(("NO_COLOR", "0"), ("CI", "(unset)"))
    report = project.run()
    assert sorted((f.kind, f.name) for f in report.findings) == [("default_mismatch", "NO_COLOR"), ("stale", "CI")]


def test_allowlisted_read_is_ok_and_an_entry_without_reason_is_a_config_error(project) -> None:
    project.write("cli.py", 'import os\nX = os.environ.get("VT_LAUNCHER_RANK")\n')
    project.doc()
    assert project.run(allowlist=[{"name": "VT_LAUNCHER_RANK", "reason": "set by the launcher"}]).ok
    with pytest.raises(EnvdocError, match=r"allowlist entry 1 \(VT_LAUNCHER_RANK\) has no reason"):
        project.run(allowlist=[{"name": "VT_LAUNCHER_RANK"}])
    with pytest.raises(EnvdocError, match="has no reason"):
        project.run(allowlist=[{"name": "VT_LAUNCHER_RANK", "reason": "  "}])


def test_allowlist_family_covers_static_and_dynamic_reads(project) -> None:
    project.write(
        "cli.py", 'import os\nA = os.environ.get("VT_DIST_RANK")\ndef f(k):\n    return os.environ[f"VT_DIST_{k}"]\n'
    )
    project.doc()
    assert project.run(allowlist=[{"name": "VT_DIST_*", "reason": "distributed launcher"}]).ok


def test_allowlist_entry_that_matches_nothing_is_a_finding(project) -> None:
    project.write("cli.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.doc(("VT_A", "(unset)"))
    report = project.run(allowlist=[{"name": "VT_NOTHING", "reason": "left over"}])
    assert [(f.kind, f.name) for f in report.findings] == [("allowlist", "VT_NOTHING")]
    assert "matches no read" in report.findings[0].message


def test_name_both_documented_and_allowlisted_is_a_finding(project) -> None:
    project.write("cli.py", 'import os\nX = os.environ.get("VT_BOTH")\n')
    project.doc(("VT_BOTH", "(unset)"))
    report = project.run(allowlist=[{"name": "VT_BOTH", "reason": "belt and braces"}])
    assert [(f.kind, f.name) for f in report.findings] == [("allowlist", "VT_BOTH")]
    assert "either documented or allowlisted" in report.findings[0].message


def test_include_and_exclude_globs_select_files(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_ENGINE")\n')
    project.write("tests/test_x.py", 'import os\nB = os.environ.get("VT_TEST_ONLY")\n')
    project.doc(("VT_ENGINE", "(unset)"))
    assert [f.name for f in project.run().findings] == ["VT_TEST_ONLY"]
    assert project.run(exclude=["tests/*"]).ok
    assert project.run(include=["engine/*"]).ok
    assert project.run(exclude=["**/test_*.py"]).ok


def test_virtualenvs_hidden_and_build_folders_are_not_scanned(project) -> None:
    read = 'import os\nA = os.environ.get("VT_VENDORED")\n'
    project.write("venv/pyvenv.cfg", "home = /usr/bin\n")
    project.write("venv/lib/site.py", read)
    project.write(".tox/lib/x.py", read)
    project.write("build/lib/x.py", read)
    project.write("pkg/__pycache__/x.py", read)
    project.write("pkg/real.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.doc(("VT_A", "(unset)"))
    assert project.run().ok


def test_sources_limit_the_scan(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_ENGINE")\n')
    project.write("scripts/tool.py", 'import os\nB = os.environ.get("VT_SCRIPT")\n')
    project.doc(("VT_ENGINE", "(unset)"))
    assert project.run(sources=["engine"]).ok
    with pytest.raises(EnvdocError, match=r"source 'nowhere' does not exist"):
        project.run(sources=["nowhere"])


def test_file_that_does_not_parse_is_skipped_and_makes_the_run_incomplete(project) -> None:
    project.write("engine/knobs.py", 'import os\nA = os.environ.get("VT_A")\n')
    project.write("engine/broken.py", 'import os\ndef f(:\n    os.environ.get("VT_B")\n')
    project.doc(("VT_A", "(unset)"))
    report = project.run()
    assert not report.ok and report.incomplete
    assert [(f.kind, f.file, f.line) for f in report.findings] == [("incomplete", "engine/broken.py", 2)]
    assert report.to_json()["incomplete"][0]["file"] == "engine/broken.py"
    assert "INCOMPLETE: 1 file could not be scanned" in report.summary


def test_non_utf8_file_is_skipped_and_makes_the_run_incomplete(project) -> None:
    project.write("engine/latin.py", b'import os\nA = os.environ.get("VT_A", "caf\xe9")\n')
    project.doc(("VT_A", "(unset)"))
    report = project.run()
    assert [(f.kind, f.file) for f in report.findings] == [
        ("incomplete", "engine/latin.py"),
        ("stale", "docs/ENVIRONMENT.md"),
    ]
    assert "not valid UTF-8" in report.findings[0].message
    assert "a skipped file may read it" in report.findings[1].message


def test_declared_source_encoding_is_honoured(project) -> None:
    project.write("engine/latin.py", b'# -*- coding: latin-1 -*-\nimport os\nA = os.environ.get("VT_A", "caf\xe9")\n')
    project.doc(("VT_A", "café"))
    assert project.run().ok


def test_c_sources_are_checked_alongside_python(project) -> None:
    project.write("csrc/kernel.cu", '#include <cstdlib>\nint fast() { return std::getenv("VT_CUDA_FAST") != nullptr; }\n')
    project.doc()
    report = project.run()
    assert [(f.kind, f.name, f.file, f.line) for f in report.findings] == [
        ("undocumented", "VT_CUDA_FAST", "csrc/kernel.cu", 2)
    ]


def test_wrappers_from_config_find_reads_across_files(project) -> None:
    project.write(
        "engine/knobs.py",
        'import os\n\ndef knob(name, default="0"):\n    return os.environ.get(name, default)\n',
    )
    project.write("engine/model.py", 'from engine.knobs import knob\n\nFAST = knob("VT_FAST")\n')
    project.doc(("VT_FAST", "1"))
    report = project.run(wrappers=["engine.knobs.knob:0"])
    assert [(f.kind, f.name, f.file, f.line) for f in report.findings] == [
        ("default_mismatch", "VT_FAST", "engine/model.py", 3)
    ]


def test_config_is_read_from_pyproject_and_overrides_win(project) -> None:
    project.write(
        "pyproject.toml",
        """
        [tool.vtgate.envdoc]
        doc = "KNOBS.md"
        prefix = "MY_"
        wrappers = ["knob:0"]
        allowlist = [{ name = "MY_RANK", reason = "set by the launcher" }]
        """,
    )
    config = EnvdocConfig.load(project.root)
    assert (config.doc, config.prefix, [w.text for w in config.wrappers]) == ("KNOBS.md", "MY_", ["knob:0"])
    assert config.allowlist[0].reason == "set by the launcher"
    assert EnvdocConfig.load(project.root, {"prefix": "VT_", "doc": None}).prefix == "VT_"
    assert EnvdocConfig.load(project.root, {"prefix": "VT_", "doc": None}).doc == "KNOBS.md"


def test_unknown_config_key_and_bad_wrapper_are_errors(project) -> None:
    project.write("pyproject.toml", '[tool.vtgate.envdoc]\nprefixes = ["VT_"]\n')
    with pytest.raises(EnvdocError, match=r"unknown envdoc key\(s\) prefixes"):
        EnvdocConfig.load(project.root)
    with pytest.raises(EnvdocError, match=r"wrapper spec 'knob:first'"):
        EnvdocConfig.load(project.root / "missing", {"wrappers": ["knob:first"]})


def test_missing_doc_is_an_error_before_scanning(project) -> None:
    project.write("engine/knobs.py", KNOBS)
    with pytest.raises(EnvdocError, match=r"docs/ENVIRONMENT\.md does not exist"):
        project.run()


def test_process_pool_gives_the_same_report_as_one_process(project) -> None:
    for index in range(12):
        project.write(f"pkg/m{index}.py", f'import os\nA = os.environ.get("VT_K{index}", "{index}")\n')
    project.write("pkg/broken.py", "import os\ndef f(:\n    os.environ\n")
    project.doc(*[(f"VT_K{index}", str(index)) for index in range(0, 12, 2)], ("VT_STALE", "1"))
    one = run_envdoc(project.root, EnvdocConfig.load(project.root, {"jobs": 1})).to_json()
    pool = run_envdoc(project.root, EnvdocConfig.load(project.root, {"jobs": 2})).to_json()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()  # with a thread running, workers are spawned rather than forked
    try:
        spawned = run_envdoc(project.root, EnvdocConfig.load(project.root, {"jobs": 2})).to_json()
    finally:
        stop.set()
        thread.join()
    one.pop("seconds"), pool.pop("seconds"), spawned.pop("seconds")
    assert one == pool == spawned
    assert (len(one["undocumented"]), len(one["stale"]), len(one["incomplete"])) == (6, 1, 1)


def test_json_report_has_the_design_shape(project) -> None:
    project.write("engine/knobs.py", KNOBS + 'NEW = os.environ.get("VT_NEW")\n')
    project.doc(("VT_CACHE_MB", "64"), ("VT_THREADS", "1"))
    data = json.loads(json.dumps(project.run().to_json()))
    assert data["schema"] == 1 and data["ok"] is False
    assert (data["reads"], data["documented"]) == (3, 2)
    for key in ("undocumented", "stale", "default_mismatch", "dynamic", "incomplete"):
        assert isinstance(data[key], list)
    assert data["undocumented"] == [{"name": "VT_NEW", "file": "engine/knobs.py", "line": 6}]


def test_config_takes_lists_of_prefixes_and_docs_and_a_registry(project) -> None:
    project.write(
        "pyproject.toml",
        '[tool.vtgate.envdoc]\nprefix = ["APP_", "LIB_"]\ndoc = ["docs/app.md", "docs/lib"]\n'
        'doc_registry = "pkg/envs.py:KNOBS"\n',
    )
    project.write("pkg/envs.py", 'import os\nKNOBS = {"PKG_X": lambda: os.getenv("PKG_X", "1")}\n')
    project.write("app/a.py", 'import os\nA = os.environ.get("APP_A")\nB = os.environ.get("LIB_B")\nC = os.environ.get("OTHER")\n')
    project.write("docs/app.md", "| Variable | Default |\n|---|---|\n| APP_A | - |\n")
    project.write("docs/lib/knobs.md", "### LIB_B\n\nNo default.\n")
    config = EnvdocConfig.load(project.root)
    assert (config.prefixes, config.docs, config.doc_registry) == (
        ("APP_", "LIB_"), ("docs/app.md", "docs/lib"), ("pkg/envs.py:KNOBS",)
    )
    report = project.run()
    assert report.ok, report.findings
    assert sorted(read.name for read in report.reads) == ["APP_A", "LIB_B", "PKG_X"]


def test_a_bad_registry_spec_in_config_is_an_error(project) -> None:
    project.write("pyproject.toml", '[tool.vtgate.envdoc]\ndoc_registry = "pkg/envs:KNOBS"\n')
    with pytest.raises(EnvdocError, match=r"doc_registry 'pkg/envs:KNOBS' must be FILE\.py:DICT_NAME"):
        EnvdocConfig.load(project.root)
