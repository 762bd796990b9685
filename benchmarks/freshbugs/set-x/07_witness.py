"""07: the VT_PROFILE stage profile reports wall time per stage: every row's seconds is a duration
(>= 0), so each phase's total is positive and the rows come largest first; the shares (seconds over the
phase total) add up to 1 per phase. Only signs and sums are printed, never times."""
from collections import defaultdict

import _w

model = _w.small_model()
e = _w.engine(model, profile=True)
e.generate([(5 * i) % 64 for i in range(12)], 6)
rows = e.prof.table()
shares = defaultdict(float)
for row in rows:
    shares[row["phase"]] += row["share"]
print("phases:", sorted(shares), "| share sums close to 1:", {p: abs(s - 1) < 1e-9 for p, s in shares.items()})
nonneg = all(row["seconds"] >= 0 for row in rows)
totals_pos = all(sum(r["seconds"] for r in rows if r["phase"] == p) > 0 for p in shares)
print("every stage's seconds >= 0:", nonneg, "| phase totals > 0:", totals_pos)
print("summary: durations non-negative", nonneg, "| totals positive", totals_pos)
