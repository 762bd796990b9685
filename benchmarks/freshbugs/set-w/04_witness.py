"""04: tokenizer.decode shows every id: bytes as UTF-8 text, specials and unused ids as <id>
("specials and unused ids are shown as <id>"). A model that keeps going after <eos> (or a scored
reference that contains one) must still be shown in full."""
from vtengine import tokenizer

ids = tokenizer.encode("Hi") + [tokenizer.EOS] + tokenizer.encode(" there", bos=False) + [tokenizer.PAD]
print("ids:", ids)
text = tokenizer.decode(ids)
print("decode:", repr(text))
print("round trip of the text after <eos>:", "there" in text, "| <pad> shown:", "<pad>" in text)
