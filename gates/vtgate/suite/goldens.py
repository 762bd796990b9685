"""Golden files (docs/contracts.md#golden-files): a pinned observation subset with provenance and history,
stored per tier (``goldens/<tier>/<gate>.json`` unless the gate names a path), written atomically.
Serialization, comparison (the kinds) and storage (here) are separate pieces, as in syrupy."""

from __future__ import annotations

import getpass
import json
import platform
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from vtgate.errors import GateError
from vtgate.output import atomic_write_text

SCHEMA = 1


@dataclass(frozen=True)
class Golden:
    gate: str
    tier: str
    value: Mapping[str, Any]
    provenance: Mapping[str, Any]
    history: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)
    schema: int = SCHEMA

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": self.schema, "gate": self.gate, "tier": self.tier, "value": dict(self.value),
            "provenance": dict(self.provenance), "history": [dict(h) for h in self.history],
        }


def display_path(path: Path, base: Path | None = None) -> str:
    try:
        return str(path.relative_to(base or Path.cwd()))
    except ValueError:
        return str(path)


def load_golden(path: Path, gate: str, base: Path | None = None) -> Golden:
    """Read a golden; a missing file, bad JSON or another schema is a gate error naming the fix."""
    shown = display_path(path, base)
    if not path.is_file():
        raise GateError(f"{shown} is missing: run 'vtgate bless {gate} --reason \"...\"' to measure and pin it", "golden")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise GateError(f"{shown} is not valid JSON ({error.msg} at line {error.lineno}); restore it from git "
                        f"or re-bless: vtgate bless {gate} --reason \"...\"", "golden") from error
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise GateError(f"{shown} has schema {found!r}; this vtgate reads golden schema {SCHEMA}: "
                        f"re-bless it (vtgate bless {gate} --reason \"...\") or use the vtgate that wrote it", "golden")
    if not isinstance(data.get("value"), dict):
        raise GateError(f"{shown} has no 'value' object; re-bless: vtgate bless {gate} --reason \"...\"", "golden")
    if data.get("gate") not in (None, gate):
        raise GateError(f"{shown} belongs to gate '{data.get('gate')}', not '{gate}'; fix the gate's golden path", "golden")
    return Golden(
        gate=gate, tier=str(data.get("tier", "")), value=data["value"],
        provenance=data.get("provenance", {}), history=tuple(data.get("history", [])),
    )


def write_golden(path: Path, golden: Golden) -> None:
    atomic_write_text(path, json.dumps(golden.to_json(), indent=2, ensure_ascii=False) + "\n")


def _git_state(root: Path) -> tuple[str | None, bool | None]:
    try:
        import git

        repo = git.Repo(root, search_parent_directories=True)
        return repo.head.commit.hexsha, repo.is_dirty(untracked_files=False)
    except Exception:  # noqa: BLE001 - not a git tree, or no commit yet: provenance says so
        return None, None


def _numpy_version() -> str | None:
    try:
        return version("numpy")
    except PackageNotFoundError:
        return None


def provenance(root: Path, env: Mapping[str, str], reason: str, meta: Mapping[str, Any] | None = None, *,
               ambient: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Who, when, where and why a pin was measured. ``env`` is the gate's pin; ``ambient`` the knobs
    of the blessing shell that reached the probe (the probe layer's ``AmbientEnv``: none under
    ``--isolate-env``). ``env`` records both, ``ambient_env`` the shell's part alone."""
    commit, dirty = _git_state(root)
    ambient = dict(ambient or {})
    record: dict[str, Any] = {
        "measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "commit": commit,
        "tree_dirty": dirty,
        "host": f"{socket.gethostname()} ({platform.machine()}, {platform.system()})",
        "python": platform.python_version(),
        "numpy": _numpy_version(),
        "env": {**ambient, **env},
        "ambient_env": ambient,
        "reason": reason,
        "by": _user(),
    }
    if meta:
        record["engine"] = {k: meta[k] for k in ("engine", "version", "model", "source_tree_hash") if k in meta}
        if isinstance(meta.get("knobs"), Mapping):
            record["knobs"] = dict(meta["knobs"])  # the knobs as the engine resolved them
        if isinstance(meta.get("arms"), Mapping):
            record["arms"] = dict(meta["arms"])
        if isinstance(meta.get("artifacts"), Mapping):
            record["artifacts"] = {str(k): str(v) for k, v in meta["artifacts"].items()}  # name -> digest
    return record


def _user() -> str | None:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001
        return None


def blessed(old: Golden | None, gate: str, tier: str, value: Mapping[str, Any], record: Mapping[str, Any],
            old_text: str | None, new_text: str) -> Golden:
    """The new golden: new value and provenance, history with one entry appended."""
    entry = {"at": record["measured_at"], "from": old_text, "to": new_text, "reason": record["reason"],
             "commit": record.get("commit")}
    history = (*old.history, entry) if old else (entry,)
    return Golden(gate=gate, tier=tier, value=dict(value), provenance=dict(record), history=history)


def golden_files(directory: Path) -> list[Path]:
    """Every JSON file below ``directory`` that looks like a golden (has "schema" and "gate")."""
    found: list[Path] = []
    if not directory.is_dir():
        return found
    for path in sorted(directory.rglob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(data, dict) and "schema" in data and "gate" in data and "value" in data:
            found.append(path)
    return found


def pinned_artifacts(path: Path | None) -> dict[str, str]:
    """The derived artifacts (name -> digest) a golden was blessed with; {} when it records none."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("provenance", {}).get("artifacts") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def artifact_mismatch(pinned: Mapping[str, str], observation: Mapping[str, Any] | None) -> str | None:
    """Why an observation cannot be judged against a golden blessed with other artifacts, or None."""
    if not pinned or not observation:
        return None
    meta = observation.get("meta")
    seen = meta.get("artifacts") if isinstance(meta, Mapping) else None
    if not isinstance(seen, Mapping):
        return None
    for name, digest in sorted(pinned.items()):
        now = seen.get(name)
        if now is not None and str(now) != digest:
            return (f"the golden was blessed with artifact {name} = {digest[:12]}… but this run used {str(now)[:12]}…: "
                    "a derived artifact changed (weights, a generated model); if that is intended, re-bless the gate "
                    "(vtgate bless GATE --reason ...), else find what changed it")
    return None
