"""Read the documented env vars from the doc pages, written the way projects write them: markdown
tables with a name column (any header order, 2 or more columns, several tables per file), bulleted
definition lists (``- `NAME` (default `1`): effect``), a heading per variable (``### NAME``), inline
``(env: NAME)`` notes in a table cell, and a code registry (a module-level dict whose keys are the
names, as vLLM's ``environment_variables``). A family is a name with a wildcard anywhere, spelled
``*``, ``<NAME>`` or ``{name}`` (``VT_LAYER_*_SKIP``, ``LLAMA_ARG_<NAME>``, ``{PREFIX}_DEBUG``).

Also (issue 24): Sphinx ``.. envvar:: NAME`` (default from its ``:Default:`` field), RST bullets
``* **NAME**: ...`` and definition lists, clap ``--help`` dumps (``[env: NAME=]``), ``**Environment
Variable**: `NAME``` lines, pages pulled in by include directives, and, on a page without an env
table, names in code spans of running text (marked "prose": they document a read but are never
called stale).

A row that cannot be read is a warning naming file:line, and is skipped; so is a page with no
recognisable entry (the warning names the formats tried). A missing or unreadable doc, or a bad
registry spec, is a configuration error (exit 2)."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from vtgate.envdoc.model import EnvdocError

HEADER_LINE = "| name | default | effect | bit-exact with default? |"
UNSET_MARKERS = {"", "-", "—", "–", "(unset)", "unset", "(none)", "none", "(empty)", "n/a", "null", "nullptr"}
FALSE_WORDS = {"false", "0", "no", "off"}
TRUE_WORDS = {"true", "1", "yes", "on"}
_WILDCARD = re.compile(r"<[^<>\s]*>|\{[^{}\s]*\}|\*")
_PLAIN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SHOUTED = re.compile(r"^[A-Z_][A-Z0-9_]*$")  # what a bullet or heading must look like to count
_SEPARATOR_CELL = re.compile(r"^:?-{1,}:?$")
_NAME_HEADERS = ("name", "variable", "env var", "envvar", "environment variable", "env", "knob", "setting")
_DEFAULT_IN_TEXT = re.compile(
    r"\bdefaults?\b(?:\s+(?:is|to|value))?\s*[:=]?\s*"
    r"""(?:`(?P<code>[^`]*)`|(?P<word>[-A-Za-z0-9~/"'$][^\s,;)`]*?))\.?(?=[\s,;)<]|$)""",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*[-*+]\s+(?:\*\*)?`(?P<name>[^`]+)`(?:\*\*)?(?P<rest>.*)$")
_HEADING = re.compile(r"^#{2,6}\s+(?:`(?P<code>[^`]+)`|(?P<bare>[A-Z_][A-Za-z0-9_<>{}*]*))\s*#*\s*$")
_INLINE_ENV = re.compile(r"\(env:\s*(?P<names>[A-Za-z0-9_<>{}*,\s`]+)\)")
# more forms (issue 24): Sphinx `.. envvar:: NAME`, RST bold bullets `* **NAME**: ...` and ``NAME``,
# definition lists (a name alone on a line, its definition indented below), clap --help dumps
# `[env: NAME=]`, `**Environment Variable**: `NAME`` lines, include directives, and code spans in prose
_ENVVAR_DIRECTIVE = re.compile(r"^\s*\.\.\s+envvar::\s+(?P<name>\S+)\s*$")
_FIELD_DEFAULT = re.compile(r"^\s*:default:\s*(?P<value>.*)$", re.IGNORECASE)
_RST_BULLET = re.compile(r"^\s*[-*+]\s+(?:\*\*(?P<bold>[A-Za-z_][A-Za-z0-9_<>{}*]*)\*\*|``(?P<lit>[^`]+)``)(?P<rest>.*)$")
# a bullet that is the bare name alone, its description in the more indented lines below (Apache
# MXNet's env_var.md: `* MXNET_GPU_WORKER_NTHREADS` then `  - Values: Int ```(default=2)````)
_BARE_BULLET = re.compile(r"^(?P<indent>\s*)[-*+]\s+(?P<name>[A-Z][A-Z0-9]*_[A-Z0-9_<>{}*]*)\s*$")
_DEFINITION_TERM = re.compile(r"^(?:``(?P<lit>[A-Z][A-Z0-9_<>{}*]*)``|(?P<bare>[A-Z][A-Z0-9]*_[A-Z0-9_<>{}*]*))\s*$")
_CLAP_ENV = re.compile(r"\[env:\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*)=")
_LABELLED_ENV = re.compile(r"\benvironment variable\b\**\s*:\**\s*`(?P<name>[^`]+)`", re.IGNORECASE)
_INCLUDE = re.compile(
    r"^\s*(?:\.\.\s+(?:include|literalinclude)::\s*(?P<rst>\S+)|```\{include\}\s*(?P<myst>\S+)|"
    r"--8<--\s+\"(?P<snip>[^\"]+)\")\s*$"
)
_CODE_SPAN = re.compile(r"``(?P<rst>[^`]+)``|`(?P<md>[^`]+)`")
_NOT_NAMES = {"NOTE", "WARNING", "TODO", "IMPORTANT", "TIP", "CAUTION", "DANGER", "FIXME", "NB"}
DOC_SUFFIXES = (".md", ".markdown", ".mdx", ".rst", ".txt")
FORMATS_TRIED = (
    "a table with a name column, bullets (- `NAME`: ..., * **NAME**: ...), a heading per variable (### NAME), "
    "(env: NAME) notes, [env: NAME=] --help dumps, .. envvar:: NAME, definition lists (NAME, then an indented "
    "definition), **Environment Variable**: `NAME` lines, and NAME in code spans of prose"
)


@dataclass(frozen=True)
class DocRow:
    """One documented knob, or a family when the name holds a wildcard (``is_pattern``).

    ``default`` is the default as written (backticks removed); ``compare_default`` is False when the
    doc gives no comparable default (a heading or registry entry without one)."""

    name: str
    default: str
    effect: str
    bit_exact: str
    line: int
    file: str = ""
    compare_default: bool = True
    origin: str = ""  # "prose": a name in a code span of running text, not an entry (never called stale)

    @property
    def is_pattern(self) -> bool:
        return "*" in self.name

    @property
    def pattern_prefix(self) -> str:
        """The literal text before the first wildcard."""
        return self.name.split("*", 1)[0]

    @property
    def pattern_suffix(self) -> str:
        """The literal text after the last wildcard."""
        return self.name.rsplit("*", 1)[-1] if self.is_pattern else ""

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.file else str(self.line)

    @property
    def default_value(self) -> str | None:
        """The default as a value: None when the cell says the knob is unset by default, else the
        text with one pair of surrounding quotes removed (so `"1"`, `'1'` and `1` all mean 1)."""
        text = self.default.strip()
        if text.lower() in UNSET_MARKERS:
            return None
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            return text[1:-1]
        return text

    def covers(self, name: str) -> bool:
        if not self.is_pattern:
            return name == self.name
        return _pattern_regex(self.name).fullmatch(name) is not None

    def covers_dynamic(self, prefix: str, suffix: str) -> bool:
        """May a computed name known to start with ``prefix`` and end with ``suffix`` be one of this
        family? The family's literal ends must agree with what is known, and something must be known."""
        if not self.is_pattern:
            return False
        head, tail = self.pattern_prefix, self.pattern_suffix
        if not (head or tail):
            return False
        return (not head or prefix.startswith(head)) and (not tail or suffix.endswith(tail))


