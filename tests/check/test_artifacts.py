"""Derived artifacts: a probe names what it ran besides the code (``meta.artifacts``: weights by
digest); bless records them in provenance, and check refuses to judge an observation of other
weights (an error of kind ``artifact`` naming the artifact), never calling it red or green."""

from __future__ import annotations

import hashlib

STRICT = '[[gate]]\nname = "strict"\nkind = "golden"\nmode = "strict"\nprobe = "fakeengine:generate"\n'


def test_bless_records_the_artifacts_and_check_refuses_other_weights(project) -> None:
    (project.root / "weights.bin").write_bytes(b"weights A")
    project.write_suite(STRICT)
    assert project.bless("strict").returncode == 0
    digest_a = hashlib.sha256(b"weights A").hexdigest()
    assert project.golden("strict")["provenance"]["artifacts"] == {"model:fake": digest_a}
    done, report = project.check_json()
    assert done.returncode == 0 and report["gates"][0]["status"] == "green"

    (project.root / "weights.bin").write_bytes(b"weights B")  # same tokens, other weights
    done, report = project.check_json()
    gate = report["gates"][0]
    assert done.returncode == 3
    assert (gate["status"], gate["error_kind"]) == ("error", "artifact")
    digest_b = hashlib.sha256(b"weights B").hexdigest()
    assert f"artifact model:fake = {digest_a[:12]}… but this run used {digest_b[:12]}…" in gate["error"]
    assert "re-bless" in gate["error"]


def test_rebless_with_the_same_value_updates_the_recorded_artifacts(project) -> None:
    (project.root / "weights.bin").write_bytes(b"weights A")
    project.write_suite(STRICT)
    project.bless("strict")
    (project.root / "weights.bin").write_bytes(b"weights B")
    done = project.bless("strict", reason="new weights, same tokens")
    assert done.returncode == 0, done.stderr
    assert "provenance.artifacts model:fake" in done.stderr
    golden = project.golden("strict")
    assert golden["provenance"]["artifacts"] == {"model:fake": hashlib.sha256(b"weights B").hexdigest()}
    assert len(golden["history"]) == 2
    done, _ = project.check_json()
    assert done.returncode == 0


def test_a_golden_without_recorded_artifacts_is_judged_as_before(project) -> None:
    project.write_suite(STRICT)
    project.bless("strict")  # no weights.bin: nothing recorded
    (project.root / "weights.bin").write_bytes(b"weights A")
    done, report = project.check_json()
    assert done.returncode == 0 and report["gates"][0]["status"] == "green"
