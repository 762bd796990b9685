"""Bad suites are configuration errors (exit 2) whose message names the file, the line, the gate and
the fix; none of them can make a gate green (no gate runs at all)."""

from __future__ import annotations

import json

import pytest
from vtgate.errors import SuiteError
from vtgate.suite.load import load_suite, select_gates

GEN = 'probe = "fakeengine:generate"\n'


def test_malformed_toml_names_file_and_line_and_exits_2(project) -> None:
    project.write_suite('[[gate]]\nname = "a"\nkind = "golden\n')
    done = project.vtgate("check")
    assert done.returncode == 2
    assert (f"{project.root / 'vtgate.toml'}:8:15: malformed TOML: Illegal character '\\n'; "
            "fix the TOML syntax there") in done.stderr
    assert "green" not in done.stderr
    as_json = project.vtgate("check", "--json", "-")
    assert as_json.returncode == 2
    report = json.loads(as_json.stdout)
    assert (report["ok"], report["error_kind"], report["gates"]) == (False, "config", [])
    assert "malformed TOML" in report["error"]


def test_unknown_kind_exits_2_without_running_anything(project) -> None:
    project.write_suite('[[gate]]\nname = "a"\nkind = "bandd"\n' + GEN)
    done = project.vtgate("check", env={"FAKE_LOG": str(project.root / "runs.log")})
    assert done.returncode == 2
    assert "unknown kind 'bandd'" in done.stderr
    assert not (project.root / "runs.log").exists()


