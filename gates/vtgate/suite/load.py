"""Find, read and validate a gate suite (docs/suite-format.md, docs/contracts.md section 3).

Discovery, from the current directory upwards: ``vtgate.toml``, else ``pyproject.toml`` with a
``[tool.vtgate]`` table, which either holds the suite itself or points at a suite file
(``suite = "goldens/gates.toml"``). ``--suite FILE`` overrides. Unknown keys are errors; every error
names the file, the line of the gate's ``[[gate]]`` header where it can, the gate, and the fix."""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vtgate.errors import SuiteError
from vtgate.kinds import get_kind, kind_names
from vtgate.suite.records import DeliberateRed, GateSpec, ProbeRef, Suite, SuiteSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

COMMON_KEYS = frozenset(
    {"name", "kind", "probe", "args", "env", "env_reason", "tier", "golden", "deliberate_red", "timeout", "description",
     "resources"}
)
SUITE_KEYS = frozenset({"pythonpath", "source_tree", "goldens", "timeout", "knob_prefixes", "isolate_env", "python",
                        "knob_exemptions", "artifacts", "preload", "fork_servers"})
# Tables owned by other commands (vtgate envdoc, vtgate mutate, vtbisect's build step): allowed next to the
# suite, not read here.
FOREIGN_TOOL_KEYS = frozenset({"envdoc", "mutate", "bisect"})
TOP_KEYS = frozenset({"suite", "gate", "mutation"}) | FOREIGN_TOOL_KEYS
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
MODULE_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _suggest(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(word, sorted(choices), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def _read_toml(path: Path) -> tuple[dict[str, Any], str]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SuiteError(f"{path}: cannot read the suite: {error.strerror or error}") from error
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if found:
            message = message[: found.start()]
            where = f"{path}:{found.group(1)}:{found.group(2)}"
        else:
            where = str(path)
        raise SuiteError(f"{where}: malformed TOML: {message}; fix the TOML syntax there") from error


def find_project_file(start: Path) -> Path | None:
    """The nearest ``vtgate.toml`` or ``pyproject.toml`` with ``[tool.vtgate]``, from ``start`` up."""
    for directory in [start, *start.parents]:
        candidate = directory / "vtgate.toml"
        if candidate.is_file():
            return candidate
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            data, _ = _read_toml(pyproject)
            if "vtgate" in data.get("tool", {}):
                return pyproject
    return None


def _project_root_of(path: Path) -> Path:
    for directory in [path.parent, *path.parent.parents]:
        if (directory / "vtgate.toml").is_file() or (directory / "pyproject.toml").is_file():
            return directory
        if (directory / ".git").exists():
            return directory
    return path.parent


def load_suite(path: str | Path | None = None, *, start: str | Path | None = None) -> Suite:
    """Load the suite at ``path`` (a suite TOML, vtgate.toml or pyproject.toml), or discover it from
    ``start`` (default: the current directory)."""
    if path is None:
        found = find_project_file(Path(start or Path.cwd()).resolve())
        if found is None:
            raise SuiteError(
                "no gate suite found: create vtgate.toml, or add [tool.vtgate] to pyproject.toml "
                '(e.g. suite = "goldens/gates.toml"), or pass --suite FILE'
            )
        path = found
    path = Path(path).resolve()
    if not path.is_file():
        raise SuiteError(f"{path}: no such suite file")
    data, text = _read_toml(path)
    root = _project_root_of(path)
    header = r"\[\[\s*gate\s*\]\]"
    if path.name == "pyproject.toml":
        root = path.parent
        tool = data.get("tool", {}).get("vtgate")
        if not isinstance(tool, dict):
            raise SuiteError(f"{path}: has no [tool.vtgate] table; add one or pass --suite FILE")
        pointer = tool.get("suite")
        if isinstance(pointer, str):
            extra = set(tool) - {"suite"} - FOREIGN_TOOL_KEYS
            if extra:
                key = sorted(extra)[0]
                raise SuiteError(f"{path}: [tool.vtgate]: unknown key '{key}' next to suite = {pointer!r}")
            target = (root / pointer).resolve()
            if not target.is_file():
                raise SuiteError(f"{path}: [tool.vtgate] suite = {pointer!r}, but {target} does not exist")
            data, text = _read_toml(target)
            return _build(target, root, data, text, header)
        data = {k: v for k, v in tool.items() if k not in FOREIGN_TOOL_KEYS}
        header = r"\[\[\s*tool\.vtgate\.gate\s*\]\]"
    return _build(path, root, data, text, header)


def _gate_lines(text: str, header: str) -> list[int]:
    pattern = re.compile(r"^\s*" + header)
    return [number for number, line in enumerate(text.splitlines(), start=1) if pattern.match(line)]


def _key_line(text: str, key: str) -> int | None:
    pattern = re.compile(r"^\s*\[*\s*" + re.escape(key) + r"\b")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def _build(path: Path, root: Path, data: Mapping[str, Any], text: str, header: str) -> Suite:
    problems: list[str] = []
    for key in sorted(set(data) - TOP_KEYS):
        line = _key_line(text, key)
        where = f"{path}:{line}" if line else str(path)
        problems.append(f"{where}: unknown top-level key '{key}' (known: suite, gate, mutation, envdoc, mutate, bisect){_suggest(key, TOP_KEYS)}")
    settings = _settings(path, text, data.get("suite", {}), problems, _envdoc_prefix(root, problems), root)
    raw_gates = data.get("gate", [])
    if not isinstance(raw_gates, list):
        problems.append(f"{path}: 'gate' must be an array of tables ([[gate]])")
        raw_gates = []
    lines = _gate_lines(text, header)
    gates: list[GateSpec] = []
    seen: dict[str, int | None] = {}
    for index, raw in enumerate(raw_gates):
        line = lines[index] if index < len(lines) and len(lines) == len(raw_gates) else None
        spec = _gate(path, root, settings, raw, line, index, problems)
        if spec is None:
            continue
        if spec.name in seen:
            problems.append(f"{spec.where}: gate '{spec.name}' is declared twice (first at line {seen[spec.name]})")
            continue
        seen[spec.name] = spec.line
        gates.append(spec)
    mutations = data.get("mutation", [])
    if not isinstance(mutations, list):
        problems.append(f"{path}: 'mutation' must be an array of tables ([[mutation]])")
        mutations = []
    if problems:
        raise SuiteError("\n".join(problems))
    return Suite(path=path, root=root, settings=settings, gates=tuple(gates), mutations=tuple(mutations))


def _envdoc_prefix(root: Path, problems: list[str]) -> str:
    """The knob prefix the project's env-doc checker uses (``[envdoc] prefix``, default ``VT_``): the
    default of ``[suite] knob_prefixes``, so one setting names the engine's knobs for both."""
    from vtgate.envdoc import EnvdocConfig, EnvdocError

    try:
        return EnvdocConfig.load(root).prefix
    except EnvdocError as error:
        problems.append(str(error))
        return "VT_"


def _settings(path: Path, text: str, raw: Any, problems: list[str], prefix: str = "VT_",
              root: Path | None = None) -> SuiteSettings:
    line = _key_line(text, "suite")
    where = f"{path}:{line}" if line else str(path)
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: [suite] must be a table")
        return SuiteSettings()
    for key in sorted(set(raw) - SUITE_KEYS):
        problems.append(f"{where}: [suite]: unknown key '{key}' (known: {', '.join(sorted(SUITE_KEYS))}){_suggest(key, SUITE_KEYS)}")
    pythonpath = raw.get("pythonpath", [])
    if not (isinstance(pythonpath, list) and all(isinstance(p, str) for p in pythonpath)):
        problems.append(f'{where}: [suite] pythonpath must be a list of folders, e.g. ["engine"]')
        pythonpath = []
    source_tree = raw.get("source_tree")
    if source_tree is not None and not isinstance(source_tree, str):
        problems.append(f'{where}: [suite] source_tree must be a folder, e.g. "engine/vtengine"')
        source_tree = None
    goldens = raw.get("goldens", "goldens")
    if not isinstance(goldens, str):
        problems.append(f'{where}: [suite] goldens must be a folder, e.g. "goldens"')
        goldens = "goldens"
    timeout = raw.get("timeout", 120.0)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        problems.append(f"{where}: [suite] timeout must be a positive number of seconds")
        timeout = 120.0
    prefixes = raw.get("knob_prefixes", [prefix] if prefix else [])
    if not (isinstance(prefixes, list) and all(isinstance(p, str) and p for p in prefixes)):
        problems.append(f'{where}: [suite] knob_prefixes must be a list of name prefixes, e.g. ["VT_"]')
        prefixes = [prefix] if prefix else []
    isolate_env = raw.get("isolate_env", False)
    if not isinstance(isolate_env, bool):
        problems.append(f"{where}: [suite] isolate_env must be true or false")
        isolate_env = False
    python = _python(raw.get("python"), root or path.parent, where, problems)
    exemptions = raw.get("knob_exemptions", {})
    if not isinstance(exemptions, Mapping) or not all(isinstance(v, str) and v.strip() for v in exemptions.values()):
        problems.append(f'{where}: [suite] knob_exemptions must map knob names to reasons, e.g. '
                        '{ VT_PROFILE = "timing only: no output depends on it" } (a reason is required)')
        exemptions = {}
    artifacts = _artifacts(raw.get("artifacts", []), root or path.parent, where, problems)
    preload = raw.get("preload", ["numpy"])
    if not (isinstance(preload, list) and all(isinstance(m, str) and MODULE_PATTERN.match(m) for m in preload)):
        problems.append(f'{where}: [suite] preload must be a list of module names, e.g. ["numpy", "ml_dtypes"]')
        preload = ["numpy"]
    fork_servers = raw.get("fork_servers", True)
    if not isinstance(fork_servers, bool):
        problems.append(f"{where}: [suite] fork_servers must be true or false")
        fork_servers = True
    return SuiteSettings(tuple(pythonpath), source_tree, Path(goldens), float(timeout), tuple(prefixes), isolate_env,
                         python, tuple(sorted(exemptions.items())), artifacts, tuple(preload), fork_servers)


def _artifacts(raw: Any, root: Path, where: str, problems: list[str]) -> tuple[str, ...]:
    """``[suite] artifacts``: globs, relative to the project, of files git does not track that the
    engine needs (exported weights). Whether each matches a file is checked where the code under test
    is (``require_artifacts``), not here: a suite staged elsewhere (vtbisect's oracle) has no weights."""
    if not (isinstance(raw, list) and all(isinstance(p, str) and p for p in raw)):
        problems.append(f'{where}: [suite] artifacts must be a list of globs relative to the project, '
                        'e.g. ["models/*.safetensors"]')
        return ()
    for pattern in raw:
        if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
            problems.append(f"{where}: [suite] artifacts: {pattern!r} must be relative to the project ({root}) "
                            "and stay inside it")
    return tuple(raw)


@functools.lru_cache(maxsize=256)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def artifact_digests(suite: Suite, root: Path) -> dict[str, str]:
    """``file:<path>`` -> sha256 of each ``[suite] artifacts`` file under ``root`` (hashed once per
    file version in this process): what every observation's ``meta.artifacts`` gains, so bless
    records the weights and check refuses a verdict on other ones."""
    found = {}
    for pattern in suite.settings.artifacts:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                stat = path.stat()
                found[f"file:{path.relative_to(root).as_posix()}"] = _file_sha256(str(path), stat.st_size,
                                                                                  stat.st_mtime_ns)
    return found


def require_artifacts(suite: Suite, root: Path) -> None:
    """SuiteError naming each ``[suite] artifacts`` glob that matches no file under ``root`` (the
    tree under test, where the probes will look for them)."""
    missing = [p for p in suite.settings.artifacts if not any(m.is_file() for m in root.glob(p))]
    if missing:
        raise SuiteError("\n".join(
            f"{suite.path}: [suite] artifacts: {p!r} matches no file under {root}: create the files first "
            "(e.g. the command that exports the weights) or fix the glob" for p in missing))


def _python(raw: Any, root: Path, where: str, problems: list[str]) -> str | None:
    """``[suite] python``: the interpreter probes run under, relative to the project (the user's
    checkout, not the tree under test: a worktree or patched copy has no virtualenv of its own)."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw:
        problems.append(f'{where}: [suite] python must be a path to an interpreter, e.g. ".venv/bin/python"')
        return None
    interpreter = Path(raw).expanduser()
    interpreter = interpreter if interpreter.is_absolute() else root / interpreter
    if not interpreter.is_file():
        problems.append(f"{where}: [suite] python = {raw!r}: {interpreter} does not exist; create that "
                        "environment (python -m venv) or point python at an existing interpreter")
        return None
    return str(interpreter)


def _gate(
    path: Path, root: Path, settings: SuiteSettings, raw: Any, line: int | None, index: int, problems: list[str]
) -> GateSpec | None:
    where = f"{path}:{line}" if line else f"{path} (gate #{index + 1})"
    if not isinstance(raw, Mapping):
        problems.append(f"{where}: each [[gate]] must be a table")
        return None
    name = raw.get("name")
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        problems.append(f'{where}: gate #{index + 1} needs name = "<letters, digits, - _ .>"')
        return None
    before = len(problems)

    def bad(message: str) -> None:
        problems.append(f"{where}: gate '{name}': {message}")

    kind_name = raw.get("kind")
    if not isinstance(kind_name, str):
        bad(f"needs kind = one of {', '.join(kind_names())}")
        return None
    try:
        kind = get_kind(kind_name)
    except KeyError:
        bad(f"unknown kind '{kind_name}' (known: {', '.join(kind_names())}){_suggest(kind_name, kind_names())}")
        return None
    allowed = COMMON_KEYS | kind.option_keys
    for key in sorted(set(raw) - allowed):
        bad(f"unknown key '{key}' for kind '{kind_name}'{_suggest(key, allowed)} "
            f"(kind keys: {', '.join(sorted(kind.option_keys)) or 'none'})")

    probe = _probe(raw.get("probe"), kind.default_probe, bad)
    args = raw.get("args", {})
    if not isinstance(args, Mapping):
        bad("args must be a table, e.g. args = { prompt = \"bench\", tokens = 60 }")
        args = {}
    env = raw.get("env", {})
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        bad('env values are strings, as a shell sets them: env = { VT_CPU_THREADS = "2" }')
        env = {}
    env_reason = raw.get("env_reason")
    if env and not (isinstance(env_reason, str) and env_reason.strip()):
        pins = ", ".join(f"{k}={v}" for k, v in env.items())
        bad(f'env pin {{{pins}}} needs env_reason = "<why this gate measures that arm, citing the issue>"')
    if env_reason is not None and not env:
        bad("env_reason without an env pin; remove it or add env = { ... }")
    tier = raw.get("tier", "default")
    if not isinstance(tier, str) or not NAME_PATTERN.match(tier):
        bad('tier must be a name, e.g. tier = "fma"')
        tier = "default"
    golden: Path | None = None
    if "golden" in raw:
        if kind.pin_source != "golden":
            bad(f"kind '{kind_name}' keeps no golden file; remove golden = ...")
        elif not isinstance(raw["golden"], str):
            bad('golden must be a path, e.g. golden = "goldens/default/decode-bench.json"')
        else:
            golden = root / raw["golden"]
    if golden is None and kind.pin_source == "golden":
        golden = root / settings.goldens / tier / f"{name}.json"
    deliberate = raw.get("deliberate_red")
    deliberate_red = None
    if deliberate is not None:
        if (
            not isinstance(deliberate, Mapping)
            or set(deliberate) != {"issue", "reason"}
            or not all(isinstance(v, str) and v.strip() for v in deliberate.values())
        ):
            bad('deliberate_red = { issue = "#2839", reason = "..." } (both, and nothing else)')
        else:
            deliberate_red = DeliberateRed(str(deliberate["issue"]), str(deliberate["reason"]))
    timeout = raw.get("timeout", settings.timeout)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        bad("timeout must be a positive number of seconds")
        timeout = settings.timeout
    description = raw.get("description", "")
    if not isinstance(description, str):
        bad("description must be a string")
        description = ""
    resources = _resources(raw.get("resources", {}), bad)
    options = {k: v for k, v in raw.items() if k in kind.option_keys}
    for problem in kind.validate(options):
        bad(problem)
    if len(problems) > before:
        return None
    return GateSpec(
        name=name, kind=kind_name, probe=probe, args=dict(args), env=dict(env),
        env_reason=env_reason, tier=tier, golden=golden, deliberate_red=deliberate_red,
        timeout=float(timeout), options=options, line=line, source=path, description=description,
        resources=resources,
    )


def _resources(raw: Any, bad: Any) -> dict[str, float]:
    """``resources = {GPU = 1}``: Dask worker resource names with positive amounts (docs/distributed.md)."""
    if not isinstance(raw, Mapping):
        bad("resources must be a table of Dask worker resources, e.g. resources = { GPU = 1 }")
        return {}
    resources: dict[str, float] = {}
    for name, amount in raw.items():
        if not NAME_PATTERN.match(str(name)):
            bad(f"resources: {name!r} is not a resource name (letters, digits, - _ .), e.g. resources = {{ GPU = 1 }}")
        elif isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount <= 0:
            bad(f"resources: {name} = {amount!r} must be a positive number, e.g. resources = {{ {name} = 1 }}")
        else:
            resources[str(name)] = float(amount)
    return resources


def _probe(raw: Any, default: ProbeRef | None, bad: Any) -> ProbeRef | None:
    if raw is None:
        if default is None:
            bad('needs probe = "module:function" or probe = { cmd = ["prog", "arg"] }')
        return default
    if isinstance(raw, str):
        module, _, function = raw.partition(":")
        if not module or not function or not all(p.isidentifier() for p in module.split(".")) or not function.isidentifier():
            bad(f'probe = {raw!r} is not "module:function" (e.g. "vtengine.probes:generate")')
            return None
        return ProbeRef(callable=raw)
    if isinstance(raw, Mapping):
        cmd = raw.get("cmd")
        if not set(raw) <= {"cmd", "worker"} or not (isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd)):
            bad('probe = { cmd = ["prog", "arg", ...] } (a non-empty list of strings; worker = true for a '
                "persistent worker, and nothing else)")
            return None
        worker = raw.get("worker", False)
        if not isinstance(worker, bool):
            bad("probe worker must be true or false (true: one persistent process answers every run, "
                "line-delimited JSON, docs/own-engine.md)")
            return None
        return ProbeRef(cmd=tuple(cmd), worker=worker)
    bad('probe must be "module:function" or { cmd = [...] }')
    return None


def select_gates(suite: Suite, names: list[str] | None = None, keyword: str | None = None,
                 *, opt_in: bool = False) -> list[GateSpec]:
    """``--gate NAME`` (exact, repeatable) and ``-k EXPR`` (pytest-like: substrings of name, kind and
    tier combined with and/or/not and parentheses). Gates of an opt-in kind (``perf``) are selected
    only when named by ``--gate``, or when ``-k``'s expression has the kind's name as a word
    (``-k perf``), or with ``opt_in`` (vtgate list shows every gate)."""
    gates = list(suite.gates)
    if names:
        known = {g.name for g in gates}
        for name in names:
            if name not in known:
                raise SuiteError(f"{suite.path}: no gate named '{name}'{_suggest(name, known)}")
        return [g for g in gates if g.name in names and (not keyword or compile_keyword(keyword)(f"{g.name} {g.kind} {g.tier}"))]
    if not opt_in:
        words = set(re.findall(r"[^\s()]+", (keyword or "").lower()))
        gates = [g for g in gates if not getattr(get_kind(g.kind), "opt_in", False) or g.kind in words]
    if keyword:
        match = compile_keyword(keyword)
        gates = [g for g in gates if match(f"{g.name} {g.kind} {g.tier}")]
    return gates


def compile_keyword(expression: str) -> Any:
    tokens = re.findall(r"\(|\)|[^\s()]+", expression)
    python: list[str] = []
    words: list[str] = []
    for token in tokens:
        if token in ("and", "or", "not", "(", ")"):
            python.append(token)
        else:
            python.append(f"_w[{len(words)}] in _s")
            words.append(token.lower())
    code = " ".join(python)
    try:
        compiled = compile(code or "True", "<-k>", "eval")
        eval(compiled, {"__builtins__": {}}, {"_w": words, "_s": ""})  # noqa: S307 - syntax check only
    except SyntaxError as error:
        raise SuiteError(f"-k {expression!r}: not an expression of words with and/or/not") from error

    def match(subject: str) -> bool:
        return bool(eval(compiled, {"__builtins__": {}}, {"_w": words, "_s": subject.lower()}))  # noqa: S307

    return match
