"""The build step: what makes a candidate judgeable before its judge runs (docs/bisect.md, "Building
each candidate").

For each worktree, after it is checked out clean and before the judge runs, ``Builder.prepare``:

1. **environment** (``--lock FILE``): a virtualenv made by ``uv venv`` + ``uv pip sync`` from the
   candidate's own lock file (``uv sync --frozen`` for a ``uv.lock``), in ``<cache>/envs/<key>`` where
   the key is the lock file's content (with a ``uv.lock``, its ``pyproject.toml`` too; and the base
   interpreter and uv's version): commits with the same lock share one environment. The judge
   and the setup see it as ``{python}``, first on ``PATH``, ``VIRTUAL_ENV`` set;
2. **prebuilt artifact** (``--artifact TEMPLATE``, ``{commit}`` in it): a local file or folder (or an
   http(s) URL), checked against a sha256 when a checksum file is named, installed by copying it into the
   worktree (or by ``--artifact-install CMD``); a missing one falls back to building or to skip;
3. **setup** (``--setup CMD``): an argv list (split once, never a shell string built from commit data),
   run at the worktree root with its own timeout; a failure or timeout makes the candidate untestable
   (skip, git's 125) unless ``--setup-failure fatal``. With ``--build-input GLOB`` and ``--build-output
   PATH`` its outputs are kept in a build cache keyed by the blob ids of the files the inputs match
   (``git ls-tree``: no checkout, so a commit that changed only other files hits), and restored by hard
   link instead of building again. C/C++ compilers run through ccache (or sccache) when installed, with
   one cache folder kept across worktrees and runs.

Every part is in the verdict's cache key (``identity``): another setup command or script, other
inputs, another artifact template is another judge. What was done at each candidate is in the step's
log (the evidence) and in ``Builder.record()`` (the JSON record's ``build``)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from filelock import FileLock
from vtgate.exitcodes import ExitCode

from vtbisect.cache import DEFAULT_KNOBS, Knobs
from vtbisect.gitrepo import GitRepo, repository
from vtbisect.judgecmd import file_digest
from vtbisect.judges import JudgeAbort, Judgement, Runner, child_env, placeholders, run_child
from vtbisect.worktrees import Prepared

SETUP_FAILURE_MODES = ("skip", "fatal")
ARTIFACT_MISSING_MODES = ("build", "skip")
COMPILER_CACHE_MODES = ("auto", "off")
CONFIG_KEYS = frozenset({"setup", "setup_timeout", "setup_failure", "build_inputs", "build_outputs", "artifact",
                         "artifact_checksum", "artifact_install", "artifact_missing", "lock", "compiler_cache"})
BUILD_SCHEMA = 1  # the layout of a build cache entry
LOG_TAIL = 4000  # characters of a setup's output kept in a fatal error message
DOWNLOAD_TIMEOUT = 300.0
COMPILERS = ("cc", "gcc", "c++", "g++", "clang", "clang++")
# Variables a C/C++/CUDA build commonly reads: their values are part of the build's identity (the build
# cache key and every verdict's), so a build with other flags is never served from the cache.
BUILD_ENV = ("CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "CMAKE_ARGS", "CMAKE_BUILD_TYPE", "CUDA_HOME",
             "TORCH_CUDA_ARCH_LIST", "NVCC_FLAGS")


class BuildConfigError(Exception):
    """The build settings cannot work as given: a usage error (exit 2) naming the setting and the fix."""

    exit_code = ExitCode.USAGE


@dataclass(frozen=True)
class BuildSpec:
    """What ``--setup`` and friends (or ``[bisect]`` in the suite) ask for."""

    setup: tuple[str, ...] = ()
    setup_timeout: float | None = None
    setup_failure: str = "skip"
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    artifact: str | None = None
    artifact_checksum: str | None = None
    artifact_install: tuple[str, ...] = ()
    artifact_missing: str = "build"
    lock: str | None = None
    compiler_cache: str = "auto"
    use_cache: bool = True  # --no-build-cache: every setup runs (the build cache is neither read nor written)

    def to_record(self) -> dict[str, Any]:
        """The settings as JSON (the recipe's ``build_step``: ``vtbisect replay`` builds as the run did)."""
        return {name: list(value) if isinstance(value, tuple) else value for name, value in asdict(self).items()}

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> BuildSpec:
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in record.items() if k in known}
        return cls(**values)

    @property
    def active(self) -> bool:
        return bool(self.setup or self.artifact or self.lock)

    @property
    def cached(self) -> bool:
        return bool(self.setup and self.inputs and self.outputs and self.use_cache)

    def check(self) -> None:
        if self.setup_failure not in SETUP_FAILURE_MODES:
            raise BuildConfigError(f"setup failure mode {self.setup_failure!r}: use one of {', '.join(SETUP_FAILURE_MODES)}")
        if self.artifact_missing not in ARTIFACT_MISSING_MODES:
            raise BuildConfigError(f"artifact missing mode {self.artifact_missing!r}: use one of "
                                   f"{', '.join(ARTIFACT_MISSING_MODES)}")
        if self.compiler_cache not in COMPILER_CACHE_MODES:
            raise BuildConfigError(f"compiler cache {self.compiler_cache!r}: use one of {', '.join(COMPILER_CACHE_MODES)}")
        if bool(self.inputs) != bool(self.outputs):
            given, missing = ("--build-input", "--build-output") if self.inputs else ("--build-output", "--build-input")
            raise BuildConfigError(f"{given} without {missing}: the build cache needs both, what the build reads "
                                   "(globs) and what it makes (paths to keep); fix: give both, or neither")
        if self.inputs and not self.setup:
            raise BuildConfigError("--build-input/--build-output without --setup: the build cache keeps what the setup "
                                   "command builds; fix: give --setup CMD")
        if self.artifact_missing == "build" and self.artifact and not self.setup:
            raise BuildConfigError("--artifact-missing build without --setup: there is no build to fall back to; fix: "
                                   "give --setup CMD, or --artifact-missing skip")
        for output in self.outputs:
            if Path(output).is_absolute() or ".." in Path(output).parts:
                raise BuildConfigError(f"--build-output {output!r}: give a path inside the worktree, relative to its root")
        if self.setup_timeout is not None and self.setup_timeout <= 0:
            raise BuildConfigError(f"--setup-timeout {self.setup_timeout}: give a positive number of seconds")


