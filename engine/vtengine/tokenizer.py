"""A byte-level tokenizer: ids 0..255 are bytes, then a few specials. Works for any text (UTF-8)."""

from __future__ import annotations

BOS = 256
EOS = 257
PAD = 258
SPECIALS = {BOS: "<bos>", EOS: "<eos>", PAD: "<pad>"}
VOCAB_SIZE = 259  # every id this tokenizer can produce: a model for text needs at least this vocab


class VocabError(ValueError):
    """A model whose vocabulary cannot hold the byte tokenizer's ids; the message says what to do."""


def check_vocab(vocab_size: int, model: str) -> None:
    """Refuse text for a model whose vocab is smaller than the tokenizer's 256 bytes + specials."""
    if vocab_size < VOCAB_SIZE:
        raise VocabError(
            f"model {model!r} has vocab_size {vocab_size}, smaller than the {VOCAB_SIZE} ids of vtengine's "
            "byte tokenizer (256 bytes + <bos>, <eos>, <pad>), so text prompts cannot be encoded for it: "
            f"use a checkpoint with vocab_size >= {VOCAB_SIZE}, or score token ids directly with "
            "'vtengine score --ids 1,2,3'"
        )


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
