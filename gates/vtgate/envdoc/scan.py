"""Find the source files under the configured sources and scan them, in worker processes when the
tree is large. Files that cannot be decoded or parsed are skipped and reported (the run is then
incomplete); calls of configured wrappers are resolved once every file's definitions are known."""

from __future__ import annotations

import contextlib
import fnmatch
import io
import multiprocessing
import os
import re
import threading
import tokenize
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from vtgate.envdoc.cscan import C_SUFFIXES, scan_c_text
from vtgate.envdoc.deps import manifest_kind
from vtgate.envdoc.model import EnvdocError, EnvRead, Expr, FileScan, WrapperCall, WrapperDef, WrapperSpec
from vtgate.envdoc.pyscan import decode_python, make_reads, prefilter_words, scan_python_text
from vtgate.envdoc.tsscan import GO_SUFFIXES, RUST_SUFFIXES, available, scan_go_text, scan_rust_text

PY_SUFFIXES = (".py", ".pyw")
SKIPPED_DIRS = {"__pycache__", "node_modules", "build", "dist", "site-packages"}
PARALLEL_MIN_BYTES = 4 * 1024 * 1024  # below this a process pool costs more than it saves
NAME_KEYWORDS = ("name", "key", "var", "env", "env_var", "envvar", "variable")


