"""``vtgate init``: a first gate suite for an engine of your own. Given how to run it (``--python
MODULE:FUNC`` or ``--command '...'``), it writes ``vtgate.toml``, a probes module (``vtgate_probes.py``)
that turns the engine's output into observations, strict / teacher-forced / logits gates, one
invariance gate per knob measured not to change the logits, an envdoc gate, and a
``docs/ENVIRONMENT.md`` pre-filled from the env reads the envdoc scanner finds. It never overwrites a
file without ``--force`` (exit 2 naming it). Then ``vtgate bless --all --reason "initial"`` and
``vtgate check`` is green (docs/own-engine.md)."""

from __future__ import annotations

import json
import re
import shlex
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import typer

from vtgate.cli.app import app
from vtgate.envdoc import EnvdocError
from vtgate.envdoc.scan import discover, scan_all
from vtgate.exitcodes import ExitCode
from vtgate.output import problem, say
from vtgate.run.execute import AmbientEnv, ProbeKey, run_one
from vtgate.suite.records import ProbeRef, ProbeRequest, SuiteSettings
from vtgate.treehash import source_tree_hash

PROBES_MODULE = "vtgate_probes"
DOC = Path("docs") / "ENVIRONMENT.md"
PROTOCOL_PREFIX = "VTGATE_"  # vtgate's own variables (VTGATE_PROBE_ARGS): never a knob of the engine


@dataclass(frozen=True)
class Knob:
    """An env read the scanner found: name, literal default (None when unset or computed), where."""

    name: str
    default: str | None
    where: str


@dataclass(frozen=True)
class Measured:
    """What measuring a knob showed: ``values`` measured (the probe ran), whether the logits stayed
    identical, the values that changed them, and the values whose run failed (left out)."""

    values: tuple[str, ...]
    invariant: bool | None  # None: not measured (no candidate values, every other value failed, or --no-measure)
    changed: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()


def find_knobs(root: Path, prefix: str | None) -> tuple[list[Knob], str | None]:
    """Env reads under ``root`` (the envdoc scanner) and the knob prefix: ``prefix`` if given, else the
    most common ``WORD_`` among the names read (vtgate's own VTGATE_ variables left out)."""
    files = [(path, shown) for path, shown in discover(root, ["."], (), ())
             if Path(shown).name != f"{PROBES_MODULE}.py"]
    reads = [read for scan in scan_all(files, (), 1) for read in scan.reads if read.name]
    names = [r.name for r in reads if r.name and not r.name.startswith(PROTOCOL_PREFIX)]
    if prefix is None:
        heads = Counter(name.split("_")[0] + "_" for name in names if "_" in name)
        prefix = heads.most_common(1)[0][0] if heads else None
    knobs: dict[str, Knob] = {}
    for read in reads:
        if read.name and prefix and read.name.startswith(prefix) and read.name not in knobs:
            default = read.default if read.default_kind == "literal" else None
            if default is not None and len(default) >= 2 and default[0] == default[-1] and default[0] in "'\"":
                default = default[1:-1]
            knobs[read.name] = Knob(read.name, default, f"{read.file}:{read.line}")
    return sorted(knobs.values(), key=lambda k: k.name), prefix


def candidate_values(default: str | None) -> tuple[str, ...]:
    """Values to measure a knob at: its default and its neighbours ("0": "1"; "1": "0" and "2"; other
    integers +1; true/false swapped). Other knobs (names of arms, paths) are not guessed."""
    if default is None:
        return ()
    swaps = {"true": "false", "false": "true", "True": "False", "False": "True", "on": "off", "off": "on"}
    if default in swaps:
        return (default, swaps[default])
    if default == "0":
        return ("0", "1")
    if default == "1":  # a flag (0 is the other value) or a count (2 is the next): both are tried
        return ("1", "0", "2")
    if default.lstrip("-").isdigit():
        return (default, str(int(default) + 1))
    return ()


