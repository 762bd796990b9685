"""vtgate knobs: every documented knob value is set by some gate or exempted with a reason; the
values a knob must see come from its doc row (on/off, backticked values, or any non-default)."""

from __future__ import annotations

import json

DOC = """\
# Knobs

| name | default | effect | bit-exact with default? |
|---|---|---|---|
| FAKE_FMA | 0 | 1 = the FMA arm | no |
| FAKE_POLICY | lru | cache policy: `lru` or `pin` | yes |
| FAKE_BUDGET | 0 | cache budget in MB | yes |
| FAKE_THREADS | 1 | worker threads | yes |
| CI | (unset) | set by CI services: not a knob of this engine, so not reported | yes |
"""

HEADER = """\
[suite]
pythonpath = ["src"]
source_tree = "src/fakeengine"
timeout = 30
knob_prefixes = ["FAKE_"]
"""

FMA_GATE = '[[gate]]\nname = "fma"\nkind = "anchor"\nprobe = "fakeengine:generate"\nenv = { FAKE_FMA = "1" }\n' \
           'env_reason = "the arm"\n'
BUDGET_GATE = ('[[gate]]\nname = "budget"\nkind = "counters"\nprobe = "fakeengine:generate"\n'
               'over = { FAKE_BUDGET = ["0", "1"] }\n')


def knobs(project, header: str = HEADER) -> tuple[int, dict, str]:
    (project.root / "docs").mkdir(exist_ok=True)
    (project.root / "docs" / "ENVIRONMENT.md").write_text(DOC, encoding="utf-8")
    done = project.vtgate("knobs", "--json", "-")
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}, done.stderr


def test_values_no_gate_sets_are_named_with_the_fix(project) -> None:
    project.write_suite(FMA_GATE, header=HEADER)
    code, report, stderr = knobs(project)
    assert code == 1 and report["ok"] is False
    by_name = {k["name"]: k for k in report["knobs"]}
    assert by_name["FAKE_FMA"]["missing"] == [] and by_name["FAKE_FMA"]["set_by"] == {"1": ["fma"]}
    assert by_name["FAKE_POLICY"]["required"] == ["pin"] and by_name["FAKE_POLICY"]["missing"] == ["pin"]
    assert by_name["FAKE_BUDGET"]["missing"] == ["<other>"]  # a size: any value but the default
    assert by_name["FAKE_THREADS"]["required"] == ["<other>"]  # 1 with no "1 =" meaning is a count
    assert sorted(report["uncovered"]) == ["FAKE_BUDGET", "FAKE_POLICY", "FAKE_THREADS"]
    assert "CI" not in by_name  # a documented variable without the suite's knob prefixes
    assert "uncovered FAKE_POLICY (default lru): no gate sets pin" in stderr
    assert "[suite] knob_exemptions" in stderr


def test_gates_and_exemptions_cover_every_value(project) -> None:
    header = HEADER + ('knob_exemptions = { FAKE_POLICY = "the fake engine has one policy", '
                       'FAKE_THREADS = "threads never change the fake stream" }\n')
    project.write_suite(FMA_GATE + BUDGET_GATE, header=header)
    code, report, stderr = knobs(project)
    assert code == 0 and report["ok"] is True, stderr
    by_name = {k["name"]: k for k in report["knobs"]}
    assert by_name["FAKE_BUDGET"]["set_by"] == {"0": ["budget"], "1": ["budget"]}
    assert by_name["FAKE_POLICY"]["exemption"] == "the fake engine has one policy"


def test_an_exemption_needs_a_reason_and_a_documented_knob(project) -> None:
    project.write_suite(FMA_GATE, header=HEADER + 'knob_exemptions = { FAKE_POLICY = "" }\n')
    code, _, stderr = knobs(project)
    assert code == 2 and "knob_exemptions must map knob names to reasons" in stderr
    project.write_suite(FMA_GATE + BUDGET_GATE, header=HEADER + (
        'knob_exemptions = { FAKE_POLICY = "one policy", FAKE_THREADS = "no effect", FAKE_GONE = "old" }\n'))
    code, report, stderr = knobs(project)
    assert code == 1 and report["unknown_exemptions"] == ["FAKE_GONE"]
    assert "unknown exemption FAKE_GONE" in stderr
