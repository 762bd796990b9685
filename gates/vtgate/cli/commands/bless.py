"""``vtgate bless GATE... --reason TEXT``: re-measure golden-file pins, show old -> new in each kind's
terms, and write the new golden with provenance and one more history entry (atomically).
``--dry-run`` shows the diff and writes nothing."""

from __future__ import annotations

from pathlib import Path

import typer

from vtgate.cli.app import app
from vtgate.cli.commands.check import ISOLATE_OPTION, ROOT_OPTION, SUITE_OPTION, config_error
from vtgate.cli.progress import live_progress, progress_wanted
from vtgate.errors import GateError, SuiteError
from vtgate.exitcodes import ExitCode
from vtgate.kinds import get_kind
from vtgate.output import console, problem, say
from vtgate.run.check import measure_gates
from vtgate.suite.goldens import blessed, display_path, load_golden, provenance, write_golden
from vtgate.suite.load import load_suite, require_artifacts, select_gates


@app.command()
def bless(
    gates: list[str] = typer.Argument(None, help="Gates whose golden files to re-measure."),
    all_gates: bool = typer.Option(False, "--all", help="Every gate that keeps a golden file (instead of naming them)."),
    reason: str = typer.Option(None, "--reason", help="Why the pin moves (kept in the golden's history)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show old -> new; write nothing."),
    suite: Path = SUITE_OPTION,
    root: Path = ROOT_OPTION,
    jobs: int = typer.Option(None, "-j", "--jobs", min=1, help="Probe runs in parallel (default: cores)."),
    isolate_env: bool = ISOLATE_OPTION,
) -> int:
    """Re-measure and re-pin golden files, with a reason."""
    if not dry_run and not (reason and reason.strip()):
        problem("bless needs --reason TEXT", "say why the pin moves (e.g. --reason "
                "\"restored default arm re-pins the anchor, #3518\"); it is kept in the golden's history")
        return int(ExitCode.USAGE)
    if bool(gates) == all_gates:
        problem("bless needs the gates to re-measure", "name them (vtgate bless GATE... --reason ...) or pass "
                "--all for every gate that keeps a golden file, not both")
        return int(ExitCode.USAGE)
    try:
        loaded = load_suite(suite)
        specs = select_gates(loaded, gates or None)
    except SuiteError as error:
        raise config_error(error) from None
    if all_gates:
        specs = [s for s in specs if get_kind(s.kind).pin_source == "golden"]
    refused = [s for s in specs if get_kind(s.kind).pin_source != "golden"]
    for spec in refused:
        kind = get_kind(spec.kind)
        where = "its bands are pinned inline: edit them at " + spec.where if kind.pin_source == "inline" else \
            "it compares runs with each other and has no pin"
        problem(spec.name, f"kind '{spec.kind}' has no golden file to bless; {where}")
    specs = [s for s in specs if s not in refused]
    root_path = root.resolve() if root is not None else loaded.root
    try:
        require_artifacts(loaded, root_path)
    except SuiteError as error:
        raise config_error(error) from None
    with live_progress(console, progress_wanted()) as progress:
        measured = measure_gates(specs, loaded, root=root_path, jobs=jobs, isolate_env=isolate_env or None,
                                 progress=progress)
    failures = len(refused)
    for spec in specs:
        kind = get_kind(spec.kind)
        runs = measured[spec.name]
        assert spec.golden is not None
        shown = display_path(spec.golden, loaded.root)
        try:
            if isinstance(runs, GateError):
                raise runs
            broken = runs.first_error()
            if broken is not None:
                raise broken
            observations = runs.observations
            new_pin = kind.pin_from(spec, observations)
            old = load_golden(spec.golden, spec.name, loaded.root) if spec.golden.is_file() else None
        except GateError as error:
            problem(spec.name, f"cannot bless ({error.kind}): {error.message}", style="bold magenta")
            failures += 1
            continue
        meta = next(iter(observations.values()), {}).get("meta")
        artifacts = dict(meta.get("artifacts") or {}) if isinstance(meta, dict) else {}
        same_artifacts = old is not None and dict(old.provenance.get("artifacts") or {}) == artifacts
        if old is not None and dict(old.value) == new_pin and same_artifacts:
            say(f"{spec.name}: unchanged ({kind.describe_pin(new_pin)}); {shown} left as it is")
            continue
        if old is not None and dict(old.value) == new_pin:
            before = dict(old.provenance.get("artifacts") or {})
            change = (f"unchanged ({kind.describe_pin(new_pin)}); provenance.artifacts "
                      f"{_artifacts(before)} -> {_artifacts(artifacts)}")
        else:
            change = kind.describe_change(old.value, new_pin) if old else f"new golden: {kind.describe_pin(new_pin)}"
        say(f"{spec.name}: {change}")
        if dry_run:
            say(f"  (dry run: {shown} not written)")
            continue
        record = provenance(root_path, dict(spec.env), reason.strip(), meta if isinstance(meta, dict) else None,
                            ambient=runs.ambient_env)
        if runs.ambient_env:
            shell = " ".join(f"{k}={v}" for k, v in runs.ambient_env.items())
            console.print(f"  measured under ambient knobs from your shell: {shell} (kept in provenance.ambient_env)",
                          markup=False)
        golden = blessed(old, spec.name, spec.tier, new_pin, record,
                         kind.describe_pin(old.value) if old else None, kind.describe_pin(new_pin))
        write_golden(spec.golden, golden)
        say(f"  wrote {shown} (history: {len(golden.history)} entries)")
    if failures > len(refused):
        return int(ExitCode.INTERNAL)
    return int(ExitCode.USAGE if refused else ExitCode.OK)


def _artifacts(found: dict[str, str]) -> str:
    return ", ".join(f"{name} {digest[:12]}" for name, digest in sorted(found.items())) or "(none)"
