"""Benchmark of the perf gate's detection power and false-alarm rate on this host (docs/perf.md,
"Measured on this host"), by default as a user gets the gate: the default quiet-host preflight on,
no load of the benchmark's own beside it.

A throwaway git project holds HEAD's engine, committed as ``main``, and one perf gate on the decode
bench chain like the engine's own ``decode-perf-default`` (ratio of decode tokens per CPU second to
``main``'s, min_ratio 0.95, looks after every 20 rounds, at most 3 looks, 50 s budget, 6 warm
process pairs per role, new for each block; ``--process fork`` or ``fresh`` times the other ways a
leg can run). Each case patches the working tree with a fixed CPU cost in every RMSNorm call
sized to slow a decode step by the case's percentage (0: no patch); the cases take turns run by run
(so a change in the host's load falls on all of them alike), each run one ``vtgate check -k perf``. A run is a detection when the gate is red, a false alarm
when it is red with no slowdown; inconclusive and noisy (preflight refusals) are counted apart.

``--background burner`` runs a CPU burner beside every run (the earlier rounds' condition). With the
default preflight that host is refused (every run an error of kind ``noisy`` naming the burner,
which is the preflight doing its job); add ``--preflight off`` (the gate's ``quiet = false``) to see
what the statistic does under that load anyway. Every row records the load average at the start of
each run. Not a test: no assertions; the targets are listed beside the numbers.

    .venv/bin/python benchmarks/bench_perf.py [--runs 20] [--cases 10,0,3] [--process fork|warm|fresh]
                                              [--background none|burner] [--preflight default|off]
                                              [--no-write] [--out TABLE.md] [--legs DIR]

``--legs DIR`` keeps each run's JSON report (every leg's value, role, round and process) for
offline analysis.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import load_average, snapshot_head, write_section

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "perf.md"
VTGATE = str(Path(sys.executable).parent / "vtgate")
NORM_START = "        prof = self.prof\n        t0 = clock() if prof else 0.0\n        # mean of squares"
NORM_CALLS_PER_STEP = 9  # vt-tiny: 4 layers x (input + post-attention norm) + the final norm
SUITE = """
[suite]
pythonpath = ["engine"]
source_tree = "engine/vtengine"
goldens = "goldens"
timeout = 300

[[gate]]
name = "decode-perf"
kind = "perf"
probe = "vtengine.probes:decode_timing"
args = { prompt = "bench", tokens = 16, repeats = 1 }
metric = "timing.decode_cpu_tok_s"
min_ratio = 0.95
rounds = 20
looks = 3
budget = 50
process = "fork"
warmup = 1
reference = { ref = "main" }
"""


PROCESS = ["warm"]  # set from --process (and --workers)
CONDITION = ["the default preflight, nothing of the benchmark's own beside it"]  # set from --background, --preflight


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=True).stdout.strip()


def make_project(base: Path) -> Path:
    root = base / "project"
    snapshot_head(root, "engine/vtengine")
    (root / "gates.toml").write_text(SUITE)
    (root / ".gitignore").write_text(".vtgate-cache/\n__pycache__/\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@perf")
    git(root, "config", "user.name", "bench")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "engine at HEAD")
    done = subprocess.run([VTGATE, "bless", "decode-perf", "--suite", str(root / "gates.toml"), "--reason", "bench"],
                          cwd=root, capture_output=True, text=True, env={**os.environ, "VTGATE_PERF_PREFLIGHT": "record"})
    if done.returncode != 0:
        raise SystemExit(f"bless failed:\n{done.stderr}")
    return root


def decode_step_cpu_seconds(root: Path) -> float:
    """The unpatched engine's median decode step, in CPU seconds (median of three probe runs)."""
    values = []
    for _ in range(3):
        done = subprocess.run([sys.executable, "-m", "vtgate.run.child", "vtengine.probes:decode_timing", "--args",
                               json.dumps({"prompt": "bench", "tokens": 16, "repeats": 4})], cwd=root,
                              capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(root / "engine")})
        values.append(1.0 / json.loads(done.stdout)["timing"]["decode_cpu_tok_s"])
    return statistics.median(values)


