"""tokenizer.encode returns the caller's own list: extending one result (appending <eos>, as a caller
building a sequence does) must not change what the next encode of the same text returns."""
from vtengine import tokenizer

ids = tokenizer.encode("hi")
ids.append(tokenizer.EOS)
print("first (extended):", ids, "| encode again:", tokenizer.encode("hi"))
