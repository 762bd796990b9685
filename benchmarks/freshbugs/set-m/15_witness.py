"""The byte tokenizer on text with a combining accent (decomposed 'e' + U+0301, as macOS file names
and many keyboards produce): ids are the UTF-8 bytes of the text, and decode(encode(s)) == s."""
from vtengine import tokenizer

s = "cafe\u0301"
ids = tokenizer.encode(s)
print(f"encode: {ids} | round trip: {tokenizer.decode(ids[1:]) == s}")