def patch(root: Path, seconds_per_norm: float | None) -> None:
    """The slowdown patch (a fixed CPU cost at the start of every RMSNorm), or none."""
    engine_py = root / "engine" / "vtengine" / "engine.py"
    git(root, "checkout", "--", "engine/vtengine/engine.py")
    if seconds_per_norm is None:
        return
    text = engine_py.read_text()
    spin = (f"        prof = self.prof\n        t0 = clock() if prof else 0.0\n"
            f"        spin_until = time.process_time() + {seconds_per_norm!r}  # injected slowdown\n"
            "        while time.process_time() < spin_until:\n            pass\n        # mean of squares")
    engine_py.write_text(text.replace("import math\n", "import math\nimport time\n", 1).replace(NORM_START, spin))


def run_gate(root: Path, keep: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-perf-") as tmp:
        out = Path(tmp) / "report.json"
        done = subprocess.run([VTGATE, "check", "--suite", str(root / "gates.toml"), "-k", "perf", "--json", str(out)],
                              cwd=root, capture_output=True, text=True)
        if not out.is_file():  # vtgate itself failed: counted under "other", its message kept
            tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
            return {"status": "error", "error_kind": f"vtgate exit {done.returncode}", "error": tail[0]}
        if keep is not None:
            keep.write_bytes(out.read_bytes())
        (gate,) = json.loads(out.read_text())["gates"]
    return gate


def estimate(gate: dict) -> dict | None:
    """ratio, low, high of a gate: from ``measured`` (red, green) or from an inconclusive error's text."""
    if gate.get("measured"):
        return gate["measured"]
    found = re.search(r"ratio ([0-9.]+), .*?interval \[([0-9.]+), ([0-9.]+)\]", gate.get("error") or "")
    return {"ratio": float(found[1]), "low": float(found[2]), "high": float(found[3])} if found else None


def outcome(gate: dict) -> str:
    if gate["status"] == "error":
        return gate["error_kind"] or "error"
    return gate["status"]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--cases", default="10,0", help="slowdowns in percent, comma-separated")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--out", type=Path, help="also write the table here after every run (partial results survive)")
    parser.add_argument("--process", choices=("fork", "warm", "fresh"), default="warm",
                        help="where each leg runs: one of --workers warm processes per role (the engine's gates), "
                             "a child of the role's fork server, or a fresh interpreter")
    parser.add_argument("--workers", type=int, default=6, help="warm processes per role with --process warm")
    parser.add_argument("--legs", type=Path, help="keep each run's JSON report in this folder")
    parser.add_argument("--background", choices=("none", "burner"), default="none",
                        help="burner: a CPU burner beside every run (the default preflight then refuses the host)")
    parser.add_argument("--preflight", choices=("default", "off"), default="default",
                        help="off: the gate's quiet = false (legs timed whatever the host does)")
    options = parser.parse_args()
    global SUITE
    PROCESS[0] = options.process + (f"\", workers = {options.workers}" if options.process == "warm" else "\"")
    SUITE = SUITE.replace('process = "fork"\n', f'process = "{options.process}"\n'
                          + (f"workers = {options.workers}\n" if options.process == "warm" else ""))
    if options.preflight == "off":
        SUITE = SUITE.replace('reference = { ref = "main" }\n', 'reference = { ref = "main" }\nquiet = false\n')
    CONDITION[0] = (("the default preflight" if options.preflight == "default" else "the preflight off (quiet = false)")
                    + (", a CPU burner running beside every run" if options.background == "burner"
                       else ", nothing of the benchmark's own beside it"))
    cases = [float(c) for c in options.cases.split(",")]
    if options.legs:
        options.legs.mkdir(parents=True, exist_ok=True)
    burner = (subprocess.Popen([sys.executable, "-c", "while True:\n    pass"])
              if options.background == "burner" else None)
    results: dict[float, list[dict]] = {percent: [] for percent in cases}
    loads: dict[float, list[str]] = {percent: [] for percent in cases}
    try:
        with tempfile.TemporaryDirectory(prefix="bench-perf-project-") as base:
            root = make_project(Path(base))
            step = decode_step_cpu_seconds(root)
            print(f"decode step {step * 1000:.2f} ms CPU; load {load_average()}", file=sys.stderr)
            for number in range(options.runs):
                for percent in cases:  # the cases take turns: the host's load changes fall on all alike
                    patch(root, step * percent / 100 / NORM_CALLS_PER_STEP if percent else None)
                    loads[percent].append(load_average())
                    kept = options.legs / f"{percent:g}-{number + 1}.json" if options.legs else None
                    gate = run_gate(root, kept)
                    results[percent].append(gate)
                    measured = estimate(gate) or {}
                    print(f"{percent:g}% run {number + 1}: {outcome(gate)} ratio {measured.get('ratio')} "
                          f"[{measured.get('low')}, {measured.get('high')}] {gate['seconds']:.1f} s; "
                          f"load {load_average()}", file=sys.stderr, flush=True)
                if options.out:
                    options.out.write_text(render(results, loads, step) + "\n")
            patch(root, None)
    finally:
        if burner is not None:
            burner.kill()
            burner.wait()
    table = render(results, loads, step)
    print(table)
    if not options.no_write:
        write_section(DOC, table)
    return 0


