"""The perf gate's statistics on synthetic samples: deterministic for a seed, ratio direction for
both metric senses, robust to one wild round, and the three decisions."""

from __future__ import annotations

import numpy as np
import pytest
from vtgate.perf.stats import decide, hodges_lehmann, look_confidence, paired_ratio, sequential_looks


def noisy_pairs(ratio: float, rounds: int, spread: float, seed: int = 1) -> tuple[list[float], list[float]]:
    rng = np.random.default_rng(seed)
    reference = 100.0 * np.exp(rng.normal(0.0, spread, rounds))
    candidate = reference * ratio * np.exp(rng.normal(0.0, spread, rounds))
    return list(candidate), list(reference)


def test_same_seed_same_interval_and_another_seed_moves_it_only_slightly():
    cand, ref = noisy_pairs(0.9, 8, 0.03)
    first, again = paired_ratio(cand, ref, seed=7), paired_ratio(cand, ref, seed=7)
    assert (first.low, first.high) == (again.low, again.high)
    other = paired_ratio(cand, ref, seed=8)
    assert other.ratio == first.ratio  # the point estimate does not resample
    assert abs(other.low - first.low) < 0.02


def test_exact_ten_percent_slowdown_gives_ratio_point_nine():
    estimate = paired_ratio([90.0, 45.0, 180.0], [100.0, 50.0, 200.0])
    assert estimate.ratio == pytest.approx(0.9)
    assert estimate.low == pytest.approx(0.9) and estimate.high == pytest.approx(0.9)


def test_seconds_per_call_are_inverted_so_a_slower_candidate_is_below_one():
    estimate = paired_ratio([1.25, 2.5, 5.0], [1.0, 2.0, 4.0], better="lower")
    assert estimate.ratio == pytest.approx(0.8)


def test_a_ten_percent_slowdown_with_three_percent_noise_fails_a_0_95_gate():
    estimate = paired_ratio(*noisy_pairs(0.9, 8, 0.03))
    assert estimate.high < 0.95
    assert decide(estimate, 0.95) == "fail"


def test_no_change_with_three_percent_noise_passes_a_0_95_gate():
    estimate = paired_ratio(*noisy_pairs(1.0, 8, 0.03, seed=3))
    assert estimate.low >= 0.95
    assert decide(estimate, 0.95) == "pass"


def test_a_three_percent_change_straddles_0_95_and_is_inconclusive():
    estimate = paired_ratio(*noisy_pairs(0.97, 8, 0.03, seed=5))
    assert estimate.low < 0.95 <= estimate.high
    assert decide(estimate, 0.95) == "inconclusive"


def test_one_wild_round_does_not_turn_no_change_into_a_slowdown():
    cand, ref = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 30.0, 100.2], [100.0] * 8
    estimate = paired_ratio(cand, ref)
    assert estimate.ratio == pytest.approx(1.0, abs=0.01)
    assert float(np.mean(np.array(cand) / np.array(ref))) < 0.92  # what a mean would have said


def test_hodges_lehmann_is_the_median_of_walsh_averages():
    # Walsh averages of [0, 1, 10]: 0, 0.5, 5, 1, 5.5, 10 -> median 3.0
    assert hodges_lehmann(np.array([0.0, 1.0, 10.0])) == pytest.approx(3.0)


@pytest.mark.parametrize(("cand", "ref", "message"), [
    ([1.0], [1.0], "at least 2 rounds"),
    ([1.0, 2.0], [1.0], "paired rounds"),
    ([1.0, 0.0], [1.0, 1.0], "positive finite"),
])
def test_bad_samples_are_refused_with_the_reason(cand, ref, message):
    with pytest.raises(ValueError, match=message):
        paired_ratio(cand, ref)


def test_each_of_four_looks_spends_a_quarter_of_the_error_rate():
    assert look_confidence(0.95, 4) == pytest.approx(0.9875)
    assert look_confidence(0.95, 1) == pytest.approx(0.95)


def test_sequential_looks_stop_at_the_first_look_that_decides():
    cand, ref = noisy_pairs(0.9, 24, 0.03)
    looks = sequential_looks(cand, ref, rounds_per_look=8, looks=3, min_ratio=0.95)
    assert [(look.estimate.rounds, look.decision) for look in looks] == [(8, "fail")]
    assert looks[0].estimate.confidence == pytest.approx(1 - 0.05 / 3)


def test_sequential_looks_add_rounds_while_inconclusive_and_end_inconclusive_at_the_last_look():
    cand, ref = noisy_pairs(0.95, 24, 0.03, seed=2)  # exactly on the threshold: no look may decide
    looks = sequential_looks(cand, ref, rounds_per_look=8, looks=3, min_ratio=0.95)
    assert [(look.estimate.rounds, look.decision) for look in looks] == [(8, "inconclusive"), (16, "inconclusive"),
                                                                         (24, "inconclusive")]