def split_command(value: Any, what: str) -> tuple[str, ...]:
    """A command given as one string (split once, as a shell would split words, never run by one) or
    as a list of arguments."""
    import shlex

    if value is None or value == "" or value == []:
        return ()
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as error:
            raise BuildConfigError(f"{what} {value!r}: {error}") from None
        return tuple(words)
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return tuple(value)
    raise BuildConfigError(f"{what}: give a string or a list of strings, got {value!r}")


def spec_from(config: Mapping[str, Any], where: str, **flags: Any) -> BuildSpec:
    """The settings: each command-line flag given (not None / not empty) wins over ``[bisect]``."""
    unknown = sorted(set(config) - CONFIG_KEYS)
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], sorted(CONFIG_KEYS), n=1)
        raise BuildConfigError(f"{where}: [bisect]: unknown key {unknown[0]!r} (known: {', '.join(sorted(CONFIG_KEYS))})"
                               + (f"; did you mean {close[0]!r}?" if close else ""))

    def pick(name: str, key: str) -> Any:
        value = flags.get(name)
        return value if value not in (None, [], ()) else config.get(key)

    def strings(value: Any, key: str) -> tuple[str, ...]:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return tuple(value)
        raise BuildConfigError(f"{where}: [bisect] {key}: give a list of strings, got {value!r}")

    timeout = pick("setup_timeout", "setup_timeout")
    spec = BuildSpec(
        setup=split_command(pick("setup", "setup"), "setup"),
        setup_timeout=float(timeout) if timeout is not None else None,
        setup_failure=str(pick("setup_failure", "setup_failure") or "skip"),
        inputs=strings(pick("build_inputs", "build_inputs"), "build_inputs"),
        outputs=strings(pick("build_outputs", "build_outputs"), "build_outputs"),
        artifact=pick("artifact", "artifact"),
        artifact_checksum=pick("artifact_checksum", "artifact_checksum"),
        artifact_install=split_command(pick("artifact_install", "artifact_install"), "artifact_install"),
        artifact_missing=str(pick("artifact_missing", "artifact_missing")
                             or ("build" if pick("setup", "setup") else "skip")),  # nothing to fall back to
        lock=pick("lock", "lock"),
        compiler_cache=str(pick("compiler_cache", "compiler_cache") or "auto"),
        use_cache=bool(flags.get("use_cache", True)),
    )
    spec.check()
    return spec


def bisect_table(root: Path, suite: str | None) -> tuple[dict[str, Any], str]:
    """``[bisect]`` of the suite in your checkout (``--suite FILE``, else ``vtgate.toml``, else
    ``[tool.vtgate.bisect]`` in ``pyproject.toml`` or ``[bisect]`` in the file its ``suite`` names), and
    where it was read; ``{}`` when there is none."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    def read(path: Path) -> dict[str, Any]:
        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise BuildConfigError(f"{path}: cannot read [bisect]: {error}") from None

    def table(data: Mapping[str, Any], path: Path, name: str) -> tuple[dict[str, Any], str]:
        found = data.get("bisect", {})
        if not isinstance(found, dict):
            raise BuildConfigError(f"{path}: {name} must be a table")
        return found, str(path)

    candidates = [Path(suite)] if suite else [root / "vtgate.toml", root / "pyproject.toml"]
    for path in candidates:
        if not path.is_file():
            continue
        data = read(path)
        if path.name != "pyproject.toml":
            return table(data, path, "[bisect]")
        tool = data.get("tool", {}).get("vtgate")
        if not isinstance(tool, dict):
            return {}, ""
        pointer = tool.get("suite")
        if isinstance(pointer, str) and (path.parent / pointer).is_file():
            return table(read(path.parent / pointer), path.parent / pointer, "[bisect]")
        return table(tool, path, "[tool.vtgate.bisect]")
    return {}, ""


# ---- globs over repository paths ---------------------------------------------------------------------


def glob_pattern(pattern: str) -> re.Pattern[str]:
    """A build-input glob as a regular expression over repository-relative paths: ``*`` and ``?`` within one
    folder, ``**`` across folders (``csrc/**``: everything under csrc; ``**/*.h``: every header); a pattern
    without ``/`` matches a file's name in any folder (``CMakeLists.txt``, ``*.c``), as in .gitignore."""
    text = pattern.strip("/")
    anywhere = "/" not in text
    out = []
    i = 0
    while i < len(text):
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    body = "".join(out)
    return re.compile(("(?:.*/)?" if anywhere else "") + body + "(?:/.*)?")


