"""The judges: how one prepared worktree is judged, as a verdict per gate.

- ``CommandRunner``: any command, with ``git bisect run``'s exit codes (0 good, 125 untestable,
  1..127 except 125 bad, anything else aborts the bisection). One gate, named ``command``.
- ``GateRunner``: ``python -m vtgate check --suite <oracle> --root <worktree> --gate G... --json -``;
  each gate's status maps to a verdict (docs/contracts.md section 4): green / deliberate-red good,
  red / unexpected-green bad, error of kind probe/timeout untestable, any other error aborts (a stale
  import is never a verdict). Perf gates (docs/perf.md) are timed against GOOD's commit on the same
  host (``VTGATE_PERF_REFERENCE_REF``); one that comes back ``inconclusive`` or ``noisy`` is measured
  once more, and if still undecided the candidate is untestable for it (skip), never good or bad.

Children start through vtgate's ``proctree`` (the one registry and process-tree killer that vtgate
check's probes use): each in its own session so Ctrl-C reaches vtbisect first; ``kill_children``
ends every process tree still running, which the driver calls on its way out."""

from __future__ import annotations

import errno
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from vtgate.exitcodes import ExitCode
from vtgate.run.proctree import ChildProcesses

from vtbisect.cache import DEFAULT_KNOBS, Knobs
from vtbisect.judgecmd import CommandPlan, file_digest
from vtbisect.search import Verdict
from vtbisect.worktrees import Prepared

COMMAND_GATE = "command"
UNTESTABLE_EXIT = 125


class JudgeAbort(Exception):
    """The bisection cannot continue (bad command, stale import, broken suite)."""

    def __init__(self, message: str, exit_code: int = ExitCode.INTERNAL) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Judgement:
    """One run at one worktree: a verdict per gate, raw output, timing, and per-gate details."""

    verdicts: dict[str, Verdict]
    log: str
    seconds: float
    exit_code: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Runner(Protocol):
    gates: tuple[str, ...]
    knobs: Knobs  # which variables are knobs: part of every verdict's cache key

    def judge(self, prepared: Prepared) -> Judgement: ...

    def oracle_digest(self) -> str: ...

    def recipe(self) -> list[str]: ...


# Every judge's child process, so an interruption can kill them all (vtgate's registry and killer:
# the same one vtgate check uses for its probes).
_children = ChildProcesses()


def kill_children() -> None:
    """Kill every running child process tree (Ctrl-C, SIGTERM, abort) and start no new one. The
    judgement of a killed child raises ``JudgeAbort`` in its thread: a killed run is never a verdict
    (nor cached)."""
    _children.kill_all()


def note_children_in(ledger: Path) -> None:
    """Note every judge started from now on in ``ledger`` (a Dask worker's), so that the judges of a
    worker process killed under them are found and killed later (``proctree.sweep_orphans``)."""
    _children.ledger = ledger


def allow_children() -> None:
    """After ``kill_children``, let judges start again (``--fallback local``: the run goes on here)."""
    _children.resume()


def run_child(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str], timeout: float | None
) -> tuple[int | None, str, str, bool]:
    """Run ``argv``; returns (exit code or None on timeout, stdout, stderr, timed_out). On timeout
    the whole process tree is killed. A file with no #! line is run by /bin/sh, as the shell that
    git bisect run starts the command with does (ENOEXEC)."""
    try:
        proc = _children.start(argv, cwd=cwd, env=env)
    except OSError as error:
        if error.errno != errno.ENOEXEC:
            raise
        proc = _children.start(["/bin/sh", *argv], cwd=cwd, env=env)
    out, err, timed_out = _children.communicate(proc, timeout)
    if _children.was_killed(proc):
        raise JudgeAbort(f"{argv[0]} was killed: vtbisect is stopping", ExitCode.INTERNAL)
    code = None if timed_out else proc.returncode
    return code, out.decode(errors="replace"), err.decode(errors="replace"), timed_out


