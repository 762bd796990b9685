"""The statistics of a perf gate (docs/perf.md): paired rounds of interleaved legs give one log-ratio
each; the ratio is the Hodges-Lehmann estimate of their centre, its interval a seeded percentile
bootstrap over rounds, and the decision compares the interval with the gate's threshold (pass, fail,
or inconclusive when the interval straddles it). The gate looks at its rounds sequentially, after
every block of ``rounds`` rounds, at most ``looks`` times, and stops at the first look that decides;
each look uses the one-sided level ``(1 - confidence) / looks`` (Bonferroni), so the chance that any
look gives a wrong verdict stays below ``1 - confidence``. Pure numpy, deterministic for a given seed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

Statistic = Literal["hodges-lehmann", "upper-quartile"]
STATISTICS: tuple[Statistic, ...] = ("hodges-lehmann", "upper-quartile")
METHODS = {
    "hodges-lehmann": "Hodges-Lehmann paired log-ratio, percentile bootstrap over rounds",
    "upper-quartile": "ratio of upper-quartile speeds, percentile bootstrap over rounds",
}
TWO_LEVEL = "two-level percentile bootstrap over process pairs, then rounds"
METHOD = METHODS["hodges-lehmann"]
Decision = Literal["pass", "fail", "inconclusive"]


@dataclass(frozen=True)
class RatioEstimate:
    """Candidate speed over reference speed (> 1: the candidate is faster), with one-sided bounds at
    ``confidence``: ``low`` is the (1 - confidence) bootstrap quantile, ``high`` the confidence one."""

    ratio: float
    low: float
    high: float
    confidence: float
    rounds: int
    resamples: int
    seed: int
    statistic: Statistic = "hodges-lehmann"
    pairs: int | None = None  # process pairs the rounds ran in, when some ran several rounds (two-level bootstrap)

    @property
    def method(self) -> str:
        if self.pairs is None:
            return METHODS[self.statistic]
        return METHODS[self.statistic].replace("percentile bootstrap over rounds", f"{TWO_LEVEL} ({self.pairs} pairs)")

    def to_json(self) -> dict[str, Any]:
        return {"ratio": round(self.ratio, 5), "low": round(self.low, 5), "high": round(self.high, 5),
                "confidence": self.confidence, "rounds": self.rounds, "resamples": self.resamples,
                "seed": self.seed, "method": self.method, "statistic": self.statistic, "pairs": self.pairs}


def _walsh_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(n)
    return i, j


def hodges_lehmann(values: np.ndarray) -> np.ndarray:
    """The median of all Walsh averages (x_i + x_j) / 2, i <= j, along the last axis: a centre as
    robust as the median (one wild leg cannot move it far) but smoother on few samples."""
    i, j = _walsh_pairs(values.shape[-1])
    return np.median((values[..., i] + values[..., j]) / 2.0, axis=-1)


def speeds(values: Sequence[float], better: Literal["higher", "lower"]) -> np.ndarray:
    """A metric as a speed: tokens/s as they are, seconds per call inverted."""
    array = np.asarray(values, dtype=np.float64)
    return array if better == "higher" else 1.0 / array


def upper_quartile_log_ratio(candidate: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """ln(75th percentile of the candidate's speeds) - ln(the reference's), along the last axis. Noise
    on a shared host only slows a leg down, so the faster legs of each role are the least disturbed;
    the quartile (not the maximum) keeps one lucky leg from deciding."""
    return np.log(np.quantile(candidate, 0.75, axis=-1)) - np.log(np.quantile(reference, 0.75, axis=-1))


def two_level_picks(groups: Sequence[int], resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap indices (``resamples`` x n) that resample the groups, then the rounds within them:
    each resample draws, for every group slot, a group with replacement, and fills that slot's places
    (as many as the slot's own group had rounds) with rounds drawn with replacement from the drawn
    group. Rounds of one process pair share that pair's speed bias; resampling pairs puts that shared
    error into the interval, which resampling rounds alone would treat as averaged out."""
    labels = np.unique(np.asarray(groups), return_inverse=True)[1].reshape(-1)
    count = int(labels.max()) + 1
    members = [np.flatnonzero(labels == g) for g in range(count)]
    sizes = np.array([m.size for m in members])
    table = np.zeros((count, int(sizes.max())), dtype=np.int64)
    for g, found in enumerate(members):
        table[g, :found.size] = found
    drawn = rng.integers(0, count, size=(resamples, count))[:, labels]  # the group standing in for each place's own
    within = np.floor(rng.random((resamples, labels.size)) * sizes[drawn]).astype(np.int64)
    return np.asarray(table[drawn, within])


