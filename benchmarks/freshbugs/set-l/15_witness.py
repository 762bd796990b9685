"""Byte-level encode of non-ASCII text: ids are the UTF-8 bytes 0..255, and decode(encode(s)) == <bos>s."""
from vtengine import tokenizer

for text in ("hello", "héllo ✓"):
    ids = tokenizer.encode(text)
    print(f"encode({text!r}) = {ids} | round trip: {tokenizer.decode(ids) == '<bos>' + text}")
