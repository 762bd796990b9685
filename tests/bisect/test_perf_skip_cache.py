"""An undecided perf gate (inconclusive or noisy) is a skip about the host, not the commit: vtbisect
never caches it, so a later run on a quieter host measures the candidate again."""

from vtbisect.judges import gate_verdict, host_undecided


def test_inconclusive_and_noisy_perf_gates_are_host_undecided() -> None:
    for kind in ("inconclusive", "noisy"):
        details = {"decode-ratio": {"status": "error", "error_kind": kind}, "strict-hello": {"status": "green"}}
        assert host_undecided(details)
        assert gate_verdict({"status": "error", "error_kind": kind}) == "skip"


def test_decided_gates_and_other_errors_are_cacheable() -> None:
    assert not host_undecided({})
    assert not host_undecided({"decode-ratio": {"status": "red", "error_kind": None}})
    assert not host_undecided({"strict-hello": {"status": "error", "error_kind": "artifact"}})
