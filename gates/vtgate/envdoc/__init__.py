"""vtgate envdoc: every environment variable the source reads has a row in docs/ENVIRONMENT.md, and
every row names a variable that is still read. Python is scanned by parsing (ast), C/C++/CUDA by a
small lexer; the doc table is compared both ways, with literal defaults checked against the doc.

    from vtgate.envdoc import EnvdocConfig, run_envdoc
    report = run_envdoc(root, EnvdocConfig.load(root))
    report.ok, report.summary, report.findings, report.to_json()

The `vtgate envdoc` command and the `envdoc` gate kind are thin wrappers over ``run_envdoc``."""

from __future__ import annotations

import ast
import difflib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from vtgate.envdoc.config import DEFAULT_DOC, AllowEntry, EnvdocConfig
from vtgate.envdoc.cscan import C_SUFFIXES, constants_across_files, helper_calls_across
from vtgate.envdoc.deps import covered, declared, manifest_kind, reads_in
from vtgate.envdoc.doctable import DocRow, parse_doc, parse_docs
from vtgate.envdoc.model import EnvdocError, EnvdocNothingToCheck, EnvRead, FileScan, ParamHelper, WrapperSpec
from vtgate.envdoc.pyhelpers import helper_reads
from vtgate.envdoc.pyscan import decode_python, module_constants, module_parts
from vtgate.envdoc.report import STALE_HINT, EnvdocReport, Finding, compare
from vtgate.envdoc.scan import (
    discover,
    display_path,
    resolve_wrapper_calls,
    scan_all,
    scan_file,
    scanned_suffixes,
)
from vtgate.envdoc.tsscan import available as tree_sitter_available
from vtgate.envdoc.tsscan import go_constants, go_helper_calls, rust_constants, rust_helper_calls

__all__ = [
    "AllowEntry",
    "DocRow",
    "EnvRead",
    "EnvdocConfig",
    "EnvdocError",
    "EnvdocNothingToCheck",
    "EnvdocReport",
    "Finding",
    "WrapperSpec",
    "parse_doc",
    "run_envdoc",
]


def _under(root: Path, path: str) -> Path:
    return Path(path) if Path(path).is_absolute() else root / path


