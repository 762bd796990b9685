"""envdoc's configuration: ``[tool.vtgate.envdoc]`` in pyproject.toml or ``[envdoc]`` in vtgate.toml
(vtgate.toml wins when it has the table), then overrides (the CLI's flags), then defaults. Every key
is optional; an unknown key or a wrong type is an error naming the key and the file."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from vtgate.envdoc.model import EnvdocError, WrapperSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_DOC = "docs/ENVIRONMENT.md"
DEFAULT_PREFIX = "VT_"
KEYS = ("sources", "doc", "doc_registry", "prefix", "include", "exclude", "wrappers", "allowlist", "deps")


@dataclass(frozen=True)
class AllowEntry:
    """An env var (``X``) or family (``X_*``) the code may read without a doc row, and why;
    ``paths`` (globs) limits it to reads in those files."""

    name: str
    reason: str
    paths: tuple[str, ...] = ()

    @property
    def is_pattern(self) -> bool:
        return self.name.endswith("*")

    def covers(self, name: str) -> bool:
        return name.startswith(self.name[:-1]) if self.is_pattern else name == self.name

    def covers_prefix(self, prefix: str) -> bool:
        """A dynamic read with this literal prefix is covered only by a family its prefix implies."""
        return self.is_pattern and prefix.startswith(self.name[:-1])

    def applies_to(self, file: str) -> bool:
        from vtgate.envdoc.scan import path_matches

        return not self.paths or path_matches(file, self.paths)


@dataclass(frozen=True)
class EnvdocConfig:
    """Where to look and what to check. ``source`` says where the settings came from, for messages."""

    sources: tuple[str, ...] = (".",)
    docs: tuple[str, ...] = (DEFAULT_DOC,)  # pages or folders of pages
    doc_registry: tuple[str, ...] = ()  # "FILE.py:DICT_NAME": the dict's keys are documented names
    prefixes: tuple[str, ...] = (DEFAULT_PREFIX,)  # names that must be documented; "" = all
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    wrappers: tuple[WrapperSpec, ...] = ()
    allowlist: tuple[AllowEntry, ...] = ()
    deps: tuple[str, ...] = ()  # folders of dependency sources, searched only for stale names
    source: str = "defaults"
    jobs: int | None = field(default=None, compare=False)  # worker processes; None: decide by size

    @property
    def doc(self) -> str:
        return self.docs[0] if self.docs else ""

    @property
    def prefix(self) -> str:
        """The prefixes as shown in messages and the JSON (``VT_`` or ``A_,B_``)."""
        return ",".join(self.prefixes)

    def in_scope(self, name: str) -> bool:
        return any(name.startswith(prefix) for prefix in self.prefixes)

    @classmethod
    def load(cls, root: Path, overrides: dict[str, Any] | None = None) -> EnvdocConfig:
        """Settings for the tree at ``root``; ``overrides`` (same keys, None values ignored) win."""
        root = Path(root)
        table, origin = _find_table(root)
        config = cls.from_mapping(table, origin) if table is not None else cls()
        if overrides:
            given = {key: value for key, value in overrides.items() if value is not None}
            if given:
                jobs = given.pop("jobs", None)
                merged = cls.from_mapping(given, "overrides", base=config)
                # `source` names where the allowlist came from, for allowlist findings
                source = "overrides" if "allowlist" in given else config.source
                config = replace(merged, source=source, jobs=jobs if jobs is not None else config.jobs)
        return config

    @classmethod
    def from_mapping(
        cls, table: dict[str, Any], origin: str, base: EnvdocConfig | None = None
    ) -> EnvdocConfig:
        base = base or cls()
        unknown = sorted(set(table) - set(KEYS) - {"jobs"})
        if unknown:
            raise EnvdocError(
                f"{origin}: unknown envdoc key(s) {', '.join(unknown)}; valid keys: {', '.join(KEYS)}"
            )
        values: dict[str, Any] = {"source": origin}
        if "sources" in table:
            values["sources"] = _strings(table["sources"], "sources", origin, allow_str=True)
            if not values["sources"]:
                raise EnvdocError(f'{origin}: sources is empty; list at least one folder or file, e.g. ["."]')
        if "doc" in table:
            values["docs"] = _strings(table["doc"], "doc", origin, allow_str=True)
            if not values["docs"]:
                raise EnvdocError(f"{origin}: doc is empty; name the env var page, e.g. \"docs/ENVIRONMENT.md\"")
        if "doc_registry" in table:
            values["doc_registry"] = _strings(table["doc_registry"], "doc_registry", origin, allow_str=True)
            for spec in values["doc_registry"]:
                file_part, _, name = spec.rpartition(":")
                if not file_part.endswith(".py") or not name.isidentifier():
                    raise EnvdocError(
                        f"{origin}: doc_registry {spec!r} must be FILE.py:DICT_NAME, e.g. vllm/envs.py:environment_variables"
                    )
        if "prefix" in table:
            raw = table["prefix"]
            if isinstance(raw, str):
                values["prefixes"] = (raw,)
            elif isinstance(raw, (list, tuple)) and raw and all(isinstance(item, str) for item in raw):
                values["prefixes"] = tuple(raw)
            else:
                raise EnvdocError(f'{origin}: prefix must be a string or a list of strings (["A_", "B_"]), got {raw!r}')
        for key in ("include", "exclude", "deps"):
            if key in table:
                values[key] = _strings(table[key], key, origin, allow_str=True)
        if "wrappers" in table:
            specs = _strings(table["wrappers"], "wrappers", origin, allow_str=True)
            try:
                values["wrappers"] = tuple(WrapperSpec.parse(text) for text in specs)
            except EnvdocError as error:
                raise EnvdocError(f"{origin}: {error}") from None
        if "allowlist" in table:
            values["allowlist"] = _allowlist(table["allowlist"], origin)
        if "jobs" in table and table["jobs"] is not None:
            if not isinstance(table["jobs"], int) or table["jobs"] < 1:
                raise EnvdocError(f"{origin}: jobs must be a positive integer")
            values["jobs"] = table["jobs"]
        return replace(base, **values)


def _find_table(root: Path) -> tuple[dict[str, Any] | None, str]:
    vtgate_toml = root / "vtgate.toml"
    if vtgate_toml.is_file():
        data = _read_toml(vtgate_toml)
        table = data.get("envdoc", data.get("tool", {}).get("vtgate", {}).get("envdoc"))
        if table is not None:
            return _table(table, "vtgate.toml [envdoc]"), "vtgate.toml [envdoc]"
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        data = _read_toml(pyproject)
        table = data.get("tool", {}).get("vtgate", {}).get("envdoc")
        if table is not None:
            return _table(table, "pyproject.toml [tool.vtgate.envdoc]"), "pyproject.toml [tool.vtgate.envdoc]"
    return None, "defaults"


def _table(value: Any, origin: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EnvdocError(f"{origin} must be a table of settings")
    return value


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise EnvdocError(f"{path} is not valid TOML: {error}") from None


def _string(value: Any, key: str, origin: str, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not value and not allow_empty):
        raise EnvdocError(f"{origin}: {key} must be a non-empty string, got {value!r}")
    return value


def _strings(value: Any, key: str, origin: str, allow_str: bool = False) -> tuple[str, ...]:
    if allow_str and isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) and item for item in value):
        raise EnvdocError(f"{origin}: {key} must be a list of non-empty strings, got {value!r}")
    return tuple(value)


def _allowlist(value: Any, origin: str) -> tuple[AllowEntry, ...]:
    example = '{ name = "CUDA_VISIBLE_DEVICES", reason = "set by the launcher, documented by CUDA" }'
    if not isinstance(value, (list, tuple)):
        raise EnvdocError(f"{origin}: allowlist must be a list of tables like {example}")
    entries: list[AllowEntry] = []
    for position, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise EnvdocError(f"{origin}: allowlist entry {position} must be a table like {example}")
        extra = sorted(set(item) - {"name", "reason", "paths"})
        if extra:
            raise EnvdocError(
                f"{origin}: allowlist entry {position} has unknown key(s) {', '.join(extra)}; use name, reason "
                f"and optionally paths"
            )
        paths = _strings(item.get("paths", []), f"allowlist entry {position} paths", origin, allow_str=True)
        name = item.get("name")
        if not isinstance(name, str) or not name or "*" in name[:-1]:
            raise EnvdocError(
                f'{origin}: allowlist entry {position} needs name = "X" or a family "X_*" (one trailing *), got {name!r}'
            )
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise EnvdocError(
                f"{origin}: allowlist entry {position} ({name}) has no reason: say why {name} may go "
                f"undocumented, e.g. {example}"
            )
        entries.append(AllowEntry(name=name, reason=reason.strip(), paths=paths))
    return tuple(entries)