# Characters a build script that does not quote its paths trips over (word splitting, globbing, quoting).
SHELL_UNSAFE = re.compile(r"""[\s'"\\$`*?\[\]{}();&|<>!#~]""")


def shell_safe(cache_dir: Path) -> tuple[Path, str | None]:
    """The cache folder as the build step sees it: itself when its path has nothing a shell would split
    or expand, else a symlink to it in a folder of this user's under the temporary directory
    (``<tmp>/vtbisect-<uid>/<hash of the path>``), so worktrees, ``{worktree}``, ``$PWD``, the build
    cache and the environments all have space-free paths; aliases whose folder is gone are removed. Also
    a note saying so (None when unchanged).
    A program that asks the OS for its folder (``getcwd``) still sees the real path."""
    text = str(cache_dir)
    if not SHELL_UNSAFE.search(text):
        return cache_dir, None
    root = Path(tempfile.gettempdir()) / f"vtbisect-{os.getuid()}"
    refused = (f"the cache folder {text!r} has characters build scripts seldom quote and no safe alias could "
               f"be made under {root}")
    if SHELL_UNSAFE.search(str(root)):
        return cache_dir, refused + " (its path is not safe either); fix: --cache-dir PATH without spaces"
    try:
        root.mkdir(mode=0o700, exist_ok=True)
        info = root.lstat()
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
            return cache_dir, refused + " (it is not a private folder of yours); fix: --cache-dir PATH without spaces"
        for stale in root.iterdir():  # aliases of cache folders deleted since (a test's, a removed clone's)
            if stale.is_symlink() and not stale.exists():
                with contextlib.suppress(OSError):
                    stale.unlink()
        alias = root / hashlib.sha256(text.encode()).hexdigest()[:16]
        if not (alias.is_symlink() and os.readlink(alias) == text):
            fresh = alias.with_name(f"{alias.name}.{os.getpid()}.tmp")
            with contextlib.suppress(FileNotFoundError):
                fresh.unlink()
            fresh.symlink_to(text)
            os.replace(fresh, alias)
    except OSError as error:
        return cache_dir, f"{refused} ({error}); fix: --cache-dir PATH without spaces"
    return alias, (f"the cache folder {text!r} has characters build scripts seldom quote: the build step and the "
                   f"worktrees use it through {alias} (a symlink)")


# ---- what happened at each candidate -------------------------------------------------------------------


@dataclass
class BuildStats:
    builds: int = 0  # setup runs (a failed one included)
    build_failures: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    artifacts_installed: int = 0
    artifacts_missing: int = 0
    envs_created: int = 0
    env_hits: int = 0
    build_seconds: float = 0.0  # spent running setup
    restore_seconds: float = 0.0  # spent restoring cached builds
    seconds_saved: float = 0.0  # for each hit: the cached build's own time minus the restore
    input_keys: set[str] = field(default_factory=set)  # distinct build-input hashes of the candidates prepared


@dataclass(frozen=True)
class BuildResult:
    ok: bool
    how: str  # built | cache | artifact | none | failed | missing-artifact | env-failed
    log: str
    seconds: float
    prepared: Prepared


