"""06: tokenizer.decode(ids) is a function of ids alone: bytes decode as UTF-8 with invalid or cut
sequences replaced (U+FFFD), so the same ids give the same text whatever was decoded before, and a
truncated character at the end of the ids is shown as a replacement, never dropped."""
from vtengine import tokenizer

check = "\u2713"  # 3 UTF-8 bytes: e2 9c 93
ids = tokenizer.encode("ok " + check, bos=False)
head, tail = ids[:-1], ids[-1:]
first = tokenizer.decode(head)
second = tokenizer.decode(tail)
print("decode(ids cut inside the last character):", ascii(first))
print("decode(the remaining byte) right after:", ascii(second))
print("decode(the remaining byte) again:", ascii(tokenizer.decode(tail)))
print("decode of whole ids:", ascii(tokenizer.decode(ids)), "| round trip", tokenizer.decode(ids) == "ok " + check)
print("summary:", ascii(first), ascii(second))
