"""Prompt text is data: the characters "<eos>" typed in a prompt are five bytes, not the end-of-
sequence control token (decode shows the control token that way, but text never becomes one)."""
from vtengine import tokenizer

text = "a<eos>b"
ids = tokenizer.encode(text)
print("control ids in encode(text):", [t for t in ids if t >= 256])
print(f"encode({text!r}) = {ids}")