class Builder:
    """Prepares one worktree at a time (thread-safe: ``-j N`` worktrees build concurrently; two needing the
    same build wait for one another through a file lock, so the second restores what the first built)."""

    def __init__(self, spec: BuildSpec, repo: Path, cache_dir: Path, env: Mapping[str, str]) -> None:
        self.spec = spec
        self.repo = repo
        self.env = dict(env)
        self.store = cache_dir / "builds"
        self.envs = cache_dir / "envs"
        self.downloads = cache_dir / "artifacts"
        self.stats = BuildStats()
        self.events: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._patterns = [glob_pattern(p) for p in spec.inputs]
        self._states: dict[str, str | None] = {}  # commit -> build-input state (state_of)
        self._built_states: set[str] = set()  # states built or restored by this run
        self.compiler_cache = self._compiler_cache(cache_dir)
        self.uv = self._find_uv() if spec.lock else None
        self.base_python = getattr(sys, "_base_executable", sys.executable) or sys.executable
        self.identity = self._identity()

    # ---- identity (part of every verdict's cache key) -------------------------------------------------

    def _identity(self) -> dict[str, Any]:
        files: dict[str, str] = {}
        for argv in (self.spec.setup, self.spec.artifact_install):
            for arg in argv:
                path = Path(arg)
                if path.is_absolute() and path.is_file():
                    files[arg] = file_digest(path)  # a script outside the tree: its content is the judge's
        return {
            "setup": list(self.spec.setup), "setup_timeout": self.spec.setup_timeout,
            "inputs": list(self.spec.inputs), "outputs": list(self.spec.outputs),
            "artifact": self.spec.artifact, "artifact_checksum": self.spec.artifact_checksum,
            "artifact_install": list(self.spec.artifact_install), "artifact_missing": self.spec.artifact_missing,
            "lock": self.spec.lock, "files": files,
            "python": self.base_python if self.spec.lock else None,
            "uv": self._uv_version() if self.uv else None,
            "build_env": {name: self.env[name] for name in BUILD_ENV if name in self.env},
            "compiler": self._compiler_version() if self.spec.setup else None,
        }

    def _compiler_version(self) -> str | None:
        """``cc --version``'s first line: another system compiler is another build."""
        found = shutil.which("cc", path=self.env.get("PATH"))
        if found is None:
            return None
        try:
            done = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30, check=False,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return f"{os.path.realpath(found)}: {(done.stdout.splitlines() or [''])[0]}"

    def unchanged(self, commit: str) -> None:
        """A setup script outside the tree changed during the run: another judge; stop (exit 2)."""
        for path, digest in self.identity["files"].items():
            try:
                now = file_digest(Path(path))
            except OSError:
                now = "missing"
            if now != digest:
                raise JudgeAbort(f"the setup changed during the bisection: {path} had sha256 {digest} when the run "
                                 f"started and has {now} before building {commit[:10]}; fix: leave it unchanged while "
                                 "vtbisect runs, then run again", ExitCode.USAGE)

    # ---- tools -------------------------------------------------------------------------------------------

    def _find_uv(self) -> str:
        found = shutil.which("uv", path=self.env.get("PATH"))
        if found is None:
            try:
                import uv  # the PyPI package ships the binary

                found = uv.find_uv_bin()
            except (ImportError, FileNotFoundError):
                found = None
        if found is None:
            raise BuildConfigError("--lock needs uv to build each commit's environment, and uv is not on PATH nor "
                                   "installed in this Python; fix: pip install uv")
        return str(found)

    def _uv_version(self) -> str:
        assert self.uv is not None
        done = subprocess.run([self.uv, "--version"], capture_output=True, text=True, timeout=60, check=False,
                              stdin=subprocess.DEVNULL)
        return done.stdout.strip()

    def _compiler_cache(self, cache_dir: Path) -> dict[str, str]:
        """The variables that route C/C++ compilers through ccache (preferred) or sccache, with one cache
        folder for every worktree and run: ``VT_BISECT_CCACHE_DIR``, else ``<cache>/ccache``."""
        if self.spec.compiler_cache == "off" or not self.spec.setup:
            return {}
        folder = Path(os.environ.get("VT_BISECT_CCACHE_DIR") or cache_dir / "ccache")
        path = self.env.get("PATH", os.defpath)
        ccache = shutil.which("ccache", path=path)
        if ccache:
            folder.mkdir(parents=True, exist_ok=True)
            shims = cache_dir / "ccache-bin"  # masquerade: cc, gcc, g++... named ccache, first on PATH
            shims.mkdir(parents=True, exist_ok=True)
            for name in COMPILERS:
                link = shims / name
                if not link.exists() and shutil.which(name, path=path):
                    with contextlib.suppress(FileExistsError):
                        link.symlink_to(ccache)
            return {"CCACHE_DIR": str(folder), "CCACHE_NOHASHDIR": "1", "PATH": f"{shims}{os.pathsep}{path}",
                    "VTBISECT_COMPILER_CACHE": "ccache"}
        sccache = shutil.which("sccache", path=path)
        if sccache:
            folder.mkdir(parents=True, exist_ok=True)
            env = {"SCCACHE_DIR": str(folder), "RUSTC_WRAPPER": sccache, "VTBISECT_COMPILER_CACHE": "sccache"}
            if "CC" not in self.env:
                env["CC"] = f"{sccache} cc"
            if "CXX" not in self.env:
                env["CXX"] = f"{sccache} c++"
            return env
        return {}

    # ---- the step ------------------------------------------------------------------------------------

    def prepare(self, prepared: Prepared) -> BuildResult:
        """Make the candidate judgeable: environment, then an artifact, else a cached build, else setup."""
        start = time.monotonic()
        self.unchanged(prepared.commit)
        log: list[str] = []
        event: dict[str, Any] = {"commit": prepared.commit, "reverts": list(prepared.reverts)}
        try:
            if self.spec.lock:
                env_ok, prepared = self._environment(prepared, log, event)
                if not env_ok:
                    return self._done(False, "env-failed", log, start, prepared, event)
            if self.spec.artifact:
                how = self._artifact(prepared, log)
                if how == "installed":
                    with self._lock:
                        self.stats.artifacts_installed += 1
                    return self._done(True, "artifact", log, start, prepared, event)
                if how == "failed":
                    return self._done(False, "failed", log, start, prepared, event)
                with self._lock:
                    self.stats.artifacts_missing += 1
                if self.spec.artifact_missing == "skip":
                    log.append("no artifact for this commit and --artifact-missing skip: untestable")
                    return self._done(False, "missing-artifact", log, start, prepared, event)
                log.append("no artifact for this commit: building it (--artifact-missing build)")
            if not self.spec.setup:
                return self._done(True, "none", log, start, prepared, event)
            if not self.spec.cached:
                ok = self._run_setup(prepared, log, event)
                return self._done(ok, "built" if ok else "failed", log, start, prepared, event)
            return self._cached_build(prepared, log, start, event)
        except OSError as error:
            log.append(f"build step failed: {error}")
            return self._done(False, "failed", log, start, prepared, event)

    def _done(self, ok: bool, how: str, log: list[str], start: float, prepared: Prepared,
              event: dict[str, Any]) -> BuildResult:
        seconds = time.monotonic() - start
        event.update(how=how, ok=ok, seconds=round(seconds, 4))
        with self._lock:
            self.events.append(event)
        if not ok and self.spec.setup_failure == "fatal":
            tail = "\n".join(log)[-LOG_TAIL:]
            raise JudgeAbort(f"the build step failed at {prepared.commit[:10]} ({how}) and --setup-failure fatal stops "
                             f"the run; its log:\n{tail}", ExitCode.INTERNAL)
        return BuildResult(ok, how, "\n".join(log), seconds, prepared)

    def _setup_env(self, prepared: Prepared) -> dict[str, str]:
        env = child_env(self.env, prepared)
        env.update(self.compiler_cache)
        if "CCACHE_DIR" in self.compiler_cache:
            env["CCACHE_BASEDIR"] = str(prepared.path)  # absolute paths in the worktree hash as relative: hits across worktrees
        if prepared.env:
            env.update(prepared.env)
            if "PATH" in self.compiler_cache:  # the environment's bin first, then the compiler shims, then the rest
                venv_bin = dict(prepared.env).get("PATH", "").split(os.pathsep)[0]
                env["PATH"] = os.pathsep.join([venv_bin, self.compiler_cache["PATH"]])
        env["VTBISECT_PYTHON"] = prepared.python or sys.executable
        env["PWD"] = str(prepared.path)  # shells keep it (a symlinked, space-free path: shell_safe) as $PWD
        return env

    def _run(self, argv: Sequence[str], prepared: Prepared, log: list[str], what: str) -> bool:
        command = placeholders(argv, prepared)
        env = self._setup_env(prepared)
        try:
            code, out, err, timed_out = run_child(command, prepared.path, env, self.spec.setup_timeout)
        except (FileNotFoundError, PermissionError, NotADirectoryError) as error:
            log.append(f"$ {' '.join(command)}\n{what} could not start: {error}")
            return False
        log.append(f"$ cd {prepared.path} && {' '.join(command)}\n--- stdout ---\n{out}--- stderr ---\n{err}"
                   + (f"\n{what} timed out after {self.spec.setup_timeout}s" if timed_out else f"\n{what} exit {code}"))
        return not timed_out and code == 0

    def _run_setup(self, prepared: Prepared, log: list[str], event: dict[str, Any]) -> bool:
        start = time.monotonic()
        log.append("# setup" + (f" (through {self.compiler_cache['VTBISECT_COMPILER_CACHE']})"
                                if self.compiler_cache else ""))
        ok = self._run(self.spec.setup, prepared, log, "setup")
        seconds = time.monotonic() - start
        event["build_seconds"] = round(seconds, 4)
        with self._lock:
            self.stats.builds += 1
            self.stats.build_seconds += seconds
            if not ok:
                self.stats.build_failures += 1
        if not ok:
            log.append("setup failed: the candidate is untestable (skip, as git bisect run's exit 125)"
                       if self.spec.setup_failure == "skip" else "setup failed")
        return ok

    # ---- the build cache ---------------------------------------------------------------------------------

    def input_key(self, prepared: Prepared) -> tuple[str, list[str]]:
        """The hash of what the build reads: the (path, mode, blob id) of every file the input globs match,
        from git's objects (``ls-tree``; the worktree's index when reverts are applied), with the setup's
        identity and the environment's key. Also the matched paths (for the log)."""
        if prepared.reverts:
            worktree = GitRepo(prepared.path)
            try:
                entries = worktree.index_entries()
            finally:
                worktree.close()
        else:
            entries = repository(self.repo).blob_entries(prepared.commit)
        matched = sorted(e for e in entries if any(p.fullmatch(e[0]) for p in self._patterns))
        if not matched:
            raise JudgeAbort(f"the build inputs ({', '.join(self.spec.inputs)}) match no file at {prepared.commit[:10]}: "
                             "every commit would share one build; fix: check the globs (relative to the repository "
                             "root; a pattern without / matches a file name in any folder)", ExitCode.USAGE)
        return self._key(matched, prepared.python), [e[0] for e in matched]

    def _key(self, matched: Sequence[tuple[str, str, str]], python: str | None) -> str:
        payload = {"schema": BUILD_SCHEMA, "setup": self.identity, "python": python,
                   "inputs": [list(e) for e in matched]}
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()

    # ---- build-input states (build-aware cut points, vtbisect.search.build_aware_cut) --------------------

    def state_of(self, commit: str) -> str | None:
        """The build-input state of ``commit`` as committed (no reverts), from git's objects: commits with
        the same state share one build. Without ``--lock`` it is the build cache key itself (so a build an
        earlier run left in the cache counts as built); with one, the inputs and the lock file's blob. None
        without a build cache, or when the inputs match no file there."""
        if not self.spec.cached:
            return None
        with self._lock:
            if commit in self._states:
                return self._states[commit]
        entries = repository(self.repo).blob_entries(commit)
        matched = sorted(e for e in entries if any(p.fullmatch(e[0]) for p in self._patterns))
        state: str | None = None
        if matched and not self.spec.lock:
            state = self._key(matched, None)
        elif matched and self.spec.lock:
            lock_file = self.spec.lock
            manifest = str(Path(lock_file).parent / "pyproject.toml") if Path(lock_file).name == "uv.lock" else None
            lock = [e for e in entries if e[0] in (lock_file, manifest)]
            state = "lock:" + self._key([*matched, *lock], None)
        with self._lock:
            self._states[commit] = state
        return state

    def is_built(self, state: str) -> bool:
        """Whether ``state`` needs no build: this run built or restored it, or (without ``--lock``) the
        build cache holds it from an earlier run."""
        with self._lock:
            if state in self._built_states:
                return True
        return not state.startswith("lock:") and (self.store / state / "build.json").is_file()

    def _built(self, prepared: Prepared) -> None:
        if not prepared.reverts:
            state = self.state_of(prepared.commit)
            if state is not None:
                with self._lock:
                    self._built_states.add(state)

    def _cached_build(self, prepared: Prepared, log: list[str], start: float, event: dict[str, Any]) -> BuildResult:
        key, matched = self.input_key(prepared)
        event["input_key"] = key
        with self._lock:
            self.stats.input_keys.add(key)
        entry = self.store / key
        log.append(f"# build inputs: {len(matched)} files match {', '.join(self.spec.inputs)}; key {key[:16]}")
        self.store.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.store / f"{key}.lock")):
            meta = _read_json(entry / "build.json")
            if meta is not None:
                restore_start = time.monotonic()
                _restore(entry / "files", prepared.path, self.spec.outputs)
                restored = time.monotonic() - restore_start
                saved = max(0.0, float(meta.get("seconds", 0.0)) - restored)
                with self._lock:
                    self.stats.cache_hits += 1
                    self.stats.restore_seconds += restored
                    self.stats.seconds_saved += saved
                event.update(restore_seconds=round(restored, 4), saved_seconds=round(saved, 4),
                             built_at=meta.get("commit"))
                self._built(prepared)
                log.append(f"build cache hit: restored {', '.join(self.spec.outputs)} (hard links) built at "
                           f"{str(meta.get('commit'))[:10]} in {float(meta.get('seconds', 0.0)):.2f}s; restore "
                           f"{restored:.2f}s; setup not run")
                return self._done(True, "cache", log, start, prepared, event)
            with self._lock:
                self.stats.cache_misses += 1
            log.append("build cache miss: running setup")
            ok = self._run_setup(prepared, log, event)
            if ok:
                missing = [out for out in self.spec.outputs if not os.path.lexists(prepared.path / out)]
                if missing:
                    log.append(f"not cached: setup succeeded but left no {', '.join(missing)} (--build-output)")
                else:
                    _save(prepared.path, self.spec.outputs, entry, {"commit": prepared.commit,
                                                                     "seconds": event.get("build_seconds", 0.0),
                                                                     "inputs": matched})
                    log.append(f"build cached under {key[:16]}: {', '.join(self.spec.outputs)}")
                    self._built(prepared)
            return self._done(ok, "built" if ok else "failed", log, start, prepared, event)

    # ---- prebuilt artifacts --------------------------------------------------------------------------------

    def _artifact(self, prepared: Prepared, log: list[str]) -> str:
        """``installed``, ``missing`` or ``failed`` (the install command failed)."""
        assert self.spec.artifact is not None
        where = _expand(self.spec.artifact, prepared.commit)
        log.append(f"# artifact {where}")
        found = self._fetch(where, log)
        if found is None:
            return "missing"
        if self.spec.artifact_checksum:
            expected = self._checksum(_expand(self.spec.artifact_checksum, prepared.commit), log)
            if expected is None:
                return "missing"
            if not found.is_file():
                log.append(f"the checksum names one file, and {found} is a folder: not installed")
                return "missing"
            actual = _sha256(found)
            if actual != expected:
                log.append(f"sha256 mismatch: {found} has {actual}, the checksum file says {expected}: not installed")
                return "missing"
            log.append(f"sha256 {actual} matches")
        if self.spec.artifact_install:
            argv = [arg.replace("{artifact}", str(found)) for arg in self.spec.artifact_install]
            return "installed" if self._run(argv, prepared, log, "artifact install") else "failed"
        if found.is_dir():
            shutil.copytree(found, prepared.path, symlinks=True, dirs_exist_ok=True)
            log.append(f"copied the contents of {found} into the worktree")
        else:
            shutil.copy2(found, prepared.path / found.name)
            log.append(f"copied {found} into the worktree as {found.name}")
        return "installed"

    def _fetch(self, where: str, log: list[str]) -> Path | None:
        scheme = urllib.parse.urlparse(where).scheme
        if scheme == "file":
            where = urllib.parse.unquote(urllib.parse.urlparse(where).path)
        elif scheme in ("http", "https"):
            target = self.downloads / hashlib.sha256(where.encode()).hexdigest()[:32] / (
                Path(urllib.parse.urlparse(where).path).name or "artifact")
            if target.is_file():
                log.append(f"downloaded earlier: {target}")
                return target
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(target.name + f".{os.getpid()}.part")
            try:
                with urllib.request.urlopen(where, timeout=DOWNLOAD_TIMEOUT) as response, partial.open("wb") as out:
                    shutil.copyfileobj(response, out)
            except OSError as error:  # URLError and HTTPError are OSErrors
                partial.unlink(missing_ok=True)
                log.append(f"download failed: {error}")
                return None
            os.replace(partial, target)
            return target
        path = Path(where).expanduser()
        if not path.exists():
            log.append(f"no such file or folder: {path}")
            return None
        return path

    def _checksum(self, where: str, log: list[str]) -> str | None:
        found = self._fetch(where, log)
        if found is None or not found.is_file():
            log.append(f"checksum file {where} missing: the artifact cannot be verified, not installed")
            return None
        words = found.read_text(encoding="utf-8", errors="replace").split()
        if not words or not re.fullmatch(r"[0-9a-fA-F]{64}", words[0]):
            log.append(f"checksum file {found} holds no sha256 (64 hex digits first): not installed")
            return None
        return words[0].lower()

    # ---- per-commit environments (uv) -------------------------------------------------------------------

    def _environment(self, prepared: Prepared, log: list[str], event: dict[str, Any]) -> tuple[bool, Prepared]:
        assert self.spec.lock is not None and self.uv is not None
        lock = prepared.path / self.spec.lock
        log.append(f"# environment from {self.spec.lock}")
        if not lock.is_file():
            log.append(f"{self.spec.lock} does not exist at this commit: untestable")
            return False, prepared
        data = lock.read_bytes()
        project = lock.name == "uv.lock"  # a uv project: uv sync --frozen of the lock, beside its pyproject.toml
        if project:
            manifest = lock.parent / "pyproject.toml"
            data += b"\0" + (manifest.read_bytes() if manifest.is_file() else b"")
        key = hashlib.sha256(json.dumps({"lock": hashlib.sha256(data).hexdigest(), "python": self.base_python,
                                         "uv": self.identity["uv"]}, sort_keys=True).encode()).hexdigest()[:32]
        folder = self.envs / key
        event["env_key"] = key
        self.envs.mkdir(parents=True, exist_ok=True)
        with FileLock(str(self.envs / f"{key}.lock")):
            marker = folder / ".vtbisect-complete"
            if marker.is_file():
                with self._lock:
                    self.stats.env_hits += 1
                event["env"] = "hit"
                log.append(f"environment {key[:16]} exists (same lock file content): reused")
            else:
                shutil.rmtree(folder, ignore_errors=True)  # an unfinished one from an interrupted run
                event["env"] = "created"
                env = {k: v for k, v in self.env.items() if k != "VIRTUAL_ENV"}
                ok = True
                install = ([self.uv, "sync", "--frozen", "--no-install-project", "--python", str(folder / "bin" / "python")]
                           if project else
                           [self.uv, "pip", "sync", "--python", str(folder / "bin" / "python"), str(lock)])
                if project:
                    env["UV_PROJECT_ENVIRONMENT"] = str(folder)
                for argv in ([self.uv, "venv", "--quiet", "--python", self.base_python, str(folder)], install):
                    code, out, err, timed_out = run_child(argv, lock.parent, env, self.spec.setup_timeout)
                    log.append(f"$ {' '.join(argv)}\n{out}{err}" + ("\ntimed out" if timed_out else f"\nexit {code}"))
                    if timed_out or code != 0:
                        ok = False
                        break
                if not ok:
                    shutil.rmtree(folder, ignore_errors=True)
                    log.append("the environment could not be built: untestable")
                    return False, prepared
                marker.write_text(hashlib.sha256(data).hexdigest() + "\n")
                with self._lock:
                    self.stats.envs_created += 1
        bin_dir = folder / "bin"
        path = f"{bin_dir}{os.pathsep}{self.env.get('PATH', os.defpath)}"
        return True, replace(prepared, python=str(bin_dir / "python"),
                             env=(("PATH", path), ("VIRTUAL_ENV", str(folder))))

    # ---- the record --------------------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The JSON record's ``build`` (docs/json-formats.md)."""
        stats = self.stats
        return {
            "setup": list(self.spec.setup), "setup_timeout": self.spec.setup_timeout,
            "setup_failure": self.spec.setup_failure, "build_inputs": list(self.spec.inputs),
            "build_outputs": list(self.spec.outputs), "build_cache": self.spec.cached,
            "artifact": self.spec.artifact, "artifact_missing": self.spec.artifact_missing,
            "lock": self.spec.lock,
            "compiler_cache": self.compiler_cache.get("VTBISECT_COMPILER_CACHE"),
            "compiler_cache_dir": self.compiler_cache.get("CCACHE_DIR") or self.compiler_cache.get("SCCACHE_DIR"),
            "builds": stats.builds, "build_failures": stats.build_failures,
            "cache_hits": stats.cache_hits, "cache_misses": stats.cache_misses,
            "distinct_inputs": len(stats.input_keys),
            "artifacts_installed": stats.artifacts_installed, "artifacts_missing": stats.artifacts_missing,
            "envs_created": stats.envs_created, "env_hits": stats.env_hits,
            "build_seconds": round(stats.build_seconds, 3), "restore_seconds": round(stats.restore_seconds, 3),
            "seconds_saved": round(stats.seconds_saved, 3),
            "events": list(self.events),
        }