def probes_module(python: str | None, command: Sequence[str] | None, source_tree: str | None) -> str:
    """The text of ``vtgate_probes.py``: ``generate`` and ``teacher_forced`` calling the engine."""
    head = ('"""Probes of this project\'s engine for vtgate, written by `vtgate init` (edit freely; '
            "docs/own-engine.md).\n\n"
            "generate(prompt, tokens) and teacher_forced(prompt, reference) call the engine and return an\n"
            "observation: what the engine gives back is used as it is when it is already an observation\n"
            "(a dict with margins or digests), else (tokens, logits) -- a pair, or a dict with \"tokens\" and\n"
            '"logits" -- goes through vtgate.probe.observation (margins, digests, per-step cases, meta)."""\n\n')
    imports = ["from __future__ import annotations", ""]
    body: list[str] = []
    if command is not None:
        imports += ["import json", "import os", "import subprocess", "import sys"]
        body += [
            f"COMMAND = {json.dumps(list(command))}  # {{python}}: the interpreter this probe runs under",
            "",
            "",
            "def _engine(**args):",
            '    """Run the engine command with its arguments as JSON in VTGATE_PROBE_ARGS; its stdout is JSON."""',
            '    argv = [part.replace("{python}", sys.executable) for part in COMMAND]',
            '    env = {**os.environ, "VTGATE_PROBE_ARGS": json.dumps(args)}',
            "    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)",
            "    sys.stderr.write(done.stderr)",
            "    if done.returncode != 0:",
            '        raise SystemExit(f"engine command {argv} exited with status {done.returncode}")',
            "    return json.loads(done.stdout)",
        ]
    else:
        assert python is not None
        module, _, function = python.partition(":")
        body += [f"from {module} import {function} as _engine  # called as _engine(prompt=..., tokens=N) "
                 "or _engine(prompt=..., reference=...)"]
    imports += ["", "from vtgate.probe import observation", "from vtgate.treehash import source_tree_hash", ""]
    tree = "None" if source_tree is None else json.dumps(source_tree)
    body += [
        "",
        "",
        f"SOURCE_TREE = {tree}  # under the tree under test (probes run there): meta.source_tree_hash, the stale guard",
        "",
        "",
        "def _observation(result):",
        '    if isinstance(result, dict) and ("margins" in result or "digests" in result):',
        "        meta = result.setdefault(\"meta\", {})",
        "        if SOURCE_TREE is not None and \"source_tree_hash\" not in meta:  # the stale guard needs it",
        "            meta[\"source_tree_hash\"] = source_tree_hash(SOURCE_TREE)",
        "        return result",
        "    if isinstance(result, dict):",
        '        tokens, logits = result.get("tokens"), result.get("logits")',
        "    else:",
        "        tokens, logits = result",
        "    return observation(tokens, logits, source_tree=SOURCE_TREE)",
        "",
        "",
        "def generate(prompt, tokens):",
        '    """Greedy generation: the tokens and the logits each was chosen from."""',
        "    return _observation(_engine(prompt=prompt, tokens=tokens))",
        "",
        "",
        "def teacher_forced(prompt, reference):",
        '    """The argmax and logits at each position of prompt + reference."""',
        "    return _observation(_engine(prompt=prompt, reference=reference))",
    ]
    return head + "\n".join(imports + body) + "\n"


def _toml(value: object) -> str:
    """A TOML value for strings, numbers, lists and flat tables (JSON strings are valid TOML strings)."""
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)


def _key(name: object) -> str:
    text = str(name)
    return text if text.replace("_", "").replace("-", "").isalnum() else json.dumps(text)


