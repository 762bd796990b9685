"""``--confirm-ledger`` edits the ledger people write as text: one ``confirmed_under`` line per
verified entry, replaced or added, everything else byte for byte as it was; an edit that would not
read back exactly is refused with nothing written."""

from __future__ import annotations

import os

import pytest
from vtgate.mutate.ledgerfile import LedgerWriteError, confirm_ledger, stamp_text

VERSIONS = {"numpy": "2.4.6", "python": "3.11.7", "ml_dtypes": "0.7.0"}
LINE = 'confirmed_under = { python = "3.11.7", ml_dtypes = "0.7.0", numpy = "2.4.6" }'

# The shape of goldens/mutations/equivalent.toml: a comment header, entries with and without versions,
# a comment inside an entry and blank lines between them.
LEDGER = '''# Claimed equivalent code mutants.
# confirmed_under: the versions a run verified the entry under.

[[equivalent]]
digest = "aaaa000000000001"
id     = "engine/vtengine/attention.py:123:23:index-shift:0"
reason = "k is padded to a multiple of 4"

[[equivalent]]
digest = "aaaa000000000002"
id     = "engine/vtengine/attention.py:198:23:index-shift:0"
reason = "the same padding"
confirmed_under = { python = "3.10.1", numpy = "1.26.0", ml_dtypes = "0.3.1" }
# checked by hand on 2026-11-30

[[equivalent]]
digest = "aaaa000000000003"
id     = "engine/vtengine/engine.py:124:54:reassociate:0"
reason = "x * 1.0 == x"
'''


def test_an_entry_without_versions_gets_a_line_after_its_last_key_and_the_rest_is_unchanged() -> None:
    text, stamped = stamp_text(LEDGER, {"aaaa000000000001"}, VERSIONS)
    assert stamped == ["aaaa000000000001"]
    assert text == LEDGER.replace('reason = "k is padded to a multiple of 4"\n',
                                  f'reason = "k is padded to a multiple of 4"\n{LINE}\n')


def test_an_entry_with_versions_has_its_line_replaced_and_its_comment_kept() -> None:
    text, stamped = stamp_text(LEDGER, {"aaaa000000000002", "not-in-the-file"}, VERSIONS)
    assert stamped == ["aaaa000000000002"]
    assert text == LEDGER.replace('confirmed_under = { python = "3.10.1", numpy = "1.26.0", ml_dtypes = "0.3.1" }',
                                  LINE)
    assert "# checked by hand on 2026-11-30" in text


def test_the_last_entry_without_a_final_newline_and_crlf_files() -> None:
    text, _ = stamp_text(LEDGER.rstrip("\n"), {"aaaa000000000003"}, VERSIONS)
    assert text.endswith(f'reason = "x * 1.0 == x"\n{LINE}\n')
    crlf = LEDGER.replace("\n", "\r\n")
    text, _ = stamp_text(crlf, {"aaaa000000000001"}, VERSIONS)
    assert f"{LINE}\r\n" in text and "\n" not in text.replace("\r\n", "")


def test_confirm_ledger_writes_the_file_and_keeps_its_mode(tmp_path) -> None:
    path = tmp_path / "equivalent.toml"
    path.write_text(LEDGER)
    path.chmod(0o640)
    assert confirm_ledger(path, {"aaaa000000000003", "aaaa000000000001"}, VERSIONS) == \
        ["aaaa000000000001", "aaaa000000000003"]
    assert path.read_text().count(LINE) == 2 and os.stat(path).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["equivalent.toml"]  # no temporary file left
    assert confirm_ledger(path, set(), VERSIONS) == []


def test_a_layout_the_text_edit_would_break_is_refused_and_nothing_is_written(tmp_path) -> None:
    # A multi-line reason with a line that starts like a table header: the entry cannot be cut out
    # of the text safely, and the edit would change the entry; the check refuses it.
    tricky = LEDGER.replace('reason = "the same padding"', 'reason = """the same padding\n[but see above]"""')
    path = tmp_path / "equivalent.toml"
    path.write_text(tricky)
    with pytest.raises(LedgerWriteError, match="nothing was written"):
        confirm_ledger(path, {"aaaa000000000002"}, VERSIONS)
    assert path.read_text() == tricky
    assert sorted(p.name for p in tmp_path.iterdir()) == ["equivalent.toml"]


def test_an_unreadable_ledger_is_an_error_naming_it(tmp_path) -> None:
    path = tmp_path / "equivalent.toml"
    path.write_text("[[equivalent]\n")
    with pytest.raises(LedgerWriteError, match="equivalent.toml: cannot read the ledger"):
        confirm_ledger(path, {"x"}, VERSIONS)