@dataclass
class BuildingRunner:
    """A runner that builds each candidate (``Builder.prepare``) before its judge runs. A failed build is
    untestable (every gate skip) or, with ``--setup-failure fatal``, stops the run (``JudgeAbort``)."""

    inner: Runner
    builder: Builder
    gates: tuple[str, ...] = ()
    knobs: Knobs = DEFAULT_KNOBS

    def __post_init__(self) -> None:
        self.gates = self.inner.gates
        self.knobs = self.inner.knobs

    @property
    def deliberate(self) -> frozenset[str]:
        """The gates the inner (gate mode) runner's suite marks deliberate red."""
        marked: frozenset[str] = getattr(self.inner, "deliberate", frozenset())
        return marked

    def oracle_digest(self) -> str:
        digest = json.loads(self.inner.oracle_digest())
        digest["build"] = self.builder.identity
        return json.dumps(digest, sort_keys=True)

    def recipe(self) -> list[str]:
        return self.inner.recipe()

    def judge(self, prepared: Prepared) -> Judgement:
        built = self.builder.prepare(prepared)
        header = f"# build step: {built.how} ({built.seconds:.2f}s)\n{built.log}\n"
        if not built.ok:
            return Judgement(dict.fromkeys(self.gates, "skip"), header, built.seconds, exit_code=125)
        judged = self.inner.judge(built.prepared)
        return Judgement(judged.verdicts, header + "# judge\n" + judged.log, built.seconds + judged.seconds,
                         exit_code=judged.exit_code, details=judged.details)