def test_a_look_waits_for_its_whole_block_of_rounds():
    cand, ref = noisy_pairs(0.95, 12, 0.03, seed=2)
    assert [look.estimate.rounds for look in sequential_looks(cand, ref, rounds_per_look=8, looks=3, min_ratio=0.95)] == [8]


def test_the_upper_quartile_ratio_compares_the_least_disturbed_legs_of_each_role():
    # A slow phase of the host (60-66) hits both roles; the undisturbed legs run at 90 and 100.
    cand = [90.0, 60.0, 90.5, 61.0, 89.5, 90.0, 60.5, 90.2]
    ref = [100.0, 66.0, 100.5, 65.0, 99.5, 100.0, 66.5, 100.2]
    estimate = paired_ratio(cand, ref, statistic="upper-quartile")
    assert estimate.ratio == pytest.approx(0.9, abs=0.005)
    assert estimate.statistic == "upper-quartile" and estimate.method.startswith("ratio of upper-quartile speeds")
    # the per-round centre sees the slow rounds' smaller gap (0.91-0.94) and lands above 0.9
    assert paired_ratio(cand, ref).ratio > 0.9


def test_the_upper_quartile_bootstrap_is_seeded_like_the_paired_one():
    cand, ref = noisy_pairs(0.9, 12, 0.05)
    first = paired_ratio(cand, ref, statistic="upper-quartile", seed=4)
    again = paired_ratio(cand, ref, statistic="upper-quartile", seed=4)
    assert (first.low, first.high) == (again.low, again.high) and first.low < first.ratio < first.high


def pair_biased_rounds(biases: list[float], per_pair: int, spread: float, seed: int = 11):
    """Rounds that ran in process pairs, each pair with its own lasting speed bias (ln units): the
    A/A situation of warm processes, where the true ratio is 1."""
    rng = np.random.default_rng(seed)
    groups = [pair for _ in range(per_pair) for pair in range(len(biases))]  # rotated, as the runner does
    reference = 100.0 * np.exp(rng.normal(0.0, spread, len(groups)))
    candidate = reference * np.exp(np.array([biases[g] for g in groups]) + rng.normal(0.0, spread, len(groups)))
    return list(candidate), list(reference), groups


def test_rounds_sharing_a_process_pair_widen_the_interval_to_take_in_the_pairs_bias():
    # three warm pairs, one of them 8% fast for its whole life: over rounds alone the interval is
    # narrow and misses the true ratio 1; resampling the pairs too puts their spread in it
    cand, ref, groups = pair_biased_rounds([0.08, 0.0, 0.06], per_pair=8, spread=0.01)
    plain = paired_ratio(cand, ref, confidence=0.983)
    paired = paired_ratio(cand, ref, confidence=0.983, groups=groups)
    assert plain.low > 1.0  # the failure this fixes: "faster" with no change at all
    assert paired.low <= 1.0 <= paired.high
    assert paired.ratio == plain.ratio  # the estimate is the same; only the interval knows the pairs
    assert paired.pairs == 3 and plain.pairs is None
    assert "two-level" in paired.method and "3 pairs" in paired.method and "two-level" not in plain.method


def test_a_process_per_round_is_the_plain_bootstrap_over_rounds():
    cand, ref = noisy_pairs(0.95, 12, 0.03, seed=2)
    alone = paired_ratio(cand, ref, seed=4)
    own = paired_ratio(cand, ref, seed=4, groups=list(range(12)))
    assert (own.low, own.high, own.pairs) == (alone.low, alone.high, None)


def test_two_level_picks_keep_each_slot_within_one_drawn_pair():
    from vtgate.perf.stats import two_level_picks

    groups = [0, 1, 2, 0, 1, 2, 0, 1]  # sizes 3, 3, 2
    picks = two_level_picks(groups, 500, np.random.default_rng(0))
    assert picks.shape == (500, 8)
    labels = np.array(groups)
    for row in picks:
        for slot in range(3):  # every place of one slot drew from the same pair
            assert len(set(labels[row[labels == slot]])) == 1
    drawn = {tuple(labels[row[[0, 1, 2]]]) for row in picks}
    assert len(drawn) > 10  # pairs are drawn with replacement, not kept in place
    assert any(len(set(d)) < 3 for d in drawn)


def test_groups_must_match_the_rounds():
    with pytest.raises(ValueError, match="one process pair per round"):
        paired_ratio([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], groups=[0, 1])