def run_envdoc(root: Path, config: EnvdocConfig) -> EnvdocReport:
    """Scan ``config.sources`` under ``root`` and check them against the doc pages and registries.

    Raises EnvdocError (a configuration problem: missing or empty doc, bad registry, missing source
    folder, a suppression without a reason) and EnvdocNothingToCheck (no source file matched, or no
    read is in scope) instead of giving a verdict; everything else is a Finding in the report."""
    started = time.perf_counter()
    root = Path(root)
    pages = config.docs
    if config.doc_registry and pages == (DEFAULT_DOC,) and not _under(root, DEFAULT_DOC).exists():
        pages = ()  # a registry alone is the doc; the default page is only looked for when it exists
    docs = [(path, display_path(path, root)) for path in (_under(root, doc) for doc in pages)]
    registries = []
    for spec in config.doc_registry:
        file_part, _, dict_name = spec.rpartition(":")
        path = _under(root, file_part)
        registries.append((path, display_path(path, root), dict_name))
    docset = parse_docs(docs, registries)
    for folder in config.deps:
        if not _under(root, folder).is_dir():
            raise EnvdocError(
                f"--deps {folder}: no such folder (key deps, relative to {root}); give the folder that holds the "
                f"dependencies' sources (a Cargo registry, a site-packages, a Go module cache)"
            )
    doc_display = ", ".join(docset.files)
    others: dict[str, list[tuple[Path, str, str]]] = {}
    files = discover(root, config.sources, config.include, config.exclude, others)
    if not files:
        raise EnvdocNothingToCheck(
            f"no Python, C-family, Go or Rust source file matched (sources {', '.join(config.sources)}"
            + (f", include {', '.join(config.include)}" if config.include else "")
            + (f", exclude {', '.join(config.exclude)}" if config.exclude else "")
            + "): check SRC, --include and --exclude; nothing was checked"
        )
    scans = scan_all(files, config.wrappers, config.jobs)
    bad = [f"{scan.file}:{line}" for scan in scans for line in scan.bad_suppressions]
    if bad:
        raise EnvdocError(
            f"suppression without a reason at {', '.join(bad)}: write `vtgate: envdoc-ignore[why this read "
            f"needs no doc row]`"
        )
    notes: list[str] = []
    reads = [read for scan in scans for read in scan.reads]
    reads.extend(resolve_wrapper_calls(scans, config.wrappers, notes))
    across, helper_notes = helper_reads(scans, files)
    across.extend(_c_helper_reads(scans, files))
    across.extend(_go_helper_reads(scans, files))
    across.extend(_rust_helper_reads(scans, files))
    known = {(read.name, read.file, read.line) for read in reads if read.name}
    reads.extend(read for read in across if read.name is None or (read.name, read.file, read.line) not in known)
    notes.extend(helper_notes)
    silenced = {(scan.file, line): reason for scan in scans for line, reason in scan.suppressions.items()}
    suppressed = [read for read in reads if (read.file, read.line) in silenced]
    reads = [read for read in reads if (read.file, read.line) not in silenced]
    reads = _resolve_refs(reads, files)
    reads = _resolve_go_refs(reads, scans, files)
    reads = _resolve_py_refs(reads, files)
    reads = _resolve_py_members(reads, files)
    reads.sort(key=lambda read: (read.file, read.line))
    report = compare(scans, reads, docset.rows, config, doc_display)
    report.doc_warnings = list(docset.warnings)
    report.notes = notes + [note for scan in scans for note in scan.notes]
    report.not_scanned = _not_scanned(others.get("language", []))
    report.unmatched_wrappers = _unmatched_wrappers(config.wrappers, [*reads, *suppressed], files)
    report.suppressed = [
        {"name": read.name or f"{read.prefix}*", "file": read.file, "line": read.line, "reason": silenced[(read.file, read.line)]}
        for read in suppressed
    ]
    if not report.reads and not report.incomplete:
        raise EnvdocNothingToCheck(
            f"{len(files)} source file(s) scanned but no read is in scope (prefix {config.prefix or '(all)'!r}, "
            f"{len(docset.rows)} documented name(s) read nowhere): check --prefix, SRC and --wrapper; "
            f"nothing was checked"
        )
    _explain_stale_literals(report, files)
    _explain_stale_elsewhere(report, [*others.get("language", []), *others.get("build", [])])
    _explain_stale_dependencies(report, [_under(root, folder) for folder in config.deps], _manifests(root, others))
    report.seconds = time.perf_counter() - started
    return report


