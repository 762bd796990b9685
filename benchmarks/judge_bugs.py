"""Judge a folder of hand-written engine bugs with the committed suite: for each ``NN.patch``, a
detached worktree of HEAD with the patch applied, ``vtgate check --root <worktree>``, and the gates
that went red (or the exit code when the suite could not run). A bug is **killed** when the check
exits 1 (a gate red) or 3 (a probe crashed on the bugged engine: the suite saw it); it **survives**
on exit 0. A patch that no longer applies is reported, not counted. The clean tree is checked first
with the whole suite: a gate that is red (or a probe that crashes) without any patch would "kill"
every bug, so the script stops there, naming it.

    .venv/bin/python benchmarks/judge_bugs.py BUGS_FOLDER [--json OUT] [-j 2] [--only 01,02] [--first G,G]

``--first`` runs those gates alone first; a bug they kill is killed (by a gate of the suite) and the
rest of the suite is not run for it; a bug they leave green gets the whole suite. Same verdicts, less
time: each bug's JSON says which run decided it (``decided_by``: "first" or "suite").

Prints one line per bug and the kill rate; the JSON has every bug's exit code and red gates. Ctrl-C or
SIGTERM stops the running check (SIGTERM to vtgate) and removes the worktree and the scratch folder.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VTGATE = str(Path(sys.executable).parent / "vtgate")


def git(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


def _check(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """One ``vtgate check``; if this script is interrupted or stopped meanwhile, vtgate gets SIGTERM (it
    ends its probes and removes its folders) and 15 s to exit before it is killed."""
    process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate(timeout=1800)
    except BaseException:
        process.terminate()
        try:
            process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
        raise
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)


def judge(patch: Path | None, jobs: int, scratch: Path, first: list[str]) -> dict[str, object]:
    """``patch`` applied to a worktree of HEAD and judged (None: the clean tree, the whole suite)."""
    name = patch.stem if patch is not None else "clean"
    tree = scratch / name
    added = git("worktree", "add", "--detach", str(tree), "HEAD")
    if added.returncode:
        raise SystemExit(f"git worktree add failed: {added.stderr}")
    try:
        applied = git("apply", str(patch.resolve()), cwd=tree) if patch is not None else None
        if applied is not None and applied.returncode:
            return {"bug": name, "status": "does not apply", "detail": applied.stderr.strip()}
        started = time.perf_counter()
        runs = [("first", [a for g in first for a in ("-g", g)])] if first else []
        runs.append(("suite", []))
        for decided_by, selection in runs:
            report = scratch / f"{name}-{decided_by}.json"
            done = _check([VTGATE, "check", "--suite", str(REPO / "goldens" / "gates.toml"), "--root", str(tree),
                           "-j", str(jobs), *selection, "--json", str(report)])
            if done.returncode in (1, 3):
                break
        seconds = time.perf_counter() - started
        red: list[str] = []
        if report.exists():
            data = json.loads(report.read_text())
            red = [g["name"] for g in data.get("gates", []) if g.get("status") not in ("green", "skipped")]
        status = {0: "survived", 1: "killed", 3: "killed (a probe crashed)"}.get(done.returncode,
                                                                              f"exit {done.returncode}")
        return {"bug": name, "status": status, "exit": done.returncode, "red": red, "decided_by": decided_by,
                "seconds": round(seconds, 1), "stderr_tail": done.stderr.strip().splitlines()[-3:]}
    finally:
        git("worktree", "remove", "--force", str(tree))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument("-j", type=int, default=2)
    parser.add_argument("--only", default="")
    parser.add_argument("--first", default="", help="comma-separated gates to run alone first")
    args = parser.parse_args()
    # SIGTERM ends the script as Ctrl-C does: the running check stopped, its worktree and the scratch removed
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    patches = sorted(args.folder.glob("*.patch"))
    if args.only:
        wanted = set(args.only.split(","))
        patches = [p for p in patches if p.stem in wanted]
    if not patches:
        raise SystemExit(f"no *.patch in {args.folder}")
    scratch = Path(tempfile.mkdtemp(prefix="judge-bugs-"))
    results = []
    try:
        clean = judge(None, args.j, scratch, [])
        if clean["exit"] != 0:
            raise SystemExit(f"the suite is not green on the clean tree (HEAD): exit {clean['exit']}, red "
                             f"{', '.join(clean['red']) or 'none'} ({clean['stderr_tail']}); every bug would "  # type: ignore[arg-type]
                             "count as killed by it: fix the suite (or the tree) first")
        print(f"clean tree: green in {clean['seconds']} s", flush=True)
        for patch in patches:
            result = judge(patch, args.j, scratch, [g for g in args.first.split(",") if g])
            results.append(result)
            print(f"{result['bug']}: {result['status']} {' '.join(result.get('red', []))}", flush=True)  # type: ignore[arg-type]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        git("worktree", "prune")
    counted = [r for r in results if str(r["status"]).startswith(("killed", "survived"))]
    killed = sum(1 for r in counted if str(r["status"]).startswith("killed"))
    print(f"killed {killed} of {len(counted)} ({100.0 * killed / max(len(counted), 1):.1f}%); "
          f"{len(results) - len(counted)} not counted")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "killed": killed, "counted": len(counted)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