def test_unknown_kind_message_exact(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "bandd"\n' + GEN)
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    assert str(raised.value) == (
        f"{path}:6: gate 'a': unknown kind 'bandd' (known: golden, anchor, band, bitident, invariance, "
        "counters, snapshot, envdoc, perf); did you mean 'band'?"
    )


def test_unknown_gate_key_is_an_error_not_ignored(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN + 'near_tie_epsilon = 0.1\n')
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    message = str(raised.value)
    assert message.startswith(f"{path}:6: gate 'a': unknown key 'near_tie_epsilon' for kind 'golden'; did you mean 'near_tie_eps'?")
    done = project.vtgate("check")
    assert done.returncode == 2 and "near_tie_epsilon" in done.stderr


def test_unknown_suite_key_and_top_level_key_are_errors(project) -> None:
    path = project.write_suite("", header='[suite]\npythonpaths = ["src"]\n[extra]\nx = 1\n')
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    message = str(raised.value)
    assert f"{path}:3: unknown top-level key 'extra'" in message
    assert f"{path}:1: [suite]: unknown key 'pythonpaths'" in message and "did you mean 'pythonpath'?" in message


def test_env_pin_without_reason_is_refused(project) -> None:
    path = project.write_suite('[[gate]]\nname = "fma"\nkind = "golden"\n' + GEN + 'env = { FAKE_FLIP = "3" }\n')
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    assert str(raised.value) == (
        f"{path}:6: gate 'fma': env pin {{FAKE_FLIP=3}} needs env_reason = "
        '"<why this gate measures that arm, citing the issue>"'
    )
    done = project.vtgate("check")
    assert done.returncode == 2 and "needs env_reason" in done.stderr


def test_env_values_must_be_strings(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN + 'env = { FAKE_FLIP = 3 }\nenv_reason = "x"\n')
    with pytest.raises(SuiteError, match=r"env values are strings, as a shell sets them"):
        load_suite(path)


def test_kind_specific_validation_says_what_is_needed(project) -> None:
    path = project.write_suite('[[gate]]\nname = "tf"\nkind = "golden"\nmode = "teacher-forced"\n' + GEN)
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    assert str(raised.value) == f"{path}:6: gate 'tf': mode = 'teacher-forced' needs near_tie_eps = <number >= 0>"


def test_duplicate_gate_names_are_refused(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN + '\n[[gate]]\nname = "a"\nkind = "golden"\n' + GEN)
    with pytest.raises(SuiteError, match=r":11: gate 'a' is declared twice \(first at line 6\)"):
        load_suite(path)


def test_probe_must_be_module_function_or_cmd(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\nprobe = "fakeengine.generate"\n')
    with pytest.raises(SuiteError, match=r'probe = \'fakeengine.generate\' is not "module:function"'):
        load_suite(path)


def test_deliberate_red_needs_issue_and_reason(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN + 'deliberate_red = { issue = "#1" }\n')
    with pytest.raises(SuiteError, match=r"deliberate_red = \{ issue = \"#2839\", reason = \"...\" \}"):
        load_suite(path)


def test_no_suite_anywhere_says_how_to_make_one(tmp_path) -> None:
    with pytest.raises(SuiteError, match=r"no gate suite found: create vtgate.toml"):
        load_suite(start=tmp_path)


def test_pyproject_tool_table_points_at_the_suite_file(project) -> None:
    (project.root / "goldens").mkdir()
    (project.root / "goldens" / "gates.toml").write_text(
        '[suite]\npythonpath = ["src"]\n\n[[gate]]\nname = "a"\nkind = "band"\n' + GEN + "bands = { misses = [0, 100] }\n"
    )
    (project.root / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.vtgate]\nsuite = "goldens/gates.toml"\n\n[tool.vtgate.envdoc]\ndoc = "x"\n'
    )
    suite = load_suite(start=project.root / "src")
    assert suite.path == project.root / "goldens" / "gates.toml"
    assert suite.root == project.root
    assert [g.name for g in suite.gates] == ["a"]
    assert suite.gates[0].line == 4
    done = project.vtgate("check", cwd=project.root / "src")
    assert done.returncode == 0, done.stderr


def test_pyproject_can_hold_the_suite_inline(project) -> None:
    (project.root / "pyproject.toml").write_text(
        '[tool.vtgate.suite]\npythonpath = ["src"]\n\n[[tool.vtgate.gate]]\nname = "b"\nkind = "band"\n'
        + GEN + "bands = { misses = [0, 100] }\n"
    )
    suite = load_suite(start=project.root)
    assert suite.gates[0].name == "b" and suite.gates[0].line == 4
    assert suite.settings.pythonpath == ("src",)


def test_mutation_tables_are_kept_raw_for_vtgate_mutate(project) -> None:
    path = project.write_suite('[[gate]]\nname = "a"\nkind = "band"\n' + GEN + "bands = { misses = [0, 100] }\n"
                               '\n[[mutation]]\nname = "fma-on"\nkind = "env"\nwhatever = 1\n')
    suite = load_suite(path)
    assert suite.mutations == ({"name": "fma-on", "kind": "env", "whatever": 1},)


def test_golden_path_defaults_to_the_tier_folder(project) -> None:
    path = project.write_suite('[[gate]]\nname = "w3"\nkind = "golden"\ntier = "fma"\n' + GEN
                               + 'env = { FAKE_FLIP = "3" }\nenv_reason = "measures the flip arm, #12"\n')
    spec = load_suite(path).gate("w3")
    assert spec.golden == project.root / "goldens" / "fma" / "w3.json"
    assert spec.env == {"FAKE_FLIP": "3"} and spec.env_reason == "measures the flip arm, #12"


def test_keyword_selection_is_pytest_like(project) -> None:
    path = project.write_suite(
        "".join(f'[[gate]]\nname = "{n}"\nkind = "band"\ntier = "{t}"\n' + GEN + "bands = { misses = [0, 100] }\n\n"
                for n, t in [("anchor-a", "default"), ("anchor-b", "fma"), ("strict-c", "default")])
    )
    suite = load_suite(path)
    assert [g.name for g in select_gates(suite, None, "anchor and not fma")] == ["anchor-a"]
    assert [g.name for g in select_gates(suite, None, "strict or fma")] == ["anchor-b", "strict-c"]
    with pytest.raises(SuiteError, match="no gate named 'anchr-a'; did you mean 'anchor-a'"):
        select_gates(suite, ["anchr-a"])
    done = project.vtgate("check", "-k", "nothing-matches")
    assert done.returncode == 5
    assert "nothing to check: no gate selected by -k 'nothing-matches'" in done.stderr


@pytest.mark.parametrize("value", ['"numpy"', '["numpy", 3]', '["numpy", "ml dtypes"]', '["../x"]'])
def test_preload_must_be_a_list_of_module_names(project, value: str) -> None:
    from tests.check.conftest import HEADER

    path = project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN, header=HEADER + f"preload = {value}\n")
    with pytest.raises(SuiteError) as raised:
        load_suite(path)
    assert '[suite] preload must be a list of module names, e.g. ["numpy", "ml_dtypes"]' in str(raised.value)


def test_preload_is_read_and_defaults_to_numpy(project) -> None:
    from tests.check.conftest import HEADER

    plain = load_suite(project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN))
    assert plain.settings.preload == ("numpy",)
    named = load_suite(project.write_suite('[[gate]]\nname = "a"\nkind = "golden"\n' + GEN,
                                           header=HEADER + 'preload = ["numpy", "ml_dtypes.finfo"]\n'))
    assert named.settings.preload == ("numpy", "ml_dtypes.finfo")