def _c_helper_reads(scans: list[FileScan], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """Calls from other C-family files of the helpers the C scanner found (``helper_calls_across``)."""
    helpers: dict[str, dict[str, set[int]]] = {}
    for scan in scans:
        for name, positions in scan.c_helpers.items():
            helpers.setdefault(name, {})[scan.file] = positions
    if not helpers:
        return []
    texts = []
    for path, shown in files:
        if shown.endswith(C_SUFFIXES):
            try:
                texts.append((shown, path.read_text(encoding="utf-8", errors="replace")))
            except OSError:
                continue
    return helper_calls_across(texts, helpers)


def _go_helper_reads(scans: list[FileScan], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """Calls of the Go helpers the Go scanner found (a function passing its parameter to ``os.Getenv``)
    from every Go file of the same package: the same folder and ``package`` clause, the helper's own
    file included (``go_helper_calls``). A call from another package (``pkg.Helper("X")``) is not followed."""
    helpers: dict[tuple[str, str], list[ParamHelper]] = {}
    for scan in scans:
        if scan.language != "go":
            continue
        for found in scan.param_helpers.values():
            helpers.setdefault((scan.file.rpartition("/")[0], scan.go_package), []).extend(found)
    if not helpers:
        return []
    reads: list[EnvRead] = []
    for path, shown in files:
        folder = shown.rpartition("/")[0]
        packages = [(package, found) for (where, package), found in helpers.items() if where == folder]
        if not shown.endswith(".go") or not packages:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for package, found in packages:
            reads.extend(go_helper_calls(text, shown, package, found))
    return reads


def _crate_src(shown: str) -> str | None:
    """The ``.../src/`` folder a Rust file is under (its crate's sources), or None."""
    head, found, _ = shown.rpartition("src/")
    return head + found if found and (not head or head.endswith("/")) else None


def _rust_helper_reads(scans: list[FileScan], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """Calls of the ``pub`` Rust helpers the Rust scanner found from the other files under the same
    ``src/`` folder that ``use`` them by name (``rust_helper_calls``); calls in the helper's own file
    were resolved by the scan itself."""
    helpers = [helper for scan in scans if scan.language == "rust" for found in scan.param_helpers.values()
               for helper in found if helper.public and _crate_src(helper.file) is not None]
    if not helpers:
        return []
    reads: list[EnvRead] = []
    for path, shown in files:
        crate = _crate_src(shown) if shown.endswith(".rs") else None
        mine = [helper for helper in helpers if crate is not None and _crate_src(helper.file) == crate and helper.file != shown]
        if not mine:
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for helper in mine:
            if f"{helper.function}(" in text:
                reads.extend(rust_helper_calls(text, shown, helper))
    return reads


def _resolve_refs(reads: list[EnvRead], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """C reads whose name is an identifier defined in another file (``getenv(ENV_X)`` with
    ``#define ENV_X "VT_X"`` in a header): look the ``#define`` up in every C-family source."""
    refs = {read.ref for read in reads if read.ref and read.name is None and not read.ref.startswith("py:")}
    if not refs:
        return reads
    texts = []
    for path, shown in files:
        if shown.endswith(C_SUFFIXES):
            try:
                texts.append(path.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
    values = constants_across_files(texts, refs)
    resolved: list[EnvRead] = []
    for read in reads:
        found = values.get(read.ref) if read.ref and read.name is None else None
        if not found:
            resolved.append(read)
            continue
        resolved.extend(replace(read, name=value, prefix=value, ref="") for value in found)
    return resolved


def _explain_stale_literals(report: EnvdocReport, files: list[tuple[Path, str]]) -> None:
    """A stale row whose name still appears as a string literal in a scanned source is not "delete
    the row": the name is used somewhere, in a form the scanner did not recognise as a read."""
    stale = {finding.name: finding for finding in report.findings if finding.kind == "stale"}
    exact = [name for name in stale if "*" not in name]
    if not exact:
        return
    alternatives = "|".join(re.escape(name) for name in exact)
    pattern = re.compile("[\"'](" + alternatives + ")[\"']")
    seen: dict[str, str] = {}
    for path, shown in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in pattern.finditer(text):
            name = match.group(1)
            if name not in seen:
                seen[name] = f"{shown}:{text.count(chr(10), 0, match.start()) + 1}"
        if len(seen) == len(exact):
            break
    tails = _computed_name_tails([name for name in exact if name not in seen], report, files)
    if not seen and not tails:
        return
    updated = []
    for finding in report.findings:
        where = seen.get(finding.name) if finding.kind == "stale" else None
        if where is None and finding.kind == "stale" and finding.name in tails:
            tail, at, computed, count = tails[finding.name]
            updated.append(
                replace(
                    finding,
                    message=f"{finding.name} is documented here and no scanned source reads it by this name, but its "
                    f"tail {tail!r} is a string literal at {at} and {count} read(s) compute their whole name at run "
                    f"time (first: {computed}): one may build this name; keep the row unless you checked them (a "
                    f"helper that builds the name can be named with --wrapper)",
                    hint=f"a computed name may be it; {tail!r} at {at}",
                )
            )
            continue
        if where is None:
            updated.append(finding)
            continue
        updated.append(
            replace(
                finding,
                message=f"{finding.name} is documented here and appears as a string literal at {where}, but not in a "
                f"read form envdoc recognises: if a helper or registry reads it there, name that helper with --wrapper "
                f"(see docs/envdoc.md, Wrappers); remove the row only if that use is not a read",
                hint=f"read form not recognised; named at {where}",
            )
            if "incomplete" not in finding.message
            else replace(
                finding,
                message=f"{finding.name} is documented here and appears as a string literal at {where}; NOTE the run is "
                f"incomplete: a skipped file may read it",
                hint=f"named at {where}; a skipped file may read it",
            )
        )
    report.findings[:] = updated


def _computed_name_tails(
    names: list[str], report: EnvdocReport, files: list[tuple[Path, str]]
) -> dict[str, tuple[str, str, str, int]]:
    """Stale names that a read with a fully computed name may build: the run has such reads, and the
    name's tail of two or more ``_`` parts is a string literal of a scanned source (Apache MXNet's
    ``std::string("MXNET_") + dev_type + "_" + name[type]`` over ``"MEM_POOL_RESERVE"`` builds
    ``MXNET_GPU_MEM_POOL_RESERVE``, read by ``dmlc::GetEnv(env_var.c_str(), 5)``)."""
    computed = [f"{entry['file']}:{entry['line']}" for entry in report.dynamic_unscoped]
    computed += [f"{f.file}:{f.line}" for f in report.findings if f.kind == "dynamic" and not f.name]
    if not names or not computed:
        return {}
    wanted: dict[str, list[str]] = {}
    for name in names:
        parts = name.split("_")
        for start in range(1, len(parts) - 1):
            tail = "_".join(parts[start:])
            if len(tail) >= 6 and all(parts[start:]):
                wanted.setdefault(tail, []).append(name)
    if not wanted:
        return {}
    pattern = re.compile("[\"'](" + "|".join(re.escape(tail) for tail in sorted(wanted, key=len, reverse=True)) + ")[\"']")
    found: dict[str, tuple[str, str, str, int]] = {}
    for path, shown in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in pattern.finditer(text):
            for name in wanted[match.group(1)]:
                where = f"{shown}:{text.count(chr(10), 0, match.start()) + 1}"
                found.setdefault(name, (match.group(1), where, computed[0], len(computed)))
        if len(found) == len(names):
            break
    return found


def _resolve_go_refs(reads: list[EnvRead], scans: list[FileScan], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """Go and Rust reads whose name is an identifier of another file: a constant of the same package
    (same folder) first, else a constant with that name bound to the same literals in every file of
    that language that binds it (``envconfig.Var(cloudProxyBaseURLEnv)``, ``os.Getenv(pkg.NameEnv)``,
    Rust ``std::env::var(other_crate::NAME_ENV)`` with ``pub const NAME_ENV: &str = "X"``)."""
    suffixes = {"go": ".go", "rust": ".rs"}
    readers: dict[str, ConstantReader] = {"go": go_constants, "rust": rust_constants}
    resolved = reads
    for language, suffix in suffixes.items():
        pending = [read for read in resolved if read.ref and read.name is None and read.file.endswith(suffix)]
        if pending:
            resolved = _resolve_refs_of(resolved, pending, scans, files, language, suffix, readers[language])
    return resolved


ConstantReader = Callable[[str], dict[str, tuple[str, ...]]]


def _resolve_refs_of(reads: list[EnvRead], pending: list[EnvRead], scans: list[FileScan], files: list[tuple[Path, str]],
                     language: str, suffix: str, reader: ConstantReader) -> list[EnvRead]:
    by_folder: dict[str, dict[str, tuple[str, ...]]] = {}
    anywhere: dict[str, set[tuple[str, ...]]] = {}
    folders = {read.file.rpartition("/")[0] for read in pending}
    wanted = {read.ref for read in pending}
    paths = dict((shown, path) for path, shown in files)
    for scan in scans:
        constants = scan.constants
        folder = scan.file.rpartition("/")[0]
        if scan.language != language:
            continue
        if not scan.parsed and (folder in folders or language == "rust"):  # not parsed (no read in it), but it may define the name
            try:
                text = paths[scan.file].read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            constants = reader(text) if folder in folders or any(name in text for name in wanted) else {}
        by_folder.setdefault(folder, {}).update(constants)
        for name, values in constants.items():
            anywhere.setdefault(name, set()).add(values)
    resolved: list[EnvRead] = []
    for read in reads:
        bound: tuple[str, ...] | None = None
        if read.ref and read.name is None and read.file.endswith(suffix):
            bound = by_folder.get(read.file.rpartition("/")[0], {}).get(read.ref)
            if bound is None and len(anywhere.get(read.ref, ())) == 1:
                bound = next(iter(anywhere[read.ref]))
        if not bound:
            resolved.append(read)
            continue
        resolved.extend(replace(read, name=value, prefix=value, ref="") for value in bound)
    return resolved


LANGUAGE_HINTS = {
    "Go": "install vtgate[envdoc-langs] (tree-sitter) to scan them",
    "Rust": "install vtgate[envdoc-langs] (tree-sitter) to scan them",
}


def _not_scanned(files: list[tuple[Path, str, str]]) -> list[dict[str, object]]:
    """Source files in languages envdoc did not read, counted per language, with the first of each."""
    by_language: dict[str, list[str]] = {}
    for _, shown, language in files:
        by_language.setdefault(language, []).append(shown)
    return [
        {
            "language": language,
            "files": len(shown),
            "first": min(shown),
            "why": LANGUAGE_HINTS.get(language, "envdoc has no scanner for this language")
            if language in LANGUAGE_HINTS and not tree_sitter_available()
            else "envdoc has no scanner for this language",
        }
        for language, shown in sorted(by_language.items())
    ]


_CALLED = re.compile(r"(\.|->|::)?\b([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^<>()]*>)?\s*\(")


def _unmatched_wrappers(
    wrappers: tuple[WrapperSpec, ...] | list[WrapperSpec], reads: list[EnvRead], files: list[tuple[Path, str]]
) -> list[dict[str, object]]:
    """Configured wrappers that read nothing: each with the closest spelling called in the scanned
    sources (``.set_env`` for a spec ``set_env:0`` whose calls are all member calls)."""
    used = {read.form.split(" ", 2)[1] for read in reads if read.form.startswith("wrapper ")}
    unmatched = [spec for spec in wrappers if spec.text not in used]
    if not unmatched:
        return []
    spellings: dict[str, int] = {}
    for path, _ in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in _CALLED.finditer(text):
            spelled = ("." if match.group(1) in (".", "->") else "") + match.group(2)
            spellings[spelled] = spellings.get(spelled, 0) + 1
    found: list[dict[str, object]] = []
    for spec in unmatched:
        wanted = ("." if spec.member else "") + spec.dotted[-1]
        candidates = [name for name in spellings if name != wanted]
        if wanted.lstrip(".") in spellings or "." + wanted.lstrip(".") in spellings:
            # the same name is called, but as the other kind of call (a member call for a bare spec)
            other = wanted[1:] if wanted.startswith(".") else "." + wanted
            close = [other] if other in spellings else []
        else:
            close = difflib.get_close_matches(wanted, candidates, n=1, cutoff=0.75)
        record: dict[str, object] = {"wrapper": spec.text, "closest": close[0] if close else None}
        if close:
            record["closest_calls"] = spellings[close[0]]
            record["message"] = (
                f"wrapper {spec.text} matched no call in the scanned sources; the closest spelling called is "
                f"{close[0]} ({spellings[close[0]]} call(s)): did you mean --wrapper '{close[0]}:{spec.position}'?"
            )
        else:
            record["message"] = (
                f"wrapper {spec.text} matched no call in the scanned sources, and no similar name is called: "
                f"check the spelling, or remove it"
            )
        found.append(record)
    return found


def _explain_stale_elsewhere(report: EnvdocReport, others: list[tuple[Path, str, str]]) -> None:
    """A stale entry whose name appears in a file envdoc does not read (a source in an unscanned
    language, or a build file: a CMake option or ``$ENV{X}``, a Cargo feature) is never "delete the
    row": the message says where the name appears instead."""
    stale = [finding.name for finding in report.findings if finding.kind == "stale" and "*" not in finding.name]
    if not stale or not others:
        return
    pattern = re.compile(r"\b(" + "|".join(re.escape(name) for name in stale) + r")\b")
    seen: dict[str, tuple[str, str]] = {}
    for path, shown, kind in others:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in pattern.finditer(text):
            name = match.group(1)
            if name not in seen:
                seen[name] = (f"{shown}:{text.count(chr(10), 0, match.start()) + 1}", kind)
        if len(seen) == len(stale):
            break
    if not seen:
        return
    updated = []
    for finding in report.findings:
        hit = seen.get(finding.name) if finding.kind == "stale" else None
        if hit is None:
            updated.append(finding)
            continue
        where, kind = hit
        updated.append(
            replace(
                finding,
                message=f"{finding.name} is documented here but not read by scanned code; also appears in {where} "
                f"({kind}, not scanned by envdoc): keep the row if that file reads or sets it",
                hint=f"not read by scanned code; also appears in {where}",
            )
        )
        report.stale_elsewhere.append({"name": finding.name, "also_in": where, "kind": kind})
    report.findings[:] = updated


def _resolve_py_refs(reads: list[EnvRead], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """Python reads whose name is a constant imported from another module (``from .consts import
    NAME_ENV``): the module is found among the scanned files by its dotted path (a ``src/`` layout or
    a different root is matched on the trailing components), and its module-level constant read."""
    pending = {read.ref[3:] for read in reads if read.ref.startswith("py:") and read.name is None}
    if not pending:
        return reads
    modules: dict[tuple[str, ...], list[tuple[Path, str]]] = {}
    for path, shown in files:
        if shown.endswith(".py"):
            parts = module_parts(shown)
            for start in range(len(parts)):
                modules.setdefault(parts[start:], []).append((path, shown))
    cache: dict[str, dict[str, tuple[str, ...]]] = {}
    values: dict[str, tuple[str, ...]] = {}
    for ref in pending:
        dotted = tuple(ref.split("."))
        module, name = dotted[:-1], dotted[-1]
        candidates = modules.get(module, [])
        if not candidates and len(dotted) > 2:  # `EnvVars.NAME` with EnvVars a class imported from pkg.constants
            module, name = dotted[:-2], ".".join(dotted[-2:])
            candidates = modules.get(module, [])
        if len(candidates) != 1:
            continue  # unknown or ambiguous module: the read stays dynamic
        path, shown = candidates[0]
        if shown not in cache:
            try:
                cache[shown] = module_constants(decode_python(path.read_bytes()))
            except (OSError, UnicodeDecodeError, SyntaxError, LookupError):
                cache[shown] = {}
        if name in cache[shown]:
            values[ref] = cache[shown][name]
    resolved: list[EnvRead] = []
    for read in reads:
        found = values.get(read.ref[3:]) if read.ref.startswith("py:") and read.name is None else None
        if not found:
            resolved.append(replace(read, ref="") if read.ref.startswith("py:") else read)
            continue
        resolved.extend(replace(read, name=value, prefix=value, ref="") for value in found)
    return resolved


# An env-shaped value: upper case (``DS_BUILD_CPU_ADAM``), or an upper-case word and ``_`` then any
# identifier characters (``DS_BUILD_FlashAttention``, one of DeepSpeed's op builders).
_ENV_SHAPED = re.compile(r"[A-Z][A-Z0-9_]*\Z|[A-Z][A-Z0-9]*_[A-Za-z0-9_]+\Z")


def _is_test_file(shown: str) -> bool:
    parts = shown.split("/")
    return any(part in ("tests", "test") for part in parts[:-1]) or parts[-1].startswith("test_")


def _resolve_py_members(reads: list[EnvRead], files: list[tuple[Path, str]]) -> list[EnvRead]:
    """Python reads whose name is a class attribute (``ALL_OPS[op].BUILD_VAR``, ``self.BUILD_VAR``)
    or a method's return (``get_accelerator().visible_devices_envs()[0]``) of classes of the tree:
    every env-shaped string literal assigned to that attribute in a class body, or returned (alone
    or in a list/tuple) by every ``return`` of a method of that name, is a candidate. Any other value
    for it anywhere leaves the read dynamic; classes in test files count only for reads in that file."""
    pending = {read.ref for read in reads if read.name is None and read.ref.startswith(("pyattr:", "pymeth:"))}
    if not pending:
        return [replace(read, ref="") if read.ref.startswith(("pyattr:", "pymeth:")) else read for read in reads]
    words = {ref.split(":", 1)[1] for ref in pending}
    found: dict[str, dict[str, list[str]]] = {}  # ref -> file -> values
    poisoned: set[str] = set()
    for path, shown in files:
        if not shown.endswith(".py"):
            continue
        try:
            text = decode_python(path.read_bytes())
        except (OSError, UnicodeDecodeError, LookupError):
            continue
        if not any(word in text for word in words):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            for statement in node.body:
                targets: list[ast.expr] = []
                value: ast.expr | None = None
                if isinstance(statement, ast.Assign):
                    targets, value = list(statement.targets), statement.value
                elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                    targets, value = [statement.target], statement.value
                for target in targets:
                    if isinstance(target, ast.Name) and f"pyattr:{target.id}" in pending:
                        ref = f"pyattr:{target.id}"
                        if isinstance(value, ast.Constant) and isinstance(value.value, str) and _ENV_SHAPED.match(value.value):
                            found.setdefault(ref, {}).setdefault(shown, []).append(value.value)
                        elif not (isinstance(value, ast.Constant) and value.value is None):
                            poisoned.add(ref)
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and f"pymeth:{statement.name}" in pending:
                    ref = f"pymeth:{statement.name}"
                    for ret in (n for n in ast.walk(statement) if isinstance(n, ast.Return)):
                        items = ret.value.elts if isinstance(ret.value, (ast.List, ast.Tuple)) else [ret.value]
                        if items and all(isinstance(i, ast.Constant) and isinstance(i.value, str) and _ENV_SHAPED.match(i.value) for i in items):
                            found.setdefault(ref, {}).setdefault(shown, []).extend(i.value for i in items)  # type: ignore[union-attr]
                        else:
                            poisoned.add(ref)
    resolved: list[EnvRead] = []
    for read in reads:
        if not read.ref.startswith(("pyattr:", "pymeth:")):
            resolved.append(read)
            continue
        by_file = found.get(read.ref, {}) if read.ref not in poisoned else {}
        values = sorted({v for shown, vs in by_file.items() if not _is_test_file(shown) or shown == read.file for v in vs})
        if read.name is not None or not values:
            resolved.append(replace(read, ref=""))
            continue
        resolved.extend(replace(read, name=value, prefix=value, ref="") for value in values)
    return resolved


DEPENDENCY_PLACES = "~/.cargo/registry/src, .venv/lib/python3.X/site-packages, $(go env GOMODCACHE), node_modules"


def _manifests(root: Path, others: dict[str, list[tuple[Path, str, str]]]) -> list[tuple[Path, str, str]]:
    """The manifests below the sources, and the root's own (sources = ["src"] leaves the project's
    pyproject.toml above them, and it declares the dependencies the sources import)."""
    found = list(others.get("manifest", []))
    seen = {path.resolve() for path, _, _ in found}
    try:
        entries = sorted(root.iterdir())
    except OSError:
        entries = []
    for path in entries:
        kind = manifest_kind(path.name)
        if kind is not None and path.is_file() and path.resolve() not in seen:
            found.append((path, display_path(path, root), kind))
    return found


def _scan_dependency_file(path: Path, shown: str, words: Sequence[str]) -> FileScan:
    """A dependency's file, by the tree's scanners; the user's --wrapper specs name the tree's helpers,
    not a dependency's."""
    return scan_file(path, shown, (), words)


def _explain_stale_dependencies(report: EnvdocReport, folders: list[Path], manifests: list[tuple[Path, str, str]]) -> None:
    """A stale entry may be read by a library the tree depends on, not by the tree (``RUST_LOG`` by
    tracing-subscriber, ``HF_HOME`` by huggingface_hub). With ``--deps DIR`` the stale names are looked
    for in those folders with the tree's scanners: a name one of them reads is no longer stale (it is
    listed in ``read_by_dependency``); a name they only mention keeps its row, with where. Without
    ``--deps``, a tree whose manifests declare dependencies never hears "delete the row": the message
    says how many declared dependencies were not scanned and how to scan them."""
    stale = [f.name for f in report.findings if f.kind == "stale" and "*" not in f.name]
    found = declared(manifests)
    names = sorted({name for item in found for name in item.names})
    count = len(names)
    report.dependencies = {
        "declared": count,
        "manifests": [item.manifest for item in found],
        "scanned": [str(folder) for folder in folders],
    }
    if not stale:
        return
    scan = reads_in(folders, stale, _scan_dependency_file, scanned_suffixes()) if folders else None
    missing: list[str] = []
    if scan is not None:
        offered, missing = covered(folders, names)
        report.dependencies.update(files=scan.files, parsed=scan.parsed, found=len(offered), missing=missing)
    updated: list[Finding] = []
    for finding in report.findings:
        if finding.kind != "stale" or finding.name not in stale:
            updated.append(finding)
            continue
        if scan is not None and finding.name in scan.read:
            file, line = scan.read[finding.name]
            report.read_by_dependency.append({"name": finding.name, "doc": finding.file, "doc_line": finding.line,
                                              "file": file, "line": line})
            continue
        if finding.hint != STALE_HINT:  # an earlier step says where the name appears: that message stays
            updated.append(finding)
            continue
        if scan is not None and finding.name in scan.mentioned:
            file, line = scan.mentioned[finding.name]
            updated.append(replace(
                finding,
                message=f"{finding.name} is documented here but not read by scanned code; a dependency mentions it at "
                f"{file}:{line}, in a form envdoc does not recognise as a read: keep the row if that code reads it",
                hint=f"not read by scanned code; a dependency names it at {file}:{line}",
            ))
            continue
        if scan is not None and not missing:
            updated.append(replace(
                finding,
                message=f"{finding.message} (dependencies scanned: {', '.join(str(f) for f in folders)}"
                + (f", a folder for each of the {count} declared" if count else "") + "; none reads it)",
            ))
            continue
        if scan is not None:
            shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
            updated.append(replace(
                finding,
                message=f"{finding.name} is documented here but not read by scanned code, nor by the dependencies "
                f"scanned ({', '.join(str(f) for f in folders)}); {len(missing)} of {count} declared dependencies "
                f"have no folder there ({shown}): keep the row if one of them reads it, or add their folder with --deps",
                hint=f"not read by scanned code or scanned dependencies; {len(missing)} dependencies not scanned",
            ))
            continue
        if count:
            where = ", ".join(item.manifest for item in found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
            updated.append(replace(
                finding,
                message=f"{finding.name} is documented here but not read by scanned code; {count} declared "
                f"dependencies ({where}) were not scanned: keep the row if one of them reads it, or scan them with "
                f"--deps DIR ({DEPENDENCY_PLACES})",
                hint="not read by scanned code; dependencies not scanned",
            ))
            continue
        updated.append(finding)
    report.findings[:] = updated

