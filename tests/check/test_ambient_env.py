"""Ambient knobs: a knob set in the user's shell (a name with one of the suite's knob prefixes, or a
variable the suite names) that reaches a probe is reported in the terminal footer, on a red gate's
line, in the JSON report and in JUnit properties, and kept in bless provenance; ``--isolate-env`` or
``[suite] isolate_env = true`` runs the probes without it. Real CLI runs in subprocesses."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from .conftest import HEADER

FAKE_PREFIX = HEADER + 'knob_prefixes = ["FAKE_"]\n'
STRICT = '[[gate]]\nname = "strict"\nkind = "golden"\nprobe = "fakeengine:generate"\nargs = { prompt = "hello", tokens = 12 }\n'
COUNTERS = ('\n[[gate]]\nname = "cache"\nkind = "counters"\nprobe = "fakeengine:generate"\n'
            'args = { prompt = "hello", tokens = 12 }\nover = { FAKE_BUDGET = ["0", "1"] }\n')


def test_an_ambient_knob_is_named_in_the_footer_the_red_line_json_and_junit(project) -> None:
    project.write_suite(STRICT, header=FAKE_PREFIX)
    project.bless("strict")
    done = project.vtgate("check", "--json", "report.json", "--junit", "junit.xml", env={"FAKE_FLIP": "5"})
    assert done.returncode == 1, done.stderr
    red_line = next(line for line in done.stderr.splitlines() if "first divergence at position 5" in line)
    assert "under ambient FAKE_FLIP=5 from your shell" in red_line
    assert "ambient knobs from your shell reached the probes: FAKE_FLIP=5" in done.stderr
    report = json.loads((project.root / "report.json").read_text())
    assert report["ambient_env"] == {"FAKE_FLIP": "5"} and report["isolate_env"] is False
    assert report["gates"][0]["ambient_env"] == {"FAKE_FLIP": "5"}
    properties = {p.get("name"): p.get("value") for p in ET.parse(project.root / "junit.xml").iter("property")}
    assert properties == {"ambient_env.FAKE_FLIP": "5", "isolate_env": "false"}


def test_isolate_env_runs_the_probes_without_the_shells_knobs(project) -> None:
    project.write_suite(STRICT, header=FAKE_PREFIX)
    project.bless("strict")
    done, report = project.check_json("--isolate-env", env={"FAKE_FLIP": "5"})
    assert done.returncode == 0, done.stderr
    assert report["gates"][0]["status"] == "green"
    assert report["ambient_env"] == {} and report["isolate_env"] is True
    assert "ambient knobs" not in done.stderr


def test_the_suite_setting_isolates_without_the_flag(project) -> None:
    project.write_suite(STRICT, header=FAKE_PREFIX + "isolate_env = true\n")
    project.bless("strict")
    done, report = project.check_json(env={"FAKE_FLIP": "5"})
    assert done.returncode == 0, done.stderr
    assert report["ambient_env"] == {} and report["isolate_env"] is True


def test_a_knob_the_suite_names_is_ambient_only_where_the_run_does_not_set_it(project) -> None:
    project.write_suite(STRICT + COUNTERS)  # prefixes: the default VT_; FAKE_BUDGET is named by "cache"
    project.bless("strict", "cache")
    done, report = project.check_json(env={"FAKE_BUDGET": "1", "FAKE_UNNAMED": "x"})
    gates = {g["name"]: g for g in report["gates"]}
    assert gates["strict"]["ambient_env"] == {"FAKE_BUDGET": "1"}  # its run does not set the knob
    assert gates["cache"]["ambient_env"] == {}  # each of its runs sets FAKE_BUDGET itself
    assert report["ambient_env"] == {"FAKE_BUDGET": "1"}  # FAKE_UNNAMED is no knob of this suite


def test_the_default_prefix_is_the_envdoc_prefix(project) -> None:
    header = HEADER + '\n[envdoc]\nprefix = "FAKE_"\n'
    project.write_suite("", header=header)
    (project.root / "vtgate.toml").write_text(header.replace("[envdoc]", STRICT + "\n[envdoc]"))
    project.bless("strict")
    done, report = project.check_json(env={"FAKE_FLIP": "5", "VT_CPU_THREADS": "2"})
    assert done.returncode == 1, done.stderr
    assert report["ambient_env"] == {"FAKE_FLIP": "5"}


def test_bless_records_the_ambient_knobs_in_provenance(project) -> None:
    project.write_suite(STRICT, header=FAKE_PREFIX)
    done = project.vtgate("bless", "strict", "--reason", "under a shell knob", env={"FAKE_FLIP": "5"})
    assert done.returncode == 0, done.stderr
    assert "measured under ambient knobs from your shell: FAKE_FLIP=5" in done.stderr
    provenance = project.golden("strict")["provenance"]
    assert provenance["ambient_env"] == {"FAKE_FLIP": "5"}
    assert provenance["env"] == {"FAKE_FLIP": "5"}


def test_bless_with_isolate_env_measures_and_records_without_them(project) -> None:
    project.write_suite(STRICT, header=FAKE_PREFIX)
    project.bless("strict")
    clean = project.golden("strict")["value"]
    flipped = project.vtgate("bless", "strict", "--reason", "under a shell knob", env={"FAKE_FLIP": "5"})
    assert flipped.returncode == 0 and project.golden("strict")["value"] != clean
    done = project.vtgate("bless", "strict", "--reason", "isolated", "--isolate-env", env={"FAKE_FLIP": "5"})
    assert done.returncode == 0, done.stderr
    golden = project.golden("strict")
    assert golden["value"] == clean
    assert golden["provenance"]["ambient_env"] == {} and golden["provenance"]["env"] == {}


def test_the_tools_own_settings_are_not_ambient_knobs_unless_the_suite_names_them(project) -> None:
    # VT_EXECUTOR / VT_DASK_* choose where runs go and VT_BISECT_* is vtbisect's: they share the default
    # VT_ prefix, but a user who exports them has changed no knob of the engine.
    project.write_suite(STRICT)  # prefixes: the default VT_
    project.bless("strict")
    tool = {"VT_EXECUTOR": "local", "VT_DASK_CONNECT_TIMEOUT": "5", "VT_BISECT_CACHE_DIR": str(project.root / "c")}
    done, report = project.check_json(env={**tool, "VT_SOMETHING": "1"})
    assert report["ambient_env"] == {"VT_SOMETHING": "1"}, done.stderr
    assert "ambient knobs from your shell reached the probes: VT_SOMETHING=1" in done.stderr
    # named by the suite (a gate pins it), a tool variable is a knob like any other
    project.write_suite(STRICT + '\n[[gate]]\nname = "pinned"\nkind = "golden"\nprobe = "fakeengine:generate"\n'
                        'args = { prompt = "hello", tokens = 12 }\nenv = { VT_DASK_CONNECT_TIMEOUT = "5" }\n'
                        'env_reason = "a test"\n')
    project.bless("pinned")
    done, report = project.check_json(env=tool)
    assert report["gates"][0]["ambient_env"] == {"VT_DASK_CONNECT_TIMEOUT": "5"}, done.stderr