def paired_ratio(candidate: Sequence[float], reference: Sequence[float], *,
                 better: Literal["higher", "lower"] = "higher", confidence: float = 0.95,
                 resamples: int = 2000, seed: int = 0, statistic: Statistic = "hodges-lehmann",
                 groups: Sequence[int] | None = None) -> RatioEstimate:
    """The speed ratio candidate/reference from paired rounds (``candidate[k]`` and ``reference[k]``
    ran next to each other): the Hodges-Lehmann centre of the per-round log-ratios, or the ratio of
    the two roles' upper-quartile speeds; the bootstrap resamples whole rounds either way. ``groups``
    names the process pair each round ran in; when some pair ran more than one round the bootstrap
    resamples pairs, then rounds within them (``two_level_picks``). Raises ValueError on fewer than 2
    rounds or a non-positive value."""
    cand, ref = speeds(candidate, better), speeds(reference, better)
    if cand.shape != ref.shape or cand.ndim != 1:
        raise ValueError(f"need paired rounds: {len(candidate)} candidate and {len(reference)} reference values")
    if cand.size < 2:
        raise ValueError(f"need at least 2 rounds, got {cand.size}")
    if not (np.all(np.isfinite(cand)) and np.all(np.isfinite(ref)) and np.all(cand > 0) and np.all(ref > 0)):
        raise ValueError("every timing value must be a positive finite number")
    if groups is not None and len(groups) != cand.size:
        raise ValueError(f"need one process pair per round: {len(groups)} for {cand.size} rounds")
    rng = np.random.default_rng(seed)
    pairs = len(set(groups)) if groups is not None and len(set(groups)) < cand.size else None
    if pairs is not None:
        assert groups is not None
        picks = two_level_picks(groups, resamples, rng)
    else:
        picks = rng.integers(0, cand.size, size=(resamples, cand.size))
    if statistic == "upper-quartile":
        centre = upper_quartile_log_ratio(cand, ref)
        boot = upper_quartile_log_ratio(cand[picks], ref[picks])
    else:
        logs = np.log(cand) - np.log(ref)
        centre = hodges_lehmann(logs)
        boot = hodges_lehmann(logs[picks])
    low, high = np.quantile(boot, [1.0 - confidence, confidence])
    return RatioEstimate(float(np.exp(centre)), float(np.exp(low)), float(np.exp(high)),
                         confidence, int(cand.size), resamples, seed, statistic, pairs)


def look_confidence(confidence: float, looks: int) -> float:
    """The one-sided confidence of each of ``looks`` looks so that all of them together keep
    ``confidence`` (Bonferroni: the error probabilities of the looks add up to at most 1 - confidence)."""
    return 1.0 - (1.0 - confidence) / looks


@dataclass(frozen=True)
class Look:
    """One look of the sequential schedule: the estimate over the first ``estimate.rounds`` rounds."""

    estimate: RatioEstimate
    decision: Decision

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.estimate.rounds, "ratio": round(self.estimate.ratio, 5),
                "low": round(self.estimate.low, 5), "high": round(self.estimate.high, 5), "decision": self.decision}


def sequential_looks(candidate: Sequence[float], reference: Sequence[float], *, rounds_per_look: int, looks: int,
                     min_ratio: float, better: Literal["higher", "lower"] = "higher",
                     confidence: float = 0.95, statistic: Statistic = "hodges-lehmann",
                     groups: Sequence[int] | None = None) -> list[Look]:
    """The looks taken on these paired rounds: after every ``rounds_per_look`` complete rounds (and
    no more than ``looks`` times), each at ``look_confidence(confidence, looks)``; the list ends at the
    first look that decides (pass or fail). The leg runner calls this after each block to know whether
    to stop; the gate kind calls it on the recorded legs to judge, so both see the same looks.
    ``groups``: the process pair of each round (``paired_ratio``)."""
    level = look_confidence(confidence, looks)
    taken: list[Look] = []
    for look in range(1, looks + 1):
        count = look * rounds_per_look
        if count > len(candidate):
            break
        estimate = paired_ratio(candidate[:count], reference[:count], better=better, confidence=level,
                                statistic=statistic, groups=None if groups is None else groups[:count])
        taken.append(Look(estimate, decide(estimate, min_ratio)))
        if taken[-1].decision != "inconclusive":
            break
    return taken


def decide(estimate: RatioEstimate, min_ratio: float) -> Decision:
    """pass: the whole interval is at or above ``min_ratio``; fail: the whole interval is below it;
    inconclusive: it straddles the threshold (more rounds or a quieter host would tell)."""
    if estimate.low >= min_ratio:
        return "pass"
    if estimate.high < min_ratio:
        return "fail"
    return "inconclusive"