_REGEX_CACHE: dict[str, re.Pattern[str]] = {}


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    regex = _REGEX_CACHE.get(pattern)
    if regex is None:
        regex = _REGEX_CACHE[pattern] = re.compile(".*".join(re.escape(part) for part in pattern.split("*")))
    return regex


def normalise_name(text: str) -> str | None:
    """An env var name or family as written in a doc, in canonical form (wildcards as ``*``), or
    None when it is not one. ``$NAME``, backticks and ``NAME=...`` are accepted."""
    name = _strip_code(text)
    if name.startswith("$"):
        name = name[1:]
    name = name.split("=", 1)[0].strip()
    pattern = _WILDCARD.sub("*", name)
    pattern = re.sub(r"\*+", "*", pattern)
    if not pattern or not all(ch.isalnum() or ch in "_*" for ch in pattern) or not pattern.isascii():
        return None
    if pattern == "*" or pattern[0].isdigit():
        return None
    return pattern


def values_equal(code: str, documented: str) -> bool:
    """The doc's default rule: equal text, or both the same boolean spelled any of
    ``true/True/1/yes/on`` or ``false/False/0/no/off`` (case-insensitive)."""
    if code == documented:
        return True
    a, b = code.strip().lower(), documented.strip().lower()
    return (a in FALSE_WORDS and b in FALSE_WORDS) or (a in TRUE_WORDS and b in TRUE_WORDS)


