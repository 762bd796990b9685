"""Statuses, exit codes and reporters: deliberate red passes the run, an unexpected green fails it with
"retire the mark"; the JSON report carries docs/json-formats.md's fields; JUnit and GitHub
output say the same thing; goldens no gate uses are reported."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from .conftest import HEADER

BAND = '[[gate]]\nname = "{name}"\nkind = "band"\nprobe = "fakeengine:speculative"\nbands = {{ proposed = [{lo}, {hi}] }}\n{extra}\n'
MARK = 'deliberate_red = { issue = "#2906", reason = "strict oracle landed red on purpose" }\n'


def _band(name: str, lo: int, hi: int, extra: str = "") -> str:
    return BAND.format(name=name, lo=lo, hi=hi, extra=extra)


def test_deliberate_red_passes_the_run(project) -> None:
    project.write_suite(_band("ok", 50, 60) + _band("owned", 0, 1, MARK))
    done, report = project.check_json()
    assert done.returncode == 0 and report["ok"] is True
    owned = report["gates"][1]
    assert owned["status"] == "deliberate-red"
    assert owned["summary"] == "deliberate red (#2906): 0/1 in band — proposed 59 outside [0, 1] (above hi by 58)"
    assert owned["deliberate_red"] == {"issue": "#2906", "reason": "strict oracle landed red on purpose"}


def test_unexpected_green_fails_the_run_and_says_retire_the_mark(project) -> None:
    path = project.write_suite(_band("owned", 50, 60, MARK))
    done, report = project.check_json()
    assert done.returncode == 1 and report["ok"] is False
    gate = report["gates"][0]
    assert gate["status"] == "unexpected-green"
    assert gate["summary"] == (f"unexpected green: 1/1 in band: proposed 59 in [50, 60] — retire the mark: remove "
                               f"deliberate_red (#2906) from {path}:6 and close the issue if the fix is intended")


def test_json_report_has_the_documented_fields(project) -> None:
    project.write_suite(_band("ok", 50, 60) + _band("red", 0, 1))
    done, report = project.check_json()
    assert done.returncode == 1
    assert set(report) >= {"schema", "ok", "gates", "seconds", "probe_runs", "unused_goldens"}
    assert report["schema"] == 1 and report["exit_code"] == 1 and report["counts"] == {"green": 1, "red": 1}
    red = report["gates"][1]
    assert set(red) >= {"name", "kind", "tier", "status", "summary", "measured", "pinned", "cases", "seconds",
                        "error", "error_kind"}
    assert (red["name"], red["kind"], red["tier"], red["status"]) == ("red", "band", "default", "red")
    assert red["measured"] == {"proposed": 59} and red["pinned"] == {"proposed": [0, 1]}
    assert red["cases"] == {"passed": 0, "failed": 1, "failed_ids": ["proposed"]}
    assert red["error"] is None and red["error_kind"] is None
    assert report["probe_runs"] == {"requested": 2, "run": 1, "shared": 1}


def test_json_to_a_file_and_junit(project) -> None:
    project.write_suite(_band("ok", 50, 60) + _band("red", 0, 1) + _band("owned", 0, 1, MARK)
                        + '[[gate]]\nname = "crash"\nkind = "band"\nprobe = "fakeengine:crash"\nbands = { n = [0, 1] }\n')
    done = project.vtgate("check", "--json", "out/report.json", "--junit", "out/junit.xml")
    assert done.returncode == 3
    report = json.loads((project.root / "out" / "report.json").read_text())
    assert [g["status"] for g in report["gates"]] == ["green", "red", "deliberate-red", "error"]
    suite = ET.parse(project.root / "out" / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("4", "1", "1", "1")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["ok"].find("failure") is None and cases["ok"].find("error") is None
    assert cases["red"].find("failure").get("message") == "0/1 in band — proposed 59 outside [0, 1] (above hi by 58)"
    assert cases["owned"].find("skipped").get("message") == "deliberate red, owned by #2906: strict oracle landed red on purpose"
    assert cases["crash"].find("error").get("message") == "probe fakeengine:crash exited with status 1"


def test_github_annotations_and_job_summary(project) -> None:
    path = project.write_suite(_band("ok", 50, 60) + _band("red", 0, 1))
    summary = project.root / "summary.md"
    done = project.vtgate("check", "--github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "::error file=vtgate.toml,line=12,title=vtgate red%3A red::0/1 in band — proposed 59 outside [0, 1] (above hi by 58)"
    ]
    assert path.read_text().splitlines()[11] == "[[gate]]"
    text = summary.read_text()
    assert text.startswith("### vtgate check: FAILED\n")
    assert "| ❌ red | `red` | band | default | 0/1 in band — proposed 59 outside [0, 1] (above hi by 58) |" in text


def test_unused_goldens_are_reported(project) -> None:
    project.write_suite('[[gate]]\nname = "strict"\nkind = "golden"\nprobe = "fakeengine:generate"\n')
    project.bless("strict")
    stray = project.root / "goldens" / "default" / "retired-gate.json"
    stray.write_text((project.root / "goldens" / "default" / "strict.json").read_text().replace('"strict"', '"retired-gate"'))
    (project.root / "goldens" / "notes.json").write_text('{"not": "a golden"}')
    done, report = project.check_json()
    assert done.returncode == 0
    assert report["unused_goldens"] == [str(stray)]
    table = project.vtgate("check")
    assert "unused golden: goldens/default/retired-gate.json is used by no gate" in table.stderr


def test_terminal_table_shows_status_kind_tier_summary_and_stderr_tail(project) -> None:
    # The fake engine's knobs are FAKE_*: declared, so the table is the first thing on stderr (with
    # the default VT_ prefix, check first warns that the prefix names no variable the source reads).
    project.write_suite(_band("ok", 50, 60) + '[[gate]]\nname = "crash"\nkind = "band"\nprobe = "fakeengine:crash"\n'
                        "bands = { n = [0, 1] }\n", header=HEADER + 'knob_prefixes = ["FAKE_"]\n')
    done = project.vtgate("check")
    lines = done.stderr.splitlines()
    assert lines[0].split() == ["status", "gate", "kind", "tier", "summary", "s"]
    assert lines[1].split()[:5] == ["green", "ok", "band", "default", "1/1"]
    assert "RuntimeError: kernel exploded at layer 3" in done.stderr
    assert lines[-1].startswith("FAILED: 2 gates (1 green, 1 error) in ")


def test_empty_suite_is_nothing_to_check(project) -> None:
    project.write_suite("")
    done, report = project.check_json()
    assert done.returncode == 5 and report["gates"] == [] and report["ok"] is False


def test_list_shows_the_suite(project) -> None:
    project.write_suite(_band("spec", 50, 60) + '[[gate]]\nname = "w3"\nkind = "golden"\ntier = "fma"\n'
                        'probe = "fakeengine:generate"\nenv = { FAKE_FLIP = "3" }\nenv_reason = "FMA arm, #3518"\n')
    done = project.vtgate("list")
    assert done.returncode == 0
    rows = [line.split() for line in done.stderr.splitlines()]
    assert rows[1][:4] == ["spec", "band", "default", "fakeengine:speculative"]
    assert rows[2][:4] == ["w3", "golden", "fma", "fakeengine:generate"]
    assert "goldens/fma/w3.json (missing)" in done.stderr and "FAKE_FLIP=3" in done.stderr


def test_terminal_report_wide_and_narrow(project) -> None:
    """Wide terminal: one row a gate. 80 columns (a CI log): the gate's name whole on its own line and the
    summary at the full width under it, never folded into a narrow column."""
    long_name = "a-rather-long-gate-name-that-users-pass-back"
    project.write_suite(_band(long_name, 0, 1) + _band("ok", 50, 60))
    wide = project.vtgate("check")
    row = next(line for line in wide.stderr.splitlines() if long_name in line)
    assert row.split()[:4] == ["red", long_name, "band", "default"] and "proposed 59 outside [0, 1]" in row
    narrow = project.vtgate("check", env={"COLUMNS": "80"})
    assert narrow.returncode == wide.returncode == 1
    lines = narrow.stderr.splitlines()
    assert all(len(line) <= 80 for line in lines)
    head = lines.index(next(line for line in lines if long_name in line))
    assert lines[head].split()[:2] == ["red", long_name] and "band, default" in lines[head]
    assert lines[head + 1].startswith("    ") and "0/1 in band — proposed 59 outside [0, 1]" in lines[head + 1]
