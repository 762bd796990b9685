"""A suite's knob prefixes must name the engine's knobs: a prefix that no environment read in the
engine's source starts with is a warning on `vtgate check` (the knobs it was meant for would reach
probes unreported), and a prefix that matches says nothing."""

from __future__ import annotations

GATE = """
[[gate]]
name  = "g"
kind  = "golden"
probe = { cmd = ["{python}", "engine/tinyengine.py"] }
args  = { prompt = "hi", tokens = 3 }
"""


def _header(prefixes: str) -> str:
    return f'[suite]\nsource_tree = "engine"\nknob_prefixes = {prefixes}\ntimeout = 60\n'


def test_a_prefix_matching_no_read_in_the_source_is_a_warning(project) -> None:
    project.write_suite(GATE, header=_header('["TINY_", "SVC_"]'))
    project.bless("g")
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr  # a warning, not a failure
    said = " ".join(done.stderr.split())
    assert "warning: knob prefix 'SVC_' ([suite] knob_prefixes) matches no environment variable read under engine" in said
    assert "'TINY_'" not in said  # the engine reads TINY_THREADS and friends


def test_prefixes_that_match_the_source_say_nothing(project) -> None:
    project.write_suite(GATE, header=_header('["TINY_"]'))
    project.bless("g")
    done = project.vtgate("check")
    assert done.returncode == 0, done.stderr
    assert "knob prefix" not in done.stderr
