"""Compare two ``vtgate mutate --code --json`` reports of the same sample mutant by mutant: a change
to how mutants are run (not to what judges them) must leave every verdict as it was.

    python benchmarks/compare_code_verdicts.py BEFORE.json AFTER.json

A verdict is the status and, for a survivor, the set of gates that ran (all that reach it). Gates run
cheapest first by the baseline's measured seconds, which vary from run to run, so the gate that kills
a mutant (and the order of a survivor's gates) may differ between two runs without a verdict changing:
those are printed as order differences, not counted. Exit 0 when no verdict differs, 1 otherwise."""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def verdicts(path: Path) -> dict[str, dict]:
    return {m["id"]: m for m in json.loads(path.read_text(encoding="utf-8"))["mutants"]}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    before, after = (verdicts(Path(p)) for p in argv)
    differ = 0
    for ident in sorted(before.keys() | after.keys()):
        a, b = before.get(ident), after.get(ident)
        if a is None or b is None:
            differ += 1
            print(f"only in {'after' if a is None else 'before'}: {ident}")
            continue
        if a["status"] != b["status"] or (a["killed_by"] is None and set(a["gates_run"]) != set(b["gates_run"])):
            differ += 1
            print(f"{ident}: {a['status']} {a['gates_run']} -> {b['status']} {b['gates_run']}")
        elif a["killed_by"] != b["killed_by"] or a["gates_run"] != b["gates_run"]:
            print(f"{ident}: same verdict, gate order differs ({a['gates_run']} -> {b['gates_run']})")
    shared = before.keys() & after.keys()
    print(f"{len(shared)} mutants in both, {differ} verdicts differ")
    for label, report in (("before", before), ("after", after)):
        seconds = [report[i]["seconds"] for i in shared]
        if seconds:
            print(f"{label}: {sum(seconds):.1f} s summed over mutants, median {statistics.median(seconds):.2f} s")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