def suite_text(*, prefix: str | None, pythonpath: Sequence[str], source_tree: str | None, prompt: str,
               tokens: int, reference: str, knobs: Sequence[Knob], measured: Mapping[str, Measured]) -> str:
    generate = f"{PROBES_MODULE}:generate"
    args = {"prompt": prompt, "tokens": tokens}
    lines = ["# The gate suite of this engine, written by `vtgate init` (docs/own-engine.md, docs/suite-format.md).",
             '# Next: vtgate bless --all --reason "initial" && vtgate check', "", "[suite]",
             f"pythonpath = {_toml(list(pythonpath))}"]
    if source_tree:
        lines.append(f"source_tree = {_toml(source_tree)}")
    if prefix:
        lines.append(f"knob_prefixes = {_toml([prefix])}")
    lines += ['# python = ".venv/bin/python"   # the interpreter probes run under (default: the one running vtgate)',
              "timeout = 300"]
    if prefix:
        lines += ["", "[envdoc]", f"prefix = {_toml(prefix)}"]

    def gate(name: str, kind: str, comment: str, **keys: object) -> None:
        lines.extend(["", f"# {comment}", "[[gate]]", f"name = {_toml(name)}", f"kind = {_toml(kind)}"])
        lines.extend(f"{key} = {_toml(value)}" for key, value in keys.items())

    gate("generate-strict", "golden", "every generated token, exactly", mode="strict", probe=generate, args=args)
    gate("teacher-forced", "golden", "the argmax at each position of a fixed reference; a flip where the golden's "
         "top-1/top-2 margin was below near_tie_eps is a near tie", mode="teacher-forced", near_tie_eps=0.01,
         max_near_tie_flips=0, max_hard_flips=0, probe=f"{PROBES_MODULE}:teacher_forced",
         args={"prompt": prompt, "reference": reference})
    gate("generate-logits", "golden", "each step's logits, bit for bit (per-step digests)", mode="logits",
         probe=generate, args=args)
    gate("generate-logits-close", "golden", "each step's logits within a tolerance (for other hardware and "
         "libraries); the first divergent step and its size in the verdict", mode="logits", atol=1e-3, rtol=1e-3,
         top_k=5, probe=generate, args=args)
    for knob in knobs:
        result = measured.get(knob.name)
        if result is not None and result.invariant:
            gate(f"invariant-over-{knob.name}", "invariance",
                 f"{knob.name} ({knob.where}) was measured not to change the logits at {', '.join(result.values)}",
                 probe=generate, args=args, invariant_over={knob.name: list(result.values)})
    if prefix:
        gate("envdoc", "envdoc", f"every {prefix}* knob the source reads has a row in docs/ENVIRONMENT.md")
    for knob in knobs:
        result = measured.get(knob.name)
        if result is not None and result.invariant is False:
            value = result.changed[0]
            lines.extend(["", f"# vtgate mutate: {knob.name}={value} was measured to change the logits, so the exact "
                          "logits gate must go red under it", "[[mutation]]",
                          f"name = {_toml(knob.name + '-' + re.sub(r'[^A-Za-z0-9_.-]', '-', value))}", 'kind = "env"',
                          f"env = {_toml({knob.name: value})}", 'expect = { generate-logits = "red" }'])
    return "\n".join(lines) + "\n"


def environment_text(knobs: Sequence[Knob], measured: Mapping[str, Measured], prefix: str | None) -> str:
    lines = ["# Environment knobs", "",
             f"Every {prefix or ''}* environment variable the engine reads, one row each, pre-filled by `vtgate init` "
             "from the env reads it found. `vtgate envdoc` (and the suite's envdoc gate) checks this table both "
             "ways against the code. Fill in each effect; *bit-exact with default?* says whether setting the "
             "knob may change numerics.", "",
             "| name | default | effect | bit-exact with default? |", "|---|---|---|---|"]
    for knob in knobs:
        result = measured.get(knob.name)
        if result is None or result.invariant is None:
            exact = "unknown (not measured)"
        elif result.invariant:
            exact = f"yes (measured by vtgate init at {', '.join(result.values)})"
        else:
            exact = f"no (measured by vtgate init: {knob.name}={result.changed[0]} changes the logits)"
        default = knob.default if knob.default is not None else "(unset)"
        lines.append(f"| {knob.name} | {default.replace('|', chr(92) + '|')} | read at {knob.where}; describe its "
                     f"effect | {exact} |")
    return "\n".join(lines) + "\n"


