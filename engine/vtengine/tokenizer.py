"""A byte-level tokenizer: ids 0..255 are bytes, then a few specials. Works for any text (UTF-8)."""

from __future__ import annotations

BOS = 256
EOS = 257
PAD = 258
SPECIALS = {BOS: "<bos>", EOS: "<eos>", PAD: "<pad>"}


def encode(text: str, bos: bool = True) -> list[int]:
    ids = list(text.encode("utf-8"))
    return [BOS, *ids] if bos else ids


def decode(ids: list[int]) -> str:
    """Bytes decode as UTF-8 (invalid sequences replaced); specials and unused ids are shown as <id>."""
    out = bytearray()
    parts: list[str] = []
    for token in ids:
        if 0 <= token < 256:
            out.append(token)
            continue
        parts.append(out.decode("utf-8", errors="replace"))
        out = bytearray()
        parts.append(SPECIALS.get(token, f"<{token}>"))
    parts.append(out.decode("utf-8", errors="replace"))
    return "".join(parts)