def child_env(base: Mapping[str, str], prepared: Prepared) -> dict[str, str]:
    env = dict(base)
    env["VTBISECT_COMMIT"] = prepared.commit
    env["VTBISECT_WORKTREE"] = str(prepared.path)
    env["VTBISECT_REVERTS"] = " ".join(prepared.reverts)
    env.update(prepared.env)
    return env


PYTHON_TOKEN = "{python}"  # in a command or setup argument: the interpreter of the candidate's environment
WORKTREE_PLACEHOLDER = "{worktree}"  # in a command or setup argument: the candidate's worktree


def placeholders(argv: Sequence[str], prepared: Prepared, default_python: str = sys.executable) -> list[str]:
    """``{python}`` and ``{worktree}`` replaced in each argument (an argv list: never a shell string)."""
    python = prepared.python or default_python
    return [arg.replace(PYTHON_TOKEN, python).replace(WORKTREE_PLACEHOLDER, str(prepared.path)) for arg in argv]


def command_verdict(code: int) -> Verdict:
    """git bisect run's rule; codes outside 0..127 abort (the caller checks first)."""
    if code == 0:
        return "good"
    if code == UNTESTABLE_EXIT:
        return "skip"
    return "bad"


@dataclass
class CommandRunner:
    """``vtbisect run GOOD..BAD -- CMD ARGS...``. With a ``plan`` (``judgecmd.resolve_command``) the
    command runs as git bisect run would run it (same subdirectory, your untracked copies, your
    checkout's import paths pointed at the worktree); without one, as given at the worktree root."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    timeout: float | None = None
    gates: tuple[str, ...] = (COMMAND_GATE,)
    plan: CommandPlan | None = None
    knobs: Knobs = DEFAULT_KNOBS

    def __post_init__(self) -> None:
        if not self.argv:
            raise JudgeAbort("no command given after --", ExitCode.USAGE)
        program = self.argv[0]
        if program == PYTHON_TOKEN:
            return  # the candidate's interpreter, known once its environment is built (vtbisect.build)
        if "/" not in program and shutil.which(program, path=self.env.get("PATH")) is None:
            raise JudgeAbort(
                f"command not found: {program!r} (not on PATH); give a path, e.g. ./test.sh",
                ExitCode.USAGE,
            )

    def oracle_digest(self) -> str:
        identity = dict(self.plan.identity) if self.plan else {}
        return json.dumps({"mode": "command", "argv": list(self.argv), "timeout": self.timeout,
                           "identity": identity}, sort_keys=True)

    def recipe(self) -> list[str]:
        return list(self.argv)

    def unchanged_judge(self, commit: str) -> None:
        """The judge's files outside the worktree still hold what they held when the run started (what
        every verdict so far, and the cache key, were made with); else the run stops, exit 2."""
        files: Mapping[str, str] = self.plan.identity.get("files", {}) if self.plan else {}
        for path, digest in files.items():
            try:
                now = file_digest(Path(path))
            except OSError:
                now = "missing"
            if now != digest:
                raise JudgeAbort(
                    f"the judge changed during the bisection: {path} had sha256 {digest} when the run started, "
                    f"and has {now} before judging {commit[:10]}; verdicts of two different judges cannot be "
                    "combined, so the run stops here; fix: leave the judge unchanged while vtbisect runs, then run "
                    "again (the verdict cache keys on the judge's content: a changed judge is judged afresh)",
                    ExitCode.USAGE)

    def judge(self, prepared: Prepared) -> Judgement:
        self.unchanged_judge(prepared.commit)
        start = time.monotonic()
        argv = placeholders(self.plan.argv_for(prepared.path) if self.plan else list(self.argv), prepared)
        cwd = self.plan.cwd_for(prepared.path) if self.plan else prepared.path
        env = child_env(self.env, prepared)
        if self.plan:
            env = self.plan.env_for(env, prepared.path)
        if not cwd.is_dir():
            log = (f"the folder {self.plan.subdir if self.plan else cwd} (your current directory) does not exist at "
                   f"{prepared.commit}: untestable (exit 125)")
            return Judgement({COMMAND_GATE: "skip"}, log, 0.0, exit_code=UNTESTABLE_EXIT)
        try:
            code, out, err, timed_out = run_child(argv, cwd, env, self.timeout)
        except (FileNotFoundError, PermissionError, NotADirectoryError) as error:
            raise JudgeAbort(cannot_run(argv[0], cwd, error), ExitCode.USAGE) from error
        seconds = time.monotonic() - start
        log = f"$ cd {cwd} && {' '.join(argv)}\n--- stdout ---\n{out}--- stderr ---\n{err}"
        if timed_out:
            return Judgement({COMMAND_GATE: "skip"}, log + f"\ntimed out after {self.timeout}s", seconds)
        assert code is not None
        if code < 0 or code > 127:
            raise JudgeAbort(
                f"command {' '.join(self.argv)!r} exited {code} at {prepared.commit[:10]}"
                " (outside 0..127: killed or crashed): bisection aborted, as git bisect run does",
                ExitCode.INTERNAL,
            )
        log += f"\nexit {code}"
        return Judgement({COMMAND_GATE: command_verdict(code)}, log, seconds, exit_code=code)


def cannot_run(program: str, cwd: Path, error: OSError) -> str:
    """Why ``program`` could not start at a candidate, with the fix."""
    path = Path(program) if Path(program).is_absolute() else cwd / program
    base = f"command {program!r} cannot be run in the worktree: {error.strerror or error}"
    if isinstance(error, PermissionError) and path.is_file():
        return f"{base}; fix: make it executable (chmod +x, and commit the mode) or name its interpreter (-- sh {program})"
    if isinstance(error, FileNotFoundError) and path.is_file():
        from vtbisect.judgecmd import read_shebang

        shebang = read_shebang(path.read_bytes()[:4096])
        if shebang is not None and shebang.line.endswith("\r"):
            return (f"{base}: its #! line ends in CRLF (Windows line endings), so the interpreter's name ends with a "
                    "carriage return; fix: convert it to LF line endings (dos2unix)")
        if shebang is not None:
            return (f"{base}: the interpreter on its first line ('#!{shebang.line}') does not exist at this "
                    "commit's run; fix: correct the #! line or name the interpreter in the command")
    return base


def package_digest(folder: Path) -> str:
    """sha256 over the Python sources of an installed package (what a judge's tool runs)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*.py")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


PERF_UNDECIDED_KINDS = {"inconclusive", "noisy"}  # a perf gate that could not tell: never good, never bad
PERF_REMEASURES = 1  # fresh measurements of an undecided perf gate before the candidate counts as untestable


def host_undecided(details: Mapping[str, Any]) -> bool:
    """Whether a perf gate of this evaluation could not tell on this host at this time (inconclusive or
    noisy): such a skip says nothing about the commit, so it is never cached: a later run on a quieter
    host measures again."""
    return any(isinstance(d, Mapping) and d.get("error_kind") in PERF_UNDECIDED_KINDS for d in details.values())


PERF_REFERENCE_ENV = "VTGATE_PERF_REFERENCE_REF"  # read by vtgate.perf.legs: the reference revision to time against

GOOD_STATUSES = {"green", "deliberate-red"}
BAD_STATUSES = {"red", "unexpected-green"}
SKIP_ERROR_KINDS = {"probe", "timeout"}
ARTIFACT_ERROR_KIND = "artifact"


def gate_verdict(entry: Mapping[str, Any]) -> Verdict:
    """Map one gate of a ``vtgate check`` report to a verdict; raises JudgeAbort on stale/config."""
    status = entry.get("status")
    if status == "error" and entry.get("error_kind") in PERF_UNDECIDED_KINDS:
        return "skip"  # the interval straddled the threshold or the host was busy: untestable, never a verdict
    if status in GOOD_STATUSES:
        return "good"
    if status in BAD_STATUSES:
        return "bad"
    kind = entry.get("error_kind")
    if status == "error" and kind in SKIP_ERROR_KINDS:
        return "skip"
    if status == "error" and kind == ARTIFACT_ERROR_KIND:
        return "bad"  # the candidate derives other artifacts (weights) than the pins were blessed with
    raise JudgeAbort(
        f"gate {entry.get('name')} errored ({kind or status}): {entry.get('error') or 'no message'}"
        " — this is never a verdict; fix the suite or the checkout and re-run",
        ExitCode.INTERNAL,
    )


@dataclass
class GateRunner:
    """Gate mode: the oracle (suite + goldens) is fixed; the worktree is the code under test."""

    suite: Path
    gates: tuple[str, ...]
    env: Mapping[str, str]
    digest: str
    timeout: float | None = None
    deliberate: frozenset[str] = frozenset()  # gates the suite marks deliberate red
    oracle_source: str = "the checkout"
    python: str = sys.executable
    knobs: Knobs = DEFAULT_KNOBS
    artifacts: tuple[str, ...] = ()  # [suite] artifacts: untracked files (weights) a worktree lacks
    artifacts_root: Path | None = None  # where they are: the user's checkout
    perf_gates: frozenset[str] = frozenset()  # gates of kind perf: timed against ``perf_reference``
    perf_reference: str | None = None  # GOOD's commit, once the range is known
    leaks: CommandPlan | None = None  # your checkout's folders on PATH / PYTHONPATH, pointed at the worktree

    def argv(self, root: Path, gates: Sequence[str] | None = None) -> list[str]:
        gate_args = [arg for gate in (gates or self.gates) for arg in ("--gate", gate)]
        return [self.python, "-m", "vtgate", "check", "--suite", str(self.suite), "--root", str(root),
                *gate_args, "--json", "-"]

    def oracle_digest(self) -> str:
        if not hasattr(self, "_identity"):
            import vtgate

            from vtbisect.judgecmd import interpreter_version

            # The judge outside the candidate tree: this interpreter and the vtgate that runs check.
            self._identity = {"python": self.python, "version": interpreter_version(self.python, self.env),
                              "vtgate": package_digest(Path(vtgate.__file__).parent),
                              "artifacts": self._artifact_digests(),
                              "leaks": dict(self.leaks.identity) if self.leaks else {}}
        identity = {"mode": "gate", "suite": self.digest, "gates": sorted(self.gates), "timeout": self.timeout,
                    "identity": self._identity}
        if self.perf_gates and self.perf_reference:  # a perf verdict is a ratio to this commit's speed
            identity["perf_reference"] = self.perf_reference
        return json.dumps(identity, sort_keys=True)

    def _artifact_digests(self) -> dict[str, str]:
        """sha256 of each ``[suite] artifacts`` file: other weights are another judge (cache key)."""
        if self.artifacts_root is None:
            return {}
        found = {}
        for pattern in self.artifacts:
            for path in sorted(self.artifacts_root.glob(pattern)):
                if path.is_file():
                    digest = hashlib.sha256()
                    with path.open("rb") as handle:
                        for block in iter(lambda: handle.read(1 << 20), b""):
                            digest.update(block)
                    found[path.relative_to(self.artifacts_root).as_posix()] = digest.hexdigest()
        return found

    def recipe(self) -> list[str]:
        return self.argv(Path("<worktree>"))

    def _check(self, prepared: Prepared, gates: Sequence[str]) -> tuple[dict[str, Any] | None, str, int | None]:
        """One ``vtgate check`` of ``gates`` at the worktree: the report (None on timeout), its log and
        the exit code."""
        argv = self.argv(prepared.path, gates)
        env = child_env(self.env, prepared)
        if self.leaks:
            env = self.leaks.env_for(env, prepared.path)
        if self.perf_gates & set(gates) and self.perf_reference:
            env[PERF_REFERENCE_ENV] = self.perf_reference
        code, out, err, timed_out = run_child(argv, prepared.path, env, self.timeout)
        log = f"$ {' '.join(argv)}\n--- stdout ---\n{out}--- stderr ---\n{err}\nexit {code}"
        if timed_out:
            return None, log + "\ntimed out", code
        try:
            return json.loads(out), log, code
        except ValueError as error:
            raise JudgeAbort(
                f"vtgate check at {prepared.commit[:10]} exited {code} without a JSON report:\n{err[-2000:]}"
            ) from error

    def judge(self, prepared: Prepared) -> Judgement:
        start = time.monotonic()
        if self.artifacts and self.artifacts_root is not None:
            from vtgate.mutate.copies import link_artifacts

            link_artifacts(self.artifacts_root, self.artifacts, prepared.path)  # removed by the next clean
        report, log, code = self._check(prepared, self.gates)
        if report is None:
            return Judgement({g: "skip" for g in self.gates}, log, time.monotonic() - start)
        by_name = {entry.get("name"): entry for entry in report.get("gates", [])}
        for remeasure in range(1, PERF_REMEASURES + 1):
            undecided = [g for g in self.gates if g in self.perf_gates
                         and by_name.get(g, {}).get("error_kind") in PERF_UNDECIDED_KINDS]
            if not undecided:
                break
            again, again_log, _ = self._check(prepared, undecided)
            log += f"\n# perf re-measure {remeasure} of {', '.join(undecided)} (undecided: inconclusive or noisy)\n{again_log}"
            for entry in (again or {}).get("gates", []):
                by_name[entry.get("name")] = entry
        verdicts: dict[str, Verdict] = {}
        details: dict[str, Any] = {}
        for gate in self.gates:
            entry = by_name.get(gate)
            if entry is None:
                raise JudgeAbort(f"vtgate check did not report gate {gate!r}", ExitCode.USAGE)
            verdicts[gate] = gate_verdict(entry)
            details[gate] = {k: entry.get(k) for k in ("status", "summary", "error_kind", "error", "ambient_env")}
            if gate in self.perf_gates:
                details[gate]["measured"] = entry.get("measured")
                log += "\n" + perf_evidence(gate, entry, verdicts[gate])
        return Judgement(verdicts, log, time.monotonic() - start, exit_code=code, details=details)


def perf_evidence(gate: str, entry: Mapping[str, Any], verdict: Verdict) -> str:
    """The per-leg evidence of one perf gate at one candidate, as text for the step's log."""
    lines = [f"# perf evidence: {gate} -> {verdict} ({entry.get('status')}"
             + (f", {entry.get('error_kind')}" if entry.get("error_kind") else "") + ")",
             str(entry.get("summary") or entry.get("error") or "")]
    measured = entry.get("measured") or {}
    reference = measured.get("reference") or {}
    if reference.get("commit"):
        lines.append(f"reference: {reference.get('ref')} = {reference['commit']}")
    for look in measured.get("looks") or []:
        lines.append(f"look at {look['rounds']} rounds: ratio {look['ratio']:.4f} [{look['low']:.4f}, "
                     f"{look['high']:.4f}] {look['decision']}")
    for value in measured.get("values") or []:
        when = "warm-up" if value.get("round") is None else f"round {value['round'] + 1}"
        lines.append(f"leg {value.get('leg')}: {value.get('role')} {when} worker {value.get('worker')} "
                     f"value {value.get('value')} load/core {value.get('load_per_core')} "
                     f"other CPU/core {value.get('other_cpu_per_core')}")
    return "\n".join(lines) + "\n"
