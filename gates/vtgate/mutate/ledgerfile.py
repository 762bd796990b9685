"""Writing back to the equivalence ledger: ``vtgate mutate --code --confirm-ledger`` records, on each
entry this run verified, the versions it was verified under (``confirmed_under``).

The ledger is a file people edit (comments, reasons, order), so it is edited as text, one entry's
``confirmed_under`` line at a time, never re-serialized. The edit is checked before it is written:
the new text parses, holds the same entries with the same digests, ids and reasons, and each stamped
entry reads back with exactly this run's versions. It is written atomically (a temporary file in the
same folder, then a rename), so a ledger is never left half-written."""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Mapping, Set
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ENTRY_HEADER = re.compile(r"^\s*\[\[equivalent\]\]\s*(#.*)?$")
ANY_HEADER = re.compile(r"^\s*\[")
DIGEST_LINE = re.compile(r'^\s*digest\s*=\s*"([^"]*)"')
CONFIRMED_LINE = re.compile(r"^\s*confirmed_under\s*=")


class LedgerWriteError(Exception):
    """The ledger could not be edited safely; nothing was written. The message names the file."""


def _inline_table(versions: Mapping[str, str]) -> str:
    # python first, then the packages in order: the shape the ledger's hand-written entries use
    names = sorted(versions, key=lambda name: (name != "python", name))
    return "{ " + ", ".join(f"{name} = {json.dumps(versions[name])}" for name in names) + " }"


def _entries(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    entries = data.get("equivalent", [])
    return [entry for entry in entries if isinstance(entry, Mapping)] if isinstance(entries, list) else []


def stamp_text(text: str, digests: Set[str], versions: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with ``confirmed_under = { ... }`` set to ``versions`` on every ``[[equivalent]]`` whose
    digest is in ``digests`` (an existing ``confirmed_under`` line replaced, else one added after the
    entry's last key), and the digests stamped, in file order."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    stamped: list[str] = []
    out: list[str] = []
    index = 0
    while index < len(lines):
        if not ENTRY_HEADER.match(lines[index]):
            out.append(lines[index])
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not ANY_HEADER.match(lines[end]):
            end += 1
        block = lines[index:end]
        digest = next((m.group(1) for line in block if (m := DIGEST_LINE.match(line))), None)
        if digest is None or digest not in digests:
            out.extend(block)
            index = end
            continue
        kept = [line for line in block if not CONFIRMED_LINE.match(line)]
        last_key = max(i for i, line in enumerate(kept) if line.strip() and not line.lstrip().startswith("#"))
        if not kept[last_key].endswith(("\n", "\r")):
            kept[last_key] += newline
        kept.insert(last_key + 1, f"confirmed_under = {_inline_table(versions)}{newline}")
        out.extend(kept)
        stamped.append(digest)
        index = end
    return "".join(out), stamped


def confirm_ledger(path: Path, digests: Set[str], versions: Mapping[str, str]) -> list[str]:
    """Stamp ``path``'s entries whose digest is in ``digests`` with ``versions``; the digests stamped.
    Raises LedgerWriteError (nothing written) when the file cannot be read or the edit does not
    check out."""
    try:
        text = path.read_text(encoding="utf-8")
        before = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise LedgerWriteError(f"{path}: cannot read the ledger to record versions: {error}") from None
    new_text, stamped = stamp_text(text, digests, versions)
    if not stamped:
        return []
    try:
        after = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as error:
        raise LedgerWriteError(f"{path}: recording versions would make the ledger unreadable ({error}); "
                               "nothing was written: check the entries' layout (one key per line)") from None

    def same(entry: Mapping[str, Any]) -> tuple[Any, ...]:
        return entry.get("digest"), entry.get("id"), entry.get("reason")

    old_entries, new_entries = _entries(before), _entries(after)
    if [same(e) for e in old_entries] != [same(e) for e in new_entries]:
        raise LedgerWriteError(f"{path}: recording versions would change the ledger's entries; nothing was "
                               "written: check the entries' layout (one key per line)")
    wanted = set(stamped)
    for old, new in zip(old_entries, new_entries, strict=True):
        expected = dict(versions) if new.get("digest") in wanted else old.get("confirmed_under")
        if new.get("confirmed_under") != expected:
            raise LedgerWriteError(f"{path}: entry {new.get('digest')} would not read back with the versions "
                                   "recorded; nothing was written")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(new_text)
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return stamped