def split_row(line: str) -> list[str]:
    """Cells of a markdown table row; ``\\|`` is a literal pipe."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = re.split(r"(?<!\\)\|", body)
    return [cell.strip().replace("\\|", "|") for cell in cells]


def _strip_code(cell: str) -> str:
    text = cell.strip()
    for marker in ("**", "__"):
        if len(text) > 4 and text.startswith(marker) and text.endswith(marker):
            text = text[2:-2].strip()
    while len(text) >= 2 and text.startswith("`") and text.endswith("`"):
        text = text[1:-1].strip()
    return text


@dataclass(frozen=True)
class DocSet:
    """Every entry read from the doc pages and registries, and the warnings met on the way."""

    rows: list[DocRow]
    warnings: list[str]
    files: list[str]
    tables: int = 0  # tables with a name column (an empty one still says "this is the env var page")


def doc_files(path: Path, display: str) -> list[tuple[Path, str]]:
    """``path`` itself, or the markdown files below it when it is a folder (sorted)."""
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.suffix.lower() in (".md", ".markdown") and p.is_file())
        if not found:
            raise EnvdocError(f"doc folder {display} holds no .md file: point --doc at the page(s) that list the env vars")
        return [(p, f"{display.rstrip('/')}/{p.relative_to(path).as_posix()}") for p in found]
    return [(path, display)]


def parse_docs(docs: Sequence[tuple[Path, str]], registries: Sequence[tuple[Path, str, str]] = ()) -> DocSet:
    """Read every doc page (``(path, display)``, folders expanded) and registry
    (``(path, display, dict name)``). The first entry for a name wins; a later one is a warning."""
    rows: list[DocRow] = []
    warnings: list[str] = []
    files: list[str] = []
    seen: dict[str, DocRow] = {}

    def add(row: DocRow) -> None:
        first = seen.get(row.name)
        if first is not None and "help" in (first.origin, row.origin):
            return  # `## MODEL_ID` above its own `[env: MODEL_ID=]`: one entry written twice
        if first is not None:
            warnings.append(f"{row.where}: second entry for {row.name} (first at {first.where}); it was skipped")
            return
        seen[row.name] = row
        rows.append(row)

    tables: list[int] = []
    queue: list[tuple[Path, str, str]] = []  # (path, shown, included from)
    for path, display in docs:
        queue.extend((file_path, shown, "") for file_path, shown in doc_files(path, display))
    read: set[str] = set()
    prose: list[DocRow] = []
    while queue:
        file_path, shown, included_from = queue.pop(0)
        key = str(file_path.resolve())
        if key in read:
            continue
        read.add(key)
        files.append(shown)
        text = _read_text(file_path, shown)
        before = len(rows) + len(tables)
        page_tables: list[int] = []
        page_rows = _parse_markdown(text, shown, warnings, page_tables)
        tables.extend(page_tables)
        for row in page_rows:
            add(row)
        includes = _includes(text, file_path, shown, warnings)
        queue[0:0] = [(target, target_shown, shown) for target, target_shown in includes]
        structured = bool(page_rows) or bool(page_tables)
        if not page_tables:  # a page without an env table: names in its code spans are documented, from prose
            prose.extend(_prose_names(text, shown))
        if not structured and not includes and len(rows) + len(tables) == before:
            found_prose = any(row.file == shown for row in prose)
            warnings.append(
                f"{shown}: no env var entry recognised{' (included from ' + included_from + ')' if included_from else ''}; "
                f"tried {FORMATS_TRIED}"
                + ("; its code-span names were taken as documented (read from prose)" if found_prose else "")
                + _code_include_hint(text)
            )
    for path, display, dict_name in registries:
        files.append(f"{display}:{dict_name}")
        for row in parse_registry(path, display, dict_name):
            add(row)
    for row in prose:
        if row.name not in seen:
            seen[row.name] = row
            rows.append(row)
    return DocSet(rows=rows, warnings=warnings, files=files, tables=len(tables))


_CODE_INCLUDE = re.compile(r'(?:--8<--\s+"|\.\.\s+literalinclude::\s*|\{(?:literal)?include\}\s*)(?P<file>[^":\s]+\.py)')


def _code_include_hint(text: str) -> str:
    """A page that only includes a code file (vLLM's ``--8<-- "vllm/envs.py:..."``): name the registry."""
    match = _CODE_INCLUDE.search(text)
    if match is None:
        return ""
    return (
        f"; it includes the code file {match['file']}: if a dict there holds the names, name it with "
        f"--doc-registry {match['file']}:DICT"
    )


def _includes(text: str, path: Path, shown: str, warnings: list[str]) -> list[tuple[Path, str]]:
    """Pages pulled in by ``.. include:: FILE`` (RST), ```{include} FILE`` (MyST) or
    ``--8<-- "FILE"`` (mkdocs snippets), relative to the page; code files (``envs.py``) are not pages."""
    found: list[tuple[Path, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _INCLUDE.match(line)
        if not match:
            continue
        target = (match["rst"] or match["myst"] or match["snip"] or "").strip()
        if not target.lower().endswith(DOC_SUFFIXES):
            continue
        resolved = (path.parent / target) if not target.startswith("/") else path.parent / target.lstrip("/")
        if not resolved.is_file():
            warnings.append(f"{shown}:{number}: includes {target}, which does not exist; not read")
            continue
        base = shown.rsplit("/", 1)[0] + "/" if "/" in shown else ""
        found.append((resolved, (base + target).replace("/./", "/")))
    return found


def _prose_names(text: str, shown: str) -> list[DocRow]:
    """Names in code spans of running text (``NAME``, `NAME`, `NAME=1`), outside code blocks."""
    rows: list[DocRow] = []
    in_fence = False
    in_rst_block = False
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if _is_fence(lines, number - 1):
            in_fence = not in_fence
            continue
        if in_fence:
            export = re.match(r"^\s*(?:export\s+|set\s+|\$env:)?(?P<name>[A-Z][A-Z0-9_]*_[A-Z0-9_]*)=", line)
            if export:  # `export POETRY_VIRTUALENVS_PATH=...`, `OLLAMA_NO_CLOUD=1 ollama serve` in a shell example
                rows.append(DocRow(export["name"], "", "", "", number, shown, compare_default=False, origin="prose"))
            continue
        if stripped.startswith(".. code-block::") or stripped.startswith(".. code::") or stripped.endswith("::"):
            in_rst_block = True
            continue
        if in_rst_block:
            if stripped and not line[:1].isspace():
                in_rst_block = False
            else:
                continue
        for match in _CODE_SPAN.finditer(line):
            name = normalise_name(match["rst"] or match["md"] or "")
            if name and _SHOUTED.match(name.replace("*", "_")) and "_" in name.strip("_") and not name.endswith("_"):
                rows.append(DocRow(name, "", "", "", number, shown, compare_default=False, origin="prose"))
    return rows


def parse_doc(path: Path, display: str | None = None) -> list[DocRow]:
    """The entries of one doc page (or folder); warnings are dropped (see :func:`parse_docs`)."""
    return parse_docs([(path, display or str(path))]).rows


def _read_text(path: Path, shown: str) -> str:
    if not path.exists():
        raise EnvdocError(
            f"{shown} does not exist: create it with a table\n  {HEADER_LINE}\n  |---|---|---|---|\n"
            f"and one row per knob, or point at the right file with --doc FILE "
            f'(or doc = "..." under [tool.vtgate.envdoc] in pyproject.toml)'
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise EnvdocError(f"{shown} cannot be read: {error.strerror or error}") from None
    if b"\0" in data[:8192]:
        raise EnvdocError(f"{shown} is a binary file, not a markdown page: point --doc at the env var page")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise EnvdocError(
            f"{shown} is not UTF-8 text ({error.reason} at byte {error.start}): save it as UTF-8"
        ) from None


def _column(header: Sequence[str], words: Sequence[str]) -> int | None:
    lowered = [cell.lower().strip("`*_ ") for cell in header]
    for word in words:
        for index, cell in enumerate(lowered):
            if cell == word:
                return index
    for word in words:
        for index, cell in enumerate(lowered):
            if re.search(rf"\b{re.escape(word)}\b", cell):
                return index
    return None


def _parse_markdown(text: str, shown: str, warnings: list[str], tables: list[int]) -> list[DocRow]:
    lines = text.splitlines()
    rows: list[DocRow] = []
    index = 0
    in_fence = False
    heading: tuple[str, int] | None = None  # a `### NAME` heading waiting for its default
    heading_default: str | None = None

    def close_heading() -> None:
        nonlocal heading, heading_default
        if heading is not None:
            name, number = heading
            rows.append(
                DocRow(name, heading_default or "", "", "", number, shown, compare_default=heading_default is not None)
            )
        heading, heading_default = None, None

    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if _is_fence(lines, index):
            in_fence = not in_fence
            index += 1
            continue
        if in_fence:
            clap = _CLAP_ENV.search(line)  # a clap --help dump: `[env: MODEL_ID=]`, `[default: ...]` nearby
            if clap:
                default_match = re.search(r"\[default:\s*([^\]]*)\]", " ".join(lines[max(0, index - 2) : index + 3]))
                default = default_match.group(1).strip() if default_match else ""
                rows.append(DocRow(clap["name"], default, "", "", index + 1, shown, compare_default=False, origin="help"))
            index += 1
            continue
        directive = _ENVVAR_DIRECTIVE.match(line)
        if directive:  # Sphinx: `.. envvar:: NAME`, then an indented field list with :Default:
            name = normalise_name(directive["name"])
            if name:
                field_default: str | None = None
                cursor = index + 1
                while cursor < len(lines) and (not lines[cursor].strip() or lines[cursor][:1].isspace()):
                    field = _FIELD_DEFAULT.match(lines[cursor])
                    if field and field_default is None:
                        # ``0`` (or auto-enabled for ...): the literal is the default; prose is not compared
                        literal = re.match(r"^``(?P<code>[^`]*)``\s*(?:\(.*)?$|^`(?P<one>[^`]*)`\s*(?:\(.*)?$", field["value"].strip())
                        field_default = (literal["code"] if literal["code"] is not None else literal["one"]) if literal else None
                        if field_default and field_default.lower() in UNSET_MARKERS:
                            field_default = f'"{field_default}"'  # ``none`` in code is the string none, not "unset"
                    cursor += 1
                rows.append(
                    DocRow(name, field_default or "", "", "", index + 1, shown, compare_default=field_default is not None)
                )
            index += 1
            continue
        labelled = _LABELLED_ENV.search(line)
        if labelled and not stripped.startswith("|"):  # `**Environment Variable**: `POETRY_CACHE_DIR``
            name = normalise_name(labelled["name"])
            if name and _SHOUTED.match(name.replace("*", "_")):
                rows.append(DocRow(name, "", "", "", index + 1, shown, compare_default=False))
                index += 1
                continue
        rst_bullet = _RST_BULLET.match(line)
        if rst_bullet and heading is None:  # `* **NVTE_FRAMEWORK**: ...`, `- ``NVTE_X``: ...`
            name = normalise_name(rst_bullet["bold"] or rst_bullet["lit"] or "")
            rest = rst_bullet["rest"]
            if (
                name
                and _SHOUTED.match(name.replace("*", "_"))
                and name not in _NOT_NAMES
                and len(name) > 1
                and "=" not in (rst_bullet["lit"] or "")
                and rest.lstrip().startswith((":", "-", "—", "(", "–"))
            ):
                found = _DEFAULT_IN_TEXT.search(rest.replace("``", "`"))
                default = (found["code"] if found["code"] is not None else found["word"]) if found else ""
                rows.append(DocRow(name, default, rest.strip(" -—:"), "", index + 1, shown, compare_default=found is not None))
                index += 1
                continue
        bare = _BARE_BULLET.match(line)
        if bare and heading is None:
            depth = len(bare["indent"].expandtabs())
            below = index + 1
            while below < len(lines) and lines[below].strip() and len(lines[below].expandtabs()) - len(
                lines[below].expandtabs().lstrip()
            ) > depth:
                below += 1
            name = normalise_name(bare["name"])
            if name and below > index + 1:
                body = " ".join(part.strip() for part in lines[index + 1 : below]).replace("```", "`")
                found = _DEFAULT_IN_TEXT.search(body)
                default = (found["code"] if found["code"] is not None else found["word"]) if found else ""
                rows.append(DocRow(name, default, body, "", index + 1, shown, compare_default=found is not None))
                index += 1
                continue
        term = _DEFINITION_TERM.match(line)
        if (
            term
            and heading is None
            and index + 1 < len(lines)
            and lines[index + 1][:1].isspace()
            and lines[index + 1].strip()
            and not (index + 1 < len(lines) and set(lines[index + 1].strip()) <= set("=-~^"))
        ):  # a definition list: the name alone on its line, its definition indented below
            name = normalise_name(term["lit"] or term["bare"])
            if name:
                found = _DEFAULT_IN_TEXT.search(lines[index + 1].replace("``", "`"))
                default = (found["code"] if found["code"] is not None else found["word"]) if found else ""
                rows.append(DocRow(name, default, lines[index + 1].strip(), "", index + 1, shown, compare_default=found is not None))
                index += 1
                continue
        if stripped.startswith("#"):
            close_heading()
            match = _HEADING.match(stripped)
            if match:
                name = normalise_name(match["code"] or match["bare"])
                if name and _SHOUTED.match(name.replace("*", "_")) and ("_" in name or match["code"]):
                    heading = (name, index + 1)
            index += 1
            continue
        if heading is not None and heading_default is None:
            found = _DEFAULT_IN_TEXT.search(line)
            if found:
                heading_default = found["code"] if found["code"] is not None else found["word"]
        if stripped.startswith("|") and index + 1 < len(lines) and _is_separator(lines[index + 1]):
            close_heading()
            table_rows: list[DocRow] = []
            noted: list[DocRow] = []
            table_warnings: list[str] = []
            end = _parse_table(lines, index, shown, table_rows, noted, table_warnings)
            rows.extend(noted)  # `(env: NAME)` notes count in any table
            if _is_env_table(split_row(line), [split_row(row) for row in lines[index + 2 : end]]):
                tables.append(index + 1)
                rows.extend(table_rows)
                warnings.extend(table_warnings)
            # else: a table of something else ("Model name | Size"): its rows are not env vars
            index = end
            continue
        bullet = _BULLET.match(line)
        if bullet and heading is None and "=" not in bullet["name"]:  # `X=true` is an example, not an entry
            name = normalise_name(bullet["name"])
            if name and _SHOUTED.match(name.replace("*", "_")) and "_" in name:
                rest = bullet["rest"]
                found = _DEFAULT_IN_TEXT.search(rest)
                default = (found["code"] if found["code"] is not None else found["word"]) if found else ""
                effect = rest.split(":", 1)[1].strip() if ":" in rest else rest.strip(" -—:")
                rows.append(DocRow(name, default, effect, "", index + 1, shown, compare_default=found is not None))
        index += 1
    close_heading()
    return rows


def _is_fence(lines: list[str], index: int) -> bool:
    """A markdown code fence (```` ``` ```` or ``~~~``), not an RST section underline (a line of
    ``~`` under a title)."""
    stripped = lines[index].strip()
    if not stripped.startswith(("```", "~~~")):
        return False
    above = lines[index - 1].strip() if index > 0 else ""
    underline = set(stripped) == {"~"} and bool(above) and not above.startswith(("```", "~~~"))
    return not underline


def _is_separator(line: str) -> bool:
    cells = split_row(line) if line.strip().startswith("|") else []
    return bool(cells) and all(_SEPARATOR_CELL.match(cell.replace(" ", "")) for cell in cells)


def _is_env_table(header: list[str], body: list[list[str]]) -> bool:
    """Does this table list env vars? It has a name column and either no rows yet, or at least
    one row whose name is written the way env vars are (upper case, digits, _, a wildcard)."""
    name_col = _column(header, _NAME_HEADERS)
    if name_col is None:
        return False
    if not body:
        return True
    for cells in body:
        if name_col < len(cells):
            name = normalise_name(cells[name_col])
            if name and _SHOUTED.match(name.replace("*", "_")):
                return True
    return False


def _parse_table(
    lines: list[str], start: int, shown: str, rows: list[DocRow], noted: list[DocRow], warnings: list[str]
) -> int:
    """Rows of the table whose header is at ``start`` (``(env: NAME)`` notes go to ``noted``);
    returns the index after the table."""
    header = split_row(lines[start])
    name_col = _column(header, _NAME_HEADERS)
    default_col = _column(header, ("default", "default value"))
    effect_col = _column(header, ("effect", "description", "meaning", "purpose", "explanation", "what it does"))
    exact_col = _column(header, ("bit-exact with default?", "bit-exact"))
    index = start + 2
    while index < len(lines) and lines[index].lstrip().startswith("|"):
        line = lines[index]
        number = index + 1
        index += 1
        cells = split_row(line)
        inline = [m for m in _INLINE_ENV.finditer(line)]
        if inline:  # `(env: LLAMA_ARG_THREADS)` in a cell documents that name, wherever the table is
            default_found = _DEFAULT_IN_TEXT.search(line)
            for match in inline:
                for part in re.split(r"[,\s]+", match["names"]):
                    name = normalise_name(part)
                    if name:
                        default = ""
                        if default_found:
                            default = default_found["code"] if default_found["code"] is not None else default_found["word"]
                        noted.append(DocRow(name, default, "", "", number, shown, compare_default=False))
            continue
        if name_col is None:
            continue
        if len(cells) != len(header):
            warnings.append(
                f"{shown}:{number}: table row has {len(cells)} cells, its header has {len(header)} "
                f"({' | '.join(header)}); row skipped (escape a pipe inside a cell as \\|)"
            )
            continue
        raw = cells[name_col]
        if not raw.strip():  # a CLI table's flag with no env var (LocalAI's cli-reference.md `-h, --help`)
            continue
        # split before stripping code spans: `$LOCALAI_DEBUG`, `$DEBUG` is two names, each in its own span
        names = [normalise_name(part) for part in re.split(r"\s*(?:,|/|<br\s*/?>)\s*", raw) if part.strip()]
        if not names or any(name is None for name in names):
            warnings.append(f"{shown}:{number}: {raw!r} is not an env var name (letters, digits, _; a family "
                            f"is written PREFIX_* or PREFIX_<NAME>); row skipped")
            continue
        default = _strip_code(cells[default_col]) if default_col is not None else ""
        effect = cells[effect_col] if effect_col is not None else ""
        exact = cells[exact_col] if exact_col is not None else ""
        for name in names:
            assert name is not None
            rows.append(DocRow(name, default, effect, exact, number, shown, compare_default=default_col is not None))
    return index


def parse_registry(path: Path, display: str, dict_name: str) -> list[DocRow]:
    """The keys of the module-level dict ``dict_name`` in the Python file ``path`` as documented
    names; a value that is a lambda reading that same name with a literal default gives the default
    (``"VLLM_X": lambda: os.getenv("VLLM_X", "1")``), any other value leaves it uncompared."""
    text = _read_text(path, display)
    try:
        tree = ast.parse(text, filename=display)
    except SyntaxError as error:
        raise EnvdocError(f"{display}:{error.lineno}: the registry module does not parse: {error.msg}") from None
    for node in tree.body:
        target = None
        assigned = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, assigned = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, assigned = node.target, node.value
        if isinstance(target, ast.Name) and target.id == dict_name and assigned is not None:
            if not isinstance(assigned, ast.Dict):
                raise EnvdocError(
                    f"{display}:{node.lineno}: {dict_name} is not a dict literal ({{'NAME': ...}}), so its keys "
                    f"cannot be read as the documented names"
                )
            rows: list[DocRow] = []
            for key, value in zip(assigned.keys, assigned.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    default = _registry_default(key.value, value)
                    rows.append(
                        DocRow(key.value, default or "", "", "", key.lineno, display, compare_default=default is not None)
                    )
            return rows
    raise EnvdocError(
        f"{display} has no module-level dict named {dict_name}: give --doc-registry FILE.py:DICT_NAME "
        f"with the name of the dict whose keys are the env var names"
    )


def _registry_default(name: str, value: ast.expr) -> str | None:
    for node in ast.walk(value):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        first, second = node.args[0], node.args[1]
        if (
            called in ("get", "getenv")
            and isinstance(first, ast.Constant)
            and first.value == name
            and isinstance(second, ast.Constant)
            and isinstance(second.value, (str, int, float, bool))
        ):
            return str(second.value)
    return None