def display_path(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` in POSIX form when below it, else absolute."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def _is_skipped_dir(directory: Path, name: str) -> bool:
    return (
        name.startswith(".")
        or name in SKIPPED_DIRS
        or name.endswith(".egg-info")
        or (directory / name / "pyvenv.cfg").is_file()
    )


def path_matches(relpath: str, patterns: Sequence[str]) -> bool:
    """Does ``relpath`` match one of the globs (``*`` crosses ``/``; ``dir/`` = below dir)?"""
    return _matches(relpath, patterns)


def _matches(relpath: str, patterns: Sequence[str]) -> bool:
    for pattern in patterns:
        if fnmatch.fnmatchcase(relpath, pattern) or fnmatch.fnmatchcase(relpath, pattern.rstrip("/") + "/*"):
            return True
        if pattern.startswith("**/") and fnmatch.fnmatchcase(relpath, pattern[3:]):
            return True
    return False


# Files envdoc does not scan, by language: counted and named at the end of every run, and searched
# for the names of stale doc entries (a name such a file mentions may be read there).
OTHER_LANGUAGES = {
    ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
    ".ts": "TypeScript", ".tsx": "TypeScript", ".java": "Java", ".kt": "Kotlin", ".scala": "Scala",
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".rb": "Ruby", ".swift": "Swift", ".cs": "C#",
    ".php": "PHP", ".lua": "Lua", ".jl": "Julia", ".zig": "Zig", ".pl": "Perl", ".ps1": "PowerShell",
    ".bat": "batch", ".cmd": "batch",
}
BUILD_FILE_NAMES = {"CMakeLists.txt": "CMake", "Cargo.toml": "Cargo", "meson.build": "Meson", "Makefile": "Make",
                    "GNUmakefile": "Make", "Dockerfile": "Dockerfile", "configure.ac": "autoconf"}
BUILD_SUFFIXES = {".cmake": "CMake", ".mk": "Make", ".bzl": "Bazel", ".gradle": "Gradle"}
TREE_SITTER_LANGUAGES = {".go": "Go", ".rs": "Rust"}


def scanned_suffixes() -> tuple[str, ...]:
    """Suffixes of the files envdoc parses here: Go and Rust only with the tree-sitter extra."""
    return PY_SUFFIXES + C_SUFFIXES + ((GO_SUFFIXES + RUST_SUFFIXES) if available() else ())


def other_kind(name: str) -> tuple[str, str] | None:
    """("language", Go) for a source file envdoc does not scan, ("build", CMake) for a build file."""
    if name in BUILD_FILE_NAMES:
        return "build", BUILD_FILE_NAMES[name]
    if name.startswith("Dockerfile.") or name.endswith(".Dockerfile"):  # Dockerfile.cuda-13.0-ubi9, app.Dockerfile
        return "build", "Dockerfile"
    suffix = os.path.splitext(name)[1]
    if suffix in BUILD_SUFFIXES:
        return "build", BUILD_SUFFIXES[suffix]
    if suffix in OTHER_LANGUAGES:
        return "language", OTHER_LANGUAGES[suffix]
    if suffix in TREE_SITTER_LANGUAGES and not available():
        return "language", TREE_SITTER_LANGUAGES[suffix]
    return None


def discover(
    root: Path,
    sources: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    others: dict[str, list[tuple[Path, str, str]]] | None = None,
) -> list[tuple[Path, str]]:
    """Source files (Python, C-family, and Go and Rust with the tree-sitter extra) below each source,
    as (path, display path), sorted and de-duplicated. Hidden folders, ``__pycache__``, build/dist,
    egg-info and virtual environments are skipped while walking (a source given explicitly is always
    entered). ``others``, when given, collects the files not scanned: ``others["language"]`` holds
    (path, shown, language) of sources in a language envdoc does not read, ``others["build"]`` the
    build files (CMakeLists.txt, Cargo.toml, ...), both after --include/--exclude, and
    ``others["manifest"]`` (path, shown, kind) the files that declare dependencies (Cargo.toml,
    pyproject.toml, requirements*.txt, go.mod, ...) after --exclude only: an --include narrows the
    sources scanned, not the dependencies the tree has."""
    found: dict[str, tuple[Path, str]] = {}
    suffixes = scanned_suffixes()
    for source in sources:
        start = (root / source) if not Path(source).is_absolute() else Path(source)
        if not start.exists():
            raise EnvdocError(
                f"source {source!r} does not exist (looked at {start}): pass existing folders or files as SRC, "
                f"or fix sources = [...] under [tool.vtgate.envdoc]"
            )
        for path in _walk(start):
            if not path.name.endswith(suffixes):
                kind = other_kind(path.name) if others is not None else None
                manifest = manifest_kind(path.name) if others is not None else None
                if (kind is not None or manifest is not None) and others is not None:
                    shown = display_path(path, root)
                    excluded = bool(exclude) and _matches(shown, exclude)
                    if kind is not None and (not include or _matches(shown, include)) and not excluded:
                        others.setdefault(kind[0], []).append((path, shown, kind[1]))
                    if manifest is not None and not excluded:
                        others.setdefault("manifest", []).append((path, shown, manifest))
                continue
            shown = display_path(path, root)
            if include and not _matches(shown, include):
                continue
            if exclude and _matches(shown, exclude):
                continue
            found.setdefault(os.path.realpath(path), (path, shown))
    return sorted(found.values(), key=lambda item: item[1])


def _walk(start: Path) -> Iterator[Path]:
    if start.is_file():
        yield start
        return
    for directory, dirs, files in os.walk(start):
        here = Path(directory)
        dirs[:] = sorted(name for name in dirs if not _is_skipped_dir(here, name))
        for name in sorted(files):
            yield here / name


def scan_file(path: Path, shown: str, wrappers: Sequence[WrapperSpec], words: Sequence[str]) -> FileScan:
    """Read, decode and scan one file. Only files whose text contains one of ``words`` are parsed."""
    try:
        data = path.read_bytes()
    except OSError as error:
        return FileScan(file=shown, error=f"cannot be read: {error.strerror or error}")
    is_python = shown.endswith(PY_SUFFIXES)
    try:
        text = decode_python(data) if is_python else data.decode("utf-8")
    except (UnicodeDecodeError, SyntaxError, LookupError) as error:
        where = f" at byte {error.start}" if isinstance(error, UnicodeDecodeError) else ""
        return FileScan(
            file=shown, error=f"is not valid UTF-8 (or its declared encoding){where}: re-save it as UTF-8"
        )
    if is_python:
        if not any(word in text for word in words):
            return FileScan(file=shown, language="python")
        result = scan_python_text(text, shown, wrappers)
        result.language = "python"
    elif shown.endswith(GO_SUFFIXES):
        result = scan_go_text(text, shown, wrappers)
        result.language = "go"
    elif shown.endswith(RUST_SUFFIXES):
        result = scan_rust_text(text, shown, wrappers)
        result.language = "rust"
    else:
        result = scan_c_text(text, shown, wrappers)
        result.language = "c"
    if SUPPRESS_WORD in text:
        result.suppressions, result.bad_suppressions = find_suppressions(text, python=is_python)
    return result


SUPPRESS_WORD = "envdoc-ignore"
_SUPPRESSION = re.compile(r"(?:#|//|/\*)\s*vtgate:\s*envdoc-ignore(?:\[(?P<reason>[^\]]*)\])?")


def find_suppressions(text: str, python: bool = True) -> tuple[dict[int, str], list[int]]:
    """``# vtgate: envdoc-ignore[reason]`` (or ``//``, ``/*``) in a comment silences the reads on its
    line, or on the next line when the comment stands alone. Returns line -> reason, and the lines of
    markers that give no reason (an error: say why the read needs no doc row). A marker inside a
    string literal is not a comment and does nothing."""
    silenced: dict[int, str] = {}
    bad: list[int] = []
    lines = text.splitlines()
    for number, column, comment in _comments(text, lines, python):
        match = _SUPPRESSION.search(comment)
        if match is None:
            continue
        reason = (match["reason"] or "").strip()
        if not reason:
            bad.append(number)
            continue
        silenced[number] = reason
        if not lines[number - 1][:column].strip():
            silenced.setdefault(number + 1, reason)
    return silenced, bad


def _comments(text: str, lines: list[str], python: bool) -> Iterator[tuple[int, int, str]]:
    """(line, column, text) of each comment that mentions the marker."""
    if python:
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.COMMENT and SUPPRESS_WORD in token.string:
                    yield token.start[0], token.start[1], token.string
        except (tokenize.TokenError, SyntaxError):
            return
        return
    for number, line in enumerate(lines, start=1):
        at = line.find(SUPPRESS_WORD)
        if at < 0:
            continue
        start = max(line.rfind("//", 0, at), line.rfind("/*", 0, at))
        if start >= 0 and line[:start].count('"') % 2 == 0:  # not inside a string literal
            yield number, start, line[start:]


def _scan_chunk(
    chunk: Sequence[tuple[str, str]], wrappers: Sequence[WrapperSpec], words: Sequence[str]
) -> list[FileScan]:
    return [scan_file(Path(path), shown, wrappers, words) for path, shown in chunk]


def scan_all(
    files: Sequence[tuple[Path, str]], wrappers: Sequence[WrapperSpec], jobs: int | None = None
) -> list[FileScan]:
    """Scan ``files``; ``jobs`` worker processes (None: one per CPU when the tree is large, else 1)."""
    words = prefilter_words(wrappers)
    if jobs is None:
        total = 0
        for path, _ in files:
            with contextlib.suppress(OSError):
                total += path.stat().st_size
            if total >= PARALLEL_MIN_BYTES:
                break
        jobs = min(os.cpu_count() or 1, 8) if total >= PARALLEL_MIN_BYTES else 1
    if jobs <= 1 or len(files) < 2:
        return [scan_file(path, shown, wrappers, words) for path, shown in files]
    items = [(str(path), shown) for path, shown in files]
    size = max(1, len(items) // (jobs * 4))
    chunks = [items[i : i + size] for i in range(0, len(items), size)]
    results: list[FileScan] = []
    # fork is fastest, but forking a process that runs threads (vtgate check runs gates in threads)
    # can deadlock the child; spawn then.
    context = multiprocessing.get_context("spawn" if threading.active_count() > 1 else None)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for part in pool.map(_scan_chunk, chunks, [tuple(wrappers)] * len(chunks), [words] * len(chunks)):
            results.extend(part)
    return results


def expand_re_exports(
    qualified: tuple[str, ...],
    re_exports: dict[tuple[str, ...], tuple[str, ...]],
    by_suffix: dict[tuple[str, ...], tuple[str, ...]] | None = None,
) -> tuple[str, ...]:
    """``pkg.flag`` -> ``pkg.utils.env.flag`` when ``pkg/__init__.py`` re-exports it (followed
    through chains of re-exports, at most 8 steps)."""
    for _ in range(8):
        for cut in range(len(qualified), 0, -1):
            target = re_exports.get(qualified[:cut]) or (by_suffix or {}).get(qualified[:cut])
            if target is not None and target != qualified[:cut]:
                qualified = (*target, *qualified[cut:])
                break
        else:
            return qualified
    return qualified


def _suffix_lookup(re_exports: dict[tuple[str, ...], tuple[str, ...]]) -> dict[tuple[str, ...], tuple[str, ...]]:
    """The re-exports keyed also by their trailing components (at least two), so that
    ``accelerate.state.flag`` finds the key of ``src/accelerate/state.py`` (a src/ layout); when
    two keys share a suffix with different targets, neither is used for it."""
    table: dict[tuple[str, ...], tuple[str, ...] | None] = {}
    for key, target in re_exports.items():
        for start in range(1, len(key) - 1):
            suffix = key[start:]
            table[suffix] = target if suffix not in table or table[suffix] == target else None
    return {key: target for key, target in table.items() if target is not None}


def resolve_wrapper_calls(
    scans: Sequence[FileScan], wrappers: Sequence[WrapperSpec], notes: list[str] | None = None
) -> list[EnvRead]:
    """Turn wrapper calls into reads, using the wrappers' definitions (any file) to place keyword
    arguments and to supply a parameter's own default when a call leaves it out. A call whose callee
    only matches after following re-exports (``pkg.flag`` for ``pkg.utils.env.flag``) counts; calls
    of a same-named function that still match no spec are counted in ``notes``."""
    specs = {spec.text: spec for spec in wrappers}
    defs: dict[str, list[WrapperDef]] = {}
    re_exports: dict[tuple[str, ...], tuple[str, ...]] = {}
    for scan in scans:
        re_exports.update(scan.re_exports)
        for definition in scan.wrapper_defs:
            defs.setdefault(definition.spec, []).append(definition)
    by_suffix = _suffix_lookup(re_exports)
    reads: list[EnvRead] = []
    unmatched: dict[str, list[str]] = {}
    for scan in scans:
        for call in scan.wrapper_calls:
            spec = specs.get(call.spec)
            if spec is None:
                expanded = expand_re_exports(call.qualified, re_exports, by_suffix)
                spec = next((candidate for candidate in wrappers if candidate.matches(expanded)), None)
                if spec is None:
                    unmatched.setdefault(call.qualified[-1], []).append(f"{call.file}:{call.line}")
                    continue
                call = replace(call, spec=spec.text, form=f"wrapper {spec.text}")
            reads.extend(_resolve_call(call, spec, defs.get(call.spec, [])))
    for scan in scans:
        for name, line in scan.other_calls:
            unmatched.setdefault(name, []).append(f"{scan.file}:{line}")
    if notes is not None:
        for spec in wrappers:
            missed = unmatched.get(spec.dotted[-1], []) if len(spec.dotted) > 1 else []
            if missed:
                notes.append(
                    f"wrapper {spec.text}: {len(missed)} other call(s) of a function named {spec.dotted[-1]} do not "
                    f"resolve to it and were not read (first: {min(missed, key=_location_key)}); the bare name "
                    f"({spec.dotted[-1]}:{spec.position}) would read them"
                )
    return reads


def _location_key(where: str) -> tuple[str, int]:
    file, _, line = where.rpartition(":")
    return file, int(line) if line.isdigit() else 0


def _param(definitions: Sequence[WrapperDef], position: int) -> list[str]:
    return [d.params[position] for d in definitions if position < len(d.params)]


def _resolve_call(call: WrapperCall, spec: WrapperSpec, definitions: Sequence[WrapperDef]) -> list[EnvRead]:
    kwargs = dict(call.kwargs)
    name: Expr | None = None
    if spec.position < len(call.args) and None not in call.args[: spec.position + 1]:
        name = call.args[spec.position]
        if spec.position < len(call.arg_lines):
            call = replace(call, line=call.arg_lines[spec.position])
    else:
        for keyword in (*_param(definitions, spec.position), *NAME_KEYWORDS):
            if keyword in kwargs:
                name = kwargs[keyword]
                break
    if name is None:
        if None not in call.args and not call.has_double_star:
            return []  # the name parameter is optional and this call leaves it out: nothing is read
        name = Expr(static=None, prefix="")
    default: Expr | None = None
    position = spec.default_position
    if position is not None:
        if position < len(call.args) and None not in call.args[: position + 1]:
            default = call.args[position]
        else:
            for keyword in (*_param(definitions, position), "default"):
                if keyword in kwargs:
                    default = kwargs[keyword]
                    break
            else:
                for definition in definitions:
                    own = dict(definition.defaults)
                    if position < len(definition.params) and definition.params[position] in own:
                        default = own[definition.params[position]]
                        break
    return make_reads(name, default, call.file, call.line, call.form)
