"""vtgate bless end to end: it re-measures, shows old -> new in the kind's terms, refuses without a
reason, appends history with provenance, writes atomically, and --dry-run writes nothing."""

from __future__ import annotations

import json

GEN = 'probe = "fakeengine:generate"\nargs = { prompt = "hello", tokens = 12 }\n'


def _suite(project) -> None:
    project.write_suite('[[gate]]\nname = "bench"\nkind = "anchor"\npositions = [2, 5]\n' + GEN
                        + '\n[[gate]]\nname = "strict"\nkind = "golden"\n' + GEN
                        + '\n[[gate]]\nname = "spec"\nkind = "band"\nprobe = "fakeengine:speculative"\n'
                        "bands = { proposed = [50, 60] }\n")


def test_bless_refuses_without_a_reason_and_writes_nothing(project) -> None:
    _suite(project)
    for args in (["bless", "bench"], ["bless", "bench", "--reason", "  "]):
        done = project.vtgate(*args)
        assert done.returncode == 2
        assert "bless needs --reason TEXT: say why the pin moves" in done.stderr
    assert not (project.root / "goldens").exists()


def test_first_bless_writes_value_provenance_and_history(project) -> None:
    _suite(project)
    done = project.vtgate("bless", "bench", "--reason", "first pin of the bench chain", env={"VT_AMBIENT": "7"})
    assert done.returncode == 0, done.stderr
    golden = project.golden("bench")
    assert golden["schema"] == 1 and golden["gate"] == "bench" and golden["tier"] == "default"
    value = golden["value"]
    assert f"bench: new golden: anchor {value['anchor']}, 12 tokens {value['digest'][:12]}…" in done.stderr
    provenance = golden["provenance"]
    assert provenance["reason"] == "first pin of the bench chain"
    assert set(provenance) >= {"measured_at", "commit", "tree_dirty", "host", "python", "numpy", "env", "reason"}
    assert provenance["env"] == {"VT_AMBIENT": "7"}  # knobs set in the blessing shell are recorded
    assert provenance["engine"]["engine"] == "fake"
    assert golden["history"] == [{"at": provenance["measured_at"], "from": None,
                                  "to": f"anchor {value['anchor']}, 12 tokens {value['digest'][:12]}…",
                                  "reason": "first pin of the bench chain", "commit": provenance["commit"]}]


def test_rebless_shows_old_to_new_in_the_kinds_terms_and_appends_history(project) -> None:
    _suite(project)
    project.bless("bench", "strict", reason="first pin")
    old = project.golden("bench")["value"]
    old_tokens = project.golden("strict")["value"]["tokens"]
    done = project.vtgate("bless", "bench", "strict", "--reason", "restored default arm, #3518", env={"FAKE_FLIP": "5"})
    assert done.returncode == 0, done.stderr
    new = project.golden("bench")
    out = " ".join(done.stderr.split())
    assert (f"bench: anchor {old['anchor']} -> {new['value']['anchor']}; stream {old['digest'][:12]}… -> "
            f"{new['value']['digest'][:12]}…; token at position 5: {old['anchors']['5']} -> "
            f"{new['value']['anchors']['5']}") in out
    assert (f"strict: 1 of 12 tokens change: token {old_tokens[5]} at position 5 -> {(old_tokens[5] + 1) % 97}") in out
    assert [h["reason"] for h in new["history"]] == ["first pin", "restored default arm, #3518"]
    assert new["history"][1]["from"].startswith(f"anchor {old['anchor']},")
    assert new["provenance"]["knobs"] == {"FAKE_FLIP": "5"}  # as the engine resolved them
    # the moved pin is what check now holds; the old engine is red against it
    assert project.vtgate("check", env={"FAKE_FLIP": "5"}).returncode == 0
    assert project.vtgate("check").returncode == 1


def test_dry_run_shows_the_diff_and_writes_nothing(project) -> None:
    _suite(project)
    project.bless("bench")
    path = project.root / "goldens" / "default" / "bench.json"
    before = path.read_bytes()
    done = project.vtgate("bless", "bench", "--dry-run", env={"FAKE_FLIP": "2"})
    assert done.returncode == 0
    assert "bench: anchor" in done.stderr and "token at position 2:" in done.stderr
    assert "(dry run: goldens/default/bench.json not written)" in done.stderr
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["bench.json"]  # no temp files left


def test_unchanged_pin_is_left_alone(project) -> None:
    _suite(project)
    project.bless("bench")
    path = project.root / "goldens" / "default" / "bench.json"
    before = path.read_bytes()
    done = project.vtgate("bless", "bench", "--reason", "again")
    assert done.returncode == 0
    assert "bench: unchanged (anchor" in done.stderr
    assert path.read_bytes() == before


def test_band_gates_are_not_blessed_but_pointed_at_their_line(project) -> None:
    _suite(project)
    done = project.vtgate("bless", "spec", "--reason", "x")
    assert done.returncode == 2
    assert ("spec: kind 'band' has no golden file to bless; its bands are pinned inline: edit them at "
            f"{project.root / 'vtgate.toml'}:") in "".join(done.stderr.splitlines())


def test_bless_of_a_failing_probe_writes_nothing(project) -> None:
    project.write_suite('[[gate]]\nname = "crash"\nkind = "golden"\nprobe = "fakeengine:crash"\n')
    done = project.vtgate("bless", "crash", "--reason", "x")
    assert done.returncode == 3
    assert "crash: cannot bless (probe): probe fakeengine:crash exited with status 1" in done.stderr
    assert not (project.root / "goldens").exists()


def test_golden_file_is_plain_sorted_json(project) -> None:
    _suite(project)
    project.bless("strict")
    text = (project.root / "goldens" / "default" / "strict.json").read_text()
    assert text.endswith("\n")
    assert list(json.loads(text)) == ["schema", "gate", "tier", "value", "provenance", "history"]
