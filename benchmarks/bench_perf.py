"""Benchmark of the perf gate's detection power and false-alarm rate on this host, under background
load from another process (docs/perf.md, "Measured on this host").

A throwaway git project holds HEAD's engine, committed as ``main``, and one perf gate on the decode
bench chain (ratio of decode tokens per CPU second to ``main``'s, min_ratio 0.95, 14 rounds + 1
warm-up pair). Each case patches the working tree with a fixed CPU cost in every RMSNorm call sized
to slow a decode step by the case's percentage (0: no patch), then runs ``vtgate check -k perf``
``--runs`` times while a CPU burner runs beside it. A run is a detection when the gate is red, a
false alarm when it is red with no slowdown; inconclusive and noisy results are counted apart. The
preflight is not enforced (``quiet = false``): the point is to show what the statistic does under
load, which a preflight would refuse to time. Every row records the load average (1/5/15 min) at
the start and end of its case. Not a test: no assertions; the targets are listed beside the numbers.

    .venv/bin/python benchmarks/bench_perf.py [--runs 20] [--cases 10,0,3] [--no-write]
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
args = { prompt = "bench", tokens = 32, repeats = 2 }
metric = "timing.decode_cpu_tok_s"
min_ratio = 0.95
rounds = 14
warmup = 1
reference = { ref = "main" }
quiet = false
"""


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
        done = subprocess.run([sys.executable, "-m", "vtgate.probe_entry", "vtengine.probes:decode_timing", "--args",
                               json.dumps({"prompt": "bench", "tokens": 32, "repeats": 2})], cwd=root,
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


def run_gate(root: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-perf-") as tmp:
        out = Path(tmp) / "report.json"
        subprocess.run([VTGATE, "check", "--suite", str(root / "gates.toml"), "-k", "perf", "--json", str(out)],
                       cwd=root, capture_output=True, text=True)
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
    parser.add_argument("--cases", default="10,0,3", help="slowdowns in percent, comma-separated")
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    cases = [float(c) for c in options.cases.split(",")]
    burner = subprocess.Popen([sys.executable, "-c", "while True:\n    pass"])
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-perf-project-") as base:
            root = make_project(Path(base))
            step = decode_step_cpu_seconds(root)
            print(f"decode step {step * 1000:.2f} ms CPU; load {load_average()}", file=sys.stderr)
            for percent in cases:
                patch(root, step * percent / 100 / NORM_CALLS_PER_STEP if percent else None)
                load_before = load_average()
                results = []
                for number in range(options.runs):
                    gate = run_gate(root)
                    results.append(gate)
                    measured = estimate(gate) or {}
                    print(f"{percent:g}% run {number + 1}: {outcome(gate)} ratio {measured.get('ratio')} "
                          f"[{measured.get('low')}, {measured.get('high')}] {gate['seconds']:.1f} s; load {load_average()}",
                          file=sys.stderr)
                rows.append((percent, results, load_before, load_average()))
            patch(root, None)
    finally:
        burner.kill()
        burner.wait()
    table = render(rows, step, options.runs)
    print(table)
    if not options.no_write:
        write_section(DOC, table)
    return 0


def render(rows: list[tuple[float, list[dict], str, str]], step: float, runs: int) -> str:
    lines = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `benchmarks/bench_perf.py --runs {runs}` on "
        f"{os.cpu_count()} cores, a CPU burner running beside every run; decode step {step * 1000:.2f} ms CPU "
        "(unpatched). Load average is 1/5/15-minute, at the start and end of each case.",
        "",
        "| slowdown | runs | red | green | inconclusive | other | median ratio [low, high] | slowest gate | load start -> end | target |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for percent, results, before, after in rows:
        outcomes = [outcome(g) for g in results]
        measured = [m for m in map(estimate, results) if m]
        ratio = (f"{statistics.median(m['ratio'] for m in measured):.3f} [{statistics.median(m['low'] for m in measured):.3f}, "
                 f"{statistics.median(m['high'] for m in measured):.3f}]") if measured else "-"
        other = len(outcomes) - sum(outcomes.count(k) for k in ("red", "green", "inconclusive"))
        target = {10.0: ">= 19/20 red", 0.0: "<= 1/20 red"}.get(percent, "inconclusive, not forced")
        lines.append(f"| {percent:g}% | {len(results)} | {outcomes.count('red')} | {outcomes.count('green')} | "
                     f"{outcomes.count('inconclusive')} | {other} | {ratio} | {max(g['seconds'] for g in results):.1f} s | "
                     f"{before} -> {after} | {target}, each <= 60 s |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