def measure(root: Path, settings: SuiteSettings, knobs: Sequence[Knob], args: Mapping[str, object],
            timeout: float) -> tuple[dict[str, Measured], str | None]:
    """Run ``generate`` at each knob's candidate values (one process each, the caller's knobs withheld)
    and compare the logits digests; returns the findings, or the plain run's error. A run that fails
    at another value of a knob (``THREADS=0``) leaves that value out, it does not stop init."""
    ambient = AmbientEnv.of(settings, frozenset(k.name for k in knobs), isolated=True)
    probe = ProbeRef(callable=f"{PROBES_MODULE}:generate")
    found: dict[str, Measured] = {}

    def digest(env: Mapping[str, str]) -> tuple[str | None, str | None]:
        key = ProbeKey.of(ProbeRequest("init", probe, dict(args), dict(env)), root)
        result = run_one(key, root, settings, timeout, ambient=ambient)
        if result.observation is None:
            return None, result.error
        digests = result.observation.get("digests")
        value = digests.get("logits") if isinstance(digests, Mapping) else None
        return str(value or json.dumps(result.observation.get("tokens"))), None

    baseline, error = digest({})
    if error is not None:
        return found, error
    for knob in knobs:
        values = candidate_values(knob.default)
        if not values:
            found[knob.name] = Measured((), None)
            continue
        ran: list[str] = []
        changed: list[str] = []
        failed: list[str] = []
        for value in values:
            measured, error = digest({knob.name: value})
            if error is not None:
                failed.append(value)
                continue
            ran.append(value)
            if measured != baseline:
                changed.append(value)
        known = len(ran) >= 2 or bool(changed)
        found[knob.name] = Measured(tuple(ran), (not changed) if known else None, tuple(changed), tuple(failed))
    return found, None


