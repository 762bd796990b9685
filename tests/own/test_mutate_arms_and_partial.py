"""vtgate mutate on a command-line engine: arm values (a per-knob ``on`` in the arms table, a list of
values giving one arm mutation per value, a registry entry's own ``on``), a config's env under a
mutation, and partial runs (-m, --no-auto) that never report vacuity they did not measure."""

from __future__ import annotations

import json

from vtgate.mutate.execute import arm_mutations
from vtgate.mutate.spec import ArmsSource
from vtgate.suite.records import ProbeRef

GATE = """\
[[gate]]
name  = "logits-exact"
kind  = "golden"
mode  = "logits"
probe = { cmd = ["{python}", "engine/tinyengine.py"] }
args  = { prompt = "hi", tokens = 6 }
"""

ARMS = """\
[[mutation]]
name  = "engine-arms"
kind  = "arms"
probe = { cmd = ["{python}", "engine/tinyengine.py", "arms"] }
on    = { TINY_ATTN_IMPL = ["sdpa", "flash"] }
"""


def _mutate(project, *args: str) -> tuple[int, dict]:
    done = project.vtgate("mutate", "--json", "-", *args)
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


def test_a_knob_with_several_values_yields_one_arm_mutation_per_value(project) -> None:
    project.write_suite(GATE + ARMS)
    project.bless("logits-exact")
    code, report = _mutate(project)
    arms = {m["name"]: m for m in report["mutations"] if m["origin"] == "arm"}
    assert sorted(arms) == ["arm-default:attn=flash", "arm-default:attn=sdpa", "arm-default:fast-exp"]
    assert arms["arm-default:attn=sdpa"]["env"] == {"TINY_ATTN_IMPL": "sdpa"}
    assert arms["arm-default:attn=flash"]["env"] == {"TINY_ATTN_IMPL": "flash"}
    assert arms["arm-default:fast-exp"]["env"] == {"TINY_FAST_EXP": "1"}  # knobs not named: on = "1"
    assert all(m["kills"] == ["logits-exact"] for m in arms.values())
    assert code == 0, report


def test_a_registry_entrys_own_on_wins_over_the_arms_table() -> None:
    source = ArmsSource("arms", ProbeRef(cmd=("x",)), on="1", on_values={"ATTN": ("sdpa",)})
    registry = [{"name": "flash", "knob": "ATTN", "default": False, "on": "flash"},
                {"name": "any", "knob": "ATTN", "default": False},
                {"name": "both", "knob": "MODE", "default": False, "on": ["a", "b"]},
                {"name": "base", "knob": "ATTN", "default": True}]
    found = {m.name: dict(m.env) for m in arm_mutations(source, registry)}
    assert found == {"arm-default:flash": {"ATTN": "flash"}, "arm-default:any": {"ATTN": "sdpa"},
                     "arm-default:both=a": {"MODE": "a"}, "arm-default:both=b": {"MODE": "b"}}


def test_a_bad_on_value_is_a_configuration_error_naming_the_knob(project) -> None:
    project.write_suite(GATE + ARMS.replace('["sdpa", "flash"]', "3"))
    done = project.vtgate("mutate")
    assert done.returncode == 2
    assert "on.TINY_ATTN_IMPL must be a string or a list of strings" in done.stderr


def test_a_configs_explicit_knob_wins_over_the_mutation_and_an_unset_one_follows_it(project) -> None:
    project.write_suite("""\
    [[gate]]
    name  = "eager-vs-default"
    kind  = "bitident"
    probe = { cmd = ["{python}", "engine/tinyengine.py"] }
    args  = { prompt = "hi", tokens = 4 }
    configs = { eager = { env = { TINY_ATTN_IMPL = "eager" } }, default = {} }

    [[mutation]]
    name = "sdpa-default"
    kind = "env"
    env  = { TINY_ATTN_IMPL = "sdpa" }
    expect = { eager-vs-default = "red" }
    """)
    code, report = _mutate(project, "--no-auto")
    (mutation,) = report["mutations"]
    assert mutation["actual"] == {"eager-vs-default": "red"}  # "eager" kept its knob, "default" ran sdpa
    assert "4/4" not in mutation["summaries"]["eager-vs-default"]
    assert code == 0, report


PARTIAL = """\
[[gate]]
name = "envdoc"
kind = "envdoc"

[[mutation]]
name = "fast-exp"
kind = "env"
env  = { TINY_FAST_EXP = "1" }
expect = { logits-exact = "red", envdoc = "green" }

[[mutation]]
name = "threads"
kind = "env"
env  = { TINY_THREADS = "2" }
expect = { logits-exact = "green", envdoc = "green" }
"""

DOC = """\
| name | default | effect | bit-exact with default? |
|---|---|---|---|
| TINY_THREADS | 1 | threads | yes |
| TINY_ATTN_IMPL | eager | attention | no |
| TINY_FAST_EXP | 0 | fast exp | no |
"""


def test_the_whole_matrix_reports_a_gate_no_mutation_kills_as_vacuous(project) -> None:
    (project.root / "docs").mkdir()
    (project.root / "docs" / "ENVIRONMENT.md").write_text(DOC)
    project.write_suite(GATE + PARTIAL)
    project.bless("logits-exact")
    code, report = _mutate(project)
    assert report["partial"] is None
    assert report["vacuous_reasons"] == {"envdoc": ["no mutation kills it"]}
    assert code == 1


def test_partial_runs_never_report_vacuity_they_did_not_measure(project) -> None:
    (project.root / "docs").mkdir()
    (project.root / "docs" / "ENVIRONMENT.md").write_text(DOC)
    project.write_suite(GATE + PARTIAL)
    project.bless("logits-exact")
    code, report = _mutate(project, "-m", "threads", "--no-auto")
    assert report["vacuous"] == []
    assert "-m" in report["partial"] and "--no-auto" in report["partial"]
    assert code == 0, report
    done = project.vtgate("mutate", "-m", "threads")
    assert "partial run" in done.stderr and "vacuous pin" not in done.stderr


def test_logits_goldens_get_negative_controls_at_their_tolerance(project) -> None:
    project.write_suite(GATE + GATE.replace('"logits-exact"', '"logits-close"').replace(
        'mode  = "logits"', 'mode  = "logits"\natol  = 1e-3'))
    project.bless("logits-exact", "logits-close")
    code, report = _mutate(project)
    controls = {m["name"]: m for m in report["mutations"] if m["origin"] == "control"}
    assert controls["logits-exact:step-digest"]["actual"] == {"logits-exact": "red"}
    assert controls["logits-exact:swap-token"]["actual"] == {"logits-exact": "red"}
    assert controls["logits-close:beyond-tolerance"]["actual"] == {"logits-close": "red"}
    assert controls["logits-close:within-tolerance"]["actual"] == {"logits-close": "green"}
    assert all(m["met"] for m in controls.values())
    assert report["vacuous"] == [] and code == 0, report