def render(results: dict[float, list[dict]], loads: dict[float, list[str]], step: float) -> str:
    runs = max(len(gates) for gates in results.values())
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `benchmarks/bench_perf.py` ({runs} runs "
        f"per case, the cases taking turns, legs: process = \"{PROCESS[0]}) on {os.cpu_count()} cores, {CONDITION[0]}; decode "
        f"step {step * 1000:.2f} ms CPU (unpatched). Load average is 1-minute, over the runs of the case.",
        "",
        "| slowdown | runs | red | green | inconclusive | other | median ratio [low, high] | median looks | "
        "gate seconds median / max | 1-min load min / median / max | target |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for percent, gates in results.items():
        if not gates:
            continue
        outcomes = [outcome(g) for g in gates]
        measured = [m for m in map(estimate, gates) if m]
        ratio = (f"{statistics.median(m['ratio'] for m in measured):.3f} [{statistics.median(m['low'] for m in measured):.3f}, "
                 f"{statistics.median(m['high'] for m in measured):.3f}]") if measured else "-"
        looks = [len(g["measured"]["looks"]) for g in gates if g.get("measured") and g["measured"].get("looks")]
        looks += [int(found[1]) for g in gates if not g.get("measured")
                  for found in [re.search(r"look (\d+) of", g.get("error") or "")] if found]
        other = len(outcomes) - sum(outcomes.count(k) for k in ("red", "green", "inconclusive"))
        seconds = [g["seconds"] for g in gates]
        one_minute = sorted(float(load.split("/")[0]) for load in loads[percent])
        target = {10.0: ">= 19/20 red", 0.0: "<= 1/20 red"}.get(percent, "inconclusive or green, never red")
        lines.append(f"| {percent:g}% | {len(gates)} | {outcomes.count('red')} | {outcomes.count('green')} | "
                     f"{outcomes.count('inconclusive')} | {other} | {ratio} | "
                     f"{statistics.median(looks) if looks else '-'} | {statistics.median(seconds):.1f} / {max(seconds):.1f} s | "
                     f"{one_minute[0]:.1f} / {statistics.median(one_minute):.1f} / {one_minute[-1]:.1f} | "
                     f"{target}, each <= 60 s |")
    calibration = [m for m in map(estimate, results.get(0.0, [])) if m]
    if calibration:  # with no slowdown the true ratio is 1: an interval that excludes it is a miscalibrated one
        above = sum(m["low"] > 1.0 for m in calibration)
        below = sum(m["high"] < 1.0 for m in calibration)
        lines += ["", f"A/A calibration (0%: the true ratio is 1): {above} of {len(calibration)} intervals lie wholly "
                      f"above 1 and {below} wholly below it; each bound is one-sided at 98.3% or more, so about 2% of "
                      "runs per side would if the rounds were independent."]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
