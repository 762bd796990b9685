"""Bad declarations are configuration errors (exit 2) whose message names the file, the line of the
[[mutation]] header, the mutation and the fix; nothing runs."""

from __future__ import annotations

import pytest

GATE = """\
[[gate]]
name = "strict-hi"
kind = "golden"
probe = "mutfake:generate"
"""


def _error(project, mutation: str) -> str:
    path = project.write_suite(GATE + "\n" + mutation)
    done = project.vtgate("mutate", "-q")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    text = " ".join(done.stderr.split())
    assert text.startswith(f"configuration error: {path}:")
    return text


@pytest.mark.parametrize(("mutation", "message"), [
    ('[[mutation]]\nname = "m"\nkind = "env"\nenv = { A = "1" }\nexpect = { strict-ho = "red" }\n',
     "mutation 'm': expect names unknown gate 'strict-ho'; did you mean 'strict-hi'? (gates: strict-hi)"),
    ('[[mutation]]\nname = "m"\nkind = "env"\nenv = { A = "1" }\nexpect = { strict-hi = "blue" }\n',
     "mutation 'm': expect.strict-hi = 'blue' is neither \"red\" nor \"green\"; write \"red\" if the mutation "
     "must kill the gate, \"green\" if the gate must survive it"),
    ('[[mutation]]\nname = "m"\nkind = "patch"\npatch = "goldens/mutations/nope.diff"\nexpect = { strict-hi = "red" }\n',
     "mutation 'm': patch goldens/mutations/nope.diff does not exist"),
    ('[[mutation]]\nname = "m"\nkind = "envv"\nexpect = { strict-hi = "red" }\n',
     "mutation 'm': unknown kind 'envv' (known: env, patch, pin, arms); did you mean 'env'?"),
    ('[[mutation]]\nname = "m"\nkind = "env"\nenv = { A = 1 }\nexpect = { strict-hi = "red" }\n',
     "mutation 'm': needs env = { KNOB = \"value\" } (values are strings, as a shell sets them)"),
    ('[[mutation]]\nname = "m"\nkind = "env"\nenv = { A = "1" }\n',
     "mutation 'm': needs expect = { <gate> = \"red\" } (must kill) or \"green\" (must survive); \"*\" = \"red\" means at least one gate"),
    ('[[mutation]]\nname = "m"\nkind = "pin"\npin = { gate = "strict-hi", op = "shift-band", metric = "x", by = 1 }\nexpect = { strict-hi = "red" }\n',
     "mutation 'm': pin.op = 'shift-band' does not apply to gate 'strict-hi' of kind 'golden' (it applies to: band)"),
    ('[[mutation]]\nname = "m"\nkind = "env"\nenv = { A = "1" }\nexpect = { strict-hi = "red" }\nexpected = 1\n',
     "mutation 'm': unknown key 'expected' for kind 'env'; did you mean 'expect'? (kind keys: env)"),
])
def test_bad_declaration_is_a_config_error_naming_line_mutation_and_fix(project, mutation: str, message: str) -> None:
    text = _error(project, mutation)
    assert f"vtgate.toml:11: {message}" in text


def test_every_problem_is_reported_at_once(project) -> None:
    text = _error(project, '[[mutation]]\nname = "a"\nkind = "env"\nenv = { A = "1" }\nexpect = { nope = "red" }\n\n'
                           '[[mutation]]\nname = "b"\nkind = "env"\nenv = { A = "1" }\nexpect = { strict-hi = "maybe" }\n')
    assert "vtgate.toml:11: mutation 'a': expect names unknown gate 'nope'" in text
    assert "vtgate.toml:17: mutation 'b': expect.strict-hi = 'maybe' is neither" in text


def test_patch_mutation_without_source_tree_is_refused(project) -> None:
    (project.root / "goldens" / "mutations").mkdir(parents=True)
    (project.root / "goldens" / "mutations" / "x.diff").write_text("")
    project.write_suite(GATE + '\n[[mutation]]\nname = "m"\nkind = "patch"\npatch = "goldens/mutations/x.diff"\n'
                        'expect = { strict-hi = "red" }\n', header='[suite]\npythonpath = ["src"]\n')
    done = project.vtgate("mutate", "-q")
    assert done.returncode == 2
    assert "patch mutations need [suite] source_tree, so the stale guard can prove that the probes ran the " \
           "patched copy" in " ".join(done.stderr.split())


def test_unknown_mutation_selected_on_the_command_line(project) -> None:
    project.write_suite(GATE + '\n[[mutation]]\nname = "real"\nkind = "env"\nenv = { A = "1" }\nexpect = { strict-hi = "red" }\n')
    done = project.vtgate("mutate", "-m", "imaginary")
    assert done.returncode == 2
    assert "no mutation named 'imaginary' (declared: real)" in done.stderr