# ---- files -------------------------------------------------------------------------------------------------


def _expand(template: str, commit: str) -> str:
    return template.replace("{commit}", commit).replace("{short}", commit[:12])


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == BUILD_SCHEMA else None


def _save(worktree: Path, outputs: Sequence[str], entry: Path, meta: Mapping[str, Any]) -> None:
    """Copy the outputs into the cache entry (a copy: the judge may still write to its own), read-only, then
    publish it atomically (``build.json`` last: an entry without one is unfinished)."""
    partial = entry.with_name(entry.name + f".{os.getpid()}.{threading.get_ident()}.tmp")
    shutil.rmtree(partial, ignore_errors=True)
    files = partial / "files"
    for output in outputs:
        source, target = worktree / output, files / output
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir() and not source.is_symlink():
            shutil.copytree(source, target, symlinks=True)
        else:
            shutil.copy2(source, target, follow_symlinks=False)
    for path in files.rglob("*"):
        if path.is_file() and not path.is_symlink():
            path.chmod(path.stat().st_mode & ~0o222)  # a cached build is never written in place
    (partial / "build.json").write_text(json.dumps({"schema": BUILD_SCHEMA, **meta}, sort_keys=True) + "\n",
                                        encoding="utf-8")
    shutil.rmtree(entry, ignore_errors=True)
    os.replace(partial, entry)


def _link(source: Path, target: Path) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)  # another file system (or no hard links): a copy


def _restore(files: Path, worktree: Path, outputs: Sequence[str]) -> None:
    """Hard-link each kept output into the worktree (copies across file systems); folders are made anew."""
    for output in outputs:
        source, target = files / output, worktree / output
        if not os.path.lexists(source):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir() and not source.is_symlink():
            for path in sorted(source.rglob("*")):
                place = target / path.relative_to(source)
                if path.is_symlink():
                    place.symlink_to(os.readlink(path))
                elif path.is_dir():
                    place.mkdir(parents=True, exist_ok=True)
                else:
                    place.parent.mkdir(parents=True, exist_ok=True)
                    _link(path, place)
            target.mkdir(parents=True, exist_ok=True)
        elif source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            _link(source, target)