@app.command()
def init(
    python: str = typer.Option(None, "--python", help="The engine as a Python callable MODULE:FUNC returning "
                               "(tokens, logits) or an observation."),
    command: str = typer.Option(None, "--command", help="The engine as a command: reads VTGATE_PROBE_ARGS (JSON), "
                                "prints {\"tokens\", \"logits\"} or an observation; {python} = this interpreter."),
    directory: Path = typer.Option(Path("."), "--dir", help="The project folder to write into."),
    prefix: str = typer.Option(None, "--prefix", help="The engine's knob prefix (default: the most common one read)."),
    source_tree: str = typer.Option(None, "--source-tree", help="The engine's package folder (enables the stale guard)."),
    pythonpath: list[str] = typer.Option(None, "--pythonpath", help="Source roots for probes (default: the project)."),
    prompt: str = typer.Option("The quick brown fox", "--prompt", help="Prompt of the generated gates."),
    tokens: int = typer.Option(16, "--tokens", min=1, help="Tokens the generation gates decode."),
    reference: str = typer.Option(" jumps over the lazy dog", "--reference", help="Teacher-forced continuation."),
    no_measure: bool = typer.Option(False, "--no-measure", help="Do not run the engine to find invariant knobs."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that exist."),
) -> int:
    """Write a first gate suite (vtgate.toml, a probes module, docs/ENVIRONMENT.md) for your engine."""
    if (python is None) == (command is None):
        problem("init needs the engine", "pass --python MODULE:FUNC or --command '...', exactly one")
        return int(ExitCode.USAGE)
    if python is not None:
        module, _, function = python.partition(":")
        if not (module and function and all(p.isidentifier() for p in module.split(".")) and function.isidentifier()):
            problem("init", f"--python {python!r} is not MODULE:FUNC (e.g. myengine.api:run)")
            return int(ExitCode.USAGE)
    argv = shlex.split(command) if command is not None else None
    if argv is not None and not argv:
        problem("init", "--command is empty; give the command that runs your engine, e.g. '{python} run.py'")
        return int(ExitCode.USAGE)
    root = directory.resolve()
    if not root.is_dir():
        problem("init", f"--dir {directory} is not a folder")
        return int(ExitCode.USAGE)
    if source_tree is not None and not (root / source_tree).is_dir():
        problem("init", f"--source-tree {source_tree}: {root / source_tree} is not a folder")
        return int(ExitCode.USAGE)
    targets = [root / "vtgate.toml", root / f"{PROBES_MODULE}.py", root / DOC]
    existing = [path for path in targets if path.exists()]
    if existing and not force:
        shown = ", ".join(str(path) for path in existing)
        problem("init", f"{shown} already exists; nothing written. Move it away or pass --force to overwrite")
        return int(ExitCode.USAGE)
    try:
        knobs, knob_prefix = find_knobs(root, prefix)
    except EnvdocError as error:
        problem("init", f"scanning {root} for env reads failed: {error}")
        return int(ExitCode.USAGE)
    paths = tuple(pythonpath or ["."])
    module_text = probes_module(python, argv, source_tree)
    measured: dict[str, Measured] = {}
    if not no_measure:
        import tempfile

        with tempfile.TemporaryDirectory(prefix="vtgate-init-") as scratch:
            (Path(scratch) / f"{PROBES_MODULE}.py").write_text(module_text, encoding="utf-8")
            settings = SuiteSettings(pythonpath=(scratch, *paths), knob_prefixes=(knob_prefix,) if knob_prefix else ())
            say(f"measuring {len(knobs)} knobs ({', '.join(k.name for k in knobs) or 'none found'}) ...")
            measured, failure = measure(root, settings, knobs, {"prompt": prompt, "tokens": tokens}, 300.0)
        if failure is not None:
            problem("init: the engine's generate probe failed", f"{failure}\nnothing written; fix the engine "
                    "command (or pass --no-measure to write the suite without running it)")
            return int(ExitCode.INTERNAL)
    suite = suite_text(prefix=knob_prefix, pythonpath=paths, source_tree=source_tree, prompt=prompt, tokens=tokens,
                       reference=reference, knobs=knobs, measured=measured)
    (root / DOC).parent.mkdir(parents=True, exist_ok=True)
    (root / f"{PROBES_MODULE}.py").write_text(module_text, encoding="utf-8")
    (root / DOC).write_text(environment_text(knobs, measured, knob_prefix), encoding="utf-8")
    (root / "vtgate.toml").write_text(suite, encoding="utf-8")
    for path in targets:
        say(f"wrote {path.relative_to(root)}")
    invariant = [name for name, m in measured.items() if m.invariant]
    moving = [name for name, m in measured.items() if m.invariant is False]
    failing = [f"{name}={value}" for name, m in measured.items() for value in m.failed]
    if failing:
        say(f"left out (the engine failed at these values): {', '.join(failing)}")
    if knobs:
        say(f"knobs: {len(knobs)} found; invariant (gated): {', '.join(invariant) or 'none'}; "
            f"change the logits: {', '.join(moving) or 'none'}")
    unguessed = [k.name for k in knobs if k.name in measured and measured[k.name].invariant is None]
    if unguessed:
        say(f"not measured (no literal default, a value init does not guess such as an arm name, or no other value "
            f"ran): {', '.join(unguessed)}; gate their values by hand (docs/own-engine.md, \"Knobs init does not "
            "measure\")")
    if source_tree:
        say(f"source tree {source_tree} hashes {source_tree_hash(root / source_tree)[:12]}…")
    say('next: vtgate bless --all --reason "initial" && vtgate check')
    return 0
